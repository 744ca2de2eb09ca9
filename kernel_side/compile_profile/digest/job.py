"""A distributed job across its ranks: every figure and sentence of a job's view, derived once.

One ``profile`` call on every rank of a ``torchrun`` job is one *job*; each rank's ``ProfileRun`` carries
its ``DistributedRank`` (rank, world size, the job id rank 0 shared).  ``job_digest(runs)`` lays the ranks
side by side, each with the figures ``summarize(run)`` gives that run (speedup, compile time, graphs,
breaks, recompiles), and says where a rank diverges from the rest of its job.  The views
(``render.job_text``, ``render.job_report``, the panel) only lay this dict out.

A rank is compared with the other ranks, figure by figure: what most ranks have is the job's figure,
and a rank with another one diverges.  Where no figure has a majority (two ranks that differ), a count
that should not grow (Dynamo graphs, graph breaks, recompiles) is expected at its smallest, so the rank
with more diverges; a figure with no better side (calls per stage, DDP buckets) is expected as rank 0 has
it, the rank whose decisions the others follow.  The rules, each with its sentence:

* ``graphs``: another number of Dynamo graphs;
* ``breaks``: other graph breaks (grouped as the run's view groups them, by cell line and reason);
* ``recompiles``: recompiled where the others did not, or another number of times (with the first
  recompile's failed guard and reason);
* ``compile_time``: compiled for more than ``SLOW_COMPILE_FACTOR`` times the median of the others with its
  cache state (cold, warm, partly cached) and more than ``SLOW_COMPILE_S`` longer;
* ``calls``: made another number of calls of the step in some stage: the ranks fell out of lock-step;
* ``inputs``: its first Dynamo graph took inputs of other shapes (``Graph.input_shapes``; another batch
  size on one rank: imbalanced ranks), naming only the inputs that differ;
* ``status``: failed or was interrupted where the others finished (such a rank's other figures are
  partial and not compared); a rank whose first call failed is the one that diverges, not the ranks
  that stopped with it (their only error is ``OTHER_RANK_FAILED``);
* ``correctness``: its compiled results match eager where the others' differ, or the other way round, or
  were not compared (the verdict, ``Correctness.ok``; without a majority the rank whose results differ
  diverges); each row's ``correctness_text`` is the run digest's sentence;
* ``ddp_buckets``: DDPOptimizer cut its graphs into another number of pieces;
* ``compile_ids``, ``cache``, ``collectives``, ``tensor_meta``, ``execution_order``: its compiles differ (other
  compile ids, other cache lookups, collectives in another order, other ops' shapes, graphs run in another order:
  ``job_compiles``, tlparse's multi-rank checks);
* ``missing``: a rank of the world size has no run.

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

from ..profile_run import OTHER_RANK_FAILED, ProfileRun, Variant
from . import contract
from .breakdown import OVERHEAD_BOUND, breakdown_row
from .distributed import ddp_bucket_count
from .facts import BreakGroup, break_groups, break_summary, cache_words, peak_memory_text
from .format import format_diff, format_ms, format_s, format_share, format_speedup, lines_of, one_line
from .guards import recompile_text
from .job_compiles import compile_divergences
from .majority import expected, who
from .notes import error_message, variant_error
from .summary import summarize
from .trace import NO_TIMINGS

# Ranks compiling the same step at once on one machine differ by more than 1.5x without diverging: they share
# Inductor's kernel cache, and the first to build a kernel builds it for the others (torch 2.6, 2 ranks on a
# 2-core CPU, a cold cache: rank 0 5.45 s, rank 1 3.08 s with a graph more).  "Far longer" is 2.5x.
SLOW_COMPILE_FACTOR = 2.5
SLOW_COMPILE_S = 1.0
HEADLINE_RANKS = 3  # divergent ranks the headline names; the rest are counted
MISSING_LISTED = 32  # missing ranks listed one by one (a row each in the views); the rest are counted
DIVERGENCE_KINDS = (
    "missing",
    "status",
    "calls",
    "inputs",
    "graphs",
    "breaks",
    "recompiles",
    "compile_ids",
    "cache",
    "collectives",
    "tensor_meta",
    "execution_order",
    "compile_time",
    "correctness",
    "ddp_buckets",
)
MISSING_TEXT = "no run (it did not finish profiling, or its run was not saved or imported)"
# Divergences that make a rank slower, so the ranks waiting for it in collectives are slow too (``notes``)
SLOWING_KINDS = {"graphs": "Dynamo graphs", "recompiles": "recompiles", "compile_time": "compile time"}
NOT_FINISHED_TEXT = "no compiled variant finished"
DDP_NOTE = (
    "DDP buckets: DDPOptimizer's pieces, numbered in forward order (piece 0 holds the first "
    "layers); DDP all-reduces its buckets the other way round, the last layers' first, as the backward "
    "produces their gradients"
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


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


def _median_text(summary: contract.RunSummary, name: str | None) -> str:
    """A variant's timed median as the run digest has it, ``failed`` when it failed, ``—`` when not timed."""
    row = next((v for v in summary["variants"] if v["name"] == name), None)
    if row is None:
        return "—"
    if row["median_ms"] is not None:
        return format_ms(row["median_ms"])
    return "failed" if row["error"] else "—"


