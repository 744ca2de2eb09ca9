"""Counts ``compile-profile import-trace`` reads from TORCH_TRACE logs, held against tlparse's on the same logs.

    python benchmarks/tlparse_counts.py TLPARSE_BINARY TRACE.log[.gz]...

tlparse is not a dependency: pass its binary (``pip download tlparse --no-deps`` and unzip the wheel; its
``tlparse-*.data/scripts/tlparse``).  For each log, tlparse writes its report into a temporary directory, and
its counts are read from ``compile_directory.json`` (one entry per compile id and attempt, each with the
artifacts it wrote) and ``failures_and_restarts.html``: compile ids (attempts of one id counted once), graph
break reasons, recompile reasons, FX graph and AOTAutograd cache hits and misses, Dynamo graphs, failed
compiles.  Ours are the run's figures.  docs/import-trace.md explains every difference.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from compile_profile.engine.trace.log_import import import_trace

_ARTIFACT = re.compile(r"^(.*?)(?:_\d+)?\.(?:txt|html|json)$")
_COMPILE_ID = re.compile(r"^\[(\d+)/(\d+)(?:_\d+)?\]$")


def tlparse_counts(binary: str, log: Path) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "trace.log"
        opener = gzip.open if log.suffix == ".gz" else open
        with opener(log, "rb") as src, open(plain, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out = Path(tmp) / "out"
        done = subprocess.run(
            [binary, str(plain), "-o", str(out), "--overwrite", "--no-browser"],
            check=True,
            capture_output=True,
            text=True,
        )
        stats = dict(re.findall(r"(\w+): (\d+)", done.stdout + done.stderr))
        directory = json.loads((out / "compile_directory.json").read_text())
        failures = (out / "failures_and_restarts.html").read_text()
    artifacts: Counter[str] = Counter()
    ids = set()
    for key, entry in directory.items():
        found = _COMPILE_ID.match(key)
        if found:
            ids.add(found.groups())
        for a in entry.get("artifacts", []):
            name = _ARTIFACT.match(a["name"])
            artifacts[name.group(1) if name else a["name"]] += 1
    rows = re.findall(
        r"<td>\s*(?:<a[^>]*>)?\[[^\]]*\](?:</a>)?\s*</td>\s*<td>\s*(?:<pre>)?\s*([^<]*?)\s*(?:</pre>)?\s*</td>",
        failures,
    )
    return {
        "compile ids": len(ids),
        "Dynamo graphs": artifacts["dynamo_output_graph"],
        "graph breaks": artifacts["dynamo_graph_break_reason"],
        "recompiles": artifacts["recompile_reasons"],
        "FX graph cache hits": artifacts["fx_graph_cache_hit"] + artifacts["fx_graph_bundled_cache_hit"],
        "FX graph cache misses": artifacts["fx_graph_cache_miss"],
        "AOTAutograd cache hits": artifacts["aotautograd_cache_hit"],
        "AOTAutograd cache misses": artifacts["aotautograd_cache_miss"],
        "failed compiles": sum(1 for r in rows if r.strip() != "RestartAnalysis"),
        "restarts": sum(1 for r in rows if r.strip() == "RestartAnalysis"),
        "payloads cut short": int(stats.get("fail_payload_md5", 0)),
    }


def our_counts(log: Path) -> dict[str, int]:
    (run,) = import_trace(log)
    return {
        "compile ids": len(run.imported_trace.compile_ids) if run.imported_trace else 0,
        "Dynamo graphs": run.dynamo_graph_count,
        "graph breaks": len(run.graph_breaks),
        "recompiles": len(run.recompiles),
        "FX graph cache hits": run.cache.fx_graph_hits,
        "FX graph cache misses": run.cache.fx_graph_misses,
        "AOTAutograd cache hits": run.cache.aot_autograd_hits,
        "AOTAutograd cache misses": run.cache.aot_autograd_misses,
        "failed compiles": len(run.errors),
        "restarts": sum(len(r.reasons) for v in run.variants for r in v.compile_restarts),
        # the records skipped for a payload whose MD5 differs (the import's record validation, issue 32 item 3)
        "payloads cut short": sum(
            1 for r in getattr(run.imported_trace, "bad_record_lines", []) if "MD5" in r.why or "payload" in r.why
        ),
    }


def main(binary: str, logs: list[str]) -> None:
    for log in map(Path, logs):
        ours, theirs = our_counts(log), tlparse_counts(binary, log)
        print(f"{log}:")
        for key in ours:
            mark = "" if ours[key] == theirs[key] else "   <- differs"
            print(f"  {key:26} ours {ours[key]:4}  tlparse {theirs[key]:4}{mark}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
