"""A speedup that other processes' load set is no verdict (``digest.outcome``'s ``busy_cpu`` rung,
``digest.contention.speedup_unsettled``): the card, the headline, the badge and the suite lead with the busy CPU and
mark the speedup not meaningful, on recorded facts, no torch compile.  A hand-written attention step at L=128 read
"4.03× faster: 31.8 ms → 7.9 ms" with torch at 2 threads beside a process holding one of the 2 cores, while eager
took 494 µs at 1 thread; idle, that step is 1.09× slower compiled (docs/suite.md)."""

from __future__ import annotations

import pytest
from compile_profile.digest.contention import quiet_speedup
from compile_profile.digest.outcome import outcome
from compile_profile.digest.summary import headline, summarize
from compile_profile.profile_run import Correctness, HostLoad, ThreadsTrial
from compile_profile.suites import charts
from compile_profile.suites.digest import STATUSES, suite_digest
from compile_profile.suites.records import SuiteRecord
from render_fixtures import cpu_run
from suite_fixtures import _outcome, _run, _settings


def _matching(run):
    run.correctness = Correctness(ok=True, max_abs_diff=1e-7, compared=["y"])
    return run


def _oversubscribed(run, *, eager_at_free_ms: float):
    """torch at 2 threads beside a process that kept 1.0 of the 2 cores busy; the trial timed eager at 1 thread."""
    run.host_load = HostLoad(other_processes_cores=1.0, cores=2, threads=2)
    run.threads_trial = ThreadsTrial(threads=1, user_threads=2, eager_ms=eager_at_free_ms, samples=5)
    return run


