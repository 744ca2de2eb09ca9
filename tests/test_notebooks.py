"""The example notebooks run top to bottom on CPU, and their profiles show what each one teaches: 01 and 03-07 here,
02, 08 and 09 in test_notebook_02/08/09.py (a module to a pytest-xdist worker; tests/notebook_runs.py runs them)."""

from __future__ import annotations

import re

import pytest
from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from compile_profile.digest.recommendation import same_kernels
from notebook_runs import NAMES, NOTEBOOKS, SINGLE_PROCESS, check_runs_cleanly_and_every_profile_is_ok

pytestmark = pytest.mark.slow


def test_notebooks_are_the_seven_of_the_issue_the_distributed_one_and_the_suite():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", [n for n in SINGLE_PROCESS if n != "02_graph_breaks_and_recompiles"])
def test_notebook_runs_cleanly_and_every_profile_is_ok(executed, name):
    check_runs_cleanly_and_every_profile_is_ok(executed(name))


def test_01_quickstart_reads_the_card_and_hits_the_cache(executed):
    ran = executed("01_quickstart")
    first, again = ran.runs["quickstart: MLP"], ran.runs["quickstart: MLP, again"]
    assert first.dynamo_graph_count == 1 and not first.graph_breaks
    assert {g.kind for g in first.graphs} >= {"dynamo", "aot_inference"}
    languages = {k.language for k in first.kernels}
    assert {"cpp", "extern"} <= languages
    assert first.correctness.ok is True
    # the same cell again: Inductor's FX graph cache serves it
    assert again.cache.fx_graph_hits >= 1 and again.cache.fx_graph_misses == 0
    assert [k.name for k in again.kernels] == [k.name for k in first.kernels]
    printed = ran.stdout('eager = run.variant("eager")')
    assert f"speedup {first.speedup.value:.2f}x" in printed
    assert "warm cache" in ran.stdout("first, second =")


def test_03_training_step_has_forward_backward_and_optimizer_graphs(executed):
    ran = executed("03_training_step")
    step = ran.runs["training step"]
    kinds = {g.id: g.kind for g in step.graphs}
    assert {"dynamo", "aot_forward", "aot_backward", "aot_inference"} <= set(kinds.values())
    forward = next(g for g in step.graphs if g.kind == "aot_forward")
    backward = next(g for g in step.graphs if g.kind == "aot_backward")
    assert forward.lines == [3] and backward.lines == [3], "forward and loss come from cell line 3"
    assert "aten.mm" in backward.op_counts, "weight gradients are matrix products"
    by_kind = {kind: [k for k in step.kernels if kinds.get(k.graph_id) == kind] for kind in set(kinds.values())}
    assert any(k.language == "cpp" for k in by_kind["aot_forward"])
    backward_cpp = [k for k in by_kind["aot_backward"] if k.language == "cpp"]
    # Inductor names a fused kernel after the ATen ops it came from, gradient formulas included
    assert backward_cpp and any("backward" in k.name for k in backward_cpp)
    assert all(k.aten_ops for k in backward_cpp)
    assert any(k.language == "extern" for k in by_kind["aot_backward"])
    optimizer_graph = next(g for g in step.graphs if g.kind == "aot_inference")
    assert optimizer_graph.lines == [], "the optimizer's ops come from torch/optim, not the cell"
    assert by_kind["aot_inference"], "the parameter update is compiled too"
    assert {b.line for b in step.graph_breaks} <= {2, 4, 5} and 4 in {b.line for b in step.graph_breaks}
    assert step.correctness.ok is True and "loss" in step.correctness.compared
    assert any(note.kind == "state_restored" for note in step.notes)
    # the breaks are PyTorch's own by design, said so, and backward()'s names compiled autograd
    owners = ran.stdout("from compile_profile.digest.breaks import break_count_text")
    assert owners.splitlines()[0].endswith("all PyTorch's own by design"), owners
    assert "compiled_autograd" in owners and "[yours]" not in owners
    diagnosed = ran.stdout("from compile_profile.digest.diagnosis import")
    assert diagnosed.splitlines() == [diagnosis_heading(step)] + [f" - {cause_text(c)}" for c in diagnosis(step)]


