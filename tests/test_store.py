"""The SQLite run store: CRUD, listing, schema migrations, refusing files it must not touch, concurrency."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from compile_profile import store as store_module
from compile_profile.digest.summary import DIGEST_VERSION, summarize, unreadable_summary
from compile_profile.profile_run import Correctness, ProfileRun
from compile_profile.serialize import to_dict
from compile_profile.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    RunNotFound,
    RunStore,
    StoreError,
    UnreadableRun,
    default_db_path,
    validate_run_id,
)
from synthetic_store_runs import make_run, put_many, tamper, timestamp


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "store" / "runs.sqlite"


@pytest.fixture
def store(db_path):
    with RunStore(db_path) as s:
        yield s


def file_digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- paths and ids ----------------------------------------------------------


def test_default_path_follows_environment_then_jupyter_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(tmp_path / "elsewhere.sqlite"))
    assert default_db_path() == tmp_path / "elsewhere.sqlite"
    monkeypatch.delenv("COMPILE_PROFILE_DB")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    assert default_db_path() == tmp_path / "jupyter-data" / "compile_profile" / "runs.sqlite"


def test_store_without_path_uses_default(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(tmp_path / "env.sqlite"))
    s = RunStore()
    s.put(make_run("r1"))
    assert (tmp_path / "env.sqlite").exists()
    s.close()


@pytest.mark.parametrize("good", ["a", "abc123", "A_b-C", "x" * 64, "0f3a9c2d1e4b"])
def test_valid_run_ids_pass(good):
    assert validate_run_id(good) == good


@pytest.mark.parametrize(
    "bad", ["", "x" * 65, "../x", "a/b", "1; DROP TABLE runs", "abc\n", "ab c", "é", "a.b", "%", None, 7]
)
def test_invalid_run_ids_are_refused(bad):
    with pytest.raises(ValueError, match="invalid run id"):
        validate_run_id(bad)


@pytest.mark.parametrize("hostile", ["../x", "1; DROP TABLE runs", "' OR '1'='1"])
def test_hostile_ids_never_reach_the_database(store, db_path, hostile):
    store.put(make_run("kept"))
    with pytest.raises(ValueError):
        store.put(make_run(hostile))
    for call in (store.get, store.get_dict, store.delete):
        with pytest.raises(ValueError):
            call(hostile)
    assert [r["id"] for r in store.list()] == ["kept"]
    assert not (db_path.parent / "x").exists()


# -- CRUD --------------------------------------------------------------------


def test_reading_a_missing_store_creates_nothing(db_path):
    s = RunStore(db_path)
    assert s.list() == []
    assert s.count() == 0
    assert s.change_token() == 0
    assert s.delete("nope") is False
    with pytest.raises(RunNotFound):
        s.get("nope")
    assert not db_path.parent.exists()


def test_put_then_get_round_trips_the_whole_run(store, db_path):
    run = make_run("abc123", notebook="/nb/a.ipynb")
    store.put(run)
    assert db_path.exists()
    assert store.get("abc123") == run
    assert store.get_dict("abc123") == run.to_dict()


def test_a_second_store_object_sees_the_same_runs(store, db_path):
    store.put(make_run("shared"))
    with RunStore(db_path) as other:
        assert other.get("shared").label == "matmul + relu"


def test_put_replaces_a_run_with_the_same_id(store):
    store.put(make_run("same", label="first"))
    store.put(make_run("same", label="second", eager_ms=9.0))
    assert store.count() == 1
    assert store.get("same").label == "second"
    (row,) = store.list()
    assert row["label"] == "second"
    assert row["variants"][0]["median_ms"] == 9.0


def test_get_unknown_run_raises_run_not_found_naming_it(store):
    store.put(make_run("present"))
    with pytest.raises(RunNotFound, match="absent"):
        store.get("absent")
    with pytest.raises(KeyError):  # RunNotFound is a KeyError for callers that treat it as a lookup miss
        store.get_dict("absent")


def test_delete(store):
    store.put(make_run("a"))
    store.put(make_run("b"))
    assert store.delete("a") is True
    assert store.delete("a") is False
    assert [r["id"] for r in store.list()] == ["b"]
    with pytest.raises(RunNotFound):
        store.get("a")


def test_list_rows_are_the_summary_stored_at_put_time(store):
    run = make_run("summ", eager_ms=3.0, compiled_ms=1.5)
    store.put(run)
    (row,) = store.list()
    assert row == json.loads(json.dumps(summarize(run)))
    assert row["speedup"]["value"] == pytest.approx(2.0)


def test_list_is_newest_first_across_timezone_offsets_and_ties(store):
    store.put(make_run("old", created_at="2024-01-01T10:00:00+00:00"))
    # 09:30 UTC written with a +02:00 offset: as a string it sorts after "old", in time it is before.
    store.put(make_run("older", created_at="2024-01-01T11:30:00+02:00"))
    store.put(make_run("new", created_at="2024-06-01T10:00:00+00:00"))
    store.put(make_run("tie-first", created_at="2024-03-01T10:00:00+00:00"))
    store.put(make_run("tie-second", created_at="2024-03-01T10:00:00+00:00"))
    assert [r["id"] for r in store.list()] == ["new", "tie-second", "tie-first", "old", "older"]


def test_paging_and_count(store):
    for i in range(7):
        store.put(make_run(f"r{i}", created_at=timestamp(minutes_ago=10 - i)))
    newest_first = [f"r{i}" for i in reversed(range(7))]
    assert store.count() == 7
    assert [r["id"] for r in store.list(limit=3)] == newest_first[:3]
    assert [r["id"] for r in store.list(limit=3, offset=3)] == newest_first[3:6]
    assert [r["id"] for r in store.list(limit=3, offset=6)] == newest_first[6:]
    assert store.list(limit=3, offset=7) == []
    assert [r["id"] for r in store.list(limit=None)] == newest_first
    assert store.list(limit=0) == []
    with pytest.raises(ValueError):
        store.list(limit=-1)
    with pytest.raises(ValueError):
        store.list(offset=-2)


def test_notebook_filter(store):
    store.put(make_run("a1", notebook="/w/a.ipynb", created_at=timestamp(3)))
    store.put(make_run("b1", notebook="/w/b.ipynb", created_at=timestamp(2)))
    store.put(make_run("a2", notebook="/w/a.ipynb", created_at=timestamp(1)))
    store.put(make_run("none", created_at=timestamp(0)))
    assert [r["id"] for r in store.list(notebook="/w/a.ipynb")] == ["a2", "a1"]
    assert store.count(notebook="/w/a.ipynb") == 2
    assert store.count(notebook="/w/b.ipynb") == 1
    assert store.count(notebook="/w/none.ipynb") == 0
    assert [r["id"] for r in store.list(notebook="")] == ["none"]
    assert store.count() == 4


def test_change_token_moves_on_put_and_delete_from_any_connection(store, db_path):
    before = store.change_token()
    store.put(make_run("t1"))
    after_put = store.change_token()
    assert after_put != before
    with RunStore(db_path) as other:
        assert other.change_token() == after_put
        other.put(make_run("t2"))
    after_other_put = store.change_token()
    assert after_other_put != after_put
    store.delete("missing")
    assert store.change_token() == after_other_put  # nothing changed
    store.delete("t1")
    assert store.change_token() != after_other_put


def test_failed_put_leaves_nothing_behind(store):
    store.put(make_run("good"))
    token = store.change_token()
    broken = make_run("broken")
    broken.speedup.variant = "no-such-variant"  # summarize() cannot name the best variant
    with pytest.raises(KeyError):
        store.put(broken)
    assert store.count() == 1
    assert store.change_token() == token


# -- schema, migrations, files that are not ours -----------------------------


def _user_version(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def test_new_store_is_wal_stamped_and_current(store, db_path):
    store.put(make_run("x"))
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert SCHEMA_VERSION == len(store_module.MIGRATIONS) >= 2


def test_version_1_store_written_by_hand_is_migrated(db_path):
    db_path.parent.mkdir(parents=True)
    old_run = make_run("legacy", label="from schema 1", notebook="/w/old.ipynb", created_at=timestamp(5))
    # Schema 1 exactly as it was: runs without summaries, no change counter.
    conn = sqlite3.connect(db_path)
    conn.executescript(
        f"""
        PRAGMA application_id = {APPLICATION_ID};
        CREATE TABLE runs (
            id TEXT PRIMARY KEY, created_at TEXT NOT NULL, created_ts REAL NOT NULL,
            notebook TEXT NOT NULL DEFAULT '', label TEXT NOT NULL DEFAULT '', status TEXT NOT NULL,
            run_json TEXT NOT NULL
        );
        CREATE INDEX runs_by_time ON runs (created_ts DESC);
        CREATE INDEX runs_by_notebook ON runs (notebook, created_ts DESC);
        PRAGMA user_version = 1;
        """
    )
    conn.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
        ("legacy", old_run.created_at, time.time() - 300, old_run.notebook, old_run.label, "ok", old_run.to_json()),
    )
    conn.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
        ("unreadable", timestamp(9), time.time() - 540, "", "bad", "ok", "{not json"),
    )
    conn.commit()
    conn.close()

    with RunStore(db_path) as s:
        rows = s.list()
        assert [r["id"] for r in rows] == ["legacy", "unreadable"]
        # Migration 2 adds an empty summary; the first list derives it with the digest of today.
        assert rows[0] == json.loads(json.dumps(summarize(old_run)))
        assert rows[1]["status"] == "unreadable" and rows[1]["id"] == "unreadable" and rows[1]["label"] == "bad"
        assert rows[1]["unreadable"].startswith("not JSON: ")
        assert s.get("legacy") == old_run
        token = s.change_token()
        s.put(make_run("fresh"))
        assert s.change_token() != token
        assert s.count(notebook="/w/old.ipynb") == 1
    assert _user_version(db_path) == SCHEMA_VERSION


def test_a_summary_cached_by_an_older_digest_is_derived_again_and_written_back(store, db_path):
    run = make_run("old-words")
    store.put(run)
    stale = {**summarize(run), "digest": DIGEST_VERSION - 1, "headline": "inductor 0.56× slower"}
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE runs SET summary_json = ? WHERE id = ?", (json.dumps(stale), "old-words"))
    (listed,) = store.list()
    assert listed["headline"] == summarize(run)["headline"] != stale["headline"]
    with sqlite3.connect(db_path) as conn:
        (cached,) = conn.execute("SELECT summary_json FROM runs WHERE id = 'old-words'").fetchone()
    assert json.loads(cached)["digest"] == DIGEST_VERSION


def test_a_run_whose_results_differ_is_listed_so_also_from_a_summary_cached_before_the_list_said_it(store, db_path):
    # `compile-profile ls` said STATUS "ok" and the panel's run list showed nothing for a run whose card said
    # "compiled results differ from eager"
    run = make_run("differs")
    run.correctness = Correctness(ok=False, max_abs_diff=0.5, compared=["y"], mismatched=["y"], method="float64")
    store.put(run)
    cached_before = {k: v for k, v in summarize(run).items() if k != "list_status"} | {"digest": 10}
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE runs SET summary_json = ? WHERE id = ?", (json.dumps(cached_before), "differs"))
    store.put(make_run("fine"))
    listed = {r["id"]: r for r in store.list()}
    assert listed["differs"]["status"] == "ok" and listed["differs"]["list_status"] == "results differ"
    assert listed["fine"]["list_status"] == "ok"


def test_newer_schema_is_refused_and_left_alone(store, db_path):
    store.put(make_run("future"))
    store.close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    digest = file_digest(db_path)
    for call in (lambda s: s.list(), lambda s: s.put(make_run("mine")), lambda s: s.get("future")):
        s = RunStore(db_path)
        with pytest.raises(StoreError, match="newer compile-profile") as info:
            call(s)
        assert "upgrade compile-profile" in str(info.value)
        assert str(db_path) in str(info.value)
    assert file_digest(db_path) == digest
    assert _user_version(db_path) == SCHEMA_VERSION + 1


@pytest.mark.parametrize(
    "content",
    [b"this is a text file, not a database\n" * 20, os.urandom(8192), b"SQLite format 3\x00" + b"\xff" * 4080],
    ids=["text", "random", "bad-header"],
)
def test_non_sqlite_file_is_refused_and_never_overwritten(db_path, content):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(content)
    for call in (lambda s: s.list(), lambda s: s.put(make_run("x")), lambda s: s.change_token()):
        s = RunStore(db_path)
        with pytest.raises(StoreError) as info:
            call(s)
        message = str(info.value)
        assert str(db_path) in message
        assert "COMPILE_PROFILE_DB" in message
    assert db_path.read_bytes() == content
    assert not db_path.with_name(db_path.name + "-wal").exists()


def test_another_programs_sqlite_database_is_refused_and_left_alone(db_path):
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    digest = file_digest(db_path)
    with pytest.raises(StoreError, match="another program") as info:
        RunStore(db_path).put(make_run("x"))
    assert "notes" in str(info.value)
    with pytest.raises(StoreError):
        RunStore(db_path).list()
    assert file_digest(db_path) == digest
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL


def test_corrupted_pages_give_store_error(store, db_path):
    for i in range(40):
        store.put(make_run(f"c{i}", label="x" * 2000))
    store.close()
    with sqlite3.connect(db_path) as conn:  # fold the WAL in so the damage below hits the data
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db_path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    for page in range(1, len(data) // page_size):  # keep page 0 (header and schema), ruin the rest
        data[page * page_size : (page + 1) * page_size] = b"\xa5" * page_size
    db_path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="corrupt") as info:
        with RunStore(db_path) as s:
            s.list()
            s.get("c3")
    assert str(db_path) in str(info.value)


# -- one unreadable run hides no other ------------------------------------------------------


def _three_runs(store) -> list[ProfileRun]:
    runs = [make_run(f"run{i}", label=f"run {i}", created_at=timestamp(10 - i)) for i in range(3)]
    for run in runs:
        store.put(run)
    return runs


def _wrong_type(field: str, value) -> str:
    data = json.loads(make_run("run1").to_json())
    data[field] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    "summary_json",
    ["garbage", "[1]", "5", "", json.dumps({"digest": DIGEST_VERSION, "id": "run1", "variants": "x"})],
    ids=["not-json", "a-list", "a-number", "empty", "wrong-types"],
)
def test_a_garbage_cached_summary_is_derived_again_and_hides_no_run(store, db_path, summary_json):
    runs = _three_runs(store)
    tamper(db_path, "run1", summary_json=summary_json)
    assert store.list() == [json.loads(json.dumps(summarize(r))) for r in reversed(runs)]
    with sqlite3.connect(db_path) as conn:
        (cached,) = conn.execute("SELECT summary_json FROM runs WHERE id = 'run1'").fetchone()
    assert json.loads(cached)["headline"] == summarize(runs[1])["headline"]  # written back


def test_a_cached_summary_of_another_run_is_not_taken_for_this_ones(store, db_path):
    runs = _three_runs(store)
    tamper(db_path, "run1", summary_json=json.dumps(summarize(runs[0])))
    assert [s["id"] for s in store.list()] == ["run2", "run1", "run0"]


@pytest.mark.parametrize(
    ("run_json", "reason"),
    [
        ("{not json", "not JSON: Expecting property name"),
        ("[1, 2]", "its JSON is a list, not an object"),
        ("[" * 100_000, "nested too deeply to be a run"),
        (_wrong_type("cell_runs", "<img src=x onerror=alert(1)>"), "cell_runs: expected an integer, got a string"),
        (_wrong_type("variants", 5), "variants: expected a list, got an integer (5)"),
        (_wrong_type("device", None), "device: expected an object (Device), got null"),
        (_wrong_type("schema_version", 99), "written by a newer compile-profile (schema 99)"),
    ],
    ids=["not-json", "a-list", "too-deep", "string-for-int", "int-for-list", "null-device", "newer"],
)
def test_an_unreadable_run_is_listed_as_unreadable_with_its_id_and_the_others_as_always(
    store, db_path, run_json, reason
):
    runs = _three_runs(store)
    tamper(db_path, "run1", run_json=run_json, summary_json="{}")  # no summary to fall back on
    rows = store.list()
    assert [r["id"] for r in rows] == ["run2", "run1", "run0"] and store.count() == 3
    assert rows[0] == json.loads(json.dumps(summarize(runs[2])))
    assert rows[2] == json.loads(json.dumps(summarize(runs[0])))
    bad = rows[1]
    assert bad["status"] == "unreadable" and reason in bad["unreadable"], bad["unreadable"]
    assert bad["label"] == "run 1" and bad["created_at"] == runs[1].created_at  # the row's own columns
    assert bad["headline"] == f"this run cannot be read: {bad['unreadable']}"
    assert set(bad) == set(summarize(runs[0]))  # every key a view may read
    assert store.list() == rows  # the unreadable summary is cached like any other
    with pytest.raises(UnreadableRun) as info:
        store.get("run1")
    message = str(info.value)
    assert message.startswith(f"run run1 in {db_path} cannot be read (") and reason in message
    assert "compile-profile rm run1" in message and info.value.run_id == "run1"
    assert store.get("run0") == runs[0] and store.get("run2") == runs[2]


def test_a_row_whose_id_is_not_its_runs_is_listed_unreadable_under_the_rows_id_and_can_be_removed(store, db_path):
    """A hostile edit of the id column: the list showed the JSON's id, under which show and rm found nothing."""
    _three_runs(store)
    tamper(db_path, "run1", id="edited1", summary_json="{}")
    rows = store.list()
    assert [r["id"] for r in rows] == ["run2", "edited1", "run0"]
    assert (
        rows[1]["status"] == "unreadable" and "its row's id is 'edited1' and its run's 'run1'" in rows[1]["unreadable"]
    )
    with pytest.raises(UnreadableRun, match="its run's id is 'run1', not the row's"):
        store.get("edited1")
    store.delete("edited1")
    assert [r["id"] for r in store.list()] == ["run2", "run0"]


