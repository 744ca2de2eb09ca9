"""What the scripts that record TORCH_TRACE fixtures share (``trace_fixtures/record.py``,
``import_trace_fixtures/record.py``): a trace directory and a cold Inductor cache of their own, set before torch
starts; Dynamo's own recompile log; what Dynamo counted while the workload ran; the gzipped log beside
``expected.json``.  A script imports this before torch: torch reads TORCH_TRACE once, when its logging starts.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
import tempfile
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any


def start_trace(env: MutableMapping[str, str] = os.environ) -> str:
    """A fresh TORCH_TRACE directory and, unless one is given, a cold Inductor cache (its misses logged), set in
    ``env`` (this process's by default; a launcher's for its ranks); the directory."""
    trace_dir = tempfile.mkdtemp(prefix="trace_")
    env["TORCH_TRACE"] = trace_dir
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor_"))
    return trace_dir


class Recompiles(logging.Handler):
    """Dynamo's own recompile log (TORCH_LOGS=recompiles): one record per recompiled frame."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    @classmethod
    def watch(cls) -> Recompiles:
        """A handler on Dynamo's recompile log, turned on."""
        import torch

        recompiles = cls()
        torch._logging.set_logs(recompiles=True)
        logging.getLogger("torch._dynamo.guards.__recompiles").addHandler(recompiles)
        return recompiles

    def frames(self) -> list[str]:
        """The recompiled frames' names, each once."""
        return sorted({m.split("Recompiling function ")[1].split()[0] for m in self.messages})


def dynamo_counts(recompiles: Recompiles) -> dict[str, Any]:
    """What Dynamo itself counted: torch's version, graph breaks (``torch._dynamo.utils.counters``), recompiles
    and their frames (its recompile log)."""
    import torch
    from torch._dynamo.utils import counters

    return {
        "torch": torch.__version__,
        "graph_breaks": sum(counters["graph_break"].values()),
        "recompiles": len(recompiles.messages),
        "recompiled_frames": recompiles.frames(),
    }


def gzip_log(log: Path, dest: Path) -> None:
    with open(log, "rb") as src, gzip.open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst)


def write_expected(out: Path, expected: dict[str, Any], name: str = "expected.json") -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(json.dumps(expected, indent=1) + "\n")


def save_fixture(trace_dir: str, out: Path, expected: dict[str, Any]) -> None:
    """The process's one log as ``out/trace.log.gz`` and ``expected`` as ``out/expected.json``."""
    logs = sorted(Path(trace_dir).glob("*.log"))
    assert len(logs) == 1, logs
    write_expected(out, expected)
    gzip_log(logs[0], out / "trace.log.gz")
    print(expected)
