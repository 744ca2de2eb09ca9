"""Collectives named (``engine.common.op_kinds.is_collective``) and counted in the per-call breakdown,
on CPU through a one-process gloo group."""

from __future__ import annotations

import socket

import compile_profile
import pytest
import torch
import torch.distributed as dist
from compile_profile.digest.distributed import collective_texts
from compile_profile.engine.common.op_kinds import COLLECTIVE, device_kind, host_op_kind, is_collective, kernel_kind
from compile_profile.engine.kernels.compiled_times import compiled_breakdown

COLLECTIVE_NAMES = [
    # functional collectives: profiler, graph (op_counts) and output-code spellings
    "_c10d_functional::all_reduce",
    "_c10d_functional::all_gather_into_tensor",
    "_c10d_functional::reduce_scatter_tensor",
    "_c10d_functional::wait_tensor",
    "_c10d_functional.all_reduce_",
    "torch.ops._c10d_functional.all_reduce_.default",
    "torch.ops._c10d_functional.wait_tensor.default",
    "torch._ops._c10d_functional.all_reduce",
    "_c10d_functional_autograd::all_to_all_single",
    "torch.ops._c10d_functional_autograd.reduce_scatter_tensor.default",
    "c10d_functional::all_reduce",  # legacy
    "c10d::allreduce_",
    "c10d.allgather_",
    "torch.ops.c10d.broadcast_.default",
    # the profiler's ranges and NCCL's kernels
    "record_param_comms",
    "gloo:all_reduce",
    "nccl:all_reduce",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "ncclKernel_AllGather_RING_LL_Sum_int8_t",
]
NOT_COLLECTIVE = [
    "aten::mm",
    "aten::copy_",
    "extern_kernels.mm",
    "cpp_fused_all_reduce_mul_0",
    "triton_red_fused_sum_0",
    "aten::all",
    "mylib::c10d_helper",
    "record_param_comms_extra",
    "Memcpy DtoD (Device -> Device)",
]


@pytest.mark.parametrize("name", COLLECTIVE_NAMES)
def test_collective_names(name):
    assert is_collective(name)


@pytest.mark.parametrize("name", NOT_COLLECTIVE)
def test_other_names_are_no_collective(name):
    assert not is_collective(name)


def test_a_device_event_is_collective_when_an_nccl_kernel_or_under_a_collective_op():
    assert device_kind("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", []) == COLLECTIVE
    # a copy kernel DDP's all-reduce launched is the collective's time, the op anywhere in the chain
    assert device_kind("gpu_memcpy", "Memcpy DtoD", ["aten::copy_", "c10d::allreduce_"]) == COLLECTIVE
    assert (
        device_kind("kernel", "vectorized_elementwise_kernel", ["aten::clone", "_c10d_functional::all_reduce"])
        == COLLECTIVE
    )
    assert device_kind("gpu_memcpy", "Memcpy DtoD", ["aten::copy_"]) == "copy"


def test_an_extern_call_of_a_collective_op_is_collective_and_a_generated_kernel_is_not():
    assert kernel_kind("extern", "torch.ops._c10d_functional.all_reduce_.default") == COLLECTIVE
    assert kernel_kind("extern", "torch.ops._c10d_functional.wait_tensor.default") == COLLECTIVE
    assert kernel_kind("cpp", "cpp_fused_all_reduce_mul_0") == "generated"
    assert kernel_kind("extern", "extern_kernels.mm") == "library"


def test_everything_a_collective_op_runs_on_the_host_is_collective():
    assert host_op_kind("aten::copy_", COLLECTIVE) == COLLECTIVE
    assert host_op_kind("c10d::allreduce_", None) == COLLECTIVE
    assert host_op_kind("aten::mm", None) == "library"
    assert host_op_kind("aten::add", "copy") == "copy"


def test_the_compiled_breakdown_has_a_collective_part():
    from compile_profile.engine.kernels.attribution import VariantKernelTimes

    result = VariantKernelTimes(variant="v", calls=2, method="cupti", observations={}, total_us=60.0)
    result.unmatched_kinds.update({COLLECTIVE: 40.0, "aten": 10.0})
    breakdown = compiled_breakdown(result)
    assert breakdown.collective_ms == pytest.approx(0.02)
    assert breakdown.kernels_ms == pytest.approx(0.03)


# -- a real one-process gloo group ------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def gloo_group():
    if not dist.is_available():
        pytest.skip("torch.distributed is not built")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    try:
        yield dist.group.WORLD
    finally:
        dist.destroy_process_group()


@pytest.mark.compiles
def test_an_all_reduce_counts_as_collective_time_in_eager_and_compiled(gloo_group):
    def step(x):
        y = x * 2
        dist.all_reduce(y)
        return y + 1

    run = compile_profile.profile(step, torch.randn(256, 256), budget=0.3)
    assert not run.errors and not run.graph_breaks, "Dynamo traces dist.all_reduce as a functional collective"
    eager = run.variant("eager").kernel_profile.breakdown
    assert eager.collective_ms > 0  # c10d::allreduce_, a top-level op of the eager call
    compiled = next(v for v in run.variants if v.name != "eager")
    assert compiled.kernel_profile.breakdown.collective_ms > 0
    dynamo = next(g for g in run.graphs if g.kind == "dynamo")
    assert {"torch._ops._c10d_functional.all_reduce", "torch._ops._c10d_functional.wait_tensor"} <= set(
        dynamo.op_counts
    )
    post_grad = next(g for g in run.graphs if g.kind == "post_grad")
    assert {"_c10d_functional.all_reduce_", "_c10d_functional.wait_tensor"} <= set(post_grad.op_counts)
    # the views name them: the digest's sentence in the text, the cell's HTML and the report
    graph_text = f"graph {dynamo.compile_id} runs collectives: all_reduce ×1, wait_tensor ×1"
    assert graph_text in collective_texts(run)
    assert graph_text in str(run) and graph_text in run.to_html()
    assert any(
        text.startswith("collective kernels: torch.ops._c10d_functional.all_reduce_.default (")
        for text in collective_texts(run)
    )


@pytest.mark.compiles
def test_a_functional_collective_is_an_extern_call_of_the_compiled_graph(gloo_group):
    import torch.distributed._functional_collectives as fc

    def step(x):
        return fc.all_reduce(x * 2, "sum", gloo_group) + 1

    run = compile_profile.profile(step, torch.randn(256, 256), budget=0.3)
    assert not run.errors
    kernels = {k.name: k for k in run.kernels}
    # the all-reduce runs in place on the buffer a C++ kernel filled, then the graph waits on it
    assert kernels["torch.ops._c10d_functional.all_reduce_.default"].language == "extern"
    assert kernels["torch.ops._c10d_functional.wait_tensor.default"].aten_ops == ["_c10d_functional.wait_tensor"]
    assert all(kernel_kind(k.language, k.name) == COLLECTIVE for k in run.kernels if k.language == "extern")
    assert next(v for v in run.variants if v.name != "eager").kernel_profile.breakdown.collective_ms > 0
    assert run.variant("eager").kernel_profile.breakdown.collective_ms > 0  # _c10d_functional::all_reduce
