"""The eager variant's profiler pass (engine/kernels/eager_times.py): its kernel time, the breakdown of
every variant (engine/kernels/breakdown.py) and the eager time per cell line, on CPU with real
torch.compile runs, and the CUDA rules on a synthetic Kineto trace."""

from __future__ import annotations

import collections
import sys

import pytest
import torch
from cell_runs import run_cell
from compile_profile.engine.common.op_kinds import device_kind, kernel_kind
from compile_profile.engine.kernels import chrome_trace, compiled_times
from compile_profile.engine.kernels import eager_times as eager_profile
from compile_profile.engine.kernels import profiler_pass as kernel_profiler
from compile_profile.engine.kernels.eager_times import CALL_RANGE, LINE_RANGE, attribute_eager, marking_lines
from compile_profile.engine.kernels.line_marks import line_times
from profile_options import FAST

# measures the host or times against an independent measurement: no other test beside it
pytestmark = pytest.mark.alone


@pytest.fixture(scope="module")
def one_thread():
    """One intra-op thread: on a shared 2-core machine OpenMP's spinning threads turn contention into
    millisecond stalls of single ops, which no share survives."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


MATMUL_CELL = "y = x @ w\nz = y.relu().sum()\n"  # cell lines 2 and 3 (line 1 is the magic)


@pytest.fixture(scope="module")
def matmul_run(one_thread):
    torch.manual_seed(0)
    ns = {"torch": torch, "x": torch.randn(256, 256), "w": torch.randn(256, 256)}
    result = run_cell(MATMUL_CELL, ns)
    return result.run, ns


@pytest.mark.compiles
def test_the_eager_variant_gets_a_kernel_profile_whose_parts_add_to_its_total(matmul_run):
    run, _ = matmul_run
    assert run.status == "ok" and not run.errors, run.errors
    kp = run.eager.kernel_profile
    assert kp is not None and kp.method == "host" and kp.calls >= kernel_profiler.MIN_CALLS
    b = kp.breakdown
    assert b is not None and b.generated_ms == 0 and b.copy_ms == 0
    assert kp.total_ms > 0 and b.kernels_ms == pytest.approx(kp.total_ms, rel=1e-9)


@pytest.mark.compiles
def test_the_matmul_line_is_library_time_and_the_relu_sum_line_aten_time(matmul_run):
    run, _ = matmul_run
    kp = run.eager.kernel_profile
    lines = {line.line: line for line in kp.eager_lines}
    assert set(lines) == {2, 3}, kp.eager_lines
    assert lines[2].ops == ["aten::matmul"]
    assert set(lines[3].ops) == {"aten::relu", "aten::sum"}
    # line 2 runs only aten::matmul (with its aten::mm), line 3 only elementwise and reduction ops
    assert lines[2].time_ms == pytest.approx(kp.breakdown.library_ms, rel=1e-9)
    assert lines[3].time_ms == pytest.approx(kp.breakdown.aten_ms, rel=1e-9)


@pytest.mark.compiles
def test_eager_lines_add_up_to_the_attributed_time_within_the_total(matmul_run):
    kp = matmul_run[0].eager.kernel_profile
    assert sum(line.time_ms for line in kp.eager_lines) == pytest.approx(kp.attributed_ms, rel=1e-9)
    assert 0 < kp.attributed_ms <= kp.total_ms * (1 + 1e-9)


def _run_with_eager(device_type="cpu"):
    from compile_profile.profile_run import Device, ProfileRun, Variant

    return ProfileRun(
        id="r",
        created_at="",
        label="",
        cell_source="",
        device=Device(device_type, "dev"),
        torch_version="",
        variants=[Variant("eager")],
    )


def test_eager_lines_agree_with_torch_profiler_run_by_the_test(one_thread):
    """The matmul line's share of the two lines against aten::mm's share in this test's own profile of
    the same code.  Shares, not times, the median of three passes each, and a generous margin: the
    machine is shared, and one stalled op among a pass's few calls moves its share."""
    import statistics

    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(0)
    scope = {"x": torch.randn(256, 256), "w": torch.randn(256, 256)}
    exec(compile("def step():\n    y = x @ w\n    return y.relu().sum()\n", "<agree-test>", "exec"), scope)
    step = scope["step"]
    for _ in range(3):
        step()
    tool, reference = [], []
    for _ in range(3):
        run = _run_with_eager()
        kernel_profiler.measure_variant(
            run, "eager", step, lambda: None, rule=eager_profile.EagerRule(), code=step.__code__
        )
        lines = {line.line: line.time_ms for line in run.eager.kernel_profile.eager_lines}
        tool.append(lines[2] / (lines[2] + lines[3]))
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(10):
                step()
        totals = {e.key: e.cpu_time_total for e in prof.key_averages()}
        reference.append(totals["aten::mm"] / (totals["aten::matmul"] + totals["aten::relu"] + totals["aten::sum"]))
    tool_share, reference_share = statistics.median(tool), statistics.median(reference)
    # a 256x256 matmul outweighs a relu and a sum of its result
    assert tool_share > 0.5 and reference_share > 0.5, (tool, reference)
    assert abs(tool_share - reference_share) < 0.25, (tool, reference)