def _error_text(run: ProfileRun) -> str:
    """The run's first error: ``compiled run: AssertionError: First bucket …``, or ``""``."""
    e = run.errors[0] if run.errors else None
    return f"{e.stage}: {one_line(error_message(e))}" if e is not None else ""


def _peak_cell(run: ProfileRun, best: Variant | None) -> str:
    """A short cell: the peak, or ``not measured (CPU)``; why it was not measured is said once, under the table."""
    if best is None or run.imported_trace is not None:
        return "—"
    if best.peak_memory_bytes is not None:
        return peak_memory_text(run, best)
    if variant_error(best):
        return "—"
    return "not measured (CPU)" if run.device.type == "cpu" else "not measured"


def _row(run: ProfileRun, summary: contract.RunSummary) -> contract.JobRow:
    """A rank's figures: the run digest's own (``summarize``) where it has them."""
    best = _speedup_variant(run)
    speedup = summary["speedup"]
    share, share_text = _collective_share(best)
    peak = best.peak_memory_bytes if best is not None else None
    d = run.distributed
    correctness = summary.get("correctness")  # summarize writes it (None: not checked)
    return {
        "rank": _rank_of(run),
        "run_id": run.id,
        "host": d.host if d is not None else "",
        "status": run.status,
        "speedup": speedup["value"] if speedup else None,
        "speedup_text": speedup["text"] if speedup else "—",
        "interval_text": speedup.get("interval_text", "") if speedup else "",
        "compile_s": summary["compile_s"],
        "compile_text": format_s(summary["compile_s"]),
        "graphs": summary["graph_count"],
        "ddp_buckets": ddp_bucket_count(run),
        "breaks": summary["graph_break_count"],
        "recompiles": summary["recompile_count"],
        "cache_hits": run.cache.fx_graph_hits + run.cache.aot_autograd_hits,
        "cache_misses": run.cache.fx_graph_misses + run.cache.aot_autograd_misses,
        "peak_memory_bytes": peak,
        "peak_memory_text": _peak_cell(run, best),
        "collective_share": share,
        "collective_text": share_text,
        "cell_runs": run.cell_runs,
        "eager_text": _median_text(summary, run.eager.name if run.eager is not None else None),
        "compiled_text": _median_text(summary, best.name if best is not None else None),
        "correctness_text": correctness.get("text", "not checked") if correctness else "not checked",
        "error_text": _error_text(run),
        "divergent": False,
        "reasons": [],
        "notes": [],
    }


# -- what the job's figure is -------------------------------------------------------------------


_expected = expected  # the job's figure (``majority``)
_who = who


def _stopped_for_another_rank(run: ProfileRun) -> bool:
    """Failed only because another rank's first call failed (every error is ``OTHER_RANK_FAILED``)."""
    return run.status == "failed" and bool(run.errors) and all(e.type == OTHER_RANK_FAILED for e in run.errors)


def _break_key(g: BreakGroup) -> tuple:
    return (g.line, g.inside, g.reason)


def _break_text(mine: list[BreakGroup], theirs: list[BreakGroup], who: str, of: str) -> str:
    keys = {_break_key(g) for g in theirs}
    my_keys = {_break_key(g) for g in mine}
    extra = [f"extra {break_summary(g, of)}" for g in mine if _break_key(g) not in keys]
    missing = [f"missing {break_summary(g, of)}" for g in theirs if _break_key(g) not in my_keys]
    return f"graph breaks differ from {who}': " + "; ".join(extra + missing)


