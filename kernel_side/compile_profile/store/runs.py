"""The run store: every ``ProfileRun`` saved in one SQLite file, shared by the magic, the CLI and the server.

One file per user (``default_db_path()``), written by several processes at once
(kernels, the Jupyter server, the CLI), so:

* the database runs in WAL mode with a busy timeout, and every write is one
  ``BEGIN IMMEDIATE`` transaction, so readers never see half a run and two
  writers queue instead of failing;
* the file is stamped with our ``application_id`` and its schema version is
  ``PRAGMA user_version``; an older file is migrated step by step, a newer one
  is refused (an older compile-profile must not rewrite what a newer one wrote),
  and any other file at the path (another program's database, a corrupt or
  non-SQLite file) is refused and left untouched;
* each row keeps the run's JSON plus the columns listing needs, including the
  run's summary as JSON, so listing never parses whole runs, and the distributed
  job it belongs to (``job_id``), so a job's ranks are found by one index;
* one unreadable run must not hide the others: a row whose JSON is not a run's (or
  whose fields have the wrong types, ``serialize.from_dict``) is listed with its id,
  status ``unreadable`` and why (``digest.summary.unreadable_summary``), a cached
  summary that is not one is derived again, and reading such a run raises
  ``UnreadableRun``, a ``ValueError`` that names the run, the field and what to do;
* a store nobody may write (a read-only folder, where SQLite cannot make the WAL's
  ``-shm`` file) is opened read-only, or immutable when it has no write-ahead log
  left, so it can still be listed and read.

Only the standard library's ``sqlite3`` is used.  The summaries are the digest's
(``digest.summarize``), stamped with ``DIGEST_VERSION`` and derived again on listing when a later
version words runs differently; the migrations only shape tables and never call the digest, so a
released migration does the same thing forever.

It is one module of about 480 lines on purpose: the connection, the transaction and locking
rules, the migrations and the queries are one set of invariants, and a reader checks them together.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import pathlib
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeGuard

from .digest.contract import RunSummary
from .digest.format import one_line
from .digest.summary import DIGEST_VERSION, summarize, unreadable_summary
from .profile_run import ProfileRun
from .serialize import json_kind

# "CPRF" in ASCII: marks a SQLite file as a compile-profile run store.
APPLICATION_ID = 0x43505246

_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # used with fullmatch: "$" would let a trailing newline through
_FIX_PATH = "point COMPILE_PROFILE_DB (or the CLI's --db) at another file"


class StoreError(Exception):
    """The run store cannot be used; the message names the file and what to do about it."""


class UnreadableRun(ValueError):
    """A stored run that cannot be read: its JSON is not a run's, or a field has the wrong type."""

    def __init__(self, run_id: str, path: pathlib.Path, reason: str):
        super().__init__(
            f"run {run_id} in {path} cannot be read ({reason}); it was left as stored: delete it "
            f"(compile-profile rm {run_id}) or import a good copy (compile-profile import FILE)"
        )
        self.run_id = run_id
        self.reason = reason


def _unreadable_reason(exc: BaseException) -> str:
    """Why a stored run's JSON could not be read, in one line (a JSON error, a field's path and type)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc}"
    if isinstance(exc, RecursionError):
        return "nested too deeply to be a run"
    if isinstance(exc, TypeError):  # json.loads of a value SQLite holds that is not text (a number, NULL)
        return "its JSON is not text"
    if isinstance(exc, UnreadableRun):
        return exc.reason
    return one_line(str(exc), 300)


class RunNotFound(KeyError):
    """No run with that id."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else "run not found"


def default_db_path() -> pathlib.Path:
    """``$COMPILE_PROFILE_DB`` when set, else ``<jupyter data dir>/compile_profile/runs.sqlite``."""
    configured = os.environ.get("COMPILE_PROFILE_DB", "").strip()
    if configured:
        return pathlib.Path(configured).expanduser()
    from jupyter_core.paths import jupyter_data_dir

    return pathlib.Path(jupyter_data_dir()) / "compile_profile" / "runs.sqlite"


