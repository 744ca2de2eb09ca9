"""The per-kernel profiling pass: the attribution (engine/kernels/attribution.py) on synthetic
Kineto traces (the GPU cases, checked here without a GPU), and the real pass
(engine/kernels/profiler_pass.py) on CPU, where C++ kernels are timed by their Python binding calls."""

from __future__ import annotations

import json

import pytest
import torch
from compile_profile.engine.common.op_kinds import extern_op_name
from compile_profile.engine.kernels import chrome_trace, compiled_times
from compile_profile.engine.kernels import profiler_pass as kernel_profiler
from compile_profile.engine.kernels.attribution import KernelAttribution, attribute
from compile_profile.engine.kernels.index import call_sites
from compile_profile.profile_run import Device, Kernel, KernelProfile, ProfileRun, UnmatchedKernel, Variant

TRITON_SOURCE = """
import triton
import triton.language as tl

@triton.jit
def {name}(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
"""

OUTPUT_CODE = """
# AOT ID: ['0_inference']
from torch._inductor.select_algorithm import extern_kernels
async_compile = AsyncCompile()

triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''{add}''', device_str='cuda')

triton_red_fused_sum_1 = async_compile.triton('triton_red_fused_sum_1', '''{red}''', device_str='cuda')

def call(args):
    arg0_1, arg1_1 = args
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [mm], Original ATen: [aten.mm]
        extern_kernels.mm(arg0_1, arg1_1, out=buf0)
        stream0 = get_raw_stream(0)
        triton_poi_fused_add_0.run(buf0, arg0_1, 4096, stream=stream0)
        buf1 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
        extern_kernels.mm(buf0, arg1_1, out=buf1)
        triton_red_fused_sum_1.run(buf1, 64, 64, stream=stream0)
    return (buf1, )
""".format(
    add=TRITON_SOURCE.format(name="triton_poi_fused_add_0"), red=TRITON_SOURCE.format(name="triton_red_fused_sum_1")
)

GRAPH = "inductor/default/0/0/aot_inference"


def kernels_of(code: str, graph_id: str = GRAPH) -> list[Kernel]:
    from compile_profile.engine.trace.output_code import parse_output_code

    out = []
    for k in parse_output_code(code).kernels:
        out.append(
            Kernel(
                name=k.name,
                language=k.language,
                source=k.source,
                graph_id=graph_id,
                variant="inductor/default",
                lines=[2] if "add" in k.name else [3, 4],
                id=f"{graph_id}/{k.name}" + (f":{len(out)}" if k.language == "extern" else ""),
            )
        )
    return out


class TraceBuilder:
    """Kineto-shaped Chrome trace events (the fields the pass reads), one host thread."""

    def __init__(self):
        self.events: list[dict] = []
        self.correlation = 0

    def host(self, name, ts, dur, cat="cpu_op", **args):
        self.events.append(
            {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "tid": 1, "pid": 1, "args": args}
        )

    def launch(self, ts, kernel_name, device_ts, device_dur, runtime="cudaLaunchKernel", grid=(16, 1, 1)):
        self.correlation += 1
        self.host(runtime, ts, 1.0, cat="cuda_runtime", correlation=self.correlation)
        self.device(kernel_name, device_ts, device_dur, grid=grid)

    def device(self, name, ts, dur, grid=(16, 1, 1), correlation=None):
        self.events.append(
            {
                "ph": "X",
                "cat": "kernel",
                "name": name,
                "ts": ts,
                "dur": dur,
                "tid": 7,
                "pid": 0,
                "args": {"correlation": correlation or self.correlation, "grid": list(grid), "block": [128, 1, 1]},
            }
        )

    def trace(self):
        return chrome_trace.parse({"traceEvents": self.events})


def one_call(b: TraceBuilder, t: float, module_path: str, *, with_python: bool = True):
    """One compiled call: region > call() > [mm > gemm kernel, triton add, mm > gemm, triton sum]."""
    b.host("## Call CompiledFxGraph abc ##", t, 100, cat="user_annotation")
    if with_python:
        b.host(f"{module_path}(12): call", t + 1, 98, cat="python_function")
    b.host(
        "aten::mm",
        t + 2,
        10,
        **{"Input Dims": [[64, 64], [64, 64], [64, 64]], "Input type": ["float", "float", "float"]},
    )
    b.host("aten::empty", t + 3, 3)  # an op inside mm: the kernel launches from deeper down
    b.launch(t + 5, "sm90_xmma_gemm_f32f32", t + 20, 8.0)
    b.host(
        "triton_poi_fused_add_0",
        t + 20,
        5,
        kernel_file="/x.py",
        num_warps=4,
        num_stages=1,
        kernel_kwargs="XBLOCK=256",
        **{"Input Dims": [[64, 64], [64, 64], []], "Input type": ["float", "float", "Scalar"]},
    )
    b.launch(t + 21, "triton_poi_fused_add_0", t + 30, 2.0, runtime="cuLaunchKernelEx")
    b.host("aten::mm", t + 30, 10)
    b.launch(t + 31, "sm90_xmma_gemm_f32f32", t + 40, 6.0)
    b.host("triton_red_fused_sum_1", t + 50, 5, kernel_file="/y.py")
    b.launch(t + 51, "triton_red_fused_sum_1", t + 60, 3.0, grid=(64, 1, 1))


