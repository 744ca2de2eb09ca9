"""A compiled DDP training step profiled on every rank of a torchrun job (tests/test_distributed.py).

Run as ``torchrun --standalone --nproc-per-node 2 tests/distributed_step.py OUT_DIR [gloo|nccl]`` (nccl:
one GPU a rank, tests/test_gpu_distributed.py): five profile calls, five jobs.  The first is the
same on every rank; in the second, rank 1's step prints its loss (a graph break that rank 0 does not
have), so rank 1 has one graph more than rank 0; in the third, rank 1's first call raises after the
step's all-reduce, so both ranks stop there; in the fourth (no DDP), rank 1 cannot compile under
fullgraph=True, so no rank times the compiled variant; the fifth is an FSDP2 (fully_shard) step.
Each rank writes its runs as JSON files (``OUT_DIR/<label>-rank<R>.json``) and into the run store ($COMPILE_PROFILE_DB).
On the CPU (gloo) the job's lock-step is the subject, so each profile compiles under aot_eager (no C++ compile
on each rank), with the profiler pass (its calls are one lock-step stage, its collective time a figure); on GPUs
(nccl) under Inductor, as users run it.
"""

import faulthandler
import os
import sys
from pathlib import Path

import compile_profile
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class MLP(nn.Module):
    # A class of the user's own: Dynamo starts no frame in torch.nn's containers.
    def __init__(self):
        super().__init__()
        # 1 MiB of weights per hidden layer, so DDP(bucket_cap_mb=1) makes several buckets
        self.layers = nn.ModuleList([nn.Linear(64, 512), nn.Linear(512, 512), nn.Linear(512, 512), nn.Linear(512, 8)])

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


def main(out: Path, backend: str) -> None:
    # A rank still running after HANG_DUMP_S writes every thread's stack (test_distributed.py shows them when
    # the job does not finish): where each rank waits is what tells a hang's cause
    hang_s = float(os.environ.get("HANG_DUMP_S", "0"))
    if hang_s > 0:
        stacks = open(out / f"stacks-rank{os.environ.get('RANK', '0')}.txt", "w")  # kept open while the rank runs
        faulthandler.dump_traceback_later(hang_s, repeat=False, file=stacks)
    device = torch.device("cpu")
    if backend == "nccl":
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        torch.cuda.set_device(device)
    dist.init_process_group(backend)
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DistributedDataParallel(MLP().to(device), bucket_cap_mb=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 64, device=device)

    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    def divergent_step(x):
        loss = model(x).pow(2).mean()
        if rank == 1:
            print("rank 1 loss", loss)  # a graph break on rank 1 only: its step is two graphs there
        loss = loss * 2
        loss.backward()
        return loss

    def failing_step(x):
        loss = model(x).pow(2).mean()
        loss.backward()  # DDP's all-reduce has met its partner on both ranks
        if rank == 1:
            raise RuntimeError("rank 1 ran out of data")
        return loss

    def one_rank_breaks_fullgraph(x):  # no collective inside: a rank that fails to compile cannot hang here
        y = x.relu()
        if rank == 1:
            print("rank 1")  # with fullgraph=True a graph break is a compile error, on rank 1 only
        return y.sum()

    from torch.distributed.fsdp import fully_shard

    sharded = MLP().to(device)
    for layer in sharded.layers:
        fully_shard(layer)
    fully_shard(sharded)  # FSDP2: each layer's parameters all-gathered before its forward, and so on
    sharded_opt = torch.optim.SGD(sharded.parameters(), lr=0.01)

    def fsdp2_step(x):
        sharded_opt.zero_grad()
        loss = sharded(x).pow(2).mean()
        loss.backward()
        sharded_opt.step()
        return loss

    jobs = (
        ("same", step, {}),
        ("divergent", divergent_step, {}),
        ("failing", failing_step, {}),
        ("fullgraph", one_rank_breaks_fullgraph, {"fullgraph": True}),
        ("fsdp2", fsdp2_step, {}),
    )
    compiler = "inductor" if backend == "nccl" else "aot_eager"
    for label, fn, options in jobs:
        run = compile_profile.profile(fn, x, label=label, budget=0.5, repeat=20, backend=compiler, **options)
        (out / f"{label}-rank{rank}.json").write_text(run.to_json())
        run.save()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "gloo")
