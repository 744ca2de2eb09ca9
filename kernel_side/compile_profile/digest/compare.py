"""Two runs side by side, A (before) and B (after): the one comparison every comparing view shows.

The CLI's ``compare``, the widget's Compare tab and the panel's Compare view (through the REST API)
all lay out this ``Comparison``; none matches kernels or computes a change itself.

Kernels are matched by name without Inductor's trailing counter (``triton_poi_fused_add_0`` and
``triton_poi_fused_add_3`` are the same kernel: the counter shifts when an unrelated kernel appears
earlier), as a multiset, so three ``cpp_fused_relu`` before and two after is one removed, two kept.
Matching exact names, as the CLI once did, reported every renumbered kernel as one added and one removed.

What the runs ran with comes first (``context``): the device, torch, torch's threads, the load other processes put
on the machine while timing, the profile's options, each compiled variant's ``torch.compile`` call, the verdict and
the cell's code, the rows where they differ before those where they agree.  Two runs of one cell once differed by
92.7 % in eager time, which their threads and options explained, and Compare showed only device and torch.

A timing's or the speedup's change is called one (``better`` set, the view colours it and gives it an arrow)
only when it lies beyond both runs' intervals: B's figure outside A's interval and A's outside B's (a median's
p10–p90, the speedup's low–high).  Otherwise it is ``within_noise``, worded "within noise", and neither run's
figure is the better one: two runs of one unchanged cell differ by a few percent every time.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from ..profile_run import ProfileRun, Timing
from ..serialize import ADDED_LATER
from .facts import cache_words
from .format import format_bytes, format_ms, format_s, format_speedup, format_speedup_interval
from .outcome import badge_text

_KERNEL_COUNTER = re.compile(r"_\d+$")


def kernel_match_key(name: str) -> str:
    """The name two runs' kernels are matched by: Inductor's trailing counter stripped."""
    return _KERNEL_COUNTER.sub("", name)


@dataclass
class Delta:
    """One compared figure: its value in each run, worded, and B's change against A (None when undefined)."""

    metric: str
    a: float | None
    b: float | None
    a_text: str
    b_text: str
    change: float | None  # b / a - 1; None when undefined
    change_text: str
    # "b" when B's figure is the better one, "a" when A's is, "" when neither, within noise, or no direction
    better: Literal["a", "b", ""] = ""  # which run's figure is the better one; "" when neither
    within_noise: bool = False  # the change lies within one run's interval (p10–p90, the speedup's): shown neutral


@dataclass
class KernelCount:
    """A kernel name (Inductor's trailing counter stripped) and how many more one run has."""

    name: str  # the match key
    count: int


@dataclass
class RunRef:
    """A run as the comparison names it."""

    id: str
    label: str
    created_at: str
    device: str
    torch_version: str


@dataclass
class ContextRow:
    """One thing the two runs ran with (their device, torch's threads, the profile's options, the cell), each worded,
    and whether they differ."""

    label: str
    a: str
    b: str
    differs: bool


@dataclass
class Comparison:
    """Run A (before) against run B (after) (``compare``)."""

    a: RunRef
    b: RunRef
    deltas: list[Delta]
    # what the runs ran with, the rows that differ first (``context``)
    context: list[ContextRow] = field(default_factory=list, metadata=ADDED_LATER)  # the rows that differ first
    kernels_added: list[KernelCount] = field(default_factory=list)  # in B, more than in A
    kernels_removed: list[KernelCount] = field(default_factory=list)
    kernels_kept: int = 0


