"""The GPU path on a CUDA device: Triton kernels, per-kernel device time, roofline, the compile
modes (reduce-overhead, max-autotune, dynamic shapes) and peak memory.

Run on the GPU machine with ``pytest -m gpu tests/test_gpu_engine.py``; without CUDA every
test here is skipped.  Workloads are sized so that each kernel runs well past launch overhead
and its data is larger than the L2 cache, so bandwidth figures mean something.
"""

from __future__ import annotations

import math

import pytest
import torch
from profile_options import GPU_FAST as FAST

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.compiles,  # every test profiles (Dynamo and Inductor in this process): conftest's tier check
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def _profile(fn, *args, **options):
    from compile_profile.engine.run.api import profile

    run = profile(fn, *args, **{**FAST, **options})
    assert run.status == "ok", [e.message for e in run.errors]
    assert not [e for e in run.errors if e.stage in ("kernel timing", "roofline")], run.errors
    return run


def ln_gelu(x, w, b):
    y = torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b)
    return torch.nn.functional.gelu(y)


def big_add(a, b):
    return a + b


@pytest.fixture(scope="module")
def ln_run():
    torch.manual_seed(0)
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    return _profile(ln_gelu, x, w, b)


def test_triton_kernels_are_found_with_source_ops_and_lines(ln_run):
    triton = [k for k in ln_run.kernels if k.language == "triton"]
    assert triton, [k.name for k in ln_run.kernels]
    for k in triton:
        assert k.name.startswith("triton_") and "@triton.jit" in k.source and f"def {k.name}(" in k.source
        assert k.launches and all(".run(" in launch for launch in k.launches)
        assert k.aten_ops, k.name
        # the function's lines 2-3 (layer_norm, gelu), counted from its def line
        assert k.lines and set(k.lines) <= {2, 3}, (k.name, k.lines)


def test_each_triton_kernel_has_device_time_share_and_launch_grid(ln_run):
    v = ln_run.variant("inductor/default")
    kp = v.kernel_profile
    assert kp is not None and kp.method == "cupti" and kp.calls >= 3
    # device time per call cannot exceed the timed wall time per call (events bracket it)
    assert 0 < kp.total_ms <= v.timing.median_ms * 1.05
    assert kp.attributed_ms / kp.total_ms > 0.95, kp.unmatched
    triton = [k for k in ln_run.kernels if k.language == "triton"]
    for k in triton:
        assert k.device_time_ms and k.device_time_ms > 0, k.name
        assert 0 < k.share <= 1
        assert k.launches_per_call == pytest.approx(1.0)
        assert len(k.launch_grid) == 3 and math.prod(k.launch_grid) > 1
        assert k.launch_config and "num_warps=" in k.launch_config
        assert k.device_kernels == [k.name]  # Triton keeps its name on the device
        assert k.in_cuda_graph is False
    assert sum(k.share for k in triton) == pytest.approx(kp.attributed_ms / kp.total_ms, rel=1e-6)


def test_roofline_uses_peaks_measured_in_session(ln_run):
    peaks = ln_run.device_peaks
    assert peaks is not None and peaks.copy_gbps > 100 and peaks.bf16_matmul_tflops > 10
    if peaks.vendor_gbps:  # a known part: the measured ceiling is a fraction of the datasheet's
        assert 0.4 < peaks.copy_gbps / peaks.vendor_gbps < 1.05
        assert 0.3 < peaks.bf16_matmul_tflops / peaks.vendor_bf16_tflops < 1.05
    for k in (k for k in ln_run.kernels if k.language == "triton"):
        assert k.bytes and k.bytes >= 2 * 8192 * 4096 * 2 * 0.99  # reads x, writes y (bf16) at least
        assert k.achieved_gbps > 0 and 0 < k.bandwidth_share <= 1.0, "a ceiling no kernel beats"


def test_bytes_of_a_pointwise_kernel_are_exact_and_bandwidth_is_near_the_copy_peak():
    n = 1 << 27  # 512 MiB per fp32 tensor: far past L2
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    run = _profile(big_add, a, b)
    (k,) = [k for k in run.kernels if k.language == "triton"]
    assert k.bytes == 3 * n * 4 and k.bytes_source == "arguments"
    assert 0.5 < k.bandwidth_share <= 1.0, (k.achieved_gbps, run.device_peaks)


