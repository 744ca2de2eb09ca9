"""Which cell line was running: marking the profiled calls' lines as profiler ranges, and reading them back.

Contract: ``marking_lines(code, line_offset)`` opens, while its block runs, a profiler range (``profiler_range``)
named ``LINE_RANGE + str(cell line)`` at each line event of a frame running ``code`` and closes it at the
next line event, at return and at an exception.  A frame runs ``code`` when its code object is ``code``
or one Dynamo made of it: the transformed code of the function itself (same name, file and first line)
and the resume functions of its graph breaks (``torch_dynamo_resume_in_<name>_at_<line>``, nested for a
resume of a resume, in the same file within the function's lines), so a compiled variant's eager regions
(a graph break, what Dynamo skips: a fused optimizer under ``torch.compiler.disable``) are on the cell
line that ran them, as eager's ops are.  Frames the line's code calls are not traced: a line's range
stays open while its call into a library or into a helper module of the user's runs.  A line event at a
line where the function has no code of its own (its def line, where Dynamo's transformed code puts the
prologue that enters its first graph) closes the open range and opens none.  The previous trace function
is chained for every other frame and restored afterwards, also when the block raises.  A target without
a code object (a builtin) gets no lines.

``LineRanges(trace, call_range)`` reads them back: the line an event ran on (its enclosing line range,
or on another thread the range open when it started) and whether it ran inside a profiled call.
``line_times`` turns summed microseconds per line into the per-call ``EagerLineTime`` rows.

This module records nothing into a ``ProfileRun``; ``eager_times`` and ``profiler_pass`` do.
"""

from __future__ import annotations

import bisect
import contextlib
import dis
import functools
import heapq
import re
import sys
from collections.abc import Iterator, Mapping
from operator import itemgetter
from types import CodeType
from typing import Any

from ...profile_run import EagerLineTime
from .chrome_trace import ChromeTrace, HostEvent

LINE_RANGE = "compile_profile: cell line "  # + the 1-based cell line
MAX_OPS_PER_LINE = 5

# Dynamo names a resume function after the function it resumes: torch_dynamo_resume_in_<name>_at_<line>
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<name>.+)_at_\d+$")
# instructions a function runs before its first statement, at its def line (3.11+)
_PROLOGUE_OPS = frozenset({"RESUME", "MAKE_CELL", "COPY_FREE_VARS", "RETURN_GENERATOR", "NOP"})


def _original_name(name: str) -> str:
    """A resume function's name without Dynamo's prefixes (``torch_dynamo_resume_in_f_at_5`` -> ``f``)."""
    while (m := _RESUME.match(name)) is not None:
        name = m.group("name")
    return name


@functools.lru_cache(maxsize=16)
def _statement_lines(code: CodeType) -> tuple[frozenset[int], int]:
    """The lines ``code`` has statements on (not its def line's prologue), and its last line.

    Read once per code object: disassembling a small cell took 194 µs, at every profiled call's start, which
    made an MLP's profiled eager call 192 µs against 41 µs unprofiled and its first ``aten::linear`` 5 µs
    slower (22.3 µs against 17.2; 19.1 µs with the lines read once), the ops' host time holding what the
    Python before them evicted from the caches."""
    lines: set[int] = set()
    for ins in dis.get_instructions(code):
        positions = getattr(ins, "positions", None)
        line = positions.lineno if positions is not None else ins.starts_line
        if line and ins.opname not in _PROLOGUE_OPS:
            lines.add(line)
    last = max((line for _, _, line in code.co_lines() if line), default=code.co_firstlineno)
    return frozenset(lines), last


def runs_code(frame_code: CodeType, code: CodeType, last_line: int) -> bool:
    """Whether a frame of ``frame_code`` runs ``code``'s lines: ``code`` itself, Dynamo's transformed code of
    it, or one of its resume functions (which start at the line of their graph break)."""
    if frame_code is code:
        return True
    return (
        frame_code.co_filename == code.co_filename
        and _original_name(frame_code.co_name) == code.co_name
        and code.co_firstlineno <= frame_code.co_firstlineno <= last_line
    )


def profiler_range(name: str) -> Any:
    """A profiler range named ``name`` (a context manager): torch's C++ ``_RecordFunctionFast`` where torch has
    it, else ``torch.autograd.profiler.record_function``.

    A marked call opens one at every line event: ``record_function``'s enter and exit took 33-48 µs here (a
    dispatcher op called from Python), ``_RecordFunctionFast``'s 0.76 µs.  The Python in between ran where no op
    was timed but left the next op slower: a 50-iteration loop of ``F.linear`` on 2x4 tensors, 166 µs a call
    timed, read 226 µs of ops in its profiled calls with the profiler's cost per op taken out."""
    import torch
    from torch.autograd.profiler import record_function

    fast = getattr(getattr(torch._C, "_profiler", None), "_RecordFunctionFast", None)
    return fast(name) if fast is not None else record_function(name)


