"""The breakdown's verdict where the profiler pass distorted what it measured (``digest.breakdown``)."""

from __future__ import annotations

from compile_profile.digest import summarize
from compile_profile.digest.breakdown import PROFILER_INFLATION, breakdown, clamp_warning, verdict
from render_fixtures import cpu_run


def test_a_host_time_breakdown_whose_profiled_calls_ran_much_slower_says_so_and_not_where_the_time_went():
    run = cpu_run()
    eager = run.eager
    # a T5 training step: 4,869 ops a call, each paying the profiler's cost in its host time
    eager.kernel_profile.profiled_call_ms = 1.54 * eager.timing.median_ms
    rows = {r.variant: r for r in breakdown(run)}
    assert rows["eager"].inflated and not rows["inductor/default"].inflated
    said = verdict(run)
    assert "the profiler pass cannot say where" in said and "eager's profiled call" in said
    warning = clamp_warning(run)
    assert warning and "eager 1.54×" in warning and "reads too small" in warning
    assert warning in summarize(run)["warnings"]


def test_a_profiled_call_a_little_slower_than_the_timed_one_leaves_the_verdict_as_it_was():
    run = cpu_run()
    before = verdict(run)
    for v in run.variants:
        v.kernel_profile.profiled_call_ms = (PROFILER_INFLATION - 0.1) * v.timing.median_ms
    assert verdict(run) == before and "cannot say where" not in before
    assert clamp_warning(run) is None