def run_of(kernels: list[Kernel]) -> ProfileRun:
    return ProfileRun(
        id="r",
        created_at="",
        label="",
        cell_source="",
        device=Device("cuda", "gpu"),
        torch_version="",
        variants=[Variant("eager"), Variant("inductor/default")],
        kernels=kernels,
    )


@pytest.fixture
def module_path(tmp_path):
    path = tmp_path / "cabc.py"
    path.write_text(OUTPUT_CODE)
    return str(path)


def test_call_sites_are_in_source_order_with_their_kind():
    sites = call_sites(OUTPUT_CODE)
    assert [(kind, name) for kind, name, _ in sites] == [
        ("extern", "extern_kernels.mm"),
        ("triton", "triton_poi_fused_add_0"),
        ("extern", "extern_kernels.mm"),
        ("triton", "triton_red_fused_sum_1"),
    ]
    assert extern_op_name("extern_kernels.addmm") == "aten::addmm"
    assert (
        extern_op_name("torch.ops.aten._scaled_dot_product_flash_attention.default")
        == "aten::_scaled_dot_product_flash_attention"
    )


def test_chrome_trace_nests_host_events_by_time_and_links_kernels_to_their_launch():
    b = TraceBuilder()
    one_call(b, 1000.0, "/m.py")
    trace = b.trace()
    region = next(e for e in trace.host if e.name.startswith("## Call"))
    mm = next(e for e in trace.host if e.name == "aten::mm")
    assert mm.parent.name.endswith(": call") and mm.parent.parent is region
    gemm = trace.device[0]
    assert gemm.launcher.name == "cudaLaunchKernel" and gemm.launcher.parent.name == "aten::empty"
    assert not gemm.in_cuda_graph


def test_triton_and_extern_kernels_get_their_own_device_time(module_path):
    b = TraceBuilder()
    for i in range(3):
        one_call(b, 1000.0 + 200 * i, module_path)
    b.launch(2000.0, "elementwise_kernel", 2010.0, 4.0)  # eager code outside any compiled graph
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=3, device_type="cuda")
    by_name = {}
    for obs in result.observations.values():
        by_name.setdefault(obs.kernel.name, []).append(obs)
    (add,) = by_name["triton_poi_fused_add_0"]
    assert add.time_us == pytest.approx(6.0) and add.launches == 3
    assert dict(add.grids) == {(16, 1, 1): 3} and dict(add.configs) == {"XBLOCK=256, num_warps=4, num_stages=1": 3}
    assert add.launch_args[0]["Input Dims"] == [[64, 64], [64, 64], []]
    first_mm, second_mm = sorted(by_name["extern_kernels.mm"], key=lambda o: o.kernel.id)
    assert first_mm.time_us == pytest.approx(24.0) and second_mm.time_us == pytest.approx(18.0)
    assert dict(first_mm.device_names) == {"sm90_xmma_gemm_f32f32": 3}
    assert result.total_us == pytest.approx(3 * 19.0 + 4.0)
    assert result.outside_graphs_us == pytest.approx(4.0)
    assert result.unmatched[("elementwise_kernel", "outside compiled graphs")] == pytest.approx(4.0)

    run = run_of(kernels)
    compiled_times.apply(result, run)
    kp = run.variant("inductor/default").kernel_profile
    assert kp.total_ms == pytest.approx((3 * 19.0 + 4.0) / 3 / 1e3)
    assert kp.attributed_ms == pytest.approx(19.0 / 1e3)
    add_kernel = next(k for k in kernels if k.name == "triton_poi_fused_add_0")
    assert add_kernel.device_time_ms == pytest.approx(2.0 / 1e3)
    assert add_kernel.share == pytest.approx(2.0 / (19.0 + 4.0 / 3))
    assert add_kernel.launch_grid == [16, 1, 1] and add_kernel.in_cuda_graph is False
    assert sum(k.share for k in kernels) == pytest.approx(kp.attributed_ms / kp.total_ms)


def test_without_the_python_tracer_triton_kernels_are_still_matched_by_name():
    b = TraceBuilder()
    one_call(b, 1000.0, "/nowhere.py", with_python=False)
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    names = {o.kernel.name: o.time_us for o in result.observations.values() if o.time_us}
    assert names == {"triton_poi_fused_add_0": 2.0, "triton_red_fused_sum_1": 3.0}
    # the gemms ran in a compiled graph but could not be tied to a call site
    assert result.unmatched[("sm90_xmma_gemm_f32f32", "in compiled graph")] == pytest.approx(14.0)


