"""A real compile failure, read and bisected as a user meets it (issue 26): timm's ConvNeXt-T in channels-last
bf16 under ``torch.inference_mode()`` (torch 2.11 on an H200: plain ``torch.compile`` of it fails inside the
compile), profiled with ``--bisect``; the same code under ``torch.no_grad()`` profiled beside it.

Prints what the card says (the headline and warnings: the stage, the cell line and library frame, whether
``aot_eager`` runs it, what the bisection found and how long it took) and writes the run's error, bisection and
reproducer's size as JSON.  A benchmark, not a unit test: it needs timm and CUDA.

    PYTHONPATH=kernel_side python3 benchmarks/failure_bisect.py [--timeout 300] [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import torch
from compile_profile import profile
from compile_profile.digest import summarize


def convnext(device: str) -> tuple[torch.nn.Module, torch.Tensor]:
    import timm

    torch.manual_seed(0)
    model = timm.create_model("convnext_tiny", pretrained=False).to(device, torch.bfloat16).eval()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device=device, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    return model, x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--timeout", type=float, default=300.0, help="the bisection's bound (bisect_timeout_s)")
    parser.add_argument("--json", help="write the figures here")
    a = parser.parse_args()
    m, x = convnext(a.device)

    def under_inference_mode(x: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            y = m(x)
            return y.softmax(-1)

    def under_no_grad(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            y = m(x)
            return y.softmax(-1)

    out: dict[str, object] = {"torch": torch.__version__}
    for name, fn, options in (
        ("inference_mode", under_inference_mode, {"bisect": True, "bisect_timeout_s": a.timeout}),
        ("no_grad", under_no_grad, {}),
    ):
        torch._dynamo.reset()
        t0 = time.perf_counter()
        run = profile(fn, x, quick=True, budget=2.0, **options)
        wall = time.perf_counter() - t0
        s = summarize(run)
        print(f"== {name}: {run.status}, profile wall {wall:.1f} s")
        print(s["headline"])
        for w in s["warnings"]:
            print("  -", w)
        out[name] = {
            "status": run.status,
            "wall_s": wall,
            "headline": s["headline"],
            "warnings": s["warnings"],
            "errors": [
                {k: v for k, v in dataclasses.asdict(e).items() if k not in ("traceback", "reproducer")}
                | {"reproducer_chars": len(e.reproducer)}
                for e in run.errors
            ],
            "bisection": dataclasses.asdict(run.bisection) if run.bisection else None,
            "speedup": dataclasses.asdict(run.speedup) if run.speedup else None,
            "stage_s": run.stage_s,
        }
        if run.errors and run.errors[0].reproducer:
            with open(f"{a.json or 'failure'}.repro.py", "w") as f:
                f.write(run.errors[0].reproducer)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)


if __name__ == "__main__":
    main()
