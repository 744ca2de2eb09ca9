"""The breakdown where the profiler pass distorted what it measured (``digest.breakdown``, ``digest.kernel_times``):
a row is measured (times, and a heading that says where the time goes) or withheld (shares everywhere, and a
heading that says why), never both."""

from __future__ import annotations

from compile_profile.digest import summarize
from compile_profile.digest.breakdown import breakdown, clamp_warning, verdict
from compile_profile.digest.diagnosis import diagnosis, diagnosis_heading
from compile_profile.digest.kernel_times import PROFILER_INFLATION, pass_judgment
from compile_profile.render.text import render_text
from render_fixtures import cpu_run


def _calibrated(run, cost_ms: float = 0.05):
    """``run`` as a pass that measured the profiler's cost per op and took it out (``engine.kernels.profiler_cost``)."""
    for v in run.variants:
        v.kernel_profile.event_cost_us, v.kernel_profile.profiler_cost_ms = 0.25, cost_ms
    return run


def test_an_uncalibrated_pass_whose_profiled_call_ran_much_slower_is_withheld_in_every_view():
    run = cpu_run()  # a run stored before the profiler's cost was calibrated
    eager = run.eager
    # a T5 training step: 4,869 ops a call, each paying the profiler's cost in its host time
    eager.kernel_profile.profiled_call_ms = 1.54 * eager.timing.median_ms
    rows = {r.variant: r for r in breakdown(run)}
    assert not rows["eager"].trusted and rows["inductor/default"].trusted
    # the row shows shares, the heading says why, and no per-call cause stands on the pass
    assert all(rows["eager"].part_text(k).endswith("of pass") for k in ("library", "aten"))
    assert rows["eager"].part_text("outside") == "—"
    heading = diagnosis_heading(run)
    assert "not measured: eager's profiler pass is withheld: a profiled call ran 1.54× the timed one" in heading
    assert [c.cost_ms for c in diagnosis(run)] == [None] * len(diagnosis(run))
    said = verdict(run)
    assert "the profiler pass cannot say where" in said and "eager's profiled call ran 1.54× the timed one" in said
    assert clamp_warning(run) is None
    assert pass_judgment(eager).text in summarize(run)["warnings"]
    # nothing shows the withheld pass's kernel time as a time: 8.25 ms of eager kernels
    assert "8.25 ms" not in render_text(run)


def test_a_calibrated_pass_is_not_withheld_for_its_profiled_calls_wall_time():
    """The profiled call's wall time holds the line marks' Python between ops, which no op's host time holds: a
    32x128 MLP read "the profiled call took 958 µs against 440 µs timed" in a heading that denied the table."""
    run = _calibrated(cpu_run())
    for v in run.variants:
        v.kernel_profile.profiled_call_ms = 5 * v.timing.median_ms
    assert all(r.trusted for r in breakdown(run))
    assert "not measured" not in diagnosis_heading(run)
    assert "cannot say where" not in verdict(run)


def test_a_profiled_call_a_little_slower_than_the_timed_one_leaves_the_verdict_as_it_was():
    run = cpu_run()
    before = verdict(run)
    for v in run.variants:
        v.kernel_profile.profiled_call_ms = (PROFILER_INFLATION - 0.1) * v.timing.median_ms
    assert verdict(run) == before and "cannot say where" not in before
    assert clamp_warning(run) is None


def test_a_calibrated_pass_is_held_to_the_timed_call_by_30_percent_and_its_measured_cost():
    run = _calibrated(cpu_run(), cost_ms=0.05)
    compiled = run.variant("inductor/default")
    call = compiled.timing.median_ms  # ~10.1 ms; its samples spread ±0.9 ms
    b = compiled.kernel_profile.breakdown
    b.generated_ms += 1.25 * call - b.kernels_ms  # kernels read 1.25x the call: within 30 % and the cost
    assert pass_judgment(compiled).trusted
    b.generated_ms += 0.1 * call  # 1.35x: beyond them
    judged = pass_judgment(compiled)
    assert not judged.trusted, judged
    assert "its kernels read 1.35× the timed call, beyond the timer's noise and the profiler's measured cost" in (
        judged.text
    )
    # the reason says the pass's kernel time as a multiple, never as a time
    assert "13.6 ms" not in judged.text and "ms" not in judged.text.split("withheld:")[1]
    cpu = cpu_run()  # the same kernels, uncalibrated: 30 % with no cost added, withheld too
    cpu.variant("inductor/default").kernel_profile.breakdown = b
    assert not pass_judgment(cpu.variant("inductor/default")).trusted