def test_same_named_kernels_of_two_graphs_are_told_apart_by_module(tmp_path):
    other_code = OUTPUT_CODE.replace("# AOT ID: ['0_inference']", "# AOT ID: ['1_inference']").replace(
        "xoffset", "xoffset2"
    )
    paths = [tmp_path / "a.py", tmp_path / "b.py"]
    paths[0].write_text(OUTPUT_CODE)
    paths[1].write_text(other_code)
    kernels = kernels_of(OUTPUT_CODE, "g0") + kernels_of(other_code, "g1")
    b = TraceBuilder()
    one_call(b, 1000.0, str(paths[0]))
    one_call(b, 2000.0, str(paths[1]))
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    graphs = {(o.kernel.graph_id, o.kernel.name) for o in result.observations.values() if o.time_us}
    assert ("g0", "triton_poi_fused_add_0") in graphs and ("g1", "triton_poi_fused_add_0") in graphs
    assert len(graphs) == 6


def test_cuda_graph_replays_mark_kernels_and_align_library_kernels_to_their_call_site(module_path):
    b = TraceBuilder()
    # a recording-free replay: one cudaGraphLaunch queues everything, no Triton host ops
    b.host("## Call CompiledFxGraph abc ##", 1000.0, 50, cat="user_annotation")
    b.correlation = 99
    b.host("cudaGraphLaunch", 1010.0, 2.0, cat="cuda_runtime", correlation=99)
    for ts, name, dur in (
        (1020, "sm90_xmma_gemm_f32f32", 8.0),
        (1030, "triton_poi_fused_add_0", 2.0),
        (1035, "sm90_xmma_gemm_f32f32", 6.0),
        (1045, "triton_red_fused_sum_1", 3.0),
    ):
        b.device(name, ts, dur, correlation=99)
    kernels = kernels_of(OUTPUT_CODE)
    # the module is known from an earlier (non-replay) call of the same region key
    one_call(b, 500.0, module_path)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=2, device_type="cuda")
    assert result.in_cuda_graphs_us == pytest.approx(19.0)
    obs = {o.kernel.id: o for o in result.observations.values()}
    add = next(o for o in obs.values() if o.kernel.name == "triton_poi_fused_add_0")
    assert add.in_cuda_graph and add.outside_cuda_graph and add.time_us == pytest.approx(4.0)
    first_mm, second_mm = sorted((o for o in obs.values() if o.kernel.language == "extern"), key=lambda o: o.kernel.id)
    assert first_mm.time_us == pytest.approx(16.0) and second_mm.time_us == pytest.approx(12.0)
    assert not result.unmatched


def one_call_attributed(module_path: str) -> KernelAttribution:
    b = TraceBuilder()
    one_call(b, 1000.0, module_path)
    attribution = KernelAttribution(
        b.trace(), kernels_of(OUTPUT_CODE), variant="inductor/default", calls=1, device_type="cuda"
    )
    attribution.attribute()
    return attribution


def test_the_attribution_knows_which_graph_and_module_each_region_ran(module_path):
    attribution = one_call_attributed(module_path)
    (region,) = attribution.regions
    assert attribution.region_graph == {region: GRAPH}
    assert attribution.graph_of_key == {"## Call CompiledFxGraph abc ##": GRAPH}
    module = attribution.region_module[region]
    assert [(s.kind, s.op) for s in module.sites] == [
        ("extern", "aten::mm"),
        ("triton", ""),
        ("extern", "aten::mm"),
        ("triton", ""),
    ]


def test_the_attribution_ties_each_launching_host_op_to_its_kernel(module_path):
    attribution = one_call_attributed(module_path)
    assert {ev.name: k.name for ev, k in attribution.launch_kernel.items()} == {
        "triton_poi_fused_add_0": "triton_poi_fused_add_0",
        "triton_red_fused_sum_1": "triton_red_fused_sum_1",
    }
    # the two aten::mm ops go to the two extern call sites, in source order
    by_time = sorted(attribution.extern_op.items(), key=lambda item: item[0].ts)
    assert [k.id for _, k in by_time] == sorted(k.id for k in kernels_of(OUTPUT_CODE) if k.language == "extern")


def test_attributing_twice_counts_each_event_once(module_path):
    attribution = one_call_attributed(module_path)
    first_total = attribution.result.total_us
    again = attribution.attribute()
    assert again.total_us == first_total == pytest.approx(19.0)
    assert sum(o.launches for o in again.observations.values()) == 4


def test_the_attribution_returns_times_and_leaves_the_kernels_untouched(module_path):
    b = TraceBuilder()
    one_call(b, 1000.0, module_path)
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    assert sum(o.time_us for o in result.observations.values()) == pytest.approx(19.0)
    assert all(k.device_time_ms is None and k.share is None and not k.launch_grid for k in kernels)
    compiled_times.apply(result, run_of(kernels))  # the profiler pass is what writes them
    assert all(k.device_time_ms is not None for k in kernels)


def test_a_trace_without_compiled_graph_regions_is_unmatched_time_with_a_note():
    b = TraceBuilder()
    b.launch(1000.0, "elementwise_kernel", 1010.0, 4.0)
    result = attribute(b.trace(), kernels_of(OUTPUT_CODE), variant="inductor/default", calls=1, device_type="cuda")
    assert not result.observations and result.total_us == pytest.approx(4.0)
    assert dict(result.unmatched) == {("elementwise_kernel", "outside compiled graphs"): 4.0}
    assert [n.kind for n in result.notes] == ["no_graph_region"]


