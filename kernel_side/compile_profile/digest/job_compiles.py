"""The multi-rank checks of a job's compiles (tlparse's ``--all-ranks-html``), each a divergence as the job view words
one: compile ids, cache hits and misses, collectives, tensor metadata and the order the graphs ran.

Contract: ``compile_divergences(runs, add)`` reads each rank's ``ProfileRun.compiles`` (the attempts Dynamo kept) and
calls ``add(rank, what, text)`` for every rank whose figure is not the job's (``majority.expected``: what most ranks
have; without a majority the smaller, or rank 0's).  Ranks compile the same frames in the same order when they run
the same code, so a rank whose compiles differ is running other code (a rank-dependent branch, a print on one rank):

* ``compile_ids``: other compile ids, the frames of the extra or missing ones named;
* ``cache``: other cache lookups (FX graph, AOTAutograd), compared by cache and key, so a shifted compile id is no
  difference, and neither is a hit where the others missed under the same key (ranks sharing a cache directory race
  to it); another key is (another graph, inputs or config);
* ``collectives``: the collectives its compiled graphs run, in order (``inductor_collective_schedule``, else the
  post-grad graphs' functional collectives): another order or others is a hang waiting to happen;
* ``tensor_meta``: the shapes and dtypes of its graphs' ops (logged with ``torch._inductor.config.log_tlparse``);
* ``execution_order``: the order its graphs ran (logged under ``record_and_log_graph_execution_order``).

A check with nothing logged on any rank says nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..profile_run import CompileRecord, ProfileRun
from .compiles import CACHE_NAMES, compiled_frame
from .format import lines_of
from .majority import expected, who

LISTED = 4
Add = Callable[[int, str, str], None]


def _kept(run: ProfileRun) -> list[CompileRecord]:
    return [r for r in run.compiles if r.compile_id and r.status != "dropped"]


def _listed(items: list[str]) -> str:
    counts = Counter(items)
    named = [f"{item} ×{n}" if n > 1 else item for item, n in counts.items()]
    more = f", … {len(named) - LISTED} more" if len(named) > LISTED else ""
    return ", ".join(named[:LISTED]) + more


def _compile_ids(runs: dict[int, ProfileRun], add: Add) -> None:
    ids = {r: frozenset(c.compile_id for c in _kept(run)) for r, run in runs.items()}
    if not any(ids.values()):
        return
    job = expected(ids, size=len)
    for r, mine in ids.items():
        if mine == job:
            continue
        of = lines_of(runs[r])
        frames = {c.compile_id: compiled_frame(c, of) for c in _kept(runs[r])}
        extra = sorted(mine - job, key=_id_order)
        missing = sorted(job - mine, key=_id_order)
        parts = []
        if extra:
            parts.append("extra " + _listed([f"{cid} ({frames.get(cid, '?')})" for cid in extra]))
        if missing:
            parts.append("missing " + ", ".join(missing[:LISTED]) + (", …" if len(missing) > LISTED else ""))
        add(
            r,
            "compile_ids",
            f"{len(mine)} compile ids where {who(ids, r, job)} have {len(job)}: {'; '.join(parts)}",
        )


def _id_order(compile_id: str) -> tuple[int, ...]:
    return tuple(int(p) for p in compile_id.split("/") if p.isdigit())


def _lookup(cache: str, state: str, key: str) -> tuple[str, str]:
    """What a rank's lookup is compared by: its cache and key, not its outcome.  Ranks that share one cache directory
    race to it (the CI's 2-rank DDP job read "FX graph miss for 5/0 where the others hit" on one run and the reverse
    on the next): a hit on one rank and a miss on another under the same key is one graph compiled twice, not other
    code.  A lookup logged without a key is compared by its outcome."""
    return (cache, key) if key else (cache, f"({state}, no key)")


def _cache(runs: dict[int, ProfileRun], add: Add) -> None:
    found = {
        r: [(CACHE_NAMES.get(x.cache, x.cache), x.state, x.key, c) for c in _kept(run) for x in c.cache_lookups]
        for r, run in runs.items()
    }
    lookups = {
        r: tuple(sorted(_lookup(cache, state, key) for cache, state, key, _ in mine)) for r, mine in found.items()
    }
    if not any(lookups.values()):
        return
    job = expected(lookups, size=len)
    for r, mine in lookups.items():
        if mine == job:
            continue  # the same lookups (sorted), maybe another outcome or order: nothing another rank's code did
        of = lines_of(runs[r])
        extra = Counter(mine) - Counter(job)
        missing = Counter(job) - Counter(mine)
        theirs = who(lookups, r, job)
        where = {_lookup(cache, state, key): (state, c) for cache, state, key, c in found[r]}
        in_order = [_lookup(cache, state, key) for cache, state, key, _ in found[r]]  # compile order, to pair by
        theirs_in_order = [
            _lookup(cache, state, key) for cache, state, key, _ in found[next(o for o in lookups if lookups[o] == job)]
        ]
        parts: list[str] = []
        for cache, key in [x for x in dict.fromkeys(in_order) if x in extra]:  # another key for the same lookup
            other = next((m for m in theirs_in_order if m in missing and m[0] == cache), None)
            if other is None:
                continue
            state, c = where[(cache, key)]
            parts.append(
                f"{cache} {state} for {c.compile_id} of another key than {theirs}' (another graph, inputs or config: "
                "its key components say which)"
            )
            _take(extra, (cache, key))
            _take(missing, other)
        parts += [
            f"extra {cache} {where[(cache, key)][0]} for {where[(cache, key)][1].compile_id} "
            f"({compiled_frame(where[(cache, key)][1], of)})" + (f" ×{n}" if n > 1 else "")
            for (cache, key), n in extra.items()
        ]
        parts += [f"no {cache} lookup" + (f" ×{n}" if n > 1 else "") for (cache, _), n in missing.items()]
        more = f"; … {len(parts) - LISTED} more" if len(parts) > LISTED else ""
        add(r, "cache", f"cache lookups differ from {theirs}': " + "; ".join(parts[:LISTED]) + more)


def _take(counts: Counter[tuple[str, str]], item: tuple[str, str] | None) -> None:
    if item is not None:
        counts[item] -= 1
        if counts[item] <= 0:
            del counts[item]


def _collectives(runs: dict[int, ProfileRun], add: Add) -> None:
    ops = {r: tuple(op for c in _kept(run) for op in c.collectives) for r, run in runs.items()}
    if not any(ops.values()):
        return
    job = expected(ops)
    for r, mine in ops.items():
        if mine == job:
            continue
        theirs = who(ops, r, job)
        if sorted(mine) == sorted(job):
            at = next(i for i, (a, b) in enumerate(zip(mine, job)) if a != b)
            text = (
                f"its collectives in another order from collective {at + 1}: {', '.join(mine[at : at + LISTED])} "
                f"where {theirs} run {', '.join(job[at : at + LISTED])}"
            )
        else:
            first = next((c.compile_id for c in _kept(runs[r]) if c.collectives), "")
            text = (
                f"its compiled graphs run {_listed(list(mine)) or 'no collective'}"
                + (f" (from {first})" if first else "")
                + f" where {theirs}' run {_listed(list(job)) or 'none'}"
            )
        add(r, "collectives", text)


def _tensor_meta(runs: dict[int, ProfileRun], add: Add) -> None:
    metas = {
        r: tuple((c.compile_id, tuple(c.tensor_meta)) for c in _kept(run) if c.tensor_meta) for r, run in runs.items()
    }
    if not any(metas.values()):
        return
    job = expected(metas)
    for r, mine in metas.items():
        if mine == job:
            continue
        theirs = who(metas, r, job)
        for (cid, ops), (_, their_ops) in zip(mine, job):
            at = next((i for i, (a, b) in enumerate(zip(ops, their_ops)) if a != b), None)
            if at is not None or len(ops) != len(their_ops):
                if at is None:
                    text = f"{len(ops)} ops where {theirs} have {len(their_ops)}"
                else:
                    text = f"op {at + 1} is {ops[at]} where {theirs} have {their_ops[at]}"
                add(r, "tensor_meta", f"tensor metadata of {cid} differs: {text}")
                break
        else:
            add(r, "tensor_meta", f"tensor metadata logged for {len(mine)} compiles where {theirs} have {len(job)}")


def _execution_order(runs: dict[int, ProfileRun], add: Add) -> None:
    orders = {
        r: tuple(x for c in run.compiles if not c.compile_id for x in c.execution_order) for r, run in runs.items()
    }
    if not any(orders.values()):
        return
    job = expected(orders)
    for r, mine in orders.items():
        if mine != job:
            at = next((i for i, (a, b) in enumerate(zip(mine, job)) if a != b), min(len(mine), len(job)))
            add(
                r,
                "execution_order",
                f"ran its graphs in another order from graph {at + 1}: {', '.join(mine[at : at + LISTED]) or 'none'} "
                f"where {who(orders, r, job)} ran {', '.join(job[at : at + LISTED]) or 'none'}",
            )


def compile_divergences(runs: dict[int, ProfileRun], add: Add) -> None:
    """Every rule above, in order (``job_divergences.DIVERGENCE_KINDS``)."""
    for rule in (_compile_ids, _cache, _collectives, _tensor_meta, _execution_order):
        rule(runs, add)
