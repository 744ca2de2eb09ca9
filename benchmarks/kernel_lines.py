"""Every kernel's time on a cell line (issue 20, part 2), held to torch.profiler on plain ``torch.compile``.

For each cell workload, in one process:
  * the tool's profile of the cell through the magic's path (``profile_cell``) and, from its digest, the
    time per cell line of each variant: the share of the variant's kernel time (``CallBreakdown.kernels_ms``)
    on cell lines (target >= 0.95), the lines plus what the digest says no line holds against that kernel
    time (target 1 +- 1e-6), and the same share by the old rule, kernels alone (what the Lines view showed
    before the compiled variant's ops outside its graphs were counted on their lines);
  * an independent reference: the cell's code written as a function over the same globals, under plain
    ``torch.compile``, profiled by this script's own ``torch.profiler`` run with Python stacks: its device
    time per call (CPU: the top-level ops' host time), and of that the time of the ops it ran outside
    every compiled graph's region under ``torch/optim`` (the fused optimizer step Dynamo skips); the
    tool's compiled ``opt.step()`` line against the latter (target 0.8-1.25: two profiled passes) and the
    tool's compiled kernel time against the former (target 0.9-1.1), judged on CUDA only;
  * the helper-module workload: a graph Dynamo resumes inside ``noisy_scale`` of a module the cell
    imports, after a ``print`` there: its kernels' cell lines (target: the line calling the helper);
  * the cost of marking lines in the compiled variant's pass: the profiled call's median wall time with
    and without the marks, on the reference's compiled function, interleaved (reported, no target).

Prints ``FIGURE workload name value target verdict`` lines and, with ``--json``, everything; exits 1 when
a target is missed.  A benchmark, not a unit test; on CPU it runs with host times and tiny models.

    PYTHONPATH=kernel_side python3 benchmarks/kernel_lines.py [--only NAME ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

sys.path.insert(0, os.path.dirname(__file__))
from fidelity import CUDA, DEVICE, Figures, define_like_a_notebook, environment, sync, write_json

HELPER_MODULE = """import torch


def noisy_scale(h):
    print("scaling", h.shape)
    return h * 2 + 1
