"""A run's compiles as a Chrome trace for Perfetto (``compile-profile export ID --perfetto OUT.json``, the Compile tab's
button): what tlparse writes as ``chromium_events.json``.

Contract: ``perfetto_trace(run)`` returns the JSON object of the Trace Event Format (``{"traceEvents": [...]}``): each
compile span (``Variant.compile_spans``: Dynamo's ``chromium_event`` begins and ends) as a complete event (``"ph":
"X"``) nested as Dynamo logged them, on one thread per variant (a compile whose spans would cross another's goes to a
thread of its own, so that every thread's events nest), with its compile id in ``args``; and, for a live profile, the
kernel events of one profiled call per variant (``KernelProfile.events``) as a process of their own.  A job's ranks go
in one trace (``job_perfetto_trace``), a process of each rank's compiles on one clock.  Times are
microseconds from the first compile's start (a profiled call's from its own start); names of processes and threads
are metadata events (``"ph": "M"``).  It reads the run only and imports nothing else.
"""

from __future__ import annotations

import json
from typing import Any

from ..profile_run import CompileSpan, ProfileRun

COMPILES_PID = 1
CALLS_PID = 2


def _meta(pid: int, kind: str, label: str, tid: int | None = None) -> dict[str, Any]:
    """A metadata event naming a process or a thread (``kind``: "process_name", "thread_name")."""
    event: dict[str, Any] = {"ph": "M", "pid": pid, "name": kind, "args": {"name": label}}
    if tid is not None:
        event["tid"] = tid
    return event


def _lanes(spans: list[CompileSpan]) -> dict[str, int]:
    """A lane (thread) per compile id, the first whose last compile ended before this one began."""
    extents: dict[str, tuple[float, float]] = {}
    for s in spans:
        start, end = extents.get(s.compile_id, (s.start_s, s.start_s + s.duration_s))
        extents[s.compile_id] = (min(start, s.start_s), max(end, s.start_s + s.duration_s))
    lanes: list[float] = []
    out: dict[str, int] = {}
    for compile_id, (start, end) in sorted(extents.items(), key=lambda kv: kv[1]):
        lane = next((i for i, free_at in enumerate(lanes) if free_at <= start), None)
        if lane is None:
            lanes.append(end)
            lane = len(lanes) - 1
        lanes[lane] = end
        out[compile_id] = lane
    return out


def _nested(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Complete events of one thread, each clamped into the one that holds it: the microseconds rounded from a span's
    seconds may end a child a hair after its parent, which a viewer would draw as a sibling."""
    events.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack: list[dict[str, Any]] = []
    for e in events:
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
            stack.pop()
        if stack:
            parent = stack[-1]
            e["dur"] = max(0.0, min(e["dur"], parent["ts"] + parent["dur"] - e["ts"]))
        stack.append(e)
    return events


def _round(us: float) -> float:
    return round(us, 3)


def _origin(run: ProfileRun) -> float:
    return min((s.start_s for v in run.variants for s in v.compile_spans), default=0.0)


def perfetto_trace(
    run: ProfileRun, *, origin: float | None = None, pids: tuple[int, int] = (COMPILES_PID, CALLS_PID)
) -> dict[str, Any]:
    """``origin``: the epoch second at time 0 (the run's first compile's start; a job's earliest rank's, so that its
    ranks line up); ``pids``: the processes of its compiles and of its profiled calls."""
    spans = [(v.name, s) for v in run.variants for s in v.compile_spans]
    origin = _origin(run) if origin is None else origin
    compiles_pid, calls_pid = pids
    who = f" (rank {run.distributed.rank})" if run.distributed is not None else ""
    events: list[dict[str, Any]] = [_meta(compiles_pid, "process_name", f"compiles of {run.label or run.id}{who}")]
    tid = 0
    for variant in run.variants:
        mine = [s for name, s in spans if name == variant.name]
        if not mine:
            continue
        lanes = _lanes(mine)
        first = tid
        for lane in sorted(set(lanes.values())):
            extra = f" (overlapping compiles {lane + 1})" if lane else ""
            events.append(_meta(compiles_pid, "thread_name", f"compiles: {variant.name}{extra}", first + lane))
        per_tid: dict[int, list[dict[str, Any]]] = {}
        for s in mine:
            thread = first + lanes[s.compile_id]
            per_tid.setdefault(thread, []).append(
                {
                    "ph": "X",
                    "name": s.name,
                    "cat": "dynamo_timed",
                    "pid": compiles_pid,
                    "tid": thread,
                    "ts": _round((s.start_s - origin) * 1e6),
                    "dur": _round(s.duration_s * 1e6),
                    "args": {"compile_id": s.compile_id, "depth": s.depth, "variant": variant.name},
                }
            )
        for thread_events in per_tid.values():
            events.extend(_nested(thread_events))
        tid = first + max(lanes.values()) + 1
    calls = [(v.name, v.kernel_profile.events) for v in run.variants if v.kernel_profile and v.kernel_profile.events]
    if calls:
        events.append(_meta(calls_pid, "process_name", f"one profiled call per variant (kernels){who}"))
    for i, (variant, kernel_events) in enumerate(calls):
        for track in ("device", "host"):
            mine = [e for e in kernel_events if e.track == track]
            if not mine:
                continue
            thread = 2 * i + (track == "host")
            events.append(_meta(calls_pid, "thread_name", f"{variant}: {track} kernels of one call", thread))
            events.extend(
                _nested(
                    [
                        {
                            "ph": "X",
                            "name": e.name,
                            "cat": "kernel",
                            "pid": calls_pid,
                            "tid": thread,
                            "ts": _round(e.start_us),
                            "dur": _round(e.duration_us),
                            "args": {"kernel": e.kernel_id} if e.kernel_id else {},
                        }
                        for e in mine
                    ]
                )
            )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"run_id": run.id, "source": "compile-profile", "torch_version": run.torch_version},
    }


def perfetto_json(run: ProfileRun) -> str:
    return json.dumps(perfetto_trace(run))


def job_perfetto_trace(runs: list[ProfileRun]) -> dict[str, Any]:
    """A job's ranks in one trace (tlparse's combined ``chromium_events.json``): each rank's compiles (and profiled
    calls) as processes of their own, numbered by rank, on one clock from the earliest rank's first compile."""
    origin = min((_origin(r) for r in runs if any(v.compile_spans for v in r.variants)), default=0.0)
    events: list[dict[str, Any]] = []
    for i, run in enumerate(runs):
        rank = run.distributed.rank if run.distributed is not None else i
        events += perfetto_trace(run, origin=origin, pids=(2 * rank + 1, 2 * rank + 2))["traceEvents"]
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"source": "compile-profile", "ranks": len(runs)},
    }
