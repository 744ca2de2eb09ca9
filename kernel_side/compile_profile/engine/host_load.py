"""How busy other processes kept the machine's CPUs while the profile timed (``HostLoad``).

On a CPU run torch's threads need the cores to themselves: with another busy process on one of two cores, a
DDP training step's bare eager loop read 554 ms where it reads 11 ms on an idle machine (OpenMP threads
waiting on a descheduled one), and the samples say nothing of why.  Linux's ``/proc/stat`` counts every
core's busy time; less this process's own CPU time (``os.times``, all its threads) it is what other
processes (another rank of the job included) used.  Elsewhere nothing is measured (None).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from ..profile_run import HostLoad

_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user, nice, system, irq, softirq, steal (not idle, iowait)


def _busy_s() -> float | None:
    """Every core's busy time since boot, in seconds; None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    return sum(ticks[i] for i in _BUSY_FIELDS if i < len(ticks)) / os.sysconf("SC_CLK_TCK")


def _own_s() -> float:
    t = os.times()
    return t.user + t.system


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def measure(threads: int) -> Callable[[], HostLoad | None]:
    """Start measuring; the returned function stops and says what other processes used meanwhile."""
    wall0, busy0, own0 = time.perf_counter(), _busy_s(), _own_s()

    def stop() -> HostLoad | None:
        wall, busy = time.perf_counter() - wall0, _busy_s()
        if busy0 is None or busy is None or wall <= 0:
            return None
        others = max(0.0, (busy - busy0) - (_own_s() - own0)) / wall
        return HostLoad(other_processes_cores=round(others, 2), cores=cores(), threads=threads)

    return stop
