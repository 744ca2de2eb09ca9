"""A compiled DDP step profiled under torchrun with NCCL on one GPU (world size 1; ``pytest -m gpu``).

The same script as the CPU test (tests/distributed_step.py), with one GPU a rank: the lock-step, the
job and DDPOptimizer's split.  Collective kernels need two GPUs: over one rank NCCL launches none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from compile_profile import Job, ProfileRun
from job_fixtures import PROFILE_STAGES

HERE = Path(__file__).resolve().parent
LAUNCH_TIMEOUT_S = 540

pytestmark = [pytest.mark.gpu, pytest.mark.slow, pytest.mark.timeout(LAUNCH_TIMEOUT_S + 60)]


@pytest.fixture(scope="module")
def nccl_runs(tmp_path_factory):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.fail("the gpu tests need a CUDA device")
    out = tmp_path_factory.mktemp("ranks")
    env = dict(
        os.environ,
        COMPILE_PROFILE_DB=str(out / "runs.sqlite"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent / "kernel_side"), os.environ.get("PYTHONPATH")])),
    )
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        "1",
        str(HERE / "distributed_step.py"),
        str(out),
        "nccl",
    ]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the torchrun job did not finish in {LAUNCH_TIMEOUT_S} s:\n{(exc.stderr or b'')[-3000:]}")
    (out / "torchrun.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-5000:]
    return {path.stem: ProfileRun.from_json(path.read_text()) for path in sorted(out.glob("*.json"))}


def test_a_one_gpu_nccl_job_profiles_in_lock_step_and_records_its_place(nccl_runs):
    run = nccl_runs["same-rank0"]
    assert run.status == "ok" and run.device.type == "cuda"
    assert (run.distributed.rank, run.distributed.world_size, run.distributed.backend) == (0, 1, "nccl")
    stages = run.distributed.calls_by_stage
    assert list(stages) == PROFILE_STAGES
    # memory: one call per variant; then one eager run leaves the state as after an eager run, unless the state the
    # cell changes in place was put back as its first run left it (cell_state), whose values the namespace keeps
    put_back = any(n.kind == "state_put_back" for n in run.notes)
    assert run.cell_runs == sum(stages.values()) and stages["memory"] == 2
    assert stages["last eager run"] == (0 if put_back else 1), [n.kind for n in run.notes]
    digest = Job([run]).summary()
    assert digest["divergences"] == [] and digest["rows"][0]["run_id"] == run.id


def test_a_one_rank_all_reduce_launches_no_kernel_so_no_collective_time_is_made_up(nccl_runs):
    # NCCL does an in-place all-reduce over one rank without a kernel (measured on the H200: no nccl*
    # device event in either variant's profiler pass), so the collectives part must read 0, and the
    # parts still add up to the variant's kernel time.
    for variant in nccl_runs["same-rank0"].variants:
        profile = variant.kernel_profile
        assert profile.breakdown.collective_ms == 0.0, variant.name
        assert profile.breakdown.kernels_ms == pytest.approx(profile.total_ms, rel=1e-6)


def test_ddp_optimizer_s_pieces_are_reported_on_cuda_too(nccl_runs):
    (split,) = nccl_runs["same-rank0"].ddp_splits
    assert [len(bucket.params) for bucket in split.buckets] == [2, 2, 4]
    assert all(bucket.graph_id for bucket in split.buckets)