def test_a_module_the_tracer_names_from_a_folder_on_sys_path_is_read_there(tmp_path, monkeypatch):
    """A Jupyter kernel's working folder is on ``sys.path`` (as ""): the Python tracer names an output-code module
    in a cache under it from there, and the pass reads it there, wherever this process's working folder is."""
    cache = tmp_path / "project" / ".cache" / "ab"
    cache.mkdir(parents=True)
    (cache / "cabc.py").write_text(OUTPUT_CODE)
    monkeypatch.syspath_prepend(str(tmp_path / "project"))
    monkeypatch.chdir(tmp_path)
    b = TraceBuilder()
    one_call(b, 1000.0, ".cache/ab/cabc.py")
    kernels = kernels_of(OUTPUT_CODE)
    result = attribute(b.trace(), kernels, variant="inductor/default", calls=1, device_type="cuda")
    assert {o.kernel.name for o in result.observations.values()} == {
        "triton_poi_fused_add_0",
        "triton_red_fused_sum_1",
        "extern_kernels.mm",
    }
    assert not result.unmatched


def test_a_stored_run_with_the_old_per_line_split_still_loads():
    run = run_of([])
    run.variant("inductor/default").kernel_profile = KernelProfile(
        calls=3, total_ms=0.5, attributed_ms=0.4, method="host", unmatched=[UnmatchedKernel("k", 0.1)]
    )
    data = json.loads(run.to_json())
    assert "lines" not in data["variants"][1]["kernel_profile"]
    data["variants"][1]["kernel_profile"]["lines"] = [{"line": 2, "time_ms": 0.4, "share": 0.8, "kernels": ["a"]}]
    loaded = ProfileRun.from_dict(data)
    assert loaded.variant("inductor/default").kernel_profile == run.variant("inductor/default").kernel_profile


def test_profile_count_grows_for_fast_cells_within_bounds():
    assert kernel_profiler.calls_for(None) == kernel_profiler.MIN_CALLS
    assert kernel_profiler.calls_for(1000.0) == kernel_profiler.MIN_CALLS
    assert kernel_profiler.calls_for(0.001) == kernel_profiler.MAX_CALLS
    assert kernel_profiler.calls_for(10.0) == 3 and kernel_profiler.calls_for(5.0) == 6


# -- the real pass on CPU ----------------------------------------------------------------------


def run_cell(body: str, ns: dict, **options):
    from cell_runs import run_cell as run_as_magic

    return run_as_magic(body, ns, **options).run


@pytest.fixture(scope="module")
def cpu_run():
    torch.manual_seed(0)
    ns = {"torch": torch, "w": torch.randn(64, 64), "x": torch.randn(256, 64)}
    body = "h = torch.nn.functional.gelu(x @ w)\ny = torch.nn.functional.layer_norm(h, (64,))\ny.sum()\n"
    return run_cell(body, ns)


@pytest.mark.compiles
def test_cpu_pass_times_cpp_kernels_and_externs_by_host_time(cpu_run):
    run = cpu_run
    assert run.status == "ok" and not run.errors, run.errors
    v = run.variant("inductor/default")
    kp = v.kernel_profile
    assert kp is not None and kp.method == "host" and kp.calls >= kernel_profiler.MIN_CALLS
    # one graph: no op ran outside it (on CPU the pass counts host ops outside compiled graphs)
    assert kp.outside_graphs_ms == 0 and kp.in_cuda_graphs_ms == 0 and not kp.unmatched
    cpp = [k for k in run.kernels if k.language == "cpp"]
    assert cpp and all(k.device_time_ms and k.device_time_ms > 0 for k in cpp)
    assert all(k.launches_per_call == pytest.approx(1.0) for k in cpp)
    timed = [k for k in run.kernels if k.device_time_ms]
    assert 0 < kp.attributed_ms <= kp.total_ms
    assert sum(k.share for k in timed) == pytest.approx(kp.attributed_ms / kp.total_ms)
    assert all(set(k.lines) <= {2, 3, 4} for k in timed) and any(k.lines for k in timed)
    # no GPU: no device ceilings, no in-graph flags
    assert run.device_peaks is None and all(k.in_cuda_graph is None for k in run.kernels)


@pytest.mark.compiles
def test_an_inductor_cache_under_a_folder_on_sys_path_still_has_its_cpp_kernels_timed(monkeypatch):
    """A notebook beside its project's Inductor cache: the kernel's working folder ("") is on ``sys.path``, and the
    Python tracer names the output code from there.  Here the cache's parent is put on ``sys.path`` (the tests'
    shared cache: no cold compile)."""
    import os

    from torch._inductor.runtime.cache_dir_utils import cache_dir

    monkeypatch.syspath_prepend(os.path.dirname(os.path.abspath(cache_dir())))
    torch.manual_seed(0)
    ns = {"torch": torch, "w": torch.randn(64, 64), "x": torch.randn(256, 64)}
    run = run_cell("y = torch.nn.functional.gelu(x @ w).sum()\n", ns)
    assert run.status == "ok" and not run.errors, run.errors
    cpp = [k for k in run.kernels if k.language == "cpp"]
    assert cpp and all(k.device_time_ms and k.device_time_ms > 0 for k in cpp), [
        (k.name, k.device_time_ms) for k in cpp
    ]
    assert run.variant("inductor/default").kernel_profile.attributed_ms > 0


