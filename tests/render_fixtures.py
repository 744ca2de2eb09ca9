"""Synthetic ProfileRuns shaped like what the engine records, for the renderer tests.

They are built by hand so renderer tests need no torch.compile; their contents
(kernel and graph source, reasons) are copied in form from real Inductor and
Dynamo output.
"""

from __future__ import annotations

import random

from compile_profile.profile_run import (
    AutotuneResult,
    CacheLookup,
    CacheStats,
    CallBreakdown,
    CompileSpan,
    Correctness,
    Device,
    DevicePeaks,
    EagerLineTime,
    ErrorInfo,
    Graph,
    GraphBreak,
    Guard,
    Kernel,
    KernelProfile,
    Note,
    ProfileRun,
    Recommendation,
    Recompile,
    Speedup,
    Timing,
    Variant,
)

T0 = 1_796_214_345.0  # Dynamo's span clock: epoch seconds
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(1)>"

CELL = """\
import torch
x = torch.randn(1024, 1024, device=device)
w = torch.randn(1024, 1024, device=device)
y = torch.relu(x @ w) + 1
print(y.sum())
z = (y * 2).softmax(-1)
"""

TRITON_SOURCE = """\
import triton
import triton.language as tl

@triton.jit
def triton_poi_fused_add_relu_0(in_out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1048576
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = tl.full([XBLOCK], True, tl.int1)
    tmp0 = tl.load(in_out_ptr0 + (xindex), None)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tmp3 = 1.0
    tmp4 = tmp2 + tmp3
    tl.store(in_out_ptr0 + (xindex), tmp4, None)
"""

CPP_SOURCE = """\
extern "C"  void kernel(float* in_out_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        #pragma omp for
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(1048576L); x0+=static_cast<int64_t>(16L))
        {
            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
            auto tmp1 = at::vec::clamp_min(tmp0, decltype(tmp0)(0));
            tmp1.store(in_out_ptr0 + static_cast<int64_t>(x0));
        }
    }
}
"""

GRAPH_CODE = """\
def forward(self, L_x_ : torch.Tensor, L_w_ : torch.Tensor):
    l_x_ = L_x_
    l_w_ = L_w_
    matmul = l_x_ @ l_w_;  l_x_ = l_w_ = None
    relu = torch.relu(matmul);  matmul = None
    y = relu + 1;  relu = None
    sum_1 = y.sum()
    return (sum_1, y)
"""

# As torch 2.13's Dynamo words a graph break on print().
PRINT_BREAK_REASON = """\
Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['Tensor'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['Tensor']. Consider using an equivalent alternative function/method to `print`.

  Developer debug context: builtin print [<class 'torch._dynamo.variables.tensor.TensorVariable'>] False
"""


