"""A stored suite is removed with the runs its entries stored, from the CLI (``suite --delete ID``) and the REST API
(``DELETE suites/ID``, the Suites view's ✕): one that cannot be read too (before, only editing the SQLite file
removed it); the other suites and their runs stay; an id that names no suite is a message that says so."""

from __future__ import annotations

import json

from compile_profile.store import RunStore
from compile_profile.suites.storage import UnreadableSuite, listed_suites
from hostile_input import _one_line_error
from server_requests import api_answer
from suite_fixtures import _suite, store_suite

pytest_plugins = ["pytest_jupyter.jupyter_server"]


def _two_suites(path) -> tuple[str, str, set[str], set[str]]:
    """A suite that reads and one that cannot be read (an outcome whose error is no string), three runs each."""
    record, runs = _suite()
    good = store_suite(path, record, runs)
    record, runs = _suite()
    record.id = "suitebad0001"
    for run in runs.values():
        run.id = f"bad-{run.id}"
    for outcome in record.outcomes:
        if outcome.run_id:
            outcome.run_id = f"bad-{outcome.run_id}"
    bad = store_suite(path, record, {run.id: run for run in runs.values()})
    with RunStore(path) as store:
        outcome = {"name": "n", "model": "n", "task": "step", "dtype": "float32", "ended": "skipped", "error": 123}
        store.put_suite_model(bad, "n", json.dumps(outcome), None)
    good_runs = {o.run_id for o in _suite()[0].outcomes if o.run_id}
    return good, bad, good_runs, {f"bad-{r}" for r in good_runs}


def _stored(path) -> tuple[list[str], set[str]]:
    with RunStore(path) as store:
        suites = [s.suite_id if isinstance(s, UnreadableSuite) else s.id for s in listed_suites(store)]
        return suites, {r["id"] for r in store.list(limit=100)}


def test_suite_delete_removes_a_suite_that_cannot_be_read_and_its_runs_and_leaves_the_others(cli):
    good, bad, good_runs, bad_runs = _two_suites(cli.db)
    assert _stored(cli.db) == ([bad, good], good_runs | bad_runs)

    code, out, err = cli("suite", "--delete", bad)
    assert code == 0, err
    assert out.strip() == f"deleted suite {bad} and the 3 runs its entries stored"
    assert _stored(cli.db) == ([good], good_runs)

    code, out, err = cli("suite", "--delete", bad)  # gone: said so, nothing else touched
    _one_line_error(code, err, f"--delete {bad}: no suite of that id")
    assert _stored(cli.db) == ([good], good_runs)


def test_suite_delete_of_no_suite_id_is_refused_naming_it_and_touches_nothing(cli):
    good, _, good_runs, bad_runs = _two_suites(cli.db)
    code, _, err = cli("suite", "--delete", "../../etc\x1b[2J")
    _one_line_error(code, err, "no suite id", "compile-profile suite --list")
    assert "\x1b" not in err  # the id is shown as text, not as a terminal's control
    assert _stored(cli.db)[1] == good_runs | bad_runs


async def test_rest_deletes_a_suite_and_its_runs_204_then_answers_404(jp_fetch, store_path):
    good, bad, good_runs, bad_runs = _two_suites(store_path)
    code, _ = await api_answer(jp_fetch, "suites", good, method="DELETE")
    assert code == 204
    assert _stored(store_path) == ([bad], bad_runs)
    code, body = await api_answer(jp_fetch, "suites", good)
    assert code == 404 and good in body["message"], body
    code, body = await api_answer(jp_fetch, "suites", good, method="DELETE")
    assert code == 404, body
    code, _ = await api_answer(jp_fetch, "suites", bad, method="DELETE")  # the one that cannot be read, too
    assert code == 204
    assert _stored(store_path) == ([], set())