@pytest.mark.compiles
def test_cpu_extern_matmul_gets_flops_from_its_recorded_shapes(cpu_run):
    mm = [k for k in cpu_run.kernels if k.language == "extern" and k.name.endswith("mm")]
    assert mm, [k.name for k in cpu_run.kernels]
    assert mm[0].flops == 2 * 256 * 64 * 64 and mm[0].achieved_tflops > 0
    assert mm[0].compute_share is None  # no measured peak on CPU


@pytest.mark.compiles
def test_the_run_round_trips_with_kernel_profile(cpu_run):
    from compile_profile.profile_run import ProfileRun as PR

    again = PR.from_json(cpu_run.to_json())
    assert again.variant("inductor/default").kernel_profile == cpu_run.variant("inductor/default").kernel_profile
    assert json.loads(cpu_run.to_json())["variants"][1]["kernel_profile"]["method"] == "host"


@pytest.mark.compiles
def test_kernel_timing_off_leaves_kernel_times_empty():
    ns = {"torch": torch, "x": torch.randn(128, 64)}
    run = run_cell("y = (x * 2).relu().sum()\n", ns, kernel_timing=False)
    assert run.status == "ok"
    assert run.variant("inductor/default").kernel_profile is None
    assert all(k.device_time_ms is None for k in run.kernels)


@pytest.mark.compiles
def test_a_failing_pass_is_an_error_of_its_stage_not_a_failed_run(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("profiler unavailable")

    monkeypatch.setattr(kernel_profiler, "record_trace", broken)
    ns = {"torch": torch, "x": torch.randn(128, 64)}
    run = run_cell("y = (x * 3).relu().sum()\n", ns, backend="aot_eager")  # the pass's failure, any backend's
    assert run.status == "ok" and run.speedup is not None
    # the eager variant's pass records its trace the same way, and fails on its own
    assert sorted(e.variant for e in run.errors) == ["aot_eager", "eager"]
    assert all(e.stage == "kernel timing" and "profiler unavailable" in e.message for e in run.errors)


PARTITIONED_CODE = """
triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''{add}''', device_str='cuda')

def partition_0(args):
    arg0_1, = args
    buf0 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
    triton_poi_fused_add_0.run(arg0_1, buf0, 4096, stream=stream0)
    # Topologically Sorted Source Nodes: [sdpa], Original ATen: [aten._scaled_dot_product_flash_attention]
    buf1 = torch.ops.aten._scaled_dot_product_flash_attention.default(buf0, buf0, buf0)
    return (buf1, )

class Runner:
    def call(self, args):
        arg0_1, = args
        partition0_args = [arg0_1]
        (buf2, ) = self.partitions[0](partition0_args)
        extern_kernels.mm(buf2, buf2, out=buf3)
        return (buf3, )
""".format(add=TRITON_SOURCE.format(name="triton_poi_fused_add_0"))


def test_graph_partitions_and_fallback_ops_are_launch_sites():
    """Under CUDA graphs Inductor moves launches into partition_N functions; fallback ops such as
    SDPA are assignments.  Both only appear on GPU."""
    from compile_profile.engine.trace.output_code import parse_output_code

    assert [(kind, name) for kind, name, _ in call_sites(PARTITIONED_CODE)] == [
        ("triton", "triton_poi_fused_add_0"),
        ("extern", "torch.ops.aten._scaled_dot_product_flash_attention.default"),
        ("extern", "extern_kernels.mm"),
    ]
    kernels = {k.name: k for k in parse_output_code(PARTITIONED_CODE).kernels}
    assert kernels["triton_poi_fused_add_0"].launches == [
        "triton_poi_fused_add_0.run(arg0_1, buf0, 4096, stream=stream0)"
    ]
    sdpa = kernels["torch.ops.aten._scaled_dot_product_flash_attention.default"]
    assert sdpa.language == "extern" and sdpa.aten_ops == ["aten._scaled_dot_product_flash_attention"]
    assert kernels["extern_kernels.mm"].aten_ops == ["aten.mm"]  # no comment above: named after the callee


# -- CPU: host ops a compiled variant ran outside its graphs -----------------------------------

CPU_OUTPUT_CODE = """
from torch._inductor.select_algorithm import extern_kernels
async_compile = AsyncCompile()

cpp_fused_relu_0 = async_compile.cpp_pybinding(['float*', 'const float*'], r'''
extern "C" void kernel(float* in_out_ptr0, const float* in_ptr0) {}
''')

def call(args):
    arg0_1, arg1_1 = args
    buf0 = empty_strided_cpu((64, 64), (64, 1), torch.float32)
    extern_kernels.mm(arg0_1, arg1_1, out=buf0)
    cpp_fused_relu_0(buf0, arg0_1)
    return (buf0, )
"""
CPU_GRAPH = "inductor/default/0/0/aot_forward"


def cpu_region(b: TraceBuilder, t: float, module_path: str, dur: float = 100.0) -> None:
    """One compiled graph on CPU: region > call() > [aten::mm (the extern call, 40), kernel binding (30)]."""
    b.host("## Call CompiledFxGraph cpu ##", t, dur, cat="user_annotation")
    b.host(f"{module_path}(9): call", t + 1, dur - 2, cat="python_function")
    b.host("aten::mm", t + 2, 40)
    b.host("<built-in function kernel>", t + 50, 30, cat="python_function")


def cpu_step_trace(module_path: str, call_range: str) -> TraceBuilder:
    """One profiled call of a compiled training step on CPU, with what it ran outside its graphs:
    a clone and a matmul around a graph break, the compiled backward (a region inside an autograd
    op, with a contiguous copy of its gradient outside the region), a gradient hook's all-reduce,
    an op on another thread while the call ran, and the reset before the call (outside it)."""
    b = TraceBuilder()
    b.host("aten::zero_", 0, 30)  # the reset before each call: no part of the call
    b.host(call_range, 100, 1000, cat="user_annotation")
    b.host("Torch-Compiled Region: 0/0", 105, 120)  # Dynamo's range: an op, no '::'
    b.host("CompiledFunction", 108, 110)
    cpu_region(b, 110, module_path)
    b.host("aten::clone", 300, 50)
    b.host("aten::empty_like", 301, 5)
    b.host("aten::copy_", 310, 35)
    b.host("aten::matmul", 400, 60)
    b.host("aten::mm", 405, 50)
    b.host("autograd::engine::evaluate_function: CompiledFunctionBackward", 500, 200)
    b.host("CompiledFunctionBackward", 501, 198)
    b.host("aten::contiguous", 502, 10)
    b.host("aten::clone", 503, 8)
    cpu_region(b, 520, module_path, dur=150)
    b.host("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 800, 100)
    b.host("aten::detach", 801, 5)
    b.host("c10d::allreduce_", 810, 60)
    b.host("aten::add_", 811, 10)  # whatever a collective runs is collective
    b.events.append(
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 850, "dur": 20, "tid": 2, "pid": 1, "args": {}}
    )  # another thread, while the call ran
    b.events.append(
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": "gloo:all_reduce",
            "ts": 860,
            "dur": 20,
            "tid": 3,
            "pid": 1,
            "args": {},
        }
    )  # a range, no op: eager does not count it either
    return b


