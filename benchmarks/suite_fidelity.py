"""A stored suite held against plain ``torch.compile`` (issue 34): for each entry that passed, the same step built
again in a fresh process, compiled with plain ``torch.compile`` (the suite's backend and mode), eager and compiled
timed interleaved (one call each, alternating, medians), and its graph breaks counted by ``torch._dynamo.explain``
in that process.  The suite's speedup agrees when plain's lies inside the suite's interval or within 10 % of it;
graph breaks agree when the suite's count equals explain's (the README says when Dynamo's logged breaks exceed
explain's: a break before any traced op ends no graph).  A benchmark, not a unit test.

    PYTHONPATH=kernel_side python3 benchmarks/suite_fidelity.py SUITE_ID [--db PATH] [--rounds 40] [--json out.json]
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

    loaded = collections.load(spec["collection"])
    entries = loaded.entries(tuple(spec["tasks"]), tuple(spec["dtypes"]), spec["size"])
    entry = next(e for e in entries if e.name == spec["entry"])
    fn, args, own = collections.build(entry)
    options = {**spec["options"], **own}
    modes = options.get("modes") or [None]
    compiled = torch.compile(
        fn, backend=options.get("backend", "inductor"), mode=modes[0], dynamic=options.get("dynamic")
    )
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)

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
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            print(f"{row.name}: plain torch.compile failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        plain = json.loads(done.stdout.strip().splitlines()[-1])
        low, high = row.speedup_low, row.speedup_high
        inside = low is not None and high is not None and low <= plain["speedup"] <= high
        close = abs(plain["speedup"] / row.speedup - 1) <= TOLERANCE
        result = {
            "entry": row.name,
            "suite_speedup": row.speedup,
            "suite_low": low,
            "suite_high": high,
            "plain_speedup": plain["speedup"],
            "speedup_agrees": inside or close,
            "how": "inside the interval" if inside else ("within 10 %" if close else "DISAGREES"),
            "suite_graph_breaks": row.graph_breaks,
            "explain_graph_breaks": plain["explain_graph_breaks"],
            "breaks_agree": row.graph_breaks == plain["explain_graph_breaks"],
            **{k: plain[k] for k in ("eager_ms", "compiled_ms", "samples", "first_call_s")},
        }
        rows.append(result)
        print(
            f"{row.name:32} suite {row.speedup_text:40} plain {plain['speedup']:.2f}× "
            f"({result['how']}); breaks {row.graph_breaks} vs explain {plain['explain_graph_breaks']}",
            flush=True,
        )
        if args.json:  # after each entry: a GPU call's time limit may end the script before the last
            write_json(args.json, record, digest, rows)
    agree = sum(r["speedup_agrees"] for r in rows)
    breaks = sum(r["breaks_agree"] for r in rows)
    print(f"speedup agrees for {agree} of {len(rows)}; graph breaks agree for {breaks} of {len(rows)}")
    return 0 if agree == len(rows) and breaks == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