def _input_shapes(run: ProfileRun) -> tuple[tuple[int, ...], ...]:
    """The input shapes of the run's first Dynamo graph (empty for a run that recorded none)."""
    graph = next((g for g in run.graphs if g.kind == "dynamo"), None)
    return tuple(tuple(s) for s in graph.input_shapes) if graph is not None else ()


def _shape(shape: tuple[int, ...]) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _inputs_text(mine: tuple, theirs: tuple, who: str) -> str:
    """``inputs [64, 128] where the others have [32, 128]``: only the inputs whose shapes differ."""
    if len(mine) != len(theirs):
        return f"{_plural(len(mine), 'graph input')} where {who} have {len(theirs)}"
    at = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    return (
        f"inputs {', '.join(_shape(mine[i]) for i in at)} where {who} have {', '.join(_shape(theirs[i]) for i in at)}"
    )


_VERDICT = {True: "match eager", False: "differ from eager", None: "were not compared"}


def _divergences(
    runs: dict[int, ProfileRun], summaries: dict[int, contract.RunSummary]
) -> list[contract.JobDivergence]:
    """Every way a rank differs from its job, rank by rank, in ``DIVERGENCE_KINDS`` order."""
    found: list[contract.JobDivergence] = []

    def add(rank: int, what: str, text: str) -> None:
        found.append({"rank": rank, "what": what, "text": text})

    if len(runs) < 2:
        return found

    # status: a rank that failed or was interrupted has partial figures; only the others are compared.
    # A rank that stopped only because another's first call failed (the lock-step) counts as ok here:
    # the rank whose own call failed is the one that diverges.
    stopped = {r for r, run in runs.items() if _stopped_for_another_rank(run)}
    statuses = {r: "ok" if r in stopped else run.status for r, run in runs.items()}
    status = _expected(statuses, size=lambda s: s != "ok")  # two ranks, one failed: the failed one diverges
    for r, s in statuses.items():
        if s != status:
            who = _who(statuses, r, status)
            error = runs[r].errors[0] if runs[r].errors else None
            why = f": {error.stage}: {one_line(error_message(error))}" if error is not None else ""
            if stopped and all(other in stopped for other in runs if other != r):
                add(r, "status", f"{s}{why}; {who} stopped there with it")
            else:
                add(r, "status", f"{s} where {who} {'are ok' if status == 'ok' else f'were {status}'}{why}")
    compared = {r: run for r, run in runs.items() if statuses[r] == status and r not in stopped}
    if len(compared) < 2:
        return found

    calls = {
        r: tuple(sorted(run.distributed.calls_by_stage.items())) if run.distributed else ()
        for r, run in compared.items()
    }
    expected_calls = _expected(calls)
    for r, mine in calls.items():
        if mine != expected_calls:
            dist = compared[r].distributed  # None where mine is (): no calls
            theirs, own = dict(expected_calls), dict(dist.calls_by_stage if dist is not None else {})
            stage = next(s for s in [*own, *theirs] if own.get(s, 0) != theirs.get(s, 0))
            add(
                r,
                "calls",
                f"broke the lock-step: {_plural(own.get(stage, 0), 'call')} of the step in stage "
                f"{stage!r} where {_who(calls, r, expected_calls)} made {theirs.get(stage, 0)}",
            )

    shapes = {r: s for r, run in compared.items() if (s := _input_shapes(run))}
    if len(shapes) > 1:
        expected_shapes = _expected(shapes)
        for r, mine in shapes.items():
            if mine != expected_shapes:
                add(r, "inputs", _inputs_text(mine, expected_shapes, _who(shapes, r, expected_shapes)))

    graphs = {r: summaries[r]["graph_count"] for r in compared}
    expected_graphs = _expected(graphs, size=lambda n: n)
    for r, n in graphs.items():
        if n != expected_graphs:
            add(
                r,
                "graphs",
                f"{_plural(n, 'Dynamo graph')} where {_who(graphs, r, expected_graphs)} have {expected_graphs}",
            )

    groups = {r: break_groups(run) for r, run in compared.items()}
    breaks = {r: frozenset(_break_key(g) for g in gs) for r, gs in groups.items()}
    expected_breaks = _expected(breaks, size=len)
    reference = next(r for r, keys in breaks.items() if keys == expected_breaks)
    for r, keys in breaks.items():
        if keys != expected_breaks:
            add(
                r,
                "breaks",
                _break_text(groups[r], groups[reference], _who(breaks, r, expected_breaks), lines_of(compared[r])),
            )

    recompiles = {r: summaries[r]["recompile_count"] for r in compared}
    expected_recompiles = _expected(recompiles, size=lambda n: n)
    for r, n in recompiles.items():
        if n != expected_recompiles:
            who = _who(recompiles, r, expected_recompiles)
            if n == 0:
                add(r, "recompiles", f"did not recompile where {who} recompiled {_times(expected_recompiles)}")
                continue
            theirs = "did not" if expected_recompiles == 0 else f"recompiled {_times(expected_recompiles)}"
            first = recompile_text(compared[r].recompiles[0], lines_of(compared[r]))
            add(r, "recompiles", f"recompiled {_times(n)} where {who} {theirs}; the first: {first}")

    compile_divergences(compared, add)  # compile ids, cache lookups, collectives, tensor metadata (``job_compiles``)

    compile_s = {r: s for r in compared if (s := summaries[r]["compile_s"]) is not None}
    # Ranks on one machine share Inductor's cache: the first to compile a graph fills it for the others, so
    # a cold rank's compile is held only to other cold ranks' (CI, torch 2.6: rank 0 cold 5.5 s, rank 1
    # partly cached 3.08 s, read as rank 0 diverging).  The rows show each rank's cache state.
    cache = {r: cache_words(compared[r], compared[r].speedup_variant) for r in compile_s}
    for r, seconds in compile_s.items():
        others = [s for o, s in compile_s.items() if o != r and cache[o] == cache[r]]
        if not others:
            continue
        median = statistics.median(others)
        if seconds > SLOW_COMPILE_FACTOR * median and seconds - median > SLOW_COMPILE_S:
            than = (
                f"the other rank took {format_s(median)}"
                if len(others) == 1
                else f"the others' median is {format_s(median)}"
            )
            add(r, "compile_time", f"compile {format_s(seconds)} where {than}")

    verdicts = {r: run.correctness.ok for r, run in compared.items() if run.correctness is not None}
    if len(verdicts) > 1:
        expected_verdict = _expected(verdicts, size=lambda ok: ok is not True)  # two ranks: the one that differs
        for r, ok in verdicts.items():
            if ok != expected_verdict:
                diff = c.max_abs_diff if (c := compared[r].correctness) is not None else None
                at = f" (max abs diff {format_diff(diff)})" if ok is not None and diff is not None else ""
                add(
                    r,
                    "correctness",
                    f"compiled results {_VERDICT[ok]} where "
                    f"{_who(verdicts, r, expected_verdict)}' {_VERDICT[expected_verdict]}{at}",
                )

    buckets = {r: ddp_bucket_count(run) for r, run in compared.items()}
    expected_buckets = _expected(buckets)
    for r, n in buckets.items():
        if n != expected_buckets:
            add(
                r,
                "ddp_buckets",
                f"{_plural(n, 'DDP bucket')} where {_who(buckets, r, expected_buckets)} have {expected_buckets}",
            )
    return found


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
    rows: list[contract.JobRow],
    divergences: list[contract.JobDivergence],
    missing: list[int],
) -> str:
    n_ranks = len(runs)
    ranks = f"{n_ranks} of {world_size} ranks" if missing else _plural(n_ranks, "rank")
    stopped = _every_rank_stopped(runs)
    missing_text = _missing_text(missing, world_size - sum(1 for r in runs if r < world_size))
    if stopped and not any(d["what"] == "status" for d in divergences):
        tail = [missing_text] if missing else []
        return "; ".join([f"{ranks}{f' ({backend})' if backend else ''}: {stopped}", *tail])
    figures = []
    speedups = [row["speedup"] for row in rows if row["speedup"] is not None]
    if speedups:
        figures.append(f"speedup {value_range(speedups, format_speedup)}")
    else:
        from_traces = all(run.imported_trace is not None for run in runs.values())
        figures.append(NO_TIMINGS if from_traces else "no speedup")
    compiles = [row["compile_s"] for row in rows if row["compile_s"] is not None]
    if compiles:
        figures.append(f"compile {value_range(compiles, format_s)}")
    head = f"{ranks}{f' ({backend})' if backend else ''}: {', '.join(figures)}"
    tail: list[str] = []
    if missing:
        tail.append(missing_text)
    by_rank: dict[int, list[str]] = {}
    for d in divergences:
        if d["what"] != "missing":
            by_rank.setdefault(d["rank"], []).append(d["text"])
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


