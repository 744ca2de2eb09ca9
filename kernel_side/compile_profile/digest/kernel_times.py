"""Whether a variant's profiler pass can be read as times of its timed call: the one judgment every view
of per-kernel, per-line and per-kind time reads (the breakdown and its verdict, the diagnosis and its heading,
text, HTML view and report, charts, widget, and the panel through the digest's ``kernel_times``), and the
words of what they show in its place.

The pass runs after timing, under ``torch.profiler`` (``engine.kernels.profiler_pass``, ``engine.kernels.eager_times``);
its figures are medians over its calls.  On CPU each op's host time holds what the profiler costs to record
the ops inside it; the pass calibrates that cost per op event in the same process and takes it out
(``engine.kernels.profiler_cost``, ``KernelProfile.event_cost_us`` and ``profiler_cost_ms``).  The figures are
withheld (``PassJudgment.trusted`` False) when

* every profiled call was preempted (CPU: this process's threads waited for a CPU beyond 5 % of each
  call, ``KernelProfile.preempted_calls == calls``): its host times hold the wait, not the work; or
* its kernels take longer per call than the timed median allows, beyond ``tolerance_ms``: the timer's own
  spread (``SPREAD_Z`` robust standard deviations of its samples, from their median absolute deviation,
  so a few stalled samples do not widen it), and never less than what two timers of the same work
  disagree by (``AGREEMENT``): on a GPU the kernels' CUPTI device times against the timed samples' CUDA
  events; on CPU, where the profiler's cost was calibrated, the larger of the spread and ``HOST_CALIBRATED`` of
  the call plus the cost taken out (an op's events can cost more or less than the calibrating op's), else
  the 30 % the uncalibrated cost took; or
* (a CPU run stored before calibration) a profiled call ran ``PROFILER_INFLATION`` times the timed one: its
  ops' host times hold the profiler's cost, which that run did not measure.

Where withheld, every view shows each kernel's, line's and kind's share of the pass's time, never a time
(nor the pass's kernel time in the reason: ``PassJudgment.text`` says it as a multiple of the timed call), and
says why in place; achieved rates (the roofline) are not shown.  Where trusted, nothing says the breakdown
is not measured.

Measured: on a 2-core CPU beside a busy process a kernel read 1.17 ms per call in a call timed at 72.9 µs
(``torch.profiler`` on plain ``torch.compile`` gives ~2.7 µs), and the views drew it; on an H200, hand-
written attention's profiled eager kernels took 2.23 ms against a 2.22 ms timed call (0.5 % over, within
what CUPTI and CUDA events disagree by) and the verdict refused to explain a 3.06x speedup.  Before the
calibration every small CPU cell's heading said its breakdown was not measured ("the profiled call took
958 µs against 440 µs timed": the profiled call's wall time holds the line marks' Python, which lands
between ops, not in them) while the table below it showed each part in µs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..profile_run import Kernel, KernelProfile, ProfileRun, Timing, Variant
from ..stats import robust_sigma
from .contention import PREEMPTED_SHARE
from .facts import TOP_KERNELS, kernel_variants, top_kernels
from .format import format_gbps, format_ms, format_share, format_tflops

# What the pass's kernels per call may exceed the timed median by whatever the timer's spread, as a share
# of it.  GPU: CUPTI's kernel durations against the timed samples' CUDA events read 2.2-3.6 % over on
# device-bound H200 calls (fidelity: ln_gelu 87.6 against 85.7 µs, attention 305 against 298 µs;
# breakdown: ln_gelu 92.3 against 89.1 µs).  CPU, uncalibrated (runs stored before ``event_cost_us``): each
# op's host time holds the profiler's own cost (eager's profiled calls 0.97-1.2x the timed ones on small cells).
AGREEMENT = {"cupti": 0.05, "host": 0.3}
# CPU, with the profiler's cost per op calibrated and taken out: what it does not account for, the pass's
# Python (line marks, the tracer) between ops leaving the caches colder for the next op.  An MLP's aten::linear
# read 19.1 µs marked against 17.3 µs unmarked (10 %); a 32x128 MLP's whole eager call at one thread, on an idle
# machine in a fresh clone's CI, read 52-65 µs of ops (the first calls set aside) against a 49-52 µs timed call,
# up to 28 % over, and at 10 % its breakdown was withheld on two CI runs.  A busy machine's distortion is of
# another order (a kernel at 1.17 ms in a 72.9 µs call; 120 µs of kernels in a 69.9 µs call, 1.7x).
HOST_CALIBRATED = 0.3
# A profiled call's wall time over the timed median beyond which an uncalibrated host-time breakdown is
# distorted: a T5 training step (4,869 ops a call) ran 1.54x, where its ops' profiled host time left 0.2 ms
# outside them of a 10.5 ms call and compiled's 3.9 ms, an overhead the data did not show.
PROFILER_INFLATION = 1.3
SPREAD_Z = 3.0  # robust standard deviations of the timed samples
_P10_P90_SIGMAS = 2.563  # a normal distribution's p10-p90 width in standard deviations
WITHHELD = "of pass"  # after a share where a view would show a time: "46% of pass"


@dataclass
class PassJudgment:
    """One variant's profiler pass held against its timed call."""

    variant: str
    trusted: bool
    kernels_ms: float  # the pass's kernel time per call
    call_ms: float  # the timed median
    tolerance_ms: float  # how far above the timed median the kernels may read
    preempted: bool  # every profiled call was preempted
    text: str  # why the pass's times are withheld, said where they would be; "" when trusted
    why: str = ""  # the same in a few words, with the variant's name; "" when trusted