def test_rm_removes_a_row_whose_edited_id_breaks_the_id_rule_and_still_refuses_such_an_id_no_row_holds(
    store, db_path, capsys
):
    """The row's id as stored is what the list shows; the id rule keeps REST paths safe, and had kept rm from it."""
    from compile_profile.cli import main

    _three_runs(store)
    hostile = "<img src=x onerror=alert(5)>"
    tamper(db_path, "run1", id=hostile, summary_json="{}")
    assert hostile in [r["id"] for r in store.list()]
    assert main(["--db", str(db_path), "rm", hostile]) == 0
    assert [r["id"] for r in store.list()] == ["run2", "run0"]
    assert main(["--db", str(db_path), "rm", hostile]) == 2  # gone now: the id rule answers
    error = capsys.readouterr().err
    assert "invalid run id '<img src=x onerror=alert(5)>'" in error
    with pytest.raises(ValueError) as refused:
        store.delete("x" * 5_000)
    assert len(str(refused.value)) < 160 and "…" in str(refused.value)  # quoted clipped, not 5,000 characters


def test_the_stored_json_of_a_run_with_wrong_types_can_still_be_looked_at(store, db_path):
    _three_runs(store)
    tamper(db_path, "run1", run_json=_wrong_type("cell_runs", "many"))
    assert store.get_dict("run1")["cell_runs"] == "many"  # show --json prints it as stored
    tamper(db_path, "run1", run_json="{not json")
    with pytest.raises(UnreadableRun, match="not JSON"):
        store.get_dict("run1")


