"""Suites in the run store: records and outcomes as the store's suite tables hold them (store migration 6), and
merging another store's suites and runs into this one (``compile-profile import OTHER.sqlite``: the shards of a
suite run on hosts that share no file system).

Contract: the store keeps the JSON as text; this module turns it into ``records`` classes and back.  A suite's
record as loaded carries every outcome stored under its id, from every shard, one per entry.  ``merge_store``
copies runs and suites, an outcome already here left as it is, and says what it copied.
"""

from __future__ import annotations

import json
import os
import pathlib
import stat
from dataclasses import dataclass, field

from .. import serialize
from ..profile_run import ProfileRun
from ..store import RunNotFound, RunStore, UnreadableRun
from ..user_input import shown
from .records import ModelOutcome, SuiteRecord

SQLITE_MAGIC = b"SQLite format 3\x00"


class UnreadableSuite(ValueError):
    """A stored suite whose record or an outcome is not a suite's JSON: the message names the suite, the store and
    the field (the server answers it 422, as an unreadable run); ``reason`` is the field and what is wrong."""

    def __init__(self, suite_id: str, path: object, reason: str):
        super().__init__(f"suite {suite_id} in {path} cannot be read ({reason}); it was left as stored")
        self.suite_id = suite_id
        self.reason = reason


def load_suite(store: RunStore, suite_id: str) -> SuiteRecord:
    """The stored suite with its outcomes; ``KeyError`` (``RunNotFound``) when there is none, ``ValueError`` for an
    invalid id, ``UnreadableSuite`` when its JSON is not a suite's."""
    record_json, outcomes = store.suite(suite_id)
    where = "its record"
    try:
        record = SuiteRecord.from_dict(serialize.parse_json(record_json))
        record.outcomes = []
        for text in outcomes:
            where = "an outcome"
            data = serialize.parse_json(text)
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                where = f"the outcome of {data['name'][:80]!r}"
            record.outcomes.append(serialize.from_dict(ModelOutcome, data))
    except (ValueError, TypeError) as exc:  # TypeError: a value SQLite holds that is no text
        raise UnreadableSuite(suite_id, store.path, f"{where}: {exc}") from None
    return record


def save_outcome(store: RunStore, suite_id: str, outcome: ModelOutcome) -> None:
    store.put_suite_model(suite_id, outcome.name, json.dumps(serialize.to_dict(outcome)), outcome.run_id)


def listed_suites(store: RunStore, limit: int = 50) -> list[SuiteRecord | UnreadableSuite]:
    """The newest stored suites first, with their outcomes; one that cannot be read as its ``UnreadableSuite``, so
    that a list names it and why (``suite --list``, the panel's Suites view) rather than leaving it out unseen."""
    out: list[SuiteRecord | UnreadableSuite] = []
    for suite_id, _, _ in store.suites(limit):
        try:
            out.append(load_suite(store, suite_id))
        except UnreadableSuite as exc:
            out.append(exc)
        except KeyError:  # removed since it was listed
            continue
        except ValueError as exc:  # an id no suite can have (another store's, merged in)
            out.append(UnreadableSuite(suite_id, store.path, str(exc)))
    return out


def stored_suites(store: RunStore, limit: int = 50) -> list[SuiteRecord]:
    """The newest stored suites first that can be read, with their outcomes (``listed_suites`` names the others)."""
    return [suite for suite in listed_suites(store, limit) if isinstance(suite, SuiteRecord)]


def is_store_file(path: str | pathlib.Path) -> bool:
    """Whether ``path`` is a SQLite file (a run store to merge), by its first bytes."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # opening a named pipe to read waits for a writer: forever
            return False
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


@dataclass
class Merged:
    """What ``merge_store`` copied, and what it left: runs of ids this store already holds with other contents (the
    store's own stay), suites and suite entries it refused, each with why."""

    runs: int
    suites: list[str]
    outcomes: int
    kept_runs: list[str] = field(default_factory=list[str])
    refused: list[str] = field(default_factory=list[str])


def merge_store(target: RunStore, source_path: str | pathlib.Path) -> Merged:
    """Copy the runs and suites of the store at ``source_path`` into ``target``: a run by its id where ``target``
    holds none of that id (one it holds with other contents stays as it is, named in ``kept_runs``), a suite's
    record where ``target`` has none of that id, each outcome ``target`` lacks whose run came from ``source_path``
    (or that stored none).

    A store comes from someone else: an outcome naming a run the source does not hold would make a run of
    ``target`` an entry of the merged suite, and deleting that suite (``delete_suite``) deleted the user's own runs
    with it; a run of the same id had replaced the user's run unsaid; a suite whose row's id is not its record's
    showed as a second copy of the user's suite, and deleting by that id deleted the user's."""
    merged = Merged(0, [], 0)
    brought: set[str] = set()  # the runs the source holds and the target now holds as the source has them
    with RunStore(source_path) as source:
        for summary in source.list(limit=None):
            run_id = summary["id"]
            try:
                run = source.get(run_id, with_artifacts=True)
            except (RunNotFound, UnreadableRun, ValueError):
                continue
            if target.has_row(run_id):
                try:
                    same = target.get_dict(run_id) == source.get_dict(run_id)
                except (RunNotFound, UnreadableRun, ValueError):
                    same = False
                if not same:
                    merged.kept_runs.append(run_id)
                    continue
            else:
                target.put(run)
                merged.runs += 1
            brought.add(run_id)
        for suite_id, record_json, _ in source.suites(limit=100000):
            record = SuiteRecord.from_dict(serialize.parse_json(record_json))
            if record.id != suite_id:
                merged.refused.append(f"suite {shown(suite_id)}: its record's id is {shown(record.id)}")
                continue
            target.put_suite(suite_id, record.created_at, record_json)
            have = {o.name for o in load_suite(target, suite_id).outcomes}
            for outcome in load_suite(source, suite_id).outcomes:
                if outcome.name in have:
                    continue
                if outcome.run_id and outcome.run_id not in brought:
                    merged.refused.append(
                        f"suite {suite_id}'s entry {shown(outcome.name)}: its run {shown(outcome.run_id)} is not one "
                        "the merged store brought"
                    )
                    continue
                save_outcome(target, suite_id, outcome)
                merged.outcomes += 1
            merged.suites.append(suite_id)
    return merged


def runs_of(store: RunStore, record: SuiteRecord) -> dict[str, ProfileRun]:
    """The runs a suite's entries stored, by id; one deleted or unreadable since is left out (its row says so)."""
    runs: dict[str, ProfileRun] = {}
    for outcome in record.outcomes:
        if outcome.run_id:
            try:
                runs[outcome.run_id] = store.get(outcome.run_id)
            except (RunNotFound, UnreadableRun, ValueError):
                continue
    return runs
