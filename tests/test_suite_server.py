"""The server's suite routes (GET suites, suites/<id>, suites/<id>/report) through a real server, their JSON held to
the schema generated from the suite's dataclasses (schema/suite.schema.json)."""

from __future__ import annotations

import json

import jsonschema
import pytest
import tornado.httpclient
from compile_profile.suites import contract
from server_requests import API
from suite_fixtures import _run, _suite, store_suite

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def stored_suite(store_path):
    record, runs = _suite()
    store_suite(store_path, record, runs)
    return record


def _valid(data, root: str) -> None:
    schema = contract.json_schema()
    jsonschema.validate(data, {**schema, "$ref": f"#/$defs/{root}"})


async def test_the_suite_list_and_a_suite_page_are_served_as_the_schema_says(jp_fetch, stored_suite):
    listed = json.loads((await jp_fetch(API, "suites")).body)
    _valid(listed, "SuitesPage")
    assert [s["id"] for s in listed["suites"]] == [stored_suite.id]
    page = json.loads((await jp_fetch(API, "suites", stored_suite.id)).body)
    _valid(page, "SuitePage")
    assert page["suite"]["summary"]["pass_rate_text"] == "2 of 7 entries pass (29%)"
    assert set(page["figures"]) == {"speedup", "compile"}


async def test_a_suites_report_is_a_download_and_an_unknown_suite_is_404(jp_fetch, stored_suite):
    response = await jp_fetch(API, "suites", stored_suite.id, "report")
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert b"Plotly.newPlot" in response.body
    with pytest.raises(tornado.httpclient.HTTPClientError) as err:
        await jp_fetch(API, "suites", "nosuchsuite")
    assert err.value.code == 404
    with pytest.raises(tornado.httpclient.HTTPClientError) as err:
        await jp_fetch(API, "suites", "bad id!")
    assert err.value.code == 400


async def test_two_stored_suites_are_compared_as_suite_compare_compares_them_and_an_unknown_one_is_404(
    jp_fetch, store_path, stored_suite
):
    import copy

    from compile_profile import serialize
    from compile_profile.store import RunStore
    from compile_profile.suites.compare import compare_suites, export
    from compile_profile.suites.digest import suite_digest
    from compile_profile.suites.storage import load_suite, runs_of

    record, runs = _suite()
    newer = copy.deepcopy(record)
    newer.id, newer.created_at = "suite0000002", "2026-12-06T01:00:00+00:00"
    newer.outcomes[0].run_id = "r-fast2"
    runs["r-fast2"] = _run("r-fast2", 9.0, 18.0)  # "fast", 4.5x faster in the older suite, is 2x slower now
    store_suite(store_path, newer, runs)
    data = json.loads((await jp_fetch(API, "suites", newer.id, "compare", stored_suite.id)).body)
    _valid(data, "SuiteComparison")
    with RunStore(store_path) as store:
        old, new = (load_suite(store, i) for i in (stored_suite.id, newer.id))
        want = compare_suites(
            export(suite_digest(old, runs_of(store, old))),
            export(suite_digest(new, runs_of(store, new))),
            old_name=f"suite {stored_suite.id} (2026-12-05 01:00 UTC)",
            new_name=f"suite {newer.id} (2026-12-06 01:00 UTC)",
        )
    assert data == serialize.to_dict(want)
    assert data["failed"] and "fast" in data["regressions"][0]
    # opened on the earlier suite and compared with the later one: still the earlier against the later
    reversed_ = json.loads((await jp_fetch(API, "suites", stored_suite.id, "compare", newer.id)).body)
    assert reversed_ == data
    with pytest.raises(tornado.httpclient.HTTPClientError) as err:
        await jp_fetch(API, "suites", newer.id, "compare", "nosuchsuite")
    assert err.value.code == 404
