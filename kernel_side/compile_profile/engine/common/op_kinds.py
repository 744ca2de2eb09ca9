"""What kind of time an op, kernel or collective is, by its name: library, generated, ATen, copy or collective.

Contract: names in, a kind out; nothing here runs or reads a trace.  The trace model classes the kernels it finds
in Inductor's output code by these rules (``kernel_kind``), the profiler pass the events it records
(``device_kind``, and the host rule built on ``host_op_kind``: ``kernels.breakdown``), eager's and the compiled
variants' alike:

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
"""

from __future__ import annotations

import re
from typing import Final, Literal

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


def extern_op_name(callee: str) -> str:
    """``extern_kernels.mm`` -> ``aten::mm``; ``torch.ops.aten._foo.default`` -> ``aten::_foo``."""
    parts = callee.split(".")
    if callee.startswith("extern_kernels."):
        return f"aten::{parts[1]}"
    if callee.startswith("torch.ops.") and len(parts) >= 4:
        return f"{parts[2]}::{parts[3]}"
    if callee.startswith("aten.") and len(parts) >= 2:
        return f"aten::{parts[1]}"
    return callee


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
