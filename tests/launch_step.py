"""A tiny compiled DDP step for tests/test_launch.py, run by ``compile_profile.launch`` (torchrun, gloo, CPU).

Two profile calls, two jobs: ``same`` is the same on every rank; in ``divergent`` rank 1 prints its loss,
a graph break rank 0 does not have.  Each rank saves its runs into the run store ($COMPILE_PROFILE_DB).  The
launch is the subject, not a compiler: each profile is the cheapest whole one (aot_eager, --quick).
"""

import compile_profile
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main() -> None:
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DistributedDataParallel(MLP())
    x = torch.randn(8, 16)

    def step(x):
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    def divergent_step(x):
        loss = model(x).pow(2).mean()
        if rank == 1:
            print("rank 1 loss", loss)  # a graph break on rank 1 only
        loss.backward()
        return loss

    for label, fn in (("same", step), ("divergent", divergent_step)):
        compile_profile.profile(fn, x, label=label, budget=0.3, repeat=10, backend="aot_eager", quick=True).save()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
