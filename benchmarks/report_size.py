"""The HTML report's size and write time on a run with many kernels (issue 24, part 2).

The run is synthetic, built from the render fixtures (``tests/render_fixtures.big_run``): ``--kernels``
kernels of Triton source (a quarter extern calls), with ``--duplicated`` of them a second variant's copy
of a first variant's kernel (same source, as a ``--sweep`` gives), and ``--graphs`` graphs of generated
code.  Writes the report ``--repeat`` times, interleaved with nothing else, and prints the median write
time, the file's size and what it is made of (plotly.js, code blocks).  A benchmark, not a unit test.

    PYTHONPATH=kernel_side:tests python3 benchmarks/report_size.py [--kernels 2500] [--json out.json] [--html out.html]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import statistics
import sys
import time

from compile_profile.profile_run import Graph
from compile_profile.render.report import render_report_html
from plotly.offline import get_plotlyjs
from render_fixtures import big_run

GRAPH_CODE = "\n".join(
    f"    mm_{i}: f32[8, 64, 128] = torch.ops.aten.mm.default(view_{i}, permute_{i});  view_{i} = permute_{i} = None"
    for i in range(80)
)


def make_run(kernels: int, duplicated: int, graphs: int):
    run = big_run(kernels - duplicated)
    copies = [
        dataclasses.replace(k, name=f"{k.name}_mat", variant="inductor/max-autotune-no-cudagraphs")
        for k in run.kernels[:duplicated]
    ]
    run.kernels += copies
    run.graphs = [
        Graph(id=f"g{i}", kind="post_grad", variant="inductor/default", code=f"def forward(self):\n{GRAPH_CODE}\n")
        for i in range(graphs)
    ]
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=2500)
    parser.add_argument("--duplicated", type=int, default=500)
    parser.add_argument("--graphs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    parser.add_argument("--html", help="keep the report here (for benchmarks/report_paint.mjs)")
    args = parser.parse_args(argv)
    run = make_run(args.kernels, args.duplicated, args.graphs)
    sources = sum(len(k.source) for k in run.kernels) + sum(len(g.code) for g in run.graphs)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        html = render_report_html(run)
        times.append(time.perf_counter() - t0)
    size = len(html.encode())
    if args.html:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(html)
    plotly = len(get_plotlyjs().encode())
    figures = {
        "kernels": len(run.kernels),
        "graphs": len(run.graphs),
        "source_mb": sources / 1e6,
        "size_mb": size / 1e6,
        "plotly_mb": plotly / 1e6,
        "rest_mb": (size - plotly) / 1e6,
        "write_s_median": statistics.median(times),
        "write_s": times,
    }
    for name, value in figures.items():
        if name != "write_s":
            print(f"FIGURE {name} {value:.3f}" if isinstance(value, float) else f"FIGURE {name} {value}")
    if args.json:
        with open(args.json, "w") as f:
            meta = {"date": time.strftime("%Y-%m-%d"), "machine": platform.machine(), "python": sys.version.split()[0]}
            json.dump({**meta, **vars(args), **figures}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
