"""Every kernel's time on a cell line: what a compiled variant runs outside its compiled graphs (a fused
optimizer Dynamo skips under ``torch.compiler.disable``) on the line that ran it (engine/kernels/line_marks.py,
engine/kernels/attribution.py), and a graph resumed inside a helper of the user's own module on the cell
line that called into it (engine/compiler/backend.py's caller frames); on synthetic Kineto traces (the CUDA rules)
and on real CPU profiles checked against torch.profiler on plain ``torch.compile`` of the same code."""

from __future__ import annotations

import contextlib
import importlib
import io
import sys

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.kernel_times import withheld
from compile_profile.digest.lines import line_times
from compile_profile.engine.kernels import compiled_times
from compile_profile.engine.kernels.attribution import CALL_RANGE, attribute
from compile_profile.engine.kernels.line_marks import LINE_RANGE, marking_lines
from compile_profile.profile_run import Device
from test_kernel_timing import (
    CPU_GRAPH,
    CPU_OUTPUT_CODE,
    OUTPUT_CODE,
    TraceBuilder,
    cpu_step_trace,
    kernels_of,
    one_call,
    run_of,
)


@pytest.fixture(scope="module")
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _line(b: TraceBuilder, line: int, ts: float, dur: float) -> None:
    b.host(f"{LINE_RANGE}{line}", ts, dur, cat="user_annotation")


def _column(run, variant: str) -> float:
    return sum(r.time_ms.get(variant) or 0.0 for r in line_times(run).rows)


# -- the attribution, on synthetic traces -----------------------------------------------------------------


def test_cpu_ops_outside_compiled_graphs_are_on_the_line_that_ran_them(tmp_path):
    module = tmp_path / "ccpu.py"
    module.write_text(CPU_OUTPUT_CODE)
    b = cpu_step_trace(str(module), CALL_RANGE)
    _line(b, 2, 102, 190)  # the forward's graph (its region at 110)
    _line(b, 3, 295, 185)  # the clone and the matmul around a graph break
    _line(b, 4, 485, 500)  # the backward: its contiguous, AccumulateGrad, and the other thread's add at 850
    kernels = kernels_of(CPU_OUTPUT_CODE, CPU_GRAPH)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cpu")
    assert dict(result.line_us) == pytest.approx({3: 50 + 60, 4: 10 + 100 + 20})
    assert sum(result.line_us.values()) == pytest.approx(result.outside_graphs_us)
    assert set(result.line_ops[3]) == {"aten::clone", "aten::matmul"}
    run = run_of(kernels)
    run.device = Device("cpu", "cpu")
    compiled_times.apply(result, run)
    lines = run.variant("inductor/default").kernel_profile.eager_lines
    assert [(e.line, e.ops[0]) for e in lines] == [
        (3, "aten::matmul"),
        (4, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"),
    ]
    assert [e.time_ms for e in lines] == pytest.approx([0.110, 0.130])


def test_cuda_kernels_launched_outside_compiled_graphs_are_on_the_line_that_launched_them(tmp_path):
    """A fused optimizer step Dynamo skipped: its op launches kernels outside every region, on the line
    ``opt.step()``; the backward's accumulation launches from the autograd engine's own thread while
    ``loss.backward()``'s range is open on the main one."""
    module = tmp_path / "cabc.py"
    module.write_text(OUTPUT_CODE)
    b = TraceBuilder()
    b.host(CALL_RANGE, 0, 400, cat="user_annotation")
    _line(b, 2, 1, 150)
    one_call(b, 5, str(module))
    _line(b, 4, 200, 150)
    b.host("aten::_fused_adamw_", 210, 40)
    b.launch(215, "multi_tensor_apply_kernel", 260, 12.0)
    b.host("aten::_foreach_add_", 255, 10)
    b.launch(256, "multi_tensor_apply_kernel", 280, 3.0)
    # the autograd thread (tid 2) launching while line 3 ran on the main one
    _line(b, 3, 160, 35)
    b.events.append(
        {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "ts": 170, "dur": 5, "tid": 2, "pid": 1, "args": {}}
    )
    b.correlation += 1
    b.events.append(
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "ts": 171,
            "dur": 1,
            "tid": 2,
            "pid": 1,
            "args": {"correlation": b.correlation},
        }
    )
    b.device("vectorized_elementwise_kernel", 300, 2.0)
    b.device("stray_kernel_without_launch", 390, 1.0, correlation=999)  # no launch in the trace: on no line
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    assert dict(result.line_us) == pytest.approx({4: 12.0 + 3.0, 3: 2.0})
    assert dict(result.line_ops[4]) == pytest.approx({"aten::_fused_adamw_": 12.0, "aten::_foreach_add_": 3.0})
    assert result.outside_graphs_us == pytest.approx(12.0 + 3.0 + 2.0 + 1.0)
    run = run_of(kernels)
    run.cell_source = "%%compile_profile\ny = model(x)\nloss.backward()\nopt.step()\n"
    compiled_times.apply(result, run)
    lt = line_times(run)
    rows = {r.line: r for r in lt.rows}
    assert rows[4].eager_ops["inductor/default"] == ["aten::_fused_adamw_", "aten::_foreach_add_"]
    # its share of the graph's kernels from lines 3 and 4 (mm, mm, sum: 17 µs split evenly) and the 15 µs step
    assert rows[4].time_text("inductor/default") == "23.5 µs"
    # the graph's kernels (their lines 2, 3, 4 from the fixture) and the ops outside it add up to the
    # variant's kernel time but for the stray kernel, which no line holds and the digest says so
    kp = run.variant("inductor/default").kernel_profile
    assert _column(run, "inductor/default") + lt.off_lines_ms["inductor/default"] == pytest.approx(
        kp.breakdown.kernels_ms
    )
    assert kp.breakdown.kernels_ms == pytest.approx((8 + 2 + 6 + 3 + 12 + 3 + 2 + 1) / 1e3)
    assert lt.off_lines_ms["inductor/default"] == pytest.approx(1.0 / 1e3)
    assert lt.off_lines_text == ["inductor/default 1 µs of 37 µs (2.7 %)"]


