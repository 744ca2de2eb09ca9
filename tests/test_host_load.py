"""Other processes' CPU use while timing (``engine.host_load``) and the warning it earns (``digest.summary``)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from render_fixtures import cpu_run

from compile_profile.digest.summary import contention_warning, warnings
from compile_profile.engine import host_load
from compile_profile.profile_run import HostLoad, ProfileRun


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat is Linux's")
def test_a_busy_process_beside_us_is_counted_and_our_own_work_is_not():
    # against what the machine's background used meanwhile (another session's job on a shared machine)
    def load_while(work) -> float:
        stop = host_load.measure(threads=1)
        work()
        measured = stop()
        assert measured is not None
        return measured.other_processes_cores

    def spin():
        deadline = time.perf_counter() + 0.8
        while time.perf_counter() < deadline:
            pass

    idle = load_while(lambda: time.sleep(0.8))
    assert load_while(spin) < idle + 0.5, "our own busy thread is not another process"
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 4: pass"])
    try:
        time.sleep(0.5)  # let it start
        busy = load_while(lambda: time.sleep(1.0))
    finally:
        spinner.kill()
    assert busy > load_while(lambda: time.sleep(0.8)) + 0.5, "a process spinning beside us is about one core"


def test_an_oversubscribed_cpu_is_warned_of_and_a_spare_core_is_not():
    run = cpu_run()
    run.host_load = HostLoad(other_processes_cores=1.0, cores=2, threads=2)
    said = contention_warning(run)
    assert said and said.startswith("other processes kept 1.0 of the 2 cores busy while timing, beside torch's 2 "
                                    "threads: the CPU was oversubscribed")
    assert said in warnings(run)
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/stat is Linux's")
def test_a_cpu_profile_records_the_load_beside_its_timed_rounds_with_torchs_threads():
    import torch
    from cell_runs import FAST, run_cell

    run = run_cell("y = (x * 2).sum()\n", {"torch": torch, "x": torch.ones(64)}, **FAST).run
    assert run.host_load is not None and run.host_load.threads == torch.get_num_threads()
    assert run.host_load.cores == host_load.cores() and run.host_load.other_processes_cores >= 0
