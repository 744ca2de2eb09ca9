"""The jupyter_server extension's REST API over the run store, through a real server (pytest-jupyter)."""

from __future__ import annotations

import json
import urllib.parse

import pytest
import tornado.httpclient
from compile_profile.serialize import to_dict
from compile_profile.store import RunStore
from digest_schema import schema_errors
from render_fixtures import HOSTILE, cpu_run, cuda_run, failed_run, hostile_run
from server_requests import API, expect_status, fetch_json
from synthetic_store_runs import make_run, tamper, timestamp

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def store(store_path):
    with RunStore(store_path) as s:
        yield s


# -- list ---------------------------------------------------------------------


async def test_list_of_an_absent_store_is_empty(jp_fetch, store_path):
    body = await fetch_json(jp_fetch, API, "runs")
    assert body == {"runs": [], "total": 0, "token": 0, "ages": {}}
    assert not store_path.exists()  # reading must not create the file


async def test_list_is_newest_first_with_summaries_and_paging(jp_fetch, store):
    for i in range(5):
        store.put(make_run(f"run{i}", created_at=timestamp(minutes_ago=10 - i), label=f"run {i}"))
    body = await fetch_json(jp_fetch, API, "runs", params={"limit": 2, "offset": 1})
    assert body["total"] == 5
    assert [r["id"] for r in body["runs"]] == ["run3", "run2"]
    # each run's age as the CLI words it (digest/format.py age_text), worded as the page is served
    assert body["ages"] == {"run3": "7 min ago", "run2": "8 min ago"}
    row = body["runs"][0]
    assert row["label"] == "run 3"
    assert row["headline"].startswith("inductor")
    assert row["speedup"]["text"] == "2.00× faster"
    assert body["token"] == store.change_token() > 0
    assert schema_errors(body, "RunsPage") == []  # the page the server writes by hand is the one declared


async def test_list_filters_by_notebook(jp_fetch, store):
    store.put(make_run("a1", notebook="/home/u/a.ipynb"))
    store.put(make_run("b1", notebook="/home/u/b.ipynb"))
    store.put(make_run("b2", notebook="/home/u/b.ipynb"))
    body = await fetch_json(jp_fetch, API, "runs", params={"notebook": "/home/u/b.ipynb"})
    assert body["total"] == 2
    assert {r["id"] for r in body["runs"]} == {"b1", "b2"}


@pytest.mark.parametrize("params", [{"limit": "x"}, {"limit": "0"}, {"limit": "100000"}, {"offset": "-1"}])
async def test_list_rejects_bad_paging(jp_fetch, store, params):
    await expect_status(jp_fetch, 400, API, "runs", params=params)


# -- one run ------------------------------------------------------------------


async def test_get_run_is_the_full_run_dict_with_its_digest(jp_fetch, store):
    from compile_profile.digest import run_digest, summarize

    run = cuda_run()
    store.put(run)
    body = await fetch_json(jp_fetch, API, "runs", run.id)
    summary = body.pop("summary")
    assert body == run.to_dict()
    assert summary == json.loads(json.dumps(run_digest(run))), "the panel words figures as the card does"
    assert summary["headline"] == summarize(run)["headline"] and summary["lines"]["rows"]


async def test_hostile_text_comes_back_unaltered_as_json(jp_fetch, store):
    run = hostile_run()
    store.put(run)
    raw = (await jp_fetch(API, "runs", run.id)).body.decode()
    assert json.loads(raw)["label"] == f"label {HOSTILE}"


async def test_unknown_run_is_404(jp_fetch, store):
    store.put(cpu_run())
    error = await expect_status(jp_fetch, 404, API, "runs", "nosuchrun")
    assert "nosuchrun" in json.loads(error.response.body)["message"]


