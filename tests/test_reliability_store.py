"""An unusable run store never costs the user their profile: seen through the magic.

test_store covers the store itself (corrupt, foreign, newer and older files,
read-only folders, a full disk, processes writing at once).  Here each of those
is met by ``%%compile_profile``: the cell still shows its result, stderr says
in one line why it was not saved and what to do, the file is left as it was,
and the next profile works once the store is usable.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time

import pytest
import torch
from compile_profile.store import APPLICATION_ID, SCHEMA_VERSION, RunStore
from compile_profile.store import migrations as store_migrations
from IPython.utils.capture import capture_output
from profile_options import CHEAP_FLAGS
from synthetic_store_runs import make_run

# the store is the subject: the cheapest whole profile (aot_eager, --quick) gives it a run to save
CELL = f"%%compile_profile {CHEAP_FLAGS} -o stored_prof\ny = x.sin()\nz = y + 1\n"

pytestmark = pytest.mark.compiles  # every test profiles a cell into the store


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def profile(ip):
    ip.user_ns.update(torch=torch, x=torch.ones(4))
    ip.user_ns.pop("stored_prof", None)
    with capture_output() as out:
        result = ip.run_cell(CELL)
    assert result.error_in_exec is None, out.stderr
    run = ip.user_ns["stored_prof"]
    shown = [o.data for o in out.outputs if "application/vnd.compile-profile.run+json" in o.data]
    assert len(shown) == 1 and run.id in shown[0]["text/plain"], "the result is shown in the cell"
    assert run.status == "ok" and run.speedup is not None
    return run, out


def assert_not_saved(run, out, *words: str) -> str:
    lines = [line for line in out.stderr.splitlines() if "not saved to the run store" in line]
    assert len(lines) == 1, out.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert "Traceback" not in out.stderr
    assert [n.values["why"] in lines[0] for n in run.notes if n.kind == "not_saved"] == [True]
    return lines[0]


@pytest.mark.parametrize(
    "content",
    [b"my notes, not a database\n" * 50, b"SQLite format 3\x00" + b"\xff" * 4080],
    ids=["text-file", "corrupt-sqlite"],
)
def test_corrupt_file_at_the_store_path(ip, private_run_store, content):
    private_run_store.write_bytes(content)
    run, out = profile(ip)
    assert_not_saved(run, out, str(private_run_store), "COMPILE_PROFILE_DB")
    assert private_run_store.read_bytes() == content, "nothing overwritten"
    assert not private_run_store.with_name(private_run_store.name + "-wal").exists()


def test_another_programs_database_at_the_store_path(ip, private_run_store):
    with sqlite3.connect(private_run_store) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    before = digest(private_run_store)
    run, out = profile(ip)
    assert_not_saved(run, out, "another program", "notes")
    assert digest(private_run_store) == before


def test_read_only_folder(ip, tmp_path, monkeypatch):
    from test_store import _make_unwritable

    folder = tmp_path / "locked"
    folder.mkdir()
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(folder / "runs.sqlite"))
    undo = _make_unwritable(folder)
    assert undo is not None, "cannot make a folder read-only here (root without chattr)"
    try:
        run, out = profile(ip)
        assert_not_saved(run, out, "read-only")
        assert list(folder.iterdir()) == []
    finally:
        undo()
    # Once the folder is writable again, the next profile is saved.
    run, out = profile(ip)
    assert "not saved" not in out.stderr
    assert RunStore(folder / "runs.sqlite").get(run.id).status == "ok"


def test_full_disk(ip, private_run_store, monkeypatch):
    with RunStore(private_run_store) as s:
        s.put(make_run("earlier", label="already there"))
    real_prepare = RunStore._prepare

    def prepare_on_a_full_disk(self, conn):
        # Cap the file at its current size: SQLite answers SQLITE_FULL exactly as on a full disk.
        real_prepare(self, conn)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")

    with monkeypatch.context() as patched:
        patched.setattr(RunStore, "_prepare", prepare_on_a_full_disk)
        run, out = profile(ip)
    assert_not_saved(run, out, "disk is full")
    with RunStore(private_run_store) as s:
        assert [r["id"] for r in s.list()] == ["earlier"], "the earlier run is intact, nothing torn"
        assert s.get("earlier").label == "already there"


def test_newer_store_is_refused_with_an_upgrade_message(ip, private_run_store):
    with RunStore(private_run_store) as s:
        s.put(make_run("future"))
    with sqlite3.connect(private_run_store) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = digest(private_run_store)
    run, out = profile(ip)
    assert_not_saved(run, out, "newer compile-profile", "upgrade compile-profile")
    assert digest(private_run_store) == before


def test_older_store_is_migrated_and_keeps_its_runs(ip, private_run_store):
    old = make_run("legacy", label="from schema 1")
    # Schema 1 exactly as released (see store.MIGRATIONS[0]): no summaries, no change counter.
    with sqlite3.connect(private_run_store) as conn:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        store_migrations._create_runs_table(conn)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("legacy", old.created_at, time.time() - 60, old.notebook, old.label, "ok", old.to_json()),
        )
    run, out = profile(ip)
    assert "not saved" not in out.stderr
    with RunStore(private_run_store) as s:
        assert {r["id"] for r in s.list()} == {"legacy", run.id}
        assert s.get("legacy") == old and s.get(run.id, with_artifacts=True).to_dict() == run.to_dict()
    with sqlite3.connect(private_run_store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_two_kernels_profiling_at_once_both_store_their_runs(ip, private_run_store):
    """Another process (as a second kernel would) stores 200 runs while this kernel profiles twice."""
    import multiprocessing

    from synthetic_store_runs import put_many

    writer = multiprocessing.get_context("spawn").Process(target=put_many, args=(str(private_run_store), "other", 200))
    writer.start()
    runs = [profile(ip)[0] for _ in range(2)]
    writer.join(timeout=120)
    assert writer.exitcode == 0
    with RunStore(private_run_store) as s:
        assert s.count() == 202
        for run in runs:
            assert s.get(run.id, with_artifacts=True).to_dict() == run.to_dict()


class _InterruptBefore:
    """A connection that raises KeyboardInterrupt when asked to run a statement starting with ``prefix``."""

    def __init__(self, conn, prefix: str):
        self._conn, self._prefix = conn, prefix

    def execute(self, sql, *args):
        if sql.lstrip().startswith(self._prefix):
            raise KeyboardInterrupt
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_ctrl_c_while_saving_leaves_no_torn_run_and_still_shows_the_result(ip, private_run_store, monkeypatch):
    with RunStore(private_run_store) as s:
        s.put(make_run("earlier"))
        token = s.change_token()
    real_connection = RunStore._connection

    def connection_interrupted_mid_transaction(self, *, create):
        conn = real_connection(self, create=create)
        # The run's row is written; Ctrl-C lands before the change counter and the commit.
        return None if conn is None else _InterruptBefore(conn, "UPDATE store_state")

    ip.user_ns.update(torch=torch, x=torch.ones(4))
    ip.user_ns.pop("stored_prof", None)
    with monkeypatch.context() as patched, capture_output() as out:
        patched.setattr(RunStore, "_connection", connection_interrupted_mid_transaction)
        result = ip.run_cell(CELL)
    assert isinstance(result.error_in_exec, KeyboardInterrupt), "Ctrl-C still stops the notebook"
    run = ip.user_ns["stored_prof"]
    shown = [o.data for o in out.outputs if "application/vnd.compile-profile.run+json" in o.data]
    assert len(shown) == 1 and run.id in shown[0]["text/plain"], "the result is still shown"
    assert_not_saved(run, out, "interrupted")
    with RunStore(private_run_store) as s:
        assert [r["id"] for r in s.list()] == ["earlier"] and s.change_token() == token, "rolled back whole"
    run, out = profile(ip)
    assert "not saved" not in out.stderr and RunStore(private_run_store).get(run.id).status == "ok"
