"""What ``torch.profiler`` costs per op it records on this CPU, calibrated in the profiling process.

On CPU the profiler pass times each kernel by its op's host time (``breakdown``), and recording an op
costs host time: its start and end callbacks, which land in the host time of the op that encloses it.  An
op with ``k`` ops recorded inside it (``aten::linear`` runs ``t``, ``transpose``, ``as_strided``, ``addmm``,
``expand``, ``copy_``, ``resolve_conj``...) reads ``k`` of those costs longer than it runs unprofiled.

Contract: ``event_cost_us(record_shapes=..., with_stack=...)`` times two cheap ops ``CALLS`` times each, with
and without a profiler session configured as the pass's (CPU activity, the same ``record_shapes`` and
``with_stack``), in ``ROUNDS`` alternating rounds: ``torch.neg`` of a one-element tensor (one op event) and
``torch.nn.functional.linear`` of 1x1 tensors (an ``aten::linear`` with ten ops inside it, the mix of inputs
real nested ops have).  The difference of their profiled costs per call over the difference of their op events
per call is the cost of one op event recorded inside another, free of the Python tracer's cost for the call
from Python (one event for either op).  Each op is timed in chunks of ``CHUNK`` calls, ``CHUNKS`` chunks a
round, over ``ROUNDS`` rounds (a profiler session between unprofiled stretches); each round estimates the cost
from each (op, state)'s quickest chunk, and the cost is the median round's.  The attributions take that cost out of
each op's host time once for every op event recorded inside it (``breakdown.host_op_parts``), and the pass records
it (``KernelProfile.event_cost_us``) with
what it took out (``KernelProfile.profiler_cost_ms``).

Measured on this project's 2-core machine (torch 2.13 CPU, one thread, other helpers' suites running): 0.21-0.23
µs an op event bare, 0.43-0.61 µs with shapes and stacks, as both passes record on CPU.  Timed over whole 1 ms
stretches, some rounds read 2.2 µs (a stretch stalled, with no wait for a CPU in this process's schedstat), hence
the medians of short chunks.  Held against the op's own
unprofiled call (``tests/test_profiler_cost.py``): ``F.linear`` on 8x16 takes 3.0 µs from Python; its
``aten::linear`` recorded 4.1 µs bare and 5.9 µs with shapes and stacks, 2.0 µs and 1.7-1.9 µs corrected.
Calibrating takes 60-230 ms here, mostly its three sessions' stops; the first profiler session in a process costs
~1 s more, which the calibration, run before its pass, takes for the pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...stats import median
from .profiler_session import profiler_session

CHUNK = 20  # calls timed together: ~20-100 µs, far above the clock's resolution
CHUNKS = 10  # chunks of each op in each state per round
ROUNDS = 3  # profiler sessions, each between two unprofiled stretches


def _chunks_us(op: Callable[..., Any], args: tuple[Any, ...], into: list[float]) -> None:
    """Time ``CHUNKS`` chunks of ``CHUNK`` calls, each chunk's time per call (µs) into ``into``."""
    for _ in range(CHUNKS):
        t0 = time.perf_counter()
        for _ in range(CHUNK):
            op(*args)
        into.append((time.perf_counter() - t0) / CHUNK * 1e6)


def _event_names(prof: Any) -> list[str]:
    """The names of the events a stopped session recorded: from Kineto's results (15 ms for 2,400 events here),
    not ``prof.events()``, which builds the event tree in Python (160 ms to 1.2 s)."""
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is not None:
        return [ev.name() for ev in results.events()]
    return [ev.name for ev in prof.events()]


def event_cost_us(*, record_shapes: bool, with_stack: bool = False) -> float | None:
    """The profiler's host-time cost per op event recorded inside another op (µs); None where it cannot be read
    (the two ops recorded as many events)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    one, m = torch.zeros(1), torch.zeros(1, 1)
    ops: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (torch.neg, (one,)),
        (torch.nn.functional.linear, (m, m, one)),
    ]
    events: list[float] = []  # op events per call of each op
    for op, args in ops:
        _chunks_us(op, args, [])  # warm their dispatch
    estimates: list[float] = []  # one a round
    for _ in range(ROUNDS):
        plain: list[list[float]] = [[] for _ in ops]
        profiled: list[list[float]] = [[] for _ in ops]
        for (op, args), into in zip(ops, plain):
            _chunks_us(op, args, into)
        prof = profile(activities=[ProfilerActivity.CPU], record_shapes=record_shapes, with_stack=with_stack)
        with profiler_session(prof):
            for (op, args), into in zip(ops, profiled):
                _chunks_us(op, args, into)
        if not events:
            recorded = [name for name in _event_names(prof) if "::" in name]
            neg = sum(1 for name in recorded if name == "aten::neg")
            events = [neg / (CHUNK * CHUNKS), (len(recorded) - neg) / (CHUNK * CHUNKS)]
        if events[1] <= events[0]:
            return None
        # the quickest chunk of each (op, state): the work is the same every call, and a stall (4 ms in a 1 ms
        # stretch, seen here beside other processes, with no wait for a CPU in this process's schedstat) only
        # adds; then the median round, so a round slowed as a whole (a profiled stretch at another clock speed)
        # moves nothing.  Sixteen calibrations beside other processes, with shapes and stacks: 0.39-0.41 µs but
        # one 0.64 from each round's quickest chunks, where medians of all chunks read 0.41-0.44 and four of
        # 0.62-0.75 (an over-estimate takes a nested op's host time to 0).
        neg_us, linear_us = (min(p) - min(q) for p, q in zip(profiled, plain))
        estimates.append((linear_us - neg_us) / (events[1] - events[0]))
    return max(0.0, median(estimates))