def _relative(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or a == 0:
        return None
    return b / a - 1.0


def _change_text(change: float | None) -> str:
    return "—" if change is None else f"{change * 100:+.1f}%"


def _delta(metric: str, a: float | None, b: float | None, fmt, lower_is_better: bool | None) -> Delta:
    change = _relative(a, b)
    better: Literal["a", "b", ""] = ""
    if lower_is_better is not None and a is not None and b is not None and a != b:
        better = "b" if (b < a) == lower_is_better else "a"
    return Delta(metric, a, b, fmt(a), fmt(b), change, _change_text(change), better)


def _beyond(a: float, b: float, a_interval: tuple[float, float], b_interval: tuple[float, float]) -> bool:
    """Whether ``b`` lies outside A's interval and ``a`` outside B's."""
    return not (a_interval[0] <= b <= a_interval[1]) and not (b_interval[0] <= a <= b_interval[1])


def _judge_noise(d: Delta, a_interval: tuple[float, float] | None, b_interval: tuple[float, float] | None) -> None:
    """Call ``d``'s change within noise where both runs have an interval and it lies within one of them."""
    if d.a is None or d.b is None or a_interval is None or b_interval is None:
        return
    if not _beyond(d.a, d.b, a_interval, b_interval):
        d.within_noise, d.better = True, ""
        d.change_text = f"within noise ({d.change_text})" if d.change is not None else "within noise"


def _spread(timing: Timing | None) -> tuple[float, float] | None:
    return None if timing is None else (timing.p10_ms, timing.p90_ms)


def _interval(run: ProfileRun) -> tuple[float, float] | None:
    s = run.speedup
    return (s.low, s.high) if s is not None and s.has_interval and s.low is not None and s.high is not None else None


def _speedup_text(run: ProfileRun) -> str:
    s = run.speedup
    return "—" if s is None else f"{format_speedup_interval(s.value, s.low, s.high)} {s.variant}"


def _ref(run: ProfileRun) -> RunRef:
    return RunRef(run.id, run.label, run.created_at, run.device.name or run.device.type, run.torch_version)


def _threads(run: ProfileRun) -> str:
    s = run.settings
    if s is not None:
        return f"{s.torch_threads} intra-op, {s.interop_threads} inter-op"
    # before settings were recorded a CPU run's device count was torch's intra-op threads (engine/common/device.py)
    return f"{run.device.count} intra-op" if run.device.type == "cpu" and not run.untimed else "not recorded"


def _others_load(run: ProfileRun) -> str:
    load = run.host_load
    if load is None:
        return "not measured"
    return f"{load.other_processes_cores:.1f} of {load.cores} cores busy while timing"


def _profile_options(run: ProfileRun) -> str:
    s = run.settings
    if s is None:
        return "not recorded"
    words = [f"warm-up {s.warmup}", f"repeat {s.repeat}", f"budget {s.budget_s:g} s"]
    if s.quick:
        words.append("--quick")
    if not s.check_correctness:
        words.append("--no-check")
    if s.inputs:
        words.append(f"--inputs {s.inputs}")
    return ", ".join(words)


def _compile_calls(run: ProfileRun) -> str:
    calls = [v.torch_compile_call or v.name for v in run.compiled_variants]
    return "; ".join(calls) or "none"


def _magic_line(run: ProfileRun) -> str:
    first = run.cell_source.splitlines()[0].strip() if run.cell_source.strip() else ""
    return first if first.startswith("%%compile_profile") else ""


def _code_lines(run: ProfileRun) -> list[str]:
    """The cell's code as compared: without its ``%%compile_profile`` line (the options row says those) and blank
    lines."""
    lines = run.cell_source.splitlines()
    if _magic_line(run):
        lines = lines[1:]
    return [line.rstrip() for line in lines if line.strip()]


def _cell_rows(a: ProfileRun, b: ProfileRun) -> list[ContextRow]:
    rows = [ContextRow("magic line", _magic_line(a) or "—", _magic_line(b) or "—", _magic_line(a) != _magic_line(b))]
    ca, cb = _code_lines(a), _code_lines(b)
    if ca == cb:
        return rows + [ContextRow("cell", "same code", "same code", False)]
    n = next((i for i, (x, y) in enumerate(zip(ca, cb)) if x != y), min(len(ca), len(cb)))
    a_text = f"line {n + 1}: {ca[n].strip()}" if n < len(ca) else f"{len(ca)} lines"
    b_text = f"line {n + 1}: {cb[n].strip()}" if n < len(cb) else f"{len(cb)} lines"
    return rows + [ContextRow("cell", a_text, b_text, True)]


def context(a: ProfileRun, b: ProfileRun) -> list[ContextRow]:
    """What the two runs ran with, side by side, the rows where they differ first (in this order among each)."""

    def device(run: ProfileRun) -> str:
        name = run.device.name or run.device.type
        return f"{name} ×{run.device.count}" if run.device.type == "cuda" and run.device.count > 1 else name

    rows = [
        ContextRow(label, fa, fb, fa != fb)
        for label, fa, fb in (
            ("verdict", badge_text(a), badge_text(b)),
            ("device", device(a), device(b)),
            ("torch", a.torch_version or "—", b.torch_version or "—"),
            ("threads", _threads(a), _threads(b)),
            ("other processes", _others_load(a), _others_load(b)),
            ("profile options", _profile_options(a), _profile_options(b)),
            ("torch.compile", _compile_calls(a), _compile_calls(b)),
        )
    ]
    rows += _cell_rows(a, b)
    return [r for r in rows if r.differs] + [r for r in rows if not r.differs]


def compare(a: ProfileRun, b: ProfileRun) -> Comparison:
    """What changed from run ``a`` to run ``b``, after what the two ran with (``context``)."""
    va, vb = {v.name: v for v in a.variants}, {v.name: v for v in b.variants}
    names = list(va) + [n for n in vb if n not in va]
    deltas: list[Delta] = []
    for name in names:
        ta, tb = getattr(va.get(name), "timing", None), getattr(vb.get(name), "timing", None)
        if ta is not None or tb is not None:
            d = _delta(f"{name} median", ta and ta.median_ms, tb and tb.median_ms, format_ms, True)
            _judge_noise(d, _spread(ta), _spread(tb))
            deltas.append(d)
    if a.speedup is not None or b.speedup is not None:
        d = _delta("speedup", a.speedup and a.speedup.value, b.speedup and b.speedup.value, format_speedup, False)
        d.a_text, d.b_text = _speedup_text(a), _speedup_text(b)
        _judge_noise(d, _interval(a), _interval(b))
        deltas.append(d)
    for name in names:
        ca, cb = getattr(va.get(name), "compile_s", None), getattr(vb.get(name), "compile_s", None)
        if ca is not None or cb is not None:
            d = _delta(f"{name} compile", ca, cb, format_s, True)
            # a warm cache's compile is no improvement of the code over a cold one (8.39 s cold, 4.83 s warm:
            # the same cell read "-42.4%")
            cache_a, cache_b = cache_words(a, va.get(name)), cache_words(b, vb.get(name))
            d.a_text += f" ({cache_a})" if ca is not None and cache_a else ""
            d.b_text += f" ({cache_b})" if cb is not None and cache_b else ""
            if ca is not None and cb is not None and cache_a != cache_b:
                d.change, d.better = None, ""
                d.change_text = f"not comparable: {cache_a or 'cache unknown'} vs {cache_b or 'cache unknown'}"
            deltas.append(d)
    for name in names:
        ma, mb = getattr(va.get(name), "peak_memory_bytes", None), getattr(vb.get(name), "peak_memory_bytes", None)
        if ma is not None or mb is not None:
            deltas.append(_delta(f"{name} peak memory", ma, mb, format_bytes, True))
    for metric, count in (
        ("Dynamo graphs", lambda r: r.dynamo_graph_count),
        ("graph breaks", lambda r: len(r.graph_breaks)),
        ("recompiles", lambda r: len(r.recompiles)),
        ("kernels", lambda r: len(r.kernels)),
    ):
        d = _delta(metric, count(a), count(b), lambda n: "—" if n is None else str(n), None)
        d.change_text = f"{count(b) - count(a):+d}"
        deltas.append(d)
    ka = Counter(kernel_match_key(k.name) for k in a.kernels)
    kb = Counter(kernel_match_key(k.name) for k in b.kernels)
    return Comparison(
        a=_ref(a),
        b=_ref(b),
        deltas=deltas,
        kernels_added=[KernelCount(n, c) for n, c in sorted((kb - ka).items())],
        kernels_removed=[KernelCount(n, c) for n, c in sorted((ka - kb).items())],
        kernels_kept=sum((ka & kb).values()),
        context=context(a, b),
    )
