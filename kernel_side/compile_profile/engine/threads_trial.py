"""What fewer torch threads would give, measured: the eager call timed again at as many threads as the cores
other processes left free, interleaved with samples at the threads the cell ran at.

Contract: ``try_fewer_threads`` runs after the timed rounds, on CPU, outside a distributed job, only where
torch's intra-op threads outnumbered the free cores (``HostLoad.free_cores``: the cores less what other
processes kept busy while timing, rounded, at least 1).  Each round takes one sample at each thread count, in
an order rotated each round; before each sample the thread count is set
(``torch.set_num_threads``) and, for calls under ``PRIME_BELOW_S``, one untimed call runs at it (the first
parallel region after a change resizes OpenMP's team).  It stops after ``MIN_ROUNDS`` rounds once ``TRIAL_S``
has passed, or at ``MAX_ROUNDS``; torch's thread count is set back as it was, on error and interrupt too.  It
returns a ``ThreadsTrial`` (medians per call at both counts); the digest words it as the host-contention cause
with its measured effect.

Eager only: Dynamo guards each compiled graph on torch's thread count (its global-state guard), so a compiled
call at another count recompiles (an MLP's at 1 thread, compiled at 8: 976 ms, "GLOBAL_STATE changed:
num_threads"), a compile no trial should add to the user's, and a user who sets fewer threads compiles for them.

Why a trial and not the wait for a CPU the timed samples' threads measured (``Timing.waited_ms``): with more
threads than cores the threads wait at once, so their summed wait is no figure of the call's.  Measured on
this project's 2-core machine, a 32x128 MLP at 8 threads beside two spinning processes: eager 519 µs a call
with 1,084 µs of summed waiting, at 1 thread 53.5 µs (waiting 0); compiled 751 µs with 1,440 µs of waiting.  The
trial gives the 466 µs that ``torch.set_num_threads(1)`` saves eager, which no sum of waits says.
"""

from __future__ import annotations

import time

from ..profile_run import HostLoad, ThreadsTrial
from ..stats import median
from .timing import TimedCallable

TRIAL_S = 1.0  # the trial's wall time once it has its MIN_ROUNDS
MIN_ROUNDS = 3
MAX_ROUNDS = 15
PRIME_BELOW_S = 0.01  # calls shorter than this get an untimed call after each change of the thread count


def wanted(load: HostLoad | None, device_type: str, distributed_job: bool) -> int | None:
    """The thread count to try, where torch ran more threads than the free cores; else None."""
    if load is None or device_type != "cpu" or distributed_job:
        return None
    return load.free_cores if load.threads > load.free_cores else None


def try_fewer_threads(eager: TimedCallable, threads: int, calls_per_sample: int) -> ThreadsTrial | None:
    """Time ``eager`` at ``threads`` and at the current thread count, interleaved."""
    import torch

    user = torch.get_num_threads()
    if threads >= user:
        return None
    samples: dict[int, list[float]] = {threads: [], user: []}
    started = time.perf_counter()
    rounds = 0
    try:
        while rounds < MAX_ROUNDS and (rounds < MIN_ROUNDS or time.perf_counter() - started < TRIAL_S):
            for k in (threads, user) if rounds % 2 == 0 else (user, threads):
                torch.set_num_threads(k)
                if eager.fastest_s < PRIME_BELOW_S:
                    eager.before()
                    eager.call()
                eager.before()
                t0 = time.perf_counter()
                for _ in range(calls_per_sample):
                    eager.call()
                samples[k].append((time.perf_counter() - t0) / calls_per_sample)
            rounds += 1
    finally:
        torch.set_num_threads(user)
    return ThreadsTrial(
        threads=threads,
        user_threads=user,
        eager_ms=median(samples[threads]) * 1e3,
        eager_user_ms=median(samples[user]) * 1e3,
        rounds=rounds,
    )
