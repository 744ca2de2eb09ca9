"""Where a suite ran and with what, worded once for its digest: the setup a speedup depends on besides the code
(``SuiteEnvironment``: torch, the device, the host's CPU and cores, torch's threads, the settings), its "where" and
"settings" lines, and when it ran.

Contract: plain functions of the stored record (``records.SuiteRecord``) and the entries' runs; ``digest.py`` puts
their results into the ``SuiteDigest``, ``compare.py`` names where two suites' ``SuiteEnvironment`` differ.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from ..digest.format import format_s
from ..profile_run import ProfileRun
from .records import SuiteRecord


@dataclass
class SuiteEnvironment:
    """Where a suite ran, as far as a speedup depends on it: two suites' figures compare as code against code only
    where these are equal (``compare.compare_suites`` says which differ).  On GPUs the host's CPU counts too: BERT
    base's bf16 inference read 1.15×, 1.68× and 1.17× in suites on three H100 hosts, its eager step waiting on the
    host's launches (docs/benchmarks.md, 2026-12-05)."""

    torch: str
    device: str  # "cpu", "cuda"
    device_name: str  # the GPU's name, or the CPU's model on CPU; "" where the suite did not record it
    cpu: str  # the host's CPU model; ""
    cores: int  # the host's logical CPUs; 0 where not recorded
    host: str
    settings: str  # ``settings_text``: the tasks, dtypes, backend and options
    # torch's intra-op threads in the entries' runs ("2 threads", "1-4 threads" where they differ); "" where no run
    # recorded them.  A CPU speedup moves with them (OMP_NUM_THREADS=1 against 2 read the same collection's MLP
    # 1.05× apart), and before this the comparison read two such suites' setups as alike.
    threads: str = ""


def created_text(created_at: str) -> str:
    """An ISO time as the views show it: ``2026-07-05 01:23 UTC`` (absolute: it needs no clock to stay true)."""
    try:
        moment = dt.datetime.fromisoformat(created_at)
    except ValueError:
        return created_at
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def where_text(record: SuiteRecord, threads: str = "") -> str:
    """ "torch 2.11.0+cu130 on cuda (NVIDIA H100 80GB HBM3), host vm, 16 cores, torch at 1 thread"; the device's name,
    the cores and torch's threads (``threads_text``) where the suite recorded them."""
    named = f" ({record.device_name})" if record.device_name else ""
    cores = f", {record.cores} cores" if record.cores else ""
    at = f", torch at {threads}" if threads else ""
    return f"torch {record.torch_version} on {record.device}{named}, host {record.host}{cores}{at}"


def threads_text(runs: Iterable[ProfileRun]) -> str:
    """torch's intra-op threads over the entries' ``runs``: "2 threads", "1-4 threads" where they differ; "" where
    none recorded its settings."""
    counts = sorted({r.settings.torch_threads for r in runs if r.settings is not None})
    if not counts:
        return ""
    span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"{span} thread{'' if counts == [1] else 's'}"


def settings_text(record: SuiteRecord) -> str:
    s = record.settings
    o = s.profile_options
    parts = [", ".join(s.tasks) + ", " + ", ".join(s.dtypes)]
    parts.append(f"backend {o.get('backend', 'inductor')}")
    if o.get("modes"):
        parts.append("mode " + ", ".join(o["modes"]))
    if o.get("dynamic") is not None:
        parts.append("dynamic" if o["dynamic"] else "static")
    if o.get("quick"):
        parts.append("--quick")
    parts.append(f"limit {format_s(s.timeout_s)} per entry")
    if s.collection == "builtin":
        parts.append(f"{s.size} sizes")
    if s.shards > 1:
        parts.append(f"{s.shards} shards")
    return " · ".join(parts)