def timer_spread_ms(timing: Timing) -> float:
    """The timed samples' robust standard deviation: from their median absolute deviation, or, for a run
    stored without samples, from p10 and p90.  Where each sample's wait for a CPU was measured, of the samples
    that did not wait, where three or more did not: a busy machine's stalls are no noise of the timer (a 32x128
    MLP with 39 of its 100 compiled samples stalled had its pass's 120 µs of kernels let through against a
    69.9 µs call)."""
    samples = timing.samples_ms
    if len(timing.waited_ms) == len(samples):
        clean = [s for s, w in zip(samples, timing.waited_ms) if w <= PREEMPTED_SHARE * s]
        samples = clean if len(clean) >= 3 else samples
    if len(samples) >= 3:
        return robust_sigma(samples)
    return max(0.0, timing.p90_ms - timing.p10_ms) / _P10_P90_SIGMAS


def calibrated(profile: KernelProfile) -> bool:
    """A CPU pass whose profiler cost per op was measured and taken out of its ops' host times."""
    return profile.method == "host" and profile.event_cost_us is not None and profile.profiler_cost_ms is not None


def tolerance_ms(timing: Timing, method: str, profile: KernelProfile | None = None) -> float:
    """How far above the timed median a pass's kernels per call may read and still be this call's (``profile``:
    the pass, whose calibrated profiler cost, where it has one, sets the host floor)."""
    spread = SPREAD_Z * timer_spread_ms(timing)
    if profile is not None and calibrated(profile):
        # The timer's noise and the calibration's error are independent, so they add: the cost taken out can be
        # off by its own size (an op's events cost more or less than the calibrating ops').  Taking the larger
        # alone withheld an idle CI machine's 3-op MLP: its 19 events' 9.4 µs taken out, its kernels still read
        # 67.3 µs against a 51.2 µs call with a 13.3 µs spread, preempted in none of its 10 profiled calls.  (Those
        # were the profiler's first calls of the process, running slow while it settled; the pass now sets such
        # calls aside, ``engine.kernels.profiled_calls.CallRecord.settling``.)
        return max(HOST_CALIBRATED * timing.median_ms, spread) + (profile.profiler_cost_ms or 0.0)
    return max(AGREEMENT.get(method, AGREEMENT["host"]) * timing.median_ms, spread)


def inflation(profile: KernelProfile, timing: Timing) -> float | None:
    """An uncalibrated host pass's profiled call over the timed median, where beyond ``PROFILER_INFLATION``."""
    if profile.method != "host" or calibrated(profile) or profile.profiled_call_ms is None or timing.median_ms <= 0:
        return None
    ratio = profile.profiled_call_ms / timing.median_ms
    return ratio if ratio > PROFILER_INFLATION else None