@pytest.mark.parametrize(
    "hostile_id",
    ["a b", "..", "x" * 65, "<script>", "id;drop", "\u00e9t\u00e9", "a.b"],
)
async def test_hostile_ids_are_400(jp_fetch, store, hostile_id):
    store.put(cpu_run())
    await expect_status(jp_fetch, 400, API, "runs", hostile_id)
    await expect_status(jp_fetch, 400, API, "runs", hostile_id, "figures")
    await expect_status(jp_fetch, 400, API, "compare", params={"a": hostile_id, "b": "cpu000000001"})
    await expect_status(jp_fetch, 400, API, "runs", hostile_id, method="DELETE")


# -- compare --------------------------------------------------------------------


async def test_compare_is_the_digests_comparison_of_a_before_b(jp_fetch, store):
    from compile_profile.digest import compare

    slower, faster = cuda_run(), cuda_run()
    slower.id = "slower000001"
    t = slower.variants[1].timing
    t.median_ms, t.p10_ms, t.p90_ms = t.median_ms * 2, t.p10_ms * 2, t.p90_ms * 2  # beyond both spreads
    store.put(slower)
    store.put(faster)
    body = await fetch_json(jp_fetch, API, "compare", params={"a": slower.id, "b": faster.id})
    assert body == json.loads(json.dumps(to_dict(compare(slower, faster))))
    (row,) = [d for d in body["deltas"] if d["metric"] == "inductor/default median"]
    assert row["change_text"] == "-50.0%" and row["better"] == "b"


async def test_compare_needs_two_known_runs(jp_fetch, store):
    store.put(cpu_run())
    error = await expect_status(jp_fetch, 400, API, "compare", params={"a": cpu_run().id})
    assert "?a=ID&b=ID" in json.loads(error.response.body)["message"]
    error = await expect_status(jp_fetch, 404, API, "compare", params={"a": cpu_run().id, "b": "nosuchrun"})
    assert "nosuchrun" in json.loads(error.response.body)["message"]


# -- figures --------------------------------------------------------------------


async def test_figures_are_plotly_dicts(jp_fetch, store):
    run = cuda_run()
    store.put(run)
    body = await fetch_json(jp_fetch, API, "runs", run.id, "figures")
    for name in ("variants", "samples", "compile_timeline"):
        assert isinstance(body[name]["data"], list) and body[name]["data"], name
    await expect_status(jp_fetch, 404, API, "runs", "nosuchrun", "figures")


# -- the HTML report of a run ----------------------------------------------------------


async def test_report_is_the_runs_html_report_as_a_download_with_its_markup_as_text(jp_fetch, store):
    from compile_profile.render.report import render_report_html

    run = hostile_run()
    store.put(run)
    response = await jp_fetch(API, "runs", run.id, "report")
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="compile-profile-{run.id}.html"'
    page = response.body.decode()
    assert page == render_report_html(run)  # the CLI's report, byte for byte
    assert HOSTILE not in page  # the run's markup came out escaped
    await expect_status(jp_fetch, 404, API, "runs", "nosuchrun", "report")
    await expect_status(jp_fetch, 400, API, "runs", "bad id!", "report")


async def test_a_failed_runs_reproducer_is_a_python_download_and_a_run_without_one_is_404(jp_fetch, store):
    run = failed_run()
    run.errors[0].reproducer = "# A reproducer written by compile-profile\nprint('<b>not markup</b>')\n"
    store.put(run)
    response = await jp_fetch(API, "runs", run.id, "repro")
    assert response.headers["Content-Type"] == "text/x-python; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="repro-{run.id}.py"'
    assert response.body.decode() == run.errors[0].reproducer
    fine = cpu_run()
    store.put(fine)
    await expect_status(jp_fetch, 404, API, "runs", fine.id, "repro")


# -- delete and change token -------------------------------------------------------


async def test_delete_then_404_and_token_moves(jp_fetch, store):
    run = cpu_run()
    store.put(run)
    before = (await fetch_json(jp_fetch, API, "changes"))["token"]
    response = await jp_fetch(API, "runs", run.id, method="DELETE")
    assert response.code == 204
    after = (await fetch_json(jp_fetch, API, "changes"))["token"]
    assert after > before
    await expect_status(jp_fetch, 404, API, "runs", run.id)
    await expect_status(jp_fetch, 404, API, "runs", run.id, method="DELETE")
    assert (await fetch_json(jp_fetch, API, "runs"))["total"] == 0


