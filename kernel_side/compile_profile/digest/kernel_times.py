"""Whether a variant's profiler pass can be read as times of its timed call: the one judgment every view
of per-kernel and per-line time reads (text, HTML view and report, charts, widget, and the panel through
the digest's ``kernel_times``), and the words of what they show in its place.

The pass runs after timing, under ``torch.profiler`` (``engine.kernel_profiler``, ``engine.eager_profile``);
its figures are medians over its calls.  They are withheld (``PassJudgment.trusted`` False) when

* every profiled call was preempted (CPU: this process's threads waited for a CPU beyond 5 % of each
  call, ``KernelProfile.preempted_calls == calls``): its host times hold the wait, not the work; or
* its kernels take longer per call than the timed median allows, beyond ``tolerance_ms``: the timer's own
  spread (``SPREAD_Z`` robust standard deviations of its samples, from their median absolute deviation,
  so a few stalled samples do not widen it), and never less than what two timers of the same work
  disagree by (``AGREEMENT``): on a GPU the kernels' CUPTI device times against the timed samples' CUDA
  events, on CPU the profiler's own cost in each op's host time.

Where withheld, a view shows each kernel's and each line's share of the pass's time, never its absolute
time, and says why in place (``PassJudgment.text``); achieved rates (the roofline) are not shown.

Measured: on a 2-core CPU beside a busy process a kernel read 1.17 ms per call in a call timed at 72.9 µs
(``torch.profiler`` on plain ``torch.compile`` gives ~2.7 µs), and the views drew it; on an H200, hand-
written attention's profiled eager kernels took 2.23 ms against a 2.22 ms timed call (0.5 % over, within
what CUPTI and CUDA events disagree by) and the verdict refused to explain a 3.06x speedup.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import cast

from ..profile_run import Kernel, ProfileRun, Timing, Variant
from ..stats import robust_sigma
from . import contract
from .format import format_ms, format_share

# What the pass's kernels per call may exceed the timed median by whatever the timer's spread, as a share
# of it.  GPU: CUPTI's kernel durations against the timed samples' CUDA events read 2.2-3.6 % over on
# device-bound H200 calls (fidelity: ln_gelu 87.6 against 85.7 µs, attention 305 against 298 µs;
# breakdown: ln_gelu 92.3 against 89.1 µs).  CPU: each op's host time holds the profiler's own cost
# (eager's profiled calls 0.97-1.2x the timed ones on small cells), as ``breakdown.PROFILER_INFLATION``.
AGREEMENT = {"cupti": 0.05, "host": 0.3}
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

    def as_dict(self) -> contract.PassJudgment:
        return cast(contract.PassJudgment, asdict(self))


def timer_spread_ms(timing: Timing) -> float:
    """The timed samples' robust standard deviation: from their median absolute deviation, or, for a run
    stored without samples, from p10 and p90."""
    samples = timing.samples_ms
    if len(samples) >= 3:
        return robust_sigma(samples)
    return max(0.0, timing.p90_ms - timing.p10_ms) / _P10_P90_SIGMAS


def tolerance_ms(timing: Timing, method: str) -> float:
    """How far above the timed median a pass's kernels per call may read and still be this call's."""
    return max(AGREEMENT.get(method, AGREEMENT["host"]) * timing.median_ms, SPREAD_Z * timer_spread_ms(timing))


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
    tolerance = tolerance_ms(timing, profile.method)
    preempted = profile.calls > 0 and profile.preempted_calls >= profile.calls
    slower = kernels > timing.median_ms + tolerance
    text = ""
    if preempted:
        waited = f" ({format_ms(profile.waited_ms)} in the median call)" if profile.waited_ms else ""
        text = (
            f"{v.name}'s profiler pass is withheld: this process's threads waited for a CPU in every one of its "
            f"{profile.calls} calls{waited}, so its host times hold the wait, not the work (another program is "
            "busy on this machine)"
        )
    elif slower:
        text = (
            f"{v.name}'s profiler pass is withheld: its kernels took {format_ms(kernels)} a call against a "
            f"{format_ms(timing.median_ms)} timed call, beyond the timer's noise (+{format_ms(tolerance)})"
        )
    if text:
        text += "; its kernels and lines show shares of the pass's time"
    return PassJudgment(
        variant=v.name,
        trusted=not text,
        kernels_ms=kernels,
        call_ms=timing.median_ms,
        tolerance_ms=tolerance,
        preempted=preempted,
        text=text,
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


def digest(run: ProfileRun) -> dict[str, contract.PassJudgment]:
    """``{variant: judgment}`` as the digest's JSON carries it (``summary["kernel_times"]``)."""
    return {name: j.as_dict() for name, j in judgments(run).items()}
