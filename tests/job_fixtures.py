"""Synthetic runs of one distributed job, one per rank, built from ``render_fixtures.cpu_run`` (no torch.compile,
no process group): each rank a copy of the same run with its ``DistributedRank``; the tests then make one
rank diverge (more graphs, another break, a recompile, a slow compile, a broken lock-step, a failure).
"""

from __future__ import annotations

import copy

from compile_profile.profile_run import DdpBucket, DdpSplit, DistributedRank, Graph, GraphBreak, ProfileRun, Recompile
from compile_profile.store import RunStore
from render_fixtures import GRAPH_CODE, cpu_run

JOB_ID = "job0a1b2c3d4"
CALLS = {"first call": 1, "warm-up": 3, "timing": 40, "check": 2}
# the stages a profile's calls are counted by on every rank (DistributedRank.calls_by_stage), in order; the last
# is the eager run whose values the namespace keeps, from the first run's random state
PROFILE_STAGES = ["first calls", "warm-up", "timing", "correctness", "memory", "kernel pass", "last eager run"]


def rank_run(rank: int, world_size: int = 2, *, job_id: str = JOB_ID, base: ProfileRun | None = None) -> ProfileRun:
    """``cpu_run`` as rank ``rank`` of a ``world_size``-rank gloo job."""
    run = copy.deepcopy(base) if base is not None else cpu_run()
    run.id = f"{job_id[:6]}r{rank}"
    run.created_at = f"2026-12-01T10:00:0{rank % 10}+00:00"
    run.cell_runs = sum(CALLS.values())
    run.distributed = DistributedRank(
        rank=rank,
        world_size=world_size,
        backend="gloo",
        job_id=job_id,
        local_rank=rank,
        host=f"node{rank // 8}",
        torchrun_id="tr-42",
        calls_by_stage=dict(CALLS),
    )
    return run


def job_runs(world_size: int = 2, **kwargs) -> list[ProfileRun]:
    return [rank_run(r, world_size, **kwargs) for r in range(world_size)]


def add_graphs(run: ProfileRun, n: int) -> None:
    """``n`` more Dynamo graphs, as a break before the softmax line would make."""
    for i in range(n):
        run.graphs.append(
            Graph(
                id=f"g{i + 1}",
                kind="dynamo",
                code=GRAPH_CODE,
                variant="inductor/default",
                compile_id=f"{i + 1}/0",
                lines=[6],
            )
        )


def add_print_break(run: ProfileRun) -> None:
    run.graph_breaks.append(
        GraphBreak(
            reason="builtin: print", line=5, code_line="print(y.sum())", variant="inductor/default", compile_id="0/0"
        )
    )


def add_recompile(run: ProfileRun) -> None:
    run.recompiles.append(
        Recompile(
            reason="tensor 'L['x']' size mismatch at index 0. expected 1024, actual 512",
            variant="inductor/default",
            compile_id="0/1",
            source="L['x']",
            line=2,
        )
    )


def add_ddp_split(run: ProfileRun, pieces: int = 2) -> None:
    """DDPOptimizer's split of graph 0/0 into ``pieces`` buckets, the last layers' first."""
    buckets = [
        DdpBucket(
            index=i,
            params=[f"layers.{pieces - i}.weight", f"layers.{pieces - i}.bias"],
            bytes=1_048_576 + 4096,
            graph_id=f"g0-piece{i}",
        )
        for i in range(pieces)
    ]
    run.ddp_splits.append(
        DdpSplit(
            variant="inductor/default",
            compile_id="0/0",
            graph_id="g0",
            buckets=buckets,
            bucket_cap_bytes=25 * 1_048_576,
        )
    )


def add_collectives(run: ProfileRun, ms: float) -> None:
    """All-reduce time in each call's breakdown, eager's and compiled's."""
    for v in run.variants:
        if v.kernel_profile is not None and v.kernel_profile.breakdown is not None:
            v.kernel_profile.breakdown.collective_ms = ms


def put_job(path: str, job_id: str, ranks: list[int], world_size: int) -> None:
    """A rank's process: save its runs of one job into the store at ``path`` (spawned by the store test)."""
    store = RunStore(path, timeout=60)
    for rank in ranks:
        for k in range(20):  # several puts each, so the processes' writes interleave
            run = rank_run(rank, world_size, job_id=job_id)
            run.id = f"{job_id[:6]}r{rank}-{k}"
            store.put(run)
    store.close()
