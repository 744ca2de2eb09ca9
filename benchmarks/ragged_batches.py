"""A Hugging Face training loop over ragged batches, profiled over its real batches (issue 25, item 1) and held
against plain ``torch.compile`` of the same step over the same batches in the same process.

The batches: the sentences of this repository's ``docs/*.md`` (real English text of real lengths), each as
many tokens as its words times 4/3 (GPT-2's byte-pair encoding gives about that many per English word), shuffled
with a fixed seed, batched by 8 and padded to each batch's longest (what ``DataCollatorWithPadding`` does), at
most 512 tokens (a tokenizer's ``max_length``).  Token ids are random: the lengths are what the compiler sees.

The step: GPT-2 (random weights, ``--layers`` blocks) with its language-model loss, bf16 autocast on cuda,
``backward()``, fused AdamW.  Figures: the profile's recompiles per input, per-signature and sequence speedup;
plain ``torch.compile``'s compiles per input (``get_compilation_metrics()`` before and after each call) and its
epoch time against eager's (CUDA-synchronised wall time over the 20 batches, after a warm epoch).
A benchmark, not a unit test.

    PYTHONPATH=kernel_side python3 benchmarks/ragged_batches.py --device cuda [--layers 12] [--json out.json]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import statistics
import time
from typing import Any

import torch
from compile_profile import profile
from compile_profile.digest import run_digest

HERE = os.path.dirname(os.path.abspath(__file__))


def sentence_lengths() -> list[int]:
    """Tokens per sentence of the docs' prose (tables, code and headings left out)."""
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "..", "docs", "*.md"))):
        for para in re.split(r"\n\s*\n", open(path).read()):
            if para.lstrip().startswith(("|", "```", "#", "    ")):
                continue
            for sentence in re.split(r"(?<=[.!?])\s+", para):
                words = len(sentence.split())
                if words >= 3:
                    out.append(min(512, round(words * 4 / 3)))
    return out