@pytest.mark.compiles
def test_a_compiled_variant_breakdown_is_its_kernels_from_the_same_pass(matmul_run):
    run, _ = matmul_run
    kp = run.variant("inductor/default").kernel_profile
    b = kp.breakdown
    # on CPU the output code's own Python around the kernels is in total_ms but no part: no kernel
    assert b is not None and 0 < b.kernels_ms <= kp.total_ms * (1 + 1e-9)
    cpp = [k for k in run.kernels if k.language == "cpp"]
    externs = [k for k in run.kernels if k.language == "extern"]
    assert cpp and externs, [k.name for k in run.kernels]
    assert b.generated_ms == pytest.approx(sum(k.device_time_ms for k in cpp), rel=1e-9)
    assert b.library_ms == pytest.approx(sum(k.device_time_ms for k in externs), rel=1e-9)
    assert b.copy_ms == 0 and b.aten_ms == 0


@pytest.mark.compiles
def test_the_namespace_ends_as_after_an_eager_run(matmul_run):
    _, ns = matmul_run
    y = ns["x"] @ ns["w"]
    assert torch.equal(ns["y"], y) and torch.equal(ns["z"], y.relu().sum())


@pytest.mark.compiles
def test_a_function_target_counts_lines_from_its_def_line(one_thread):
    from compile_profile.engine.run.api import profile

    def step(x, w):
        y = x @ w
        return y.relu().sum()

    # the eager variant's pass is the subject: any backend compiles the other variant
    run = profile(step, torch.randn(64, 64), torch.randn(64, 64), backend="aot_eager", **FAST)
    assert run.status == "ok", run.errors
    kp = run.eager.kernel_profile
    assert {line.line for line in kp.eager_lines} == {2, 3}
    assert kp.breakdown.kernels_ms == pytest.approx(kp.total_ms, rel=1e-9)


@pytest.mark.compiles
def test_the_eager_pass_runs_through_the_counted_call(monkeypatch):
    """Each profiled eager call is a counted cell run: one warm-up step, the calls recorded while the profiler
    settles, plus ``calls`` (every profiled call, those a busy machine preempted and the pass set aside included)."""
    seen = []
    real = kernel_profiler.measure_variant

    def counting(run, name, call, before_each, **how):
        before = run.cell_runs
        times = real(run, name, call, before_each, **how)
        if name == "eager":
            settling = kernel_profiler.settling_for(run.eager.timing.median_ms, run.device.type)
            seen.append((run.cell_runs - before, run.eager.kernel_profile.calls, settling))
        return times

    monkeypatch.setattr(kernel_profiler, "measure_variant", counting)
    ns = {"torch": torch, "x": torch.randn(32, 32)}
    result = run_cell("y = (x * 2).relu().sum()\n", ns, backend="aot_eager")
    assert result.run.status == "ok", result.run.errors
    ((ran, calls, settling),) = seen
    assert settling > 0  # a call of a few µs settles the profiler
    assert ran == 1 + settling + calls


