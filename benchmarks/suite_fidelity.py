"""A stored suite held against plain ``torch.compile`` (issue 34): for each entry that passed, the same step built
again in a fresh process, compiled with plain ``torch.compile`` (the suite's backend and mode), eager and compiled
timed interleaved (one call each, alternating, medians), and its graph breaks counted by ``torch._dynamo.explain``
in that process.  The suite's speedup agrees when plain's lies inside the suite's interval or within 10 % of it;
graph breaks agree when the suite's count equals explain's (the README says when Dynamo's logged breaks exceed
explain's: a break before any traced op ends no graph).  A benchmark, not a unit test.

    PYTHONPATH=kernel_side python3 benchmarks/suite_fidelity.py SUITE_ID [--db PATH] [--rounds 40] [--json out.json]

``--processes N`` times plain in N fresh processes and compares their median: on a small CPU step the speedup
moves between processes by more than one process's interval (hand-written attention at L=512 on 2 cores: 1.08×,
1.55×, 1.28×, 1.10×, 1.12× in five), so one process's figure is a draw from that spread.

``--engine-too`` profiles the entry with ``compile_profile.profile`` (the suite's options) in that fresh process
first, then times plain: where the suite and plain disagree, it tells a difference of the engine's timing (the
engine in the fresh process agrees with the suite, not with plain) from one of the moment or the process (it agrees
with plain).  A launch-bound GPU model's speedup moves with the host CPU's speed: eager waits on the CPU and
compiled less so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 0.10


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: the entry built as the suite's child builds it, plain torch.compile, interleaved timing."""
    import torch
    from compile_profile.suites import collection as collections

    fn, args, own = collections.build_named(
        spec["collection"], spec["tasks"], spec["dtypes"], spec["size"], spec["entry"]
    )
    options = {**spec["options"], **own}
    modes = options.get("modes") or [None]
    compiled = torch.compile(
        fn, backend=options.get("backend", "inductor"), mode=modes[0], dynamic=options.get("dynamic")
    )
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
    engine: dict[str, Any] = {}
    if spec.get("engine_too"):
        import compile_profile

        profiled = compile_profile.profile(fn, *args, **options)
        s = profiled.speedup
        eager_v = profiled.variant("eager")
        engine = {
            "engine_speedup": s.value if s else None,
            "engine_low": s.low if s else None,
            "engine_high": s.high if s else None,
            "engine_eager_ms": eager_v.timing.median_ms if eager_v.timing else None,
            "engine_compiled_ms": profiled.speedup_variant.timing.median_ms
            if profiled.speedup_variant and profiled.speedup_variant.timing
            else None,
        }
        del profiled
        torch._dynamo.reset()

    def timed(f: Any) -> float:
        sync()
        start = time.perf_counter()
        f(*args)
        sync()
        return (time.perf_counter() - start) * 1000

    started = time.perf_counter()
    compiled(*args)
    first_call_s = time.perf_counter() - started
    for _ in range(3):  # warm both, as the profile's warm-up does
        fn(*args)
        compiled(*args)
    eager_ms, compiled_ms = [], []
    deadline = time.perf_counter() + spec["budget_s"]
    while len(eager_ms) < spec["rounds"] and (time.perf_counter() < deadline or len(eager_ms) < 5):
        eager_ms.append(timed(fn))
        compiled_ms.append(timed(compiled))
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(*args)
    return {
        "eager_ms": statistics.median(eager_ms),
        "compiled_ms": statistics.median(compiled_ms),
        "speedup": statistics.median(eager_ms) / statistics.median(compiled_ms),
        "samples": len(eager_ms),
        "first_call_s": first_call_s,
        "explain_graph_breaks": explained.graph_break_count,
        "explain_graphs": explained.graph_count,
        **engine,
    }


