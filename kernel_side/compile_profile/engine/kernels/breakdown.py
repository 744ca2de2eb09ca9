"""What kind of kernel each profiled event is (library, generated, ATen, copy, collective), and a compiled
variant's ``CallBreakdown`` from its attributed kernel times.

Contract: ``CallBreakdown`` parts are per call and add up to the variant's ``KernelProfile.total_ms``
(up to float rounding); nothing here words a figure or derives the time outside kernels (the
digest does that from the timed median).  The rules, shared by the eager pass (``eager_profile``)
and the compiled variants:

* collective: communication between ranks (``is_collective``), decided before the other kinds and
  for everything an enclosing collective op ran: functional collectives
  (``_c10d_functional::all_reduce``, ``all_gather_into_tensor``, ``reduce_scatter_tensor``,
  ``wait_tensor``; ``_c10d_functional_autograd::*``, the legacy ``c10d_functional::*``; in output
  code ``torch.ops._c10d_functional.all_reduce_.default``, in Dynamo's graphs
  ``torch._ops._c10d_functional.all_reduce``), the process-group ops (``c10d::allreduce_``,
  ``c10d::allgather_``...), the profiler's communication ranges (``record_param_comms``,
  ``gloo:all_reduce``, ``nccl:all_reduce``) and NCCL's device kernels
  (``ncclDevKernel_AllReduce_Sum_f32_RING_LL``, ``ncclKernel_*``); a compiled variant's collective is
  an extern call (the kernel Inductor wrote to fill its buffer, ``cpp_fused_all_reduce_mul_0``,
  stays generated);
* library: matmul, convolution and attention (ATen ops ``aten::mm``, ``addmm``, ``bmm``,
  ``baddbmm``, ``matmul``, ``linear``, ``conv*``, ``cudnn_*``, ``_scaled_dot_product_*``,
  ``_flash_attention*``, ``_efficient_attention*``, ...; or a device kernel whose name says it is
  cuBLAS, CUTLASS, cuDNN, flash attention, a GEMM);
* copy: memcpy and memset device events, and the copy ops (``aten::copy_``, ``_to_copy``, ``to``,
  ``contiguous``, ``clone``);
* generated: kernels Inductor wrote (Triton, C++), compiled variants only;
* ATen: everything else.

On CPU the times are host times, by the host rule (``host_op_parts``): each top-level op (an event
with ``::`` in its name: ATen, c10d, autograd's ``evaluate_function``, DDP's reducer ops) is split into
the own times of it and the ops under it, each going by the innermost library or copy op enclosing
it.  Eager counts every top-level op of its calls so; a compiled variant counts its C++ kernels and
extern calls inside its compiled graphs' regions by ``kernel_kind``, and every op its calls ran outside
those regions (around graph breaks, in autograd hooks, DDP's gradient copies and all-reduce, an eager
optimizer step) by the host rule, as eager counts the same op; an op that holds a region (the autograd
op that runs a compiled backward) is not counted itself, only the ops under it outside the region.

This module reads a ``VariantKernelTimes`` and kernel/op names; it runs nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Literal

from ...profile_run import CallBreakdown
from .index import extern_op_name

if TYPE_CHECKING:  # kernel_attribution classifies its unmatched events with device_kind
    from .attribution import VariantKernelTimes

LIBRARY_OPS = frozenset(
    {
        "mm",
        "addmm",
        "_addmm_activation",
        "bmm",
        "baddbmm",
        "matmul",
        "linear",
        "mv",
        "addmv",
        "dot",
        "_int_mm",
        "_scaled_mm",
        "convolution",
        "_convolution",
    }
)
LIBRARY_OP_PREFIXES = (
    "conv",
    "cudnn_",
    "miopen_",
    "mkldnn_",
    "_scaled_dot_product_",
    "_flash_attention",
    "_efficient_attention",
    "_cudnn_attention",
)
COPY_OPS = frozenset({"copy_", "_to_copy", "to", "contiguous", "clone", "_copy_from", "_copy_from_and_resize"})
# device kernel names of the matmul/conv/attention libraries (cuBLAS's gemv/gemm/xmma kernels,
# CUTLASS, cuDNN, FlashAttention, CK on ROCm)
LIBRARY_KERNEL = re.compile(
    r"gemm|gemv|cutlass|cublas|cudnn|flash|xmma|sm\d+_xmma|fmha|ck_tile|wgmma|dot_kernel", re.IGNORECASE
)
COPY_DEVICE_CATEGORIES = frozenset({"gpu_memcpy", "gpu_memset"})

# c10d's namespaces, as the profiler (``c10d::``), an ATen graph (``c10d.``), a Dynamo graph
# (``torch._ops.c10d.``) or output code (``torch.ops.c10d.``) name them
COLLECTIVE_NAMESPACE = re.compile(
    r"^(?:torch\._?ops\.)?"
    r"(?:c10d|_c10d_functional|_c10d_functional_autograd|c10d_functional)(?:::|\.)"
)
# the profiler's communication ranges and NCCL's kernels: gloo:all_reduce, nccl:all_reduce, ncclDevKernel_*
COLLECTIVE_RANGE = re.compile(r"^(?:(?:gloo|nccl|mpi|ucc|xccl):|nccl(?:Dev)?Kernel|record_param_comms$)")

LIBRARY: Final = "library"
GENERATED: Final = "generated"
ATEN: Final = "aten"
COPY: Final = "copy"
COLLECTIVE: Final = "collective"
KernelKind = Literal["library", "generated", "aten", "copy", "collective"]  # as ``Kernel.kind``


def is_collective(name: str) -> bool:
    """An op, profiler range or kernel that communicates between ranks (the module docstring lists the names)."""
    return bool(COLLECTIVE_NAMESPACE.match(name) or COLLECTIVE_RANGE.match(name))


def _op_base(name: str) -> str:
    """``aten::mm`` -> ``mm``; names of other namespaces are kept whole (``mylib::foo`` is no ATen op)."""
    return name[len("aten::") :] if name.startswith("aten::") else ""


def op_kind(name: str) -> Literal["library", "copy"] | None:
    """``library`` or ``copy`` for an ATen op of those kinds, else None (it decides nothing itself)."""
    base = _op_base(name)
    if not base:
        return None
    if base in LIBRARY_OPS or base.startswith(LIBRARY_OP_PREFIXES):
        return LIBRARY
    if base in COPY_OPS:
        return COPY
    return None


def host_op_kind(name: str, enclosing: str | None) -> str | None:
    """The kind an op's own host time goes by, given its enclosing op's: everything a collective runs is
    collective; else the op's own library or copy kind, else the enclosing op's (None: ATen)."""
    if enclosing == COLLECTIVE or is_collective(name):
        return COLLECTIVE
    return op_kind(name) or enclosing


def is_host_op(ev: Any) -> bool:
    """A host event the host rule counts: an ATen, c10d or autograd op (``aten::mm``, ``c10d::allreduce_``,
    ``autograd::engine::evaluate_function: MmBackward0``); the profiler's and our own ranges have no ``::``."""
    return ev.cat == "cpu_op" and "::" in ev.name


