"""Whether the timings can be read, and how: samples that spread, an interval too wide to read, a speedup that moved
while timing (drift), a busy host, and what the profiler pass says about the call (clamped, withheld, mostly outside
the kernels).  Every sign of noise is one line, said once with what to do (``noise_text``); ``timing_warnings`` are
the card's warnings of this kind.  Derived here once; views lay them out."""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun
from ..stats import median
from .allocation import churn_text
from .breakdown import OVERHEAD_BOUND, clamp_warning, reduce_overhead_advice, verdict
from .contention import CONTENDED_CORES, speedup_unsettled
from .contention import advice as contention_advice
from .format import format_ms, interval_brackets, ratio_phrase
from .kernel_times import withheld

DRIFT_MIN_SAMPLES = 9  # a third of fewer samples says nothing
# A speedup that moved less than this share is not worth a word even beyond a tight interval (GPT-2 on an
# H200 moved 3.24x -> 3.28x within a [3.23, 3.27] interval: not news).
DRIFT_MIN_SHARE = 0.05


@dataclass
class Drift:
    """Medians of the first and last third of the interleaved samples (the same rounds for both variants)."""

    variant: str
    eager_early_ms: float
    eager_late_ms: float
    compiled_early_ms: float
    compiled_late_ms: float

    @property
    def early_speedup(self) -> float:
        return self.eager_early_ms / self.compiled_early_ms

    @property
    def late_speedup(self) -> float:
        return self.eager_late_ms / self.compiled_late_ms


def speedup_drift(run: ProfileRun) -> Drift | None:
    """How the speedup moved from the first to the last third of the samples, when it moved further than its
    interval is wide, and by more than ``DRIFT_MIN_SHARE``: the interval covers noise between samples, not a
    machine that changed under them (a host-bound GPT-2 read 1.96x by do_bench just before a profile and
    3.23x just after it)."""
    s, eager = run.speedup, run.eager
    if s is None or eager is None or eager.timing is None or not s.has_interval:
        return None
    low, high = s.low, s.high
    if low is None or high is None:  # never: has_interval says both are numbers
        return None
    best = run.variant(s.variant)
    if best.timing is None:
        return None
    e, c = eager.timing.samples_ms, best.timing.samples_ms
    n = min(len(e), len(c))
    if n < DRIFT_MIN_SAMPLES:
        return None
    k = n // 3
    d = Drift(
        variant=best.name,
        eager_early_ms=median(e[:k]),
        eager_late_ms=median(e[n - k : n]),
        compiled_early_ms=median(c[:k]),
        compiled_late_ms=median(c[n - k : n]),
    )
    if min(d.compiled_early_ms, d.compiled_late_ms) <= 0:
        return None
    moved = abs(d.late_speedup - d.early_speedup)
    return d if moved > high - low and moved > DRIFT_MIN_SHARE * s.value else None


NOISY_SPREAD = 2.0  # p90 / p10 beyond which samples are not one steady state
# An interval wider than this share of the speedup says the samples did not settle.  Steady profiles
# on an H200 read 0.3-1.5 %; one GPT-2 profile on a freshly started machine read 2.34x [1.86, 3.20]
# where the same code timed 3.2x a minute later.
WIDE_INTERVAL = 0.1


def contention_warning(run: ProfileRun) -> str | None:
    """Other processes kept cores busy that the profiled code's threads needed while it was timed: the sign,
    as ``noise_text`` lists it."""
    load = run.host_load
    if load is None or load.other_processes_cores < CONTENDED_CORES:
        return None
    if load.other_processes_cores + load.threads <= load.cores:
        return None
    whose = "torch's" if run.device.type == "cpu" else "the host thread's"
    return (
        f"other processes kept {load.other_processes_cores:.1f} of the {load.cores} cores busy while timing, "
        f"beside {whose} {load.threads} thread{'s' if load.threads != 1 else ''}: the CPU was oversubscribed"
    )


