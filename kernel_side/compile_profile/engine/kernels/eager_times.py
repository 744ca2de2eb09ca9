"""The eager variant's kernel time: the profiler pass the compiled variants get, plus the cell line
each op ran on.

Contract: the profiler pass (``profiler_pass.measure_variant``, the one every variant goes through) runs the
eager call ``calls_for(median)`` more times under ``torch.profiler`` (after the timed samples, through the
counted eager call with its reset before each), and this rule (``EagerRule``) writes ``run.eager.kernel_profile``:

* ``total_ms``: per call, on CUDA (``method="cupti"``) every device event of the trace, as for a
  compiled variant; on CPU (``"host"``) the host time of the top-level ATen ops (those not inside
  another ATen op) the call ran, each less the profiler's cost of the ops recorded inside it, calibrated in the
  process (``profiler_cost``; recorded with shapes and the Python tracer, as a compiled variant's pass);
* ``breakdown``: that time split by kind (``common.op_kinds``, the host rule ``breakdown``; ``generated_ms`` is 0);
* ``eager_lines``: each op's time on the one cell line that was running when its top-level ATen op
  was called (a device event through the runtime call that launched it); ``attributed_ms`` is their
  sum, at most ``total_ms``.  Each line lists its largest top-level ATen ops (``aten::matmul``).

Lines are marked while the profiled calls run, never during the timed samples (``line_marks``: a
``sys.settrace`` function that traces only frames of the profiled code opens a profiler
range named after the cell line at each line event); the compiled variants' passes mark theirs the
same way.  A target without a code object (a builtin) gets no lines.

Each profiled call is attributed alone and the figures are medians over the calls
(``profiled_calls``: on CPU those a busy machine did not preempt), as the compiled variants' are.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from ...profile_run import CallBreakdown, KernelProfile, ProfiledEvent, ProfileRun, TimingMethod
from ...stats import median
from ..common.op_kinds import ATEN, COLLECTIVE, COPY, LIBRARY, device_kind
from .breakdown import host_op_parts, host_time_us, is_host_op
from .chrome_trace import ChromeTrace
from .line_marks import LINE_RANGE, LineRanges, line_times, marking_lines
from .profiled_calls import PassCalls

__all__ = ["CALL_RANGE", "LINE_RANGE", "EagerCall", "EagerRule", "EagerTimes", "attribute_eager", "marking_lines"]

CALL_RANGE = "compile_profile: eager call"


@dataclass
class EagerCall:
    """The eager variant as the pass calls it: counted, with the namespace reset before each call."""

    call: Callable[[], Any]
    before_each: Callable[[], None]
    code: CodeType | None  # the profiled function's code, whose frames' lines are marked
    line_offset: int = 0  # added to a frame's line number to get the cell line


@dataclass
class EagerTimes:
    """What the eager pass measured, summed over ``calls`` profiled calls (microseconds)."""

    calls: int
    method: TimingMethod
    total_us: float = 0.0
    parts: dict[str, float] = field(default_factory=lambda: {LIBRARY: 0.0, ATEN: 0.0, COPY: 0.0, COLLECTIVE: 0.0})
    # microseconds are summed in defaultdict(float)s: typeshed's Counter counts ints only
    line_us: collections.defaultdict[int, float] = field(  # cell line -> us
        default_factory=lambda: collections.defaultdict(float)
    )
    line_ops: dict[int, collections.defaultdict[str, float]] = field(default_factory=dict)  # cell line -> op -> us
    # (cell line or None, kind) -> us: the partition both ``parts`` and ``line_us`` sum, which ``combine``
    # takes medians of so that the combined parts and lines still add up to the combined total
    cells: collections.defaultdict[tuple[int | None, str], float] = field(
        default_factory=lambda: collections.defaultdict(float)
    )
    profiler_cost_us: float = 0.0  # the profiler's calibrated cost taken out of the ops' host time
    event_cost_us: float | None = None  # that cost per op event (``profiler_cost``); None: not calibrated


def _count_on_line(times: EagerTimes, line: int | None, op: str | None, us: float) -> None:
    if line is None:
        return
    times.line_us[line] += us
    if op is not None:
        times.line_ops.setdefault(line, collections.defaultdict(float))[op] += us


def attribute_eager(trace: ChromeTrace, *, calls: int, device_type: str, event_cost_us: float = 0.0) -> EagerTimes:
    """The eager pass's times from its trace (``calls`` profiled calls); on CPU each op's host time less the
    profiler's ``event_cost_us`` for every op event recorded inside it (``profiler_cost``)."""
    times = EagerTimes(calls=calls, method="cupti" if device_type == "cuda" else "host")
    ranges = LineRanges(trace, CALL_RANGE)
    if times.method == "host":
        for ev in trace.host:
            if not is_host_op(ev) or any(is_host_op(a) for a in ev.ancestors()) or not ranges.in_call(ev):
                continue
            op_us = host_time_us(ev, event_cost_us)
            times.total_us += op_us
            times.profiler_cost_us += ev.dur - op_us
            line = ranges.line_of(ev)
            for kind, us in host_op_parts(ev, event_cost_us).items():  # the host rule, as for a compiled variant's
                times.parts[kind] += us
                times.cells[(line, kind)] += us
            _count_on_line(times, line, ev.name, op_us)
        return times
    for d in trace.device:
        times.total_us += d.dur
        chain = [a for a in d.launcher.ancestors() if is_host_op(a)] if d.launcher is not None else []
        kind = device_kind(d.cat, d.name, [a.name for a in chain])
        line = ranges.line_of(d.launcher) if d.launcher is not None else None
        times.parts[kind] += d.dur
        times.cells[(line, kind)] += d.dur
        _count_on_line(times, line, chain[-1].name if chain else None, d.dur)
    return times