def sampled_timing(samples: list[float], method: str = "host") -> Timing:
    """The ``Timing`` of ``samples``: sorted, its median, p10 and p90 the samples at those ranks, and their mean."""
    s = sorted(samples)
    n = len(s)
    return Timing(
        median_ms=s[n // 2],
        p10_ms=s[n // 10],
        p90_ms=s[(9 * n) // 10],
        n=n,
        mean_ms=sum(s) / n,
        min_ms=s[0],
        samples_ms=s,
        method=method,
    )


def _timing(median: float, spread: float, n: int, seed: int) -> Timing:
    rng = random.Random(seed)
    return sampled_timing([median + rng.uniform(-spread, spread) for _ in range(n)], "cuda_events")


def _profile(
    method: str, library: float, generated: float, aten: float, copy: float, lines: list[EagerLineTime] | None = None
) -> KernelProfile:
    """A profiler pass's figures for one variant: its call breakdown (and eager's time per cell line)."""
    b = CallBreakdown(library_ms=library, generated_ms=generated, aten_ms=aten, copy_ms=copy)
    on_lines = sum(e.time_ms for e in lines or [])
    return KernelProfile(
        calls=10,
        total_ms=b.kernels_ms,
        attributed_ms=on_lines if lines else b.kernels_ms,
        method=method,
        breakdown=b,
        eager_lines=list(lines or []),
    )


# The ceilings the engine measured on an H200 (engine/kernels/roofline.py's method, in form).
H200_PEAKS = DevicePeaks(
    copy_gbps=4100.0,
    bf16_matmul_tflops=790.0,
    vendor_gbps=4800.0,
    vendor_bf16_tflops=989.0,
    method=(
        "measured this session on NVIDIA H200: device-to-device copy of 1.00 GiB (read + write), best of 20; "
        "bf16 torch.mm on random data, best of 10 for each of 8192x8192x8192 (best: 8192x8192x8192); "
        "vendor figures from datasheets (dense, no sparsity)"
    ),
)


def _rates(
    kernels: list[Kernel], peaks: DevicePeaks, moved: dict[str, int], flops: dict[str, int], low_precision: bool = False
) -> list[Kernel]:
    """Each kernel's bytes and FLOPs per call, its achieved rates over its device time and their shares of
    ``peaks``, as engine/kernels/roofline.py fills them (a compute share only for bf16/fp16 operands); keyed by
    the kernel's name without Inductor's trailing counter."""
    for k in kernels:
        key = k.name.rstrip("0123456789").rstrip("_")
        if key not in moved or not k.device_time_ms:
            continue
        seconds = k.device_time_ms / 1e3
        k.bytes, k.bytes_source = moved[key], "inductor"
        k.achieved_gbps = k.bytes / seconds / 1e9
        if 0 < k.achieved_gbps <= peaks.copy_gbps:
            k.bandwidth_share = k.achieved_gbps / peaks.copy_gbps
        if key in flops:
            k.flops = flops[key]
            k.achieved_tflops = k.flops / seconds / 1e12
            if low_precision:
                k.compute_share = k.achieved_tflops / peaks.bf16_matmul_tflops
    return kernels


def _guards(x: str, w: str, x_line: int, w_line: int, size: int) -> list[Guard]:
    """What Dynamo guards a graph of ``x @ w`` on, in form as torch 2.13 prints it (C++ guard manager leaves)."""

    def tensor(src: str) -> str:
        return (
            f"check_tensor({src}, Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), "
            f"torch.float32, device=0, requires_grad=False, size=[{size}, {size}], stride=[{size}, 1])"
        )

    return [
        Guard(code="___check_global_state()", kind="global state"),
        Guard(code="___check_torch_function_mode_stack()", kind="global state"),
        Guard(code=tensor(x), kind="tensor", source=x, line=x_line),
        Guard(
            code=f"hasattr({x}, '_dynamo_dynamic_indices') == False", kind="dynamic-shape marks", source=x, line=x_line
        ),
        Guard(code=tensor(w), kind="tensor", source=w, line=w_line),
        Guard(
            code=f"hasattr({w}, '_dynamo_dynamic_indices') == False", kind="dynamic-shape marks", source=w, line=w_line
        ),
        Guard(code=f"check_no_aliasing({x}, {w})", kind="aliasing", source=x, line=x_line),
        Guard(code="___check_obj_id(G['torch'], 139872113449344)", kind="identity", source="G['torch']"),
        Guard(code="___check_obj_id(G['torch'].relu, 139872025431152)", kind="identity", source="G['torch'].relu"),
    ]


def without_breakdown(run: ProfileRun) -> ProfileRun:
    """``run`` as a profile from before the call breakdown: no breakdown, no eager line times."""
    for v in run.variants:
        if v.kernel_profile is not None:
            v.kernel_profile.breakdown = None
            v.kernel_profile.eager_lines = []
    return run


def cuda_run() -> ProfileRun:
    """A CUDA run with a sweep: two compiled variants, a graph break, a recompile and timed Triton kernels."""
    # Eager: cuBLAS mm, ATen's relu, add, sum, mul and softmax kernels, randn's normal_, print's copy to host.
    eager = Variant(
        name="eager",
        timing=_timing(4.12, 0.3, 50, 1),
        peak_memory_bytes=25_165_824,
        kernel_profile=_profile(
            "cupti",
            library=1.05,
            generated=0.0,
            aten=2.5,
            copy=0.0078125,
            lines=[
                EagerLineTime(line=2, time_ms=0.03125, ops=["aten::normal_"]),
                EagerLineTime(line=3, time_ms=0.03125, ops=["aten::normal_"]),
                EagerLineTime(line=4, time_ms=2.25, ops=["aten::mm", "aten::add", "aten::relu"]),
                EagerLineTime(line=5, time_ms=0.15625, ops=["aten::sum", "aten::_local_scalar_dense"]),
                EagerLineTime(line=6, time_ms=1.0703125, ops=["aten::_softmax", "aten::mul"]),
            ],
        ),
    )
    default = Variant(
        name="inductor/default",
        backend="inductor",
        mode="default",
        timing=_timing(1.80, 0.1, 50, 2),
        first_call_s=12.9,
        compile_s=12.3,
        peak_memory_bytes=16_777_216,
        torch_compile_call="torch.compile(fn)",
        # two frames (the cell's graph break at line 5), the first one's phases nested as Dynamo's spans are
        compile_spans=[
            CompileSpan("0/0", "bytecode_tracing", T0 + 0.1, 0.6, 3),
            CompileSpan("0/0", "code_gen", T0 + 2.0, 7.5, 6),
            CompileSpan("0/0", "inductor_compile", T0 + 1.5, 8.2, 4),
            CompileSpan("0/0", "backend_compile", T0 + 0.8, 9.0, 3),
            CompileSpan("0/0", "compile_attempt_0", T0 + 0.05, 9.8, 2),
            CompileSpan("0/0", "entire_frame_compile", T0 + 0.02, 9.9, 1),
            CompileSpan("0/0", "fx_codegen_and_compile", T0 + 1.9, 7.7, 5),
            CompileSpan("0/0", "dynamo", T0, 10.0, 0),
            CompileSpan("0/0", "pass.post_grad_passes.tiny", T0 + 1.6, 0.001, 5),
            CompileSpan("1/0", "dynamo", T0 + 10.2, 2.1, 0),
            CompileSpan("1/0", "backend_compile", T0 + 10.4, 1.8, 1),
        ],
        cache_lookups=[
            CacheLookup("0/0", "aot_autograd", "miss", "full_miss"),
            CacheLookup("0/0", "fx_graph", "miss", "full_miss"),
            CacheLookup("1/0", "fx_graph", "hit"),
        ],
        # the kernels below: extern mm, two Triton kernels; print's sum and copy run in ATen between the graphs
        kernel_profile=_profile("cupti", library=1.05, generated=0.57, aten=0.078125, copy=0.0078125),
    )
    autotune = Variant(
        name="inductor/max-autotune",
        backend="inductor",
        mode="max-autotune",
        timing=_timing(1.52, 0.08, 50, 3),
        first_call_s=41.0,
        compile_s=40.2,
        peak_memory_bytes=18_874_368,
        recompiled_during_timing=True,
        torch_compile_call='torch.compile(fn, mode="max-autotune")',
        kernel_profile=_profile("cupti", library=0.96875, generated=0.40625, aten=0.078125, copy=0.0078125),
        # as mode_events.autotune_result reads an mm_template_autotuning span: cuBLAS beat the Triton configs
        autotune=[
            AutotuneResult(
                op="mm",
                shape="[[1024, 1024], [1024, 1024]]",
                dtypes="[torch.float32, torch.float32]",
                choices=18,
                triton_choices=17,
                best="mm",
                best_description="extern_mm",
                best_ms=0.41,
                best_triton="triton_mm_4",
                best_triton_ms=0.45,
                autotune_s=12.3,
                compile_id="0/0",
            )
        ],
    )
    kernels = [
        Kernel(
            name="triton_poi_fused_add_relu_0",
            language="triton",
            source=TRITON_SOURCE,
            graph_id="g0",
            aten_ops=["aten.relu", "aten.add"],
            lines=[4],
            variant="inductor/default",
            device_time_ms=0.42,
            share=0.42 / 1.62,
        ),
        Kernel(
            name="extern_kernels.mm",
            language="extern",
            source="extern_kernels.mm(arg0_1, arg1_1, out=buf0)",
            graph_id="g0",
            aten_ops=["aten.mm"],
            lines=[4],
            variant="inductor/default",
            device_time_ms=1.05,
            share=1.05 / 1.62,
        ),
        Kernel(
            name="triton_per_fused__softmax_mul_1",
            language="triton",
            source=TRITON_SOURCE.replace("poi_fused_add_relu_0", "per_fused__softmax_mul_1"),
            graph_id="g1",
            aten_ops=["aten.mul", "aten._softmax"],
            lines=[6],
            variant="inductor/default",
            device_time_ms=0.15,
            share=0.15 / 1.62,
        ),
    ]
    return ProfileRun(
        id="a1b2c3d4e5f6",
        created_at="2026-11-29T12:00:00+00:00",
        label="relu matmul",
        cell_source=CELL,
        device=Device(type="cuda", name="NVIDIA H200"),
        torch_version="2.13.0",
        variants=[eager, default, autotune],
        speedup=Speedup(value=2.71, low=2.60, high=2.83, variant="inductor/max-autotune"),
        graphs=[
            Graph(
                id="g0",
                kind="dynamo",
                code=GRAPH_CODE,
                variant="inductor/default",
                compile_id="0/0",
                lines=[2, 3, 4],
                guards=_guards("L['x']", "L['w']", 2, 3, 1024),
            ),
            Graph(
                id="g1",
                kind="dynamo",
                code="def forward(self, L_y_):\n    return ((L_y_ * 2).softmax(-1),)\n",
                variant="inductor/default",
                compile_id="1/0",
                lines=[6],
                guards=[
                    Guard(code="___check_global_state()", kind="global state"),
                    Guard(
                        code="check_tensor(L['y'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, "
                        "AutogradCUDA), torch.float32, device=0, requires_grad=False, size=[1024, 1024], "
                        "stride=[1024, 1])",
                        kind="tensor",
                        source="L['y']",
                        line=4,
                    ),
                ],
            ),
            Graph(id="g0-post", kind="post_grad", code=GRAPH_CODE, variant="inductor/default", compile_id="0/0"),
        ],
        graph_breaks=[
            GraphBreak(
                reason=PRINT_BREAK_REASON,
                line=5,
                code_line="print(y.sum())",
                variant="inductor/default",
                compile_id="0/0",
            )
        ],
        recompiles=[
            Recompile(
                reason="tensor 'L['x']' size mismatch at index 0. expected 1024, actual 2048",
                variant="inductor/max-autotune",
                compile_id="0/1",
                during_timing=True,
                source="L['x']",
                line=2,
                change="size",  # what the engine reads from the reason (engine.trace.guards.failure_change)
                dim=0,
                expected="1024",
                actual="2048",
            )
        ],
        kernels=_rates(
            kernels,
            H200_PEAKS,
            moved={
                "triton_poi_fused_add_relu": 8_388_608,
                "extern_kernels.mm": 12_582_912,
                "triton_per_fused__softmax_mul": 8_388_608,
            },
            flops={"extern_kernels.mm": 2 * 1024**3},
        ),
        device_peaks=H200_PEAKS,
        memory_ratio=25_165_824 / 18_874_368,  # eager's peak over the speedup's variant's
        compile_phases={"dynamo": 1.2, "aot_autograd": 0.9, "inductor_codegen": 3.4, "triton_compile": 6.8},
        cache=CacheStats(fx_graph_hits=0, fx_graph_misses=2, state="cold"),
        correctness=Correctness(ok=True, max_abs_diff=1.9e-6, max_rel_diff=4.1e-7, compared=["y", "z"]),
        cell_runs=153,
        recommendation=Recommendation(
            variant="inductor/max-autotune",
            call='torch.compile(fn, mode="max-autotune")',
        ),
    )


def cpu_run() -> ProfileRun:
    """A CPU run: C++ kernels without device times, no memory figures, a warm cache."""
    return ProfileRun(
        id="cpu000000001",
        created_at="2026-11-29T12:05:00+00:00",
        label="",
        cell_source=CELL,
        device=Device(type="cpu", name="x86_64"),
        torch_version="2.13.0",
        variants=[
            # host times of each op's call: mkldnn/BLAS mm, ATen's elementwise ops and softmax
            Variant(
                name="eager",
                timing=_timing(9.6, 0.8, 20, 4),
                kernel_profile=_profile(
                    "host",
                    library=4.5,
                    generated=0.0,
                    aten=3.75,
                    copy=0.0,
                    lines=[
                        EagerLineTime(line=2, time_ms=0.5, ops=["aten::normal_"]),
                        EagerLineTime(line=3, time_ms=0.5, ops=["aten::normal_"]),
                        EagerLineTime(line=4, time_ms=5.5, ops=["aten::mm", "aten::relu", "aten::add"]),
                        EagerLineTime(line=5, time_ms=0.25, ops=["aten::sum"]),
                        EagerLineTime(line=6, time_ms=1.5, ops=["aten::_softmax", "aten::mul"]),
                    ],
                ),
            ),
            Variant(
                name="inductor/default",
                backend="inductor",
                mode="default",
                timing=_timing(10.1, 0.9, 20, 5),
                compile_s=0.8,
                first_call_s=1.1,
                kernel_profile=_profile("host", library=4.5, generated=3.25, aten=0.75, copy=0.0),
            ),
        ],
        speedup=Speedup(value=0.95, low=0.88, high=1.03, variant="inductor/default"),
        graphs=[Graph(id="g0", kind="dynamo", code=GRAPH_CODE, variant="inductor/default", lines=[2, 3, 4])],
        kernels=[
            Kernel(
                name="cpp_fused_add_relu_0",
                language="cpp",
                source=CPP_SOURCE,
                graph_id="g0",
                aten_ops=["aten.relu", "aten.add"],
                lines=[4],
                variant="inductor/default",
            ),
            Kernel(
                name="extern_kernels.mm",
                language="extern",
                source="extern_kernels.mm(arg0_1, arg1_1, out=buf0)",
                graph_id="g0",
                aten_ops=["aten.mm"],
                lines=[4],
                variant="inductor/default",
            ),
        ],
        compile_phases={"dynamo": 0.2, "inductor_codegen": 0.4},
        cache=CacheStats(fx_graph_hits=1, fx_graph_misses=0, state="warm"),
        correctness=Correctness(ok=False, max_abs_diff=0.031, max_rel_diff=0.002, compared=["y"], mismatched=["y"]),
    )


def failed_run() -> ProfileRun:
    """Compilation failed: eager timed, the compiled variant errored at a cell line, status failed."""
    return ProfileRun(
        id="fail00000001",
        created_at="2026-11-29T12:10:00+00:00",
        label="broken",
        cell_source=CELL,
        device=Device(type="cpu", name="x86_64"),
        torch_version="2.13.0",
        variants=[
            Variant(name="eager", timing=_timing(9.6, 0.8, 20, 6)),
            Variant(name="inductor/default", backend="inductor", error="InductorError: LoweringException"),
        ],
        errors=[
            ErrorInfo(
                stage="compile",
                message="LoweringException: NotImplementedError: aten.weird\n  target: aten.weird",
                type="InductorError",
                variant="inductor/default",
                line=4,
                traceback="Traceback ...",
            )
        ],
        status="failed",
    )


def interrupted_run() -> ProfileRun:
    run = cpu_run()
    run.id = "intr00000001"
    run.status = "interrupted"
    run.speedup = None
    run.variants[1].timing = None
    run.errors = [
        ErrorInfo(stage="timing", message="KeyboardInterrupt", type="KeyboardInterrupt", variant="inductor/default")
    ]
    return run


def hostile_run() -> ProfileRun:
    """User-controlled text everywhere carries markup that must come out as text."""
    run = cuda_run()
    run.id = "hostile00001"
    run.label = f"label {HOSTILE}"
    run.cell_source = CELL.replace("print(y.sum())", f"print('{HOSTILE}')")
    run.graph_breaks[0].reason = f"builtin: print {HOSTILE}"
    run.graph_breaks[0].code_line = f"print('{HOSTILE}')"
    run.recompiles[0].reason = f"guard failed {HOSTILE}"
    run.recompiles[0].source = f"L['{HOSTILE}']"
    run.graphs[0].guards[2].code = f"check_tensor(L['x'], {HOSTILE})"
    run.graphs[0].guards[2].source = f"L['{HOSTILE}']"
    run.variants[2].autotune[0].best = f"triton_{HOSTILE}"
    run.variants[2].cudagraph_skips = [f"skipping cudagraphs due to {HOSTILE}"]
    run.graphs[0].code = GRAPH_CODE + f"    # {HOSTILE}\n"
    run.kernels[0].name = f"triton_{HOSTILE}"
    run.kernels[0].source = TRITON_SOURCE + f"# {HOSTILE}\n"
    run.kernels[0].aten_ops = [f"aten.{HOSTILE}"]
    run.errors = [ErrorInfo(stage="correctness", message=f"mismatch {HOSTILE}", variant="inductor/default", line=5)]
    run.correctness = Correctness(
        ok=False, max_abs_diff=0.5, mismatched=[HOSTILE], note=Note("text", values={"text": HOSTILE})
    )
    run.notes = [Note("text", values={"text": f"note {HOSTILE}"})]
    run.recommendation = Recommendation(variant="inductor/max-autotune", call=f"torch.compile({HOSTILE})")
    run.notes.append(Note("already_compiled", values={"names": [HOSTILE]}))
    return run


def reduce_overhead_run() -> ProfileRun:
    """``cuda_run`` with a reduce-overhead variant whose CUDA graphs Inductor skipped (a mutated input)."""
    run = cuda_run()
    run.id = "redovh000001"
    run.variants.append(
        Variant(
            name="inductor/reduce-overhead",
            backend="inductor",
            mode="reduce-overhead",
            timing=_timing(1.84, 0.1, 50, 9),
            first_call_s=13.4,
            compile_s=12.8,
            peak_memory_bytes=16_777_216,
            torch_compile_call='torch.compile(fn, mode="reduce-overhead")',
            kernel_profile=_profile("cupti", library=1.05, generated=0.57, aten=0.078125, copy=0.0078125),
            # as Inductor words it in compilation_metrics' cudagraph_skip_reason
            cudagraph_skips=[
                "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
                '   File "<compile-profile cell>", line 4, in <cell>\n    y = torch.relu(x @ w) + 1'
            ],
        )
    )
    return run


def big_run(n_kernels: int = 1000) -> ProfileRun:
    """A run with many kernels, to keep every renderer's output bounded."""
    run = cuda_run()
    run.id = "big000000001"
    rng = random.Random(7)
    run.kernels = [
        Kernel(
            name=f"triton_poi_fused_{i}",
            language="triton" if i % 4 else "extern",
            source=TRITON_SOURCE.replace("add_relu_0", f"k{i}") * 3,
            graph_id="g0",
            aten_ops=["aten.add"],
            lines=[1 + i % 6],
            variant="inductor/default",
            device_time_ms=rng.uniform(0.001, 0.1),
        )
        for i in range(n_kernels)
    ]
    return run


def withheld_passes_run() -> ProfileRun:
    """The slower consistency run with two profiler passes withheld, eager's and inductor/default's (every
    profiled call preempted, as on a busy CPU): the Lines chart draws max-autotune alone, with two notes under
    it that once lay on top of each other and over the axis labels (issue 31)."""
    run = slower_and_faster_runs()[0]
    run.id, run.label = "withheld0001", "two passes withheld"
    for name in ("eager", "inductor/default"):
        profile = run.variant(name).kernel_profile
        assert profile is not None
        profile.preempted_calls, profile.waited_ms = profile.calls, 0.8
    # each kernel's share of its pass, which the views show in place of a withheld pass's times; the smallest as
    # long as a share reads ("0.07% of pass": the Kernels tab's time column cut it to "0.07% of…")
    shares = {
        "extern_kernels.mm": 0.62,
        "triton_poi_fused_add_relu_0": 0.1,
        "triton_per_fused__softmax_mul_sum_1": 0.2793,
    }
    for k in run.kernels:
        if k.variant == "inductor/default":
            k.share = shares.get(k.name, 0.0007)
    return run


def long_tail_timing(median_ms: float, p90_ms: float, n: int = 40) -> Timing:
    """Samples around ``median_ms`` with their slowest tenth and more near ``p90_ms``: a short budget on a busy
    machine, where a few stalled calls take 50-100 times the median (issue 31)."""
    tail = n // 10 + 1
    steady = [median_ms * (0.96 + 0.08 * i / (n - tail)) for i in range(n - tail)]
    stalled = [p90_ms * (0.8 + 0.2 * i) for i in range(tail)]  # the second of them is the p90
    return sampled_timing(steady + stalled, "perf_counter")


def long_tail_run() -> ProfileRun:
    """A CPU run whose p90s are 100 and 40 times its medians (0.5 ms eager, 0.4 ms compiled, eager's p90 54 ms):
    plotly's autoscaled axis ran to the whiskers and drew the medians' bars a pixel high (issue 31)."""
    run = cpu_run()
    run.id, run.label = "longtail0001", "a long tail of stalled calls"
    for v, (median, p90) in zip(run.variants, [(0.52, 54.0), (0.41, 16.0)]):
        assert v.timing is not None and v.kernel_profile is not None and v.kernel_profile.breakdown is not None
        scale = median / v.timing.median_ms  # the profiler pass's figures as a share of the call, as before
        v.timing = long_tail_timing(median, p90)
        b = v.kernel_profile.breakdown
        b.library_ms, b.generated_ms, b.aten_ms = b.library_ms * scale, b.generated_ms * scale, b.aten_ms * scale
        v.kernel_profile.total_ms = b.kernels_ms
        v.kernel_profile.attributed_ms *= scale
        for line in v.kernel_profile.eager_lines:
            line.time_ms *= scale
    value = run.variants[0].timing.median_ms / run.variants[1].timing.median_ms
    run.speedup = Speedup(value=value, low=value * 0.9, high=value * 1.1, variant="inductor/default")
    return run


ALL_RUNS = {
    "cuda": cuda_run,
    "cpu": cpu_run,
    "failed": failed_run,
    "interrupted": interrupted_run,
    "hostile": hostile_run,
    "big": big_run,
    "reduce_overhead": reduce_overhead_run,
}


# -- reading rendered HTML back ----------------------------------------------

from html.parser import HTMLParser  # noqa: E402

VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class ParsedHTML(HTMLParser):
    """Tags, text and table cells of an HTML document, and whether its elements nest properly."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text_parts: list[str] = []
        self.scripts: list[str] = []
        self.rows: list[list[str]] = []
        self.nesting_errors: list[str] = []
        self._stack: list[str] = []
        self._cell: list[str] | None = None
        self._in_script = False
        self.feed(text)
        self.close()
        if self._stack:
            self.nesting_errors.append(f"unclosed: {self._stack}")

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in VOID_ELEMENTS:
            return
        self._stack.append(tag)
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in VOID_ELEMENTS:
            return
        if not self._stack or self._stack[-1] != tag:
            self.nesting_errors.append(f"</{tag}> closes {self._stack[-1:] or 'nothing'}")
            return
        self._stack.pop()
        if tag == "script":
            self._in_script = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
            return
        self.text_parts.append(data)
        if self._cell is not None:
            self._cell.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]

    def event_handler_attributes(self) -> list[str]:
        return [f"{tag}.{name}" for tag, attrs in self.tags for name in attrs if name.lower().startswith("on")]


def attention_run(compiled_ms: float = 0.73) -> ProfileRun:
    """Hand-written attention on CUDA that keeps its 512 MiB score matrix (line 1), read again at line 2."""
    from compile_profile.profile_run import KeptTensor

    run = cuda_run()
    run.cell_source = "s = (q @ k.transpose(-2, -1)) / 8.0\no = torch.softmax(s.float(), -1).to(q.dtype) @ v\n"
    run.variants = [
        Variant(name="eager", timing=_timing(2.23, 0.01, 30, 7)),
        Variant(name="inductor/default", timing=_timing(compiled_ms, 0.005, 30, 8)),
    ]
    run.speedup = Speedup(
        value=2.23 / compiled_ms, low=2.2 / compiled_ms, high=2.26 / compiled_ms, variant="inductor/default"
    )
    run.kept_names, run.temporaries = ["s", "o"], []
    size = 16 * 16 * 1024 * 1024 * 2
    run.kept_tensors = [
        KeptTensor(
            name="s",
            line=1,
            used_at=[2],
            shape=[16, 16, 1024, 1024],
            dtype="bfloat16",
            bytes=size,
            bandwidth_gbps=4300.0,
            traffic_ms=2 * size / 4300e9 * 1e3,
        )
    ]
    return run


def drifting_run(*, eager_late: float, compiled_late: float, n: int = 30) -> ProfileRun:
    """Interleaved samples whose last third moved from (5.9, 3.0) ms to (eager_late, compiled_late) ms."""
    from compile_profile.engine.timing.interleaved import summarize_samples
    from compile_profile.stats import ratio_interval

    rng = random.Random(11)

    def samples(early: float, late: float) -> list[float]:
        third = n // 3
        levels = [early] * third + [(early + late) / 2] * (n - 2 * third) + [late] * third
        return [level * (1 + rng.uniform(-0.004, 0.004)) for level in levels]

    eager, compiled = samples(5.9, eager_late), samples(3.0, compiled_late)
    run = cpu_run()
    run.variants = [
        Variant(name="eager", timing=summarize_samples([s / 1e3 for s in eager], method="host")),
        Variant(name="inductor/default", timing=summarize_samples([s / 1e3 for s in compiled], method="host")),
    ]
    value, low, high = ratio_interval(eager, compiled)
    run.speedup = Speedup(value=value, low=low, high=high, variant="inductor/default")
    return run


# -- two runs of one cell, one slower than eager and one faster (tests/test_digest.py, ui-tests) ----------

SLOW_RUN_ID = "uiconsist0a1"  # A: both compiled variants slower than eager
FAST_RUN_ID = "uiconsist0b1"  # B: both faster

CONSISTENCY_CELL = """\
import torch
x = torch.randn(2048, 2048, device=device)
y = torch.relu(x @ x) + 1
z = (y * 2).softmax(-1)
out = z.sum()
"""


def _steady_timing(median_ms: float) -> Timing:
    samples = [median_ms * (1 + d) for d in (-0.04, -0.02, -0.01, 0.0, 0.0, 0.01, 0.02, 0.03, 0.05)]
    return Timing(
        median_ms=median_ms,
        p10_ms=samples[1],
        p90_ms=samples[-2],
        n=len(samples),
        mean_ms=sum(samples) / len(samples),
        min_ms=samples[0],
        samples_ms=samples,
        method="cuda_events",
    )


def _consistency_kernels(variant: str, times: dict[str, float], start: int) -> list[Kernel]:
    """A matmul and a fused relu-add on line 3, a softmax-sum fused over lines 4 and 5 (its time split
    evenly over them), and a copy tied to no cell line; numbered from ``start`` as Inductor counts."""
    shapes = [
        ("extern_kernels.mm", "extern", ["aten.mm"], [3]),
        (f"triton_poi_fused_add_relu_{start}", "triton", ["aten.relu", "aten.add"], [3]),
        (f"triton_per_fused__softmax_mul_sum_{start + 1}", "triton", ["aten.mul", "aten._softmax", "aten.sum"], [4, 5]),
        (f"triton_poi_fused_clone_{start + 2}", "triton", ["aten.clone"], []),
    ]
    return [
        Kernel(
            name=name,
            language=language,
            source=f"# {name}",
            graph_id=f"g-{variant}",
            aten_ops=ops,
            lines=lines,
            variant=variant,
            id=f"{variant}:{name}",
            device_time_ms=times[name.rstrip("0123456789").rstrip("_")],
        )
        for name, language, ops, lines in shapes
    ]


# Eager's call on the H200, the same in both runs: cuBLAS mm, ATen's relu, add, mul, softmax and sum kernels,
# randn's normal_, a memset; each op on the cell line that called it.
CONSISTENCY_EAGER_LINES = [
    EagerLineTime(line=2, time_ms=0.0625, ops=["aten::normal_"]),
    EagerLineTime(line=3, time_ms=2.375, ops=["aten::mm", "aten::relu", "aten::add"]),
    EagerLineTime(line=4, time_ms=0.75, ops=["aten::_softmax", "aten::mul"]),
    EagerLineTime(line=5, time_ms=0.1875, ops=["aten::sum"]),
]


# bytes each kernel moves per call: 16 MiB fp32 operands
CONSISTENCY_BYTES = {
    "extern_kernels.mm": 3 * 16_777_216,
    "triton_poi_fused_add_relu": 2 * 16_777_216,
    "triton_per_fused__softmax_mul_sum": 2 * 16_777_216,
    "triton_poi_fused_clone": 2 * 16_777_216,
}


def _consistency_run(
    run_id: str,
    label: str,
    created_at: str,
    eager_ms: float,
    default_ms: float,
    autotune_ms: float,
    default_times: dict[str, float],
    autotune_times: dict[str, float],
    autotune: AutotuneResult,
) -> ProfileRun:
    best, best_ms = min((("inductor/default", default_ms), ("inductor/max-autotune", autotune_ms)), key=lambda t: t[1])
    value = eager_ms / best_ms
    kernels = _consistency_kernels("inductor/default", default_times, 0) + _consistency_kernels(
        "inductor/max-autotune", autotune_times, 3
    )
    eager_profile = _profile(
        "cupti", library=1.875, generated=0.0, aten=1.5, copy=0.0625, lines=CONSISTENCY_EAGER_LINES
    )
    return ProfileRun(
        id=run_id,
        created_at=created_at,
        label=label,
        cell_source=CONSISTENCY_CELL,
        device=Device(type="cuda", name="NVIDIA H200"),
        torch_version="2.13.0",
        variants=[
            Variant(
                name="eager",
                timing=_steady_timing(eager_ms),
                kernel_profile=eager_profile,
                peak_memory_bytes=83_886_080,
            ),
            Variant(
                name="inductor/default",
                backend="inductor",
                mode="default",
                timing=_steady_timing(default_ms),
                compile_s=3.2,
                cache_state="cold",
                peak_memory_bytes=50_331_648,
            ),
            Variant(
                name="inductor/max-autotune",
                backend="inductor",
                mode="max-autotune",
                timing=_steady_timing(autotune_ms),
                compile_s=21.7,
                cache_state="cold",
                peak_memory_bytes=50_331_648,
                autotune=[autotune],
            ),
        ],
        speedup=Speedup(value=value, low=value * 0.97, high=value * 1.03, variant=best),
        graphs=[
            Graph(
                id=f"g-{v}",
                kind="dynamo",
                code="",
                variant=v,
                compile_id="0/0",
                lines=[2, 3, 4, 5],
                guards=_guards("G['x']", "G['x']", 2, 2, 2048)[:4] + _guards("G['x']", "G['x']", 2, 2, 2048)[7:],
            )
            for v in ("inductor/default", "inductor/max-autotune")
        ],
        # the cell ran again with x of another size: the guard on its shape failed (engine/trace/guards.py's source)
        recompiles=[
            Recompile(
                reason="tensor 'G['x']' size mismatch at index 0. expected 2048, actual 4096",
                variant="inductor/default",
                compile_id="0/1",
                source="G['x']",
                line=2,
            )
        ],
        kernels=_rates(kernels, H200_PEAKS, moved=CONSISTENCY_BYTES, flops={"extern_kernels.mm": 2 * 2048**3}),
        device_peaks=H200_PEAKS,
        memory_ratio=83_886_080 / 50_331_648,
    )


def _profile_compiled(run: ProfileRun) -> ProfileRun:
    """Each compiled variant's breakdown from its kernels: extern calls are library, Triton kernels generated."""
    for v in run.compiled_variants:
        mine = [k for k in run.kernels if k.variant == v.name]
        v.kernel_profile = _profile(
            "cupti",
            library=sum(k.device_time_ms for k in mine if k.language == "extern"),
            generated=sum(k.device_time_ms for k in mine if k.language == "triton"),
            aten=0.0,
            copy=0.0,
        )
    return run


def slower_and_faster_runs() -> list[ProfileRun]:
    """Two runs of one cell, A slower than eager and B faster, each with two compiled variants and timed
    kernels on cell lines (one fused over two lines), for the tests that every view words them alike."""
    slow = _consistency_run(
        SLOW_RUN_ID,
        "consistency slow",
        "2026-11-30T09:00:00+00:00",
        eager_ms=4.0,
        default_ms=7.2,
        autotune_ms=8.05,
        default_times={
            "extern_kernels.mm": 2.5,
            "triton_poi_fused_add_relu": 0.4,
            "triton_per_fused__softmax_mul_sum": 0.9,
            "triton_poi_fused_clone": 0.05,
        },
        autotune_times={
            "extern_kernels.mm": 2.2,
            "triton_poi_fused_add_relu": 0.3125,
            "triton_per_fused__softmax_mul_sum": 1.37,
            "triton_poi_fused_clone": 0.0625,
        },
        autotune=AutotuneResult(
            op="mm",
            shape="[[2048, 2048], [2048, 2048]]",
            dtypes="[torch.float32, torch.float32]",
            choices=20,
            triton_choices=19,
            best="mm",
            best_description="extern_mm",
            best_ms=2.19,
            best_triton="triton_mm_3",
            best_triton_ms=2.46,
            autotune_s=14.6,
            compile_id="0/0",
        ),
    )
    fast = _consistency_run(
        FAST_RUN_ID,
        "consistency fast",
        "2026-11-30T09:10:00+00:00",
        eager_ms=4.0,
        default_ms=3.2,
        autotune_ms=2.9,
        default_times={
            "extern_kernels.mm": 1.9,
            "triton_poi_fused_add_relu": 0.21,
            "triton_per_fused__softmax_mul_sum": 0.0173,
            "triton_poi_fused_clone": 0.0123,
        },
        autotune_times={
            "extern_kernels.mm": 1.7,
            "triton_poi_fused_add_relu": 0.333,
            "triton_per_fused__softmax_mul_sum": 0.6666,
            "triton_poi_fused_clone": 0.011,
        },
        autotune=AutotuneResult(
            op="mm",
            shape="[[2048, 2048], [2048, 2048]]",
            dtypes="[torch.float32, torch.float32]",
            choices=20,
            triton_choices=19,
            best="mm",
            best_description="extern_mm",
            best_ms=1.69,
            best_triton="triton_mm_5",
            best_triton_ms=1.83,
            autotune_s=13.9,
            compile_id="0/0",
        ),
    )
    fast.kernels.append(
        Kernel(
            name="triton_poi_fused_cat_9",
            language="triton",
            source="# cat",
            graph_id="g",
            aten_ops=["aten.cat"],
            lines=[2],
            variant="inductor/default",
            id="inductor/default:triton_poi_fused_cat_9",
            # 312.5 µs, an exact tie: Python's .3g rounds it to even, "312 µs"
            device_time_ms=0.3125,
        )
    )
    return [_profile_compiled(slow), _profile_compiled(fast)]