def _waited(run, name: str, every: int, slower: float):
    """Every ``every``-th sample of ``run``'s variant ``name`` waited for a CPU and ran ``slower`` times as long; the
    speedup is the medians' ratio again, its interval as wide as before."""
    timing = next(v for v in run.variants if v.name == name).timing
    timing.waited_ms = [(slower - 1) * s if i % every == 0 else 0.0 for i, s in enumerate(timing.samples_ms)]
    timing.samples_ms = [slower * s if i % every == 0 else s for i, s in enumerate(timing.samples_ms)]
    timing.median_ms = sorted(timing.samples_ms)[len(timing.samples_ms) // 2]
    s = run.speedup
    value = run.eager.timing.median_ms / run.speedup_variant.timing.median_ms
    s.low, s.high, s.value = s.low * value / s.value, s.high * value / s.value, value


def test_more_threads_than_free_cores_leads_with_the_busy_cpu_and_the_speedup_is_not_meaningful():
    run = _oversubscribed(_matching(cpu_run()), eager_at_free_ms=0.494)
    verdict = outcome(run)
    assert verdict.kind == "busy_cpu"
    assert verdict.text.startswith(
        "busy CPU: torch runs 2 threads on 1 free core (other processes kept 1.0 of the 2 cores busy "
        "while timing): eager took 494 µs at 1 thread"
    )
    assert verdict.text.endswith("31.8 ms at 2; profile again after torch.set_num_threads(1)") or verdict.text.endswith(
        "at 2; profile again after torch.set_num_threads(1)"
    )
    s = summarize(run)
    assert s["outcome"]["label"] == "busy CPU" and not s["outcome"]["speedup_meaningful"]
    assert s["outcome"]["speedup_text"].endswith("— not meaningful: measured on a busy CPU")
    assert headline(run).startswith(verdict.text + "; inductor/default ")
    assert "(not meaningful)" in headline(run)
    assert s["verdict"] is None  # no "compiled is faster, but ..." beneath it


def test_beneath_a_busy_cpu_no_per_call_cause_payback_or_overhead_warning_is_read_off_the_slowed_calls():
    from compile_profile.digest.diagnosis import diagnosis
    from compile_profile.digest.payback import payback

    idle = _matching(cpu_run())
    assert [c.kind for c in diagnosis(idle) if c.cost_ms] == ["outside_kernels"]  # what the pass reads idle
    run = _oversubscribed(_matching(cpu_run()), eager_at_free_ms=0.494)
    causes = diagnosis(run)
    assert [c.kind for c in causes if c.cost_ms] == ["host_contention"], [c.title for c in causes]
    compile_cause = next(c for c in causes if c.kind == "compile")
    assert compile_cause.cost_text.endswith("its payback is not judged: the speedup was measured on a busy CPU")
    back = payback(run)
    assert back is not None and back.calls is None
    assert back.text == "no payback judged: the speedup was measured on a busy CPU"
    said = summarize(run)["warnings"]
    assert not any("outside the kernels (Python, guards, launches)" in w for w in said), said


def test_a_thread_trial_that_timed_eager_no_faster_leaves_the_verdict_to_the_speedup():
    run = _matching(cpu_run())
    _oversubscribed(run, eager_at_free_ms=0.97 * run.eager.timing.median_ms)  # 3 %: a busy median's noise
    assert outcome(run).kind in ("faster", "slower", "not_measurable")


def test_waits_that_moved_only_eager_lead_with_the_busy_cpu_and_the_speedup_over_the_samples_that_did_not_wait():
    run = _matching(cpu_run())
    run.host_load = HostLoad(other_processes_cores=1.6, cores=2, threads=1)
    _waited(run, "eager", every=2, slower=4.0)  # a Llama's eager: 5.29 ms, 1.37 ms over the samples that did not wait
    quiet = quiet_speedup(run)
    assert quiet is not None and quiet < 0.9 * run.speedup.value  # eager's quiet samples: a smaller speedup
    verdict = outcome(run)
    assert verdict.kind == "busy_cpu", verdict.text
    assert "eager samples waited for a CPU" in verdict.text
    assert "over the samples that did not wait compiled is" in verdict.text
    assert verdict.text.endswith("; re-run on an idle machine")


def test_waits_that_moved_both_sides_alike_leave_the_speedup_standing():
    run = _matching(cpu_run())
    run.host_load = HostLoad(other_processes_cores=1.6, cores=2, threads=1)
    for v in list(run.variants):
        _waited(run, v.name, every=2, slower=3.0)
    quiet = quiet_speedup(run)
    assert quiet is not None
    # the medians over the samples that did not wait give the speedup the timed medians gave, within a tenth
    assert quiet == pytest.approx(run.eager.timing.median_ms / run.speedup_variant.timing.median_ms, rel=0.1)
    assert outcome(run).kind != "busy_cpu"


def test_results_that_differ_still_come_before_a_busy_cpu():
    run = _oversubscribed(cpu_run(), eager_at_free_ms=0.494)  # cpu_run's y differs from eager's
    assert outcome(run).kind == "results_differ"


def test_a_suite_entry_measured_on_a_busy_cpu_passes_but_its_speedup_leaves_the_geomean_and_the_flags():
    busy = _oversubscribed(_run("r-busy", 31.8, 50.0), eager_at_free_ms=0.494)  # 0.64x, slower beyond its interval
    idle = _run("r-idle", 4.0, 2.0)
    record = SuiteRecord(
        id="suite0000002",
        created_at="2026-12-06T03:00:00+00:00",
        settings=_settings(["busy", "idle"]),
        torch_version="2.13.0+cpu",
        device="cpu",
        host="test",
        outcomes=[_outcome("busy", run_id="r-busy"), _outcome("idle", run_id="r-idle")],
    )
    digest = suite_digest(record, {"r-busy": busy, "r-idle": idle})
    rows = {r.name: r for r in digest.rows}
    assert rows["busy"].status == "pass" and not rows["busy"].speedup_meaningful
    assert rows["busy"].speedup_caveat == "busy CPU" and rows["busy"].flags == []
    assert rows["busy"].speedup_text.endswith("not meaningful: measured on a busy CPU")
    assert digest.summary.pass_rate == 1.0
    assert digest.summary.geomean_speedup == pytest.approx(2.0, rel=0.05)  # the idle entry's alone
    assert digest.summary.geomean_text.endswith(
        "(geometric mean over the one that passes; left out: 1 that passes whose speedup is not meaningful (busy CPU))"
    )
    labels = charts.speedup_figure(digest)["data"][0]["text"]
    assert any(label.endswith("(busy CPU)") for label in labels), labels
    assert rows["busy"].colour != rows["idle"].colour and rows["idle"].colour == STATUSES["pass"].colour

    assert digest.headline == "2 of 2 entries pass (100%); compiled is " + digest.summary.geomean_text.removeprefix(
        "compiled is "
    )
    two_busy = _oversubscribed(_run("r-busy2", 31.8, 50.0), eager_at_free_ms=0.494)
    more = SuiteRecord(
        **{**record.__dict__, "outcomes": [*record.outcomes, _outcome("busy2", run_id="r-busy2")], "id": "s4"}
    )
    more.settings = _settings(["busy", "idle", "busy2"])
    mostly_busy = suite_digest(more, {"r-busy": busy, "r-idle": idle, "r-busy2": two_busy})
    assert mostly_busy.summary.geomean_speedup == pytest.approx(2.0, rel=0.05)
    assert mostly_busy.headline.startswith(  # most passes left out: that leads, not one entry's speedup
        "3 of 3 entries pass (100%); 2 of the 3 passing entries' speedups are not meaningful (busy CPU), so the "
        "geometric mean rests on the one left: compiled is 2."
    )

    alone = SuiteRecord(**{**record.__dict__, "outcomes": [record.outcomes[0]], "id": "suite0000003"})
    only_busy = suite_digest(alone, {"r-busy": busy})
    assert only_busy.summary.geomean_speedup is None
    assert only_busy.summary.geomean_text == "no geometric mean: no passing entry's speedup is meaningful (busy CPU)"
    assert only_busy.headline == "1 of 1 entry pass (100%); " + only_busy.summary.geomean_text
