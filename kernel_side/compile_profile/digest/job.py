"""A distributed job across its ranks: every figure and sentence of a job's view, derived once.

One ``profile`` call on every rank of a ``torchrun`` job is one *job*; each rank's ``ProfileRun`` carries
its ``DistributedRank`` (rank, world size, the job id rank 0 shared).  ``job_digest_of(runs)`` lays the ranks
side by side in a ``JobDigest``, each with the figures its run's summary (``summary_of``) gives (speedup, compile
time, graphs, breaks, recompiles), and says where a rank diverges from the rest of its job; ``job_digest(runs)``
is the same as JSON.  The views (``render.job_text``, ``render.job_report``, the panel) only lay it out.

A rank is compared with the other ranks figure by figure (``job_divergences``: the rules, each with its sentence).

A job of one run has nothing to compare and no divergences.

Beside the divergences, each row has the rank's eager and compiled medians (``eager_text``,
``compiled_text``, from the run digest's variant rows), its first error (``error_text``) and ``notes``:
a rank whose compiled call is mostly outside its kernels while another rank diverges in Dynamo graphs,
recompiles or compile time is waiting for that rank in its collectives, and its row says so (the rank
itself did nothing different, so it is a note, not a divergence).  A job whose every rank failed says so
in its headline, with the error.  ``peak_memory_note`` says once why a rank's peak memory was not
measured, and ``ddp_note`` in which order DDP all-reduces the pieces the DDP buckets column counts.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..profile_run import ProfileRun, Variant
from ..serialize import ADDED_LATER, to_dict
from .breakdown import OVERHEAD_BOUND, breakdown_row
from .distributed import ddp_bucket_count
from .facts import peak_memory_text
from .format import format_ms, format_s, format_share, format_speedup, one_line
from .job_divergences import DIVERGENCE_KINDS, JobDivergence, divergences
from .notes import error_message, variant_error
from .summary import RunSummary, summary_of
from .trace import NO_TIMINGS

HEADLINE_RANKS = 3  # divergent ranks the headline names; the rest are counted
MISSING_LISTED = 32  # missing ranks listed one by one (a row each in the views); the rest are counted
MISSING_TEXT = "no run (it did not finish profiling, or its run was not saved or imported)"
# Divergences that make a rank slower, so the ranks waiting for it in collectives are slow too (``notes``)
SLOWING_KINDS = {"graphs": "Dynamo graphs", "recompiles": "recompiles", "compile_time": "compile time"}
NOT_FINISHED_TEXT = "no compiled variant finished"
DDP_NOTE = (
    "DDP buckets: DDPOptimizer's pieces, numbered in forward order (piece 0 holds the first "
    "layers); DDP all-reduces its buckets the other way round, the last layers' first, as the backward "
    "produces their gradients"
)


@dataclass
class JobRow:
    """One rank of a job (``job_digest_of``'s rows): every figure with the digest's words for it."""

    rank: int
    run_id: str
    host: str
    status: str
    speedup: float | None
    speedup_text: str
    interval_text: str
    compile_s: float | None
    compile_text: str
    graphs: int
    ddp_buckets: int
    breaks: int
    recompiles: int
    cache_hits: int
    cache_misses: int
    peak_memory_bytes: int | None
    peak_memory_text: str
    collective_share: float | None
    collective_text: str
    cell_runs: int  # calls of the step this rank made
    eager_text: str = field(metadata=ADDED_LATER)  # this rank's eager and compiled medians ("9.43 ms", "failed", "—")
    compiled_text: str = field(metadata=ADDED_LATER)
    correctness_text: str = field(metadata=ADDED_LATER)
    error_text: str = field(metadata=ADDED_LATER)  # the run's first error, "stage: message"
    divergent: bool = False  # this rank differs from the others; ``reasons`` says how
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(
        default_factory=list, metadata=ADDED_LATER
    )  # what its figures include but it did not cause


@dataclass
class CompileSpread:
    """The compile times of a job's ranks, and the digest's sentence for their spread."""

    min_s: float | None
    median_s: float | None
    max_s: float | None
    text: str


@dataclass
class JobDigest:
    """One profile call on every rank of a distributed job (``job_digest_of``)."""

    job_id: str
    world_size: int
    backend: str
    torchrun_id: str
    ranks: list[int]
    missing_ranks: list[int]
    headline: str
    compile_spread: CompileSpread
    rows: list[JobRow]
    divergences: list[JobDivergence]
    peak_memory_note: str = field(metadata=ADDED_LATER)  # why the peak memory column reads "not measured", said once
    ddp_note: str = field(metadata=ADDED_LATER)  # the order DDP all-reduces the pieces the DDP buckets column counts


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def value_range(values: list[float], fmt: Callable[[float], str]) -> str:
    """``0.98×–1.07×``, ``3.1–3.4 s`` (one unit said once), ``950 ms–1.2 s``, or one figure when they agree."""
    low, high = fmt(min(values)), fmt(max(values))
    if low == high:
        return low
    if " " in low and " " in high and low.rsplit(" ", 1)[1] == high.rsplit(" ", 1)[1]:
        return f"{low.rsplit(' ', 1)[0]}–{high}"
    return f"{low}–{high}"


# -- one rank -----------------------------------------------------------------------------------


def _rank_of(run: ProfileRun) -> int:
    return run.distributed.rank if run.distributed is not None else 0


def _speedup_variant(run: ProfileRun) -> Variant | None:
    """The compiled variant the speedup names, else the first compiled one."""
    return run.speedup_variant or (run.compiled_variants[0] if run.compiled_variants else None)


def _collective_share(variant: Variant | None) -> tuple[float | None, str]:
    row = breakdown_row(variant) if variant is not None else None
    if row is None or row.kernels_ms <= 0:
        return None, "not measured"
    share = row.collective_ms / row.kernels_ms
    if row.collective_ms <= 0:
        return share, "0% of kernel time"
    return share, f"{format_share(share)} of kernel time ({format_ms(row.collective_ms)})"


def _median_text(summary: RunSummary, name: str | None) -> str:
    """A variant's timed median as the run digest has it, ``failed`` when it failed, ``—`` when not timed."""
    row = next((v for v in summary.variants if v.name == name), None)
    if row is None:
        return "—"
    if row.median_ms is not None:
        return format_ms(row.median_ms)
    return "failed" if row.error else "—"


def _error_text(run: ProfileRun) -> str:
    """The run's first error: ``compiled run: AssertionError: First bucket …``, or ``""``."""
    e = run.errors[0] if run.errors else None
    return f"{e.stage}: {one_line(error_message(e))}" if e is not None else ""


def _peak_cell(run: ProfileRun, best: Variant | None) -> str:
    """A short cell: the peak, or ``not measured (CPU)``; why it was not measured is said once, under the table."""
    if best is None or run.untimed:
        return "—"
    if best.peak_memory_bytes is not None:
        return peak_memory_text(run, best)
    if variant_error(best):
        return "—"
    return "not measured (CPU)" if run.device.type == "cpu" else "not measured"


def _row(run: ProfileRun, summary: RunSummary) -> JobRow:
    """A rank's figures: the run digest's own (``summary_of``) where it has them."""
    best = _speedup_variant(run)
    speedup = summary.speedup
    share, share_text = _collective_share(best)
    peak = best.peak_memory_bytes if best is not None else None
    d = run.distributed
    correctness = summary.correctness  # None: not checked
    return JobRow(
        rank=_rank_of(run),
        run_id=run.id,
        host=d.host if d is not None else "",
        status=run.status,
        speedup=speedup.value if speedup else None,
        speedup_text=speedup.text if speedup else "—",
        interval_text=speedup.interval_text if speedup else "",
        compile_s=summary.compile_s,
        compile_text=format_s(summary.compile_s),
        graphs=summary.graph_count,
        ddp_buckets=ddp_bucket_count(run),
        breaks=summary.graph_break_count,
        recompiles=summary.recompile_count,
        cache_hits=run.cache.fx_graph_hits + run.cache.aot_autograd_hits,
        cache_misses=run.cache.fx_graph_misses + run.cache.aot_autograd_misses,
        peak_memory_bytes=peak,
        peak_memory_text=_peak_cell(run, best),
        collective_share=share,
        collective_text=share_text,
        cell_runs=run.cell_runs,
        eager_text=_median_text(summary, run.eager.name if run.eager is not None else None),
        compiled_text=_median_text(summary, best.name if best is not None else None),
        correctness_text=correctness.text if correctness else "not checked",
        error_text=_error_text(run),
    )


# -- the job ------------------------------------------------------------------------------------


def _unique_ranks(runs: list[ProfileRun]) -> dict[int, ProfileRun]:
    """One run per rank, in rank order; a rank stored twice (imported again) keeps its newest run."""
    by_rank: dict[int, ProfileRun] = {}
    for run in runs:
        r = _rank_of(run)
        if r not in by_rank or run.created_at >= by_rank[r].created_at:
            by_rank[r] = run
    return dict(sorted(by_rank.items()))


_STAGE = {"compile": "at compile", "compiled run": "in the compiled run", "eager": "in the eager run"}


def _failed_at(run: ProfileRun) -> str:
    """``in the compiled run: AssertionError: First bucket …``: where and how the run's first error stopped it."""
    e = run.errors[0] if run.errors else None
    return f"{_STAGE.get(e.stage, f'at {e.stage}')}: {one_line(error_message(e))}" if e is not None else ""


def _every_rank_stopped(runs: dict[int, ProfileRun]) -> str:
    """``every rank failed in the compiled run: AssertionError: …`` when no rank finished, else ``""``."""
    statuses = {run.status for run in runs.values()}
    if len(runs) < 2 or "ok" in statuses or len(statuses) != 1:
        return ""
    every = f"every rank {'was ' if 'interrupted' in statuses else ''}{statuses.pop()}"
    errors = {_failed_at(run) for run in runs.values()}
    if len(errors) == 1:
        error = errors.pop()
        return f"{every} {error}" if error else every
    named = [f"rank {r} {at}" for r, run in runs.items() if (at := _failed_at(run))]
    more = f"; {len(named) - HEADLINE_RANKS} more ranks" if len(named) > HEADLINE_RANKS else ""
    return f"{every}: {'; '.join(named[:HEADLINE_RANKS])}{more}"


def _headline(
    runs: dict[int, ProfileRun],
    world_size: int,
    backend: str,
    rows: list[JobRow],
    divergences: list[JobDivergence],
    missing: list[int],
) -> str:
    n_ranks = len(runs)
    ranks = f"{n_ranks} of {world_size} ranks" if missing else _plural(n_ranks, "rank")
    stopped = _every_rank_stopped(runs)
    missing_text = _missing_text(missing, world_size - sum(1 for r in runs if r < world_size))
    if stopped and not any(d.what == "status" for d in divergences):
        tail = [missing_text] if missing else []
        return "; ".join([f"{ranks}{f' ({backend})' if backend else ''}: {stopped}", *tail])
    figures = []
    speedups = [row.speedup for row in rows if row.speedup is not None]
    if speedups:
        figures.append(f"speedup {value_range(speedups, format_speedup)}")
    else:
        from_traces = all(run.untimed for run in runs.values())
        figures.append(NO_TIMINGS if from_traces else "no speedup")
    compiles = [row.compile_s for row in rows if row.compile_s is not None]
    if compiles:
        figures.append(f"compile {value_range(compiles, format_s)}")
    head = f"{ranks}{f' ({backend})' if backend else ''}: {', '.join(figures)}"
    tail: list[str] = []
    if missing:
        tail.append(missing_text)
    by_rank: dict[int, list[str]] = {}
    for d in divergences:
        if d.what != "missing":
            by_rank.setdefault(d.rank, []).append(d.text)
    for r, texts in list(by_rank.items())[:HEADLINE_RANKS]:
        more = f" (and {len(texts) - 1} more)" if len(texts) > 1 else ""
        tail.append(f"rank {r} diverges: {texts[0]}{more}")
    if len(by_rank) > HEADLINE_RANKS:
        tail.append(f"{len(by_rank) - HEADLINE_RANKS} more ranks diverge")
    if not tail and n_ranks > 1:
        tail.append("the ranks agree")
    return "; ".join([head, *tail])


def missing_ranks(ranks: list[int], world_size: int, most: int = MISSING_LISTED) -> list[int]:
    """The first ``most`` ranks below ``world_size`` with no run, found from the gaps between the ranks that have
    one, never by walking every rank: a run's world size is what it says (2,000,000,000 in a hostile file)."""
    missing: list[int] = []
    expected = 0
    for r in [*sorted(r for r in set(ranks) if 0 <= r < world_size), world_size]:
        missing.extend(range(expected, min(r, expected + most - len(missing))))
        if len(missing) >= most:
            break
        expected = r + 1
    return missing


def _missing_text(listed: list[int], count: int) -> str:
    more = f" and {count - len(listed):,} more" if count > len(listed) else ""
    return f"no run from rank{'s' if count > 1 else ''} {', '.join(map(str, listed))}{more}"


def compile_spread(rows: list[JobRow]) -> CompileSpread:
    times = [row.compile_s for row in rows if row.compile_s is not None]
    if not times:
        # A failed variant's compile may have been measured, but no compiled variant gave a compile time to
        # compare (the run digest's compile_s is the speedup's variant's)
        failed = any(row.compiled_text == "failed" for row in rows)
        text = NOT_FINISHED_TEXT if failed else "no rank measured a compile time"
        return CompileSpread(min_s=None, median_s=None, max_s=None, text=text)
    median = statistics.median(times)
    spread = value_range(times, format_s)
    if len(times) == 1:
        text = f"compile {spread}"
    elif format_s(min(times)) == format_s(max(times)):
        text = f"compile {spread} on each of {len(times)} ranks"
    else:
        text = f"compile {spread} across {len(times)} ranks (median {format_s(median)})"
    return CompileSpread(min_s=min(times), median_s=median, max_s=max(times), text=text)


def _waiting_notes(
    runs: dict[int, ProfileRun], rows: list[JobRow], divergences: list[JobDivergence]
) -> dict[int, list[str]]:
    """A rank whose compiled call is mostly outside its kernels while another rank diverges in Dynamo graphs,
    recompiles or compile time: its call includes waiting for that rank in the collectives."""
    slow: dict[int, list[str]] = {}
    for d in divergences:
        if d.what in SLOWING_KINDS and SLOWING_KINDS[d.what] not in slow.get(d.rank, []):
            slow.setdefault(d.rank, []).append(SLOWING_KINDS[d.what])
    notes: dict[int, list[str]] = {}
    if not slow:
        return notes
    for row in rows:
        r = row.rank
        if r in slow:
            continue
        best = _speedup_variant(runs[r])
        c = breakdown_row(best) if best is not None else None
        if c is None or not c.trusted or c.median_ms <= 0 or c.kernels_ms >= OVERHEAD_BOUND * c.median_ms:
            continue
        for other, kinds in slow.items():
            notes.setdefault(r, []).append(
                f"its compiled call ({format_ms(c.median_ms)}, of which kernels {format_ms(c.kernels_ms)}) includes "
                f"waiting for rank {other}, which diverges in {' and '.join(kinds)}"
            )
    return notes


def peak_memory_note(runs: dict[int, ProfileRun], rows: list[JobRow]) -> str:
    """Why the peak memory column reads ``not measured``, said once: the run digest's note (``memory_note``)."""
    notes: dict[str, list[int]] = {}
    for row in rows:
        run = runs[row.rank]
        best = _speedup_variant(run)
        if best is not None and best.peak_memory_bytes is None and not variant_error(best):
            notes.setdefault(peak_memory_text(run, best), []).append(row.rank)
    if not notes:
        return ""
    if len(notes) == 1:
        text = next(iter(notes))
    else:
        text = "; ".join(
            f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))}: {note}" for note, r in notes.items()
        )
    return text if text.startswith("peak memory") else f"peak memory: {text}"  # under the table, say which column


