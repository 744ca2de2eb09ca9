"""Per-call cost of publishing a cell's assignments to the namespace (engine/cell.py, engine/cell/rewrite.py).

Compiles a four-assignment cell with the publishing setters and without, and times
back-to-back calls of each (compiled and eager), alternating, two rounds each:

    PYTHONPATH=kernel_side python3 benchmarks/cell_publishing.py [--device cuda] [--backend inductor]

Prints one ``OVERHEAD`` line per round; results and their reading are in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import compile_profile.engine.cell.function as cell_module
import compile_profile.engine.cell.rewrite as cell_rewrite
import torch

CELL = "a = lin(inp)\nb = a.relu()\nc = b * 2\nd = c + a\n"


def make_cell(device: str, publish: bool):
    ns = {"torch": torch, "lin": torch.nn.Linear(16, 16).to(device), "inp": torch.randn(4, 16, device=device)}
    if publish:
        return cell_module.cell_to_function(CELL, ns)
    original = cell_rewrite._PublishBindings.transform
    cell_rewrite._PublishBindings.transform = lambda self, statements: statements
    try:
        return cell_module.cell_to_function(CELL, ns)
    finally:
        cell_rewrite._PublishBindings.transform = original


def per_call_us(call, device: str, calls: int = 200, rounds: int = 30) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="aot_eager")
    args = parser.parse_args()
    for publish in (False, True, False, True):
        cell = make_cell(args.device, publish)
        torch._dynamo.reset()
        compiled = torch.compile(cell.fn, backend=args.backend)
        arguments = cell.arguments()
        with torch.no_grad():
            for _ in range(20):
                compiled(*arguments)
            compiled_us = per_call_us(functools.partial(compiled, *arguments), args.device)
            eager_us = per_call_us(functools.partial(cell.fn, *arguments), args.device)
        graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
        print(
            f"OVERHEAD {args.device} {args.backend} publish={publish}: compiled {compiled_us:.1f} us  "
            f"eager {eager_us:.1f} us  graphs so far {graphs}"
        )


if __name__ == "__main__":
    main()