"""


@dataclass
class CellWorkload:
    name: str
    setup: Callable[[], dict[str, Any]]
    body: str
    returns: str  # what the reference function returns (one returning nothing lets Dynamo drop what is unused)
    step_line: int | None = None  # the cell line of opt.step(), when the cell has one
    helper_line: int | None = None  # the cell line calling into the helper module


def _qwen2_train() -> dict[str, Any]:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    if CUDA:
        config = Qwen2Config(
            vocab_size=32000,
            hidden_size=512,
            intermediate_size=1408,
            num_hidden_layers=4,
            num_attention_heads=8,
            num_key_value_heads=2,
            max_position_embeddings=1024,
        )
        tokens = (4, 256)
    else:
        config = Qwen2Config(
            vocab_size=512,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=1,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=128,
        )
        tokens = (2, 16)
    model = Qwen2ForCausalLM(config).to(DEVICE)
    model.train()
    return {
        "torch": torch,
        "model": model,
        "opt": torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True),
        "ids": torch.randint(0, config.vocab_size, tokens, device=DEVICE),
    }


def _helper() -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="kernel_lines_")
    with open(os.path.join(folder, "w2_helper.py"), "w") as f:
        f.write(HELPER_MODULE)
    sys.path.insert(0, folder)
    helper = importlib.import_module("w2_helper")
    n = 4096 if CUDA else 64
    torch.manual_seed(0)
    return {
        "torch": torch,
        "noisy_scale": helper.noisy_scale,
        "x": torch.randn(n, n, device=DEVICE),
        "w": torch.randn(n, n, device=DEVICE),
    }


WORKLOADS = [
    CellWorkload(
        "qwen2_train_fused_adamw",
        _qwen2_train,
        "out = model(ids, labels=ids)\nout.loss.backward()\nopt.step()\nopt.zero_grad(set_to_none=True)\n",
        "out.loss",
        step_line=4,
    ),
    CellWorkload(
        "helper_module_resume", _helper, "h = torch.relu(x @ w)\ny = noisy_scale(h)\nz = y.sum()\n", "z", helper_line=3
    ),
]


def _chain(e) -> list[str]:
    out, parent = [], e.cpu_parent
    while parent is not None:
        out.append(parent.name)
        parent = parent.cpu_parent
    return out


def reference_profile(call: Callable[[], Any], calls: int = 10) -> dict[str, float]:
    """torch.profiler with Python stacks on ``call`` (plain torch.compile): per call, the kernel time of
    everything (CUDA: device time; CPU: top-level ops' host time) and of the top-level ops outside every
    compiled graph's region, all of them and those under ``torch/optim``."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        call()
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if CUDA else [])
    with profile(activities=activities, with_stack=True) as prof:
        for _ in range(calls):
            call()
        sync()
    events = prof.events()
    if CUDA:
        total_us = sum(e.device_time_total for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
    else:
        total_us = sum(e.cpu_time_total for e in events if "::" in e.name and not any("::" in a for a in _chain(e)))
    outside_us = optimizer_us = 0.0
    for e in events:
        if "::" not in e.name or e.device_type == torch.autograd.DeviceType.CUDA:
            continue
        chain = _chain(e)
        if any("::" in a or "CompiledFxGraph" in a for a in chain):
            continue  # inside another op, or in a compiled graph
        us = e.device_time_total if CUDA else e.cpu_time_total
        outside_us += us
        if any("torch/optim/" in a for a in chain):
            optimizer_us += us
    return {
        "kernels_ms": total_us / 1e3 / calls,
        "outside_graphs_ms": outside_us / 1e3 / calls,
        "outside_graphs_optimizer_ms": optimizer_us / 1e3 / calls,
    }


def marking_cost(run, variant: str, call: Callable[[], Any], code, rounds: int = 5) -> dict[str, Any]:
    """The compiled variant's profiled call's median wall time with and without line marks, interleaved."""
    from compile_profile.engine.kernels import profiler_pass
    from compile_profile.engine.kernels.compiled_times import CompiledRule

    marked, bare = [], []
    for _ in range(rounds):
        for with_marks, out in ((True, marked), (False, bare)):
            profiler_pass.measure_variant(
                run,
                variant,
                call,
                lambda: None,
                rule=CompiledRule.of(run, variant),
                code=code if with_marks else None,
                line_offset=0,
            )
            out.append(run.variant(variant).kernel_profile.profiled_call_ms)
    return {
        "marked_ms": statistics.median(marked),
        "unmarked_ms": statistics.median(bare),
        "ratio": statistics.median(marked) / statistics.median(bare),
        "marked_all": marked,
        "unmarked_all": bare,
    }


def _judge(fig: Figures, key: str, lo: float, hi: float) -> None:
    value = fig.values.get(key)
    fig.verdicts[key] = "n/a" if value is None else ("ok" if lo <= value <= hi else "MISS")


def measure(w: CellWorkload, budget: float) -> Figures:
    from compile_profile.digest.lines import line_times
    from compile_profile.engine.kernels import profiler_pass as kernel_profiler
    from compile_profile.engine.run.api import ProfileOptions, profile_cell
    from compile_profile.serialize import to_dict

    fig = Figures(w.name)
    val = fig.values
    ns = w.setup()
    source = "%%compile_profile\n" + w.body
    with contextlib.redirect_stdout(io.StringIO()):
        result, _ = profile_cell(w.body, ns, ProfileOptions(budget=budget), source=source, line_offset=1)
    run = result.run
    if run.status != "ok":
        raise RuntimeError(f"{w.name}: profile failed: {[(e.stage, e.message) for e in run.errors]}")
    lt = line_times(run)
    val["lines"] = to_dict(lt)
    focus = run.speedup.variant if run.speedup else next(v for v in lt.variants if v != "eager")
    for variant in lt.variants:
        tag = "eager" if variant == "eager" else "compiled"
        kp = run.variant(variant).kernel_profile
        if kp is None or kp.breakdown is None or (tag == "compiled" and variant != focus):
            continue
        kernels_ms = kp.breakdown.kernels_ms
        on_lines = sum(r.time_ms.get(variant) or 0.0 for r in lt.rows)
        val[f"{tag}_kernels_ms"] = kernels_ms
        val[f"{tag}_on_lines_ms"] = on_lines
        val[f"{tag}_on_lines_share"] = on_lines / kernels_ms if kernels_ms else None
        val[f"{tag}_lines_and_off_lines_over_kernels"] = (
            (on_lines + lt.off_lines_ms.get(variant, 0.0)) / kernels_ms if kernels_ms else None
        )
        _judge(fig, f"{tag}_on_lines_share", 0.95, 1.0 + 1e-9)
        _judge(fig, f"{tag}_lines_and_off_lines_over_kernels", 1 - 1e-6, 1 + 1e-6)
        if tag == "compiled":
            kernels_on_lines = sum(k.device_time_ms or 0.0 for k in run.kernels if k.variant == variant and k.lines)
            val["compiled_on_lines_share_kernels_alone"] = kernels_on_lines / kernels_ms if kernels_ms else None
            val["compiled_outside_graphs_ms"] = kp.outside_graphs_ms
    rows = {r.line: r for r in lt.rows}
    if w.step_line is not None:
        step = rows.get(w.step_line)
        val["step_line_eager_ms"] = step.time_ms.get("eager") if step else None
        val["step_line_compiled_ms"] = step.time_ms.get(focus) if step else None
        val["step_line_compiled_ops"] = step.eager_ops.get(focus) if step else None
        # the compiled column has the fused step Dynamo skipped (it read nothing there before)
        fig.verdicts["step_line_compiled_ms"] = "ok" if (val["step_line_compiled_ms"] or 0.0) > 0 else "MISS"
    if w.helper_line is not None:
        resumed = [g for g in run.graphs if g.kind == "dynamo" and "w2_helper.py" in g.code]
        prefixes = tuple(g.id.rsplit("/", 1)[0] + "/" for g in resumed)
        helper_kernels = [k for k in run.kernels if k.graph_id.startswith(prefixes)] if prefixes else []
        val["helper_kernels"] = [(k.name, k.lines, k.device_time_ms) for k in helper_kernels]
        val["helper_kernels_on_the_calling_line"] = (
            sum(1 for k in helper_kernels if k.lines == [w.helper_line]) / len(helper_kernels)
            if helper_kernels
            else None
        )
        _judge(fig, "helper_kernels_on_the_calling_line", 1.0, 1.0)

    # The reference: the same code as a plain function over the same globals, under plain torch.compile.
    ref_source = "def ref():\n" + "".join(f"    {line}\n" for line in w.body.splitlines()) + f"    return {w.returns}\n"
    ref = define_like_a_notebook(ref_source, ns)
    compiled = torch.compile(ref)
    # profiler_passes: an empty session first, as the tool's passes have (after the tool's last pass tore
    # CUPTI down, the next session recorded no device event on torch 2.11), and one teardown at the end
    with contextlib.redirect_stdout(io.StringIO()), kernel_profiler.profiler_passes(run.device.type):
        compiled()
        reference = reference_profile(compiled)
        val["reference"] = reference
        if val.get("compiled_kernels_ms") and reference["kernels_ms"]:
            val["compiled_kernels_over_reference"] = val["compiled_kernels_ms"] / reference["kernels_ms"]
            if CUDA:  # on CPU the reference's top-level ops leave out Inductor's C++ kernels (no ATen ops)
                _judge(fig, "compiled_kernels_over_reference", 0.9, 1.1)
        if w.step_line is not None and reference["outside_graphs_optimizer_ms"]:
            val["step_line_compiled_over_reference"] = (val["step_line_compiled_ms"] or 0.0) / reference[
                "outside_graphs_optimizer_ms"
            ]
            if CUDA:  # host times of two passes apart: on a loaded 2-core CPU they differed 3x
                _judge(fig, "step_line_compiled_over_reference", 0.8, 1.25)
        val["marking_cost"] = marking_cost(run, focus, compiled, ref.__code__)
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--budget", type=float, default=3.0 if CUDA else 1.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    env = environment()
    print("ENV " + " ".join(f"{k}={v}" for k, v in env.items()), flush=True)
    results = []
    for w in WORKLOADS:
        if args.only and w.name not in args.only:
            continue
        fig = measure(w, args.budget)
        for key, verdict in fig.verdicts.items():
            print("FIGURE", w.name, key, fig.values.get(key), verdict, flush=True)
        for key in (
            "compiled_on_lines_share_kernels_alone",
            "compiled_outside_graphs_ms",
            "step_line_eager_ms",
            "step_line_compiled_ms",
            "step_line_compiled_ops",
            "helper_kernels",
        ):
            if key in fig.values:
                print("VALUE", w.name, key, fig.values[key], flush=True)
        print("VALUE", w.name, "reference", fig.values.get("reference"), flush=True)
        cost = fig.values.get("marking_cost") or {}
        print(
            "COST",
            w.name,
            f"profiled call with line marks {cost.get('marked_ms')} ms, without {cost.get('unmarked_ms')} ms, "
            f"ratio {cost.get('ratio')}",
            flush=True,
        )
        for row in fig.values["lines"]["rows"]:
            print("LINE", w.name, row["line"], row["time_ms"], row["eager_ops"], row["code"], flush=True)
        print("OFF_LINES", w.name, fig.values["lines"]["off_lines_text"], flush=True)
        results.append(fig)
    if args.json:
        write_json(args.json, env, results)
    return 1 if any(v == "MISS" for r in results for v in r.verdicts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