async def test_change_token_follows_writes_from_another_process_handle(jp_fetch, store_path):
    assert (await fetch_json(jp_fetch, API, "changes")) == {"token": 0}
    with RunStore(store_path) as writer:  # as the kernel would: its own connection
        writer.put(cpu_run())
    first = (await fetch_json(jp_fetch, API, "changes"))["token"]
    assert first > 0
    assert (await fetch_json(jp_fetch, API, "changes"))["token"] == first  # reading changes nothing


# -- authentication -----------------------------------------------------------------


@pytest.mark.parametrize(
    "method,parts",
    [
        ("GET", ["runs"]),
        ("GET", ["runs", "cpu000000001"]),
        ("GET", ["compare"]),
        ("GET", ["runs", "cpu000000001", "figures"]),
        ("GET", ["runs", "cpu000000001", "report"]),
        ("GET", ["runs", "cpu000000001", "repro"]),
        ("GET", ["runs", "cpu000000001", "compiles"]),
        ("GET", ["runs", "cpu000000001", "compile"]),
        ("GET", ["runs", "cpu000000001", "artifacts", "0" * 64]),
        ("GET", ["runs", "cpu000000001", "perfetto"]),
        ("GET", ["changes"]),
        ("DELETE", ["runs", "cpu000000001"]),
    ],
)
async def test_unauthenticated_requests_are_refused(http_server_client, jp_base_url, store, method, parts):
    store.put(cpu_run())
    url = jp_base_url.rstrip("/") + "/" + "/".join([API, *(urllib.parse.quote(p) for p in parts)])
    with pytest.raises(tornado.httpclient.HTTPClientError) as info:
        await http_server_client.fetch(url, method=method)
    assert info.value.code == 403
    with pytest.raises(tornado.httpclient.HTTPClientError) as info:
        await http_server_client.fetch(url, method=method, headers={"Authorization": "token wrong"})
    assert info.value.code == 403
    assert store.count() == 1  # the refused DELETE deleted nothing


async def test_store_errors_are_reported_as_json(jp_fetch, store_path):
    store_path.write_bytes(b"this is not a sqlite file" * 100)
    error = await expect_status(jp_fetch, 500, API, "runs")
    assert "run store error" in json.loads(error.response.body)["message"]


# -- one unreadable run hides no other, and answers no 500 -------------------------------------


