"""What the engine measured beside the timings, in words: the device's ceilings, eager's peak memory
against the compiled variant's, max-autotune's choice per tuned op, why reduce-overhead did not use
CUDA graphs, and each timed kernel's achieved rates as shares of the ceilings (the roofline).

Derived here once for every view (text, HTML, report, charts, panel through the digest's JSON).  A
kernel of a variant whose profiler pass is withheld (``kernel_times``) has no rate here: its time is not
the timed call's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..profile_run import AutotuneResult, DevicePeaks, Kernel, ProfileRun
from ..serialize import ADDED_LATER
from .format import format_gbps, format_ms, format_s, format_share, format_speedup, format_tflops, one_line
from .kernel_times import withheld

ROOFLINE_ROWS = 20  # kernels with rates listed, most time first; the rest are counted
COPY_PEAK = "the copy peak"
MATMUL_PEAK = "the bf16 matmul peak"

_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64", "half": "fp16", "float": "fp32"}


# -- the device's ceilings and memory -------------------------------------------------------------


@dataclass
class DevicePeaksSummary:
    """The device's measured ceilings in words, and how they were measured."""

    text: str
    method: str


@dataclass
class MemoryRatio:
    """Compiled's peak memory over eager's, and the sentence for it."""

    value: float
    text: str


def device_peaks_text(peaks: DevicePeaks) -> str:
    """``device peaks measured here: copy 4.1 TB/s (vendor 4.8 TB/s), bf16 matmul 790 TFLOP/s (vendor 989)``."""
    copy = f"copy {format_gbps(peaks.copy_gbps)}"
    if peaks.vendor_gbps:
        copy += f" (vendor {format_gbps(peaks.vendor_gbps)})"
    matmul = f"bf16 matmul {format_tflops(peaks.bf16_matmul_tflops)}"
    if peaks.vendor_bf16_tflops:
        matmul += f" (vendor {peaks.vendor_bf16_tflops:.3g})"
    return f"device peaks measured here: {copy}, {matmul}"


def memory_ratio_text(run: ProfileRun) -> str | None:
    """``eager peak memory is 1.8× the compiled variant's``, or the compiled variant's over eager's when it uses more."""
    ratio = run.memory_ratio
    if ratio is None or ratio <= 0:
        return None
    v = run.memory_variant
    who = "the compiled variant" if v is None or len(run.compiled_variants) <= 1 else v.name
    if ratio >= 1:
        return f"eager peak memory is {format_speedup(ratio)} {who}'s"
    return f"{who}'s peak memory is {format_speedup(1 / ratio)} eager's"


# -- max-autotune --------------------------------------------------------------------------------


def shape_words(shape: str) -> str:
    """``[[4096, 4096], [4096, 64]]`` as ``[4096×4096, 4096×64]``; other text as it is."""
    try:
        value = ast.literal_eval(shape)
    except (ValueError, SyntaxError):
        return shape
    if isinstance(value, (list, tuple)) and all(isinstance(s, (list, tuple)) for s in value):
        return "[" + ", ".join("×".join(map(str, s)) for s in value) + "]"
    return shape


def dtype_words(dtypes: str) -> str:
    """``[torch.bfloat16, torch.bfloat16]`` as ``bf16``: each dtype once, short."""
    names = [d.strip().strip("'\"").removeprefix("torch.") for d in dtypes.strip("[]() ").split(",") if d.strip()]
    return ", ".join(dict.fromkeys(_DTYPES.get(n, n) for n in names))


@dataclass(frozen=True)
class AutotuneRow:
    """One max-autotune choice: the op, its shape, what won and how long tuning took."""

    variant: str
    op: str
    shape: str  # in words: [4096×4096, 4096×4096]
    choices: int | None
    best: str
    best_ms: float | None
    best_triton: str
    best_triton_ms: float | None
    autotune_s: float | None
    text: str
    # best_ms, best_triton_ms, autotune_s as every view words them ("410 µs", "—"): the panel formats nothing
    texts: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:  # worded once, from the row's figures (frozen: they cannot change after)
        object.__setattr__(
            self,
            "texts",
            {
                "best_ms": format_ms(self.best_ms),
                "best_triton_ms": format_ms(self.best_triton_ms),
                "autotune_s": format_s(self.autotune_s),
            },
        )