# -- marking lines of compiled code ----------------------------------------------------------------------


def _compiled_with_break(x):
    h = torch.relu(x) + 1
    print("half way")
    h = h * 2
    torch._dynamo.graph_break()
    return h.sum()


@pytest.mark.compiles
def test_a_compiled_functions_transformed_code_and_resume_functions_have_their_lines_marked():
    """Under torch.compile the frames that run are Dynamo's: the function's transformed code and a resume
    function per graph break (``torch_dynamo_resume_in__compiled_with_break_at_N``); their lines are the
    function's lines, and the def line, where the transformed code enters its first graph, is none."""
    from torch.profiler import ProfilerActivity, profile

    code = _compiled_with_break.__code__
    first = code.co_firstlineno
    compiled = torch.compile(_compiled_with_break, backend="eager")
    x = torch.randn(8)
    with contextlib.redirect_stdout(io.StringIO()):
        compiled(x)
        with profile(activities=[ProfilerActivity.CPU]) as prof, marking_lines(code, line_offset=-(first - 1)):
            compiled(x)
    marked = {int(e.name[len(LINE_RANGE) :]) for e in prof.events() if e.name.startswith(LINE_RANGE)}
    # 1 is the def line; 3 the print (a graph break), 5 the explicit break, 6 the last graph's return
    assert {3, 5}.issubset(marked) and 1 not in marked, marked
    assert sys.gettrace() is None


# -- real CPU profiles -------------------------------------------------------------------------------------

TRAINING_CELL = "loss = model(x).pow(2).mean()\nloss.backward()\nopt.step()\nopt.zero_grad()\n"  # lines 2-5


def _training_namespace():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    return {"torch": torch, "model": model, "opt": opt, "x": torch.randn(32, 64)}


def _ops_plain_compile_ran_outside_its_graphs(ns) -> dict[str, set[str]]:
    """The reference: torch.profiler (with Python stacks) on plain torch.compile of the cell written as a
    function: the top-level ops outside every compiled graph's region, by the code their stack passes through."""
    from torch.profiler import ProfilerActivity, profile

    model, opt, x = ns["model"], ns["opt"], ns["x"]

    def step():
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()

    compiled = torch.compile(step)
    for _ in range(2):
        compiled()
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
        compiled()
    found: dict[str, set[str]] = {"optimizer": set(), "backward": set()}
    for e in prof.events():
        chain, parent = [], e.cpu_parent
        while parent is not None:
            chain.append(parent.name)
            parent = parent.cpu_parent
        if "::" not in e.name or any("::" in a or "CompiledFxGraph" in a for a in chain):
            continue
        if any("torch/optim/" in a for a in chain):
            found["optimizer"].add(e.name)
        elif any("torch/autograd/" in a for a in chain):
            found["backward"].add(e.name)
    return found


@pytest.fixture(scope="module")
def training_run(one_thread):
    ns = _training_namespace()
    reference = _ops_plain_compile_ran_outside_its_graphs(_training_namespace())
    return run_cell(TRAINING_CELL, ns).run, reference


