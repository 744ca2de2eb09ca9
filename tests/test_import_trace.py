"""``compile-profile import-trace``: TORCH_TRACE logs of runs no profile made, read into the run store.

The logs are recorded once (``import_trace_fixtures/record.py``: a script, a 2-rank gloo torchrun job, a run
whose compile failed; ``trace_fixtures/``: the same workload on torch 2.6, 2.10 and 2.13), each beside what
Dynamo and Inductor themselves counted while it ran (``expected*.json``), which the imported run is held to.
Nothing here compiles: the tests read logs.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from compile_profile.digest.job import job_digest
from compile_profile.digest.summary import run_digest, summarize
from compile_profile.digest.timeline import compile_timeline
from compile_profile.digest.trace import NO_TIMINGS
from compile_profile.engine.trace.log_import import TRACE_VARIANT, NoTrace, import_trace, script_candidates
from compile_profile.profile_run import ProfileRun
from compile_profile.render.charts import figures
from compile_profile.render.mime import mime_bundle
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from compile_profile.store import RunStore

HERE = Path(__file__).parent
ROOT = HERE.parent  # the fixtures were recorded in another checkout: their script is found under this one
RELEASES = HERE / "trace_fixtures"
FIXTURES = HERE / "import_trace_fixtures"
SCRIPT = (FIXTURES / "record.py").read_text().splitlines()


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SCRIPT, 1) if text in line)


def _expected(path: Path) -> dict:
    return json.loads(path.read_text())


# -- every supported release's trace opens ---------------------------------------------------------------


@pytest.mark.parametrize("release", sorted(p.name for p in RELEASES.glob("torch-*")))
def test_a_trace_of_every_supported_release_opens_with_the_recompiles_dynamo_logged(release):
    expected = _expected(RELEASES / release / "expected.json")
    (run,) = import_trace(RELEASES / release / "trace.log.gz")
    origin = run.imported_trace
    assert origin is not None
    assert [v.name for v in run.variants] == [TRACE_VARIANT] and run.eager is None
    assert run.variants[0].timing is None and run.speedup is None
    assert len(run.recompiles) == expected["recompiles"]
    assert run.status == "ok" and not run.errors
    assert origin.unknown_events == {} and origin.unreadable_events == {} and origin.skipped_lines == 0
    # torch 2.10 and later name themselves in the trace; 2.6 does not
    assert origin.torch_version == ("" if release == "torch-2.6.0" else expected["torch"])
    assert origin.script.endswith("trace_fixtures/record.py")
    assert run.kernels and run.graph_breaks and run.variants[0].compile_s


def _with_lines(source: Path, dest: Path, extra: list[str]) -> Path:
    with gzip.open(source, "rt") as f:
        lines = f.read().splitlines()
    at = len(lines) // 2
    while lines[at].startswith("\t"):  # between two records, not inside a payload
        at += 1
    dest.write_text("\n".join(lines[:at] + extra + lines[at:]) + "\n")
    return dest


def test_unknown_event_kinds_and_records_of_the_wrong_types_are_skipped_and_counted_never_fatal(tmp_path):
    release = RELEASES / "torch-2.13.0"
    head = "V1202 12:25:50.000000 18439 torch/_dynamo/future.py:1]"
    extra = [
        f'{head} {{"a_newer_event": {{"what": 1}}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}}',
        f'{head} {{"artifact": {{"name": "a_newer_artifact", "encoding": "string"}}, "has_payload": "0"}}',
        "\tits payload, which nothing reads",
        f'{head} {{"a_newer_event": {{"what": 2}}}}',
        f'{head} {{"compilation_metrics": {{"entire_frame_compile_time_s": "not a number"}}, "frame_id": 9}}',
        "a line of another program's output",
    ]
    trace = _with_lines(release / "trace.log.gz", tmp_path / "newer.log", extra)
    (run,) = import_trace(trace)
    origin = run.imported_trace
    assert origin is not None
    assert origin.unknown_events == {"a_newer_artifact": 1, "a_newer_event": 2}
    # the metrics' compile time is a string: the record is skipped before any handler reads it, with its line
    line = trace.read_text().splitlines().index(extra[4]) + 1
    assert origin.bad_records == 1 and origin.unreadable_events == {}
    (bad,) = origin.bad_record_lines
    assert (bad.line, bad.kind) == (line, "compilation_metrics")
    assert bad.why == "entire_frame_compile_time_s: expected a finite number, got a string"
    assert origin.skipped_lines == 1
    assert len(run.recompiles) == _expected(release / "expected.json")["recompiles"]  # the rest read as before
    text = render_text(run)
    assert "skipped 3 events of kinds compile-profile does not know (a_newer_artifact, a_newer_event ×2)" in text
    assert f"skipped 1 record not of its kind's types or cut short (line {line}: compilation_metrics: " in text


# -- a script ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def script_run():
    (run,) = import_trace(FIXTURES / "script" / "trace.log.gz", source_roots=[ROOT])
    return run, _expected(FIXTURES / "script" / "expected.json")


def test_a_scripts_trace_has_what_dynamo_and_inductor_counted(script_run):
    run, expected = script_run
    assert len(run.recompiles) == expected["recompiles"] >= 1
    assert run.dynamo_graph_count == expected["unique_graphs"]
    # the data-dependent branch breaks both compiles of forward; torch 2.13 counts it as "unimplemented"
    assert len(run.graph_breaks) == expected["graph_breaks"] + expected["unimplemented"] == 2
    assert run.cache.fx_graph_hits == expected["fx_graph_cache_hits"] >= 1  # the second module's graphs
    assert run.cache.fx_graph_misses == expected["fx_graph_cache_misses"] >= 1
    assert run.distributed is None and run.status == "ok"


def test_a_scripts_trace_has_its_compile_timeline_with_the_recompiles_apart(script_run):
    run, expected = script_run
    timeline = compile_timeline(run)
    assert timeline is not None
    rows = timeline.rows
    # one row per compile id the trace names; those a recompile names listed as recompiles
    assert {r.compile_id for r in rows} <= set(run.imported_trace.compile_ids)
    assert {r.compile_id for r in rows if r.when == "recompile"} == {r.compile_id for r in run.recompiles}
    # the compiles' outermost spans are what Dynamo's own metrics add up to
    assert sum(r.total_s for r in rows) == pytest.approx(run.variants[0].compile_s, rel=0.05)
    assert timeline.text.startswith("compiling ") and "recompile" in timeline.text


def test_a_scripts_breaks_and_recompiles_are_at_its_own_lines_in_the_users_words(script_run):
    run, _ = script_run
    branch = _line("if y.sum() > 0:")
    assert {b.line for b in run.graph_breaks} == {branch}
    assert all(b.code_line == "if y.sum() > 0:  # a data-dependent branch: a graph break" for b in run.graph_breaks)
    shape = next(r for r in run.recompiles if r.change)
    assert (shape.expected, shape.actual) == ("4", "6")
    assert "x" in summarize(run)["warnings"][-1] or any("recompile" in w for w in summarize(run)["warnings"])


def test_a_scripts_kernels_name_its_lines_from_the_traces_provenance(script_run):
    run, _ = script_run
    generated = [k for k in run.kernels if k.language == "cpp"]
    assert generated
    relu = _line("y = torch.relu(self.lin(x))")
    assert any(relu in k.lines for k in generated)
    # head_again's graph came from the FX graph cache that head's filled: its kernel is at head_again's line,
    # though the cached stack traces name head's
    head, again = (i + 1 for i, line in enumerate(SCRIPT) if line.strip() == "return torch.tanh(y * 2) + 1")
    by_compile = {k.graph_id.split("/")[1] + "/" + k.graph_id.split("/")[2]: k.lines for k in generated}
    assert by_compile["2/0"] == [head] and by_compile["3/0"] == [again]


def test_every_view_says_a_trace_run_has_no_timings(script_run):
    run, _ = script_run
    summary = summarize(run)
    assert summary["headline"].startswith(NO_TIMINGS)
    assert summary["speedup"] is None and summary["variants"][0]["median_ms"] is None
    assert summary["compile_s"] == run.variants[0].compile_s
    trace = summary["trace"]
    assert trace is not None and trace["no_timings"] == NO_TIMINGS
    assert trace["path"].endswith("script/trace.log.gz") and trace["torch_version"].startswith("2.13")
    text = render_text(run)
    assert text.splitlines()[0].startswith(NO_TIMINGS)
    assert "not timed" not in text and "speedup" not in text and "time per cell line" not in text
    assert "peak memory: not in a TORCH_TRACE" in text
    detail = run_digest(run)  # what the panel's detail reads
    assert detail["guards"] and detail["recompiles"]
    assert NO_TIMINGS in render_report_html(run)
    assert set(figures(run)) >= {"variants", "kernels"}  # the panel's charts: drawn, or empty with why
    assert NO_TIMINGS in json.dumps(mime_bundle(run))


def test_a_trace_run_round_trips_through_its_json(script_run):
    run, _ = script_run
    again = ProfileRun.from_json(run.to_json())
    assert again.imported_trace == run.imported_trace
    assert again.to_dict() == run.to_dict()


# -- a compile that failed ----------------------------------------------------------------------------------


def test_a_trace_whose_compile_failed_opens_failed_with_the_compile_before_it(tmp_path):
    expected = _expected(FIXTURES / "failed" / "expected.json")
    assert expected["error"]  # the script saw its compile fail
    (run,) = import_trace(FIXTURES / "failed" / "trace.log.gz", source_roots=[ROOT])
    assert run.status == "failed"
    error = run.errors[0]
    assert error.stage == "compile" and error.type == expected["error"] == "InductorError"
    assert error.message == "CppCompileError: C++ compile error"
    assert error.line == _line("return torch.relu(y)")  # the first line of the graph Inductor failed on
    assert run.variants[0].error
    assert summarize(run)["headline"].startswith(f"{NO_TIMINGS}; compile failed: InductorError: CppCompileError")
    # Dynamo counts the graphs that compiled; the trace also has the graph Inductor failed on (logged before)
    assert run.dynamo_graph_count == expected["unique_graphs"] + 1
    failed_graph = next(g for g in run.graphs if g.kind == "dynamo" and g.compile_id == "1/0")
    assert "relu" in failed_graph.code
    # the graph before the break compiled: its kernel is there
    assert any(k.language == "cpp" and _line("y = torch.sin(x) + 1") in k.lines for k in run.kernels)
    assert {b.line for b in run.graph_breaks} == {_line('print("between the graphs")')}


# -- a torchrun job -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def job_runs():
    return import_trace(FIXTURES / "job", source_roots=[ROOT])


def test_a_torchrun_jobs_logs_are_one_job_of_its_ranks(job_runs):
    assert [r.distributed.rank for r in job_runs if r.distributed] == [0, 1]
    assert len({r.distributed.job_id for r in job_runs if r.distributed}) == 1
    assert all(r.distributed and r.distributed.world_size == 2 for r in job_runs)
    for run in job_runs:
        assert run.distributed is not None and run.imported_trace is not None
        assert run.imported_trace.rank == run.distributed.rank
        expected = _expected(FIXTURES / "job" / f"expected-rank{run.distributed.rank}.json")
        assert len(run.recompiles) == expected["recompiles"]
        assert run.dynamo_graph_count == expected["unique_graphs"]
        assert run.cache.fx_graph_misses == expected["fx_graph_cache_misses"]
        assert len(run.graph_breaks) == expected["graph_breaks"]  # here Dynamo's "graph_break" counter has them all


def test_a_torchrun_jobs_view_shows_the_rank_that_broke_where_the_other_did_not(job_runs):
    digest = job_digest(job_runs)
    assert digest["headline"].startswith(f"2 ranks: {NO_TIMINGS}")
    assert [d["rank"] for d in digest["divergences"] if d["what"] == "breaks"] == [1]
    print_line = _line('print("rank 1\'s loss", loss.item())')
    rank1 = next(r for r in job_runs if r.distributed and r.distributed.rank == 1)
    rank0 = next(r for r in job_runs if r.distributed and r.distributed.rank == 0)
    assert print_line in {b.line for b in rank1.graph_breaks}
    assert print_line not in {b.line for b in rank0.graph_breaks}
    rows = {row["rank"]: row for row in digest["rows"]}
    assert rows[0]["eager_text"] == "—" and rows[0]["peak_memory_text"] == "—"


def test_import_trace_stores_a_jobs_ranks_and_the_job_command_shows_them(cli):
    code, out, err = cli("import-trace", str(FIXTURES / "job"), "--source-root", str(ROOT))
    assert code == 0, err
    assert out.count("imported run ") == 2 and "rank 0" in out and "rank 1" in out
    job_id = out.split("imported job ")[1].split(":")[0]
    code, out, err = cli("job", job_id)
    assert code == 0, err
    assert NO_TIMINGS in out and "rank 1" in out
    with RunStore(cli.db) as store:
        assert len(store.job(job_id)) == 2


def test_import_trace_of_one_log_then_show_and_ls(cli):
    code, out, err = cli("import-trace", str(RELEASES / "torch-2.6.0" / "trace.log.gz"), "--label", "old torch")
    assert code == 0, err
    assert "torch release not in the trace" in out and "no timings" in out
    run_id = out.split("imported run ")[1].split()[0]
    code, out, _ = cli("show", run_id)
    assert out.splitlines()[0].startswith(NO_TIMINGS)
    code, out, _ = cli("ls")
    assert run_id in out and "old torch" in out


def test_import_trace_of_a_path_without_logs_is_one_line_exit_2(cli, tmp_path):
    code, _, err = cli("import-trace", str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or directory" in err and len(err.strip().splitlines()) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("import-trace", str(empty))
    assert code == 2 and "holds no TORCH_TRACE log" in err
    with pytest.raises(NoTrace):
        import_trace(empty)
    (empty / "torchrun.log").write_text("W1203 launching 2 ranks\nnothing of torch's trace\n")
    code, _, err = cli("import-trace", str(empty))
    assert code == 2 and "holds no TORCH_TRACE record" in err
    shutil.copy(RELEASES / "torch-2.13.0" / "trace.log.gz", empty / "rank.log.gz")  # beside a log of another program
    assert len(import_trace(empty)) == 1


def test_the_python_api_stores_the_runs_it_returns_in_the_panels_store(tmp_path, monkeypatch):
    import compile_profile

    db = tmp_path / "runs.sqlite"
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(db))  # the store the panel reads, as a notebook's kernel has it
    ranks = compile_profile.import_trace(FIXTURES / "job", source_roots=[ROOT])
    assert [r.distributed.rank for r in ranks if r.distributed] == [0, 1]
    with RunStore(db) as store:
        assert store.job(ranks[0].id)[1].id == ranks[1].id
        assert store.get(ranks[1].id, with_artifacts=True).to_dict() == ranks[1].to_dict()
    with pytest.raises(NoTrace, match="holds no TORCH_TRACE record"):
        compile_profile.import_trace(RELEASES / "torch-2.13.0" / "expected.json", db=db)
    (run,) = compile_profile.import_trace(FIXTURES / "script", label="step", db=tmp_path / "other.sqlite")
    assert run.label == "step"
    with RunStore(db) as store, RunStore(tmp_path / "other.sqlite") as other:
        assert store.count() == 2 and [r["id"] for r in other.list()] == [run.id], "nothing stored on a refusal"


def test_a_gzipped_log_cut_short_is_read_up_to_where_it_ends(tmp_path):
    whole = (RELEASES / "torch-2.13.0" / "trace.log.gz").read_bytes()
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    (run,) = import_trace(cut)
    assert run.imported_trace is not None and run.imported_trace.records > 0
    assert run.imported_trace.skipped_lines >= 1


def test_a_trace_whose_script_is_not_on_this_machine_opens_with_its_lines_numbered(monkeypatch):
    import compile_profile.engine.trace.log_import as trace_import

    monkeypatch.setattr(trace_import, "_read_script", lambda script, roots=(): ("", False, ""))
    for log in [FIXTURES / "script" / "trace.log.gz", RELEASES / "torch-2.6.0" / "trace.log.gz"]:
        (run,) = import_trace(log)
        assert run.imported_trace is not None and not run.imported_trace.script_found and run.cell_source == ""
        assert run.graph_breaks and all(b.line is not None and b.code_line == "" for b in run.graph_breaks)
        assert "not found here" in render_text(run)
    assert {b.line for b in run.graph_breaks} >= {35}  # torch 2.6's workload: the print at record.py:35


def test_a_script_recorded_elsewhere_is_read_from_a_source_root_by_the_longest_tail_of_its_path(tmp_path):
    recorded = "/cluster/home/me/repo/train/step.py"
    (tmp_path / "repo" / "train").mkdir(parents=True)
    (tmp_path / "repo" / "train" / "step.py").write_text("x = 1\n")
    (tmp_path / "repo" / "step.py").write_text("not this one\n")
    candidates = script_candidates(recorded, [tmp_path / "repo"])
    assert candidates[0] == Path(recorded)
    found = [c for c in candidates if c.is_file()]
    assert found[0] == tmp_path / "repo" / "train" / "step.py"  # the longer tail before the bare name
    (run,) = import_trace(FIXTURES / "script" / "trace.log.gz", source_roots=[ROOT])
    t = run.imported_trace
    assert t is not None and t.script_found and t.script_read_from == str(FIXTURES / "record.py")
    assert t.files_read == [str(FIXTURES / "record.py")]
    assert f"lines are those of {t.script}; read here: {FIXTURES / 'record.py'}" in render_text(run)
    (unfound,) = import_trace(FIXTURES / "script" / "trace.log.gz", source_roots=[tmp_path])
    assert unfound.imported_trace is not None and not unfound.imported_trace.script_found