async def test_unreadable_runs_are_listed_as_such_and_answer_422_never_500(jp_fetch, store, store_path, caplog):
    from job_fixtures import job_runs

    good, typed_wrong, not_json, bad_summary = (
        make_run(f"{name}1", created_at=timestamp(10 - i))
        for i, name in enumerate(("good", "typed", "notjson", "summ"))
    )
    ranks = job_runs(2)
    for run in (good, typed_wrong, not_json, bad_summary, *ranks):
        store.put(run)
    data = json.loads(typed_wrong.to_json())
    data["cell_runs"] = "<img src=x onerror=alert(1)>"
    tamper(store_path, "typed1", run_json=json.dumps(data), summary_json="[1]")
    tamper(store_path, "notjson1", run_json="{not json", summary_json="{}")
    tamper(store_path, "summ1", summary_json="garbage")
    rank = json.loads(ranks[1].to_json())
    rank["graphs"] = "none"
    tamper(store_path, ranks[1].id, run_json=json.dumps(rank), summary_json="{}")

    body = await fetch_json(jp_fetch, API, "runs")
    listed = {r["id"]: r for r in body["runs"]}
    assert body["total"] == 6 and set(listed) == {"good1", "typed1", "notjson1", "summ1", ranks[0].id, ranks[1].id}
    assert listed["typed1"]["status"] == "unreadable" and listed["typed1"]["unreadable"].startswith("cell_runs: ")
    assert listed["notjson1"]["unreadable"].startswith("not JSON: ")
    assert listed["summ1"]["status"] == "ok" and listed["summ1"]["headline"] == good.summary()["headline"]
    assert listed[ranks[1].id]["status"] == "unreadable" and listed["good1"]["unreadable"] is None
    assert schema_errors(body, "RunsPage") == []  # unreadable runs' summaries too

    for run_id, field in (("typed1", "cell_runs"), ("notjson1", "not JSON"), (ranks[1].id, "graphs")):
        for parts in (("runs", run_id), ("runs", run_id, "figures")):
            error = await expect_status(jp_fetch, 422, API, *parts)
            message = json.loads(error.response.body)["message"]
            assert f"run {run_id} in " in message and field in message and "cannot be read" in message
        await expect_status(jp_fetch, 422, API, "compare", params={"a": "good1", "b": run_id})
    for parts in (("jobs", ranks[0].id), ("jobs", ranks[0].id, "report")):
        error = await expect_status(jp_fetch, 422, API, *parts)
        assert ranks[1].id in json.loads(error.response.body)["message"]
    # every other run works
    assert (await fetch_json(jp_fetch, API, "runs", "good1"))["id"] == "good1"
    assert await fetch_json(jp_fetch, API, "runs", "summ1", "figures")
    assert (await fetch_json(jp_fetch, API, "compare", params={"a": "good1", "b": "summ1"}))["deltas"]
    await jp_fetch(API, "runs", "typed1", method="DELETE")  # and the unreadable one can be removed
    assert "typed1" not in {r["id"] for r in (await fetch_json(jp_fetch, API, "runs"))["runs"]}
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the server log"


# -- a run read from a TORCH_TRACE (import-trace): no timed variant, no eager -------------------------------


async def test_a_run_and_a_job_read_from_torch_traces_are_served_with_their_figures(jp_fetch, store):
    from pathlib import Path

    from compile_profile.digest import run_digest
    from compile_profile.engine.trace.log_import import import_trace

    fixtures = Path(__file__).parent / "import_trace_fixtures"
    (run,) = import_trace(fixtures / "failed" / "trace.log.gz")
    ranks = import_trace(fixtures / "job")
    for r in [run, *ranks]:
        store.put(r)
    body = await fetch_json(jp_fetch, API, "runs", run.id)
    summary = body.pop("summary")
    # the run's JSON names its artifacts by hash and holds none of their texts (GET runs/<id>/artifacts/<hash>)
    assert body == {**run.to_dict(), "artifact_texts": {}} and summary == json.loads(json.dumps(run_digest(run)))
    modules = [
        run.artifact_texts[a.sha256] for c in run.compiles for a in c.artifacts if a.name == "inductor_output_code"
    ]
    assert modules and not any(json.dumps(text)[1:-1] in json.dumps(body) for text in modules)
    assert summary["headline"].startswith("from a TORCH_TRACE: no timings; compile failed")
    assert summary["trace"]["path"].endswith("failed/trace.log.gz")
    assert await fetch_json(jp_fetch, API, "runs", run.id, "figures")
    listed = await fetch_json(jp_fetch, API, "runs")
    assert {r.id for r in [run, *ranks]} <= {s["id"] for s in listed["runs"]}
    job_id = ranks[0].distributed.job_id
    job = await fetch_json(jp_fetch, API, "jobs", job_id)
    assert job["job"]["headline"].startswith("2 ranks: from a TORCH_TRACE: no timings")
    response = await jp_fetch(API, "jobs", job_id, "report")
    assert b"from a TORCH_TRACE: no timings" in response.body


# -- the panel's Import TORCH_TRACE: POST runs/import-trace {path} ------------------------------------------


TRACE_FIXTURES = __import__("pathlib").Path(__file__).parent / "import_trace_fixtures"


