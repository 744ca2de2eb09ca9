"""Notebook 02 (graph breaks and recompiles) runs top to bottom on CPU, and its profiles find the breaks at their lines,
the recompiles with their causes, and a script's TORCH_TRACE imported as a run (tests/notebook_runs.py runs it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from notebook_runs import check_runs_cleanly_and_every_profile_is_ok

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", ["02_graph_breaks_and_recompiles"])
def test_notebook_runs_cleanly_and_every_profile_is_ok(executed, name):
    check_runs_cleanly_and_every_profile_is_ok(executed(name))


def test_02_graph_breaks_are_found_at_their_lines_and_fixed(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    broken, fixed = ran.runs["graph breaks: before"], ran.runs["graph breaks: after"]
    by_line = {b.line: b for b in broken.graph_breaks}
    assert sorted(by_line) == [3, 4, 6]
    assert by_line[3].code_line.startswith("print(") and "print" in by_line[3].reason
    assert by_line[4].code_line == "if h.sum() > 0:" and "data-dependent" in by_line[4].reason.lower()
    assert ".item()" in by_line[6].code_line and "item" in by_line[6].reason
    assert broken.dynamo_graph_count == len(broken.graph_breaks) + 1
    assert not fixed.graph_breaks and fixed.dynamo_graph_count == 1
    assert len(fixed.kernels) < len(broken.kernels)
    assert fixed.correctness.ok is True and broken.correctness.ok is True
    printed = ran.stdout("for b in broken.graph_breaks")
    assert "cell line 3: print(" in printed and "cell line 6: scale = h.abs().max().item()" in printed
    # what to change first: the breaks are the user's own, and the ranked list is the digest's
    diagnosed = ran.stdout("from compile_profile.digest.diagnosis import")
    assert diagnosed.startswith("3 graph breaks - line 3: yours, line 4: yours, line 6: yours\n")
    assert diagnosed.splitlines()[1] == diagnosis_heading(broken)
    assert diagnosed.splitlines()[2:] == [f" - {cause_text(c)}" for c in diagnosis(broken)]
    assert any(c.kind == "compile" for c in diagnosis(broken)), "four graphs' compile time, paid once"


def test_02_a_shape_change_recompiles_unless_shapes_are_dynamic(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    static, dynamic = ran.runs["ragged batches: static"], ran.runs["ragged batches: dynamic"]
    for run in (static, dynamic):
        assert [b.line for b in run.graph_breaks] == [2], "next() on the cycle stays in Python"
    assert static.variant("inductor/default/static").dynamic is False
    mismatch = [
        re.search(r"size mismatch at index 0\. expected (\d+), actual (\d+)", r.reason) for r in static.recompiles
    ]
    assert any(mismatch), [r.reason for r in static.recompiles]
    expected, actual = (int(n) for n in next(m for m in mismatch if m).groups())
    batch_inputs = [re.findall(r'"f32\[(\d+), ', g.code) for g in static.graphs if g.kind == "dynamo"]
    assert len(batch_inputs) == 2, "one static graph per batch size"
    assert str(expected) in batch_inputs[0] and str(actual) in batch_inputs[1]
    printed = ran.stdout("from compile_profile.digest.guards import recompile_text")
    assert f"f32[{expected}, " in printed and f"f32[{actual}, " in printed
    # the recompile in the user's words: Dynamo's stack slot named back to xb, what changed, the fix
    assert f"recompile: xb, what next(batches) returned at cell line 2, changed dim 0: {expected} → {actual}" in printed
    assert "fix: compile with dynamic=True" in printed
    assert not dynamic.recompiles
    aten = next(g for g in dynamic.graphs if g.kind == "aot_inference")
    assert "Sym(s" in aten.code
    assert "Sym(s" in ran.stdout('print(f"recompiles: static')


def test_02_over_an_epochs_batches_the_short_one_recompiles_and_each_is_compared_on_itself(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    run = ran.runs["ragged batches: over an epoch"]
    sequence = run.inputs
    assert sequence is not None and sequence.count == 4 and len(sequence.signatures) == 2
    assert [r.input for r in run.recompiles] == [3], "the fourth batch, the short one, recompiles under --static"
    assert run.correctness is not None and run.correctness.ok is True
    printed = ran.stdout("from compile_profile.digest.inputs import inputs_summary")
    assert printed.startswith("4 inputs, 2 signatures: ")
    assert "batch 4 recompiled: xb (cell line 2) changed dim 0:" in printed
    assert "compiled matches eager on each of the 4 inputs, each compared on the same input" in printed


def test_02_a_scripts_torch_trace_imports_as_a_run_with_its_breaks_recompile_and_timeline(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    assert list(ran.imported) == ["TORCH_TRACE of train.py"]
    run = ran.imported["TORCH_TRACE of train.py"]
    trace = run.imported_trace
    assert trace is not None and trace.rank is None and "trace" in Path(trace.path).parts
    assert run.status == "ok" and not run.errors and run.notebook == ""
    assert run.speedup is None and [v.timing for v in run.variants] == [None], "a trace times nothing"
    script = Path(trace.path).parents[1] / "train.py"
    assert run.cell_source == script.read_text(), "the script stands for the cell"
    branch = next(i for i, line in enumerate(run.cell_source.splitlines(), 1) if line.startswith("    if loss > 1:"))
    assert {b.line for b in run.graph_breaks} == {branch} and "data-dependent" in run.graph_breaks[0].reason
    assert {"dynamo", "aot_forward", "aot_backward"} <= {g.kind for g in run.graphs}
    (recompile,) = run.recompiles
    assert "size mismatch at index 0. expected 16, actual 7" in recompile.reason
    assert any(k.language == "cpp" for k in run.kernels)
    printed = ran.stdout("from compile_profile.digest.timeline import compile_timeline")
    assert f"train.py line {branch}: if loss > 1:  # a branch on a tensor's value: a graph break (2 breaks, yours)" in (
        printed
    ), "the first compile's break and the recompile's, counted once"
    defined = next(i for i, line in enumerate(run.cell_source.splitlines(), 1) if line.startswith("def loss_of("))
    assert f"recompile: xb (cell line {defined}) changed dim 0: 16 → 7" in printed
    rows = [line for line in printed.splitlines() if line.startswith("  [")]
    assert len(rows) >= 2 and rows[-1].split("]")[1].startswith(" recompile: "), printed
    assert "4 steps, last loss" in ran.stdout("import os\nimport subprocess")
