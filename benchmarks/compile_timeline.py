"""The compile timeline of a training step held against Dynamo's own per-compile metrics (issue 25, item 2).

Profiles the step (``--quick``: the compile facts are the same, the kernel pass and reference are skipped) on a
cold or warm Inductor cache, then prints the digest's timeline rows (``digest.timeline.compile_rows``: each compile
id's outermost spans and shown phases) next to what Dynamo itself recorded for the same compile ids in the same
process (``torch._dynamo.utils.get_compilation_metrics()``: ``entire_frame_compile_time_s``,
``backend_compile_time_s``, ``inductor_compile_time_s``, ``code_gen_time_s``), and the first call's wall time
against the compiles it holds.  A benchmark, not a unit test.

    PYTHONPATH=kernel_side python3 benchmarks/compile_timeline.py --device cuda --layers 24 --d-model 1024 \
        --seq 512 --batch 8 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Any

import torch
from compile_profile import profile
from compile_profile.digest.timeline import compile_timeline
from compile_profile.serialize import to_dict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from profile_cost import training_step  # the same step the cost benchmark profiles


def dynamo_metrics() -> list[dict[str, Any]]:
    from torch._dynamo.utils import get_compilation_metrics

    out = []
    for m in get_compilation_metrics():
        row = {"compile_id": str(m.compile_id)}
        for field in (
            "entire_frame_compile_time_s",
            "backend_compile_time_s",
            "inductor_compile_time_s",
            "code_gen_time_s",
            "is_forward",
        ):
            row[field] = getattr(m, field, None)
        out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", help="write the figures here")
    a = parser.parse_args()
    step = training_step(a.layers, a.d_model, a.seq, a.batch, a.device)
    from torch._dynamo.utils import clear_compilation_metrics

    torch._dynamo.reset()
    clear_compilation_metrics()
    run = profile(step, quick=True, budget=1.0)
    metrics = dynamo_metrics()
    timeline = compile_timeline(run)
    rows = to_dict(timeline.rows) if timeline else []
    print(timeline.text if timeline else "no timeline")
    # the timeline's row of a compile is its frame's compile plus the backward compiled lazily at the first
    # backward() (``entire_backward_compile``); Dynamo's metrics log the frame's (``is_forward``) apart
    print(
        f"{'compile':8} {'when':11} {'timeline':>9} {'of it bwd':>9} {'dynamo frame':>13} {'backend':>9} {'inductor':>9} cache"
    )
    for r in rows:
        mine = [m for m in metrics if m["compile_id"] == r["compile_id"]]
        frame = sum(m["entire_frame_compile_time_s"] or 0 for m in mine)
        backend = sum(m["backend_compile_time_s"] or 0 for m in mine)
        inductor = sum(m["inductor_compile_time_s"] or 0 for m in mine)
        backward = sum(p["duration_s"] for p in r["phases"] if p["name"] == "entire_backward_compile")
        print(
            f"{r['compile_id']:8} {r['when']:11} {r['total_s']:9.2f} {backward:9.2f} {frame:13.2f} {backend:9.2f} "
            f"{inductor:9.2f} {r['cache_text']}"
        )
        for p in r["phases"]:
            print(f"    {'  ' * p['depth']}{p['name']:<40} {p['duration_s']:8.2f} s  ({p['family']})")
    v = next(v for v in run.compiled_variants)
    first = [r["total_s"] for r in rows if r["when"] == "first call"]
    print(f"FIGURE first_call_s {v.first_call_s:.2f}")
    print(f"FIGURE first_call_compiles_s {sum(first):.2f}")
    print(f"FIGURE timeline_total_s {sum(r['total_s'] for r in rows):.2f}")
    print(f"FIGURE dynamo_metrics_frame_s {sum(m['entire_frame_compile_time_s'] or 0 for m in metrics):.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(
                {
                    "args": vars(a),
                    "torch": torch.__version__,
                    "device": torch.cuda.get_device_name() if a.device == "cuda" else platform.processor(),
                    "cache": run.cache.state,
                    "first_call_s": v.first_call_s,
                    "text": timeline["text"] if timeline else "",
                    "rows": rows,
                    "dynamo_metrics": metrics,
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