@pytest.fixture
def cpu_module_path(tmp_path):
    path = tmp_path / "ccpu.py"
    path.write_text(CPU_OUTPUT_CODE)
    return str(path)


def test_cpu_ops_outside_compiled_graphs_count_by_the_eager_rule_once(cpu_module_path):
    from compile_profile.engine.kernels.attribution import CALL_RANGE

    kernels = kernels_of(CPU_OUTPUT_CODE, CPU_GRAPH)
    result = attribute(
        cpu_step_trace(cpu_module_path, CALL_RANGE).trace(),
        kernels,
        variant="inductor/default",
        calls=1,
        device_type="cpu",
    )
    times = {obs.kernel.name: obs.time_us for obs in result.observations.values()}
    assert times == {"extern_kernels.mm": 80.0, "cpp_fused_relu_0": 60.0}  # both regions' calls
    # outside the graphs: clone 50 + matmul 60 + contiguous 10 (not the backward's wrapper around its
    # region) + AccumulateGrad 100 + the other thread's add 20; not the reset's zero_, not the regions' ops
    assert result.outside_graphs_us == pytest.approx(240.0)
    assert result.total_us == pytest.approx(100 + 150 + 240)
    assert dict(result.unmatched_kinds) == pytest.approx(
        {"copy": 60.0, "library": 60.0, "collective": 60.0, "aten": 60.0}
    )
    assert result.unmatched[("aten::contiguous", "outside compiled graphs")] == pytest.approx(10.0)
    assert not any("CompiledFunctionBackward" in name for name, _ in result.unmatched)
    run = run_of(kernels)
    run.device = Device("cpu", "cpu")
    compiled_times.apply(result, run)
    kp = run.variant("inductor/default").kernel_profile
    bd = kp.breakdown
    assert (bd.library_ms, bd.generated_ms, bd.copy_ms, bd.collective_ms, bd.aten_ms) == pytest.approx(
        (0.140, 0.060, 0.060, 0.060, 0.060)
    )
    # the regions' time outside their kernels and extern calls (the output code's Python) is no part
    assert kp.total_ms - bd.kernels_ms == pytest.approx((250 - 80 - 60) / 1e3)
    assert kp.outside_graphs_ms == pytest.approx(0.240)


