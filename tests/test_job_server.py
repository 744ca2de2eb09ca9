"""A distributed job over REST (issue 14): ``jobs/<id>`` serves the job digest and its runs' summaries,
``jobs/<id>/report`` the job's HTML report with a policy that lets it run nothing; the run list's summaries
carry each run's place in its job."""

from __future__ import annotations

import json

import pytest
import tornado.httpclient
from compile_profile.digest import summarize
from compile_profile.digest.job import job_digest, job_digest_of
from compile_profile.render.job_report import render_job_report_html
from compile_profile.store import RunStore
from digest_schema import schema_errors
from job_fixtures import JOB_ID, add_graphs, job_runs
from render_fixtures import HOSTILE, ParsedHTML, cpu_run
from server_requests import API

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def runs():
    runs = job_runs(2)
    add_graphs(runs[1], 2)
    return runs


@pytest.fixture
def store(store_path, runs):
    with RunStore(store_path) as s:
        for run in reversed(runs):
            s.put(run)
        s.put(cpu_run())
        yield s


async def test_a_job_is_its_digest_and_its_runs_summaries_by_rank(jp_fetch, store, runs):
    for job_id in (JOB_ID, runs[1].id):  # the job's id, or any of its runs'
        response = await jp_fetch(API, "jobs", job_id)
        assert response.headers["Content-Type"].startswith("application/json")
        body = json.loads(response.body)
        assert body == json.loads(json.dumps({"job": job_digest(runs), "runs": [summarize(r) for r in runs]}))
        assert schema_errors(body, "JobPage") == []
    assert body["job"]["headline"] == (
        "2 ranks (gloo): speedup 0.95×, compile 800 ms; rank 1 diverges: 3 Dynamo graphs where the others have 1"
    )


async def test_an_unknown_job_is_404_with_a_message(jp_fetch, store):
    for job_id in ("nosuchjob", cpu_run().id):  # a run of no job is no job either
        with pytest.raises(tornado.httpclient.HTTPClientError) as info:
            await jp_fetch(API, "jobs", job_id)
        assert info.value.code == 404
        assert json.loads(info.value.response.body)["message"].startswith(f"no job {job_id}")
    with pytest.raises(tornado.httpclient.HTTPClientError) as info:
        await jp_fetch(API, "jobs", "bad id!", "report")
    assert info.value.code == 400


async def test_the_job_report_is_the_jobs_page_and_may_run_nothing(jp_fetch, store, runs):
    response = await jp_fetch(API, "jobs", JOB_ID, "report")
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.body.decode() == render_job_report_html(job_digest_of(runs))
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "style-src 'unsafe-inline'" in csp and "script-src" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    with pytest.raises(tornado.httpclient.HTTPClientError) as info:
        await jp_fetch(API, "jobs", "nosuchjob", "report")
    assert info.value.code == 404


async def test_a_hostile_host_stays_text_in_the_served_report(jp_fetch, store, runs):
    for run in runs:
        run.distributed.host = HOSTILE
        store.put(run)
    page = (await jp_fetch(API, "jobs", JOB_ID, "report")).body.decode()
    assert "<script>" not in page and HOSTILE in ParsedHTML(page).text


async def test_the_run_list_carries_each_runs_place_in_its_job(jp_fetch, store, runs):
    body = json.loads((await jp_fetch(API, "runs")).body)
    by_id = {row["id"]: row for row in body["runs"]}
    assert by_id[runs[1].id]["distributed"] == {
        "rank": 1,
        "world_size": 2,
        "job_id": JOB_ID,
        "backend": "gloo",
        "text": f"rank 1 of 2 (gloo), job {JOB_ID}",
    }
    assert by_id[cpu_run().id]["distributed"] is None


async def test_job_endpoints_need_authentication(http_server_client, jp_base_url, store):
    for suffix in ("", "/report"):
        response = await http_server_client.fetch(f"{jp_base_url}{API}/jobs/{JOB_ID}{suffix}", raise_error=False)
        assert response.code == 403
