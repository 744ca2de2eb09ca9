"""What an imported TORCH_TRACE's records mean, and how the run words them (issue 32, item 4), held to recorded logs:
``import_trace_fixtures/loop`` (``record_loop.py``: a training loop's value guards on an int and a str, a float on
Dynamo's stack, a size change, restarts of Dynamo's analysis) and its copy cut in the middle of a payload, and the
logs ``test_import_trace.py`` reads.  Nothing here compiles: the tests read logs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from compile_profile.cli import main
from compile_profile.digest.facts import device_text, kernel_count_text
from compile_profile.digest.guards import fix_text, recompiles_brief, run_guards
from compile_profile.digest.summary import summarize
from compile_profile.digest.timeline import compile_timeline
from compile_profile.engine.trace.log_import import import_trace, is_known_kind
from compile_profile.engine.trace.model.torch_kinds import TORCH_WRITES
from compile_profile.profile_run import Device, Recompile
from compile_profile.render.charts import overview_figures
from compile_profile.render.job_report import render_job_report_html
from compile_profile.render.mime import MIME_TYPE
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from compile_profile.store import ImportedRuns, RunStore, put_imported

HERE = Path(__file__).parent
ROOT = HERE.parent
FIXTURES = HERE / "import_trace_fixtures"
LOOP = FIXTURES / "loop" / "trace.log.gz"
LOOP_SCRIPT = (FIXTURES / "record_loop.py").read_text().splitlines()
ALL_LOGS = [
    *sorted((HERE / "trace_fixtures").glob("torch-*/trace.log.gz")),
    *sorted(FIXTURES.glob("*/*.log.gz")),
]


def _line(code: str) -> int:
    """The line of record_loop.py whose code starts with ``code`` (not the docstring that quotes it)."""
    return next(i for i, line in enumerate(LOOP_SCRIPT, 1) if line.strip().startswith(code))


@pytest.fixture(scope="module")
def loop_run():
    (run,) = import_trace(LOOP, source_roots=[ROOT])
    return run


# -- a recompile at the line of the guard that failed ------------------------------------------------------------


def test_a_recompile_is_at_the_line_of_the_guard_that_failed_not_the_first_line_naming_the_variable(loop_run):
    by_source = {r.source: r for r in loop_run.recompiles}
    assert by_source["step"].line == _line("if step % 2 == 0:") != _line("def log_loss(step, loss, tag):")
    assert by_source["tag"].line == _line('if tag == "train":')
    assert by_source["x"].line == _line("loss = (x * 2).sum()")  # a size mismatch names no stack: x's guard's line
    # the Guards view gives the failed entry's guard on that value the same line
    guard_lines = {
        (gg.compile_id, group.source): group.line
        for gg in run_guards(loop_run)
        for group in gg.groups
        if group.kind in ("value", "tensor")
    }
    assert guard_lines[("0/0", "step")] == by_source["step"].line
    assert guard_lines[("1/0", "x")] == by_source["x"].line
    # as Dynamo's own recompile log places them
    log = json.loads((FIXTURES / "loop" / "expected.json").read_text())["recompile_log"]
    assert any(f"record_loop.py:{by_source['step'].line} in log_loss" in m for m in log)


# -- advice chosen by the value's type ----------------------------------------------------------------------------


def test_advice_is_chosen_by_the_values_type_and_none_is_given_where_none_applies(loop_run):
    by_source = {r.source: r for r in loop_run.recompiles}
    step, tag, stacked = fix_text(by_source["step"]), fix_text(by_source["tag"]), fix_text(by_source["___stack2"])
    assert "0-dim torch.tensor" in step and "dynamic=True" in step  # an int the user passes
    assert "tensor" not in tag and "outside the compiled function" in tag and "recompile_limit" in tag  # a str
    assert "dynamic=True" in stacked and "pass it as a tensor" not in stacked  # a float on Dynamo's stack
    assert "mark_dynamic(x, 0)" in fix_text(by_source["x"])

    def value(expected: str, **kw) -> str:
        return fix_text(Recompile(reason="", source=kw.pop("source", "flag"), change="value", expected=expected, **kw))

    assert "outside the compiled function" in value("True") and "tensor" not in value("None")
    assert "0-dim torch.tensor" in value("0.5") and "0-dim torch.tensor" not in value("3", frame="forward")
    assert value("") == "" and value("<object at 0x1>") == ""  # nothing known: no advice
    enum = Recompile(reason="0/0: ___check_obj_id(mode, 1403), type=<class 'Mode'>", source="mode", change="identity")
    assert "outside the compiled function" in fix_text(enum)


def test_the_card_words_each_kind_of_recompile_with_its_count_not_the_first_ones_words_for_all(loop_run):
    said = next(w for w in summarize(loop_run)["warnings"] if w.startswith("5 recompiles"))
    assert f"2× step (record_loop.py line {_line('if step % 2 == 0:')}) changed value" in said
    assert "tag (record_loop.py line" in said and "a value on the stack" in said
    assert "1 more" in said  # x's size change, the fourth kind, counted
    every = recompiles_brief(loop_run.recompiles[-1:], "record_loop.py")
    assert "x (record_loop.py line" in every and "changed dim 0: 16 → 32" in every


# -- one compile time per compile id ------------------------------------------------------------------------------


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: f"{p.parent.name}/{p.name[:24]}")
def test_the_summary_and_the_timeline_give_one_compile_time(log):
    for run in import_trace(log, source_roots=[ROOT]):
        timeline = compile_timeline(run)
        if timeline is None:
            continue
        assert (summarize(run)["compile_s"] or 0.0) == pytest.approx(sum(r.total_s for r in timeline.rows))


# -- the kinds torch writes ---------------------------------------------------------------------------------------


def test_every_kind_the_installed_torch_writes_is_known():
    import torch
    from torch_trace_kinds import written_kinds

    written = written_kinds(Path(torch.__file__).parent)
    assert "dynamo_side_effects" in written and is_known_kind("dynamo_side_effects")
    unknown = sorted(k for k in written if not k.startswith("<") and not is_known_kind(k))
    assert unknown == [], unknown
    assert {"str", "describe_tensor", "fx_graph_runnable"} <= TORCH_WRITES
    assert is_known_kind("step_ORIGINAL_BYTECODE") and is_known_kind("normalization_pass_pre_grad")
    assert not is_known_kind("a_newer_event")


@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: f"{p.parent.name}/{p.name[:24]}")
def test_no_kind_a_supported_release_wrote_is_counted_as_unknown(log):
    for run in import_trace(log, source_roots=[ROOT]):
        assert run.imported_trace is not None and run.imported_trace.unknown_events == {}


# -- restarts -----------------------------------------------------------------------------------------------------


def test_restarts_are_shown_as_tlparse_shows_them(loop_run):
    rows = {r.compile_id: r for r in compile_timeline(loop_run).rows}
    assert rows["2/1"].restart_text.startswith("[2/1_2] after 2 restarts: ")
    assert "TensorifyScalarRestartAnalysis" in rows["2/1"].restart_text
    assert rows["4/0"].restart_text == "[4/0_1] after 1 restart: Failed to trace builtin operator"  # the no_grad
    assert rows["0/0"].restart_text == ""
    text = render_text(loop_run)
    assert "restarted: [2/1_2] after 2 restarts" in text and "compiles restarted Dynamo's analysis" in text
    assert "[2/1_2] after 2 restarts" in render_report_html(loop_run)


def test_a_dropped_attempts_cache_lookups_leave_with_its_graph(loop_run):
    # 2/1's first attempt output a graph and missed the AOTAutograd cache, then Dynamo restarted it
    lookups = [c for c in loop_run.variants[0].cache_lookups if c.compile_id == "2/1" and c.cache == "aot_autograd"]
    graphs = [g for g in loop_run.graphs if g.compile_id == "2/1" and g.kind == "dynamo"]
    assert len(graphs) == 1 and len(lookups) == 1
    aot = [c for c in loop_run.variants[0].cache_lookups if c.cache == "aot_autograd"]
    assert loop_run.cache.aot_autograd_misses + loop_run.cache.aot_autograd_hits == len(aot)


# -- kernels, device ----------------------------------------------------------------------------------------------


def test_kernels_are_counted_as_generated_and_library_calls_apart():
    (run,) = import_trace(HERE / "trace_fixtures" / "torch-2.13.0" / "trace.log.gz")
    generated = sum(1 for k in run.kernels if k.language != "extern")
    calls = sum(1 for k in run.kernels if k.language == "extern")
    assert generated and calls
    assert kernel_count_text(run) == f"{generated} generated kernels (cpp), {calls} library calls"
    assert summarize(run)["kernel_text"] == kernel_count_text(run)
    assert f"kernels: {kernel_count_text(run)}" in render_text(run)
    assert f"{len(run.kernels)} kernel" not in render_text(run)


def test_a_device_without_a_name_reads_as_its_type(loop_run):
    assert device_text(Device(type="cpu", name="")) == "cpu" and summarize(loop_run)["device_text"] == "cpu"
    assert device_text(Device(type="cuda", name="NVIDIA H200")) == "cuda (NVIDIA H200)"
    assert "cpu ()" not in render_text(loop_run) and "cpu ()" not in render_report_html(loop_run)


# -- a failed trace's reproducer ----------------------------------------------------------------------------------


def test_a_failed_traces_reproducer_is_its_own_fx_graph_runnable_marked_as_imported(tmp_path, capsys):
    log = FIXTURES / "failed" / "trace.log.gz"
    (run,) = import_trace(log, source_roots=[ROOT])
    script = run.errors[0].reproducer
    assert script.startswith(f"# A reproducer imported from the TORCH_TRACE {log.resolve()}")
    assert "written by compile-profile" not in script and "CppCompileError" in script
    assert "torch 2.13.0" in script and "run_repro" in script  # torch's own runnable, of the torch that wrote it
    db = str(tmp_path / "runs.sqlite")
    assert main(["--db", db, "import-trace", str(log), "--source-root", str(ROOT)]) == 0
    run_id = capsys.readouterr().out.split("imported run ")[1].split()[0]
    assert main(["--db", db, "repro", run_id]) == 0
    assert capsys.readouterr().out == script
    with RunStore(db) as store:  # a run whose trace logged no runnable says so, not "failed in Dynamo"
        stored = store.get(run_id)
        stored.errors[0].reproducer = ""
        store.put(stored)
    assert main(["--db", db, "repro", run_id]) == 2
    err = capsys.readouterr().err
    assert "holds no fx_graph_runnable" in err and "Dynamo or AOTAutograd" not in err


# -- the same log twice; what import_trace() returns -----------------------------------------------------------------


def test_the_same_log_imported_twice_is_one_run(tmp_path, capsys):
    with RunStore(tmp_path / "runs.sqlite") as store:
        first = put_imported(store, import_trace(FIXTURES / "job", source_roots=[ROOT]))
        again = put_imported(store, import_trace(FIXTURES / "job", source_roots=[ROOT]))
        assert store.count() == 2 and [r.id for r in again] == [r.id for r in first]
        assert again.already == {r.id for r in first} and first.already == set()
        assert "already imported" in repr(again)
    db = str(tmp_path / "cli.sqlite")
    assert main(["--db", db, "import-trace", str(LOOP)]) == 0
    capsys.readouterr()
    assert main(["--db", db, "import-trace", str(LOOP), "--label", "again"]) == 0
    assert "was already imported from a log of the same content" in capsys.readouterr().out
    with RunStore(db) as store:
        assert store.count() == 1


def test_import_trace_shows_as_the_runs_cards(tmp_path):
    import compile_profile

    one = compile_profile.import_trace(LOOP, db=tmp_path / "runs.sqlite")
    assert isinstance(one, ImportedRuns) and isinstance(one, list)
    bundle = one._repr_mimebundle_()
    assert bundle[MIME_TYPE]["run_id"] == one[0].id and "text/html" in bundle
    job = compile_profile.import_trace(FIXTURES / "job", db=tmp_path / "runs.sqlite", source_roots=[ROOT])
    both = job._repr_mimebundle_()
    assert MIME_TYPE not in both and all(r.id in both["text/html"] for r in job)


# -- the job report; a trace run's report ---------------------------------------------------------------------------


def test_the_job_report_fits_its_columns_and_says_whose_error_a_row_is():
    from compile_profile.digest.job import job_digest_of

    runs = import_trace(FIXTURES / "job", source_roots=[ROOT])
    runs[1].errors = []
    digest = job_digest_of(runs)
    digest.rows[1].error_text = "InductorError: <b>boom</b>"
    page = render_job_report_html(digest)
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    assert heads[0] == "rank" and heads[-1] == "diverges"
    assert "eager" not in heads and "peak memory" not in heads  # no rank of a trace has a value there
    assert "overflow-x:auto" in page
    assert "rank 1 error: InductorError: &lt;b&gt;boom&lt;/b&gt;" in page
    assert f'colspan="{len(heads)}"' in page


def test_a_trace_runs_report_draws_no_timing_charts(loop_run):
    assert overview_figures(loop_run) == ["compile_timeline"]
    page = render_report_html(loop_run)
    assert 'data-figure="variants"' not in page and 'data-figure="samples"' not in page
    assert 'data-figure="compile_timeline"' in page


# -- a log cut in the middle of a payload ---------------------------------------------------------------------------


def test_a_log_cut_in_the_middle_of_a_payload_opens():
    (run,) = import_trace(FIXTURES / "truncated" / "trace.log.gz", source_roots=[ROOT])
    assert run.imported_trace is not None and run.imported_trace.records > 0
    assert run.graphs and not run.kernels  # the output module it was cut in gives no kernel


def test_migration_4_files_each_imported_run_under_its_logs_hash(tmp_path):
    import sqlite3

    from compile_profile.store import SCHEMA_VERSION
    from synthetic_store_runs import back_to_schema

    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        (run,) = put_imported(store, import_trace(LOOP))
    with sqlite3.connect(db) as conn:
        back_to_schema(conn, 3)
    with RunStore(db) as store:
        again = put_imported(store, import_trace(LOOP))
        assert [r.id for r in again] == [run.id] and store.count() == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
