"""A compiled DDP training step profiled on every rank of a torchrun job (tests/test_distributed.py).

Run as ``torchrun --standalone --nproc-per-node 2 tests/distributed_step.py OUT_DIR``: two profile
calls, two jobs.  The first is the same on every rank; in the second, rank 1's step prints its loss
(a graph break that rank 0 does not have), so rank 1 has more graphs than rank 0.  Each rank writes
its runs as JSON files (``OUT_DIR/<label>-rank<R>.json``) and into the run store ($COMPILE_PROFILE_DB).
"""

import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import compile_profile


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


def main(out: Path) -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DistributedDataParallel(MLP(), bucket_cap_mb=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 64)

    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    def divergent_step(x):
        loss = model(x).pow(2).mean()
        if rank == 1:
            print("rank 1 loss", loss)  # a graph break on rank 1 only
        loss.backward()
        return loss

    for label, fn in (("same", step), ("divergent", divergent_step)):
        run = compile_profile.profile(fn, x, label=label, budget=0.5, repeat=20)
        (out / f"{label}-rank{rank}.json").write_text(run.to_json())
        if hasattr(run, "save"):
            run.save()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