def wide_interval_text(value: float, low: float, high: float) -> str:
    """The interval too wide to read, worded as the headline words the speedup (``interval_brackets`` beside
    ``ratio_phrase``): ``the speedup's 95% interval [1.72×–2.00×] (1.87× slower) spans 15% of it``, a slowdown's
    bounds and width in slower multiples, never "0.50×–0.58×" beside a headline that says "slower"."""
    if value < 1 and low <= 0:  # a slowdown with no upper bound (a sample that took no time): no width to say
        return (
            f"the speedup's 95% interval {interval_brackets(value, low, high)} ({ratio_phrase(value)}) reaches 0×: "
            "it bounds nothing"
        )
    if value < 1:  # read as slowdowns: 1/value within [1/high, 1/low]
        width = (1 / low - 1 / high) * value
    else:
        width = (high - low) / value
    return (
        f"the speedup's 95% interval {interval_brackets(value, low, high)} ({ratio_phrase(value)}) spans "
        f"{width:.0%} of it"
    )


def noise_text(run: ProfileRun) -> str:
    """One line for every sign that the timings are unreliable (a busy CPU, samples that spread, an interval too
    wide to read, a speedup that moved while timing), with the figures and what to do; "" when there is none.

    Each sign used to be a warning of its own, and a busy machine gave five at once, each telling the user
    again to re-run (issue 23): they are one cause, said once."""
    signs: list[str] = []
    contended = contention_warning(run)
    if contended:
        signs.append(contended)
    for v in run.variants:
        t = v.timing
        if t is not None and t.n >= 3 and t.p10_ms > 0 and t.p90_ms / t.p10_ms > NOISY_SPREAD:
            signs.append(f"{v.name}'s samples spread from {format_ms(t.p10_ms)} (p10) to {format_ms(t.p90_ms)} (p90)")
    s = run.speedup
    low, high = (s.low, s.high) if s is not None else (None, None)
    # has_interval: both are finite numbers, which the type checker cannot see through the property
    # (a bound of 0, which a hand-made run file may hold, is worded by wide_interval_text without dividing by it)
    if s is not None and s.has_interval and low is not None and high is not None and s.value > 0:
        if (high - low) / s.value > WIDE_INTERVAL:
            signs.append(wide_interval_text(s.value, low, high))
    drift = speedup_drift(run)
    if drift is not None:
        signs.append(
            f"the machine moved while timing: from the first to the last third of the samples eager went "
            f"{format_ms(drift.eager_early_ms)} → {format_ms(drift.eager_late_ms)} and {drift.variant} "
            f"{format_ms(drift.compiled_early_ms)} → {format_ms(drift.compiled_late_ms)}, so the speedup went "
            f"{ratio_phrase(drift.early_speedup)} → {ratio_phrase(drift.late_speedup)}, further than its "
            "interval allows"
        )
    if not signs:
        return ""
    if contended:  # fewer threads only where torch ran more than the free cores (``contention``)
        advice = contention_advice(run)
    else:
        advice = "re-run, or time for longer (--budget 10)" + (" after a longer warm-up (--warmup)" if drift else "")
    return f"timings are unreliable: {'; '.join(signs)}; {advice}"


def timing_warnings(run: ProfileRun) -> list[str]:
    """What the timings themselves say about how far to trust, or how to read, the speedup."""
    out: list[str] = []
    noise = noise_text(run)
    if noise:
        out.append(noise)
    churned = churn_text(run)
    if churned:
        out.append(churned)
    clamped = clamp_warning(run)
    if clamped:
        out.append(clamped)
    out.extend(j.text for j in withheld(run).values())
    best = run.speedup_variant
    profile = getattr(best, "kernel_profile", None) if best else None
    # A run with a breakdown says this in its verdict (digest.breakdown), with eager's figures beside it;
    # older runs, profiled before the breakdown, keep this warning.
    if (
        verdict(run) is None
        and speedup_unsettled(run) is None  # on a busy CPU the time outside kernels is waiting for one
        and best is not None
        and best.name not in withheld(run)
        and best.timing is not None
        and profile is not None
        and profile.total_ms > 0
    ):
        share = profile.total_ms / best.timing.median_ms
        if share < OVERHEAD_BOUND:
            advice = reduce_overhead_advice(run, best)
            out.append(
                f"{best.name}: kernels take {format_ms(profile.total_ms)} of each {format_ms(best.timing.median_ms)} "
                f"call ({share:.0%}); the rest is outside the kernels (Python, guards, launches){advice}"
            )
    return out
