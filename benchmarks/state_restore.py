"""What putting a training step's state back costs, and whether it comes back (issue 31, item 5).

A Hugging Face BERT encoder built from a config (random weights, no download), trained one step per call with
``AdamW(fused=True)`` under bfloat16 autocast, is profiled in a fresh process twice: by default (the in-place
state copied after the first eager run and put back at the end, ``engine/cell/plain_state.py``) and with
``--no-restore``.  Each process reports its peak RSS (``ru_maxrss``), the copy's size (the run's
``state_put_back`` note), the profile's wall time, and how far the model and AdamW's state stand from a deep
copy stepped once plainly (0 where restored), with AdamW's ``step``.

    TORCHINDUCTOR_CACHE_DIR=... PYTHONPATH=kernel_side python3 benchmarks/state_restore.py \\
        [--layers 2] [--hidden 128] [--backend inductor] [--device cpu|cuda] [--quick] [--json out.json]

A benchmark, not a unit test: the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from typing import Any


def bert_step(layers: int, hidden: int, device: str = "cpu") -> tuple[Any, Any, Any, Any]:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=max(1, hidden // 64),
        intermediate_size=4 * hidden,
        max_position_embeddings=128,
    )
    model = transformers.BertForSequenceClassification(config).to(device)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    ids = torch.randint(0, config.vocab_size, (8, 64), device=device)
    labels = torch.randint(0, 2, (8,), device=device)
    return model, opt, ids, labels


def one_profile(args: argparse.Namespace) -> dict[str, Any]:
    """In this process: a plain step on deep copies, then the profile, then the comparison."""
    import copy

    import torch
    from compile_profile import profile

    model, opt, ids, labels = bert_step(args.layers, args.hidden, args.device)

    def make_step(model: Any, opt: Any) -> Any:
        def step(ids: Any, labels: Any) -> Any:
            opt.zero_grad()
            with torch.autocast(args.device, dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            opt.step()
            return loss

        return step

    plain = copy.deepcopy({"model": model, "opt": opt})
    torch.manual_seed(1)  # dropout draws the same masks in the plain step and in the profile's first run
    make_step(plain["model"], plain["opt"])(ids, labels)
    torch.manual_seed(1)
    baseline_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    baseline_device = None
    if args.device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        baseline_device = torch.cuda.max_memory_allocated()
    started = time.perf_counter()
    run = profile(
        make_step(model, opt),
        ids,
        labels,
        backend=args.backend,
        quick=args.quick,
        budget=args.budget,
        restore=False if args.no_restore else None,
    )
    wall_s = time.perf_counter() - started
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    device_peak = torch.cuda.max_memory_allocated() if args.device == "cuda" else None
    weights = max(
        float((a.detach().double() - b.detach().double()).abs().max())
        for a, b in zip(model.state_dict().values(), plain["model"].state_dict().values())
    )
    state = 0.0
    steps = []
    for p, q in zip(model.parameters(), plain["model"].parameters()):
        mine, theirs = opt.state[p], plain["opt"].state[q]
        steps.append(float(mine["step"]))
        state = max(state, *(float((mine[k].double() - theirs[k].double()).abs().max()) for k in mine))
    notes = {n.kind: n.values for n in run.notes}
    return {
        "restore": not args.no_restore,
        "status": run.status,
        "cell_runs": run.cell_runs,
        "wall_s": wall_s,
        "rss_before_profile_bytes": baseline_rss,
        "peak_rss_bytes": peak_rss,
        "device_peak_bytes": device_peak,
        "device_before_profile_bytes": baseline_device,
        "parameters": sum(p.numel() for p in model.parameters()),
        "copy_bytes": notes.get("state_put_back", {}).get("bytes"),
        "copy_kept_in": notes.get("state_put_back", {}).get("kept_in"),
        "state_advanced_runs": notes.get("state_advanced", {}).get("runs"),
        "weights_max_abs_diff": weights,
        "adamw_state_max_abs_diff": state,
        "adamw_steps": sorted(set(steps)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (the copy is then kept on the GPU where it fits)")
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-restore", action="store_true", help="(one profile, in this process)")
    parser.add_argument("--one", action="store_true", help="(internal) run one profile here and print its JSON")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    if args.one:
        print("RESULT " + json.dumps(one_profile(args)))
        return
    results = []
    for no_restore in (False, True):
        cmd = [sys.executable, __file__, "--one", "--layers", str(args.layers), "--hidden", str(args.hidden)]
        cmd += ["--backend", args.backend, "--budget", str(args.budget), "--device", args.device]
        cmd += ["--quick"] * args.quick + ["--no-restore"] * no_restore
        done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ)
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            sys.exit(f"the profile failed:\n{done.stderr[-3000:]}")
        results.append(json.loads(line.removeprefix("RESULT ")))
    import torch
    import transformers

    meta = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "machine": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_1min": os.getloadavg()[0],
    }
    mib = 2**20
    print(
        f"BERT ({args.layers} layers, hidden {args.hidden}), AdamW(fused=True), bf16 autocast, {args.backend}, "
        f"{args.device}"
    )
    print("restore  cell runs  copy      peak RSS   RSS before  wall     weights Δ   AdamW Δ    AdamW step")
    for r in results:
        copy_mib = f"{r['copy_bytes'] / mib:.1f} MiB" if r["copy_bytes"] else "—"
        print(
            f"{'yes' if r['restore'] else 'no':<8} {r['cell_runs']:<10} {copy_mib:<9} "
            f"{r['peak_rss_bytes'] / mib:>7.0f} MiB {r['rss_before_profile_bytes'] / mib:>7.0f} MiB "
            f"{r['wall_s']:>6.1f} s  {r['weights_max_abs_diff']:<10.3g}  {r['adamw_state_max_abs_diff']:<10.3g} "
            f"{r['adamw_steps']}"
        )
    with_restore, without = results
    print(f"FIGURE peak_rss_cost_mib {(with_restore['peak_rss_bytes'] - without['peak_rss_bytes']) / mib:.1f}")
    print(f"FIGURE parameters {with_restore['parameters']}")
    if args.device == "cuda":
        cost = (with_restore["device_peak_bytes"] - without["device_peak_bytes"]) / mib
        print(f"FIGURE device_peak_cost_mib {cost:.1f} (kept in: {with_restore['copy_kept_in']})")
    print(f"META {json.dumps(meta)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