def test_cpu_ops_outside_graphs_split_as_the_eager_pass_splits_the_same_ops(cpu_module_path):
    """The eager pass's CPU rule and the compiled variant's, on the same op trees."""
    from compile_profile.engine.kernels.attribution import CALL_RANGE
    from compile_profile.engine.kernels.eager_times import CALL_RANGE as EAGER_CALL
    from compile_profile.engine.kernels.eager_times import attribute_eager

    b = cpu_step_trace(cpu_module_path, EAGER_CALL)
    b.events = [e for e in b.events if e["ts"] < 500 or e["ts"] >= 800]  # no compiled backward in eager
    eager = attribute_eager(b.trace(), calls=1, device_type="cpu")
    for e in b.events:
        e["name"] = CALL_RANGE if e["name"] == EAGER_CALL else e["name"]
    compiled = attribute(
        b.trace(), kernels_of(CPU_OUTPUT_CODE, CPU_GRAPH), variant="inductor/default", calls=1, device_type="cpu"
    )
    # eager also counts the matmul inside the region (an op there, a region only to the compiled variant)
    assert eager.parts == pytest.approx({"library": 60.0 + 40.0, "copy": 50.0, "collective": 60.0, "aten": 60.0})
    assert dict(compiled.unmatched_kinds) == pytest.approx(
        {"library": 60.0, "copy": 50.0, "collective": 60.0, "aten": 60.0}
    )


def test_a_cpu_trace_without_the_call_range_counts_no_op_outside_graphs(cpu_module_path):
    result = attribute(
        cpu_step_trace(cpu_module_path, "some other range").trace(),
        kernels_of(CPU_OUTPUT_CODE, CPU_GRAPH),
        variant="inductor/default",
        calls=1,
        device_type="cpu",
    )
    assert result.outside_graphs_us is None and not result.unmatched_kinds
    assert result.total_us == pytest.approx(250.0)


# -- the calls a pass's figures come from (engine/kernels/profiled_calls.py) ------------------------------------


def _calls_trace(module_path: str, slow_call: int | None = None):
    """Three compiled calls, each inside ``CALL_RANGE``, with a reset between them; in ``slow_call`` the add
    kernel ran 1000x longer (as a kernel a stall lands in) and an eager kernel ran outside the graphs."""
    from compile_profile.engine.kernels.attribution import CALL_RANGE

    b = TraceBuilder()
    for i in range(3):
        t = 1000.0 + 300 * i
        b.host(CALL_RANGE, t - 1, 150, cat="user_annotation")
        one_call(b, t, module_path)
        if i == slow_call:
            b.events[-5]["dur"] = 2000.0  # the add kernel's device event
            b.launch(t + 120, "elementwise_kernel", t + 125, 4.0)
        b.host("aten::copy_", t + 200, 20)  # the reset before the next call: in no call
    return b.trace()


def test_a_trace_splits_into_its_calls_with_the_device_events_each_launched(module_path):
    from compile_profile.engine.kernels.attribution import CALL_RANGE

    calls = chrome_trace.split_calls(_calls_trace(module_path), CALL_RANGE)
    assert len(calls) == 3
    for i, call in enumerate(calls):
        start = 1000.0 + 300 * i - 1
        assert all(start <= ev.ts <= start + 150 for ev in call.host)  # the reset after each call is in none
        assert len(call.device) == 4 and all(d.launcher in call.host for d in call.device)


def test_one_calls_slow_kernel_does_not_move_its_median_and_the_parts_still_add_up(module_path):
    from compile_profile.engine.kernels.attribution import CALL_RANGE
    from compile_profile.engine.kernels.index import KernelIndex

    kernels = kernels_of(OUTPUT_CODE)
    index = KernelIndex(kernels)
    per_call = [
        attribute(t, kernels, variant="inductor/default", calls=1, device_type="cuda", index=index)
        for t in chrome_trace.split_calls(_calls_trace(module_path, slow_call=1), CALL_RANGE)
    ]
    result = compiled_times.combine(per_call)
    add = next(o for o in result.observations.values() if o.kernel.name == "triton_poi_fused_add_0")
    assert add.time_us / result.calls == pytest.approx(2.0)  # each call's 2 µs, not the mean's 668 µs
    assert add.launches == 3 and len(add.launch_args) == 3  # counts are summed, not medians
    assert not result.unmatched  # the median call ran nothing outside its graph
    run = run_of(kernels)
    compiled_times.apply(result, run)
    kp = run.variant("inductor/default").kernel_profile
    assert kp.outside_graphs_ms == 0.0
    assert kp.breakdown.kernels_ms == pytest.approx(kp.total_ms) == pytest.approx(19.0 / 1e3)
    assert sum(k.device_time_ms or 0.0 for k in kernels) == pytest.approx(kp.attributed_ms)


def test_a_cpu_pass_sets_preempted_calls_aside_unless_all_were_and_a_gpu_pass_keeps_every_call():
    from compile_profile.engine.kernels.profiled_calls import CallRecord, chosen, pass_calls

    records = [CallRecord(1e-3, 0.0), CallRecord(25e-3, 20e-3), CallRecord(1.1e-3, 0.01e-3), CallRecord(1e-3, None)]
    assert [r.preempted for r in records] == [False, True, False, False]  # 10 µs of 1.1 ms is under 5 %
    assert chosen(records, "host") == [0, 2, 3]
    assert chosen(records, "cupti") == [0, 1, 2, 3]  # device times: a busy host does not stretch them
    every = [CallRecord(25e-3, 20e-3)] * 3
    assert chosen(every, "host") == [0, 1, 2]
    info = pass_calls(records, chosen(records, "host"))
    assert (info.profiled, info.preempted) == (4, 1) and info.call_ms == pytest.approx(1.0)


