"""A run's place in a distributed job and DDPOptimizer's splits, in words: facts of one run.

``distributed_text`` says which rank of which job a run was (``rank 1 of 2 (gloo), job 3f2a…``);
``ddp_split_text`` says how DDPOptimizer cut a Dynamo graph at DDP's gradient-bucket boundaries, which
the views show beside the graph breaks because it, too, makes several graphs of one, but is no break;
``collective_texts`` names the collectives the compiled code runs (functional collectives that
Dynamo traced into a graph, FSDP's in a traced graph) and the kernels that run them, by the one naming
rules the breakdown's collectives part uses, which the engine applied when it recorded them
(``Graph.collectives``, ``Kernel.kind``).
The job's view across ranks is ``digest.job``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profile_run import DdpSplit, DistributedRank, ProfileRun
from ..serialize import ADDED_LATER
from .format import format_bytes
from .kernel_times import kernel_time_text, withheld

PARAMS_LISTED = 3  # parameters named per piece; the rest are counted
PIECES_LISTED = 8


@dataclass
class DistributedSummary:
    """A run's place in a distributed job (``distributed_summary``)."""

    rank: int
    world_size: int
    job_id: str  # shared by every rank of one profile call
    backend: str
    text: str = field(metadata=ADDED_LATER)  # "rank 1 of 2 (gloo), job 3f2a9c01d4e5"


@dataclass
class DdpSplitSummary:
    """A graph DDPOptimizer split at DDP's bucket boundaries, and the digest's sentence for it."""

    variant: str
    compile_id: str
    graph_id: str
    pieces: int
    bucket_cap_bytes: int | None
    text: str


def distributed_text(run: ProfileRun) -> str | None:
    """``rank 1 of 2 (gloo), job 3f2a9c01d4e5``; None for a run outside ``torch.distributed``."""
    d = run.distributed
    return _rank_text(d) if d is not None else None


def _rank_text(d: DistributedRank) -> str:
    backend = f" ({d.backend})" if d.backend else ""
    return f"rank {d.rank} of {d.world_size}{backend}, job {d.job_id}"


def distributed_summary(run: ProfileRun) -> DistributedSummary | None:
    """What the run list needs to group a job's runs (the summary's ``distributed``)."""
    d = run.distributed
    if d is None:
        return None
    return DistributedSummary(
        rank=d.rank, world_size=d.world_size, job_id=d.job_id, backend=d.backend, text=_rank_text(d)
    )


def ddp_bucket_count(run: ProfileRun) -> int:
    """The pieces of every DDPOptimizer split in the run (a graph not split counts none)."""
    return sum(len(s.buckets) for s in run.ddp_splits)


def _piece_text(index: int, params: list[str], size: int) -> str:
    named = ", ".join(params[:PARAMS_LISTED])
    if len(params) > PARAMS_LISTED:
        return f"piece {index}: {named}, … ({len(params)} parameters, {format_bytes(size)})"
    return f"piece {index}: {named or 'no parameters'} ({format_bytes(size)})"


def ddp_split_text(run: ProfileRun, split: DdpSplit) -> str:
    """``DDPOptimizer split graph 0/0 into 2 pieces at DDP's bucket boundaries (not graph breaks): piece 0:
    layers.3.weight, layers.3.bias (1.0 MiB); piece 1: …``."""
    name = split.compile_id or split.graph_id
    variant = f" ({split.variant})" if split.variant and len(run.compiled_variants) > 1 else ""
    n = len(split.buckets)
    pieces = "; ".join(_piece_text(b.index, b.params, b.bytes) for b in split.buckets[:PIECES_LISTED])
    if n > PIECES_LISTED:
        pieces += f"; … and {n - PIECES_LISTED} more pieces"
    cap = f"; bucket cap {format_bytes(split.bucket_cap_bytes)}" if split.bucket_cap_bytes is not None else ""
    return (
        f"DDPOptimizer split graph {name}{variant} into {n} piece{'' if n == 1 else 's'} at DDP's bucket "
        f"boundaries (not graph breaks): {pieces}{cap}"
    )


def ddp_splits_digest(run: ProfileRun) -> list[DdpSplitSummary]:
    """Each split with its sentence, as the summary serves it."""
    return [
        DdpSplitSummary(
            variant=s.variant,
            compile_id=s.compile_id,
            graph_id=s.graph_id,
            pieces=len(s.buckets),
            bucket_cap_bytes=s.bucket_cap_bytes,
            text=ddp_split_text(run, s),
        )
        for s in run.ddp_splits
    ]


def collective_texts(run: ProfileRun) -> list[str]:
    """``graph 0/0 runs collectives: all_reduce ×1, wait_tensor ×1`` for each Dynamo graph with some, then
    ``collective kernels: torch.ops._c10d_functional.all_reduce_.default (0.41 ms a call), …``."""
    out = []
    for g in run.graphs:
        if g.kind == "dynamo" and g.collectives:
            variant = f" ({g.variant})" if g.variant and len(run.compiled_variants) > 1 else ""
            ops = ", ".join(f"{name} ×{n}" for name, n in g.collectives.items())
            out.append(f"graph {g.compile_id or g.id}{variant} runs collectives: {ops}")
    # as the breakdown counts them: extern calls of collective ops (a C++ kernel named after the all-reduce
    # whose buffer it fills is generated code, not communication)
    kernels = [k for k in run.kernels if k.kind == "collective"]
    if kernels:
        left_out = withheld(run)  # a withheld pass's kernels: their share of it, not a time
        named = ", ".join(
            k.name
            + (f" ({kernel_time_text(k, left_out, with_share=False)} a call)" if k.device_time_ms is not None else "")
            for k in kernels
        )
        out.append(f"collective kernels: {named}")
    return out
