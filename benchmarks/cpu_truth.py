"""What the diagnosis says on CPU, on an idle core and beside spinning processes (issue 31, items 2, 3 and 6).

For each cell (a 32x128 MLP, a small Hugging Face Llama built from its config with random weights, a
``TransformerEncoderLayer`` in eval), profiled through the magic's path (``profile_cell``) at 1 torch thread,
and with ``--busy`` at 8 threads (``--threads N``) beside two spinning processes (bounded, killed at the end),
it prints what the
views say: the diagnosis heading and its first causes, each variant's breakdown row as worded, the timing
warning's advice, and the facts behind them: the timed medians, the profiled call's wall time, the pass's
kernel time and the profiler cost it took out, the host's load and the thread trial.  With ``--json`` it writes
them all.  Run it against another checkout's engine with ``PYTHONPATH=<checkout>/kernel_side`` to compare:

    PYTHONPATH=kernel_side python3 benchmarks/cpu_truth.py [--busy] [--only mlp llama encoder] [--json out.json]

Quote its figures with ``uptime``'s load: the machine is shared.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import time
from typing import Any

import torch

SPIN_S = 300.0


def _spin(seconds: float) -> None:
    t = time.time()
    while time.time() - t < seconds:
        pass


@contextlib.contextmanager
def spinning(n: int):
    procs = [multiprocessing.get_context("fork").Process(target=_spin, args=(SPIN_S,), daemon=True) for _ in range(n)]
    try:
        for p in procs:
            p.start()
        time.sleep(0.5)
        yield
    finally:
        for p in procs:
            p.kill()
            p.join()


def mlp() -> tuple[str, dict[str, Any]]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128))
    return "with torch.no_grad():\n    y = model(x)\n", {"torch": torch, "model": model, "x": torch.randn(32, 128)}


def llama() -> tuple[str, dict[str, Any]]:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=512,
        max_position_embeddings=64,
    )
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 512, (2, 16))
    return "with torch.no_grad():\n    logits = model(ids).logits\n", {"torch": torch, "model": model, "ids": ids}


def encoder() -> tuple[str, dict[str, Any]]:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).eval()
    return "with torch.no_grad():\n    y = layer(x)\n", {"torch": torch, "layer": layer, "x": torch.randn(4, 16, 64)}


CELLS = {"mlp": mlp, "llama": llama, "encoder": encoder}


def said(run) -> dict[str, Any]:
    from compile_profile.digest import summarize
    from compile_profile.digest.breakdown import breakdown
    from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading

    out: dict[str, Any] = {
        "heading": diagnosis_heading(run),
        "causes": [cause_text(c) for c in diagnosis(run)][:3],
        "rows": {r.variant: r.texts for r in breakdown(run)},
        "warnings": [w for w in summarize(run)["warnings"] if w.startswith("timings are unreliable")],
        "host_load": vars(run.host_load) if run.host_load else None,
        "threads_trial": vars(t) if (t := getattr(run, "threads_trial", None)) is not None else None,
        "variants": {},
        "stage_s": {k: round(v, 2) for k, v in run.stage_s.items() if k.startswith(("kernel pass", "threads"))},
    }
    for v in run.variants:
        kp = v.kernel_profile
        out["variants"][v.name] = {
            "median_us": v.timing.median_ms * 1e3 if v.timing else None,
            "p10_us": v.timing.p10_ms * 1e3 if v.timing else None,
            "p90_us": v.timing.p90_ms * 1e3 if v.timing else None,
            "profiled_call_us": kp.profiled_call_ms * 1e3 if kp and kp.profiled_call_ms else None,
            "kernels_us": kp.breakdown.kernels_ms * 1e3 if kp and kp.breakdown else None,
            "profiler_cost_us": (getattr(kp, "profiler_cost_ms", None) or 0.0) * 1e3 if kp else None,
            "event_cost_us": getattr(kp, "event_cost_us", None) if kp else None,
            "preempted": f"{kp.preempted_calls}/{kp.calls}" if kp else None,
        }
    return out


def profile_one(name: str, threads: int) -> dict[str, Any]:
    from compile_profile.engine.run.api import ProfileOptions, profile_cell

    body, ns = CELLS[name]()
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        result, _ = profile_cell(
            body, ns, ProfileOptions(budget=2.0), source="%%compile_profile\n" + body, line_offset=1
        )
    finally:
        torch.set_num_threads(before)
    return said(result.run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="8 threads beside two spinning processes")
    parser.add_argument("--threads", type=int, help="torch's threads (default: 8 with --busy, else 1)")
    parser.add_argument("--only", nargs="*", choices=sorted(CELLS), default=list(CELLS))
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args()
    import compile_profile

    results: dict[str, Any] = {
        "engine": os.path.dirname(compile_profile.__file__),
        "torch": torch.__version__,
        "load_before": os.getloadavg(),
        "cells": {},
    }
    threads = args.threads or (8 if args.busy else 1)
    results["threads"], results["spinners"] = threads, 2 if args.busy else 0
    with spinning(2) if args.busy else contextlib.nullcontext():
        for name in args.only:
            results["cells"][name] = profile_one(name, threads)
            r = results["cells"][name]
            print(f"== {name} ({threads} threads, {results['spinners']} spinners); load {os.getloadavg()[0]:.2f}")
            print("  heading:", r["heading"])
            for c in r["causes"]:
                print("  cause:", c)
            for v, row in r["rows"].items():
                print(f"  row {v}:", row)
            for v, f in r["variants"].items():
                print(f"  {v}:", {k: round(x, 1) if isinstance(x, float) else x for k, x in f.items()})
            print("  host:", r["host_load"], "trial:", r["threads_trial"])
            print("  stages:", r["stage_s"])
            for w in r["warnings"]:
                print("  warning:", w[-160:])
    results["load_after"] = os.getloadavg()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
