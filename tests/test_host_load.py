"""Other processes' CPU use while timing (``engine.timing.host_load``) and the warning it earns (``digest.summary``)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from compile_profile.digest.noise import contention_warning, noise_text
from compile_profile.digest.summary import warnings
from compile_profile.engine.timing import host_load
from compile_profile.profile_run import HostLoad, ProfileRun
from render_fixtures import cpu_run

# measures the host or times against an independent measurement: no other test beside it
pytestmark = pytest.mark.alone


def _cpu_s_of(pid: int) -> float:
    """A process's own CPU time from /proc/<pid>/stat (utime + stime): the reference beside /proc/stat."""
    import os

    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat is Linux's")
def test_a_process_spinning_beside_us_is_counted_at_least_as_its_own_cpu_time_says():
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 5: pass"])
    try:
        time.sleep(0.5)  # let it start
        before, wall0 = _cpu_s_of(spinner.pid), time.perf_counter()
        stop = host_load.measure(threads=1)
        time.sleep(1.0)
        measured = stop()
        spun = (_cpu_s_of(spinner.pid) - before) / (time.perf_counter() - wall0)
    finally:
        spinner.kill()
    assert measured is not None and spun > 0.2, (measured, spun)  # it ran, however busy the machine
    # the rest of the machine may add to it, never take from it (a tick of rounding either way)
    assert measured.other_processes_cores >= spun - 0.05, (measured, spun)


def test_the_profiles_own_cpu_time_is_not_another_processs(monkeypatch):
    # 2 s of wall time in which the machine was busy 3.5 core-seconds, 1.5 of them this process's own
    clock = iter([10.0, 12.0])
    busy = iter([100.0, 103.5])
    own = iter([5.0, 6.5])
    monkeypatch.setattr(host_load.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(host_load, "_busy_s", lambda: next(busy))
    monkeypatch.setattr(host_load, "_own_s", lambda: next(own))
    measured = host_load.measure(threads=2)()
    assert measured.other_processes_cores == 1.0 and measured.threads == 2


def test_an_oversubscribed_cpu_is_warned_of_and_a_spare_core_is_not():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=1.0, cores=2, threads=2)
    said = contention_warning(run)
    assert said and said.startswith(
        "other processes kept 1.0 of the 2 cores busy while timing, beside torch's 2 "
        "threads: the CPU was oversubscribed"
    )
    # said once, with every other sign of noise, in one line that says what to do (issue 23)
    (noise,) = [w for w in warnings(run) if said in w]
    assert noise == noise_text(run) and noise.startswith("timings are unreliable: other processes kept 1.0")
    # 2 threads on the 1 core the others left: the fix names the count
    assert noise.endswith("re-run on an idle machine, or give torch fewer threads: torch.set_num_threads(1)")
    assert "554 ms" not in noise, "no figure from the README presented as the user's"
    run.host_load = HostLoad(other_processes_cores=1.0, cores=8, threads=2)  # room to spare
    assert contention_warning(run) is None
    run.host_load = HostLoad(other_processes_cores=0.3, cores=2, threads=2)  # background noise
    assert contention_warning(run) is None
    run.host_load = None  # not measured (not Linux, or a run stored before)
    assert contention_warning(run) is None


def test_the_host_load_survives_the_json_round_trip():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=1.25, cores=2, threads=2)
    assert ProfileRun.from_json(run.to_json()).host_load == run.host_load


@pytest.mark.compiles
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat is Linux's")
def test_a_cpu_profile_records_the_load_beside_its_timed_rounds_with_torchs_threads():
    import torch
    from cell_runs import run_cell
    from profile_options import CHEAP

    run = run_cell("y = (x * 2).sum()\n", {"torch": torch, "x": torch.ones(64)}, **CHEAP).run
    assert run.host_load is not None and run.host_load.threads == torch.get_num_threads()
    assert run.host_load.cores == host_load.cores() and run.host_load.other_processes_cores >= 0
