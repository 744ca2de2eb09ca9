"""``compile_profile.launch``: a torchrun job started from Python (as from a notebook), its output streamed,
its jobs returned from the run store; a failing rank and a timeout raise errors that say what happened.

The job is tests/launch_step.py: a tiny DDP MLP on gloo, two jobs, rank 1 divergent in the second; it
compiles in the suite's shared Inductor cache ($TORCHINDUCTOR_CACHE_DIR, passed on to the ranks).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import compile_profile
import pytest
from compile_profile.launch import LaunchError, LaunchTimeout
from compile_profile.profile_run import ProfileRun
from compile_profile.store import RunStore
from job_fixtures import job_runs

HERE = Path(__file__).resolve().parent
LAUNCH_TIMEOUT_S = 300  # two profiles of a tiny MLP on 2 cores take ~30 s
ENV = {
    "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent / "kernel_side"), os.environ.get("PYTHONPATH")])),
    "OMP_NUM_THREADS": "1",
}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(LAUNCH_TIMEOUT_S + 60)]  # torchrun jobs: processes of their own


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    out = tmp_path_factory.mktemp("launch")
    db = out / "runs.sqlite"
    earlier = job_runs(job_id="earlier0job")  # a job already in the store: not one the launch made
    for run in earlier:
        run.created_at = ProfileRun.now()
    with RunStore(db) as store:
        for run in earlier:
            store.put(run)
    with pytest.MonkeyPatch.context() as mp:
        captured = []
        mp.setattr("sys.stdout", _Tee(captured))
        jobs = compile_profile.launch(HERE / "launch_step.py", nproc=2, db=db, timeout=LAUNCH_TIMEOUT_S, env=ENV)
    return out, db, jobs, "".join(captured)


class _Tee:
    def __init__(self, sink: list[str]):
        self.sink = sink

    def write(self, text: str) -> int:
        self.sink.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_launch_returns_the_jobs_its_ranks_saved_oldest_first(launched):
    _, db, jobs, _ = launched
    assert [[r.distributed.rank for r in job.runs] for job in jobs] == [[0, 1], [0, 1]]
    assert [job.runs[0].label for job in jobs] == ["same", "divergent"]
    assert "earlier0job" not in {job.job_id for job in jobs}
    with RunStore(db) as store:
        assert store.count(job=jobs[-1].job_id) == 2  # in the store the panel reads
    assert jobs[0].summary()["divergences"] == []


def test_the_last_job_s_view_flags_the_divergent_rank(launched):
    _, _, jobs, _ = launched
    digest = jobs[-1].summary()
    assert "rank 1 diverges" in digest["headline"]
    html = jobs[-1]._repr_html_()
    assert "cp-divergent" in html


def test_the_ranks_output_is_streamed_with_their_rank(launched):
    _, _, _, printed = launched
    assert "[default1]:rank 1 loss" in printed
    assert "[default0]:rank 1 loss" not in printed


def test_a_failing_rank_is_named_with_its_exit_code_and_its_last_lines(tmp_path, capsys):
    script = tmp_path / "fails.py"
    script.write_text(
        "import os, sys\nrank = int(os.environ['RANK'])\nprint('working on rank', rank)\n"
        "if rank == 1:\n    print('giving up', file=sys.stderr)\n    sys.exit(3)\n"
    )
    with pytest.raises(LaunchError) as err:
        compile_profile.launch(script, db=tmp_path / "runs.sqlite", timeout=120)
    assert err.value.rank == 1 and err.value.exit_code == 3
    message = str(err.value)
    assert message.startswith("rank 1 failed with exit code 3.")
    assert "working on rank 1" in message and "giving up" in message
    assert "working on rank 0" not in message  # another rank's lines are not this rank's tail
    assert "working on rank 0" in err.value.output  # nothing lost
    assert "[default1]:giving up" in capsys.readouterr().out  # streamed as it came


def test_a_timeout_kills_the_whole_process_group_and_says_so(tmp_path):
    script = tmp_path / "hangs.py"
    pids = tmp_path / "pids"
    pids.mkdir()
    script.write_text(
        "import os, sys, time\n"
        f"open(os.path.join({str(pids)!r}, os.environ['RANK']), 'w').write(str(os.getpid()))\n"
        "print('waiting forever', flush=True)\ntime.sleep(600)\n"
    )
    started = time.monotonic()
    with pytest.raises(LaunchTimeout) as err:
        compile_profile.launch(script, db=tmp_path / "runs.sqlite", timeout=15)
    assert time.monotonic() - started < 60
    assert "did not finish in 15 s" in str(err.value) and "killed" in str(err.value)
    ranks = sorted(pids.iterdir())
    assert [p.name for p in ranks] == ["0", "1"], "both ranks had started"
    for path in ranks:
        assert not _alive(int(path.read_text()))


def _alive(pid: int, wait_s: float = 10.0) -> bool:
    """Whether ``pid`` still runs after ``wait_s`` (a zombie waiting for its reaper has ended)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state == "Z":
            return False
        time.sleep(0.2)
    return True
