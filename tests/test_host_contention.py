"""Host contention as a cause (``digest.contention``, ``engine.timing.threads_trial``; issue 31): torch's threads against
the cores other processes left free, ranked first in the diagnosis with its measured effect and the fix that
applies, never a fix already done; the rule on recorded facts, then live beside spinning processes."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest import summarize
from compile_profile.digest.contention import advice, contention
from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from compile_profile.digest.format import format_ms
from compile_profile.digest.noise import noise_text
from compile_profile.profile_run import HostLoad, ThreadsTrial
from render_fixtures import cpu_run

# measures the host or times against an independent measurement: no other test beside it
pytestmark = pytest.mark.alone

SPIN_S = 120.0  # each spinning process stops by itself after this, whatever becomes of the test


def _spin(seconds: float) -> None:
    t = time.time()
    while time.time() - t < seconds:
        pass


@contextlib.contextmanager
def spinning(n: int):
    """``n`` processes spinning on the CPU (``multiprocessing``; forked: they run pure Python, nothing of torch's),
    each bounded by ``SPIN_S``, killed when the block ends, on error too."""
    procs = [multiprocessing.get_context("fork").Process(target=_spin, args=(SPIN_S,), daemon=True) for _ in range(n)]
    try:
        for p in procs:
            p.start()
        time.sleep(0.5)  # let them start
        yield procs
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join()


@contextlib.contextmanager
def torch_threads(n: int):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _oversubscribed(run, *, others=1.6, threads=8, eager_ms=0.0545):
    """``run`` as a 32x128 MLP read at 8 threads beside two spinning processes on 2 cores (eager's timed median
    is cpu_run's 9.6 ms: the trial's 54.5 µs at 1 thread against it)."""
    run.host_load = HostLoad(other_processes_cores=others, cores=2, threads=threads)
    run.threads_trial = ThreadsTrial(threads=1, user_threads=threads, eager_ms=eager_ms, samples=5)
    return run


def test_more_threads_than_free_cores_is_the_first_cause_with_its_measured_effect_and_the_thread_count_to_set():
    run = _oversubscribed(cpu_run())
    causes = diagnosis(run)
    first = causes[0]
    assert first.kind == "host_contention", [cause_text(c) for c in causes]
    # first although other per-call causes cost more: they were measured on calls contention slowed
    eager = run.eager.timing.median_ms
    assert first.cost_ms == pytest.approx(eager - 0.0545)
    assert first.cost_text == f"{format_ms(eager - 0.0545)} a call ({(eager - 0.0545) / eager:.0%} of eager's call)"
    assert first.title == (
        "torch runs 8 threads on 1 free core (other processes kept 1.6 of the 2 cores busy while timing): eager "
        f"took 54.5 µs at 1 thread, {format_ms(eager)} at 8"
    )
    assert first.action.startswith(
        "torch.set_num_threads(1) before the cell (a suite's entry: in its builder, or OMP_NUM_THREADS=1 in the "
        "suite's environment), then profile again"
    )
    # the card shows it (its first causes are the digest's first) and the warning names the same fix
    assert summarize(run)["diagnosis"][0]["kind"] == "host_contention"
    assert noise_text(run).endswith("re-run on an idle machine, or give torch fewer threads: torch.set_num_threads(1)")


def test_the_thread_count_to_set_is_the_free_cores():
    run = _oversubscribed(cpu_run(), others=0.0, threads=8)
    run.host_load.cores = 4
    run.threads_trial.threads = 4
    assert run.host_load.free_cores == 4
    assert diagnosis(run)[0].action.startswith("torch.set_num_threads(4) ")


def test_fewer_threads_that_timed_no_faster_is_no_cause():
    run = _oversubscribed(cpu_run())
    run.threads_trial.eager_ms = 0.97 * run.eager.timing.median_ms  # 3 %: within two busy medians' noise
    assert contention(run) is None
    assert "host_contention" not in {c.kind for c in diagnosis(run)}


def _preempted_samples(timing, share: float):
    """Every ``1/share``-th sample of ``timing`` waited for a CPU and ran 3x as long."""
    every = round(1 / share)
    timing.waited_ms = [2.0 * s if i % every == 0 else 0.0 for i, s in enumerate(timing.samples_ms)]
    timing.samples_ms = [3.0 * s if i % every == 0 else s for i, s in enumerate(timing.samples_ms)]
    timing.median_ms = sorted(timing.samples_ms)[len(timing.samples_ms) // 2]
    timing.n = len(timing.samples_ms)


def test_with_one_thread_already_set_the_fix_is_a_rerun_and_fewer_threads_is_said_nowhere():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=1.7, cores=2, threads=1)
    _preempted_samples(run.variant("inductor/default").timing, share=0.5)
    c = contention(run)
    assert c is not None and c.measured_on == "compiled"
    first = diagnosis(run)[0]
    assert first.kind == "host_contention", first
    assert first.title.startswith(
        "other processes kept 1.7 of the 2 cores busy while timing: 10 of 20 compiled samples waited for a CPU"
    )
    assert first.action == "re-run on an idle machine (torch already runs 1 thread, no more than the free cores)"
    said = [noise_text(run), *(cause_text(c) for c in diagnosis(run)), *summarize(run)["warnings"]]
    assert not any("set_num_threads" in s or "fewer threads" in s for s in said), said
    assert advice(run) == "re-run on an idle machine"


def test_eagers_waits_are_the_cause_where_only_they_moved_the_speedup():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=1.6, cores=2, threads=1)
    _preempted_samples(run.eager.timing, share=0.5)  # a Llama's eager: 5.29 ms, 1.37 ms over those that did not wait
    (cause,) = [c for c in diagnosis(run) if c.kind == "host_contention"]
    assert cause.title.startswith("other processes kept 1.6 of the 2 cores busy while timing: 10 of 20 eager samples")
    assert cause.cost_text.endswith("of eager's call)") and cause.action.startswith("re-run on an idle machine")


def test_an_idle_machine_names_no_contention():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=0.1, cores=2, threads=1)
    _preempted_samples(run.variant("inductor/default").timing, share=0.5)  # our own threads' waits, say
    assert contention(run) is None and not noise_text(run).startswith("timings are unreliable: other processes")


@pytest.mark.compiles
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat and schedstat are Linux's")
def test_an_mlp_at_8_threads_beside_two_spinning_processes_ranks_threads_first_with_the_right_fix():
    torch.manual_seed(0)
    ns = {
        "torch": torch,
        "model": torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128)),
        "x": torch.randn(32, 128),
    }
    cores = len(os.sched_getaffinity(0))
    with torch_threads(8), spinning(cores) as spinners:
        # the host load, eager's threads trial and the ranking are the subject, not a compiler: aot_eager, --quick
        run = run_cell("with torch.no_grad():\n    y = model(x)\n", ns, quick=True, backend="aot_eager").run
        assert all(p.is_alive() for p in spinners)  # the machine was busy for the whole profile
        assert torch.get_num_threads() == 8  # the trial set torch's threads back as the cell ran them
    assert run.status == "ok" and not run.errors, run.errors
    load, trial = run.host_load, run.threads_trial
    causes = diagnosis(run)
    said = f"{load}, {trial}: {[cause_text(c) for c in causes]}"
    print(said)  # shown with -rA: the figures behind the ranking
    assert load is not None and load.threads == 8 and trial is not None and trial.threads == load.free_cores, said
    first = causes[0]
    assert first.kind == "host_contention", said
    assert first.action.startswith(f"torch.set_num_threads({load.free_cores}) before the cell"), said
    assert trial.eager_ms < run.eager.timing.median_ms, said


@pytest.mark.compiles
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat and schedstat are Linux's")
def test_at_one_thread_the_heading_does_not_deny_a_breakdown_it_shows():
    """The kernel pass is the subject: no ``quick``.  On an idle core (no other process busy while timing, no
    profiled call preempted) the heading says nothing is unmeasured and every row is times; on a machine other
    helpers keep busy the pass may be withheld, and then the heading says why and every row is shares."""
    torch.manual_seed(0)
    ns = {
        "torch": torch,
        "model": torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128)),
        "x": torch.randn(32, 128),
    }
    with torch_threads(1):
        run = run_cell("with torch.no_grad():\n    y = model(x)\n", ns).run
    assert run.status == "ok" and not run.errors, run.errors
    digest = summarize(run)
    heading, rows = diagnosis_heading(run), digest["breakdown"]
    profiles = {v.name: v.kernel_profile for v in run.variants}
    said = (
        f"{run.host_load}; "
        + "; ".join(
            f"{n}: call {v.timing.median_ms * 1e3:.1f} µs, kernels {p.breakdown.kernels_ms * 1e3:.1f} µs, profiler cost "
            f"{(p.profiler_cost_ms or 0) * 1e3:.1f} µs ({p.event_cost_us} µs an op), profiled call "
            f"{(p.profiled_call_ms or 0) * 1e3:.1f} µs, preempted {p.preempted_calls}/{p.calls}"
            for n, p in profiles.items()
            for v in [run.variant(n)]
        )
        + f"; heading: {heading}"
    )
    print(said)
    assert all(p.event_cost_us is not None and p.profiler_cost_ms is not None for p in profiles.values()), said
    assert len(rows) == 2, said
    denied = "where each call's time goes is not measured" in heading
    # the heading and the tables agree, whatever the machine did
    assert denied == (not all(r["trusted"] for r in rows)), said
    for r in rows:
        shares = [t for k, t in r["texts"].items() if k not in ("call", "outside")]
        assert all(t.endswith("of pass") for t in shares) == (not r["trusted"]), said
    idle = run.host_load is not None and run.host_load.other_processes_cores < 0.5
    if idle and not any(p.preempted_calls for p in profiles.values()):
        assert not denied, said
