"""The SQLite file under the run store, written by several processes at once (kernels, the Jupyter server, the CLI):

* it is opened once per process (a forked child opens its own), and created with its folder on the first write;
* it runs in WAL mode with a busy timeout, and every write is one ``BEGIN IMMEDIATE`` transaction, so readers never
  see half a run and two writers queue instead of failing;
* it is stamped with our ``application_id`` and its schema version is ``PRAGMA user_version``; an older file is
  migrated step by step (``migrations``), a newer one is refused (an older compile-profile must not rewrite what a
  newer one wrote), and any other file at the path (another program's database, a corrupt or non-SQLite file) is
  refused and left untouched;
* a store nobody may write (a read-only folder, where SQLite cannot make the WAL's ``-shm`` file) is opened
  read-only, or immutable when it has no write-ahead log left, so it can still be listed and read;
* sqlite3's terse errors become a ``StoreError`` that names the file and what to do.

Only the standard library's ``sqlite3`` is used.  ``runs.RunStore`` is the store's queries on top of it.
"""

from __future__ import annotations

import os
import pathlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import StoreError
from .migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

_FIX_PATH = "point COMPILE_PROFILE_DB (or the CLI's --db) at another file"


def default_db_path() -> pathlib.Path:
    """``$COMPILE_PROFILE_DB`` when set, else ``<jupyter data dir>/compile_profile/runs.sqlite``."""
    configured = os.environ.get("COMPILE_PROFILE_DB", "").strip()
    if configured:
        return pathlib.Path(configured).expanduser()
    from jupyter_core.paths import jupyter_data_dir

    return pathlib.Path(jupyter_data_dir()) / "compile_profile" / "runs.sqlite"


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


class StoreFile:
    """One store file and its connection; safe to share between threads and processes.  Nothing touches the disk
    until the first query: reading a store that does not exist yet reads nothing, and the first write creates the
    folder and the file."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 30.0):
        self.path = pathlib.Path(path).expanduser() if path is not None else default_db_path()
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._read_only = False  # self._conn was opened read-only (nobody may write the store)
        self._pid = os.getpid()
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None
            self._read_only = False

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