class MLP(torch.nn.Module):
    def __init__(self, d=4096, h=8192):
        super().__init__()
        self.up = torch.nn.Linear(d, h)
        self.down = torch.nn.Linear(h, d)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


def mlp_step(model, x):
    with torch.no_grad():
        return model(x)


def attention(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_extern_matmuls_are_timed_with_their_library_kernels_and_flops():
    torch.manual_seed(0)
    model = MLP().cuda().to(torch.bfloat16)
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    run = _profile(mlp_step, model, x)
    externs = [k for k in run.kernels if k.language == "extern" and "mm" in k.name]
    assert len(externs) == 2, [k.name for k in run.kernels]
    for k in externs:
        assert k.device_time_ms > 0 and k.device_kernels, k.name
        assert not any(name.startswith("triton_") for name in k.device_kernels)
        assert k.flops == 2 * 4096 * 4096 * 8192
        assert 0.2 < k.compute_share <= 1.0, (k.name, k.achieved_tflops, run.device_peaks)
    assert sum(k.share for k in externs) > 0.7  # the matmuls dominate


def test_sdpa_is_an_extern_call_with_attention_flops():
    torch.manual_seed(0)
    q, k, v = (torch.randn(8, 16, 2048, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    run = _profile(attention, q, k, v)
    sdpa = [k for k in run.kernels if k.language == "extern" and "scaled_dot_product" in k.name]
    assert sdpa, [k.name for k in run.kernels]
    (s,) = sdpa
    assert s.device_time_ms > 0 and s.device_kernels and s.share > 0.9
    assert s.flops and s.achieved_tflops > 0


def test_reduce_overhead_says_which_kernels_ran_in_cuda_graphs():
    torch.manual_seed(0)
    x = torch.randn(1024, 1024, device="cuda")
    w = torch.randn(1024, device="cuda")
    b = torch.randn(1024, device="cuda")
    run = _profile(ln_gelu, x, w, b, modes=["reduce-overhead"])
    v = run.variant("inductor/reduce-overhead")
    assert not v.cudagraph_skips, v.cudagraph_skips
    kp = v.kernel_profile
    assert kp.in_cuda_graphs_ms > 0 and kp.in_cuda_graphs_ms <= kp.total_ms
    triton = [k for k in run.kernels if k.language == "triton" and k.variant == v.name]
    assert triton and all(k.in_cuda_graph is True and k.device_time_ms > 0 for k in triton)
    assert all(k.launches for k in triton)  # launches live in graph partitions under CUDA graphs


def mm_then_gelu(a, b):
    return torch.nn.functional.gelu(a @ b)


def test_reduce_overhead_attributes_library_kernels_inside_the_graph_to_their_extern_call():
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    run = _profile(mm_then_gelu, a, b, modes=["reduce-overhead"])
    v = run.variant("inductor/reduce-overhead")
    mm = [k for k in run.kernels if k.variant == v.name and k.language == "extern" and "mm" in k.name]
    assert mm and mm[0].device_time_ms > 0 and mm[0].in_cuda_graph is True, (mm, v.kernel_profile.unmatched)
    assert v.kernel_profile.attributed_ms / v.kernel_profile.in_cuda_graphs_ms > 0.9


def with_cpu_input(x, c):
    return (x * 2).sum() + c.sum().to(x.device)


def test_reduce_overhead_with_a_cpu_input_graphs_the_gpu_part_and_shows_the_copy_outside():
    x = torch.randn(1 << 20, device="cuda")
    c = torch.randn(3)  # a CPU input: Inductor partitions the graph around it (torch 2.11+)
    run = _profile(with_cpu_input, x, c, modes=["reduce-overhead"], check_correctness=False)
    v = run.variant("inductor/reduce-overhead")
    kp = v.kernel_profile
    assert 0 < kp.in_cuda_graphs_ms < kp.total_ms, kp
    copies = [u for u in kp.unmatched if "Memcpy HtoD" in u.name]
    assert copies and all(u.where != "in CUDA graph" for u in copies), kp.unmatched
    # a skip reason, where this torch records one in the structured trace (compilation_metrics)
    assert not v.cudagraph_skips or any("cpu" in s.lower() for s in v.cudagraph_skips), v.cudagraph_skips


def test_max_autotune_reports_choices_and_the_winner():
    torch.manual_seed(0)
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    # caches off: a cache hit reuses the winner without autotuning (and so reports no choices)
    import torch._inductor.config as inductor_config

    with inductor_config.patch(force_disable_caches=True):
        run = _profile(torch.mm, a, b, modes=["max-autotune-no-cudagraphs"])
    v = run.variant("inductor/max-autotune-no-cudagraphs")
    assert v.autotune, "max-autotune benchmarked the mm"
    (mm,) = [r for r in v.autotune if r.op == "mm"]
    assert mm.shape == "2048x2048, 2048x2048" and "bfloat16" in mm.dtypes
    assert mm.choices and mm.choices > 1 and mm.best and mm.best_ms and mm.best_ms > 0
    assert mm.autotune_s and mm.autotune_s > 0
    timed = [k for k in run.kernels if k.variant == v.name and k.device_time_ms]
    assert timed and sum(k.share for k in timed) > 0.9


def test_dynamic_shapes_compile_symbolic_kernels_and_still_time_them():
    x = torch.randn(4096, 4096, device="cuda")
    w = torch.randn(4096, device="cuda")
    b = torch.randn(4096, device="cuda")
    run = _profile(ln_gelu, x, w, b, dynamic=True)
    triton = [k for k in run.kernels if k.language == "triton"]
    assert triton and any("ks0" in k.source or "s0" in "".join(k.launches) for k in triton)
    assert all(k.device_time_ms > 0 and k.bytes for k in triton)


def test_peak_memory_and_its_ratio():
    def chain(x):
        return ((x * 2 + 1).sin() * 3).cos().sum()

    x = torch.randn(1 << 26, device="cuda")
    run = _profile(chain, x)
    eager, compiled = run.variant("eager"), run.variant("inductor/default")
    assert eager.peak_memory_bytes > compiled.peak_memory_bytes > 0
    # eager materialises each intermediate (256 MiB each); the fused kernel does not
    assert run.memory_ratio == pytest.approx(eager.peak_memory_bytes / compiled.peak_memory_bytes)
    assert run.memory_ratio > 1.5


def test_eager_calls_of_a_training_step_see_the_optimizer_dynamo_has_not_rewritten():
    """Dynamo moves a CUDA optimizer's step counters to the device when it traces opt.step(); eager
    AdamW then syncs on every counter. The profile times eager with the optimizer as eager left it,
    and leaves it so."""
    from compile_profile.engine.run.api import ProfileOptions, profile_cell

    torch.manual_seed(0)
    # no dropout: the step draws no random numbers, so its outputs and what it updates are compared
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, norm_first=True, batch_first=True).cuda()
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-4)
    ns = {"torch": torch, "layer": layer, "opt": opt, "x": torch.randn(8, 128, 256, device="cuda")}
    body = "out = layer(x)\nloss = out.float().pow(2).mean()\nloss.backward()\nopt.step()\nopt.zero_grad(set_to_none=True)\n"
    result, cell = profile_cell(body, ns, ProfileOptions(**FAST))
    cell.commit(result.eager_result)
    run = result.run
    assert run.status == "ok", run.errors
    assert any(n.kind == "optimizer_changed_by_compile" for n in run.notes), run.notes
    steps = [state["step"] for state in opt.state.values()]
    assert steps and all(step.device.type == "cpu" for step in steps), "as the eager run left them"
    assert all(group["capturable"] is False for group in opt.param_groups)
    assert {b.line for b in run.graph_breaks} == {3, 4}, "backward, and the optimizer's own breaks"
    # the weights and moments the step updated are compared too (not the step counters, which the two
    # optimizer views keep as different tensors)
    c = run.correctness
    assert c.ok is True, [(k.path, k.why) for k in c.checks if not k.ok]
    assert any(p.endswith("(changed in place)") and "exp_avg" in p for p in c.compared)


def mlp_lines(x, w1, w2):
    h = x @ w1
    h = torch.nn.functional.gelu(h)
    return h @ w2


def test_eager_time_is_profiled_by_kind_and_cell_line():
    """The eager variant's pass (engine/kernels/eager_times.py): an MLP's eager kernel time is mostly cuBLAS
    (library), the breakdown adds up to the total, and the time sits on the two matmul lines."""
    torch.manual_seed(0)
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16) / 64
    w2 = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16) / 90
    run = _profile(mlp_lines, x, w1, w2)
    eager = run.variant("eager")
    kp = eager.kernel_profile
    assert kp is not None and kp.method == "cupti" and kp.calls >= 3
    assert 0 < kp.total_ms <= eager.timing.median_ms * 1.05  # device time within the timed wall time
    b = kp.breakdown
    assert b is not None and b.generated_ms == 0
    assert b.kernels_ms == pytest.approx(kp.total_ms, rel=0.01)
    assert b.library_ms / kp.total_ms > 0.5, b  # two 4096x4096x8192 GEMMs against one GELU
    assert b.copy_ms / kp.total_ms < 0.01, b
    # every kernel is launched on a line of the function (counted from its def line: 2, 3, 4)
    lines = {line.line: line for line in kp.eager_lines}
    assert set(lines) <= {2, 3, 4} and {2, 4} <= set(lines), kp.eager_lines
    assert sum(line.time_ms for line in kp.eager_lines) == pytest.approx(kp.attributed_ms, rel=1e-6)
    assert kp.attributed_ms / kp.total_ms > 0.95
    assert lines[2].ops[0] == lines[4].ops[0] == "aten::matmul"
    assert (lines[2].time_ms + lines[4].time_ms) / kp.attributed_ms > 0.5
    assert lines[3].ops == ["aten::gelu"]
    # the compiled variant: cuBLAS calls are its library time, the fused GELU its generated time
    compiled = run.variant("inductor/default").kernel_profile
    cb = compiled.breakdown
    assert cb.kernels_ms == pytest.approx(compiled.total_ms, rel=0.01)
    externs = [k for k in run.kernels if k.language == "extern" and k.variant == "inductor/default"]
    triton = [k for k in run.kernels if k.language == "triton" and k.variant == "inductor/default"]
    assert cb.library_ms == pytest.approx(sum(k.device_time_ms for k in externs), rel=1e-6)
    assert cb.generated_ms == pytest.approx(sum(k.device_time_ms for k in triton), rel=1e-6)
    assert cb.library_ms / compiled.total_ms > 0.5


