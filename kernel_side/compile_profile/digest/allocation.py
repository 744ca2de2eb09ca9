"""Allocation churn as a sign on a CPU timing: a call whose allocations take pages fresh from the OS each time
(minor page faults, ``Timing.faults``) has a time that depends on the allocator's state, and that state differs
from process to process, so a speedup measured in one process may not hold in the next (issue 34).

Why: glibc's malloc serves a large block from memory it kept or maps it fresh, by a threshold it raises as the
process frees large blocks, so what a process did before decides whether a call faults its pages in again.  On this
project's 2-core CPU, eager hand-written attention at L=512 (an 8 MB score matrix a call) took 508-2,615 faults a
call and 5.0-9.0 ms in four fresh processes; with every block returned to the OS (``MALLOC_TRIM_THRESHOLD_`` set)
6,404 faults and 11.9-15.3 ms, with none returned (``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_``) 34-38
faults and 4.7-6.1 ms: 1.1-1.5 µs a fault (``FAULT_S``).  The suite's and plain ``torch.compile``'s fresh processes
disagreed on that entry's speedup by more than either's interval (``docs/suite.md``).

The engine's own process seldom faults for that step (0 a call in two profiles: compiling had freed large blocks
and raised the threshold), but a block past glibc's largest threshold (32 MB) is mapped afresh in every call of
every process: ``(x * 2 + 1).relu() * 3`` on a 64 MB tensor took 65,540 faults a call eagerly (76.7 ms) and 16,385
compiled (20.6 ms), so part of its 3.7x is pages not taken.

glibc keeps the pages where the process starts with ``MALLOC_MMAP_THRESHOLD_`` above the largest block and
``MALLOC_TRIM_THRESHOLD_`` set: that 64 MB step at one thread took 0 faults a call and 46 ms with a 128 MB threshold,
against 65,540 and 304-416 ms with none or a threshold of 32 or 64 MB (a block at the threshold is still mapped;
timed while CI ran beside it).

The sign is said where a variant's median faults per call are at least ``MIN_FAULTS`` and, at ``FAULT_S`` each, a
``MATERIAL`` share of its median call or more.  The line gives the counts, not a time: faults taken by torch's
threads at once cost the call less than their sum (the 64 MB step's 65,540 at 1.3 µs would be 85 ms of 76.7).  The fix named is a steady allocator (jemalloc or tcmalloc
preloaded, as ``torch.backends.xeon.run_cpu`` does for PyTorch's CPU benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun
from ..stats import median
from .format import format_ms

FAULT_S = 1.3e-6  # a minor fault's cost, measured on this project's 2-core CPU (above)
MIN_FAULTS = 256  # a megabyte of 4 KiB pages a call: fewer is a call's ordinary first touches
MATERIAL = 0.1  # an estimated share of the call under this is within what two processes' medians differ by


@dataclass(frozen=True)
class Churn:
    """One variant's page faults per call (the median over its samples) and what they cost, estimated."""

    variant: str
    faults: float
    call_ms: float

    @property
    def cost_ms(self) -> float:
        return self.faults * FAULT_S * 1e3


def churn(run: ProfileRun) -> list[Churn]:
    """The variants whose calls fault in pages enough to move their time between processes, eager first."""
    out: list[Churn] = []
    for v in run.variants:
        t = v.timing
        if t is None or not t.faults or t.median_ms <= 0:
            continue
        found = Churn(v.name, median(t.faults), t.median_ms)
        if found.faults >= MIN_FAULTS and found.cost_ms >= MATERIAL * found.call_ms:
            out.append(found)
    return out


def churn_text(run: ProfileRun) -> str:
    """One line for the variants that churn, with the figures and the fix; "" when none does."""
    found = churn(run)
    if not found:
        return ""
    each = ", ".join(f"{c.variant} {c.faults:,.0f} a call of {format_ms(c.call_ms)}" for c in found)
    return (
        f"allocations take pages fresh from the OS in every call (page faults: {each}): the kernel zeroes each one "
        "(1.1-1.5 µs a page on one core of a 2-core CPU), and how many a call takes depends on what the process freed "
        "before, so such a time can differ between processes; an allocator that keeps the pages removes it: "
        "preload jemalloc or tcmalloc (LD_PRELOAD), as torch.backends.xeon.run_cpu does, or start Python with "
        "glibc's MALLOC_MMAP_THRESHOLD_ above the largest block (in bytes) and MALLOC_TRIM_THRESHOLD_ set"
    )
