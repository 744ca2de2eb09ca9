"""How fast a large TORCH_TRACE log is read, stored with every compile's artifacts, and shown, against tlparse on the
same log; and how fast the CLI starts.

    python benchmarks/import_speed.py record LOG_DIR [--layers 16]      # a training step's log (minutes on a CPU)
    python benchmarks/import_speed.py time LOG [--tlparse .venv/bin/tlparse] [--repeat 3]

``record`` runs a ``TransformerEncoder`` training step of ``--layers`` layers (random weights, CPU) under
``torch.compile`` with ``TORCH_TRACE`` and Inductor's provenance tracking, a cold Inductor cache of its own: its
log has every artifact a large model's compile logs (graphs of hundreds of nodes, output code, cache lookups).
``time`` prints, each the median of ``--repeat`` runs in fresh processes: ``compile-profile import-trace`` (the
CLI, start-up included, into an empty store), the same as a library call (``import_trace`` and ``put_imported``),
tlparse's CLI writing its report into a temporary directory, and the CLI's ``ls`` and ``show`` on the store, with the store's
size.  Results go to docs/benchmarks.md with the date, the machine and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def record(out: Path, layers: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TORCH_TRACE=str(out), TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="inductor_"))
    env["INDUCTOR_PROVENANCE"] = "1"
    code = f"""
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
model = nn.TransformerEncoder(layer, {layers}, enable_nested_tensor=False)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
def step(x):
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss
step = torch.compile(step)
for _ in range(2):
    step(torch.randn(8, 32, 64))
"""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    logs = sorted(out.glob("*.log"))
    print(
        f"recorded in {time.perf_counter() - started:.0f} s: "
        + ", ".join(f"{p} ({p.stat().st_size / 1e6:.1f} MB)" for p in logs)
    )


def _seconds(cmd: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (runs {', '.join(f'{v:.2f}' for v in values)})"


def time_import(log: Path, tlparse: str, repeat: int) -> None:
    cli = str(BIN / "compile-profile")
    results: dict[str, list[float]] = {k: [] for k in ("cli", "library", "tlparse", "ls", "show", "show --compile")}
    store_size = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "runs.sqlite")
            results["cli"].append(_seconds([cli, "--db", db, "import-trace", str(log)]))
            store_size = sum(p.stat().st_size for p in Path(tmp).glob("runs.sqlite*"))
            run_id = subprocess.run([cli, "--db", db, "ls", "--json"], check=True, capture_output=True, text=True)
            first = __import__("json").loads(run_id.stdout)[0]["id"]
            results["ls"].append(_seconds([cli, "--db", db, "ls"]))
            results["show"].append(_seconds([cli, "--db", db, "show", first]))
            results["show --compile"].append(_seconds([cli, "--db", db, "show", first, "--compile"]))
            lib = (
                "import time, sys; from compile_profile.engine.trace.log_import import import_trace; "
                "from compile_profile.store import RunStore, put_imported; t = time.perf_counter(); "
                f"put_imported(RunStore({str(Path(tmp) / 'lib.sqlite')!r}), import_trace({str(log)!r})); "
                "print(time.perf_counter() - t)"
            )
            done = subprocess.run([sys.executable, "-c", lib], check=True, capture_output=True, text=True)
            results["library"].append(float(done.stdout.strip().splitlines()[-1]))
            out = Path(tmp) / "tl"
            results["tlparse"].append(_seconds([tlparse, str(log), "-o", str(out), "--overwrite", "--no-browser"]))
    print(f"log {log} ({log.stat().st_size / 1e6:.1f} MB), load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    print(f"  compile-profile import-trace (CLI, start-up included): {_median(results['cli'])}")
    print(f"  import_trace, put_imported (library, started process): {_median(results['library'])}")
    print(f"  tlparse {tlparse}:                                      {_median(results['tlparse'])}")
    print(f"  compile-profile ls:                                     {_median(results['ls'])}")
    print(f"  compile-profile show ID:                                {_median(results['show'])}")
    print(f"  compile-profile show ID --compile:                      {_median(results['show --compile'])}")
    print(f"  store after the import: {store_size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("--layers", type=int, default=16)
    tim = sub.add_parser("time")
    tim.add_argument("log", type=Path)
    tim.add_argument("--tlparse", default=str(BIN / "tlparse"))
    tim.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.what == "record":
        record(args.out, args.layers)
    else:
        time_import(args.log, args.tlparse, args.repeat)


if __name__ == "__main__":
    main()
