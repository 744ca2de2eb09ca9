"""Figures derived from a run that several renderers show: computed here once, worded by each renderer."""

from __future__ import annotations

from collections import Counter

from ..profile_run import Kernel, ProfileRun, Variant
from .format import format_bytes

TOP_KERNELS = 10


def cell_code(run: ProfileRun, line: int | None) -> str:
    """The cell's source at 1-based ``line``, stripped; empty when there is no such line."""
    lines = run.cell_source.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return ""
    return lines[line - 1].strip()


def break_reason(reason: str) -> str:
    """The most telling line of a graph break reason, for one-line views.

    Dynamo's messages open with a generic header ("Encountered graph break when
    attempting to trace CALL: …") followed by a title and an "Explanation:"
    line; the explanation says the most, then the title.  Other reasons keep
    their first line.
    """
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("Explanation:"):
            return line.removeprefix("Explanation:").strip()
    if len(lines) > 1 and lines[0].startswith("Encountered graph break"):
        return lines[1]
    return lines[0] if lines else ""


def cache_counts(run: ProfileRun) -> list[str]:
    """``FX graph 1 hit, 2 missed`` per compile cache that saw any lookup."""
    c = run.cache
    return [
        f"{what} {hits} hit{'' if hits == 1 else 's'}, {misses} missed"
        for what, hits, misses in (("FX graph", c.fx_graph_hits, c.fx_graph_misses),
                                   ("AOTAutograd", c.aot_autograd_hits, c.aot_autograd_misses))
        if hits or misses
    ]


def kernel_counts(run: ProfileRun) -> dict[str, int]:
    """Kernels per language, most first."""
    return dict(Counter(k.language for k in run.kernels).most_common())


def top_kernels(kernels: list[Kernel], n: int = TOP_KERNELS) -> list[Kernel]:
    """The ``n`` kernels that took the most device time; untimed kernels follow in generation order."""
    order = sorted(
        range(len(kernels)),
        key=lambda i: (kernels[i].device_time_ms is None, -(kernels[i].device_time_ms or 0.0), i),
    )
    return [kernels[i] for i in order[:n]]


def kernel_variants(run: ProfileRun) -> list[str]:
    """The variants that kernels were recorded for, in order of first appearance ("" when unattributed)."""
    return list(dict.fromkeys(k.variant for k in run.kernels))


def focus_kernels(run: ProfileRun) -> tuple[str, list[Kernel]]:
    """The kernels of one variant, for per-kernel and per-line totals that must not add up two variants.

    That is the speedup's variant when it has kernels, else the first one that
    does; with a single (or no) variant attribution, all kernels.
    """
    variants = kernel_variants(run)
    if len(variants) <= 1:
        return (variants[0] if variants else ""), list(run.kernels)
    chosen = run.speedup.variant if run.speedup is not None and run.speedup.variant in variants else variants[0]
    return chosen, [k for k in run.kernels if k.variant == chosen]


def median_ratio(run: ProfileRun, variant: Variant) -> float | None:
    """Eager median over ``variant``'s median (no interval: only ``run.speedup`` carries one)."""
    eager = run.eager
    if eager is None or eager.timing is None or variant.timing is None or variant.timing.median_ms <= 0:
        return None
    return eager.timing.median_ms / variant.timing.median_ms


def peak_memory_text(run: ProfileRun, variant: Variant) -> str:
    """A measured peak, or why there is none: never an estimate."""
    if variant.peak_memory_bytes is not None:
        return format_bytes(variant.peak_memory_bytes)
    if run.memory_note:
        return run.memory_note
    return "not measured on CPU" if run.device.type == "cpu" else "not measured"


def kernel_time_by_line(kernels: list[Kernel]) -> dict[int, tuple[int, float | None]]:
    """Per cell line: how many kernels came from it and their summed device time.

    A kernel fused from several lines counts fully on each of them, since its
    time cannot be split between lines honestly.  The time is None when no
    kernel of that line was timed.
    """
    out: dict[int, tuple[int, float | None]] = {}
    for k in kernels:
        for line in sorted(set(k.lines)):
            count, total = out.get(line, (0, None))
            if k.device_time_ms is not None:
                total = (total or 0.0) + k.device_time_ms
            out[line] = (count + 1, total)
    return dict(sorted(out.items()))