def autotune_text(r: AutotuneResult) -> str:
    """``mm [4096×4096, 4096×4096] bf16: picked mm at 410 µs over the best Triton config at 450 µs, 18 choices,
    tuned in 12.3 s``."""
    what = " ".join(t for t in (r.op, shape_words(r.shape), dtype_words(r.dtypes)) if t)
    best = one_line(r.best, 80) or "?"
    triton_won = bool(r.best_triton) and r.best_triton == r.best
    picked = f"picked {'Triton config ' if triton_won else ''}{best}"
    if r.best_ms is not None:
        picked += f" at {format_ms(r.best_ms)}"
    if r.best_triton and not triton_won and r.best_triton_ms is not None:
        picked += f" over the best Triton config at {format_ms(r.best_triton_ms)}"
    parts = [picked]
    if r.choices is not None:
        parts.append(f"{r.choices} choice{'' if r.choices == 1 else 's'}")
    if r.autotune_s is not None:
        parts.append(f"tuned in {format_s(r.autotune_s)}")
    return f"{what}: {', '.join(parts)}"


def autotune_rows(run: ProfileRun) -> list[AutotuneRow]:
    """Max-autotune's choice per tuned op, per variant in the run's order."""
    return [
        AutotuneRow(
            variant=v.name,
            op=r.op,
            shape=shape_words(r.shape),
            choices=r.choices,
            best=r.best,
            best_ms=r.best_ms,
            best_triton=r.best_triton,
            best_triton_ms=r.best_triton_ms,
            autotune_s=r.autotune_s,
            text=autotune_text(r),
        )
        for v in run.variants
        for r in v.autotune
    ]


# -- CUDA graphs -----------------------------------------------------------------------------------


@dataclass
class CudagraphSkip:
    """Why CUDA graphs were skipped in one variant."""

    variant: str
    reasons: list[str]
    # "inductor/reduce-overhead did not use CUDA graphs: skipping cudagraphs due to …"
    text: str = field(init=False, metadata=ADDED_LATER)  # the skip in words, every reason

    def __post_init__(self) -> None:
        self.text = cudagraph_text(self.variant, self.reasons)


def cudagraph_skips(run: ProfileRun) -> list[CudagraphSkip]:
    """Each variant whose CUDA graphs Inductor skipped, and why."""
    return [CudagraphSkip(variant=v.name, reasons=list(v.cudagraph_skips)) for v in run.variants if v.cudagraph_skips]


def cudagraph_text(variant: str, reasons: list[str], first_only: bool = False) -> str:
    """``inductor/reduce-overhead did not use CUDA graphs: skipping cudagraphs due to mutated inputs``."""
    shown = reasons[:1] if first_only else reasons
    text = f"{variant} did not use CUDA graphs: " + "; ".join(one_line(r) for r in shown)
    if first_only and len(reasons) > 1:
        text += f" (and {len(reasons) - 1} more reason{'' if len(reasons) == 2 else 's'})"
    return text


def cudagraph_warnings(run: ProfileRun) -> list[str]:
    """The card's warning per variant that skipped CUDA graphs, with its first reason."""
    return [cudagraph_text(s.variant, s.reasons, first_only=True) for s in cudagraph_skips(run)]


# -- the roofline --------------------------------------------------------------------------------


@dataclass
class RooflineRow:
    """A timed kernel's achieved rates, as shares of the device's ceilings where there is one."""

    kernel_id: str
    name: str
    variant: str
    achieved_gbps: float | None
    bandwidth_share: float | None  # of the copy peak
    achieved_tflops: float | None
    compute_share: float | None  # of the bf16 matmul peak
    text: str

    def bound(self) -> tuple[str, float] | None:
        """The ceiling this kernel comes closest to, and its share of it: ``(COPY_PEAK, 0.46)``."""
        shares = [(MATMUL_PEAK, self.compute_share), (COPY_PEAK, self.bandwidth_share)]
        known = [(name, s) for name, s in shares if s is not None]
        return max(known, key=lambda t: t[1]) if known else None


def has_rates(k: Kernel) -> bool:
    return k.achieved_gbps is not None or k.achieved_tflops is not None


