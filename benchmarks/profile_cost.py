"""What a profile costs (issue 24): the profile's wall time per stage (``ProfileRun.stage_s``) against the
least it could be, on a small transformer training step.

In one process, with a warm Inductor cache (a first, unreported profile fills it):
  * the tool's profile of the step (``compile_profile.profile``, default options, or ``--quick``): its wall
    time, its per-stage table, and the digest, text view and HTML report it is shown with (timed apart);
  * the least it could be: the same step eagerly once, under plain ``torch.compile`` (a fresh
    ``torch._dynamo.reset()``) for its first call, then both timed as many calls as the profile timed
    them (its samples times the calls per sample its timer chose).

Prints a table per profile and ``FIGURE name value`` lines; ``--json`` writes everything.  A benchmark,
not a unit test.

    TORCHINDUCTOR_CACHE_DIR=... PYTHONPATH=kernel_side python3 benchmarks/profile_cost.py \
        [--workload training-step|gpt2-inference] [--layers 2] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import torch
from compile_profile import profile
from compile_profile.digest import run_digest
from compile_profile.engine.timing.interleaved import calls_per_sample_for
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text


def training_step(layers: int, d_model: int, seq: int, batch: int, device: str = "cpu") -> Any:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=2 * d_model, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=device == "cuda")
    x = torch.randn(batch, seq, d_model, device=device)

    def step():
        with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
            loss = model(x).float().square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    return step


def gpt2_inference(layers: int, d_model: int, seq: int, batch: int, device: str = "cpu") -> Any:
    """A Hugging Face GPT-2 (random weights, ``layers`` blocks) reading a batch in bf16 on cuda, no grad."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers, n_embd=d_model, n_head=max(1, d_model // 64), n_positions=max(1024, seq))
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    model = GPT2LMHeadModel(config).to(device=device, dtype=dtype).eval()
    ids = torch.randint(0, config.vocab_size, (batch, seq), device=device)

    def step():
        with torch.no_grad():
            return model(ids).logits

    return step


WORKLOADS = {"training-step": training_step, "gpt2-inference": gpt2_inference}


def least(step: Any, run: Any) -> dict[str, float]:
    """Plain torch.compile: eager once, the compiled first call, then both timed as often as the profile did."""
    torch._dynamo.reset()
    t0 = time.perf_counter()
    step()
    eager_first = time.perf_counter() - t0
    compiled = torch.compile(step)
    t0 = time.perf_counter()
    compiled()
    compile_first = time.perf_counter() - t0
    timed = [v for v in run.variants if v.timing is not None]
    fastest_s = min(v.timing.min_ms for v in timed) / 1e3
    per_sample = calls_per_sample_for(fastest_s, run.device.type)
    t0 = time.perf_counter()
    for v in timed:
        fn = step if v.name == "eager" else compiled
        for _ in range(v.timing.n * per_sample):
            fn()
    if run.device.type == "cuda":
        torch.cuda.synchronize()
    timing = time.perf_counter() - t0
    torch._dynamo.reset()
    return {
        "eager first call": eager_first,
        "first call (plain torch.compile)": compile_first,
        "timing (same calls)": timing,
        "total": eager_first + compile_first + timing,
    }


def shown(run: Any) -> tuple[dict[str, float], int]:
    """What showing the run costs: the detail digest, the text view, the HTML report (its seconds, and its
    size in bytes as the second value)."""
    out: dict[str, float] = {}
    report_bytes = 0
    for name, fn in (("digest", run_digest), ("text view", render_text), ("HTML report", render_report_html)):
        t0 = time.perf_counter()
        shown_as = fn(run)
        out[name] = time.perf_counter() - t0
        if name == "HTML report":
            report_bytes = len(shown_as.encode())
    return out, report_bytes


def table(stage_s: dict[str, float], total: float) -> str:
    rows = [f"  {name:<34} {s:8.2f} s {100 * s / total:5.1f} %" for name, s in stage_s.items()]
    return "\n".join([*rows, f"  {'total':<34} {total:8.2f} s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="training-step")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="profile with quick=True")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (bf16 autocast and a fused AdamW on cuda)")
    parser.add_argument("--no-warm", action="store_true", help="skip the unreported profile that warms the cache")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    step = WORKLOADS[args.workload](args.layers, args.d_model, args.seq, args.batch, args.device)
    options = {"quick": True} if args.quick else {}
    if not args.no_warm:
        profile(step, **options)
        torch._dynamo.reset()
    t0 = time.perf_counter()
    run = profile(step, **options)
    wall = time.perf_counter() - t0
    showing, report_bytes = shown(run)
    floor = least(step, run)
    print(f"profile{' --quick' if args.quick else ''}: {wall:.2f} s wall")
    print(table(run.stage_s, sum(run.stage_s.values())))
    print("showing it:")
    print(table(showing, sum(showing.values())))
    print("the least it could be (plain torch.compile):")
    print(table({k: v for k, v in floor.items() if k != "total"}, floor["total"]))
    # issue 24's bound: the wall against the first calls plus the timed samples (stage "timing", warm-up apart)
    floor_in_run = sum(s for k, s in run.stage_s.items() if "first call" in k) + run.stage_s.get("timing", 0.0)
    print(f"FIGURE first_calls_and_timing_s {floor_in_run:.2f}")
    print(f"FIGURE profile_over_first_calls_and_timing {wall / floor_in_run:.2f}")
    print(f"FIGURE report_mb {report_bytes / 1e6:.2f}")
    print(f"FIGURE profile_wall_s {wall:.2f}")
    print(f"FIGURE least_s {floor['total']:.2f}")
    print(f"FIGURE profile_over_least {wall / floor['total']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "date": time.strftime("%Y-%m-%d"),
                    "machine": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(),
                    "torch": torch.__version__,
                    "python": sys.version.split()[0],
                    "workload": vars(args),
                    "speedup": run.speedup.value if run.speedup else None,
                    "profile_wall_s": wall,
                    "stage_s": run.stage_s,
                    "showing_s": showing,
                    "report_bytes": report_bytes,
                    "least_s": floor,
                },
                f,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