async def post_import(jp_fetch, body):
    response = await jp_fetch(API, "runs", "import-trace", method="POST", body=json.dumps(body))
    assert response.code == 201 and response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


async def test_import_trace_stores_a_scripts_run_and_a_jobs_ranks_and_answers_their_ids(jp_fetch, jp_root_dir, store):
    import shutil

    from compile_profile.engine.trace.log_import import import_trace

    for name in ("script", "job"):  # the server reads only under its root
        shutil.copytree(TRACE_FIXTURES / name, jp_root_dir / name)
    token = (await fetch_json(jp_fetch, API, "changes"))["token"]
    log = jp_root_dir / "script" / "trace.log.gz"
    body = await post_import(jp_fetch, {"path": str(log), "label": " mine "})  # an absolute path inside the root
    (run_id,) = body["ids"]
    assert body["job_ids"] == []
    run = await fetch_json(jp_fetch, API, "runs", run_id)
    expected = import_trace(TRACE_FIXTURES / "script" / "trace.log.gz")[0]  # the CLI's import of the same log
    assert run["label"] == "mine" and run["imported_trace"]["path"].endswith("script/trace.log.gz")
    assert len(run["graph_breaks"]) == len(expected.graph_breaks) == 2
    assert len(run["recompiles"]) == len(expected.recompiles) == 2
    assert [g["kind"] for g in run["graphs"]] == [g.kind for g in expected.graphs]
    assert run["summary"]["headline"].startswith("from a TORCH_TRACE: no timings")
    assert (await fetch_json(jp_fetch, API, "changes"))["token"] != token, "the panel's poll sees the new run"

    job = await post_import(jp_fetch, {"path": "job"})
    assert len(job["ids"]) == 2 and len(job["job_ids"]) == 1
    ranks = (await fetch_json(jp_fetch, API, "jobs", job["job_ids"][0]))["runs"]
    assert [r["id"] for r in ranks] == job["ids"], "the ranks in rank order"
    assert store.count() == 3


async def test_import_trace_reads_a_relative_path_under_the_servers_root(jp_fetch, jp_root_dir, store):
    import shutil

    shutil.copytree(TRACE_FIXTURES / "failed", jp_root_dir / "my traces")
    body = await post_import(jp_fetch, {"path": "my traces"})
    (run_id,) = body["ids"]
    run = store.get(run_id)
    assert run.status == "failed" and run.imported_trace is not None
    assert run.imported_trace.path == str(jp_root_dir / "my traces" / "trace.log.gz")


async def test_import_trace_refuses_bad_input_with_what_to_fix_and_loses_nothing(jp_fetch, jp_root_dir, store):
    store.put(cpu_run())
    (jp_root_dir / "empty").mkdir()
    (jp_root_dir / "notes.txt").write_text("<b>not a trace</b>\n")
    (jp_root_dir / "broken.log.gz").write_bytes(b"not gzip at all")
    cases = [
        ({}, "give the path of a TORCH_TRACE directory or log on the server"),
        ({"path": "  "}, "give the path of a TORCH_TRACE directory or log on the server"),
        ({"path": 3}, "give the path of a TORCH_TRACE directory or log on the server"),
        ([], "the request body must be a JSON object"),
        # missing, empty, no record or no gzip: one message, which tells nothing of what is there
        ({"path": "nowhere/100%"}, "nothing to import at nowhere/100%: give a TORCH_TRACE directory or log"),
        ({"path": "empty"}, "nothing to import at empty: give a TORCH_TRACE directory or log"),
        ({"path": "notes.txt"}, "nothing to import at notes.txt: give a TORCH_TRACE directory or log"),
        ({"path": "broken.log.gz"}, "nothing to import at broken.log.gz: give a TORCH_TRACE directory or log"),
        ({"path": "empty", "label": 1}, "label must be a string"),
        # a path past PATH_MAX is refused before realpath, whose time grows with the square of its parts (800 KB of
        # "a/" held every request to the server for 15 s); a long one is quoted clipped, one line
        ({"path": "a/" * 400_000}, "a path of 800,000 characters: a path on this server is at most 4,096"),
        ({"path": "b\n" * 1000}, "nothing to import at b\\x0ab\\x0a"),
    ]
    for body, message in cases:
        error = await expect_status(jp_fetch, 400, API, "runs", "import-trace", method="POST", body=json.dumps(body))
        reply = json.loads(error.response.body)
        assert message in reply["message"], (body, reply)
        assert len(reply["message"]) < 500 and "\n" not in reply["message"], reply
    error = await expect_status(jp_fetch, 400, API, "runs", "import-trace", method="POST", body="{not json")
    assert "must be a JSON object" in json.loads(error.response.body)["message"]
    assert [r["id"] for r in (await fetch_json(jp_fetch, API, "runs"))["runs"]] == [cpu_run().id], "nothing lost"