def pass_kernels_ms(v: Variant) -> float | None:
    """The pass's kernel time per call: its breakdown's kernels (on CPU without the output code's own
    Python), else its total; on a GPU no more than the time a device event ran (``device_busy_ms``), so
    kernels on concurrent streams, which the call's time holds once, are not held against it twice."""
    profile = v.kernel_profile
    if profile is None:
        return None
    kernels = profile.breakdown.kernels_ms if profile.breakdown is not None else profile.total_ms
    if profile.device_busy_ms is not None:
        kernels = min(kernels, profile.device_busy_ms)
    return kernels


def pass_judgment(v: Variant) -> PassJudgment | None:
    """The judgment of ``v``'s profiler pass; None where it has no pass or no timing."""
    profile, timing = v.kernel_profile, v.timing
    kernels = pass_kernels_ms(v)
    if profile is None or timing is None or kernels is None:
        return None
    tolerance = tolerance_ms(timing, profile.method, profile)
    preempted = profile.calls > 0 and profile.preempted_calls >= profile.calls
    slower = kernels > timing.median_ms + tolerance
    inflated = inflation(profile, timing)
    text = why = ""
    # the reasons say the pass's kernel time as a multiple of the timed call, never as a time: a view shows
    # no figure of a withheld pass as if it were measured
    if preempted:
        waited = f" ({format_ms(profile.waited_ms)} in the median call)" if profile.waited_ms else ""
        why = "'s profiled calls were all preempted"
        text = (
            f"this process's threads waited for a CPU in every one of its {profile.calls} calls{waited}, so its "
            # whose threads took the CPUs is the contention verdict's to say: torch's own beyond the cores read "another
            # program is busy" here beside "torch runs 4 threads on 2 free cores (other processes kept 0.0 … busy)"
            "host times hold the wait, not the work (more threads wanted a CPU than were free)"
        )
    elif slower:
        times = kernels / timing.median_ms if timing.median_ms > 0 else math.inf
        allowed = 1 + tolerance / timing.median_ms if timing.median_ms > 0 else math.inf
        noise = "the timer's noise and the profiler's measured cost" if calibrated(profile) else "the timer's noise"
        why = f"'s kernels read {times:.2f}× its timed call"
        text = f"its kernels read {times:.2f}× the timed call, beyond {noise} ({allowed:.2f}×)"
    elif inflated is not None:
        why = f"'s profiled call ran {inflated:.2f}× the timed one, the profiler's cost per op not measured"
        text = (
            f"a profiled call ran {inflated:.2f}× the timed one and this run did not measure the profiler's cost "
            "per op, which lands in the ops' host times"
        )
    if text:
        text = f"{v.name}'s profiler pass is withheld: {text}; its kernels and lines show shares of the pass's time"
    return PassJudgment(
        variant=v.name,
        trusted=not text,
        kernels_ms=kernels,
        call_ms=timing.median_ms,
        tolerance_ms=tolerance,
        preempted=preempted,
        text=text,
        why=f"{v.name}{why}" if why else "",
    )


def judgments(run: ProfileRun) -> dict[str, PassJudgment]:
    """Every variant's judgment, by name, in the run's order (variants without a pass are left out)."""
    return {v.name: j for v in run.variants if (j := pass_judgment(v)) is not None}


def withheld(run: ProfileRun) -> dict[str, PassJudgment]:
    """The variants whose pass's times are withheld."""
    return {name: j for name, j in judgments(run).items() if not j.trusted}


def withheld_notes(run: ProfileRun, variants=None) -> list[str]:
    """Why each withheld pass's times are shares, for the views that draw them (of ``variants`` only, when
    given: those a table shows)."""
    return [j.text for name, j in withheld(run).items() if variants is None or name in variants]


def share_text(share: float | None) -> str:
    """A withheld time's place: ``46% of pass``."""
    return f"{format_share(share)} {WITHHELD}" if share is not None else "—"


