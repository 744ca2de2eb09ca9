"""The run store's schema, in ordered migrations: each step moves the file one version up (``PRAGMA user_version``),
inside the migration transaction (``database.StoreFile``).  Append new steps; never edit a released one.  The
migrations only shape tables and never call the digest, so a released migration does the same thing forever."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

# "CPRF" in ASCII: marks a SQLite file as a compile-profile run store.
APPLICATION_ID = 0x43505246


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


def _add_artifacts(conn: sqlite3.Connection) -> None:
    # Each compile artifact's text once, by its SHA-256, zlib-compressed (``ProfileRun.compiles`` names them; a run's
    # JSON holds none), and which runs hold which: the same graph logged by two ranks or two compiles is one row.
    conn.execute("CREATE TABLE artifacts (sha256 TEXT PRIMARY KEY, bytes INTEGER NOT NULL, body BLOB NOT NULL)")
    conn.execute(
        "CREATE TABLE run_artifacts (run_id TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (run_id, sha256)) "
        "WITHOUT ROWID"
    )
    conn.execute("CREATE INDEX run_artifacts_by_sha ON run_artifacts (sha256)")


def _add_suites(conn: sqlite3.Connection) -> None:
    # A suite over a collection of models (``compile_profile.suites``): its record (settings, where it ran) and one
    # row per entry as its process ends, which is what lets an interrupted suite resume.  The JSON is the suite
    # package's (``suites.records``); the store keeps it as text and never reads inside it.
    conn.execute(
        """
        CREATE TABLE suites (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            created_ts REAL NOT NULL,
            record_json TEXT NOT NULL
        )
        """
    )
    conn.execute(
        """
        CREATE TABLE suite_models (
            suite_id TEXT NOT NULL REFERENCES suites (id),
            name TEXT NOT NULL,
            outcome_json TEXT NOT NULL,
            run_id TEXT,
            ended_ts REAL NOT NULL,
            PRIMARY KEY (suite_id, name)
        )
        """
    )
    conn.execute("CREATE INDEX suites_by_time ON suites (created_ts DESC)")


def _add_suite_summaries(conn: sqlite3.Connection) -> None:
    # A suite's line in a list, derived from its digest (``suites.http.suite_rows``: the headline and the digest
    # version that worded it), kept as a run's summary is: deriving a suite's digest reads every entry's run (1.2 s
    # for three 24-layer training runs on an H100), too much for each listing.  '{}' until derived; the store clears it
    # when one of the suite's outcomes, or a run one of them stored, is written or removed.
    conn.execute("ALTER TABLE suites ADD COLUMN summary_json TEXT NOT NULL DEFAULT '{}'")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _create_runs_table,  # -> version 1
    _add_summaries_and_change_counter,  # -> version 2
    _add_job_ids,  # -> version 3
    _add_trace_hashes,  # -> version 4
    _add_artifacts,  # -> version 5
    _add_suites,  # -> version 6
    _add_suite_summaries,  # -> version 7
]
SCHEMA_VERSION = len(MIGRATIONS)
