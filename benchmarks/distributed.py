"""A compiled DDP or FSDP2 training step profiled on every rank of a torchrun job, held to references.

Run under torchrun, one process per GPU (or with gloo on CPU):

    torchrun --standalone --nproc-per-node N benchmarks/distributed.py --wrap ddp|fsdp2 \
        [--model block|gpt2] [--out DIR]

Each rank, in one process:
  * the tool's profile of the training step (``compile_profile.profile``), written to
    ``DIR/<wrap>-<model>-rank<R>.json``;
  * independent references, in lock-step on every rank (fixed iteration counts): the same step
    eager and under plain ``torch.compile`` (default backend), each timed by a bare back-to-back
    loop (CUDA events on GPU) before the profile, then eager and compiled loops in turn (10 rounds: drift
    reaches both, as in the tool's interleaved samples), the eager loop again after the profile, and
    ``torch._dynamo.explain`` of the step for its graph and break counts;
  * ``FIGURE`` lines: the tool's eager and compiled medians against the bare loops' (target within
    10 %: a training step with collectives is noisier than a kernel), its speedup against the loops' ratio, its Dynamo graphs plus DDPOptimizer's
    extra pieces against explain's graph count (explain counts each piece as a graph).

Rank 0 then prints the job view (``compile_profile.Job``) of all ranks' runs.  A benchmark, not a
unit test; the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import compile_profile
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    """A pre-norm transformer block (attention + MLP), written here so Dynamo starts a frame in it."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class Stack(nn.Module):
    def __init__(self, dim: int, heads: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def build(model_name: str, device: torch.device):
    cuda = device.type == "cuda"
    if model_name == "block":
        dim, heads, depth, batch, seq = (1024, 16, 4, 8, 512) if cuda else (128, 4, 2, 4, 64)
        model = Stack(dim, heads, depth).to(device)
        x = torch.randn(batch, seq, dim, device=device)
        return model, x, lambda out: out.float().pow(2).mean()
    if model_name == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel

        config = GPT2Config(
            n_layer=4,
            n_embd=768 if cuda else 128,
            n_head=12 if cuda else 4,
            vocab_size=50257 if cuda else 1000,
            n_positions=1024,
            attn_implementation="sdpa",
        )
        model = GPT2LMHeadModel(config).to(device)
        ids = torch.randint(0, config.vocab_size, (8 if cuda else 2, 512 if cuda else 64), device=device)
        return model, ids, lambda out: out.logits.float().pow(2).mean()
    raise SystemExit(f"unknown --model {model_name!r}: use block or gpt2")


def wrap(model: nn.Module, how: str, device: torch.device) -> nn.Module:
    if how == "ddp":
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(
            model,
            device_ids=[device.index] if device.type == "cuda" else None,
            bucket_cap_mb=8 if device.type == "cuda" else 1,
        )
    if how == "fsdp2":
        from torch.distributed.fsdp import fully_shard

        for block in getattr(model, "blocks", []) or getattr(getattr(model, "transformer", None), "h", []):
            fully_shard(block)
        return fully_shard(model)
    raise SystemExit(f"unknown --wrap {how!r}: use ddp or fsdp2")


def bare_loop_ms(fn, x, *, iters: int, cuda: bool, rounds: int = 5) -> float:
    """Median ms per call over ``iters`` back-to-back calls, ``rounds`` times (the same count on every rank)."""
    times = []
    for _ in range(rounds):
        if cuda:
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn(x)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / iters)
        else:
            t0 = time.perf_counter()
            for _ in range(iters):
                fn(x)
            times.append((time.perf_counter() - t0) * 1e3 / iters)
    return statistics.median(times)