@contextlib.contextmanager
def marking_lines(code: CodeType | None, line_offset: int = 0) -> Iterator[None]:
    """While the block runs, each line of a frame running ``code`` is a profiler range named
    ``LINE_RANGE + str(cell line)`` (the module docstring says which frames and lines)."""
    if code is None:
        yield
        return
    statement_lines, last_line = _statement_lines(code)
    current: list[Any] = [None]

    def close() -> None:
        rf, current[0] = current[0], None
        if rf is not None:
            rf.__exit__(None, None, None)

    def trace_line(frame, event, arg):
        if event == "line":
            close()
            if frame.f_lineno in statement_lines:
                rf = profiler_range(f"{LINE_RANGE}{frame.f_lineno + line_offset}")
                rf.__enter__()
                current[0] = rf
        elif event in ("return", "exception"):
            close()  # an exception the frame catches is followed by the next line's event
        return trace_line

    previous = sys.gettrace()
    filename = code.co_filename
    _not_for_dynamo(trace_line, close)

    def trace_call(frame, event, arg):
        # called for every frame entered while marking (the compiled pass's optimizer and wrapper code
        # too): the file comparison rejects almost all of them before any other work
        frame_code = frame.f_code
        if frame_code is code or (frame_code.co_filename == filename and runs_code(frame_code, code, last_line)):
            return trace_line
        return previous(frame, event, arg) if previous is not None else None

    _not_for_dynamo(trace_call)
    sys.settrace(trace_call)
    try:
        yield
    finally:
        sys.settrace(previous)
        close()


def _not_for_dynamo(*functions: Any) -> None:
    """Tell Dynamo never to compile these functions' frames (nor ``runs_code``'s).

    The interpreter calls a trace function through the frame-evaluation hook, so while a compiled function
    runs Dynamo's callback is offered every frame of ours: on torch 2.13 the first marked call of a
    compiled function with one graph break had Dynamo consider 37 frames more (``trace_call``,
    ``trace_line``, ``close`` and what they call), and a ``return`` event passes the returned tensor to
    ``trace_line``, a frame Dynamo would then try to compile (dropping its ``record_function`` calls)."""
    skip_code = None
    with contextlib.suppress(ImportError, AttributeError):
        # a Python function from 2.7; torch 2.6's eval_frame imports the C extension's under this name
        from torch._dynamo.eval_frame import skip_code
    if skip_code is None:
        return
    for fn in (*functions, runs_code, _original_name):
        skip_code(fn.__code__)


# -- reading the trace -----------------------------------------------------------------------


def _range_line(name: str) -> int | None:
    try:
        return int(name[len(LINE_RANGE) :])
    except ValueError:
        return None


class LineRanges:
    """The line and call ranges of a trace, to place each event on the line that was running.

    An event inside a line's range (same thread) is on that line.  An event on another thread is on the
    line whose range was open when it started: the autograd engine runs a CUDA backward on a device
    thread of its own while ``loss.backward()`` waits on the main one (on an H200 training step, 44 % of
    the eager kernels, all of the backward's, were on no line before this fallback)."""

    def __init__(self, trace: ChromeTrace, call_range: str):
        self.call_range = call_range
        self.lines = sorted(
            (ev.ts, ev.end, line)
            for ev in trace.host
            if ev.name.startswith(LINE_RANGE) and (line := _range_line(ev.name)) is not None
        )
        self.calls = sorted((ev.ts, ev.end) for ev in trace.host if ev.name == call_range)
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
        if any(a.name == self.call_range for a in ev.ancestors()):
            return True
        i = bisect.bisect_right(self._call_starts, ev.ts) - 1
        return i >= 0 and self.calls[i][0] <= ev.ts < self.calls[i][1]


def line_times(
    line_us: Mapping[int, float], line_ops: Mapping[int, Mapping[str, float]], calls: int
) -> list[EagerLineTime]:
    """Per-call rows, in line order, from microseconds summed over ``calls`` calls; each lists its largest ops."""
    calls = max(1, calls)
    return [
        EagerLineTime(
            line=line,
            time_ms=us / 1e3 / calls,
            ops=[op for op, _ in heapq.nlargest(MAX_OPS_PER_LINE, line_ops.get(line, {}).items(), key=itemgetter(1))],
        )
        for line, us in sorted(line_us.items())
    ]
