"""What the timed rounds of one input give: each variant's ``Timing``, the speedup of the fastest compiled variant
over eager with its interval (``stats.ratio_interval``), and with ``--sweep`` the recommendation with its margin
over the runner-up (``input_sequence.record`` does the same for a sequence's signatures, weighted by calls)."""

from __future__ import annotations

from ... import stats
from ...profile_run import Recommendation, Speedup
from ..session.session import Session
from .interleaved import TimedCallable, fastest, summarize_samples


def record_timings(session: Session, timed: list[TimedCallable], device_type: str) -> None:
    method = "cuda_events" if device_type == "cuda" else "host"
    by_name = {v.name: v for v in timed}
    for variant in session.run.variants:
        tc = by_name.get(variant.name)
        if tc is not None and tc.samples_s:
            variant.timing = summarize_samples(tc.samples_s, method=method, waited_s=tc.waited_s, faults=tc.faults)
    eager = by_name["eager"]
    candidates = [by_name[n] for n in session.compiled if by_name[n].samples_s]
    if not eager.samples_s or not candidates:
        return
    best = fastest(candidates)
    value, low, high = stats.ratio_interval(eager.samples_s, best.samples_s)
    session.run.speedup = Speedup(value=value, low=low, high=high, variant=best.name)
    if session.opts.sweep:
        session.run.recommendation = recommendation(session, best, [c for c in candidates if c is not best])


def recommendation(session: Session, best: TimedCallable, others: list[TimedCallable]) -> Recommendation:
    """The fastest variant, and its margin over the next fastest (the digest judges it against noise)."""
    calls = {s.name: s.torch_compile_call("model") for s in session.specs}
    plain = next((s.name for s in session.specs if (s.mode or "default") == "default"), "")
    chosen = Recommendation(
        variant=best.name, call=calls[best.name], plain_variant=plain, plain_call=calls.get(plain, "")
    )
    if others:
        runner_up = fastest(others)
        margin, low, high = stats.ratio_interval(runner_up.samples_s, best.samples_s)
        chosen.runner_up = runner_up.name
        chosen.margin, chosen.margin_low, chosen.margin_high = margin, low, high
    return chosen