# -- marking lines -----------------------------------------------------------------------------


def _cell_like():
    source = "def f(fail):\n    a = 1\n    if fail:\n        raise ValueError('x')\n    return a\n"
    scope: dict = {}
    exec(compile(source, "<marking-test>", "exec"), scope)
    return scope["f"]


def test_marking_lines_chains_and_restores_the_previous_trace_function():
    f = _cell_like()
    seen = []

    def previous(frame, event, arg):
        seen.append(frame.f_code.co_name)
        return None

    def helper():
        return 1

    old = sys.gettrace()
    sys.settrace(previous)
    try:
        with marking_lines(f.__code__):
            f(False)
            helper()
        assert sys.gettrace() is previous
        with pytest.raises(ValueError), marking_lines(f.__code__):
            f(True)
        assert sys.gettrace() is previous
    finally:
        sys.settrace(old)
    assert "helper" in seen and "f" not in seen  # other frames go to the previous tracer, the cell's don't


def test_each_line_is_a_profiler_range_closed_at_return_and_at_an_exception():
    from torch.profiler import ProfilerActivity, profile

    f = _cell_like()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with marking_lines(f.__code__, line_offset=10):
            f(False)
            try:
                f(True)
            except ValueError:
                pass
    names = [e.key for e in prof.key_averages() if e.key.startswith(LINE_RANGE)]
    assert sorted(names) == sorted(f"{LINE_RANGE}{n}" for n in (12, 13, 14, 15))


# -- the CUDA rules, on a synthetic trace --------------------------------------------------------


