"""Record a structured trace (TORCH_TRACE) of one small workload with the torch this Python has.

    python tests/trace_fixtures/record.py tests/trace_fixtures/torch-<version>

writes ``trace.log.gz`` (the rank's TORCH_TRACE log, gzipped) and ``expected.json`` (what Dynamo itself
counted: graph breaks from ``torch._dynamo.utils.counters``, recompiles from its own recompile log), so that a parser test can hold what it reads from the log to what Dynamo counted.
The workload: a training step with a graph break (a print of ``.item()``), a backward, and a second input
shape that recompiles the step under static shapes; the ``.item()`` value becomes a value guard of the
resumed frame, which recompiles on each new value. Run once per supported torch release (the compat venvs).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

out = Path(sys.argv[1])
trace_dir = tempfile.mkdtemp(prefix="trace_")
os.environ["TORCH_TRACE"] = trace_dir
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor_"))  # cold: misses logged

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def step(x):
    y = model(x).sum()
    print("loss", y.item())  # a graph break (and a .item() before it)
    y.backward()
    return y


import logging  # noqa: E402


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
compiled = torch.compile(step, dynamic=False)
for rows in (4, 4, 6):
    compiled(torch.randn(rows, 8))

from torch._dynamo.utils import counters  # noqa: E402

expected = {
    "torch": torch.__version__,
    "graph_breaks": sum(counters["graph_break"].values()),
    "recompiles": len(recompiles.messages),
    "recompiled_frames": sorted({m.split("Recompiling function ")[1].split()[0] for m in recompiles.messages}),
}
logs = sorted(Path(trace_dir).glob("*.log"))
assert len(logs) == 1, logs
out.mkdir(parents=True, exist_ok=True)
with open(logs[0], "rb") as src, gzip.open(out / "trace.log.gz", "wb") as dst:
    shutil.copyfileobj(src, dst)
(out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
print(expected)