class _Waits:
    """``host_load.ThreadWaits`` as a busy machine reads it: each call's threads wait ``waits[i]`` seconds."""

    available = True

    def __init__(self, waits):
        self.waits, self.total, self.reads = list(waits), 0.0, 0

    def waited_s(self):
        self.reads += 1
        if self.reads % 2 == 0 and self.waits:  # the read after a call: its wait has happened
            self.total += self.waits.pop(0)
        return self.total

    def close(self):
        pass


def test_a_busy_machine_adds_profiled_calls_until_three_were_not_preempted_and_an_idle_one_adds_none(monkeypatch):
    from compile_profile.engine.timing import host_load

    def records_with(waits, calls):
        monkeypatch.setattr(host_load, "ThreadWaits", lambda: _Waits(waits))
        records = []
        ran = []
        kernel_profiler.record_trace(
            lambda: ran.append(torch.ones(4).sum()), lambda: None, calls=calls, device_type="cpu", records=records
        )
        return records, len(ran)

    # each list starts with the profiler's warm-up step, which is not a profiled call
    idle, ran = records_with([0.0] * 20, calls=4)
    assert len(idle) == 4 and ran == 5 and not any(r.preempted for r in idle)  # the calls asked for, no more
    one_hit, _ = records_with([0.0, 1.0, 0.0, 0.0, 0.0], calls=4)
    assert [r.preempted for r in one_hit] == [True, False, False, False]  # three left: enough
    busy, _ = records_with([0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], calls=4)
    assert [r.preempted for r in busy] == [True] * 4 + [False] * 3  # on until three were not preempted
    hopeless, _ = records_with([0.0] + [1.0] * 20, calls=4)
    assert len(hopeless) == 8 and all(r.preempted for r in hopeless)  # at most as many again as asked for


def test_a_cpu_pass_lets_the_profiler_settle_for_a_short_call_and_not_for_a_long_one_or_on_a_gpu():
    settle = kernel_profiler.SETTLE_MS
    assert kernel_profiler.settling_for(0.05, "cpu") == kernel_profiler.MAX_SETTLING  # 40 calls fill it: capped
    assert kernel_profiler.settling_for(settle / 4, "cpu") == 4
    assert kernel_profiler.settling_for(settle, "cpu") == 0  # its first call is one of a median of three or more
    assert kernel_profiler.settling_for(0.05, "cuda") == 0  # device times: the host's profiler does not stretch them
    assert kernel_profiler.settling_for(None, "cpu") == 0


def test_the_calls_recorded_while_the_profiler_settles_are_neither_profiled_calls_nor_a_figures_source(monkeypatch):
    from compile_profile.engine.timing import host_load

    # settling calls first, then four calls of which the second was preempted
    monkeypatch.setattr(host_load, "ThreadWaits", lambda: _Waits([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]))
    records, ran = [], []
    trace = kernel_profiler.record_trace(
        lambda: ran.append(torch.ones(4).sum()), lambda: None, calls=4, device_type="cpu", settling=2, records=records
    )
    assert len(ran) == 1 + 2 + 4  # the schedule's warm-up, the settling calls, the calls asked for
    assert [r.settling for r in records] == [True, True, False, False, False, False]
    traces, calls = kernel_profiler.chosen_call_traces(trace, records, "no such range", "host")
    assert traces is None and (calls.profiled, calls.preempted) == (4, 1)  # no ranges: every settled call stands


def test_the_figures_of_a_pass_come_from_its_settled_calls_alone():
    from compile_profile.engine.kernels.profiled_calls import CallRecord

    def op(name, ts, dur):
        return chrome_trace.HostEvent(name=name, cat="user_annotation", ts=ts, dur=dur, tid=1, args={})

    # two settling calls, much slower, then three: each call a range with one op in it
    spans = [(0, 500), (600, 400), (1100, 50), (1200, 52), (1300, 48)]
    host = [ev for ts, dur in spans for ev in (op("call", ts, dur), op("aten::addmm", ts + 1, dur - 2))]
    trace = chrome_trace.ChromeTrace(host=host, device=[], device_properties=[])
    records = [CallRecord(d / 1e6, 0.0, settling=i < 2) for i, (_, d) in enumerate(spans)]
    traces, calls = kernel_profiler.chosen_call_traces(trace, records, "call", "host")
    assert [t.host[0].ts for t in traces] == [1100, 1200, 1300]
    assert calls.profiled == 3 and calls.call_ms == pytest.approx(0.050)


def test_the_device_is_busy_once_for_kernels_on_concurrent_streams():
    from types import SimpleNamespace as E

    from compile_profile.engine.kernels.profiled_calls import busy_us

    # a backward's kernels back to back, an all-reduce on another stream beside the second, a gap, a copy
    events = [E(ts=0.0, dur=10.0), E(ts=10.0, dur=10.0), E(ts=12.0, dur=15.0), E(ts=40.0, dur=2.0)]
    assert busy_us(events) == pytest.approx(27.0 + 2.0)
    assert busy_us([]) == 0.0
