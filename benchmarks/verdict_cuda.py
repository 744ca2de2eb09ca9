"""Issue 31's verdict cases on CUDA (benchmark, not a test): a miscompile, an eager fallback, and a Hugging Face
training step whose state the profile restores, with the restore's memory cost against torch's own counters.

    PYTHONPATH=kernel_side python3 verdict_cuda.py OUT_DIR [--small]

Writes OUT_DIR/verdict-cuda.json (headlines, labels, notes, memory figures) and prints them.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import json
import os
import subprocess
import sys
import time

import torch
import torch._inductor.config as inductor_config
from compile_profile.digest.notes import note_text
from compile_profile.digest.summary import summarize
from compile_profile.engine.run.api import profile_cell
from compile_profile.engine.session.options import ProfileOptions
from compile_profile.render.text import render_text
from torch._inductor.custom_graph_pass import CustomGraphPass

DEV = "cuda" if torch.cuda.is_available() else "cpu"
SMALL = "--small" in sys.argv


class AddBecomesSub(CustomGraphPass):
    """tests/test_verdict.py's miscompile: each aten.add.Tensor rewritten as sub after grad."""

    def __call__(self, graph: torch.fx.Graph) -> None:
        for node in graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor):
            node.target = torch.ops.aten.sub.Tensor

    def uuid(self) -> str:
        return "compile-profile-gpu-verdict-add-becomes-sub-1"


def cell(body: str, ns: dict, **options):
    opts = ProfileOptions(**{"budget": 1.0, **options})
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result, _ = profile_cell(body, ns, opts, source="%%compile_profile\n" + body, line_offset=1)
    return result.run


def facts(run) -> dict:
    s = summarize(run)
    return {
        "status": run.status,
        "device": f"{run.device.type} {run.device.name}",
        "headline": s["headline"],
        "list_status": s["list_status"],
        "outcome_label": s["outcome"]["label"],
        "outcome_kind": s["outcome"]["kind"],
        "speedup_text": s["outcome"]["speedup_text"],
        "speedup_meaningful": s["outcome"]["speedup_meaningful"],
        "text_view_first_lines": render_text(run).splitlines()[:3],
        "correctness_ok": None if run.correctness is None else run.correctness.ok,
        "recompiles": len(run.recompiles),
        "notes": [{"kind": n.kind, "values": n.values, "text": note_text(n)} for n in run.notes],
        "errors": [e.message[:300] for e in run.errors],
    }


def miscompile() -> dict:
    torch.manual_seed(0)
    n = 256 if SMALL else 4096
    ns = {"torch": torch, "x": torch.randn(n, n, device=DEV), "b": torch.randn(n, n, device=DEV)}
    torch._dynamo.reset()
    with inductor_config.patch(post_grad_custom_post_pass=AddBecomesSub(), force_disable_caches=True):
        run = cell("y = torch.tanh(x) + b\n", ns)
    out = facts(run)
    torch._dynamo.reset()
    out["without_the_pass"] = facts(cell("y = torch.tanh(x) + b\n", ns))
    return out


def eager_fallback() -> dict:
    steps = itertools.count()
    n = 256 if SMALL else 4096
    ns = {"torch": torch, "x": torch.randn(n, n, device=DEV), "next_step": lambda: float(next(steps))}
    torch._dynamo.reset()
    return facts(cell("k = next_step()\ny = torch.tanh(x) * k + k\n", ns))


BUILD = """
import torch, transformers
torch.manual_seed(0)
dev = "{dev}"
config = transformers.BertConfig({cfg})
model = transformers.BertForMaskedLM(config).to(dev).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev == "cuda")
ids = torch.randint(0, config.vocab_size, ({batch}, {seq}), device=dev)
def train_step():
    with torch.autocast(dev, dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss
train_step()   # the user has trained before: AdamW's state exists
"""
STEP = "loss = train_step()\n"


def build_source() -> str:
    cfg = "num_hidden_layers=2, hidden_size=128, num_attention_heads=4, intermediate_size=256" if SMALL else ""
    return BUILD.format(dev=DEV, cfg=cfg, batch=4 if SMALL else 32, seq=64 if SMALL else 512)


def state_bytes(ns: dict) -> dict:
    model, opt = ns["model"], ns["opt"]
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    opt_state = sum(
        t.numel() * t.element_size() for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor)
    )
    return {"params": params, "buffers": buffers, "optimizer_state": opt_state}


def plain_memory() -> dict:
    """In a fresh process: the model's resident memory and one plain step's peak, by torch.cuda's counters."""
    code = build_source() + (
        "import json\n"
        "torch.cuda.synchronize(); resident = torch.cuda.memory_allocated(); torch.cuda.reset_peak_memory_stats()\n"
        "train_step(); torch.cuda.synchronize()\n"
        "print(json.dumps({'resident': resident, 'step_peak': torch.cuda.max_memory_allocated(),"
        " 'after': torch.cuda.memory_allocated()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return {"error": done.stderr[-2000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def training_step() -> dict:
    ns: dict = {}
    exec(build_source(), ns)
    plain = copy.deepcopy({"model": ns["model"], "opt": ns["opt"]}) if SMALL else None
    out: dict = {"state": state_bytes(ns)}
    if DEV == "cuda":
        torch.cuda.synchronize()
        out["resident_before_profile"] = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
    before = {k: v.detach().clone() for k, v in list(ns["model"].state_dict().items())[:4]}
    started = time.perf_counter()
    run = cell(STEP, ns, budget=2.0)
    out["profile_wall_s"] = time.perf_counter() - started
    if DEV == "cuda":
        torch.cuda.synchronize()
        out["profile_peak"] = torch.cuda.max_memory_allocated()
        out["resident_after_profile"] = torch.cuda.memory_allocated()
    out["card"] = facts(run)
    out["cell_runs"] = run.cell_runs
    # the weights moved by exactly one step from before the profile: AdamW's step count tells
    steps = {int(s["step"].item()) for s in ns["opt"].state.values() if "step" in s}
    out["adamw_step_counts_after_profile"] = sorted(steps)
    out["weights_changed_by_the_step"] = any(
        not torch.equal(before[k], ns["model"].state_dict()[k]) for k in before if before[k].is_floating_point()
    )
    del plain
    if DEV == "cuda":
        out["plain_fresh_process"] = plain_memory()
    return out


def main() -> None:
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    results = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name() if DEV == "cuda" else "cpu",
    }
    try:
        import triton

        results["triton"] = triton.__version__
    except ImportError:
        pass
    cases = [("miscompile", miscompile), ("eager_fallback", eager_fallback), ("training_step", training_step)]
    only = os.environ.get("CASES")
    for name, fn in [c for c in cases if not only or c[0] in only.split(",")]:
        started = time.perf_counter()
        try:
            results[name] = fn()
        except Exception as exc:  # noqa: BLE001 - a benchmark records what failed and goes on
            import traceback

            results[name] = {"exception": traceback.format_exc()[-3000:]}
            print(f"{name} raised {exc!r}", flush=True)
        results[name]["wall_s"] = time.perf_counter() - started
        print(json.dumps({name: results[name]}, indent=1, default=str)[:6000], flush=True)
        with open(os.path.join(out_dir, "verdict-cuda.json"), "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