@pytest.mark.compiles
def test_a_fused_optimizer_dynamo_skips_is_on_the_opt_step_line_in_the_compiled_column(training_run):
    run, reference = training_run
    assert run.status == "ok" and not run.errors, run.errors
    # plain torch.compile runs the fused step outside its graphs (Dynamo skips _fused_adam*, disabled)
    assert "aten::_fused_adamw_" in reference["optimizer"], reference
    compiled = run.variant("inductor/default").kernel_profile
    on_step = next(e for e in compiled.eager_lines if e.line == 4)
    assert "aten::_fused_adamw_" in on_step.ops and set(on_step.ops) <= reference["optimizer"], (on_step, reference)
    assert set(next(e for e in compiled.eager_lines if e.line == 3).ops) <= reference["backward"]
    rows = {r.line: r for r in line_times(run).rows}
    assert rows[4].code == "opt.step()" and rows[4].time_ms["inductor/default"] == pytest.approx(on_step.time_ms)
    assert "aten::_fused_adamw_" in rows[4].eager_ops["inductor/default"]
    assert "aten::_fused_adamw_" in rows[4].kernels["eager"]  # eager ran the same op on the same line


@pytest.mark.compiles
def test_every_variants_lines_hold_its_kernel_time_and_add_up_to_it(training_run):
    run, _ = training_run
    lt = line_times(run)
    assert set(lt.variants) == {"eager", "inductor/default"}
    for variant in lt.variants:
        kernels_ms = run.variant(variant).kernel_profile.breakdown.kernels_ms
        on_lines = _column(run, variant)
        assert on_lines >= 0.95 * kernels_ms, (variant, on_lines, kernels_ms, lt.off_lines_text)
        assert on_lines + lt.off_lines_ms[variant] == pytest.approx(kernels_ms, rel=1e-9)


HELPER_MODULE = """import torch


def noisy_scale(h):
    print("scaling", h.shape)
    return h * 2 + 1
"""
HELPER_CELL = "h = torch.relu(x @ w)\ny = noisy_scale(h)\nz = y.sum()\n"  # cell lines 2-4


@pytest.fixture(scope="module")
def helper_run(one_thread, tmp_path_factory):
    folder = tmp_path_factory.mktemp("user_module")
    (folder / "w2_helper.py").write_text(HELPER_MODULE)
    sys.path.insert(0, str(folder))
    try:
        helper = importlib.import_module("w2_helper")
        torch.manual_seed(0)
        ns = {"torch": torch, "noisy_scale": helper.noisy_scale, "x": torch.randn(64, 64), "w": torch.randn(64, 64)}
        with contextlib.redirect_stdout(io.StringIO()):
            run = run_cell(HELPER_CELL, ns).run
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("w2_helper", None)
    return run


@pytest.mark.compiles
def test_a_graph_resumed_in_a_helper_module_is_on_the_cell_line_that_called_it(helper_run):
    run = helper_run
    assert run.status == "ok" and not run.errors, run.errors
    # the graph Dynamo resumed after the print in noisy_scale: its code names the helper's line 6, as
    # tlparse maps its kernel, and no cell frame
    resumed = [g for g in run.graphs if g.kind == "dynamo" and "w2_helper.py:6" in g.code]
    assert len(resumed) == 1 and "compile-profile-cell" not in resumed[0].code, [g.code for g in run.graphs]
    (kernel,) = [k for k in run.kernels if k.graph_id.startswith(resumed[0].id.rsplit("/", 1)[0] + "/")]
    assert set(kernel.aten_ops) == {"aten.mul", "aten.add"}
    assert kernel.lines == [3]
    # eager, by its own marks (no Dynamo), ran the same ops on the same line
    eager_line = next(e for e in run.eager.kernel_profile.eager_lines if e.line == 3)
    assert {"aten::mul", "aten::add"} <= set(eager_line.ops)
    lt = line_times(run)
    assert lt.unattributed.get("inductor/default", 0) == 0
    left_out = withheld(run)
    for variant in lt.variants:
        if variant in left_out:
            # a busy machine (CI's 2 cores with other work) preempted every profiled call: the lines hold
            # their shares of the pass's kernel time, not times, and the shares still add up
            shares = sum(r.share.get(variant) or 0.0 for r in lt.rows)
            assert shares >= 0.95, (variant, lt.withheld)
            continue
        kernels_ms = run.variant(variant).kernel_profile.breakdown.kernels_ms
        assert _column(run, variant) >= 0.95 * kernels_ms, (variant, lt.off_lines_text)
