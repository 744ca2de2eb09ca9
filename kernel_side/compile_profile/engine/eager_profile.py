"""The eager variant's kernel time: the profiler pass the compiled variants get, plus the cell line
each op ran on.

Contract: ``measure_eager`` runs the eager call ``kernel_profiler.calls_for(median)`` more times
under ``torch.profiler`` (after the timed samples, through the counted eager call with its reset
before each, as the compiled variants' pass does) and writes ``run.eager.kernel_profile``:

* ``total_ms``: per call, on CUDA (``method="cupti"``) every device event of the trace, as for a
  compiled variant; on CPU (``"host"``) the host time of the top-level ATen ops (those not inside
  another ATen op) the call ran;
* ``breakdown``: that time split by ``kernel_breakdown``'s rules (``generated_ms`` is 0);
* ``eager_lines``: each op's time on the one cell line that was running when its top-level ATen op
  was called (a device event through the runtime call that launched it); ``attributed_ms`` is their
  sum, at most ``total_ms``.  Each line lists its largest top-level ATen ops (``aten::matmul``).

Lines are marked while the profiled calls run, never during the timed samples: a ``sys.settrace``
function that traces only frames of the profiled code object opens a ``record_function`` range
named after the cell line at each line event and closes it at the next line event, at return and
at an exception; the previous trace function is chained for every other frame and restored after
each call, also when it raises.  A target without a code object (a builtin) gets no lines.
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from ..profile_run import CallBreakdown, EagerLineTime, KernelProfile, ProfileRun
from . import kernel_profiler
from .chrome_trace import ChromeTrace, HostEvent
from .kernel_breakdown import ATEN, COLLECTIVE, COPY, LIBRARY, device_kind, host_op_parts, is_host_op

LINE_RANGE = "compile_profile: cell line "  # + the 1-based cell line
CALL_RANGE = "compile_profile: eager call"
MAX_OPS_PER_LINE = 5


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
    method: str
    total_us: float = 0.0
    parts: dict[str, float] = field(default_factory=lambda: {LIBRARY: 0.0, ATEN: 0.0, COPY: 0.0, COLLECTIVE: 0.0})
    line_us: collections.Counter = field(default_factory=collections.Counter)  # cell line -> us
    line_ops: dict[int, collections.Counter] = field(default_factory=dict)  # cell line -> op -> us


# -- marking lines -------------------------------------------------------------------------


@contextlib.contextmanager
def marking_lines(code: CodeType | None, line_offset: int = 0) -> Iterator[None]:
    """While the block runs, each line of a frame running ``code`` is a profiler range named
    ``LINE_RANGE + str(cell line)``."""
    if code is None:
        yield
        return
    from torch.autograd.profiler import record_function

    current: list[Any] = [None]

    def close() -> None:
        rf, current[0] = current[0], None
        if rf is not None:
            rf.__exit__(None, None, None)

    def trace_line(frame, event, arg):
        if event == "line":
            close()
            rf = record_function(f"{LINE_RANGE}{frame.f_lineno + line_offset}")
            rf.__enter__()
            current[0] = rf
        elif event in ("return", "exception"):
            close()  # an exception the frame catches is followed by the next line's event
        return trace_line

    previous = sys.gettrace()

    def trace_call(frame, event, arg):
        if frame.f_code is code:
            return trace_line
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(trace_call)
    try:
        yield
    finally:
        sys.settrace(previous)
        close()


# -- reading the trace -----------------------------------------------------------------------


def _range_line(name: str) -> int | None:
    try:
        return int(name[len(LINE_RANGE) :])
    except ValueError:
        return None


class _Ranges:
    """The line and call ranges of the trace, to place each op on the line that was running.

    An op inside a line's range (same thread) is on that line.  An op on another thread is on the
    line whose range was open when it started: the autograd engine runs a CUDA backward on a device
    thread of its own while ``loss.backward()`` waits on the main one (on an H200 training step,
    44 % of the eager kernels, all of the backward's, were on no line before this fallback)."""

    def __init__(self, trace: ChromeTrace):
        self.lines = sorted(
            (ev.ts, ev.end, line)
            for ev in trace.host
            if ev.name.startswith(LINE_RANGE) and (line := _range_line(ev.name)) is not None
        )
        self.calls = sorted((ev.ts, ev.end) for ev in trace.host if ev.name == CALL_RANGE)
        self._starts = [start for start, _, _ in self.lines]
        self._call_starts = [start for start, _ in self.calls]

    def line_of(self, ev: HostEvent) -> int | None:
        for a in ev.ancestors():
            if a.name.startswith(LINE_RANGE):
                return _range_line(a.name)
        i = bisect.bisect_right(self._starts, ev.ts) - 1
        if i >= 0 and self.lines[i][0] <= ev.ts < self.lines[i][1]:
            return self.lines[i][2]
        return None

    def in_call(self, ev: HostEvent) -> bool:
        if any(a.name == CALL_RANGE for a in ev.ancestors()):
            return True
        i = bisect.bisect_right(self._call_starts, ev.ts) - 1
        return i >= 0 and self.calls[i][0] <= ev.ts < self.calls[i][1]


def _count_on_line(times: EagerTimes, line: int | None, op: str | None, us: float) -> None:
    if line is None:
        return
    times.line_us[line] += us
    if op is not None:
        times.line_ops.setdefault(line, collections.Counter())[op] += us


def attribute_eager(trace: ChromeTrace, *, calls: int, device_type: str) -> EagerTimes:
    """The eager pass's times from its trace (``calls`` profiled calls)."""
    times = EagerTimes(calls=calls, method="cupti" if device_type == "cuda" else "host")
    ranges = _Ranges(trace)
    if times.method == "host":
        for ev in trace.host:
            if not is_host_op(ev) or any(is_host_op(a) for a in ev.ancestors()) or not ranges.in_call(ev):
                continue
            times.total_us += ev.dur
            for kind, us in host_op_parts(ev).items():  # the host rule, as for a compiled variant's ops
                times.parts[kind] += us
            _count_on_line(times, ranges.line_of(ev), ev.name, ev.dur)
        return times
    for d in trace.device:
        times.total_us += d.dur
        chain = [a for a in d.launcher.ancestors() if is_host_op(a)] if d.launcher is not None else []
        times.parts[device_kind(d.cat, d.name, [a.name for a in chain])] += d.dur
        _count_on_line(
            times,
            ranges.line_of(d.launcher) if d.launcher is not None else None,
            chain[-1].name if chain else None,
            d.dur,
        )
    return times


# -- the pass and what it writes ----------------------------------------------------------------


def apply(times: EagerTimes, run: ProfileRun) -> KernelProfile:
    calls = max(1, times.calls)

    def ms(us: float) -> float:
        return us / 1e3 / calls

    lines = [
        EagerLineTime(
            line=line,
            time_ms=ms(us),
            ops=[op for op, _ in times.line_ops.get(line, collections.Counter()).most_common(MAX_OPS_PER_LINE)],
        )
        for line, us in sorted(times.line_us.items())
    ]
    profile = KernelProfile(
        calls=times.calls,
        total_ms=ms(times.total_us),
        attributed_ms=sum(line.time_ms for line in lines),
        method=times.method,  # type: ignore[arg-type]
        breakdown=CallBreakdown(
            library_ms=ms(times.parts[LIBRARY]),
            generated_ms=0.0,
            aten_ms=ms(times.parts[ATEN]),
            copy_ms=ms(times.parts[COPY]),
            collective_ms=ms(times.parts[COLLECTIVE]),
        ),
        eager_lines=lines,
    )
    run.variant("eager").kernel_profile = profile
    return profile


def measure_eager(run: ProfileRun, eager: EagerCall) -> EagerTimes:
    """Profile the eager variant once more and fill its ``kernel_profile`` (lines included)."""
    from torch.autograd.profiler import record_function

    variant = run.variant("eager")
    calls = kernel_profiler.calls_for(variant.timing.median_ms if variant.timing else None)

    def marked_call() -> Any:
        with record_function(CALL_RANGE), marking_lines(eager.code, eager.line_offset):
            return eager.call()

    # No shapes and no Python tracer: eager needs neither, and on CPU each op's host time under the
    # profiler is what the pass reports.  Recording shapes inflated it: on 2 cores, one thread, three
    # small cells, profiled op time over the timed median was 1.1-2.2x with shapes, 0.97-1.2x without.
    call_times: list[float] = []
    trace = kernel_profiler.record_trace(
        marked_call,
        eager.before_each,
        calls=calls,
        device_type=run.device.type,
        with_stack=False,
        record_shapes=False,
        call_times=call_times,
    )
    times = attribute_eager(trace, calls=calls, device_type=run.device.type)
    apply(times, run).profiled_call_ms = kernel_profiler.profiled_call_ms(call_times)
    return times