def combine(per_call: list[EagerTimes]) -> EagerTimes:
    """One pass's times from its calls' (each attributed alone, ``calls=1``): each (line, kind) cell's
    median over the calls, so each kind's time, each line's and the total are sums of the same medians and
    add up as a single call's do; a line's ops are ranked by their time over all the calls.  Sums are over
    ``len(per_call)`` calls, as ``attribute_eager``'s are over its calls."""
    n = len(per_call)
    out = EagerTimes(calls=n, method=per_call[0].method)
    out.profiler_cost_us = median(t.profiler_cost_us for t in per_call) * n
    for cell in dict.fromkeys(c for t in per_call for c in t.cells):
        us = median(t.cells.get(cell, 0.0) for t in per_call) * n
        line, kind = cell
        out.cells[cell] = us
        out.parts[kind] = out.parts.get(kind, 0.0) + us
        out.total_us += us
        if line is not None:
            out.line_us[line] += us
    for t in per_call:
        for line, ops in t.line_ops.items():
            if line in out.line_us:
                line_ops = out.line_ops.setdefault(line, collections.defaultdict(float))
                for op, us in ops.items():
                    line_ops[op] += us
    return out


# -- the pass and what it writes ----------------------------------------------------------------


def apply(times: EagerTimes, run: ProfileRun, calls_made: PassCalls | None = None) -> KernelProfile:
    """Write ``run.eager.kernel_profile``; ``calls_made``, what the pass's calls were (all of ``times``'
    calls, none preempted, when not given)."""
    if calls_made is None:
        calls_made = PassCalls(profiled=times.calls, preempted=0, call_ms=None, waited_ms=None)
    calls = max(1, times.calls)

    def ms(us: float) -> float:
        return us / 1e3 / calls

    lines = line_times(times.line_us, times.line_ops, times.calls)
    profile = KernelProfile(
        calls=calls_made.profiled,
        total_ms=ms(times.total_us),
        attributed_ms=sum(line.time_ms for line in lines),
        method=times.method,
        breakdown=CallBreakdown(
            library_ms=ms(times.parts[LIBRARY]),
            generated_ms=0.0,
            aten_ms=ms(times.parts[ATEN]),
            copy_ms=ms(times.parts[COPY]),
            collective_ms=ms(times.parts[COLLECTIVE]),
        ),
        eager_lines=lines,
        profiled_call_ms=calls_made.call_ms,
        preempted_calls=calls_made.preempted,
        waited_ms=calls_made.waited_ms,
        device_busy_ms=calls_made.device_busy_ms,
        event_cost_us=times.event_cost_us,
        profiler_cost_ms=ms(times.profiler_cost_us) if times.event_cost_us is not None else None,
    )
    run.variant("eager").kernel_profile = profile
    return profile


@dataclass(frozen=True)
class EagerRule:
    """How the eager variant's profiled calls become its figures (``profiler_pass.AttributionRule``): every
    top-level op of the call (by the host rule on CPU, each device event by its kind on a GPU), each on its cell
    line.  On a GPU recorded bare (no shapes, no Python tracer): eager needs neither, and device times are what
    the pass reports."""

    call_range: str = CALL_RANGE
    bare_on_device: bool = True

    def attribute(self, trace: ChromeTrace, *, calls: int, device_type: str, event_cost_us: float) -> EagerTimes:
        return attribute_eager(trace, calls=calls, device_type=device_type, event_cost_us=event_cost_us)

    def combine(self, per_call: list[EagerTimes]) -> EagerTimes:
        return combine(per_call)

    def apply(self, times: EagerTimes, run: ProfileRun, calls: PassCalls) -> None:
        apply(times, run, calls)

    def events(self, trace: ChromeTrace) -> list[ProfiledEvent]:
        return []  # the Perfetto export lays out compiled variants' kernels only
