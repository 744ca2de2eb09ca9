"""What costs the compiled cell time, ranked (``digest.diagnosis``): each cause read off what the run measured,
largest first, per-call causes before one-time ones, nothing below the timer's noise, nothing from a profiler
pass that cannot be trusted; and a real cell whose graph break costs time puts that line first."""

from __future__ import annotations

import dataclasses

import pytest
from compile_profile.digest import run_digest, summarize
from compile_profile.digest.breakdown import breakdown, breakdown_row
from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from compile_profile.profile_run import EagerLineTime, GraphBreak, Kernel, Note, Recompile
from render_fixtures import cpu_run, cuda_run


def _with_break_at_print(run):
    """cpu_run whose compiled variant ran line 5's print eagerly, 2.5 ms a call, after a break there."""
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.eager_lines = [EagerLineTime(line=5, time_ms=2.5, ops=["aten::sum", "aten::_local_scalar"])]
    run.graph_breaks = [GraphBreak(reason="builtin: print", line=5, code_line="print(y.sum())", variant=compiled.name)]
    return run


def test_a_line_run_eagerly_inside_the_compiled_variant_is_a_cause_with_its_cost_and_its_break():
    causes = diagnosis(_with_break_at_print(cpu_run()))
    first = causes[0]
    assert first.kind == "eager_region" and first.line == 5 and first.owner == "yours"
    call = run_call_ms = cpu_run().variant("inductor/default").timing.median_ms
    assert first.cost_ms == 2.5 and first.cost_text == f"2.5 ms a call ({2.5 / call:.0%} of the call)", run_call_ms
    assert first.title.startswith("line 5: print(y.sum()) runs eagerly inside the compiled variant (sum, ")
    assert first.action == "remove the graph break here (builtin: print)"


def test_per_call_causes_come_largest_first_then_the_one_time_ones():
    causes = diagnosis(_with_break_at_print(cpu_run()))
    per_call = [c for c in causes if c.cost_ms is not None]
    once = [c for c in causes if c.cost_s is not None]
    assert causes == per_call + once and per_call and once
    assert [c.cost_ms for c in per_call] == sorted((c.cost_ms for c in per_call), reverse=True)
    assert [c.kind for c in once] == ["compile"]


def test_a_fused_optimizers_eager_region_says_fused_false_compiles_it():
    run = cpu_run()
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.eager_lines = [EagerLineTime(line=6, time_ms=3.0, ops=["aten::_fused_adamw_"])]
    site = "/usr/lib/python3.11/site-packages/torch/optim/adam.py"
    run.graph_breaks = [
        GraphBreak(reason="skip: don't trace into fused optimizer", line=6, filename=site, variant=compiled.name)
    ]
    (cause,) = [c for c in diagnosis(run) if c.kind == "eager_region"]
    # the fused step runs outside the graph by design, but fused=False is a change in the user's code that compiles
    # it (issue 31: "nothing to change in your code" was said)
    assert cause.owner == "pytorch" and "nothing to change in your code" not in cause.action
    assert "with fused=False (foreach) torch.compile compiles the update into the graph" in cause.action
    run.graph_breaks[0].reason = "skip: `Optimizer.zero_grad` should not be traced"
    (cause,) = [c for c in diagnosis(run) if c.kind == "eager_region"]
    assert "nothing to change in your code" in cause.action


def test_kernel_groups_longer_than_eagers_are_causes_costing_what_they_grew_by():
    run = cuda_run()
    eager = run.eager.kernel_profile.breakdown
    eager.library_ms, eager.aten_ms = 0.5, 0.1  # compiled's: library 969 µs, generated, ATen and copies 492 µs
    causes = {c.kind: c for c in diagnosis(run)}
    library, others = causes["library_slower"], causes["kernels_slower"]
    assert library.title == "library kernels (matmul, convolution, attention) take 969 µs against eager's 500 µs"
    assert library.cost_ms == pytest.approx(0.96875 - 0.5) and "max-autotune" in library.action
    assert others.title == "generated, ATen and copy kernels take 492 µs against eager's 108 µs"
    assert others.cost_ms == pytest.approx(0.4921875 - 0.1078125) and "Kernels tab" in others.action
    eager.library_ms = 0.96875  # no longer than eager's: no cause
    assert "library_slower" not in {c.kind for c in diagnosis(run)}


def test_a_cause_below_the_timers_spread_is_left_out():
    run = _with_break_at_print(cpu_run())
    run.variant("inductor/default").kernel_profile.eager_lines[0].time_ms = 0.01  # the samples spread ~0.6 ms
    assert not [c for c in diagnosis(run) if c.kind == "eager_region"]


