"""Synthetic ``ProfileRun``s for the store and CLI tests, built from the dataclasses (no torch needed)."""

from __future__ import annotations

import datetime as dt
import sqlite3

from compile_profile.profile_run import (
    CacheStats,
    Correctness,
    Device,
    Graph,
    GraphBreak,
    Kernel,
    ProfileRun,
    Recompile,
    Speedup,
    Timing,
    Variant,
)
from compile_profile.store import SCHEMA_VERSION, RunStore


def timestamp(minutes_ago: float = 0.0) -> str:
    moment = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=minutes_ago)
    return moment.isoformat(timespec="seconds")


def make_run(
    run_id: str,
    *,
    created_at: str | None = None,
    label: str = "matmul + relu",
    notebook: str = "",
    eager_ms: float = 2.0,
    compiled_ms: float = 1.0,
    kernel_names: tuple[str, ...] = ("cpp_fused_relu_0", "extern_mm"),
    graph_breaks: int = 1,
    recompiles: int = 0,
    status: str = "ok",
) -> ProfileRun:
    """A plausible two-variant run: eager vs inductor, with graphs, breaks and kernels as asked."""
    ratio = eager_ms / compiled_ms
    return ProfileRun(
        id=run_id,
        created_at=created_at or timestamp(),
        label=label,
        cell_source=f"# {label}\ny = torch.relu(x @ w)\nprint(y.sum())\n",
        device=Device(type="cpu", name="Test CPU"),
        torch_version="2.13.0",
        variants=[
            Variant(
                name="eager",
                timing=Timing(
                    median_ms=eager_ms,
                    p10_ms=eager_ms * 0.9,
                    p90_ms=eager_ms * 1.1,
                    n=30,
                    samples_ms=[eager_ms * 0.9, eager_ms, eager_ms * 1.1],
                ),
            ),
            Variant(
                name="inductor",
                backend="inductor",
                timing=Timing(median_ms=compiled_ms, p10_ms=compiled_ms * 0.9, p90_ms=compiled_ms * 1.1, n=30),
                compile_s=3.5,
                first_call_s=3.6,
                torch_compile_call='torch.compile(fn, backend="inductor")',
            ),
        ],
        speedup=Speedup(value=ratio, low=ratio * 0.9, high=ratio * 1.1, variant="inductor"),
        graphs=[Graph(id="g0", kind="dynamo", code="def forward(self, x, w): ...", variant="inductor")],
        graph_breaks=[
            GraphBreak(reason="print is not traceable", line=3, code_line="print(y.sum())", variant="inductor")
            for _ in range(graph_breaks)
        ],
        recompiles=[Recompile(reason="size of x changed", variant="inductor") for _ in range(recompiles)],
        kernels=[
            Kernel(
                name=name,
                language="extern" if name.startswith("extern") else "cpp",
                source=f"// source of {name}\nvoid {name}() {{}}\n",
                graph_id="g0",
                variant="inductor",
            )
            for name in kernel_names
        ],
        cache=CacheStats(fx_graph_misses=1, state="cold"),
        correctness=Correctness(ok=True, max_abs_diff=0.0),
        status=status,
        notebook=notebook,
        cell_runs=1,
    )


def put_many(path: str, prefix: str, count: int) -> None:
    """Worker for the multi-process test: one process putting ``count`` runs, each in its own transaction."""
    store = RunStore(path, timeout=60)
    for i in range(count):
        store.put(make_run(f"{prefix}-{i}", label=f"{prefix} run {i}", notebook=f"{prefix}.ipynb"))
    store.close()


def tamper(db, run_id: str, **columns) -> None:
    """Write values into a stored row behind the store's back, as a hand edit or a broken copy would."""
    conn = sqlite3.connect(db)
    try:
        with conn:
            for column, value in columns.items():
                conn.execute(f"UPDATE runs SET {column} = ? WHERE id = ?", (value, run_id))
    finally:
        conn.close()


# What each of the store's migrations (compile_profile/store/migrations.py) added, by the version it leads to
_MIGRATION_UNDONE = {
    7: ("ALTER TABLE suites DROP COLUMN summary_json",),
    6: ("DROP TABLE suite_models", "DROP TABLE suites"),
    5: ("DROP TABLE run_artifacts", "DROP TABLE artifacts"),
    4: ("DROP INDEX runs_by_trace", "ALTER TABLE runs DROP COLUMN trace_sha256"),
    3: ("DROP INDEX runs_by_job", "ALTER TABLE runs DROP COLUMN job_id"),
}


def back_to_schema(conn: sqlite3.Connection, version: int) -> None:
    """Undo the migrations past ``version`` (2 to 6) on a store's connection, as an older compile-profile left the
    file: their tables, indexes and columns dropped and the file's ``user_version`` set back.  The caller commits."""
    for undone in range(SCHEMA_VERSION, version, -1):
        for statement in _MIGRATION_UNDONE[undone]:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
