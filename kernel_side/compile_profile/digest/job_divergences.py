"""The ways a rank of a distributed job differs from the rest of its job: the rules, each with its sentence.

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
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ..profile_run import OTHER_RANK_FAILED, ProfileRun
from .breaks import BreakGroup, break_groups, break_summary
from .distributed import ddp_bucket_count
from .facts import cache_words
from .format import format_diff, format_s, lines_of, one_line
from .guards import recompile_text
from .job_compiles import compile_divergences
from .majority import expected, who
from .notes import error_message
from .summary import RunSummary

# Ranks compiling the same step at once on one machine differ by more than 1.5x without diverging: they share
# Inductor's kernel cache, and the first to build a kernel builds it for the others (torch 2.6, 2 ranks on a
# 2-core CPU, a cold cache: rank 0 5.45 s, rank 1 3.08 s with a graph more).  "Far longer" is 2.5x.
SLOW_COMPILE_FACTOR = 2.5
SLOW_COMPILE_S = 1.0
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


@dataclass
class JobDivergence:
    """A way one rank differs from the rest of its job."""

    rank: int
    what: str  # one of DIVERGENCE_KINDS
    text: str


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


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


def divergences(runs: dict[int, ProfileRun], summaries: dict[int, RunSummary]) -> list[JobDivergence]:
    """Every way a rank differs from its job, rank by rank (``DIVERGENCE_KINDS`` orders them in the job)."""
    found: list[JobDivergence] = []

    def add(rank: int, what: str, text: str) -> None:
        found.append(JobDivergence(rank=rank, what=what, text=text))

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

    graphs = {r: summaries[r].graph_count for r in compared}
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

    recompiles = {r: summaries[r].recompile_count for r in compared}
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

    compile_s = {r: s for r in compared if (s := summaries[r].compile_s) is not None}
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