def test_a_withheld_profiler_pass_gives_no_per_call_cause():
    run = _with_break_at_print(cpu_run())
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.preempted_calls = compiled.kernel_profile.calls  # every profiled call waited
    assert [c.kind for c in diagnosis(run)] == ["compile"]
    # the heading says why the list stops there, so it is not read as the whole answer
    heading = diagnosis_heading(run)
    assert "; where each call's time goes is not measured: " in heading
    assert heading.endswith(breakdown_row(compiled).withheld_text) and breakdown_row(compiled).withheld_text


def test_an_uncalibrated_inflated_profiled_call_is_named_in_the_heading_and_its_rows_are_shares():
    run = _with_break_at_print(cpu_run())  # stored before the profiler's cost was calibrated
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.profiled_call_ms = 60 * compiled.timing.median_ms  # the profiler's own cost
    assert [c.kind for c in diagnosis(run)] == ["compile"]
    assert diagnosis_heading(run).endswith(
        "not measured: inductor/default's profiler pass is withheld: a profiled call ran 60.00× the timed one and "
        "this run did not measure the profiler's cost per op, which lands in the ops' host times; its kernels and "
        "lines show shares of the pass's time"
    )
    # the heading and the table agree: the row it denies shows shares, never times
    row = breakdown_row(compiled)
    assert not row.trusted and row.part_text("generated").endswith("of pass") and row.part_text("outside") == "—"


def test_a_quick_profile_says_no_profiler_pass_ran():
    run = cpu_run()
    for v in run.variants:
        v.kernel_profile = None
    run.notes.append(Note("quick_profile"))
    assert diagnosis_heading(run).endswith(
        "; where each call's time goes is not measured: no profiler pass ran (--quick)"
    )


def test_a_diagnosis_with_per_call_causes_has_a_plain_heading():
    run = _with_break_at_print(cpu_run())
    assert diagnosis(run)[0].kind == "eager_region"
    assert "not measured" not in diagnosis_heading(run)


def test_ateN_kernels_left_in_the_graph_are_a_cause_with_their_time():
    run = cuda_run()
    best = run.speedup.variant
    run.kernels.append(
        Kernel(name="aten.sort.default", language="extern", source="", graph_id="g", variant=best, kind="aten")
    )
    run.kernels[-1].device_time_ms = 0.4
    (cause,) = [c for c in diagnosis(run) if c.kind == "fallback_kernels"]
    assert cause.cost_ms == pytest.approx(0.4) and "aten.sort.default" in cause.title


def test_recompiles_are_a_one_time_cost_with_the_guard_that_failed():
    run = cuda_run()
    best = run.variant(run.speedup.variant)
    best.recompile_s = 3.0
    run.recompiles = [Recompile(reason="size mismatch at index 0", variant=best.name, source="L['x']", line=2)]
    (cause,) = [c for c in diagnosis(run) if c.kind == "recompiles"]
    assert cause.cost_s == 3.0 and cause.cost_text == "3 s once"
    assert cause.title == "1 recompile: the guard on x (cell line 2) failed" and cause.line == 2
    # with no fix to name, it points to the tab that names the guard and its graph's guards (a Hugging Face generate
    # card pointed to the Compile tab for guards only the Guards tab names)
    assert cause.action.startswith("the Guards tab names the guard that failed")
    r = run.recompiles[0]
    r.change, r.dim, r.expected, r.actual = "size", 0, "1024", "2048"
    (cause,) = [c for c in diagnosis(run) if c.kind == "recompiles"]
    assert cause.title.startswith("1 recompile: x (cell line 2) changed dim 0") and "fix" not in cause.title
    assert "dynamic=True" in cause.action


def test_the_card_summary_and_the_detail_carry_the_same_ranked_list_and_the_text_view_says_it_first():
    run = _with_break_at_print(cpu_run())
    listed = summarize(run)["diagnosis"]
    assert listed == run_digest(run)["diagnosis"] == [dataclasses.asdict(c) for c in diagnosis(run)]
    text = str(run).splitlines()
    assert text[2].startswith("what costs the compiled cell time, largest first (compiled is 1.05× slower")
    assert text[3] == f"  1. {cause_text(diagnosis(run)[0])}"