def _cuda_trace() -> chrome_trace.ChromeTrace:
    events, corr = [], [0]

    def host(name, ts, dur, cat="cpu_op", **args):
        events.append({"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "tid": 1, "pid": 1, "args": args})

    def launch(ts, device_name, device_dur, cat="kernel", runtime="cudaLaunchKernel"):
        corr[0] += 1
        host(runtime, ts, 1.0, cat="cuda_runtime", correlation=corr[0])
        events.append(
            {
                "ph": "X",
                "cat": cat,
                "name": device_name,
                "ts": 1000 + ts,
                "dur": device_dur,
                "tid": 7,
                "pid": 0,
                "args": {"correlation": corr[0]},
            }
        )

    host(CALL_RANGE, 0, 500, cat="user_annotation")
    host(f"{LINE_RANGE}2", 1, 100, cat="user_annotation")
    host("aten::linear", 2, 90)
    host("aten::addmm", 3, 80)
    launch(4, "ampere_sgemm_128x64_tn", 40.0)
    host(f"{LINE_RANGE}3", 110, 100, cat="user_annotation")
    host("aten::matmul", 111, 90)
    host("aten::contiguous", 112, 20)
    host("aten::clone", 113, 18)
    host("aten::copy_", 114, 16)
    launch(115, "elementwise_kernel<copy>", 5.0)  # a copy inside a matmul is a copy
    host("aten::mm", 140, 50)
    launch(141, "splitKreduce_kernel", 3.0)  # no library name, but under aten::mm
    host("aten::relu", 220, 20)  # outside any line: in the total, on no line
    launch(221, "elementwise_kernel<relu>", 7.0)
    host(f"{LINE_RANGE}4", 300, 100, cat="user_annotation")
    host("aten::to", 301, 50)
    host("aten::_to_copy", 302, 45)
    host("aten::copy_", 303, 40)
    launch(304, "Memcpy HtoD (Pageable -> Device)", 11.0, cat="gpu_memcpy", runtime="cudaMemcpyAsync")
    host("aten::gelu", 360, 20)
    launch(361, "vectorized_elementwise_kernel<gelu>", 13.0)
    return chrome_trace.parse({"traceEvents": events})


def test_cuda_eager_kernels_go_by_library_name_innermost_op_and_copy_events():
    times = attribute_eager(_cuda_trace(), calls=1, device_type="cuda")
    assert times.method == "cupti"
    assert times.total_us == pytest.approx(40 + 5 + 3 + 7 + 11 + 13)
    assert times.parts == pytest.approx({"library": 43.0, "copy": 16.0, "aten": 20.0, "collective": 0.0})
    assert dict(times.line_us) == pytest.approx({2: 40.0, 3: 8.0, 4: 24.0})
    assert list(times.line_ops[3]) == ["aten::matmul"]  # the line's top-level op, not its inner ones
    assert dict(times.line_ops[4]) == {"aten::gelu": 13.0, "aten::to": 11.0}
    assert line_times(times.line_us, times.line_ops, times.calls)[2].ops == ["aten::gelu", "aten::to"]  # most first


def test_cuda_eager_profile_lists_lines_in_order_and_attributes_only_what_ran_on_lines():
    run = _run_with_eager("cuda")
    kp = eager_profile.apply(attribute_eager(_cuda_trace(), calls=2, device_type="cuda"), run)
    assert run.eager.kernel_profile is kp
    assert [line.line for line in kp.eager_lines] == [2, 3, 4]
    assert kp.total_ms == pytest.approx(79 / 2 / 1e3)
    assert kp.attributed_ms == pytest.approx(72 / 2 / 1e3)  # the relu ran on no line
    assert kp.breakdown.kernels_ms == pytest.approx(kp.total_ms)


def test_kernel_kinds():
    assert device_kind("gpu_memset", "Memset (Device)", ["aten::mm"]) == "copy"
    assert device_kind("kernel", "sm90_xmma_gemm_bf16", []) == "library"
    assert device_kind("kernel", "flash_fwd_kernel", []) == "library"
    assert device_kind("kernel", "nchwToNhwcKernel", ["aten::cudnn_convolution", "aten::conv2d"]) == "library"
    assert device_kind("kernel", "elementwise_kernel", ["aten::add"]) == "aten"
    assert kernel_kind("cpp", "cpp_fused_relu_0") == kernel_kind("triton", "triton_poi_0") == "generated"
    assert kernel_kind("extern", "extern_kernels.mm") == "library"
    assert kernel_kind("extern", "torch.ops.aten._scaled_dot_product_flash_attention.default") == "library"
    assert kernel_kind("extern", "torch.ops.aten.sort.default") == "aten"


def test_cuda_compiled_breakdown_splits_generated_library_copies_and_the_rest(tmp_path):
    """On a synthetic compiled trace: Triton kernels are generated, the matmuls' cuBLAS kernels
    library, a memcpy outside the graphs a copy, and the unmatched kernel outside them ATen."""
    from compile_profile.engine.kernels.attribution import attribute
    from test_kernel_timing import OUTPUT_CODE, TraceBuilder, kernels_of, one_call, run_of

    module_path = tmp_path / "cabc.py"
    module_path.write_text(OUTPUT_CODE)
    b = TraceBuilder()
    for i in range(2):
        one_call(b, 1000.0 + 200 * i, str(module_path))
    b.launch(2000.0, "elementwise_kernel", 2010.0, 4.0)  # eager code around a graph break
    b.launch(2100.0, "Memcpy HtoD (Pageable -> Device)", 2110.0, 6.0, runtime="cudaMemcpyAsync")
    b.events[-1]["cat"] = "gpu_memcpy"
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=2, device_type="cuda")
    run = run_of(kernels)
    compiled_times.apply(result, run)
    kp = run.variant("inductor/default").kernel_profile
    bd = kp.breakdown
    assert bd.generated_ms == pytest.approx((2.0 + 3.0) / 1e3)  # per call: the add and the sum
    assert bd.library_ms == pytest.approx((8.0 + 6.0) / 1e3)  # the two mm calls' gemm kernels
    assert bd.copy_ms == pytest.approx(6.0 / 2 / 1e3)
    assert bd.aten_ms == pytest.approx(4.0 / 2 / 1e3)
    assert bd.kernels_ms == pytest.approx(kp.total_ms)


def test_an_op_on_another_thread_is_on_the_line_running_when_it_started():
    """A CUDA backward runs on the autograd engine's device thread while ``loss.backward()`` waits on
    the main one: its kernels are on that line, by time, not lost."""
    events = [
        {"ph": "X", "cat": "user_annotation", "name": CALL_RANGE, "ts": 0, "dur": 500, "tid": 1, "pid": 1, "args": {}},
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": f"{LINE_RANGE}4",
            "ts": 10,
            "dur": 300,
            "tid": 1,
            "pid": 1,
            "args": {},
        },
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 50, "dur": 30, "tid": 2, "pid": 1, "args": {}},
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "ts": 51,
            "dur": 1,
            "tid": 2,
            "pid": 1,
            "args": {"correlation": 1},
        },
        {
            "ph": "X",
            "cat": "kernel",
            "name": "sm90_xmma_gemm",
            "ts": 1051,
            "dur": 20.0,
            "tid": 7,
            "pid": 0,
            "args": {"correlation": 1},
        },
    ]
    times = attribute_eager(chrome_trace.parse({"traceEvents": events}), calls=1, device_type="cuda")
    assert dict(times.line_us) == pytest.approx({4: 20.0})
    assert times.parts["library"] == pytest.approx(20.0)


