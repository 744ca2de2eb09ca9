"""Roofline figures: bytes moved and FLOPs per kernel, achieved rates, and the device's ceilings.

Bytes: Inductor's own estimate (``kernel_num_gb`` in a Triton kernel's
``inductor_meta``, present when ``benchmark_kernel`` or ``profile_bandwidth`` is
set) when the kernel carries one; otherwise each tensor argument of each
recorded launch counted once (its storage span, so broadcasts count once), and
twice for in-place ``in_out_ptr`` arguments, which is Inductor's own rule.
FLOPs: matrix products, convolutions and attention only, from the recorded
argument shapes with ``torch.utils.flop_counter``'s formulas.

Ceilings are measured on the device in the same session, as ceilings: the best
repeat of a large device-to-device copy (bytes read plus written) and the best of
bf16 matrix products of several shapes on random data, with the vendor's
datasheet figures beside them.  A median of one 8192³ product read 764 TFLOP/s on
an H200 where cuBLAS reached 865 in a GPT-2 step, so shares above 100 % showed;
the best of several shapes read 790, and when a matmul of the run still beats it
the compute ceiling is raised to that kernel's rate and the method says so; the
bandwidth ceiling likewise, up to what the memory can deliver.  A kernel above
that gets no share: its byte count is the doubt.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from typing import Any

from ...profile_run import DevicePeaks, Kernel
from ..common.op_kinds import extern_op_name
from .attribution import KernelObservation, VariantKernelTimes

# (substring of torch.cuda.get_device_name(), memory GB/s, dense bf16 TFLOP/s): vendor datasheets.
# Order matters: the first match wins.
VENDOR_PEAKS: tuple[tuple[str, float, float], ...] = (
    ("GH200", 4000.0, 989.0),
    ("H200", 4800.0, 989.0),
    ("H100 PCIe", 2000.0, 756.0),
    ("H100 NVL", 3900.0, 835.0),
    ("H100", 3350.0, 989.0),  # SXM
    ("A100-SXM4-80GB", 2039.0, 312.0),
    ("A100 80GB PCIe", 1935.0, 312.0),
    ("A100", 1555.0, 312.0),  # 40 GB parts
    ("L40S", 864.0, 362.0),
    ("L4", 300.0, 121.0),
    ("A10G", 600.0, 70.0),
    ("A10", 600.0, 125.0),
)

ITEMSIZE = {
    "double": 8,
    "float": 4,
    "c10::Half": 2,
    "c10::BFloat16": 2,
    "long int": 8,
    "int": 4,
    "short int": 2,
    "signed char": 1,
    "unsigned char": 1,
    "bool": 1,
    "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1,
    "c10::Float8_e5m2fnuz": 1,
    "c10::complex<float>": 8,
    "c10::complex<double>": 16,
}
LOW_PRECISION = frozenset({"c10::Half", "c10::BFloat16"})

_NUM_GB = re.compile(r"""['"]kernel_num_gb['"]\s*:\s*([0-9.eE+-]+)""")
_SIGNATURE = re.compile(r"def\s+(\w+)\s*\(([^)]*)\)", re.S)


def vendor_peaks(device_name: str) -> tuple[float, float] | None:
    for key, gbps, tflops in VENDOR_PEAKS:
        if key in device_name:
            return gbps, tflops
    return None


# bf16 matrix products (m, n, k) whose best rate is the measured ceiling; large enough to be
# compute-bound, of shapes cuBLAS picks different kernels for.
PEAK_MATMULS = ((8192, 8192, 8192), (4096, 4096, 4096), (16384, 8192, 4096), (8192, 8192, 2048))