def kernel_time_text(k: Kernel, withheld_variants, with_share: bool = True) -> str:
    """A kernel's time as every view words it: ``1.17 ms (96.6%)``; where its variant's pass is withheld
    (``k.variant in withheld_variants``, from ``withheld(run)``), its share alone (``96.6% of pass``); "—"
    where it was not timed."""
    if k.device_time_ms is None:
        return "—"
    if k.variant in withheld_variants:
        return share_text(k.share)
    text = format_ms(k.device_time_ms)
    if with_share and k.share is not None:
        text += f" ({k.share * 100:.1f}%)"
    return text


def digest(run: ProfileRun) -> dict[str, PassJudgment]:
    """``{variant: judgment}``, as the summary's ``kernel_times`` carries it."""
    return judgments(run)


# -- the kernels a table lists first ------------------------------------------------------------


@dataclass
class KernelTableRow:
    """One kernel of ``KernelTable``, its figures worded."""

    name: str
    variant: str
    language: str
    time: str  # "1.17 ms"; its share alone where its variant's pass is withheld ("96.6% of pass"); "—" untimed
    share_text: str  # "96.6%"; "" where no share was measured
    lines: list[int]  # the cell lines it came from
    aten_ops_text: str  # its first ATen ops, "aten::mm, aten::add …"


@dataclass
class KernelTable:
    """The kernels that took the most device time (untimed ones after, in generation order), as a summary lists them."""

    title: str  # "Top kernels by device time", or "Kernels" where none was timed
    rows: list[KernelTableRow]
    total: int  # kernels in the run
    several_variants: bool  # kernels of more than one variant: each row names its variant
    withheld_notes: list[str]  # why a withheld pass's kernels show shares, of the variants the rows show


def kernel_table(run: ProfileRun, n: int = TOP_KERNELS) -> KernelTable:
    """The ``n`` kernels that took the most device time, each worded as every view words it (``kernel_time_text``)."""
    left_out = withheld(run)
    variants = kernel_variants(run)
    return KernelTable(
        title="Top kernels by device time" if any(k.device_time_ms is not None for k in run.kernels) else "Kernels",
        rows=[
            KernelTableRow(
                name=k.name,
                variant=k.variant,
                language=k.language,
                time=kernel_time_text(k, left_out, with_share=False),
                share_text=f"{k.share * 100:.1f}%" if k.share is not None else "",
                lines=list(k.lines),
                aten_ops_text=", ".join(k.aten_ops[:6]) + (" …" if len(k.aten_ops) > 6 else ""),
            )
            for k in top_kernels(run.kernels, n)
        ],
        total=len(run.kernels),
        several_variants=len(variants) > 1,
        withheld_notes=withheld_notes(run, variants),
    )


@dataclass
class KernelCells:
    """One kernel's cells in the panel's Kernels tab, worded (the tab sorts and pages the run's kernels by their
    figures and shows these words): ``RunDigest.kernel_cells`` holds one per kernel, in the run's order."""

    time: str  # "1.17 ms"; its share alone where its variant's pass is withheld ("46% of pass"); "—" untimed
    bandwidth: str  # achieved bandwidth, "612 GB/s", "2.81 TB/s"; "—" unmeasured, or its pass withheld
    bandwidth_share: str  # of the measured peak bandwidth, "46%"; "—" as above
    compute: str  # achieved compute, "612 TFLOP/s", "40.1 GFLOP/s"; "—" as above
    compute_share: str  # of the measured peak compute, "0.4%"; "—" as above


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def kernel_cells(run: ProfileRun) -> list[KernelCells]:
    """Every kernel's cells, in ``run.kernels``'s order: its time as ``kernel_time_text`` words it (no share beside
    it: the tab's time column), its achieved rates and their shares of the peaks; no rate where its pass is
    withheld (its time is not the timed call's, so neither is its rate)."""
    left_out = withheld(run)
    out = []
    for k in run.kernels:
        time = "—" if _finite(k.device_time_ms) is None else kernel_time_text(k, left_out, with_share=False)
        rated = k.variant not in left_out
        out.append(
            KernelCells(
                time=time,
                bandwidth=format_gbps(_finite(k.achieved_gbps)) if rated else "—",
                bandwidth_share=format_share(_finite(k.bandwidth_share)) if rated else "—",
                compute=format_tflops(_finite(k.achieved_tflops)) if rated else "—",
                compute_share=format_share(_finite(k.compute_share)) if rated else "—",
            )
        )
    return out