def test_an_unreadable_summary_has_every_key_of_a_summary():
    assert set(to_dict(unreadable_summary("x", "why"))) == set(summarize(make_run("x")))


def test_a_job_with_an_unreadable_rank_names_that_rank(store, db_path):
    from job_fixtures import job_runs

    ranks = job_runs(2)
    for run in ranks:
        store.put(run)
    assert [r.id for r in store.job(ranks[0].distributed.job_id)] == [r.id for r in ranks]
    tamper(db_path, ranks[1].id, run_json=_wrong_type("status", "<b>done</b>"))
    with pytest.raises(UnreadableRun, match=rf"run {ranks[1].id} .* \(status: expected one of 'ok', 'failed'"):
        store.job(ranks[0].id)


def _make_unwritable(directory):
    """chmod is enough for a normal user; root ignores it, so there use the immutable flag."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return lambda: directory.chmod(0o755)
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(directory)]).returncode != 0:
        return None
    return lambda: subprocess.run(["chattr", "-i", str(directory)], check=True)


def test_read_only_directory_gives_store_error(tmp_path):
    directory = tmp_path / "locked"
    directory.mkdir()
    undo = _make_unwritable(directory)
    if undo is None:
        pytest.skip("cannot make a directory read-only here (root without chattr +i)")
    try:
        probe = directory / "probe"
        with pytest.raises(OSError):
            probe.write_text("x")  # the directory really is read-only
        db_path = directory / "runs.sqlite"
        s = RunStore(db_path)
        assert s.list() == []  # reading a store that is not there is fine
        with pytest.raises(StoreError) as info:
            s.put(make_run("x"))
        message = str(info.value)
        assert str(db_path) in message and "read-only" in message
        with pytest.raises(StoreError, match="cannot create the folder"):
            RunStore(directory / "sub" / "runs.sqlite").put(make_run("x"))
    finally:
        undo()


@pytest.fixture
def unwritable(tmp_path):
    """Makes a folder read-only for this process (chmod, or chattr +i as root) and undoes it afterwards."""
    undo = []

    def make(directory):
        restore = _make_unwritable(directory)
        if restore is None:
            pytest.skip("cannot make a directory read-only here (root without chattr +i)")
        undo.append(restore)
        with pytest.raises(OSError):
            (directory / "probe").write_text("x")  # the directory really is read-only

    yield make
    for restore in undo:
        restore()


def test_a_store_in_a_read_only_folder_is_listed_and_read(tmp_path, unwritable):
    # issue 21: SQLite cannot make the WAL's -shm file there, and the store called the file corrupt
    db_path = tmp_path / "shared" / "runs.sqlite"
    runs = [make_run(f"ro{i}", created_at=timestamp(5 - i)) for i in range(2)]
    with RunStore(db_path) as s:
        for run in runs:
            s.put(run)
        stale = {**summarize(runs[0]), "digest": DIGEST_VERSION - 1}
        tamper(db_path, "ro0", summary_json=json.dumps(stale))  # listing would write a fresh one back
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["runs.sqlite"]  # the last close took -wal, -shm
    digest = file_digest(db_path)
    unwritable(db_path.parent)
    with RunStore(db_path) as s:
        assert s.list() == [json.loads(json.dumps(summarize(r))) for r in reversed(runs)]
        assert s.get("ro1") == runs[1] and s.count() == 2 and s.change_token() == 2
        with pytest.raises(StoreError) as info:
            s.put(make_run("new"))
        assert "read-only" in str(info.value) and "corrupt" not in str(info.value)
        assert s.list()[0]["id"] == "ro1"  # still readable after the refused write
    assert file_digest(db_path) == digest and sorted(p.name for p in db_path.parent.iterdir()) == ["runs.sqlite"]


def test_a_store_in_a_read_only_folder_that_another_process_has_open_shows_its_latest_runs(tmp_path, unwritable):
    db_path = tmp_path / "shared" / "runs.sqlite"
    writer = RunStore(db_path)
    writer.put(make_run("first"))
    writer.put(make_run("in-the-wal"))  # not checkpointed while the writer keeps the store open
    try:
        assert (db_path.parent / "runs.sqlite-shm").exists() and (db_path.parent / "runs.sqlite-wal").stat().st_size
        unwritable(db_path.parent)
        with RunStore(db_path) as reader:
            assert {r["id"] for r in reader.list()} == {"first", "in-the-wal"}
            assert reader.get("in-the-wal").id == "in-the-wal"
    finally:
        writer.close()


def test_a_read_only_folder_with_unfinished_writes_and_no_shm_says_what_to_do(tmp_path, unwritable):
    db_path = tmp_path / "live" / "runs.sqlite"
    with RunStore(db_path) as writer:
        writer.put(make_run("first"))
        copy = tmp_path / "copied"
        copy.mkdir()
        for name in ("runs.sqlite", "runs.sqlite-wal"):  # a copy taken while it was open, without its -shm
            shutil.copy(db_path.parent / name, copy / name)
    unwritable(copy)
    with pytest.raises(StoreError) as info:
        RunStore(copy / "runs.sqlite").list()
    message = str(info.value)
    assert (
        "its folder is read-only" in message and "runs.sqlite-wal" in message and "make the folder writable" in message
    )


def test_an_older_store_in_a_read_only_folder_says_it_must_be_migrated_first(tmp_path, unwritable):
    db_path = tmp_path / "old" / "runs.sqlite"
    with RunStore(db_path) as s:
        s.put(make_run("x"))
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version = 2")  # as a store of the previous release
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    unwritable(db_path.parent)
    with pytest.raises(StoreError, match=r"read-only and of an older store schema \(2; .*make it writable once"):
        RunStore(db_path).list()


def test_full_disk_is_reported_as_store_error(store):
    store.put(make_run("small"))
    # Cap the file a few pages above its current size (room to rewrite a small run):
    # the large put hits SQLITE_FULL exactly as a full disk would.
    conn = store._connection(create=True)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 8}")
    with pytest.raises(StoreError, match="disk is full"):
        store.put(make_run("large", label="y" * 200_000))
    assert [r["id"] for r in store.list()] == ["small"]  # the failed put left nothing behind
    store.put(make_run("small", label="replaced"))  # and the connection is usable again
    assert store.get("small").label == "replaced"


# -- concurrency ---------------------------------------------------------------


def test_threads_sharing_one_store(store):
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda i: store.put(make_run(f"t{i}")), range(60)))
    assert store.count() == 60


def test_several_processes_writing_at_once_lose_nothing(db_path):
    """Four processes create the same new store and put 150 runs each while this one keeps reading."""
    writers, per_writer = 4, 150
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=put_many, args=(str(db_path), f"w{k}", per_writer)) for k in range(writers)]
    started = time.monotonic()
    for p in procs:
        p.start()

    reader = RunStore(db_path, timeout=60)
    reads_done = 0
    reader_error: list[BaseException] = []

    def read_while_writing():
        # Every run that is visible at all must load whole: puts are atomic.
        nonlocal reads_done
        try:
            while any(p.is_alive() for p in procs):
                for row in reader.list(limit=5):
                    assert reader.get(row["id"]).id == row["id"]
                    reads_done += 1
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            reader_error.append(exc)

    thread = threading.Thread(target=read_while_writing)
    thread.start()
    for p in procs:
        p.join(timeout=60)
    thread.join(timeout=60)
    elapsed = time.monotonic() - started

    assert [p.exitcode for p in procs] == [0] * writers
    assert not reader_error, reader_error
    assert reads_done > 0
    assert reader.count() == writers * per_writer
    expected = {f"w{k}-{i}" for k in range(writers) for i in range(per_writer)}
    assert {r["id"] for r in reader.list(limit=None)} == expected
    for k in range(writers):
        assert reader.count(notebook=f"w{k}.ipynb") == per_writer
    for run_id in sorted(expected):
        run = reader.get(run_id)
        assert isinstance(run, ProfileRun) and run.label.endswith(run_id.rsplit("-", 1)[1])
    assert reader.change_token() == writers * per_writer  # every put bumped the counter exactly once
    assert elapsed < 20, f"{writers * per_writer} concurrent puts took {elapsed:.1f} s"
    reader.close()