def batches(n: int, size: int, vocab: int, device: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    lengths = sentence_lengths()
    random.Random(0).shuffle(lengths)
    g = torch.Generator().manual_seed(0)
    out = []
    for b in range(n):
        mine = lengths[b * size : (b + 1) * size]
        longest = max(mine)
        ids = torch.randint(0, vocab, (size, longest), generator=g)
        mask = torch.zeros(size, longest, dtype=torch.long)
        for i, length in enumerate(mine):
            mask[i, :length] = 1
        out.append((ids.to(device), mask.to(device)))
    return out


def gpt2_step(layers: int, device: str) -> tuple[Any, int]:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers)
    model = GPT2LMHeadModel(config).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=device == "cuda")

    def step(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
            loss = model(input_ids=ids, attention_mask=mask, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    return step, config.vocab_size


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def plain_compile(step: Any, inputs: list[Any], device: str) -> dict[str, Any]:
    """Plain torch.compile over the batches: compiles per input, then eager and compiled epochs timed alternately."""
    from torch._dynamo.utils import get_compilation_metrics

    torch._dynamo.reset()
    compiled = torch.compile(step)
    per_input, compile_s, reasons = [], [], []
    for args in inputs:
        before = len(get_compilation_metrics())
        compiled(*args)
        sync(device)
        new = get_compilation_metrics()[before:]
        per_input.append(len(new))
        reasons.append([str(getattr(m, "recompile_reason", "") or "")[:200] for m in new if m.is_forward is not False])
        compile_s.append(sum(m.entire_frame_compile_time_s or 0 for m in new))
    # an epoch as a training loop runs it (host and device overlap across steps), and with a synchronisation after
    # each step (as a profile's timed call ends): the two ratios tell how much of the gap is that overlap
    epochs: dict[str, list[float]] = {"eager": [], "compiled": [], "eager_synced": [], "compiled_synced": []}
    for _ in range(5):
        for name, fn in (("eager", step), ("compiled", compiled)):
            for synced in (False, True):
                sync(device)
                t0 = time.perf_counter()
                for args in inputs:
                    fn(*args)
                    if synced:
                        sync(device)
                sync(device)
                epochs[f"{name}_synced" if synced else name].append(time.perf_counter() - t0)
    eager, comp = statistics.median(epochs["eager"]), statistics.median(epochs["compiled"])
    eager_synced, comp_synced = statistics.median(epochs["eager_synced"]), statistics.median(epochs["compiled_synced"])
    return {
        "epoch_synced_speedup": eager_synced / comp_synced,
        "epoch_eager_synced_s": eager_synced,
        "epoch_compiled_synced_s": comp_synced,
        "compiles_per_input": per_input,
        "compile_s_per_input": compile_s,
        "recompile_reasons": reasons,
        "epoch_eager_s": eager,
        "epoch_compiled_s": comp,
        "epoch_speedup": eager / comp,
        "epochs": epochs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--budget", type=float, default=6.0)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument(
        "--plain-only",
        action="store_true",
        help="only plain torch.compile (run it in a fresh process on a cold cache: after the profile in the same "
        "process, Dynamo's automatic-dynamic memory and Inductor's cache would answer for it)",
    )
    a = parser.parse_args()
    step, vocab = gpt2_step(a.layers, a.device)
    inputs = batches(a.batches, a.batch_size, vocab, a.device)
    print("sequence lengths:", [ids.shape[1] for ids, _ in inputs])
    if a.plain_only:
        plain = plain_compile(step, inputs, a.device)
        print("plain torch.compile compiles per input:", plain["compiles_per_input"])
        print("plain compile seconds per input:", [round(s, 2) for s in plain["compile_s_per_input"]])
        for i, why in enumerate(plain["recompile_reasons"]):
            for reason in why:
                if reason:
                    print(f"  input {i + 1}: {reason}")
        print(f"FIGURE plain_epoch_speedup {plain['epoch_speedup']:.3f}")
        print(f"FIGURE plain_epoch_synced_speedup {plain['epoch_synced_speedup']:.3f}")
        print(
            f"epoch eager {plain['epoch_eager_s'] * 1e3:.1f} ms, compiled {plain['epoch_compiled_s'] * 1e3:.1f} ms; "
            f"synced each step: eager {plain['epoch_eager_synced_s'] * 1e3:.1f} ms, "
            f"compiled {plain['epoch_compiled_synced_s'] * 1e3:.1f} ms"
        )
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"args": vars(a), "torch": torch.__version__, "plain": plain}, f, indent=1)
        return
    t0 = time.perf_counter()
    run = profile(step, inputs=inputs, quick=True, budget=a.budget)
    wall = time.perf_counter() - t0
    d = run_digest(run)
    print(f"profile wall {wall:.1f} s")
    print(d["headline"])
    seq = d.get("inputs") or {}
    for key in ("text", "comparison_text"):
        if seq.get(key):
            print(seq[key])
    per_input = [0] * len(inputs)
    for r in run.recompiles:
        if r.input is not None:
            per_input[r.input] += 1
    print("profile recompiles per input:", per_input)
    plain = plain_compile(step, inputs, a.device)
    print("plain torch.compile compiles per input:", plain["compiles_per_input"])
    print(
        f"plain epoch: eager {plain['epoch_eager_s'] * 1e3:.1f} ms, compiled {plain['epoch_compiled_s'] * 1e3:.1f} ms,"
        f" {plain['epoch_speedup']:.2f}x"
    )
    if run.speedup is not None:
        s = run.speedup
        print(f"FIGURE profile_sequence_speedup {s.value:.3f} [{s.low:.3f}-{s.high:.3f}]")
    print(f"FIGURE plain_epoch_speedup {plain['epoch_speedup']:.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(
                {
                    "args": vars(a),
                    "torch": torch.__version__,
                    "device": torch.cuda.get_device_name() if a.device == "cuda" else "cpu",
                    "lengths": [ids.shape[1] for ids, _ in inputs],
                    "profile_wall_s": wall,
                    "headline": d["headline"],
                    "inputs": seq,
                    "recompiles_per_input": per_input,
                    "recompiles": [{"input": r.input, "reason": r.reason} for r in run.recompiles],
                    "stage_s": run.stage_s,
                    "plain": plain,
                },
                f,
                indent=1,
                default=str,
            )


if __name__ == "__main__":
    main()
