"""The run store: every ``ProfileRun`` saved in one SQLite file per user (``default_db_path()``), shared by the magic,
the CLI and the server, which write it from several processes at once.

Contract: a run is put whole or not at all, and read back as it was put (upgraded to this release's shape on load,
``profile_run.upgrades``); listing reads each run's cached summary, the digest's, never the whole run; one
unreadable run is listed as unreadable and hides no other; the file is ours or left untouched, and an older store
is migrated, never a newer one.  Depends on the digest only for the summaries it lists.

  runs.py        ``RunStore``: put, delete, get, list, count, a job's runs, the change token, suites' records
  database.py    ``StoreFile``: the SQLite file, its connection, WAL, read-only stores, errors in words
  migrations.py  the schema, in ordered migrations that never change once released
  summaries.py   each run's cached summary, derived again when stale or misshapen
  imported.py    runs read from TORCH_TRACE logs put in the store, the same log never twice
  errors.py      ``StoreError``, ``RunNotFound``, ``UnreadableRun``
"""

from .database import StoreFile, default_db_path
from .errors import RunNotFound, StoreError, UnreadableRun
from .imported import ImportedRuns, put_imported
from .migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from .runs import RunStore, validate_run_id

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ImportedRuns",
    "RunNotFound",
    "RunStore",
    "StoreError",
    "StoreFile",
    "UnreadableRun",
    "default_db_path",
    "put_imported",
    "validate_run_id",
]
