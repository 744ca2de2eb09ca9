"""Record the TORCH_TRACE logs ``compile-profile import-trace`` is tested on (tests/test_import_trace.py).

    python tests/import_trace_fixtures/record.py script tests/import_trace_fixtures/script
    python tests/import_trace_fixtures/record.py failed tests/import_trace_fixtures/failed
    python tests/import_trace_fixtures/record.py job    tests/import_trace_fixtures/job

Each writes the process's (or each rank's) log gzipped, and ``expected*.json``: what Dynamo and Inductor
themselves counted while it ran (graph breaks and unique graphs from ``torch._dynamo.utils.counters``, the FX
graph cache's hits and misses from Inductor's counters, recompiles from Dynamo's own recompile log, the error
the script saw), so a test holds what the importer reads from the log to them.  Workloads:

* ``script``: a module with a data-dependent branch (a graph break), called with a second batch size (a
  recompile, now with a dynamic batch), then two functions of the same code (the second's graph is the
  first's: an FX graph cache hit); Inductor's provenance tracking on, so kernels name their source lines;
* ``failed``: a function whose second graph Inductor cannot compile (torch's own test hook makes the C++
  of a relu fail to compile); the first graph compiles;
* ``job``: a DDP step on two gloo ranks under torchrun, where rank 1 also prints its loss (a graph break
  rank 0 does not have).

Recorded with torch 2.13 on CPU, with a cold Inductor cache of its own.

The workloads' lines stay where the recorded traces name them: moving one means recording every workload
again (tests/test_import_trace.py finds the lines by their code, then holds the traces to them).  The lines
each trace's compiles name in their stacks, as recorded:

* ``script``: ``Net.forward`` (82) and its data-dependent branch (84), ``head`` (89), ``head_again`` (93),
  and the calls of the compiled module (110);
* ``failed``: ``two_graphs`` (97), its print (99) and the call (118);
* ``job``: each rank's ``step`` (130-136: its loss at 132, rank 1's print at 134, the backward at 135 and
  the optimizer's step at 136) and the calls (141).

Record with a cold Inductor cache (TORCHINDUCTOR_CACHE_DIR unset gives each run one of its own):
``head_again``'s is the one FX graph cache hit ``script`` expects; a warm cache would hit every graph.
After recording, ``pytest tests/test_import_trace.py`` holds the importer to each ``expected*.json``;
a workload line that moved shows there as a graph break or an error placed on another line, and
``tests/test_server.py`` imports the same logs over REST.

The set-up both recording scripts share (a trace directory and a cold Inductor cache before torch starts,
Dynamo's own recompile log, what Dynamo counted, the gzipped log beside ``expected.json``) is
``tests/trace_recording.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for trace_recording
from trace_recording import Recompiles, dynamo_counts, gzip_log, save_fixture, start_trace, write_expected

WORKLOAD, OUT = sys.argv[1], Path(sys.argv[2]).resolve()

if WORKLOAD == "job":  # the launcher: torchrun runs this file again as "job-rank" on each rank
    env = dict(os.environ, OMP_NUM_THREADS="1")
    trace_dir = start_trace(env)
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    subprocess.run([*cmd, __file__, "job-rank", str(OUT)], env=env, check=True, timeout=600)
    for log in sorted(Path(trace_dir).glob("*.log")):
        gzip_log(log, OUT / (log.name + ".gz"))
    print(sorted(p.name for p in OUT.iterdir()))
    sys.exit(0)

if WORKLOAD != "job-rank":
    start_trace()  # a rank's is its launcher's

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts
from torch import nn  # noqa: E402

recompiles = Recompiles.watch()
torch.manual_seed(0)
error = ""


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = torch.relu(self.lin(x))
        if y.sum() > 0:  # a data-dependent branch: a graph break
            y = y * 2
        return torch.tanh(y)


def head(y):
    return torch.tanh(y * 2) + 1


def head_again(y):  # head's code in another function: its graph is head's, loaded from the FX graph cache
    return torch.tanh(y * 2) + 1


def two_graphs(x):
    y = torch.sin(x) + 1
    print("between the graphs")  # a graph break: the relu is in a second graph
    return torch.relu(y)


if WORKLOAD == "script":
    import torch._inductor.config as inductor_config

    if hasattr(inductor_config.trace, "provenance_tracking_level"):
        inductor_config.trace.provenance_tracking_level = 1
    compiled = torch.compile(Net())
    for rows in (4, 6):  # 6: a recompile, with a dynamic batch size
        compiled(torch.randn(rows, 8))
    torch.compile(head)(torch.randn(4, 8))
    torch.compile(head_again)(torch.randn(4, 8))
elif WORKLOAD == "failed":
    import torch._inductor.config as inductor_config

    inductor_config.cpp.inject_relu_bug_TESTING_ONLY = "compile_error"
    try:
        torch.compile(two_graphs)(torch.randn(4, 8))
    except Exception as exc:  # noqa: BLE001 - the failure is what is recorded
        error = type(exc).__name__
elif WORKLOAD == "job-rank":
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = DistributedDataParallel(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        if rank == 1:
            print("rank 1's loss", loss.item())  # a graph break rank 0 does not have
        loss.backward()
        opt.step()
        return loss

    compiled = torch.compile(step)
    for _ in range(2):
        compiled(torch.randn(8, 16))
    dist.destroy_process_group()
else:
    sys.exit(f"unknown workload {WORKLOAD}")

from torch._dynamo.utils import counters  # noqa: E402

expected = dynamo_counts(recompiles) | {
    # Dynamo counts a break in one of two counters: a data-dependent branch's under "unimplemented" (torch 2.13)
    "unimplemented": sum(counters["unimplemented"].values()),
    "unique_graphs": counters["stats"]["unique_graphs"],
    "fx_graph_cache_hits": counters["inductor"]["fxgraph_cache_hit"],
    "fx_graph_cache_misses": counters["inductor"]["fxgraph_cache_miss"],
    "error": error,
}
if WORKLOAD == "job-rank":
    write_expected(OUT, expected, f"expected-rank{os.environ['RANK']}.json")
    sys.exit(0)
save_fixture(os.environ["TORCH_TRACE"], OUT, expected)
