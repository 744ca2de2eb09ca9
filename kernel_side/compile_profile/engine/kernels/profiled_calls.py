"""Which of a profiler pass's calls its figures come from, and how they combine into one call's.

Contract: each profiled call is a ``CallRecord`` (its wall time and how long this process's threads
waited for a CPU meanwhile, ``timing.host_load.ThreadWaits``).  On CPU a pass's first recorded calls run
while the profiler settles (``CallRecord.settling``): no figure comes from them and none counts as profiled
(``settled``).  On CPU, where the pass times each kernel by host time, a call whose threads waited more than
``PREEMPTED_SHARE`` of its wall time was preempted: its kernels' host times hold the wait, not the work, and
``chosen`` sets it aside, unless every call was, when all of them are kept and the run records that they were
(the digest then withholds the pass's times).  On a GPU the pass reads device times, which a busy host does
not stretch, so every call counts.  A pass's figures are then each figure's median over the chosen calls
(``stats.median``): a kernel that one call's preemption slowed does not move its median.

Why: on 2 cores beside another busy process, a compiled call timed at 72.9 µs had its
``cpp_fused_add_mul_0`` read 1.17 ms per call (the mean over 10 profiled calls, one of which the
scheduler had stopped mid-kernel), and across four profiles 1.17 ms, 14.98 ms, 0.0012 ms and
7.34 ms, where ``torch.profiler`` on plain ``torch.compile`` gives ~2.7 µs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...stats import median

# A call's threads' wait for a CPU over its wall time beyond which it was preempted.  Measured on 2 cores
# beside a busy process (a compiled transformer block, torch's 2 threads, 200 calls): the calls split into
# those with no wait at all (median 1.21 ms) and those whose threads waited 2-170 % of the call (24.7 ms
# and up, OpenMP workers descheduled at barriers); 5 % sits in the gap and leaves the first group whole.
PREEMPTED_SHARE = 0.05
# The calls not preempted a CPU pass wants before it stops adding calls (at most as many again as it
# planned): three make a median that one more preemption cannot move.
WANTED_CLEAN_CALLS = 3


@dataclass
class CallRecord:
    """One profiled call: its wall time and its threads' runqueue wait (None: not measured), in seconds."""

    wall_s: float
    waited_s: float | None = None
    # Recorded while the profiler settles, never a figure's: on CPU the first calls of a recording session run
    # slower than the rest.  A 32x128 MLP at one thread, its eager ops per call (µs) in the first pass of a
    # process: 169, 91, 109, 76, 437, 73, 51, 62, 48, 47 (median 74.5 against a 51.7 µs timed call); in the
    # process's later passes 130-140 for the first call, then 41-57.  The schedule's warm-up step, which records
    # nothing, does not take it: the recording's own start does.
    settling: bool = False

    @property
    def preempted(self) -> bool:
        return self.waited_s is not None and self.waited_s > PREEMPTED_SHARE * self.wall_s


def clean_calls(records: Iterable[CallRecord]) -> int:
    return sum(not r.preempted and not r.settling for r in records)


def settled(records: list[CallRecord]) -> list[int]:
    """The indices of the calls recorded after the profiler settled: the profiled calls."""
    return [i for i, r in enumerate(records) if not r.settling]


def chosen(records: list[CallRecord], method: str) -> list[int]:
    """The indices of the calls a pass's figures come from, of ``records`` all settled (``settled``): on CPU
    (``method == "host"``) those not preempted, or all when every call was; on a GPU (``"cupti"``) all."""
    every = list(range(len(records)))
    if method != "host":
        return every
    return [i for i in every if not records[i].preempted] or every


@dataclass
class PassCalls:
    """What a pass's calls were, as its ``KernelProfile`` records them."""

    profiled: int  # every profiled call
    preempted: int  # of them, those whose threads waited for a CPU (``CallRecord.preempted``)
    call_ms: float | None  # the median wall time of the calls the figures come from
    waited_ms: float | None  # their median wait for a CPU (None: not measured)
    device_busy_ms: float | None = None  # their median time with a device event running (None: no device)


def pass_calls(records: list[CallRecord], used: list[int], device_busy_us: list[float] | None = None) -> PassCalls:
    """``records``: the settled calls (``settled``); ``used``: the indices of those the figures come from;
    ``device_busy_us``: each used call's ``busy_us`` of its device events (a GPU pass)."""
    kept = [records[i] for i in used]
    waits = [r.waited_s for r in kept if r.waited_s is not None]
    return PassCalls(
        profiled=len(records),
        preempted=sum(r.preempted for r in records),
        call_ms=median(r.wall_s for r in kept) * 1e3 if kept else None,
        waited_ms=median(waits) * 1e3 if waits else None,
        device_busy_ms=median(device_busy_us) / 1e3 if device_busy_us else None,
    )


def busy_us(events: Iterable) -> float:
    """How long at least one of ``events`` (with ``ts`` and ``dur``, µs) ran: kernels on concurrent streams
    (NCCL's all-reduce beside a backward's kernels) count once, where their sum counts each."""
    total, end = 0.0, None
    for ts, stop in sorted((e.ts, e.ts + e.dur) for e in events):
        if end is None or ts > end:
            total += stop - ts
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total
