"""What ``--sweep`` concluded, judged against noise: the variant to use and the ``torch.compile`` call to copy, or
the plain call where no mode ran measurably faster than the next fastest.  Derived here once; views lay it out."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profile_run import ProfileRun
from ..serialize import ADDED_LATER
from .format import format_speedup_interval, interval_brackets, ratio_phrase


@dataclass
class RecommendationSummary:
    """What ``--sweep`` concluded: the variant to use and the call to copy (the plain ``torch.compile(model)``
    when no mode ran measurably faster than the next fastest)."""

    variant: str
    call: str
    measurable: bool = field(metadata=ADDED_LATER)  # whether a mode won beyond the noise
    text: str = field(metadata=ADDED_LATER)  # the recommendation and why, in one line


def same_kernels(run: ProfileRun, a: str, b: str) -> bool:
    """Whether variants ``a`` and ``b`` generated the same kernels (the same sources): then no timing
    difference between them is the mode's doing."""

    def sources(variant: str) -> list[str]:
        return sorted(k.source for k in run.kernels if k.variant == variant)

    return bool(sources(a)) and sources(a) == sources(b)


def recommendation_digest(run: ProfileRun) -> RecommendationSummary | None:
    """What ``--sweep`` recommends, judged against noise: the fastest variant's call where it ran
    measurably faster than the next fastest (the interval of their ratio above 1×, and other code
    generated); otherwise "no mode is measurably better" and the plain call (a sweep once recommended one
    of two variants that compiled the same single kernel, from an interval of 0.35–23.3).  ``call`` is
    the one to copy, and every view shows it beside ``text``, which does not repeat it; ``measurable`` whether a
    mode won."""
    r = run.recommendation
    if r is None:
        return None
    plain = r.plain_call or r.call
    if not r.runner_up or r.margin is None:  # one variant swept, or a run from before the margin was measured
        s = run.speedup
        why = (
            f" ({format_speedup_interval(s.value, s.low, s.high)} than eager)"
            if s is not None and s.variant == r.variant
            else ""
        )
        text = f"{r.variant}, the fastest compiled variant{why}"
        return RecommendationSummary(variant=r.variant, call=r.call, measurable=True, text=text)
    margin = f"{ratio_phrase(r.margin)} than {r.runner_up}"
    brackets = interval_brackets(r.margin, r.margin_low, r.margin_high)
    if same_kernels(run, r.variant, r.runner_up):
        text = (
            f"no mode is measurably better: {r.variant} and {r.runner_up} generated the same kernels, so the "
            "plain call is as good"
        )
        return RecommendationSummary(variant=r.plain_variant or r.variant, call=plain, measurable=False, text=text)
    if r.margin_low is None or r.margin_low <= 1:
        text = (
            f"no mode is measurably better: {r.variant} ran {margin}, within noise"
            + (f" {brackets}" if brackets else "")
            + ", so the plain call is as good"
        )
        return RecommendationSummary(variant=r.plain_variant or r.variant, call=plain, measurable=False, text=text)
    text = f"{r.variant} ran {margin}, the next fastest" + (f" {brackets}" if brackets else "")
    return RecommendationSummary(variant=r.variant, call=r.call, measurable=True, text=text)