async def test_import_trace_of_an_unreadable_log_is_nothing_to_import_as_a_missing_one(
    jp_fetch, jp_root_dir, store, monkeypatch
):
    from compile_profile.engine.trace import log_import as trace_import

    def unreadable(path, limits, deadline=None):  # a file of another user's, mode 600 (the tests run as root)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(trace_import, "read_trace_file", unreadable)
    (jp_root_dir / "trace").mkdir()
    log = jp_root_dir / "trace" / "dedicated_log_torch_trace_x.log"
    log.write_text("x\n")
    error = await expect_status(
        jp_fetch, 400, API, "runs", "import-trace", method="POST", body=json.dumps({"path": "trace"})
    )
    assert json.loads(error.response.body)["message"].startswith("nothing to import at trace: give a TORCH_TRACE")
    assert store.count() == 0


async def test_import_trace_refuses_an_unauthenticated_request(http_server_client, jp_base_url, store):
    url = jp_base_url.rstrip("/") + f"/{API}/runs/import-trace"
    body = json.dumps({"path": str(TRACE_FIXTURES / "script")})
    for headers in ({}, {"Authorization": "token wrong"}):
        with pytest.raises(tornado.httpclient.HTTPClientError) as info:
            await http_server_client.fetch(url, method="POST", body=body, headers=headers)
        assert info.value.code == 403
    assert store.count() == 0


# -- a run's compiles and their artifacts ---------------------------------------------------------------


async def test_a_runs_compiles_one_compile_and_an_artifact_are_served_the_text_only_to_its_run(jp_fetch, store):
    from pathlib import Path

    from compile_profile.engine.trace.log_import import import_trace

    fixtures = Path(__file__).parent / "import_trace_fixtures"
    (run,) = import_trace(fixtures / "script")
    store.put(run)
    store.put(cpu_run())
    index = await fetch_json(jp_fetch, API, "runs", run.id, "compiles")
    assert [r["link"]["label"] for r in index["rows"]][1:3] == ["[0/0]", "[1/0]"]
    detail = await fetch_json(jp_fetch, API, "runs", run.id, "compile", params={"key": "trace:0/0:0"})
    code = next(a for a in detail["artifacts"] if a["name"] == "inductor_output_code")
    response = await jp_fetch(API, "runs", run.id, "artifacts", code["sha256"])
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.body.decode() == run.artifact_texts[code["sha256"]] and "def call(" in response.body.decode()
    await expect_status(jp_fetch, 404, API, "runs", "cpu000000001", "artifacts", code["sha256"])  # another run's
    await expect_status(jp_fetch, 400, API, "runs", run.id, "artifacts", "runs.sqlite")
    await expect_status(jp_fetch, 404, API, "runs", run.id, "compile", params={"key": "trace:9/9:0"})
    response = await jp_fetch(API, "runs", run.id, "perfetto")
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert any(e["ph"] == "X" for e in json.loads(response.body)["traceEvents"])
    page = (await jp_fetch(API, "runs", run.id, "report")).body.decode()
    assert "def call(self, args):" in page  # the report's artifacts come from the store
