"""A compiled DDP step profiled on both ranks of a real ``torchrun`` job (gloo, CPU).

One torchrun launch (tests/distributed_step.py) makes five jobs: one the same on every rank, one where
rank 1 breaks the graph, one where rank 1's first call raises, one where only rank 1 cannot compile, and
an FSDP2 step.  The launch is guarded by a timeout, so a lost lock-step fails the test
instead of hanging it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from compile_profile import Job, ProfileRun
from compile_profile.digest.job import job_digest
from compile_profile.digest.notes import error_message, variant_error
from compile_profile.profile_run import OTHER_RANK_FAILED
from compile_profile.store import RunStore
from job_fixtures import PROFILE_STAGES

HERE = Path(__file__).resolve().parent
COMPILED = "aot_eager"  # distributed_step.py's compiled variant on the CPU: the job's lock-step is the subject
LAUNCH_TIMEOUT_S = 600  # five profiles take 48-50 s on an idle 2-core machine; a hang would wait forever, and a
# machine kept busy beside it (browser tests) slowed one past 420 s

pytestmark = [
    pytest.mark.slow,  # two ranks in processes of their own, each compiling
    pytest.mark.timeout(LAUNCH_TIMEOUT_S + 60),
    # On torch 2.6 the 2-rank launch hung in 2 of 4 fresh-clone CI runs on 2026-12-03 (never in 7 launches
    # alone): a rank waited in the profile's lock-step exit (distributed.job: barrier, then destroy the group)
    # an hour after its partner was killed.  Not mended yet (docs/compatibility.md); it runs on 2.10 and 2.13.
    pytest.mark.skipif(
        tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) < (2, 7),
        reason="torch 2.6: the 2-rank launch can hang in the lock-step exit (docs/compatibility.md)",
    ),
]


@pytest.fixture(scope="module")
def job_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("ranks")
    env = dict(
        os.environ,
        COMPILE_PROFILE_DB=str(out / "runs.sqlite"),
        OMP_NUM_THREADS="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent / "kernel_side"), os.environ.get("PYTHONPATH")])),
        HANG_DUMP_S=str(LAUNCH_TIMEOUT_S - 30),  # each rank writes its stacks before the job is killed
    )
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        "2",
        str(HERE / "distributed_step.py"),
        str(out),
    ]
    # a session of its own, so a job that hangs is killed whole: killing torchrun alone left a rank of CI's
    # timed-out torch 2.6 launch waiting in the profile's lock-step exit for an hour afterwards
    job = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = job.communicate(timeout=LAUNCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        stdout, stderr = job.communicate()
        stacks = "".join(f"\n== {p.name}\n{p.read_text()[-4000:]}" for p in sorted(out.glob("stacks-rank*.txt")))
        pytest.fail(
            f"the torchrun job did not finish in {LAUNCH_TIMEOUT_S} s (ranks out of step?):\n"
            f"{stdout[-2000:]}\n{stderr[-3000:]}{stacks}"
        )
    done = subprocess.CompletedProcess(cmd, job.returncode, stdout, stderr)
    (out / "torchrun.log").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stderr[-5000:]
    runs = {path.stem: ProfileRun.from_json(path.read_text()) for path in sorted(out.glob("*.json"))}
    return out, runs


def test_both_ranks_write_a_run_of_one_job_with_the_same_calls_in_every_stage(job_runs):
    _, runs = job_runs
    rank0, rank1 = runs["same-rank0"], runs["same-rank1"]
    assert (rank0.distributed.rank, rank1.distributed.rank) == (0, 1)
    assert rank0.distributed.world_size == rank1.distributed.world_size == 2
    assert rank0.distributed.backend == rank1.distributed.backend == "gloo"
    assert rank0.distributed.job_id == rank1.distributed.job_id
    assert rank0.distributed.job_id != runs["divergent-rank0"].distributed.job_id  # one job per profile call
    stages = rank0.distributed.calls_by_stage
    assert list(stages) == PROFILE_STAGES
    assert stages == rank1.distributed.calls_by_stage
    assert stages["timing"] > 0 and stages["kernel pass"] > 0
    assert rank0.cell_runs == rank1.cell_runs == sum(stages.values())
    for name in ("eager", COMPILED):
        assert rank0.variant(name).timing.n == rank1.variant(name).timing.n
    assert rank0.status == rank1.status == "ok"


def test_the_float64_reference_is_left_out_of_a_distributed_step_and_says_why(job_runs):
    _, runs = job_runs
    assert runs["same-rank0"].correctness.note.kind == "reference_distributed"


def test_ddp_optimizer_s_split_is_reported_as_pieces_at_bucket_boundaries_not_as_graph_breaks(job_runs):
    _, runs = job_runs
    run = runs["same-rank0"]
    (split,) = run.ddp_splits
    # bucket_cap_mb=1, parameters counted from the last layer back: 8x512+8 and 512x512+512 floats fill the
    # first-made bucket, the next 512x512+512 the second, the first layer what is left
    assert [bucket.params for bucket in split.buckets] == [
        ["layers.0.weight", "layers.0.bias"],
        ["layers.1.weight", "layers.1.bias"],
        ["layers.2.weight", "layers.2.bias", "layers.3.weight", "layers.3.bias"],
    ]
    assert [bucket.bytes for bucket in split.buckets] == [
        4 * (512 * 64 + 512),
        4 * (512 * 512 + 512),
        4 * (512 * 512 + 512 + 8 * 512 + 8),
    ]
    assert split.bucket_cap_bytes == 1024 * 1024
    assert run.graphs and split.graph_id in {g.id for g in run.graphs if g.kind == "dynamo"}
    assert not any(b.compile_id == split.compile_id for b in run.graph_breaks)  # the split is no break
    assert "split" in str(run) and "layers.1.weight" in str(run)


def test_both_ranks_land_in_one_store_file_and_make_one_job(job_runs):
    out, runs = job_runs
    with RunStore(out / "runs.sqlite") as store:
        stored = store.job(runs["same-rank1"].distributed.job_id)
    assert [r.id for r in stored] == [runs["same-rank0"].id, runs["same-rank1"].id]
    digest = Job(stored).summary()
    assert digest["world_size"] == 2 and digest["missing_ranks"] == []
    assert digest["divergences"] == []
    assert digest["headline"].endswith("the ranks agree")


def test_a_rank_that_breaks_the_graph_where_the_other_does_not_shows_as_divergent(job_runs):
    _, runs = job_runs
    rank0, rank1 = runs["divergent-rank0"], runs["divergent-rank1"]
    assert rank0.distributed.calls_by_stage == rank1.distributed.calls_by_stage  # still in lock-step
    assert rank1.dynamo_graph_count > rank0.dynamo_graph_count
    digest = job_digest([rank0, rank1])
    rows = {row["rank"]: row for row in digest["rows"]}
    assert not rows[0]["divergent"] and rows[1]["divergent"], digest["divergences"]
    kinds = {d["what"] for d in digest["divergences"] if d["rank"] == 1}
    assert {"graphs", "breaks"} <= kinds
    assert "rank 1 diverges" in digest["headline"]
    assert any("print" in reason for reason in rows[1]["reasons"])


def test_when_one_rank_s_first_call_raises_every_rank_stops_there_and_says_which(job_runs):
    _, runs = job_runs
    rank0, rank1 = runs["failing-rank0"], runs["failing-rank1"]
    assert rank0.status == rank1.status == "failed"
    assert rank0.cell_runs == rank1.cell_runs == 1  # nobody went on to compile and wait for the other
    assert "rank 1 ran out of data" in rank1.errors[0].message
    (error,) = rank0.errors
    assert error.type == OTHER_RANK_FAILED
    assert error.message == "" and error.why.kind == "other_rank_failed" and error.why.values["ranks"] == ["1"]
    assert error_message(error).startswith("the first eager call failed on rank 1; every rank stops there")
    digest = job_digest([rank0, rank1])
    (divergence,) = digest["divergences"]
    assert divergence["rank"] == 1 and divergence["what"] == "status"
    assert divergence["text"] == (
        "failed: eager: RuntimeError: rank 1 ran out of data; the others stopped there with it"
    )


def test_a_variant_that_failed_to_compile_on_one_rank_is_timed_on_none(job_runs):
    _, runs = job_runs
    rank0, rank1 = runs["fullgraph-rank0"], runs["fullgraph-rank1"]
    assert rank1.variant(f"{COMPILED}/fullgraph").error  # its own compile error (fullgraph=True and a print)
    dropped = rank0.variant(f"{COMPILED}/fullgraph")
    assert variant_error(dropped) == "compiled here but failed on another rank; not timed"
    assert any(e.type == OTHER_RANK_FAILED and e.variant == f"{COMPILED}/fullgraph" for e in rank0.errors)
    for run in (rank0, rank1):
        assert run.variant(f"{COMPILED}/fullgraph").timing is None and run.speedup is None
    assert rank0.distributed.calls_by_stage == rank1.distributed.calls_by_stage
    (divergence,) = job_digest([rank0, rank1])["divergences"]
    assert divergence["rank"] == 1 and divergence["text"].startswith("failed: compile: Unsupported")


def test_an_fsdp2_step_runs_in_lock_step_with_its_collectives_in_both_variants_and_no_ddp_split(job_runs):
    _, runs = job_runs
    rank0, rank1 = runs["fsdp2-rank0"], runs["fsdp2-rank1"]
    assert rank0.distributed.calls_by_stage == rank1.distributed.calls_by_stage
    if rank0.errors and "'Stream' object has no attribute 'record_event'" in rank0.errors[0].message:
        # torch 2.6's FSDP2 cannot run on CPU: both ranks fail alike, in step (docs/compatibility.md)
        assert rank1.status == rank0.status == "failed" and rank0.cell_runs == rank1.cell_runs
        assert tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 8)
        return
    if rank0.errors and "modified by an inplace operation" in rank0.errors[0].message:
        # torch 2.10's compiled FSDP2 backward fails so on CPU, under a plain torch.compile of the same step
        # too (docs/compatibility.md): the compiled variant fails on both ranks, in step, so none is timed
        assert tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 13)
        for run in (rank0, rank1):
            assert run.status == "failed" and run.speedup is None and run.eager.error is None
            assert [e.variant for e in run.errors] == [COMPILED], run.errors
        return
    assert rank0.status == rank1.status == "ok", [(e.variant, e.message) for e in rank0.errors + rank1.errors]
    for run in (rank0, rank1):
        assert not run.ddp_splits
        # FSDP2's hooks run eagerly around the compiled layers: their all-gathers and reduce-scatters
        # (c10d ops on the host) are collective time in eager and compiled alike
        for variant in run.variants:
            assert variant.kernel_profile.breakdown.collective_ms > 0, variant.name
        assert run.correctness.ok is True, run.correctness  # each run from the same weights


ONLY_RANK_0_PROFILES = """
import sys, time, torch, torch.distributed as dist
import compile_profile
dist.init_process_group("gloo")
if dist.get_rank() == 0:
    try:
        compile_profile.profile(lambda x: x.relu(), torch.randn(8, 8), budget=0.2)
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}", flush=True)
        sys.exit(3)
else:
    time.sleep(8)  # never calls profile
"""


def test_a_profile_called_on_one_rank_only_ends_in_a_message_that_says_so_not_a_hang(tmp_path):
    script = tmp_path / "only_rank_0.py"
    script.write_text(ONLY_RANK_0_PROFILES)
    env = dict(
        os.environ,
        COMPILE_PROFILE_DIST_TIMEOUT="3",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent / "kernel_side"), os.environ.get("PYTHONPATH")])),
    )
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert (
        "RanksOutOfStep: rank 0 waited more than 3 s (COMPILE_PROFILE_DIST_TIMEOUT) for the other ranks to start "
        "the profile: call compile_profile.profile on every rank of the job"
    ) in done.stdout
