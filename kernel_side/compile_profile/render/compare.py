"""Two runs side by side: the figures that moved, for the widget's Compare tab and other comparing views."""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun
from .format import format_bytes, format_ms, format_s, format_speedup


@dataclass
class Delta:
    """One compared figure: its value in each run, worded, and the relative change (None when not defined)."""

    metric: str
    this: str
    other: str
    change: float | None


def _relative(this: float | None, other: float | None) -> float | None:
    if this is None or other is None or other == 0:
        return None
    return this / other - 1.0


def compare(run: ProfileRun, other: ProfileRun) -> list[Delta]:
    """``run`` against ``other``: a positive change means ``run``'s figure is larger."""
    out: list[Delta] = []
    other_variants = {v.name: v for v in other.variants}
    for v in run.variants:
        o = other_variants.get(v.name)
        if o is None or v.timing is None or o.timing is None:
            continue
        out.append(Delta(f"{v.name} median", format_ms(v.timing.median_ms), format_ms(o.timing.median_ms),
                         _relative(v.timing.median_ms, o.timing.median_ms)))
    if run.speedup is not None or other.speedup is not None:
        a = run.speedup.value if run.speedup else None
        b = other.speedup.value if other.speedup else None
        out.append(Delta("speedup", format_speedup(a), format_speedup(b), _relative(a, b)))
    for v in run.compiled_variants:
        o = other_variants.get(v.name)
        if o is not None and (v.compile_s is not None or o.compile_s is not None):
            out.append(Delta(f"{v.name} compile", format_s(v.compile_s), format_s(o.compile_s),
                             _relative(v.compile_s, o.compile_s)))
    for v in run.variants:
        o = other_variants.get(v.name)
        if o is not None and (v.peak_memory_bytes is not None or o.peak_memory_bytes is not None):
            out.append(Delta(f"{v.name} peak memory", format_bytes(v.peak_memory_bytes), format_bytes(o.peak_memory_bytes),
                             _relative(v.peak_memory_bytes, o.peak_memory_bytes)))
    counts = [
        ("Dynamo graphs", run.dynamo_graph_count, other.dynamo_graph_count),
        ("graph breaks", len(run.graph_breaks), len(other.graph_breaks)),
        ("recompiles", len(run.recompiles), len(other.recompiles)),
        ("kernels", len(run.kernels), len(other.kernels)),
    ]
    out += [Delta(name, str(a), str(b), _relative(a, b)) for name, a, b in counts]
    return out
