"""A stored suite's line in a list (the panel's Suites view, ``suite --list``) carries its digest's headline, its pass
rate and geometric mean, cached in the store as a run's summary is: derived once, cleared when an outcome of the
suite or a run one of them stored changes, derived again when another digest version or an unreadable text is
cached, and at most ``HEADLINES_PER_LISTING`` derived per listing (each reads every run of its suite)."""

from __future__ import annotations

import copy
import json
import sqlite3

from compile_profile.digest.summary import DIGEST_VERSION
from compile_profile.store import RunStore
from compile_profile.suites import http
from compile_profile.suites.digest import suite_digest
from compile_profile.suites.storage import save_outcome
from suite_fixtures import _outcome, _suite, store_suite


def _stored(tmp_path):
    record, runs = _suite()
    db = tmp_path / "runs.sqlite"
    store_suite(db, record, runs)
    return db, record, runs


def _line(db, suite_id: str) -> dict:
    with sqlite3.connect(db) as conn:
        return json.loads(conn.execute("SELECT summary_json FROM suites WHERE id = ?", (suite_id,)).fetchone()[0])


def test_a_listed_suite_reads_its_pass_rate_and_geomean_and_the_store_keeps_them(tmp_path):
    db, record, runs = _stored(tmp_path)
    want = suite_digest(copy.deepcopy(record), runs).headline
    assert want.startswith("2 of 7 entries pass") and "geometric mean" in want
    assert _line(db, record.id) == {}  # nothing derived before a listing
    with RunStore(db) as store:
        (row,) = http.suite_rows(store)
    assert row.headline == want
    assert _line(db, record.id) == {"digest": DIGEST_VERSION, "ended": len(record.outcomes), "headline": want}


def test_a_new_outcome_or_a_changed_run_clears_the_line_and_the_next_listing_words_it_again(tmp_path):
    record, runs = _suite()
    record.settings.entries.append("late")  # an entry not run yet
    db = tmp_path / "runs.sqlite"
    store_suite(db, record, runs)
    with RunStore(db) as store:
        http.suite_rows(store)
        save_outcome(store, record.id, _outcome("late", "timeout", wall_s=60.0))
        assert _line(db, record.id) == {}
        (row,) = http.suite_rows(store)
        assert row.headline.startswith("2 of 8 entries pass")
        runs["r-fast"].variants[1].timing.samples_ms = [50.0] * 6  # "fast" is slower than eager now
        store.put(runs["r-fast"])
        assert _line(db, record.id) == {}
        assert store.delete("r-ok") and _line(db, record.id) == {}
        (row,) = http.suite_rows(store)
    assert "2 of 8" not in row.headline  # its run gone, "ok" reads as missing and no longer passes


def test_a_line_of_another_digest_version_or_no_plain_text_is_derived_again_never_shown(tmp_path):
    db, record, _ = _stored(tmp_path)
    ended = len(record.outcomes)
    for cached in (
        {"digest": DIGEST_VERSION - 1, "ended": ended, "headline": "old words"},
        {"digest": DIGEST_VERSION, "ended": ended, "headline": "\x1b[2J<b>owned</b>\nsecond line"},
        {"digest": DIGEST_VERSION, "ended": ended + 1, "headline": "another count"},
        {"digest": DIGEST_VERSION, "ended": ended, "headline": 7},
        "not an object",
    ):
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE suites SET summary_json = ? WHERE id = ?", (json.dumps(cached), record.id))
        with RunStore(db) as store:
            (row,) = http.suite_rows(store)
        assert row.headline.startswith("2 of 7 entries pass"), cached


def test_one_listing_derives_at_most_its_share_of_headlines_and_the_next_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(http, "HEADLINES_PER_LISTING", 2)
    record, runs = _suite()
    db = tmp_path / "runs.sqlite"
    for i in range(3):
        other = copy.deepcopy(record)
        other.id, other.created_at = f"suite000000{i}", f"2026-12-05T0{i}:00:00+00:00"
        store_suite(db, other, runs)
    with RunStore(db) as store:
        first = [bool(r.headline) for r in http.suite_rows(store)]
        second = [bool(r.headline) for r in http.suite_rows(store)]
    assert first == [True, True, False]  # newest first; the oldest is listed with its progress only
    assert second == [True, True, True]


def test_a_store_of_schema_6_gains_a_place_for_each_suites_line_and_keeps_its_suites(tmp_path):
    from synthetic_store_runs import back_to_schema

    db, record, _ = _stored(tmp_path)
    with sqlite3.connect(db) as conn:
        back_to_schema(conn, 6)  # as the release before this one left it: suites, no line of theirs
    with RunStore(db) as store:
        (row,) = http.suite_rows(store)
    assert row.id == record.id and row.headline.startswith("2 of 7 entries pass")
    assert _line(db, record.id)["headline"] == row.headline
