"""The server's suite routes (GET suites, suites/<id>, suites/<id>/report) through a real server, their JSON held to
the schema generated from the suite's dataclasses (schema/suite.schema.json)."""

from __future__ import annotations

import json

import jsonschema
import pytest
import tornado.httpclient
from compile_profile.suites import contract
from server_requests import API
from suite_fixtures import _suite, store_suite

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
