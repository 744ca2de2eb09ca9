"""Where a suite entry's peak memory comes from, eager against compiled (issue 34: on an H100 the built-in suite read
BERT's bf16 training step as peaking 1.27x higher compiled, 6.43 -> 8.17 GB, where GPT-2, T5 and Llama peaked lower).

The engine's memory stage (``engine/run/memory_stage.py``) resets CUDA's peak counter, makes one call of a variant and
reads ``max_memory_allocated``: the peak counts what was already allocated at the reset (the model, the optimizer's
state, whatever the profile holds) as well as what the call itself adds.  This script tells those apart, each way in a
fresh process of its own:

* ``plain``: the entry built as the suite's child builds it, plain ``torch.compile``; each of eager and compiled warmed
  with two calls, then one call measured: bytes allocated at the reset, the peak, and the call's own growth (peak less
  allocated).  Run eager first and compiled first, in two processes, so an order effect shows.
* ``engine``: ``compile_profile.profile`` of the same entry with the suite's options, with
  ``torch.cuda.reset_peak_memory_stats`` wrapped to record the bytes allocated at each reset, beside the peaks the
  run stores.

    PYTHONPATH=kernel_side python3 benchmarks/training_memory.py --entry "bert (training, bfloat16)" \
        --task training --dtype bfloat16 --size real --json out.json

A benchmark, not a unit test; it needs CUDA (peak memory is measured only there).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any


def child(spec: dict[str, Any]) -> dict[str, Any]:
    import torch
    from compile_profile.suites import collection as collections

    fn, args, own = collections.build_named(
        spec["collection"], spec["tasks"], spec["dtypes"], spec["size"], spec["entry"]
    )
    options = {**spec["options"], **own}
    torch.cuda.synchronize()
    built = torch.cuda.memory_allocated()
    if spec["way"] == "engine":
        import compile_profile

        resets: list[int] = []
        original = torch.cuda.reset_peak_memory_stats

        def recording_reset(*a: Any, **k: Any) -> None:
            resets.append(torch.cuda.memory_allocated())
            original(*a, **k)

        torch.cuda.reset_peak_memory_stats = recording_reset  # type: ignore[assignment]
        try:
            run = compile_profile.profile(fn, *args, **options)
        finally:
            torch.cuda.reset_peak_memory_stats = original  # type: ignore[assignment]
        return {
            "way": "engine",
            "built_bytes": built,
            "allocated_at_resets": resets,
            "peaks": {v.name: v.peak_memory_bytes for v in run.variants},
        }
    compiled = torch.compile(fn, backend=options.get("backend", "inductor"))
    calls = {"eager": fn, "compiled": compiled}
    out: dict[str, Any] = {"way": "plain", "order": spec["order"], "built_bytes": built}
    for name in spec["order"]:
        call = calls[name]
        for _ in range(2):
            call(*args)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        call(*args)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
        out[name] = {"allocated_at_reset": before, "peak": peak, "growth": peak - before}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", default="builtin")
    parser.add_argument("--entry")
    parser.add_argument("--task", default="training")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--size", default="real")
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--child", metavar="SPEC", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    spec = {
        "collection": args.collection,
        "entry": args.entry,
        "tasks": [args.task],
        "dtypes": [args.dtype],
        "size": args.size,
        "options": {"backend": "inductor", "quick": True, "budget": args.budget},
    }
    results = []
    for way, order in (("plain", ["eager", "compiled"]), ("plain", ["compiled", "eager"]), ("engine", [])):
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps({**spec, "way": way, "order": order})],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            print(f"{way} {order}: failed: {done.stderr.strip().splitlines()[-3:]}", file=sys.stderr)
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(result)
        print(json.dumps(result), flush=True)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"spec": spec, "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