def test_04_ops_decompose_and_fuse_into_one_kernel(executed):
    ran = executed("04_decomposition_and_fusion")
    run, split = ran.runs["decomposition and fusion"], ran.runs["fusion split by a graph break"]
    assert run.dynamo_graph_count == 1 and not run.graph_breaks
    dynamo = next(g for g in run.graphs if g.kind == "dynamo")
    aten = next(g for g in run.graphs if g.kind == "aot_inference")
    assert "torch.nn.functional.layer_norm" in dynamo.op_counts
    # decomposition: the composite ops are gone, their primitive pieces are there
    assert not {"aten.native_layer_norm", "aten.gelu", "aten._softmax"} & set(aten.op_counts)
    assert {"aten.rsqrt", "aten.erf", "aten.amax", "aten.exp"} <= set(aten.op_counts)
    assert sum(aten.op_counts.values()) > 2 * sum(dynamo.op_counts.values())
    generated = [k for k in run.kernels if k.language == "cpp"]
    assert len(generated) == 1 and len(generated[0].aten_ops) >= 4 and generated[0].lines == [3, 4, 5]
    externs = [k for k in run.kernels if k.language == "extern"]
    assert [k.lines for k in externs] == [[2]], "the matrix product is a library call of its own"
    # a graph break splits the fused kernel in two
    assert [b.line for b in split.graph_breaks] == [4]
    split_generated = [k for k in split.kernels if k.language == "cpp"]
    assert len(split_generated) == 2
    assert sorted(k.lines for k in split_generated) == [[3], [5, 6]]
    printed = ran.stdout("for name, r in")
    assert "one graph  : 1 graph(s), 1 generated kernel(s)" in printed
    assert "graph break: 2 graph(s), 2 generated kernel(s)" in printed


def test_05_attention_variants_and_the_sdpa_backend(executed):
    ran = executed("05_attention")
    manual, sdpa = ran.runs["attention: hand-written"], ran.runs["attention: sdpa"]
    assert [k.name for k in manual.kernels if k.language == "extern"] == ["extern_kernels.bmm"] * 2
    softmax_kernel = next(k for k in manual.kernels if k.language == "cpp")
    assert softmax_kernel.lines == [2, 3], "scaling and softmax fuse between the two products"
    sdpa_aten = next(g for g in sdpa.graphs if g.kind == "aot_inference")
    assert "aten._scaled_dot_product_flash_attention_for_cpu" in sdpa_aten.op_counts
    assert not any("scaled_dot_product" in op for g in manual.graphs for op in g.op_counts)
    assert manual.correctness.ok is True and sdpa.correctness.ok is True
    backends = ran.stdout("import contextlib")
    assert "default choice on cpu: ['aten::_scaled_dot_product_flash_attention_for_cpu']" in backends
    assert re.search(r"EFFICIENT_ATTENTION\s+-> not available here", backends)
    assert re.search(r"MATH\s+-> \[.*'aten::_scaled_dot_product_attention_math'", backends)
    table = ran.stdout("def median(")
    for row in ("hand-written, eager", "hand-written, compiled", "SDPA, eager", "SDPA, compiled"):
        assert row in table


def test_06_sweeps_compare_modes_and_recommend_one(executed):
    ran = executed("06_modes")
    for label in ("modes: CNN", "modes: transformer block"):
        run = ran.runs[label]
        compiled = [v.name for v in run.compiled_variants]
        assert compiled == ["inductor/default", "inductor/max-autotune-no-cudagraphs"], "the CPU sweep's modes"
        assert all(v.compile_s and v.compile_s > 0 for v in run.compiled_variants)
        assert {k.variant for k in run.kernels} == set(compiled), "each mode generated its own kernels"
        r = run.recommendation
        assert r is not None and r.variant == run.speedup.variant and r.call.startswith("torch.compile(model")
        assert r.runner_up in compiled and r.runner_up != r.variant and r.margin >= 1
        advice = run.summary()["recommendation"]
        # a mode is recommended only beyond the noise; otherwise the plain call
        assert advice["measurable"] == (r.margin_low > 1 and not same_kernels(run, r.variant, r.runner_up))
        assert advice["call"] == (r.call if advice["measurable"] else "torch.compile(model)")
        assert f"recommended: {advice['call']}\n  {advice['text']}" in ran.stdout(
            "def mode_table(" if label == "modes: CNN" else "mode_table(block_sweep)"
        )
        assert run.correctness.ok is True


def test_07_says_why_triton_is_skipped_and_profiles_inductor(executed):
    ran = executed("07_custom_triton_kernel")
    assert "Hand-written Triton kernel skipped: no CUDA device" in ran.stdout("import importlib.util")
    assert "skipped" in ran.stdout("handwritten = None")
    assert set(ran.runs) == {"softmax: Inductor"}, "no hand-written profile without a GPU"
    generated = ran.runs["softmax: Inductor"]
    cpp = [k for k in generated.kernels if k.language == "cpp"]
    assert len(cpp) == 1 and "#pragma omp" in cpp[0].source
    assert any("softmax" in op or op in ("aten.amax", "aten.exp") for op in cpp[0].aten_ops)
    assert "torch.softmax, Inductor (cpp)" in ran.stdout("rows = []")
    assert cpp[0].source[:200] in ran.stdout("import inspect")
