"""Plain-text view of a distributed job: ``str(job)`` and ``compile-profile job ID``.

The job's headline, the spread of its compile times, a row per rank (with its eager and compiled medians),
the notes on the table's columns (why peak memory was not measured, DDP's bucket order), each rank's
correctness sentence, error and notes, then each divergence as ``rank 1: …``.  It lays out
``digest.job.JobDigest`` and words nothing itself.
"""

from __future__ import annotations

from ..digest.job import JobDigest, JobRow
from .text import text_table

HEADERS = [
    "RANK",
    "RUN",
    "HOST",
    "STATUS",
    "EAGER",
    "COMPILED",
    "SPEEDUP",
    "INTERVAL",
    "COMPILE",
    "GRAPHS",
    "DDP BUCKETS",
    "BREAKS",
    "RECOMPILES",
    "CACHE HIT/MISS",
    "PEAK MEMORY",
    "COLLECTIVES",
    "CELL RUNS",
    "",
]


def _cells(row: JobRow) -> list[str]:
    return [
        str(row.rank),
        row.run_id,
        row.host or "—",
        row.status,
        row.eager_text,
        row.compiled_text,
        row.speedup_text,
        row.interval_text or "—",
        row.compile_text,
        str(row.graphs),
        str(row.ddp_buckets),
        str(row.breaks),
        str(row.recompiles),
        f"{row.cache_hits}/{row.cache_misses}",
        row.peak_memory_text,
        row.collective_text,
        str(row.cell_runs),
        "DIVERGES" if row.divergent else "",
    ]


def render_job_text(digest: JobDigest) -> str:
    torchrun = f", torchrun {digest.torchrun_id}" if digest.torchrun_id else ""
    lines = [
        f"job {digest.job_id}{torchrun}",
        digest.headline,
        digest.compile_spread.text,
        text_table(HEADERS, [_cells(row) for row in digest.rows]),
    ]
    lines += [note for note in (digest.peak_memory_note, digest.ddp_note) if note]
    for row in digest.rows:
        if correctness := row.correctness_text:
            lines.append(f"rank {row.rank} correctness: {correctness}")
        if error := row.error_text:
            lines.append(f"rank {row.rank} error: {error}")
        lines += [f"rank {row.rank} note: {note}" for note in row.notes]
    if digest.divergences:
        lines.append("divergences:")
        lines += [f"  rank {d.rank}: {d.text}" for d in digest.divergences]
    return "\n".join(lines)