@functools.cache
def measure_peaks(device_index: int = 0) -> DevicePeaks:
    """Copy bandwidth and bf16 matrix rate of the CUDA device: the best repeat of each probe."""
    import torch

    device = torch.device("cuda", device_index)
    free, _ = torch.cuda.mem_get_info(device)
    copy_bytes = int(min(1 << 30, free // 8))
    src = torch.randint(0, 255, (copy_bytes,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    copy_s = _best_event_time(functools.partial(dst.copy_, src), repeat=20)
    del src, dst
    best_tflops, best_shape = 0.0, (0, 0, 0)
    for m, n, k in PEAK_MATMULS:
        if (m * k + k * n + m * n) * 2 * 2 > free:
            continue
        a = torch.randn(m, k, dtype=torch.bfloat16, device=device)  # random data: zeros run faster
        b = torch.randn(k, n, dtype=torch.bfloat16, device=device)
        tflops = 2 * m * n * k / _best_event_time(functools.partial(torch.mm, a, b), repeat=10) / 1e12
        if tflops > best_tflops:
            best_tflops, best_shape = tflops, (m, n, k)
        del a, b
    name = torch.cuda.get_device_name(device)
    vendor = vendor_peaks(name)
    shapes = ", ".join("x".join(map(str, s)) for s in PEAK_MATMULS)
    return DevicePeaks(
        copy_gbps=2 * copy_bytes / copy_s / 1e9,
        bf16_matmul_tflops=best_tflops,
        vendor_gbps=vendor[0] if vendor else None,
        vendor_bf16_tflops=vendor[1] if vendor else None,
        method=(
            f"measured this session on {name}: device-to-device copy of {copy_bytes / 2**30:.2f} GiB "
            f"(read + write), best of 20; bf16 torch.mm on random data, best of 10 for each of {shapes} "
            f"(best: {'x'.join(map(str, best_shape))}); vendor figures from datasheets (dense, no sparsity)"
        ),
    )


def _best_event_time(fn, *, repeat: int, warmup: int = 3) -> float:
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return min(times)


# -- bytes ----------------------------------------------------------------------------


def triton_parameters(source: str, name: str) -> list[str]:
    """The runtime (non-constexpr) parameter names of a Triton kernel, in order."""
    for match in _SIGNATURE.finditer(source):
        if match.group(1) != name:
            continue
        params = []
        for raw in match.group(2).split(","):
            raw = raw.strip()
            if not raw or "constexpr" in raw:
                continue
            params.append(raw.split(":")[0].split("=")[0].strip())
        return params
    return []


def tensor_bytes(dims: Any, strides: Any, type_name: Any) -> int | None:
    """Bytes of a recorded tensor argument: its storage span (broadcast dimensions count once)."""
    if not isinstance(dims, list) or type_name not in ITEMSIZE:
        return None
    if any(d == 0 for d in dims):
        return 0
    if isinstance(strides, list) and len(strides) == len(dims):
        span = 1 + sum((d - 1) * abs(s) for d, s in zip(dims, strides))
        numel = math.prod(dims)
        elements = min(span, numel)
    else:
        elements = math.prod(dims)
    return int(elements) * ITEMSIZE[type_name]


def launch_bytes(args: dict[str, Any], params: list[str] | None) -> int | None:
    """Bytes a launch moves, from its recorded arguments; ``params`` names Triton's arguments."""
    dims = args.get("Input Dims")
    types = args.get("Input type")
    if not isinstance(dims, list) or not isinstance(types, list):
        return None
    strides = args.get("Input Strides")
    strides = strides if isinstance(strides, list) else [None] * len(dims)
    total = 0
    seen_tensor = False
    for i, (d, s, t) in enumerate(zip(dims, strides, types)):
        if t in ("Scalar", "ScalarList", "", None) or t not in ITEMSIZE:
            continue
        b = tensor_bytes(d, s, t)
        if b is None:
            continue
        seen_tensor = True
        name = params[i] if params and i < len(params) else ""
        total += 2 * b if name.startswith("in_out_ptr") else b
    return total if seen_tensor else None


def inductor_num_bytes(kernel: Kernel) -> int | None:
    match = _NUM_GB.search(kernel.source) if kernel.language == "triton" else None
    return int(float(match.group(1)) * 1e9) if match else None


# -- FLOPs ----------------------------------------------------------------------------


def _concrete(args: dict[str, Any], index: int):
    values = args.get("Concrete Inputs")
    if not isinstance(values, list) or index >= len(values) or values[index] in ("", None):
        return None
    try:
        return ast.literal_eval(values[index])
    except (ValueError, SyntaxError):
        return None


def _conv_out_shape(x: list[int], w: list[int], stride, padding, dilation) -> list[int]:
    spatial = len(x) - 2

    def as_list(v) -> list:
        return list(v) if isinstance(v, (list, tuple)) else [v if v is not None else 1] * spatial

    stride, dilation = as_list(stride or 1), as_list(dilation or 1)
    padding = as_list(padding if padding is not None else 0)
    out = [x[0], w[0]]
    for i in range(spatial):
        out.append((x[i + 2] + 2 * padding[i] - dilation[i] * (w[i + 2] - 1) - 1) // stride[i] + 1)
    return out


def op_flops(op: str, args: dict[str, Any]) -> int | None:
    """FLOPs of one matmul/convolution/attention op or Triton matmul template from its recorded shapes."""
    from torch.utils import flop_counter

    dims = args.get("Input Dims")
    if not isinstance(dims, list):
        return None
    tensors = [d for d in dims if isinstance(d, list) and d]
    try:
        if op in ("aten::mm",) and len(tensors) >= 2:
            return int(flop_counter.mm_flop(tensors[0], tensors[1]))
        if op in ("aten::addmm", "aten::_addmm_activation") and len(dims) >= 3:
            return int(flop_counter.mm_flop(dims[1], dims[2]))
        if op == "aten::bmm" and len(tensors) >= 2:
            return int(flop_counter.bmm_flop(tensors[0], tensors[1]))
        if op == "aten::baddbmm" and len(dims) >= 3:
            return int(flop_counter.bmm_flop(dims[1], dims[2]))
        if op in ("aten::convolution", "aten::_convolution", "aten::cudnn_convolution") and len(dims) >= 2:
            x, w = dims[0], dims[1]
            transposed = bool(_concrete(args, 6)) if op != "aten::cudnn_convolution" else False
            if transposed:
                return None
            out = _conv_out_shape(x, w, _concrete(args, 3), _concrete(args, 4), _concrete(args, 5))
            return int(flop_counter.conv_flop_count(x, w, out, transposed=False))
        if op.startswith("aten::_scaled_dot_product_") and len(tensors) >= 3:
            if op.endswith("_backward"):
                grad_out, q, k, v = tensors[:4]
                return int(flop_counter.sdpa_backward_flop_count(grad_out, q, k, v))
            return int(flop_counter.sdpa_flop_count(tensors[0], tensors[1], tensors[2]))
        if op.startswith("triton_tem_") and "mm" in op and len(tensors) >= 2:
            a, b = tensors[0], tensors[1]
            if len(a) == 3 and len(b) == 3 and "bmm" in op:
                return int(flop_counter.bmm_flop(a, b))
            if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
                return int(flop_counter.mm_flop(a, b))
    except (TypeError, ValueError, IndexError, AssertionError):
        return None
    return None


def _extern_op(kernel: Kernel, args: dict[str, Any]) -> str:
    return extern_op_name(kernel.name) if kernel.language == "extern" else kernel.name


def _low_precision(args: dict[str, Any]) -> bool:
    types = args.get("Input type")
    return isinstance(types, list) and any(t in LOW_PRECISION for t in types)


# -- annotating the run ---------------------------------------------------------------


def annotate_observation(obs: KernelObservation, calls: int, peaks: DevicePeaks | None) -> None:
    k = obs.kernel
    calls = max(1, calls)
    launches = obs.launch_args
    inductor_bytes = inductor_num_bytes(k)
    if inductor_bytes is not None and k.launches_per_call:
        k.bytes, k.bytes_source = int(inductor_bytes * k.launches_per_call), "inductor"
    elif launches and k.language in ("triton", "extern"):
        params = triton_parameters(k.source, k.name) if k.language == "triton" else None
        per_launch = [launch_bytes(a, params) for a in launches]
        known = [b for b in per_launch if b is not None]
        if per_launch and len(known) == len(per_launch):
            k.bytes, k.bytes_source = int(sum(known) / calls), "arguments"
    if launches:
        op = _extern_op(k, launches[0])
        per_launch_flops = [op_flops(op, a) for a in launches]
        known_flops = [f for f in per_launch_flops if f is not None]
        if per_launch_flops and len(known_flops) == len(per_launch_flops):
            k.flops = int(sum(known_flops) / calls)
    seconds = (k.device_time_ms or 0.0) / 1e3
    if seconds <= 0:
        return
    if k.bytes is not None:
        k.achieved_gbps = k.bytes / seconds / 1e9
    if k.flops:
        k.achieved_tflops = k.flops / seconds / 1e12
        obs.low_precision = bool(launches) and _low_precision(launches[0])


def annotate(result: VariantKernelTimes, peaks: DevicePeaks | None) -> None:
    for obs in result.observations.values():
        annotate_observation(obs, result.calls, peaks)


def ceilings_at_least_best_seen(peaks: DevicePeaks, results: list[VariantKernelTimes]) -> None:
    """Ceilings no kernel can beat.  A matmul's FLOPs are exact, so one that beats the measured rate
    shows the ceiling was low: the ceiling becomes its rate.  Bytes are exact for a pointwise kernel
    (a 512 MiB fp32 add moved 4.3 TB/s where the copy probe read 4.2) but not for every kernel (a
    gather from an embedding table counts the whole table: GPT-2's read "16 TB/s"), so the bandwidth
    ceiling is raised only to rates the memory can deliver: the datasheet's figure, or 1.25 x the
    probe where the part is unknown.  Kernels above that get no share (``apply_shares``)."""
    kernels = [obs for r in results for obs in r.observations.values()]
    fastest = max(
        ((tflops, obs.kernel) for obs in kernels if (tflops := obs.kernel.achieved_tflops) and obs.low_precision),
        key=lambda rate: rate[0],
        default=None,
    )
    if fastest is not None and fastest[0] > peaks.bf16_matmul_tflops:
        tflops, kernel = fastest
        peaks.bf16_matmul_tflops = tflops
        peaks.method += f"; bf16 ceiling raised to {tflops:.0f} TFLOP/s, reached by {kernel.name} in this run"
    possible = peaks.vendor_gbps or 1.25 * peaks.copy_gbps
    copy = max(
        (
            (gbps, obs.kernel)
            for obs in kernels
            if (gbps := obs.kernel.achieved_gbps) and peaks.copy_gbps < gbps <= possible
        ),
        key=lambda rate: rate[0],
        default=None,
    )
    if copy is not None:
        gbps, kernel = copy
        peaks.copy_gbps = gbps
        peaks.method += f"; bandwidth ceiling raised to {gbps:.0f} GB/s, reached by {kernel.name} in this run"


def apply_shares(results: list[VariantKernelTimes], peaks: DevicePeaks | None) -> None:
    """Each kernel's achieved rates as shares of the device's ceilings (compute: bf16/fp16 operands only)."""
    if peaks is None:
        return
    for r in results:
        for obs in r.observations.values():
            k = obs.kernel
            if k.achieved_gbps is not None and 0 < k.achieved_gbps <= peaks.copy_gbps:
                k.bandwidth_share = k.achieved_gbps / peaks.copy_gbps  # above it the byte count is the doubt
            if k.achieved_tflops is not None and obs.low_precision and peaks.bf16_matmul_tflops > 0:
                k.compute_share = k.achieved_tflops / peaks.bf16_matmul_tflops
