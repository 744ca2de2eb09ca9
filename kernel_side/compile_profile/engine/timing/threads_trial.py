"""What fewer torch threads would give, measured: the eager call timed again at as many threads as the cores
other processes left free, right after the timed rounds.

Contract: ``try_fewer_threads`` runs after the timed rounds, on CPU, outside a distributed job, only where
torch's intra-op threads outnumbered the free cores (``HostLoad.free_cores``: the cores less what other
processes kept busy while timing, rounded, at least 1).  It sets the thread count once
(``torch.set_num_threads``), makes one untimed call at it (the first parallel region after a change resizes
OpenMP's team), and takes samples of ``calls_per_sample`` calls, as the timed rounds do, until it has
``MIN_SAMPLES`` and ``TRIAL_S`` has passed, or ``MAX_SAMPLES``; torch's thread count is set back as it was, on
error and interrupt too.  It returns a ``ThreadsTrial`` (the median per call); the digest holds it against
eager's timed median at the cell's own thread count and words the difference as the host-contention cause.

One change of the thread count, not samples interleaved at both counts: switching before every sample left the
cell's own count slow for a while after each switch back (a 32x128 MLP at 8 threads beside two spinning
processes read 1.35 ms a call so against 234 µs in the timed rounds just before).

Eager only: Dynamo guards each compiled graph on torch's thread count (its global-state guard), so a compiled
call at another count recompiles (an MLP's at 1 thread, compiled at 8: 976 ms, "GLOBAL_STATE changed:
num_threads"), a compile no trial should add to the user's, and a user who sets fewer threads compiles for them.

Why a trial and not the wait for a CPU the timed samples' threads measured (``Timing.waited_ms``): with more
threads than cores the threads wait at once, so their summed wait is no figure of the call's.  Measured on
this project's 2-core machine, that MLP at 8 threads: eager 519 µs a call with 1,084 µs of summed waiting, at
1 thread 53.5 µs (waiting 0); compiled 751 µs with 1,440 µs of waiting.
"""

from __future__ import annotations

import time

from ...profile_run import HostLoad, ThreadsTrial
from ...stats import median
from .interleaved import TimedCallable

TRIAL_S = 0.5  # the trial's wall time once it has its MIN_SAMPLES
MIN_SAMPLES = 3
MAX_SAMPLES = 20


def wanted(load: HostLoad | None, device_type: str, distributed_job: bool) -> int | None:
    """The thread count to try, where torch ran more threads than the free cores; else None."""
    if load is None or device_type != "cpu" or distributed_job:
        return None
    return load.free_cores if load.threads > load.free_cores else None


def try_fewer_threads(eager: TimedCallable, threads: int, calls_per_sample: int) -> ThreadsTrial | None:
    """Time ``eager`` at ``threads`` (fewer than torch runs now), then set torch's thread count back."""
    import torch

    user = torch.get_num_threads()
    if threads >= user:
        return None
    samples: list[float] = []
    started = time.perf_counter()
    torch.set_num_threads(threads)
    try:
        eager.before()
        eager.call()  # untimed: the first call at the new count
        while len(samples) < MAX_SAMPLES and (len(samples) < MIN_SAMPLES or time.perf_counter() - started < TRIAL_S):
            eager.before()
            t0 = time.perf_counter()
            for _ in range(calls_per_sample):
                eager.call()
            samples.append((time.perf_counter() - t0) / calls_per_sample)
    finally:
        torch.set_num_threads(user)
    return ThreadsTrial(threads=threads, user_threads=user, eager_ms=median(samples) * 1e3, samples=len(samples))
