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
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORKLOAD, OUT = sys.argv[1], Path(sys.argv[2]).resolve()

if WORKLOAD == "job":  # the launcher: torchrun runs this file again as "job-rank" on each rank
    trace_dir = tempfile.mkdtemp(prefix="trace_")
    env = dict(os.environ, TORCH_TRACE=trace_dir, OMP_NUM_THREADS="1")
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor_"))
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    subprocess.run([*cmd, __file__, "job-rank", str(OUT)], env=env, check=True, timeout=600)
    for log in sorted(Path(trace_dir).glob("*.log")):
        with open(log, "rb") as src, gzip.open(OUT / (log.name + ".gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    print(sorted(p.name for p in OUT.iterdir()))
    sys.exit(0)

if WORKLOAD != "job-rank":
    trace_dir = tempfile.mkdtemp(prefix="trace_")
    os.environ["TORCH_TRACE"] = trace_dir
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor_"))  # cold

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts
from torch import nn  # noqa: E402


class Recompiles(logging.Handler):
    """Dynamo's own recompile log (TORCH_LOGS=recompiles): one record per recompiled frame."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


recompiles = Recompiles()
torch._logging.set_logs(recompiles=True)
logging.getLogger("torch._dynamo.guards.__recompiles").addHandler(recompiles)
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

expected = {
    "torch": torch.__version__,
    # Dynamo counts a break in one of two counters: a data-dependent branch's under "unimplemented" (torch 2.13)
    "graph_breaks": sum(counters["graph_break"].values()),
    "unimplemented": sum(counters["unimplemented"].values()),
    "unique_graphs": counters["stats"]["unique_graphs"],
    "recompiles": len(recompiles.messages),
    "recompiled_frames": sorted({m.split("Recompiling function ")[1].split()[0] for m in recompiles.messages}),
    "fx_graph_cache_hits": counters["inductor"]["fxgraph_cache_hit"],
    "fx_graph_cache_misses": counters["inductor"]["fxgraph_cache_miss"],
    "error": error,
}
OUT.mkdir(parents=True, exist_ok=True)
if WORKLOAD == "job-rank":
    (OUT / f"expected-rank{os.environ['RANK']}.json").write_text(json.dumps(expected, indent=1) + "\n")
    sys.exit(0)
logs = sorted(Path(os.environ["TORCH_TRACE"]).glob("*.log"))
assert len(logs) == 1, logs
with open(logs[0], "rb") as src, gzip.open(OUT / "trace.log.gz", "wb") as dst:
    shutil.copyfileobj(src, dst)
(OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(expected)