def test_a_matmul_a_compiled_variant_ran_eagerly_is_library_as_in_eager(tmp_path):
    """Around a graph break a compiled variant runs ATen ops eagerly; they go by eager's rules, so
    the breakdowns of the two variants compare like with like."""
    from compile_profile.engine.kernels.attribution import attribute
    from test_kernel_timing import OUTPUT_CODE, TraceBuilder, kernels_of, one_call, run_of

    module_path = tmp_path / "cabc.py"
    module_path.write_text(OUTPUT_CODE)
    b = TraceBuilder()
    one_call(b, 1000.0, str(module_path))
    b.host("aten::mm", 1999.0, 5.0)
    b.launch(2000.0, "splitKreduce_kernel", 2010.0, 9.0)  # under aten::mm, outside the graphs
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    run = run_of(kernels)
    compiled_times.apply(result, run)
    bd = run.variant("inductor/default").kernel_profile.breakdown
    assert bd.library_ms == pytest.approx((8.0 + 6.0 + 9.0) / 1e3)  # the graph's two gemms and the eager mm
    assert bd.aten_ms == pytest.approx(0.0)


@pytest.mark.compiles
def test_on_cpu_a_compiled_variant_counts_the_ops_it_ran_outside_its_graphs_as_eager_does(one_thread):
    """A graph break (the print) splits the function into two compiled graphs; ``outside`` is never
    compiled, so both variants run its clone and matmul eagerly: the compiled breakdown counts them as
    library and copy time, as eager's does, not as time outside kernels."""
    import contextlib
    import io

    import compile_profile

    torch.manual_seed(0)
    w1, w2, w3 = (torch.randn(256, 256) for _ in range(3))

    @torch.compiler.disable
    def outside(h):
        return h.clone() @ w3

    def fn(x):
        h = torch.relu(x @ w1)
        print("half way")
        h = torch.relu(h @ w2)
        return outside(h).sum()

    with contextlib.redirect_stdout(io.StringIO()):
        run = compile_profile.profile(fn, torch.randn(512, 256), budget=0.3)
    assert run.status == "ok" and not run.errors, run.errors
    eager, compiled = run.eager.kernel_profile, run.variant("inductor/default").kernel_profile
    assert compiled.method == "host"
    outside_ops = {u.name: u.time_ms for u in compiled.unmatched if u.where == "outside compiled graphs"}
    # what Dynamo left outside: the disabled function's ops (the relus and the sum are in graphs)
    assert set(outside_ops) == {"aten::clone", "aten::matmul"}, outside_ops
    assert compiled.outside_graphs_ms == pytest.approx(sum(outside_ops.values()))
    # and on the line that called the disabled function (fn's line 5), as eager's ops are on theirs
    assert [(e.line, set(e.ops)) for e in compiled.eager_lines] == [(5, {"aten::clone", "aten::matmul"})]
    assert compiled.eager_lines[0].time_ms == pytest.approx(compiled.outside_graphs_ms)
    e, c = eager.breakdown, compiled.breakdown
    externs = sum(k.device_time_ms or 0.0 for k in run.kernels if k.language == "extern")
    assert c.library_ms == pytest.approx(externs + outside_ops["aten::matmul"], rel=1e-6)
    assert c.copy_ms == pytest.approx(outside_ops["aten::clone"], rel=1e-6) and c.copy_ms > 0
    assert c.aten_ms == pytest.approx(0.0, abs=1e-9)  # the clone's empty_like/copy_ are copy time
    # The same clone and matmul in both variants: the clone's time over a matmul's is comparable.  Ratios
    # within one pass, and a wide band: on this shared 2-core machine one pass can run several times
    # slower than the other, and the 512 KiB clone varied most (eager's 65 µs to 1.4 ms, compiled's
    # 83-290 µs, over five runs).  That the clone is copy time and the matmul library is exact, above.
    eager_ratio = e.copy_ms / (e.library_ms / 3)  # eager ran three matmuls of the same shape
    compiled_ratio = outside_ops["aten::clone"] / outside_ops["aten::matmul"]
    assert eager_ratio / 10 < compiled_ratio < eager_ratio * 10, (e, outside_ops)
    assert c.kernels_ms <= compiled.total_ms * (1 + 1e-9)


