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

try:
    import resource
except ImportError:  # Windows
    resource = None

from ...profile_run import HostLoad

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


def minor_faults() -> int | None:
    """This process's minor page faults so far, all its threads (``getrusage``'s ``ru_minflt``): each is a page the
    allocator took fresh from the OS and the kernel zeroed on first touch.  A call that allocates large blocks
    faults its pages in on every call or on none, as glibc's malloc returns them to the OS or keeps them, which
    depends on what the process freed before (hand-written attention at L=512 on this 2-core CPU: 508-2,615 faults
    a call in four fresh processes, 6,404 with every block returned, 34 with none).  None where not measured."""
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


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


class ThreadWaits:
    """How long this process's threads waited for a CPU while runnable, from each thread's
    ``/proc/self/task/<tid>/schedstat`` (its second field: nanoseconds spent on a runqueue).

    That is exactly the time a busy machine took from a call: a thread preempted by another process,
    or an OpenMP worker descheduled while torch's other threads wait for it at a barrier.  Measured on
    2 cores beside another program's busy threads (a compiled transformer block, 200 calls, torch's 2
    threads): calls whose threads waited under 5 % of their wall time had a median of 1.21 ms, all calls
    24.7 ms, the slowest tenth 338 ms with 565 ms of waiting; the calling thread's own CPU time was no
    better a guide (47 ms of CPU time in a 183 ms call: OpenMP spins while it waits).

    Each thread's file is opened once and re-read with ``pread``; threads that start later are opened
    as they appear.  ``waited_s()`` is None where the files cannot be read (not Linux, no schedstats).
    """

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        self._last_ns: dict[str, int] = {}  # each thread's wait at its last reading, kept after it ends
        self.available = self._refresh()

    def _refresh(self) -> bool:
        try:
            tids = os.listdir("/proc/self/task")
        except OSError:
            return False
        for tid in tids:
            if tid not in self._fds and tid not in self._last_ns:
                try:
                    self._fds[tid] = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
                except OSError:
                    continue
        return bool(self._fds)

    def waited_s(self) -> float | None:
        """Every thread's runqueue wait so far, summed (seconds); a thread that ended counts what it had."""
        if not self.available or not self._refresh():
            return None
        for tid, fd in list(self._fds.items()):
            try:
                self._last_ns[tid] = int(os.pread(fd, 128, 0).split()[1])
            except (OSError, IndexError, ValueError):  # the thread ended: its last reading stands
                os.close(fd)
                del self._fds[tid]
        return sum(self._last_ns.values()) / 1e9

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
