"""``RunStore``: every ``ProfileRun`` saved in one SQLite file (``database``), shared by the magic, the CLI and the
server, and the queries that read and write it.

* each row keeps the run's JSON plus the columns listing needs, including the run's summary as JSON
  (``summaries``), so listing never parses whole runs, the distributed job it belongs to (``job_id``), so a job's
  ranks are found by one index, and the content hash of the log an imported run was read from (``trace_sha256``);
* a suite's record and its entries' outcomes (``compile_profile.suites``) are kept as the suite package's JSON text,
  never read inside here (``put_suite``, ``put_suite_model``, ``suite``, ``suites``), and its line in a list as
  the package cached it (``suite_line``, ``put_suite_line``), cleared when an outcome or a run of the suite changes;
* one unreadable run must not hide the others: a row whose JSON is not a run's (or whose fields have the wrong
  types, ``serialize.from_dict``) is listed with its id, status ``unreadable`` and why, a cached summary that is
  not one is derived again, and reading such a run raises ``UnreadableRun``, a ``ValueError`` that names the run,
  the field and what to do.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import sqlite3
import time
from typing import Any

from .. import artifacts
from ..digest.summary import summarize
from ..profile_run import ProfileRun
from ..serialize import json_kind, to_dict
from ..user_input import shown
from .database import StoreFile
from .errors import RunNotFound, StoreError, UnreadableRun, unreadable_reason
from .summaries import SummaryJson, cached_summary, summarize_row

_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # used with fullmatch: "$" would let a trailing newline through


def validate_run_id(run_id: str) -> str:
    """Return ``run_id`` if it is 1–64 letters, digits, ``_`` or ``-``; raise ``ValueError`` otherwise."""
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        # quoted clipped: a 5,000-character id had come back whole in a 400's message
        raise ValueError(
            f"invalid run id {shown(run_id) if isinstance(run_id, str) else repr(run_id)[:80]}: use 1-64 letters, digits, '_' or '-'"
        )
    return run_id


def epoch_seconds(created_at: str) -> float:
    try:
        moment = _dt.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return time.time()  # an unparsable timestamp sorts as "just stored"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment.timestamp()


# A suite's cached list line words its entries' runs: writing or removing one of them clears it (``suite_line``).
_FORGET_SUITE_LINES_OF_RUN = (
    "UPDATE suites SET summary_json = '{}' WHERE id IN (SELECT suite_id FROM suite_models WHERE run_id = ?)"
)


class RunStore(StoreFile):
    """Saved runs in one SQLite file (``database.StoreFile``); safe to share between threads and processes.

    Nothing touches the disk until the first call: reading a store that does not
    exist yet gives no runs, and the first ``put`` creates the folder and the file.
    """

    def __repr__(self) -> str:
        return f"RunStore({str(self.path)!r})"

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------
    def put(self, run: ProfileRun) -> None:
        """Save ``run`` in one transaction, replacing any run with the same id; its artifacts' texts go to the
        artifacts table (each text once, compressed: ``artifacts.pack``), its JSON keeps their references."""
        validate_run_id(run.id)
        data = run.to_dict()
        data["artifact_texts"] = {}  # kept in the artifacts table
        run_json = json.dumps(data)
        summary_json = json.dumps(to_dict(summarize(run)))  # its text as the run's: no lone surrogate
        refs = artifacts.referenced(run)
        packed = artifacts.pack(run.artifact_texts, refs - self._stored_artifacts(refs))
        row = (  # the columns from the data (``to_dict``: a lone surrogate in a label is U+FFFD, which SQLite takes)
            run.id,
            data["created_at"],
            epoch_seconds(run.created_at),
            data["notebook"] or "",
            data["label"] or "",
            data["status"],
            run_json,
            summary_json,
            run.distributed.job_id if run.distributed is not None else None,
            (run.imported_trace.content_sha256 or None) if run.imported_trace is not None else None,
        )
        with self._write() as conn:
            conn.execute(
                """
                INSERT INTO runs (id, created_at, created_ts, notebook, label, status, run_json, summary_json,
                                  job_id, trace_sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    created_at = excluded.created_at, created_ts = excluded.created_ts,
                    notebook = excluded.notebook, label = excluded.label, status = excluded.status,
                    run_json = excluded.run_json, summary_json = excluded.summary_json, job_id = excluded.job_id,
                    trace_sha256 = excluded.trace_sha256
                """,
                row,
            )
            dropped = self._unlink_artifacts(conn, run.id)
            conn.executemany("INSERT OR IGNORE INTO artifacts (sha256, bytes, body) VALUES (?, ?, ?)", packed)
            conn.executemany(
                "INSERT INTO run_artifacts (run_id, sha256) SELECT ?, sha256 FROM artifacts WHERE sha256 = ?",
                [(run.id, sha) for sha in sorted(refs)],
            )
            self._drop_unreferenced(conn, dropped)
            conn.execute(_FORGET_SUITE_LINES_OF_RUN, (run.id,))
            conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")

    def has_row(self, run_id: str) -> bool:
        """Whether a row of the runs table has ``run_id`` as its id, read or not."""
        conn = self._read_connection()
        return conn is not None and conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is not None

    def delete(self, run_id: str) -> bool:
        """Remove a run, and the artifacts no other run holds; ``False`` if there was none with that id.  An id outside
        the id rule (``validate_run_id``: ``ValueError``) is taken only where a row holds it as stored: a row whose id
        column was edited outside the store is listed unreadable under that id, and no command could remove it."""
        if not self.has_row(run_id):
            validate_run_id(run_id)
        if self._read_connection() is None:
            return False
        with self._write() as conn:
            removed = self._delete_run(conn, run_id)
            if removed:
                conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")
        return removed

    @classmethod
    def _delete_run(cls, conn: sqlite3.Connection, run_id: str) -> bool:
        """Within a write: remove the run and the artifacts no other run holds; whether there was one."""
        removed = conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount > 0
        cls._drop_unreferenced(conn, cls._unlink_artifacts(conn, run_id))
        conn.execute(_FORGET_SUITE_LINES_OF_RUN, (run_id,))
        return removed

    @staticmethod
    def _unlink_artifacts(conn: sqlite3.Connection, run_id: str) -> list[str]:
        shas = [r[0] for r in conn.execute("SELECT sha256 FROM run_artifacts WHERE run_id = ?", (run_id,))]
        conn.execute("DELETE FROM run_artifacts WHERE run_id = ?", (run_id,))
        return shas

    @staticmethod
    def _drop_unreferenced(conn: sqlite3.Connection, shas: list[str]) -> None:
        conn.executemany(
            "DELETE FROM artifacts WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM run_artifacts WHERE sha256 = ?)",
            [(sha, sha) for sha in shas],
        )

    def _stored_artifacts(self, shas: set[str]) -> set[str]:
        """Which of ``shas`` the store holds already (their texts are not compressed again)."""
        found: set[str] = set()
        ordered = sorted(shas)
        for at in range(0, len(ordered), 500):
            chunk = ordered[at : at + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                r[0] for r in self._query_all(f"SELECT sha256 FROM artifacts WHERE sha256 IN ({marks})", tuple(chunk))
            )
        return found

    def artifact(self, run_id: str, sha256: str) -> str | None:
        """The text of an artifact ``run_id`` holds (``Artifact.sha256``); None where the run holds none by that hash."""
        validate_run_id(run_id)
        row = self._query_one(
            "SELECT a.body FROM artifacts a JOIN run_artifacts r ON r.sha256 = a.sha256 "
            "WHERE r.run_id = ? AND a.sha256 = ?",
            (run_id, sha256),
        )
        return artifacts.unpack(row[0]) if row is not None else None

    # -- suites (compile_profile.suites: the JSON is theirs, kept here as text) -----------------------------
    def put_suite(self, suite_id: str, created_at: str, record_json: str) -> bool:
        """Store a suite's record unless one with this id is there (a shard joining it); whether it was new."""
        validate_run_id(suite_id)
        with self._write() as conn:
            added = conn.execute(
                "INSERT OR IGNORE INTO suites (id, created_at, created_ts, record_json) VALUES (?, ?, ?, ?)",
                (suite_id, created_at, epoch_seconds(created_at), record_json),
            ).rowcount
            conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")
        return added > 0

    def put_suite_model(self, suite_id: str, name: str, outcome_json: str, run_id: str | None) -> None:
        """Store (or replace) one entry's outcome in a stored suite, in one transaction."""
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO suite_models (suite_id, name, outcome_json, run_id, ended_ts) "
                "VALUES (?, ?, ?, ?, ?)",
                (validate_run_id(suite_id), name, outcome_json, run_id, time.time()),
            )
            conn.execute("UPDATE suites SET summary_json = '{}' WHERE id = ?", (suite_id,))
            conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")

    def suite(self, suite_id: str) -> tuple[str, list[str]]:
        """A stored suite's record JSON and its entries' outcome JSON, in the order they ended; ``RunNotFound``."""
        row = self._query_one("SELECT record_json FROM suites WHERE id = ?", (validate_run_id(suite_id),))
        if row is None:
            raise RunNotFound(f"no suite with id {suite_id!r} in {self.path}")
        models = self._query_all(
            "SELECT outcome_json FROM suite_models WHERE suite_id = ? ORDER BY ended_ts, rowid", (suite_id,)
        )
        return row[0], [m[0] for m in models]

    def delete_suite(self, suite_id: str) -> tuple[bool, int]:
        """Remove a suite, its entries' outcomes and the runs they stored (with the artifacts no other run holds), in
        one transaction, read from the outcomes' ``run_id`` column so that a suite whose JSON cannot be read goes too;
        (whether there was such a suite, how many runs went with it)."""
        validate_run_id(suite_id)
        if self._read_connection() is None:
            return False, 0
        with self._write() as conn:
            run_ids = [
                r[0]
                for r in conn.execute(
                    "SELECT run_id FROM suite_models WHERE suite_id = ? AND run_id IS NOT NULL", (suite_id,)
                )
            ]
            runs = sum(self._delete_run(conn, run_id) for run_id in run_ids)
            conn.execute("DELETE FROM suite_models WHERE suite_id = ?", (suite_id,))
            removed = conn.execute("DELETE FROM suites WHERE id = ?", (suite_id,)).rowcount > 0
            if removed or runs:
                conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")
        return removed, runs

    def suite_line(self, suite_id: str) -> str:
        """A suite's list line as cached (the suites package's JSON, ``suites.http.suite_rows``), '{}' where none is,
        or where the file is a read-only store of an older schema, which has no place for one."""
        try:
            row = self._query_one("SELECT summary_json FROM suites WHERE id = ?", (validate_run_id(suite_id),))
        except StoreError:
            return "{}"
        return row[0] if row is not None and isinstance(row[0], str) else "{}"

    def put_suite_line(self, suite_id: str, line_json: str) -> None:
        """Cache a suite's list line (best effort: a read-only store still lists, and the next writer caches it)."""
        try:
            with self._write() as conn:
                conn.execute("UPDATE suites SET summary_json = ? WHERE id = ?", (line_json, validate_run_id(suite_id)))
        except StoreError:
            pass

    def suites(self, limit: int = 50) -> list[tuple[str, str, int]]:
        """The newest suites first: (id, record JSON, entries ended so far)."""
        rows = self._query_all(
            "SELECT s.id, s.record_json, (SELECT count(*) FROM suite_models m WHERE m.suite_id = s.id) "
            "FROM suites s ORDER BY s.created_ts DESC, s.rowid DESC LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    # -- reading ---------------------------------------------------------
    def run_of_trace(self, content_sha256: str) -> str | None:
        """The id of a stored run read from a TORCH_TRACE log of this content (``TraceOrigin.content_sha256``)."""
        conn = self._read_connection()
        if conn is None or not content_sha256:
            return None
        try:
            row = conn.execute(
                "SELECT id FROM runs WHERE trace_sha256 = ? ORDER BY created_ts LIMIT 1", (content_sha256,)
            ).fetchone()
        except sqlite3.OperationalError:  # a read-only file of an older schema, which has no such column
            return None
        return row[0] if row else None

    def get(self, run_id: str, *, with_artifacts: bool = False) -> ProfileRun:
        """The run; ``RunNotFound`` if there is none with that id, ``UnreadableRun`` if it cannot be read.  Its
        artifacts' texts stay in the store (``artifact``) unless ``with_artifacts``: then the run is whole, as it
        was put."""
        run = self.read(run_id)[1]
        if with_artifacts:
            run.artifact_texts = self.artifact_texts(run_id)
        return run

    def artifact_texts(self, run_id: str) -> dict[str, str]:
        """Every artifact text ``run_id`` holds, by hash."""
        rows = self._query_all(
            "SELECT a.sha256, a.body FROM artifacts a JOIN run_artifacts r ON r.sha256 = a.sha256 WHERE r.run_id = ?",
            (validate_run_id(run_id),),
        )
        return {sha: artifacts.unpack(body) for sha, body in rows}

    def read(self, run_id: str) -> tuple[dict[str, Any], ProfileRun]:
        """The run's JSON data as stored and the run built from it, checked field by field (the REST API serves
        the one and derives its digest from the other); raises as ``get`` does."""
        data = self.get_dict(run_id)
        try:
            run = ProfileRun.from_dict(data)
        except (ValueError, RecursionError) as exc:
            raise UnreadableRun(run_id, self.path, unreadable_reason(exc)) from None
        if run.id != run_id:  # an edited row (``summaries.summarize_row`` lists it so)
            raise UnreadableRun(run_id, self.path, f"its run's id is {run.id[:80]!r}, not the row's")
        return data, run

    def get_dict(self, run_id: str) -> dict[str, Any]:
        """The run's JSON as stored, parsed but not checked against the schema (``show --json`` prints a run that
        ``get`` refuses, so that it can be looked at); ``UnreadableRun`` if it is not a JSON object."""
        validate_run_id(run_id)
        row = self._query_one("SELECT run_json FROM runs WHERE id = ?", (run_id,))
        if row is None:
            raise RunNotFound(f"no run with id {run_id!r} in {self.path}")
        return self._parse_object(run_id, row[0])

    def _parse_object(self, run_id: str, run_json: Any) -> dict[str, Any]:
        try:
            data = json.loads(run_json)
        except (ValueError, TypeError, RecursionError) as exc:
            raise UnreadableRun(run_id, self.path, unreadable_reason(exc)) from None
        if not isinstance(data, dict):
            raise UnreadableRun(run_id, self.path, f"its JSON is {json_kind(data)}, not an object")
        return data

    def _load(self, run_id: str, run_json: Any) -> ProfileRun:
        try:
            return ProfileRun.from_dict(self._parse_object(run_id, run_json))
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, UnreadableRun):
                raise
            raise UnreadableRun(run_id, self.path, unreadable_reason(exc)) from None

    def job(self, job_id: str) -> list[ProfileRun]:
        """The runs of a distributed job ordered by rank, by the job's id or the id of any of its runs.

        Raises ``RunNotFound`` when neither a job nor a run of a job has that id.
        """
        validate_run_id(job_id)
        rows = self._query_all("SELECT id, run_json FROM runs WHERE job_id = ?", (job_id,))
        if not rows:
            row = self._query_one("SELECT job_id FROM runs WHERE id = ?", (job_id,))
            if row is not None and row[0] is not None:
                rows = self._query_all("SELECT id, run_json FROM runs WHERE job_id = ?", (row[0],))
        if not rows:
            raise RunNotFound(f"no job with id {job_id!r} (nor a run of one) in {self.path}")
        runs = [self._load(run_id, run_json) for run_id, run_json in rows]
        return sorted(runs, key=lambda r: (r.distributed.rank if r.distributed is not None else 0, r.created_at))

    def list(
        self, *, limit: int | None = 50, offset: int = 0, notebook: str | None = None, job: str | None = None
    ) -> list[SummaryJson]:
        """Summaries (``digest.summarize``) of the newest runs first, optionally of one notebook or one job.

        A summary cached by an older version (or none, after migration 2) is derived again from the run
        and written back, so the list never words a run differently from the run's own view.  So is one that
        cannot be parsed or lacks what the lists read; a run that cannot be read is listed with status
        ``unreadable`` and why (``digest.summary.unreadable_summary``), and the others as always.
        """
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValueError(f"limit must be a non-negative integer or None, not {limit!r}")
        if not isinstance(offset, int) or offset < 0:
            raise ValueError(f"offset must be a non-negative integer, not {offset!r}")
        where, params = self._where(notebook, job)
        rows = self._query_all(
            f"SELECT id, summary_json FROM runs {where} ORDER BY created_ts DESC, rowid DESC LIMIT ? OFFSET ?",
            (*params, -1 if limit is None else limit, offset),
        )
        summaries = {run_id: cached_summary(run_id, summary_json) for run_id, summary_json in rows}
        stale = [run_id for run_id, summary in summaries.items() if summary is None]
        if stale:
            summaries.update(self._fresh_summaries(stale))
        return [summary for run_id, _ in rows if (summary := summaries[run_id]) is not None]

    def _fresh_summaries(self, ids: list[str]) -> dict[str, SummaryJson]:
        """Derive the summaries of ``ids`` again and store them (best effort: a read-only store still lists)."""
        fresh: dict[str, SummaryJson] = {}
        for run_id in ids:
            row = self._query_one("SELECT run_json, created_at, notebook, label FROM runs WHERE id = ?", (run_id,))
            if row is not None:  # deleted since it was listed: left out
                run_json, created_at, notebook, label = row
                columns = {"created_at": created_at, "notebook": notebook, "label": label}
                fresh[run_id] = summarize_row(
                    run_id, run_json, {k: v for k, v in columns.items() if isinstance(v, str)}
                )
        try:
            with self._write() as conn:
                conn.executemany(
                    "UPDATE runs SET summary_json = ? WHERE id = ?",
                    [(json.dumps(summary), run_id) for run_id, summary in fresh.items()],
                )
        except StoreError:
            pass  # listing must not fail because the file is read-only; the next writer refreshes them
        return fresh

    def count(self, *, notebook: str | None = None, job: str | None = None) -> int:
        where, params = self._where(notebook, job)
        row = self._query_one(f"SELECT count(*) FROM runs {where}", tuple(params))
        return row[0] if row else 0

    @staticmethod
    def _where(notebook: str | None, job: str | None) -> tuple[str, list[str]]:
        """The WHERE clause (and its parameters) of a listing filtered by notebook and/or job."""
        clauses = [(column, value) for column, value in (("notebook", notebook), ("job_id", job)) if value is not None]
        if not clauses:
            return "", []
        return "WHERE " + " AND ".join(f"{column} = ?" for column, _ in clauses), [value for _, value in clauses]

    def change_token(self) -> int:
        """A number that changes whenever a run is put or deleted, by any process."""
        row = self._query_one("SELECT value FROM store_state WHERE key = 'changes'", ())
        return row[0] if row else 0