def validate_run_id(run_id: str) -> str:
    """Return ``run_id`` if it is 1–64 letters, digits, ``_`` or ``-``; raise ``ValueError`` otherwise."""
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise ValueError(f"invalid run id {run_id!r}: use 1-64 letters, digits, '_' or '-'")
    return run_id


# -- schema -------------------------------------------------------------------
# Each step moves the file one version up, inside the migration transaction.
# Append new steps; never edit a released one.


def _create_runs_table(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            created_ts REAL NOT NULL,   -- created_at as epoch seconds: ISO strings with different offsets don't sort
            notebook TEXT NOT NULL DEFAULT '',
            label TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            run_json TEXT NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX runs_by_time ON runs (created_ts DESC)")
    conn.execute("CREATE INDEX runs_by_notebook ON runs (notebook, created_ts DESC)")


def _add_summaries_and_change_counter(conn: sqlite3.Connection) -> None:
    # Summaries start empty: they are the digest's, derived outside the migrations (``_fresh_summaries``),
    # so that this step never depends on how a later version words a run.
    conn.execute("ALTER TABLE runs ADD COLUMN summary_json TEXT NOT NULL DEFAULT '{}'")
    # A counter bumped by every put and delete: pollers compare one integer instead of rereading the list.
    conn.execute("CREATE TABLE store_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
    conn.execute("INSERT INTO store_state (key, value) VALUES ('changes', 0)")


def _add_job_ids(conn: sqlite3.Connection) -> None:
    # The distributed job a run belongs to (``DistributedRank.job_id``), NULL for a single-process run.
    # Filled from each stored run's own JSON, by SQL alone (no digest), so the step never changes.
    conn.execute("ALTER TABLE runs ADD COLUMN job_id TEXT")
    conn.execute(
        "UPDATE runs SET job_id = CASE WHEN json_valid(run_json) "
        "THEN json_extract(run_json, '$.distributed.job_id') END"
    )
    conn.execute("CREATE INDEX runs_by_job ON runs (job_id) WHERE job_id IS NOT NULL")


def _add_trace_hashes(conn: sqlite3.Connection) -> None:
    # The content hash of the TORCH_TRACE log a run was read from (``TraceOrigin.content_sha256``), NULL for a
    # profiled run: the same log imported again is found, not stored twice.  Filled from the runs' JSON by SQL.
    conn.execute("ALTER TABLE runs ADD COLUMN trace_sha256 TEXT")
    conn.execute(
        "UPDATE runs SET trace_sha256 = CASE WHEN json_valid(run_json) "
        "THEN NULLIF(json_extract(run_json, '$.imported_trace.content_sha256'), '') END"
    )
    conn.execute("CREATE INDEX runs_by_trace ON runs (trace_sha256) WHERE trace_sha256 IS NOT NULL")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _create_runs_table,  # -> version 1
    _add_summaries_and_change_counter,  # -> version 2
    _add_job_ids,  # -> version 3
    _add_trace_hashes,  # -> version 4
]
SCHEMA_VERSION = len(MIGRATIONS)


def _summarize(run_id: str, run_json: str, columns: dict[str, str]) -> RunSummary:
    """The digest's summary of a stored run; one unreadable run gets a summary that says so, with what its row's
    own columns (``created_at``, ``notebook``, ``label``) know of it."""
    try:
        return summarize(ProfileRun.from_dict(json.loads(run_json)))
    except Exception as exc:  # noqa: BLE001 - one unreadable run must not hide the others (a digest bug neither)
        return unreadable_summary(run_id, _unreadable_reason(exc), **columns)


# What the run lists read of a cached summary (the CLI's ls, the panel's list and its compare pickers), with the
# types they read them as: a summary whose fields do not have them is derived again from the run.
_LISTED_FIELDS: dict[str, type | tuple[type, ...]] = {
    "label": str,
    "created_at": str,
    "status": str,
    "notebook": str,
    "first_line": str,
    "headline": str,
    "device": dict,
    "variants": list,
    "warnings": list,
    "speedup": (dict, type(None)),
    "distributed": (dict, type(None)),
}


def _usable_summary(summary: Any, run_id: str) -> TypeGuard[RunSummary]:
    """Whether a cached summary is this version's summary of this run, with the fields the lists read: the
    store wrote it from ``summarize`` (the digest's version says which), so it is read as one."""
    if not isinstance(summary, dict) or summary.get("digest") != DIGEST_VERSION or summary.get("id") != run_id:
        return False
    if not all(isinstance(summary.get(key), kinds) for key, kinds in _LISTED_FIELDS.items()):
        return False
    device, speedup = summary["device"], summary["speedup"]
    if not (isinstance(device.get("type"), str) and isinstance(device.get("name"), str)):
        return False
    if not all(isinstance(v, dict) and isinstance(v.get("name"), str) for v in summary["variants"]):
        return False
    return speedup is None or (type(speedup.get("value")) in (int, float) and isinstance(speedup.get("text"), str))


def _cached_summary(run_id: str, summary_json: str) -> RunSummary | None:
    """The summary cached in a row, or None when it must be derived again (stale, unparsable or misshapen)."""
    try:
        summary = json.loads(summary_json)
    except (ValueError, TypeError, RecursionError):
        return None
    return summary if _usable_summary(summary, run_id) else None


def _epoch_seconds(created_at: str) -> float:
    try:
        moment = _dt.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return time.time()  # an unparsable timestamp sorts as "just stored"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment.timestamp()


def _cannot_write(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed for want of write access (the file, or its folder for the -wal and -shm files)."""
    text = str(exc).lower()
    return "unable to open" in text or "readonly" in text or "read-only" in text


def _rollback_if_open(conn: sqlite3.Connection) -> None:
    """Undo a transaction that failed part way (a failed COMMIT leaves it open; SQLite may have undone it)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the error that got us here is the one worth reporting


class RunStore:
    """Saved runs in one SQLite file; safe to share between threads and processes.

    Nothing touches the disk until the first call: reading a store that does not
    exist yet gives no runs, and the first ``put`` creates the folder and the file.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 30.0):
        self.path = pathlib.Path(path).expanduser() if path is not None else default_db_path()
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._read_only = False  # self._conn was opened read-only (nobody may write the store)
        self._pid = os.getpid()
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"RunStore({str(self.path)!r})"

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------
    def put(self, run: ProfileRun) -> None:
        """Save ``run`` in one transaction, replacing any run with the same id."""
        validate_run_id(run.id)
        run_json = json.dumps(run.to_dict())
        summary_json = json.dumps(summarize(run))
        row = (
            run.id,
            run.created_at,
            _epoch_seconds(run.created_at),
            run.notebook or "",
            run.label or "",
            run.status,
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
            conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")

    def delete(self, run_id: str) -> bool:
        """Remove a run; ``False`` if there was none with that id."""
        validate_run_id(run_id)
        if self._read_connection() is None:
            return False
        with self._write() as conn:
            removed = conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount > 0
            if removed:
                conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")
        return removed

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

    def get(self, run_id: str) -> ProfileRun:
        """The run; ``RunNotFound`` if there is none with that id, ``UnreadableRun`` if it cannot be read."""
        return self.read(run_id)[1]

    def read(self, run_id: str) -> tuple[dict[str, Any], ProfileRun]:
        """The run's JSON data as stored and the run built from it, checked field by field (the REST API serves
        the one and derives its digest from the other); raises as ``get`` does."""
        data = self.get_dict(run_id)
        try:
            return data, ProfileRun.from_dict(data)
        except (ValueError, RecursionError) as exc:
            raise UnreadableRun(run_id, self.path, _unreadable_reason(exc)) from None

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
            raise UnreadableRun(run_id, self.path, _unreadable_reason(exc)) from None
        if not isinstance(data, dict):
            raise UnreadableRun(run_id, self.path, f"its JSON is {json_kind(data)}, not an object")
        return data

    def _load(self, run_id: str, run_json: Any) -> ProfileRun:
        try:
            return ProfileRun.from_dict(self._parse_object(run_id, run_json))
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, UnreadableRun):
                raise
            raise UnreadableRun(run_id, self.path, _unreadable_reason(exc)) from None

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
    ) -> list[RunSummary]:
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
        summaries = {run_id: _cached_summary(run_id, summary_json) for run_id, summary_json in rows}
        stale = [run_id for run_id, summary in summaries.items() if summary is None]
        if stale:
            summaries.update(self._fresh_summaries(stale))
        return [summary for run_id, _ in rows if (summary := summaries[run_id]) is not None]

    def _fresh_summaries(self, ids: list[str]) -> dict[str, RunSummary]:
        """Derive the summaries of ``ids`` again and store them (best effort: a read-only store still lists)."""
        fresh: dict[str, RunSummary] = {}
        for run_id in ids:
            row = self._query_one("SELECT run_json, created_at, notebook, label FROM runs WHERE id = ?", (run_id,))
            if row is not None:  # deleted since it was listed: left out
                run_json, created_at, notebook, label = row
                columns = {"created_at": created_at, "notebook": notebook, "label": label}
                fresh[run_id] = _summarize(run_id, run_json, {k: v for k, v in columns.items() if isinstance(v, str)})
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

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
            self._read_only = False

    # -- connection ------------------------------------------------------
    def _query_one(self, sql: str, params: tuple | dict) -> tuple | None:
        with self._lock, self._translating_errors("read"):
            conn = self._read_connection()
            return None if conn is None else conn.execute(sql, params).fetchone()

    def _query_all(self, sql: str, params: tuple) -> list[tuple]:
        with self._lock, self._translating_errors("read"):
            conn = self._read_connection()
            return [] if conn is None else conn.execute(sql, params).fetchall()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._translating_errors("write to"):
            conn = self._connection(create=True)
            assert conn is not None
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            finally:
                _rollback_if_open(conn)

    def _read_connection(self) -> sqlite3.Connection | None:
        return self._connection(create=False)

    def _connection(self, *, create: bool) -> sqlite3.Connection | None:
        """The open connection, opening (and creating or migrating) the file on first use."""
        with self._lock:
            if self._pid != os.getpid():
                # A forked child must not use its parent's connection; it was never ours to close.
                self._conn, self._pid = None, os.getpid()
            if self._conn is not None and self._read_only and create:
                self.close()  # a write tries the file afresh: it may have become writable
            if self._conn is not None:
                return self._conn
            if not create and not self.path.exists():
                return None
            with self._translating_errors("open"):
                if create:
                    try:
                        self.path.parent.mkdir(parents=True, exist_ok=True)
                    except OSError as exc:
                        raise StoreError(
                            f"cannot create the folder for the run store {self.path}: {exc.strerror or exc}; "
                            f"make it writable or {_FIX_PATH}"
                        ) from None
                try:
                    conn = self._open(self.path, read_only=False)
                except sqlite3.OperationalError as exc:
                    if create or not _cannot_write(exc):
                        raise
                    conn = self._open_read_only()
                    self._read_only = True
                else:
                    self._read_only = False
            self._conn = conn
            return conn

    def _open(self, target: str | os.PathLike[str], *, read_only: bool) -> sqlite3.Connection:
        """A checked connection to the store (``target`` a path, or a ``file:`` URI when ``read_only``)."""
        conn = sqlite3.connect(
            target, timeout=self.timeout, isolation_level=None, check_same_thread=False, uri=read_only
        )
        try:
            if read_only:
                self._check_readable_as_is(conn)
            else:
                self._check_is_ours(conn)
                self._prepare(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _open_read_only(self) -> sqlite3.Connection:
        """The store opened for reading only, when it cannot be opened for writing (its folder is read-only).

        A WAL database needs its ``-shm`` file: ``mode=ro`` opens it where that file is there (another
        process has the store open); else, with no write-ahead log left either (the last writer closed it
        cleanly), ``immutable=1`` reads the file alone, which nobody can change while the folder is read-only.
        """
        uri = self.path.absolute().as_uri()
        try:
            return self._open(f"{uri}?mode=ro", read_only=True)
        except sqlite3.OperationalError as exc:
            if not _cannot_write(exc):
                raise
        wal = pathlib.Path(f"{self.path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(
                f"cannot read the run store {self.path}: its folder is read-only and its last writes are still in "
                f"{wal.name}, which SQLite cannot read without creating {self.path.name}-shm there; make the "
                f"folder writable or {_FIX_PATH}"
            )
        return self._open(f"{uri}?immutable=1", read_only=True)

    def _check_readable_as_is(self, conn: sqlite3.Connection) -> None:
        """A read-only store can be read only if it is ours and needs no migration (nothing can be written)."""
        version = self._check_is_ours(conn)
        if version < SCHEMA_VERSION:
            raise StoreError(
                f"cannot read the run store {self.path}: it is read-only and of an older store schema ({version}; "
                f"this compile-profile reads {SCHEMA_VERSION} after migrating it): make it writable once, or {_FIX_PATH}"
            )

    def _inspect(self, conn: sqlite3.Connection) -> tuple[int, int, list[str]]:
        # One read transaction, so all three come from the same moment even while another process
        # is creating the store (stamp and tables are committed together).
        own_transaction = not conn.in_transaction
        try:
            if own_transaction:
                conn.execute("BEGIN")
            try:
                tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")]
                app_id = conn.execute("PRAGMA application_id").fetchone()[0]
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            finally:
                if own_transaction:
                    _rollback_if_open(conn)
        except sqlite3.DatabaseError as exc:
            # a locked file, or one that cannot be opened (a read-only folder: no -shm): not a verdict on the file
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or _cannot_write(exc)):
                raise
            raise StoreError(
                f"{self.path} is not a compile-profile run store ({exc}); it may be corrupt or another "
                f"program's file. It was left untouched: move it away or {_FIX_PATH}"
            ) from None
        return app_id, version, tables

    def _check_is_ours(self, conn: sqlite3.Connection) -> int:
        """Refuse anything but an empty file or one of our stores no newer than this code; return its version."""
        app_id, version, tables = self._inspect(conn)
        if app_id != APPLICATION_ID and (app_id != 0 or tables or version != 0):
            raise StoreError(
                f"{self.path} is a SQLite database of another program (application id {app_id:#x}, "
                f"tables {', '.join(tables) or 'none'}); it was left untouched: move it away or {_FIX_PATH}"
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the run store {self.path} was written by a newer compile-profile (store schema {version}; "
                f"this one reads up to {SCHEMA_VERSION}): upgrade compile-profile (pip install -U compile-profile)"
            )
        return version

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Switch to WAL and run any pending migrations, once, even with other processes doing the same."""
        self._switch_to_wal(conn)
        # WAL with synchronous=NORMAL cannot corrupt; a power cut may only lose the last few runs.
        conn.execute("PRAGMA synchronous = NORMAL")
        if self._check_is_ours(conn) == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock: look again.
            version = self._check_is_ours(conn)
            for step_version, step in enumerate(MIGRATIONS[version:], start=version + 1):
                step(conn)
                conn.execute(f"PRAGMA user_version = {step_version}")
            conn.execute("COMMIT")
        finally:
            _rollback_if_open(conn)

    def _switch_to_wal(self, conn: sqlite3.Connection) -> None:
        # Changing the journal mode needs an exclusive lock, and SQLite answers "locked" at once,
        # without waiting, when another process is creating or writing the file at that moment
        # (waiting could deadlock). So wait here, as the busy timeout would.
        deadline = time.monotonic() + self.timeout
        pause = 0.005
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    @contextmanager
    def _translating_errors(self, doing: str) -> Iterator[None]:
        """Turn sqlite3's terse errors into a StoreError that says which file and what to do."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(self._explain(exc, doing)) from exc

    def _explain(self, exc: sqlite3.Error, doing: str) -> str:
        text = str(exc)
        lowered = text.lower()
        where = f"cannot {doing} the run store {self.path}"
        if "full" in lowered:
            return f"{where}: the disk is full ({text}); free some space or {_FIX_PATH}"
        if "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
            return (
                f"{where}: the file or its folder is read-only or missing ({text}); "
                f"make the folder writable or {_FIX_PATH}"
            )
        if "locked" in lowered or "busy" in lowered:
            return (
                f"{where}: another process kept it locked for more than {self.timeout:g} s ({text}); "
                "try again when it is done"
            )
        if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
            return (
                f"{where}: the file is corrupt or not a compile-profile run store ({text}); move it away or {_FIX_PATH}"
            )
        return f"{where}: {text}"