def interleaved_loops_ms(eager, compiled, x, *, iters: int, cuda: bool, rounds: int = 10) -> tuple[float, float, float]:
    """Eager and compiled loops taken in turn, ``rounds`` times: their median ms per call and the median of
    the rounds' ratios. Drift in the process (these host-bound steps move up to 25 % across a profile)
    reaches both alike, as in the tool's interleaved samples, which back-to-back loops do not give."""
    pairs = [
        (
            bare_loop_ms(eager, x, iters=iters, cuda=cuda, rounds=1),
            bare_loop_ms(compiled, x, iters=iters, cuda=cuda, rounds=1),
        )
        for _ in range(rounds)
    ]
    return (
        statistics.median(e for e, _ in pairs),
        statistics.median(c for _, c in pairs),
        statistics.median(e / c for e, c in pairs),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wrap", default="ddp", choices=["ddp", "fsdp2"])
    parser.add_argument("--model", default="block", choices=["block", "gpt2"])
    parser.add_argument("--out", default="benchmarks/results/distributed")
    parser.add_argument("--iters", type=int, default=30)
    args = parser.parse_args()

    cuda = torch.cuda.is_available()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
        torch.backends.cuda.matmul.allow_tf32 = True
    dist.init_process_group("nccl" if cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model, x, loss_of = build(args.model, device)
    model = wrap(model, args.wrap, device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step(x):
        opt.zero_grad(set_to_none=True)
        loss = loss_of(model(x))
        loss.backward()
        opt.step()
        return loss

    name = f"{args.wrap}-{args.model}"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # references first, the same calls on every rank: after a profile (or any compile) the same loops
    # read up to 25 % slower on the H200 (GPT-2 eager 22.1 -> 27.2 ms), so they run before it
    for _ in range(3):
        step(x)
    eager_ms = bare_loop_ms(step, x, iters=args.iters, cuda=cuda)
    compiled = torch.compile(step)
    for _ in range(3):
        compiled(x)
    compiled_ms = bare_loop_ms(compiled, x, iters=args.iters, cuda=cuda)
    interleaved = interleaved_loops_ms(step, compiled, x, iters=args.iters, cuda=cuda)
    torch._dynamo.reset()

    t0 = time.perf_counter()
    run = compile_profile.profile(step, x, label=f"{name} world {world}", budget=3.0)
    profile_s = time.perf_counter() - t0
    (out / f"{name}-rank{rank}.json").write_text(run.to_json())
    eager_after_ms = bare_loop_ms(step, x, iters=args.iters, cuda=cuda)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(step)(x)

    best = run.variant(run.speedup.variant) if run.speedup else None
    figures = {
        "rank": rank,
        "world_size": world,
        "backend": str(dist.get_backend()),
        "wrap": args.wrap,
        "model": args.model,
        "profile_s": profile_s,
        "status": run.status,
        "tool_eager_ms": run.eager.timing.median_ms if run.eager and run.eager.timing else None,
        "tool_compiled_ms": best.timing.median_ms if best and best.timing else None,
        "tool_speedup": run.speedup.value if run.speedup else None,
        "loop_eager_ms": eager_ms,
        "loop_eager_after_ms": eager_after_ms,
        "loop_compiled_ms": compiled_ms,
        "loop_speedup": eager_ms / compiled_ms,
        "interleaved_eager_ms": interleaved[0],
        "interleaved_compiled_ms": interleaved[1],
        "interleaved_speedup": interleaved[2],
        "tool_graphs": run.dynamo_graph_count,
        # explain counts each piece DDPOptimizer compiled as a graph
        "tool_graphs_and_pieces": run.dynamo_graph_count + sum(len(s.buckets) - 1 for s in run.ddp_splits),
        "explain_graphs": explained.graph_count,
        "tool_breaks": len(run.graph_breaks),
        "explain_breaks": explained.graph_break_count,
        "ddp_pieces": [len(s.buckets) for s in run.ddp_splits],
        "collective_ms": best.kernel_profile.breakdown.collective_ms
        if best and best.kernel_profile and best.kernel_profile.breakdown
        else None,
        "calls_by_stage": run.distributed.calls_by_stage if run.distributed else None,
        "errors": [f"{e.stage}: {e.message}" for e in run.errors],
    }
    (out / f"{name}-rank{rank}-figures.json").write_text(json.dumps(figures, indent=2))
    for key in (
        "tool_eager_ms",
        "loop_eager_ms",
        "loop_eager_after_ms",
        "tool_compiled_ms",
        "loop_compiled_ms",
        "tool_speedup",
        "loop_speedup",
        "interleaved_eager_ms",
        "interleaved_compiled_ms",
        "interleaved_speedup",
        "tool_graphs",
        "tool_graphs_and_pieces",
        "explain_graphs",
        "tool_breaks",
        "explain_breaks",
        "ddp_pieces",
        "collective_ms",
        "calls_by_stage",
    ):
        print(f"FIGURE rank{rank} {name} {key} {figures[key]}", flush=True)
    dist.barrier()
    if rank == 0:
        job = compile_profile.Job(
            [compile_profile.ProfileRun.from_json((out / f"{name}-rank{r}.json").read_text()) for r in range(world)]
        )
        print(job)
        (out / f"{name}-job.html").write_text(job.to_html())
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