def write_json(path: str, record: Any, digest: Any, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "suite": record.id,
                "torch": record.torch_version,
                "device": record.device,
                "settings": digest.settings_text,
                "load_before": os.getloadavg()[0],
                "rows": rows,
            },
            f,
            indent=2,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite_id", nargs="?")
    parser.add_argument("--db")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--budget", type=float, default=6.0, help="seconds of interleaved timing per entry")
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this entry; repeat")
    parser.add_argument(
        "--processes", type=int, default=1, help="time plain in this many fresh processes (their median is compared)"
    )
    parser.add_argument("--engine-too", action="store_true", help="profile with the engine in the fresh process too")
    parser.add_argument("--child", metavar="SPEC", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0

    from compile_profile.store import RunStore
    from compile_profile.suites.digest import suite_digest
    from compile_profile.suites.storage import load_suite, runs_of

    with RunStore(args.db) as store:
        record = load_suite(store, args.suite_id)
        digest = suite_digest(record, runs_of(store, record))
    s = record.settings
    rows = []
    for row in digest.rows:
        if row.status != "pass" or row.speedup is None or (args.only and row.name not in args.only):
            continue
        spec = {
            "collection": s.collection,
            "entry": row.name,
            "tasks": s.tasks,
            "dtypes": s.dtypes,
            "size": s.size,
            "options": s.profile_options,
            "rounds": args.rounds,
            "budget_s": args.budget,
        }
        runs = []
        for i in range(args.processes):  # the engine's profile, where asked, in the first process only
            done = subprocess.run(
                [sys.executable, __file__, "--child", json.dumps({**spec, "engine_too": args.engine_too and i == 0})],
                capture_output=True,
                text=True,
                timeout=900,
            )
            if done.returncode != 0:
                print(
                    f"{row.name}: plain torch.compile failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr
                )
                break
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        if not runs:
            continue
        plain = {**runs[0], "speedup": statistics.median(r["speedup"] for r in runs)}
        spread = [r["speedup"] for r in runs]
        low, high = row.speedup_low, row.speedup_high
        inside = low is not None and high is not None and low <= plain["speedup"] <= high
        close = abs(plain["speedup"] / row.speedup - 1) <= TOLERANCE
        result = {
            "entry": row.name,
            "suite_speedup": row.speedup,
            "suite_low": low,
            "suite_high": high,
            "plain_speedup": plain["speedup"],
            "plain_speedups": spread,
            "speedup_agrees": inside or close,
            "inside_plain_spread": min(spread) <= row.speedup <= max(spread),
            "how": "inside the interval" if inside else ("within 10 %" if close else "DISAGREES"),
            "suite_graph_breaks": row.graph_breaks,
            "explain_graph_breaks": plain["explain_graph_breaks"],
            "breaks_agree": row.graph_breaks == plain["explain_graph_breaks"],
            **{k: plain[k] for k in ("eager_ms", "compiled_ms", "samples", "first_call_s")},
            **{k: v for k, v in plain.items() if k.startswith("engine_")},
        }
        rows.append(result)
        print(
            f"{row.name:32} suite {row.speedup_text:40} plain {plain['speedup']:.2f}× "
            f"({result['how']}); breaks {row.graph_breaks} vs explain {plain['explain_graph_breaks']}"
            + (f"; plain's {len(spread)} processes {min(spread):.2f}×–{max(spread):.2f}×" if len(spread) > 1 else "")
            + (f"; engine here {plain['engine_speedup']:.2f}×" if plain.get("engine_speedup") else ""),
            flush=True,
        )
        if args.json:  # after each entry: a GPU call's time limit may end the script before the last
            write_json(args.json, record, digest, rows)
    agree = sum(r["speedup_agrees"] for r in rows)
    breaks = sum(r["breaks_agree"] for r in rows)
    spread_note = ""
    if args.processes > 1:
        inside_spread = sum(r["inside_plain_spread"] for r in rows)
        spread_note = f"; the suite's speedup lies inside plain's {args.processes} processes' range for {inside_spread}"
    print(f"speedup agrees for {agree} of {len(rows)}; graph breaks agree for {breaks} of {len(rows)}{spread_note}")
    return 0 if agree == len(rows) and breaks == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