def compile_spread(rows: list[contract.JobRow]) -> contract.CompileSpread:
    times = [row["compile_s"] for row in rows if row["compile_s"] is not None]
    if not times:
        # A failed variant's compile may have been measured, but no compiled variant gave a compile time to
        # compare (the run digest's compile_s is the speedup's variant's)
        failed = any(row.get("compiled_text") == "failed" for row in rows)
        text = NOT_FINISHED_TEXT if failed else "no rank measured a compile time"
        return {"min_s": None, "median_s": None, "max_s": None, "text": text}
    median = statistics.median(times)
    spread = value_range(times, format_s)
    if len(times) == 1:
        text = f"compile {spread}"
    elif format_s(min(times)) == format_s(max(times)):
        text = f"compile {spread} on each of {len(times)} ranks"
    else:
        text = f"compile {spread} across {len(times)} ranks (median {format_s(median)})"
    return {"min_s": min(times), "median_s": median, "max_s": max(times), "text": text}


def _waiting_notes(
    runs: dict[int, ProfileRun], rows: list[contract.JobRow], divergences: list[contract.JobDivergence]
) -> dict[int, list[str]]:
    """A rank whose compiled call is mostly outside its kernels while another rank diverges in Dynamo graphs,
    recompiles or compile time: its call includes waiting for that rank in the collectives."""
    slow: dict[int, list[str]] = {}
    for d in divergences:
        if d["what"] in SLOWING_KINDS and SLOWING_KINDS[d["what"]] not in slow.get(d["rank"], []):
            slow.setdefault(d["rank"], []).append(SLOWING_KINDS[d["what"]])
    notes: dict[int, list[str]] = {}
    if not slow:
        return notes
    for row in rows:
        r = row["rank"]
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