def roofline_text(k: Kernel, peaks: DevicePeaks | None) -> str:
    """``612 TFLOP/s, 77% of the bf16 matmul peak; 1.2 TB/s, 30% of the copy peak``: a matmul's compute rate
    first, unless it is closer to the copy peak."""
    parts: list[tuple[float, str]] = []
    if k.achieved_tflops is not None:
        text = format_tflops(k.achieved_tflops)
        if k.compute_share is not None:
            text += f", {format_share(k.compute_share)} of {MATMUL_PEAK}"
        parts.append((k.compute_share or 0.0, text))
    if k.achieved_gbps is not None:
        text = format_gbps(k.achieved_gbps)
        if k.bandwidth_share is not None:
            text += f", {format_share(k.bandwidth_share)} of {COPY_PEAK}"
        elif peaks is not None and k.achieved_gbps > peaks.copy_gbps:
            text += f", above {COPY_PEAK}: its byte count overstates what it moved"
        parts.append((k.bandwidth_share or 0.0, text))
    if len(parts) == 2 and k.compute_share is not None and parts[1][0] > parts[0][0]:
        parts.reverse()
    return "; ".join(text for _, text in parts)


def roofline_kernels(run: ProfileRun) -> list[Kernel]:
    """Every kernel with an achieved rate, most device time first; none of a withheld pass's."""
    left_out = withheld(run)
    rated = [k for k in run.kernels if has_rates(k) and k.variant not in left_out]
    return sorted(rated, key=lambda k: -(k.device_time_ms or 0.0))


def roofline_rows(run: ProfileRun, limit: int = ROOFLINE_ROWS) -> list[RooflineRow]:
    """The top ``limit`` kernels with rates, most device time first."""
    return [
        RooflineRow(
            kernel_id=k.id,
            name=k.name,
            variant=k.variant,
            achieved_gbps=k.achieved_gbps,
            bandwidth_share=k.bandwidth_share,
            achieved_tflops=k.achieved_tflops,
            compute_share=k.compute_share,
            text=roofline_text(k, run.device_peaks),
        )
        for k in roofline_kernels(run)[:limit]
    ]


def roofline_note(run: ProfileRun) -> str:
    """What the roofline figures are, said under them."""
    left_out = [name for name in withheld(run) if any(k.variant == name and has_rates(k) for k in run.kernels)]
    rest = f"; none for {', '.join(left_out)}, whose profiler pass is withheld" if left_out else ""
    if run.device_peaks is None:  # CPU: no peak is measured, so a rate is not a share of anything
        return (
            "achieved rate per kernel: bytes it moved or matmul FLOPs it did per call over its time, "
            "absolute rates (no device peak is measured here to hold them against)" + rest
        )
    return (
        "achieved rate per kernel: bytes it moved or matmul FLOPs it did per call over its device time, "
        "as a share of the device peak measured in this session" + rest
    )


# -- all of it, as the REST API serves it --------------------------------------------------------


@dataclass
class Measured:
    """What was measured beside the timing (``measured``): the digest's figures and sentences."""

    device_peaks: DevicePeaksSummary | None
    memory_ratio: MemoryRatio | None
    autotune: list[AutotuneRow]
    cudagraph_skips: list[CudagraphSkip]
    roofline: list[RooflineRow]  # the ROOFLINE_ROWS kernels with rates that took the most time
    roofline_count: int = field(metadata=ADDED_LATER)  # every kernel with rates: the rows and those left out
    roofline_note: str = field(metadata=ADDED_LATER)  # what the roofline figures are, said under them; "" without


def measured(run: ProfileRun) -> Measured:
    peaks, value = run.device_peaks, run.memory_ratio
    ratio = memory_ratio_text(run)  # None where value is
    rows = roofline_rows(run)
    return Measured(
        device_peaks=DevicePeaksSummary(text=device_peaks_text(peaks), method=peaks.method)
        if peaks is not None
        else None,
        memory_ratio=MemoryRatio(value=value, text=ratio) if ratio is not None and value is not None else None,
        autotune=autotune_rows(run),
        cudagraph_skips=cudagraph_skips(run),
        roofline=rows,
        roofline_count=len(roofline_kernels(run)),
        roofline_note=roofline_note(run) if rows else "",
    )
