"""The ranked diagnosis of a Hugging Face training step, each cause's cost held against an independent measurement.

Workloads (random weights, nothing downloaded): a Qwen2-shaped decoder LM (4 layers, d=512, 8 heads, vocab
32k, batch 8x256) training step under bf16 autocast, once with a fused AdamW (``fused=True``: PyTorch runs its
step eagerly under torch.compile, by design) and once with the default (foreach) AdamW, which Dynamo traces.

For each, in one process: the tool's profile of the step through ``compile_profile.profile`` and its digest's
``diagnosis``; then the independent references, timed by back-to-back CUDA events (``bare_loop_ms``):
  * plain ``torch.compile`` of the same step against the tool's compiled median;
  * an ``eager_region`` cause at the ``opt.step()`` line against the same step compiled *without* the
    optimizer step (the cause removed): the difference is what the step costs the compiled call;
  * the ``outside_kernels`` cause against the compiled step's wall time less the device time its kernels
    were busy in one ``torch.profiler`` trace of this script's own.

Prints ``FIGURE workload name value`` lines and the diagnosis; ``--json`` writes everything.  A benchmark, not a
unit test.

    PYTHONPATH=kernel_side python3 benchmarks/diagnosis.py [--json out.json]
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from typing import Any

import torch

sys.path.insert(0, os.path.dirname(__file__))
from fidelity import CUDA, DEVICE, Figures, bare_loop_ms, environment, sync, write_json


def qwen2_step(fused: bool) -> tuple[Any, dict[str, Any]]:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    big = CUDA
    config = Qwen2Config(
        vocab_size=32000 if big else 1000,
        hidden_size=512 if big else 64,
        intermediate_size=1408 if big else 128,
        num_hidden_layers=4 if big else 1,
        num_attention_heads=8 if big else 4,
        num_key_value_heads=4 if big else 2,
        max_position_embeddings=512,
    )
    model = Qwen2ForCausalLM(config).to(DEVICE)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=fused if CUDA else None)
    ids = torch.randint(0, config.vocab_size, (8, 256) if big else (2, 32), device=DEVICE)
    dtype = torch.bfloat16 if CUDA else torch.float32

    def step():
        with torch.autocast(DEVICE, dtype=dtype, enabled=CUDA):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    def forward_backward():
        with torch.autocast(DEVICE, dtype=dtype, enabled=CUDA):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        model.zero_grad(set_to_none=True)
        return loss

    return step, {"model": model, "opt": opt, "forward_backward": forward_backward}


def step_line(step) -> int:
    """The cell line of ``opt.step()`` in ``step``'s source, as the tool numbers it (1 = ``def``)."""
    lines, _ = inspect.getsourcelines(step)
    return next(i for i, line in enumerate(lines, 1) if "opt.step()" in line)


def device_busy_ms(call) -> float:
    """The device time a call's kernels ran, from one torch.profiler trace of this script's own."""
    from torch.profiler import ProfilerActivity, profile

    call()
    sync()
    with profile(activities=[ProfilerActivity.CUDA] if CUDA else [ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            call()
        sync()
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA] if CUDA else []
    spans = sorted((e.time_range.start, e.time_range.end) for e in events)
    busy, end = 0.0, -1.0
    for s, e in spans:  # the union of kernel intervals: overlapping streams count once
        if s > end:
            busy += e - s
        elif e > end:
            busy += e - end
        end = max(end, e)
    return busy / 1e3 / 3


def measure(name: str, fused: bool) -> Figures:
    import compile_profile
    from compile_profile.digest.diagnosis import cause_text, diagnosis

    fig = Figures(workload=name)
    step, parts = qwen2_step(fused)
    run = compile_profile.profile(step, budget=3 if CUDA else 1, label=name)
    causes = diagnosis(run)
    best = run.variant(run.speedup.variant)
    fig.values.update(
        speedup=run.speedup.value,
        eager_ms=run.variant("eager").timing.median_ms,
        compiled_ms=best.timing.median_ms,
        breaks=len(run.graph_breaks),
        diagnosis=[cause_text(c) for c in causes],
        causes=[{"kind": c.kind, "line": c.line, "cost_ms": c.cost_ms, "cost_s": c.cost_s} for c in causes],
    )
    for c in causes:
        print(f"CAUSE {name} {cause_text(c)}")

    # plain torch.compile of the same step, timed back to back
    torch._dynamo.reset()
    plain = torch.compile(step)
    for _ in range(3):
        plain()
    sync()
    fig.values["plain_compiled_ms"] = bare_loop_ms(plain)
    fig.values["plain_eager_ms"] = bare_loop_ms(step)

    # the optimizer step removed: what it costs the compiled call
    line = step_line(step)
    region = next((c for c in causes if c.kind == "eager_region" and c.line == line), None)
    without = torch.compile(parts["forward_backward"])
    for _ in range(3):
        without()
    sync()
    fig.values["compiled_without_step_ms"] = bare_loop_ms(without)
    fig.values["step_cost_removed_ms"] = fig.values["plain_compiled_ms"] - fig.values["compiled_without_step_ms"]
    fig.values["step_region_cost_ms"] = region.cost_ms if region is not None else None
    opt, model = parts["opt"], parts["model"]
    for p in model.parameters():  # a step with gradients to apply (one with none does nothing)
        p.grad = torch.full_like(p, 1e-6)
    fig.values["eager_opt_step_ms"] = bare_loop_ms(lambda: opt.step())
    model.zero_grad(set_to_none=True)

    outside = next((c for c in causes if c.kind == "outside_kernels"), None)
    busy = device_busy_ms(plain)
    fig.values["plain_device_busy_ms"] = busy
    fig.values["plain_outside_ms"] = fig.values["plain_compiled_ms"] - busy
    fig.values["outside_cause_ms"] = outside.cost_ms if outside is not None else None
    for key, value in fig.values.items():
        if not isinstance(value, list):
            print(f"FIGURE {name} {key} {value}")
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--only", nargs="*", help="fused, unfused")
    args = parser.parse_args(argv)
    env = environment()
    print("ENV", env)
    results = []
    for name, fused in (("qwen2-step-fused-adamw", True), ("qwen2-step-foreach-adamw", False)):
        if args.only and not any(o in name for o in args.only):
            continue
        results.append(measure(name, fused))
        torch._dynamo.reset()
    if args.json:
        write_json(args.json, env, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