def _op_children(ev: Any) -> list[Any]:
    """The ops (``is_host_op``) directly under ``ev``, looking through events that are not ops."""
    out, stack = [], list(ev.children)
    while stack:
        child = stack.pop()
        if is_host_op(child):
            out.append(child)
        else:
            stack.extend(child.children)
    return out


def recorded_inside(ev: Any) -> int:
    """The op events recorded inside ``ev`` (ops and ranges at any depth; the Python tracer's events, which cost
    the profiler differently and which a trace keeps few of, are not counted)."""
    return sum(1 for d in ev.descendants() if d.cat != "python_function")


def host_time_us(ev: Any, event_cost_us: float = 0.0) -> float:
    """``ev``'s host time less the profiler's cost of the op events recorded inside it
    (``profiler_cost.event_cost_us``; 0: as recorded), never below 0."""
    if not event_cost_us:
        return ev.dur
    return max(0.0, ev.dur - event_cost_us * recorded_inside(ev))


def _split_host(op: Any, inherited: str | None, parts: dict[str, float], event_cost_us: float) -> None:
    kind = host_op_kind(op.name, inherited)
    children = _op_children(op)
    if kind is not None:
        own = op.dur - sum(c.dur for c in children)  # less the ops under it (looking through ranges)
        if event_cost_us:  # and less recording the events inside it that are not inside those ops
            own = max(0.0, own - event_cost_us * (recorded_inside(op) - sum(recorded_inside(c) for c in children)))
        parts[kind] += own
    for child in children:
        _split_host(child, kind, parts, event_cost_us)


def host_op_parts(op: Any, event_cost_us: float = 0.0) -> dict[str, float]:
    """A top-level op's host time (a ``chrome_trace.HostEvent``) by kind, the host rule: each op's own
    time (its time less its op children's) goes by ``host_op_kind`` of the innermost library or copy op
    enclosing it, itself included, everything a collective op runs is collective, and the rest is ATen;
    the parts add up to ``host_time_us(op, event_cost_us)``: with a calibrated ``event_cost_us``
    (``profiler_cost``), each op's own time has that cost taken out for every op event recorded directly
    inside it.  The eager pass (``eager_profile``) splits its ops by the same rule, and a compiled variant
    on CPU its ops outside compiled graphs (``kernel_attribution``)."""
    parts = {LIBRARY: 0.0, COPY: 0.0, COLLECTIVE: 0.0}
    _split_host(op, None, parts, event_cost_us)
    rest = host_time_us(op, event_cost_us) - sum(parts.values())
    # the rest; a float residue of the subtractions (1e-12 µs, which a view read as "5.61e-12 ns") is 0
    parts[ATEN] = rest if rest > 1e-9 * max(1.0, op.dur) else 0.0
    return parts


