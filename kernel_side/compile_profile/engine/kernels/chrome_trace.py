"""Read a torch.profiler (Kineto) Chrome trace into host events nested by time, and device events.

The Chrome trace JSON is the profiler's one documented export and carries
everything the per-kernel pass needs: each host op's recorded arguments, each
device kernel's grid, block and correlation id, and the runtime call (a plain
launch or ``cudaGraphLaunch``) that queued it.  Host events on one thread nest
by time; a device kernel hangs off the runtime call that launched it.
"""

from __future__ import annotations

import bisect
import gc
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST_CATEGORIES = frozenset(
    {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver", "cpu_instant_event"}
)
RUNTIME_CATEGORIES = frozenset({"cuda_runtime", "cuda_driver"})
DEVICE_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})

# Timestamps are microseconds with fractional nanoseconds; children end a hair past parents.
_EPS_US = 0.01


@dataclass(eq=False)
class HostEvent:
    name: str
    cat: str
    ts: float
    dur: float
    tid: Any
    args: dict[str, Any]
    parent: HostEvent | None = None
    children: list[HostEvent] = field(default_factory=list)

    @property
    def end(self) -> float:
        return self.ts + self.dur

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def descendants(self):
        stack = list(reversed(self.children))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


@dataclass(eq=False)
class DeviceEvent:
    name: str
    cat: str
    ts: float
    dur: float
    correlation: int | None
    args: dict[str, Any]
    launcher: HostEvent | None = None  # the runtime call that queued it

    @property
    def in_cuda_graph(self) -> bool:
        return self.launcher is not None and self.launcher.name.startswith("cudaGraphLaunch")


@dataclass
class ChromeTrace:
    host: list[HostEvent]
    device: list[DeviceEvent]
    device_properties: list[dict[str, Any]]


def split_calls(trace: ChromeTrace, range_name: str) -> list[ChromeTrace]:
    """A trace per ``range_name`` range (a profiled call), in the order they ran: the host events on any
    thread that started within the range (the autograd engine's device thread runs a CUDA backward while
    the call waits) and the device events those launched (one whose launch the trace lacks goes with the
    last call that started before it ran).  Events keep their nesting (``parent`` may lie outside the call:
    the profiler's step range), so an attribution reads a call's trace as it reads a whole one."""
    ranges = sorted((ev for ev in trace.host if ev.name == range_name), key=lambda ev: ev.ts)
    starts = [r.ts for r in ranges]
    host: list[list[HostEvent]] = [[] for _ in ranges]
    index: dict[int, int] = {}
    for ev in trace.host:
        i = bisect.bisect_right(starts, ev.ts) - 1
        if i >= 0 and ev.ts <= ranges[i].end + _EPS_US:
            host[i].append(ev)
            index[id(ev)] = i
    device: list[list[DeviceEvent]] = [[] for _ in ranges]
    for d in trace.device:
        if d.launcher is not None:
            i = index.get(id(d.launcher))
        else:
            i = bisect.bisect_right(starts, d.ts) - 1
        if i is not None and i >= 0:
            device[i].append(d)
    return [ChromeTrace(host=h, device=dv, device_properties=trace.device_properties) for h, dv in zip(host, device)]


def load(path: str | Path, keep_python: Callable[[str], bool] = lambda name: True) -> ChromeTrace:
    # A trace holds up to millions of small objects; collecting while building them only costs time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        with open(path) as f:
            return parse(json.load(f), keep_python)
    finally:
        if enabled:
            gc.enable()


def parse(data: dict[str, Any], keep_python: Callable[[str], bool] = lambda name: True) -> ChromeTrace:
    """``keep_python`` picks the Python tracer's events worth keeping (most are not)."""
    host: list[HostEvent] = []
    device: list[DeviceEvent] = []
    for e in data.get("traceEvents", []):
        if e.get("ph") != "X":
            continue
        cat = e.get("cat", "")
        args = e.get("args") or {}
        if cat == "python_function" and not keep_python(str(e.get("name", ""))):
            continue
        if cat in HOST_CATEGORIES:
            host.append(
                HostEvent(str(e.get("name", "")), cat, float(e["ts"]), float(e.get("dur", 0.0)), e.get("tid"), args)
            )
        elif cat in DEVICE_CATEGORIES:
            device.append(
                DeviceEvent(
                    str(e.get("name", "")), cat, float(e["ts"]), float(e.get("dur", 0.0)), args.get("correlation"), args
                )
            )
    _nest(host)
    runtime = {ev.args.get("correlation"): ev for ev in host if ev.cat in RUNTIME_CATEGORIES}
    for d in device:
        d.launcher = runtime.get(d.correlation) if d.correlation is not None else None
    device.sort(key=lambda d: d.ts)
    return ChromeTrace(host=host, device=device, device_properties=list(data.get("deviceProperties") or []))


def _nest(events: list[HostEvent]) -> None:
    by_thread: dict[Any, list[HostEvent]] = {}
    for ev in events:
        by_thread.setdefault(ev.tid, []).append(ev)
    for thread_events in by_thread.values():
        # Longest first at equal start, so an enclosing event precedes what it encloses.
        thread_events.sort(key=lambda ev: (ev.ts, -ev.dur))
        stack: list[HostEvent] = []
        for ev in thread_events:
            # Sorted by start, so ev is inside the top of the stack exactly when it ends no later;
            # what ends earlier has closed (or overlaps without nesting) and is no parent of ev.
            while stack and ev.end > stack[-1].end + _EPS_US:
                stack.pop()
            if stack:
                ev.parent = stack[-1]
                stack[-1].children.append(ev)
            stack.append(ev)