def test_one_slow_call_moves_no_lines_median_and_the_combined_parts_and_lines_add_up():
    """Each (line, kind) cell is a median over the calls, so the kinds and the lines sum the same medians."""

    def call(mm_us: float, relu_us: float) -> eager_profile.EagerTimes:
        t = eager_profile.EagerTimes(calls=1, method="host")
        for line, kind, op, us in ((2, "library", "aten::mm", mm_us), (3, "aten", "aten::relu", relu_us)):
            t.cells[(line, kind)] += us
            t.parts[kind] += us
            t.line_us[line] += us
            t.line_ops.setdefault(line, collections.defaultdict(float))[op] += us
            t.total_us += us
        t.cells[(None, "aten")] += 1.0  # an op on no line
        t.parts["aten"] += 1.0
        t.total_us += 1.0
        return t

    combined = eager_profile.combine([call(10.0, 4.0), call(9000.0, 4.0), call(11.0, 5.0)])
    assert combined.calls == 3
    assert dict(combined.line_us) == pytest.approx({2: 33.0, 3: 12.0})  # medians 11 and 4, times 3 calls
    assert combined.parts["library"] == pytest.approx(33.0) and combined.parts["aten"] == pytest.approx(15.0)
    assert combined.total_us == pytest.approx(sum(combined.parts.values()))
    assert sum(combined.line_us.values()) <= combined.total_us
    run = _run_with_eager("cpu")
    kp = eager_profile.apply(combined, run)
    assert kp.breakdown.kernels_ms == pytest.approx(kp.total_ms) and kp.attributed_ms <= kp.total_ms
    assert [line.ops for line in kp.eager_lines] == [["aten::mm"], ["aten::relu"]]