def job_digest_of(runs: list[ProfileRun]) -> JobDigest:
    """The job of ``runs`` (one per rank, in any order) as its views show it; see the module's docstring."""
    if not runs:
        raise ValueError("a job needs at least one run")
    by_rank = _unique_ranks(runs)
    first = next(iter(by_rank.values()))
    d = first.distributed
    world_size = max([run.distributed.world_size for run in by_rank.values() if run.distributed] or [1])
    summaries = {r: summary_of(run) for r, run in by_rank.items()}
    rows = [_row(run, summaries[r]) for r, run in by_rank.items()]
    missing = missing_ranks(list(by_rank), world_size)
    found = [JobDivergence(rank=r, what="missing", text=MISSING_TEXT) for r in missing]
    found += sorted(divergences(by_rank, summaries), key=lambda x: (x.rank, DIVERGENCE_KINDS.index(x.what)))
    notes = _waiting_notes(by_rank, rows, found)
    for row in rows:
        row.reasons = [x.text for x in found if x.rank == row.rank]
        row.divergent = bool(row.reasons)
        row.notes = notes.get(row.rank, [])
    backend = d.backend if d is not None else ""
    return JobDigest(
        job_id=d.job_id if d is not None else first.id,
        world_size=world_size,
        backend=backend,
        torchrun_id=d.torchrun_id if d is not None else "",
        ranks=list(by_rank),
        missing_ranks=missing,
        headline=_headline(by_rank, world_size, backend, rows, found, missing),
        compile_spread=compile_spread(rows),
        rows=rows,
        divergences=sorted(found, key=lambda x: (x.rank, DIVERGENCE_KINDS.index(x.what))),
        peak_memory_note=peak_memory_note(by_rank, rows),
        ddp_note=DDP_NOTE if any(row.ddp_buckets for row in rows) else "",
    )


def job_digest(runs: list[ProfileRun]) -> dict[str, Any]:
    """``job_digest_of(runs)`` as JSON (``JobDigest``): what the REST API, the CLI's --json and ``Job.summary()``
    carry."""
    return to_dict(job_digest_of(runs))