def device_kind(category: str, name: str, op_chain: list[str]) -> str:
    """The kind of one eager device event: an NCCL kernel, or one launched under a collective op anywhere
    in the chain, is collective; memcpy/memset are copies, a library-named kernel is library,
    otherwise the innermost op of the chain (innermost first) that is library or copy decides, and the
    rest is ATen.  Innermost first: a ``contiguous`` copy inside ``aten::matmul`` is a copy kernel."""
    if is_collective(name) or any(is_collective(op) for op in op_chain):
        return COLLECTIVE
    if category in COPY_DEVICE_CATEGORIES:
        return COPY
    if LIBRARY_KERNEL.search(name):
        return LIBRARY
    for op in op_chain:
        kind = op_kind(op)
        if kind is not None:
            return kind
    return ATEN


def kernel_kind(language: str, name: str) -> KernelKind:
    """A compiled variant's kernel: generated for Triton/C++; an extern call by its op (a fallback
    such as ``aten.sort`` is ATen, ``extern_kernels.mm`` library, a functional collective
    ``torch.ops._c10d_functional.all_reduce_.default`` collective)."""
    if language in ("triton", "cpp"):
        return GENERATED
    op = extern_op_name(name)
    if is_collective(op) or is_collective(name):
        return COLLECTIVE
    kind = op_kind(op)
    if kind is None and name.startswith("extern_kernels."):
        return LIBRARY  # extern_kernels holds only the library calls (mm, bmm, addmm, convolution...)
    return kind or ATEN


def compiled_breakdown(result: VariantKernelTimes) -> CallBreakdown:
    """Per-call parts of a compiled variant's kernel time; on CUDA they add up to ``result.total_us / calls``.

    Generated, library (and the rare copy extern) come from the kernels each event was tied to;
    device events tied to no kernel (ATen kernels outside compiled graphs, around graph breaks, and the
    few in a graph that no call site explains) go by the eager rule (``device_kind``), so a matmul
    that ran eagerly in a compiled variant is library there as in eager: on an H200 a training step
    whose forward and backward Dynamo left eager read "library 0, ATen 1.27 ms" before, against eager's
    library 1.11 ms.  On CUDA the remainder goes into ``aten_ms``.

    On CPU an extern call's op goes by the host rule too (``KernelObservation.host_parts``): a
    ``TransformerEncoderLayer`` in eval under ``no_grad`` has Inductor call the same fused
    ``aten::_transformer_encoder_layer_fwd`` eager runs, which read "ATen 130 µs" compiled against eager's
    "library 72.9 µs, ATen 56.7 µs, copies 10.2 µs" and made a "kernels slower" cause of the same op.
    The host ops the calls ran outside compiled graphs go by the host rule (``host_op_parts``,
    in ``result.unmatched_kinds``), so they are the same kind of time as in eager: a DDP training step
    (gloo, two ranks, 2 cores) read compiled "ATen 0, copies 0, collectives 0, outside kernels 13.1 ms"
    before, against eager's copies 328 µs and collectives 462 µs; DDP's gradient hooks, its reducer's
    copies and all-reduce, are now copies and collectives in both (a later run: compiled copies 377 µs,
    eager 345 µs; collectives, which include waiting for the other rank, 4.35 ms and 2.37 ms).  ``total_us`` there is the
    regions' host time plus those ops'; the regions' time outside C++ kernels and extern calls is the
    output code's own Python (buffer allocations through Inductor's ``empty_strided_cpu``, which
    bypasses the dispatcher and shows as no ATen op, views, the calls between launches), no part.
    Measured with one thread: 9 us of a 101 us region on a 256x64 matmul + GELU + layer norm cell
    (16-17 % of its total over two runs), 9-10 % on a 256x256 matmul + relu + sum.
    """
    calls = max(1, result.calls)
    parts = {LIBRARY: 0.0, GENERATED: 0.0, ATEN: 0.0, COPY: 0.0, COLLECTIVE: 0.0}
    for obs in result.observations.values():
        if obs.host_parts and kernel_kind(obs.kernel.language, obs.kernel.name) != COLLECTIVE:
            for kind, us in obs.host_parts.items():  # CPU: an extern call's op by the host rule, as in eager
                parts[kind] += us
        else:
            parts[kernel_kind(obs.kernel.language, obs.kernel.name)] += obs.time_us
    for kind, us in result.unmatched_kinds.items():
        parts[kind] += us
    if result.method != "host":
        parts[ATEN] += max(0.0, result.total_us - sum(parts.values()))
    # On CPU the rest of the regions' host time is the output code's own Python, not a kernel: left
    # out of the parts, the digest counts it outside kernels (the CPU CNN of notebook 06 read "ATen
    # 134 µs" for a variant whose ATen ops had all become C++ kernels and extern calls).
    return CallBreakdown(
        library_ms=parts[LIBRARY] / 1e3 / calls,
        generated_ms=parts[GENERATED] / 1e3 / calls,
        aten_ms=parts[ATEN] / 1e3 / calls,
        copy_ms=parts[COPY] / 1e3 / calls,
        collective_ms=parts[COLLECTIVE] / 1e3 / calls,
    )