def test_cuda_random_draws_are_replayed_and_the_generator_left_as_one_plain_run_leaves_it():
    """engine/cell/random_state.py on CUDA: the kept run draws what the first (printed) one drew, and the CUDA
    generator stands where one plain run of the cell leaves it."""
    from compile_profile.engine.run.api import ProfileOptions, profile_cell

    body = "r = torch.randn(1 << 20, device='cuda') * 2\nkept = torch.nn.functional.dropout(r, 0.5)\n"
    ns = {"torch": torch}
    torch.manual_seed(0)
    exec(body, ns)
    plain_r, plain_kept, after_plain = ns.pop("r"), ns.pop("kept"), torch.randn(4, device="cuda")
    torch.manual_seed(0)
    result, _ = profile_cell(body, ns, ProfileOptions(**FAST))
    assert result.run.status == "ok" and result.run.cell_runs > 10, result.run.errors
    assert torch.equal(ns["r"], plain_r) and torch.equal(ns["kept"], plain_kept)
    assert torch.equal(torch.randn(4, device="cuda"), after_plain)


def test_a_backward_compiled_in_autograds_device_thread_is_kept():
    """engine/trace/capture.py keeps only the profiling thread's compiles; on CUDA AOTAutograd compiles the
    backward lazily, in autograd's device thread, under the forward's compile id: it must stay."""

    def step(w, x):
        loss = (x @ w).relu().sum()
        loss.backward()
        return loss

    w = torch.randn(512, 512, device="cuda", requires_grad=True)
    run = _profile(step, w, torch.randn(256, 512, device="cuda"))
    kinds = [g.kind for g in run.graphs if g.variant == "inductor/default"]
    assert "aot_backward" in kinds and kinds.count("post_grad") >= 2, kinds