@pytest.mark.compiles
@pytest.mark.alone  # the break's share of the call: 41 % beside other work, above half alone (1 of 2 runs failed)
def test_a_real_cells_graph_break_is_named_where_its_time_goes(tmp_path):
    """A cell whose print of a tensor's value breaks the graph: the Python between its two graphs costs the
    compiled call most of its time, and the cause names the break's line and reason."""
    import compile_profile

    def cell(x):
        y = torch.relu(x @ x) + 1
        print(float(y.sum()) > 0, file=open(tmp_path / "out.txt", "w"))
        return (y * 2).softmax(-1)

    import torch

    run = compile_profile.profile(cell, torch.randn(256, 256), budget=0.5)
    assert run.graph_breaks, "print of a Python value breaks the graph"
    causes = diagnosis(run)
    said = [cause_text(c) for c in causes]
    rows = {r.variant: r for r in breakdown(run)}
    if not all(r.trusted for r in rows.values()):
        # a busy machine preempted the profiled calls (another process on CI's 2 cores): their times are not
        # this call's, and the diagnosis says nothing per call read off them rather than something wrong (the
        # busy machine itself, measured apart from the pass, may be a cause)
        assert [c.cost_ms for c in causes if c.kind != "host_contention"] == [None] * (
            len(causes) - sum(c.kind == "host_contention" for c in causes)
        ), said
        return
    (outside,) = [c for c in causes if c.kind == "outside_kernels"]
    (line,) = {b.line for b in run.graph_breaks}
    assert "around 2 compiled graphs" in outside.title and f"the graph breaks at line {line} (" in outside.action, said
    assert outside.cost_ms > 0.5 * run.variant("inductor/default").timing.median_ms, said
    assert causes[-1].kind in ("compile", "recompiles"), said


def _encoder_layer_in_eval(run):
    """cpu_run as a TransformerEncoderLayer in eval under no_grad: eager's line 4 runs PyTorch's fused fast path, and
    the compiled graph calls the same op (Inductor has no lowering for it)."""
    eager = run.eager.kernel_profile
    eager.eager_lines = [EagerLineTime(line=4, time_ms=7.8, ops=["aten::_transformer_encoder_layer_fwd"])]
    best = run.speedup.variant
    fused = Kernel(
        name="torch.ops.aten._transformer_encoder_layer_fwd.default",
        language="extern",
        source="",
        graph_id="g0",
        variant=best,
        kind="aten",
        lines=[4],
    )
    fused.device_time_ms = 8.1
    run.kernels.append(fused)
    return run


def test_a_fused_native_fast_path_is_named_with_what_it_costs_the_compiled_call_whichever_way_the_speedup_goes():
    run = _encoder_layer_in_eval(cpu_run())
    for value in (0.95, 1.04):  # compiled a little slower, and a little faster: compiling cannot improve it either way
        run.speedup.value = value
        causes = {c.kind: c for c in diagnosis(run)}
        fused = causes["fused_native"]
        assert fused.title.startswith(
            "line 4: eager already runs _transformer_encoder_layer_fwd, a fused native kernel"
        )
        assert fused.cost_ms == pytest.approx(8.1) and fused.line == 4
        assert "compiled calls the same fused kernel" in fused.action
        # its kernel is this cause, not also an ATen kernel Inductor left in its graph
        assert "fallback_kernels" not in causes
    assert diagnosis(run)[0].kind == "fused_native"  # the largest per-call cost


@pytest.mark.compiles
def test_a_transformer_encoder_layer_in_eval_under_no_grad_names_its_fused_fast_path():
    """The kernel pass is the subject (no ``quick``)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        ns = {
            "torch": torch,
            "layer": torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).eval(),
            "x": torch.randn(4, 16, 64),
        }
        from cell_runs import run_cell

        run = run_cell("with torch.no_grad():\n    y = layer(x)\n", ns).run
    finally:
        torch.set_num_threads(before)
    assert run.status == "ok" and not run.errors, run.errors
    # the compiled graph calls PyTorch's fused op itself
    assert any("_transformer_encoder_layer_fwd" in k.name for k in run.kernels), [k.name for k in run.kernels]
    causes = diagnosis(run)
    said = [cause_text(c) for c in causes] + [diagnosis_heading(run)]
    rows = breakdown(run)
    if not all(r.trusted for r in rows):  # another program preempted every profiled call: said, not guessed
        assert "not measured" in diagnosis_heading(run), said
        return
    fused_causes = [c for c in causes if c.kind == "fused_native"]
    assert len(fused_causes) == 1, said
    (fused,) = fused_causes
    assert "_transformer_encoder_layer_fwd" in fused.title and fused.line == 3, said
    assert fused.cost_ms is not None and fused.cost_ms > 0.3 * run.variant(run.speedup.variant).timing.median_ms, said


@pytest.mark.parametrize(
    "backend, advised",
    [("inductor", True), (None, True), ("aot_eager", False)],
    ids=["inductor", "default", "aot_eager"],
)
def test_a_warm_inductor_cache_is_advised_against_compile_time_only_where_inductor_compiled(backend, advised):
    # a CHEAP profile (aot_eager) read "compiling: 185 ms once ... a warm Inductor cache (this code compiled before)
    # cuts it": aot_eager keeps nothing in Inductor's caches
    run = cpu_run()
    best = run.variant(run.speedup.variant)
    best.backend, best.cache_state, run.cache.state = backend, "cold", "cold"
    (cause,) = [c for c in diagnosis(run) if c.kind == "compile"]
    assert cause.title == "compiling (cold cache)"
    assert ("a warm Inductor cache (this code compiled before) cuts it" == cause.action) is advised, cause