def peak_memory_note(runs: dict[int, ProfileRun], rows: list[contract.JobRow]) -> str:
    """Why the peak memory column reads ``not measured``, said once: the run digest's note (``memory_note``)."""
    notes: dict[str, list[int]] = {}
    for row in rows:
        run = runs[row["rank"]]
        best = _speedup_variant(run)
        if best is not None and best.peak_memory_bytes is None and not variant_error(best):
            notes.setdefault(peak_memory_text(run, best), []).append(row["rank"])
    if not notes:
        return ""
    if len(notes) == 1:
        text = next(iter(notes))
    else:
        text = "; ".join(
            f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))}: {note}" for note, r in notes.items()
        )
    return text if text.startswith("peak memory") else f"peak memory: {text}"  # under the table, say which column


def job_digest(runs: list[ProfileRun]) -> contract.JobDigest:
    """The job of ``runs`` (one per rank, in any order) as its views show it; see the module's docstring."""
    if not runs:
        raise ValueError("a job needs at least one run")
    by_rank = _unique_ranks(runs)
    first = next(iter(by_rank.values()))
    d = first.distributed
    world_size = max([run.distributed.world_size for run in by_rank.values() if run.distributed] or [1])
    summaries = {r: summarize(run) for r, run in by_rank.items()}
    rows = [_row(run, summaries[r]) for r, run in by_rank.items()]
    missing = missing_ranks(list(by_rank), world_size)
    divergences: list[contract.JobDivergence] = [{"rank": r, "what": "missing", "text": MISSING_TEXT} for r in missing]
    divergences += sorted(
        _divergences(by_rank, summaries), key=lambda x: (x["rank"], DIVERGENCE_KINDS.index(x["what"]))
    )
    notes = _waiting_notes(by_rank, rows, divergences)
    for row in rows:
        row["reasons"] = [x["text"] for x in divergences if x["rank"] == row["rank"]]
        row["divergent"] = bool(row["reasons"])
        row["notes"] = notes.get(row["rank"], [])
    backend = d.backend if d is not None else ""
    return {
        "job_id": d.job_id if d is not None else first.id,
        "world_size": world_size,
        "backend": backend,
        "torchrun_id": d.torchrun_id if d is not None else "",
        "ranks": list(by_rank),
        "missing_ranks": missing,
        "headline": _headline(by_rank, world_size, backend, rows, divergences, missing),
        "compile_spread": compile_spread(rows),
        "rows": rows,
        "divergences": sorted(divergences, key=lambda x: (x["rank"], DIVERGENCE_KINDS.index(x["what"]))),
        "peak_memory_note": peak_memory_note(by_rank, rows),
        "ddp_note": DDP_NOTE if any(row["ddp_buckets"] for row in rows) else "",
    }
