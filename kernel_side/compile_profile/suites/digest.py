"""A suite's digest: every figure and sentence a view shows of a suite, derived and worded here once.

Contract: ``suite_digest(record, runs)`` reads the suite's facts (``records.SuiteRecord``) and, for each entry that
finished, its ``ProfileRun`` through the card's own digest (``digest.summarize``; the verdict it leads with decides
the status), and returns a ``SuiteDigest`` of plain data: per entry a row (status, speedup with its interval,
compile time and cache state, peak memory eager/compiled, graph breaks by whose, recompiles, the diagnosis' top
cause, the flags PyTorch's dashboard raises), per suite the pass rate, the geometric-mean speedup over the passing
entries with its interval (``stats.geomean_ratio_interval`` on their timing samples), the median compile time and
memory compression.  Each number a view shows is here with its words (``*_text``); the panel, the text, the HTML
report and the notebook's card lay these out and format none.  The schema and the TypeScript are generated from
these classes (``suites.contract``).

Statuses (``STATUSES``): ``pass`` (a speedup worth reading: the card's verdict is faster, slower, not measurably
different or partly eager), ``eager_failed``, ``build_failed`` (the collection's builder raised: no step
ran), ``compile_failed``, ``differs`` (compiled results differ),
``ran_eagerly`` (the compiled calls ran no compiled code, or nothing was compiled: the speedup measures eager
against eager), ``timeout``, ``crashed``, ``oom``, ``skipped`` (the collection said why it cannot run here) and
``missing`` (its run is no longer in the store).  The pass rate counts every entry that ended except the skipped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import stats
from ..digest.format import format_bytes, format_s, format_speedup, format_speedup_interval, one_line, ratio_phrase
from ..digest.summary import summarize
from ..profile_run import ProfileRun
from .records import OOM_PATTERN, ModelOutcome, SuiteRecord
from .setup import SuiteEnvironment, created_text, settings_text, threads_text, where_text

# The most passing entries the geometric mean's bootstrap interval is drawn over: its cost grows with the square of
# the count (250 entries took 9 s, 1,000 took 125 s, the server waiting meanwhile); PyTorch's dashboard suites hold
# 50-90 models.  Past it the mean is shown without an interval.
GEOMEAN_INTERVAL_MAX = 300

# The dashboard's flags (PyTorch's inductor performance dashboard): a speedup below, a compile above, a memory
# compression below these.
SLOW_SPEEDUP = 0.95
SLOW_COMPILE_S = 120.0
LOW_COMPRESSION = 0.9


@dataclass(frozen=True)
class StatusInfo:
    label: str  # what a badge says
    tone: str  # what a view colours it by: "pass", "wrong" (failures, results that differ), "eager", "none"
    colour: str  # the chart's bar colour: a mid tone with 3:1 contrast on white and on #111/#212121


STATUSES: dict[str, StatusInfo] = {
    "pass": StatusInfo("pass", "pass", "#2e7d32"),
    "differs": StatusInfo("results differ", "wrong", "#d32f2f"),
    "compile_failed": StatusInfo("compile failed", "wrong", "#c2185b"),
    "eager_failed": StatusInfo("eager failed", "wrong", "#ab47bc"),
    "build_failed": StatusInfo("build failed", "wrong", "#00838f"),
    "ran_eagerly": StatusInfo("ran eagerly", "eager", "#ef6c00"),
    "timeout": StatusInfo("timed out", "wrong", "#8d6e63"),
    "crashed": StatusInfo("crashed", "wrong", "#5d4037"),
    "oom": StatusInfo("out of memory", "wrong", "#7e57c2"),
    "skipped": StatusInfo("skipped", "none", "#8a8a8a"),
    "missing": StatusInfo("run missing", "none", "#8a8a8a"),
}
NOT_COUNTED = ("skipped",)  # entries the pass rate leaves out
# a pass whose speedup is not meaningful (a busy CPU's): its bar in the skipped entries' grey, not a pass's green (a
# user read a busy suite's 8.35× bar, solid green, as the finding)
UNREAD_COLOUR = STATUSES["skipped"].colour


@dataclass
class SuiteRow:
    """One entry of the suite, as every view shows it."""

    name: str
    model: str
    task: str
    dtype: str
    status: str  # a key of STATUSES
    status_label: str  # "pass", "compile failed", "timed out"
    status_text: str  # why: the card's verdict sentence, or how the process ended
    tone: str
    colour: str
    run_id: str | None
    speedup: float | None
    speedup_low: float | None
    speedup_high: float | None
    speedup_text: str  # "1.32× faster [1.20×–1.45×]"; beneath a status that overrides it, "(not meaningful)"
    speedup_meaningful: bool
    # why a speedup beneath "pass" is not meaningful, in the card's badge words ("busy CPU": other processes' load
    # set the timed calls); "" where it is meaningful or the status says why
    speedup_caveat: str
    compile_s: float | None
    compile_text: str  # "12.3 s, cold cache"; "—"
    cache_state: str
    graph_breaks: int | None
    graph_break_text: str  # "3: 1 yours, 2 PyTorch's own"; "none"; "—"
    recompiles: int | None
    recompile_text: str
    peak_eager_bytes: int | None
    peak_compiled_bytes: int | None
    compression: float | None  # peak eager / peak compiled
    memory_text: str  # "1.2 GiB → 0.9 GiB (1.33× less)"; "not measured on CPU"
    top_cause: str  # the diagnosis' first cause, in its words; "" where none
    wall_text: str  # how long its process took
    flags: list[str]  # the dashboard's flags that this entry raises, in words
    samples: int  # compiled samples behind the speedup


@dataclass
class StatusCount:
    status: str
    label: str
    count: int
    colour: str


@dataclass
class SuiteSummary:
    """The suite's figures: pass rate, geomean speedup over the passing entries, median compile, compression."""

    entries: int  # in the collection, over every shard
    ended: int  # with an outcome
    counted: int  # ended, less the skipped: what the pass rate is of
    passed: int
    pass_rate: float | None
    pass_rate_text: str  # "4 of 5 entries pass (80%)"
    geomean_speedup: float | None
    geomean_low: float | None
    geomean_high: float | None
    geomean_text: str  # "compiled is 1.32× faster [1.20×–1.45×] (geometric mean over the 4 that pass)"
    median_compile_s: float | None
    median_compile_text: str
    compression: float | None  # geometric mean of peak eager / peak compiled over the passing entries measured
    compression_text: str


@dataclass
class SuiteDigest:
    """A suite as every view shows it (``suite_digest``)."""

    id: str
    label: str
    title: str  # "builtin · 14 entries"
    created_text: str  # "2026-07-05 01:23 UTC"
    collection: str
    headline: str
    settings_text: str  # "inference, float32 · backend inductor · --quick · limit 600 s per entry"
    where_text: str  # "torch 2.11.0+cu130 on cuda (NVIDIA H100 80GB HBM3), host h, 16 cores"
    environment: SuiteEnvironment
    complete: bool
    pending: list[str]  # entries with no outcome yet
    pending_text: str  # "3 of 14 entries not run yet: ..."; "" when complete
    summary: SuiteSummary
    status_counts: list[StatusCount]
    rows: list[SuiteRow]  # in the collection's order
    flags: list[str]  # the dashboard's flags, "name: reason", slowest first
    notes: list[str]


@dataclass
class SuiteListRow:
    """A stored suite as the panel's list and ``compile-profile suite --list`` show it."""

    id: str
    title: str
    label: str
    created_text: str
    headline: str
    complete: bool
    progress_text: str  # "14 of 14 entries"
    unreadable: str = ""  # why a stored suite cannot be read ("" when it can): its row names its id and this


@dataclass
class SuitePage:
    """GET suites/<id>: the digest and its figures (``suites.charts``), as the panel reads them."""

    suite: SuiteDigest
    figures: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass
class SuitesPage:
    """GET suites: the stored suites, newest first."""

    suites: list[SuiteListRow]


# -- one entry -------------------------------------------------------------------------------------------------


def _verdict_kind(run: ProfileRun) -> str:
    """The card's verdict (``digest.outcome``): its rung's kind."""
    from ..digest.outcome import outcome

    return outcome(run).kind


def _run_status(run: ProfileRun) -> str:
    kind = _verdict_kind(run)
    if kind in ("eager_failed", "compile_failed", "stopped"):
        failed = " ".join(e.message for e in run.errors)
        if OOM_PATTERN.search(failed):
            return "oom"
        if kind == "stopped":
            return "eager_failed" if any(e.variant == "eager" for e in run.errors) else "compile_failed"
        return kind
    if kind == "results_differ":
        return "differs"
    if kind in ("ran_eagerly", "nothing_compiled"):
        return "ran_eagerly"
    return "pass"


def _process_status(outcome: ModelOutcome) -> str:
    if outcome.ended == "error":
        if OOM_PATTERN.search(outcome.error):
            return "oom"
        # a builder that raised ran no step: "eager failed" had said the model's step failed
        return "build_failed" if outcome.stage == "build" else "eager_failed"
    return outcome.ended


def _telling_line(tail: list[str]) -> str:
    """The line of a dead process's stderr that says most: faulthandler's "Fatal Python error: …", else the last one
    that is not faulthandler's list of extension modules."""
    fatal = next((line for line in tail if line.startswith("Fatal Python error")), "")
    return fatal or next((line for line in reversed(tail) if not line.startswith("Extension modules")), "")


def _process_text(outcome: ModelOutcome, timeout_s: float) -> str:
    said = _telling_line(outcome.stderr_tail)
    last = f"; it said: {said[:300]}" if said else ""
    if outcome.ended == "timeout":
        return f"still running after {format_s(timeout_s)} (the per-entry limit, --timeout): killed{last}"
    if outcome.ended == "crashed":
        how = f"killed by {outcome.signal}" if outcome.signal else f"exited with status {outcome.exit_code}"
        return f"its process died ({how}) before it had a result{last}"
    if outcome.ended == "oom":
        if outcome.signal == "SIGKILL":
            return (
                "its process was killed by SIGKILL, which is how Linux's out-of-memory killer ends a process (nothing "
                f"else here sends it){last}"
            )
        return f"out of memory: {outcome.error}"
    if outcome.ended == "error":
        doing = {"build": "building it", "profile": "profiling it"}.get(outcome.stage, "building or profiling it")
        return f"{doing} raised {outcome.error}"
    if outcome.ended == "skipped":
        return outcome.error
    return outcome.error


def _breaks_text(summary: Mapping[str, Any]) -> str:
    total = summary.get("graph_break_count", 0)
    if not total:
        return "none"
    owners: dict[str, int] = {}
    for group in summary.get("graph_breaks", []):
        owner = group.get("owner", "yours")
        owners[owner] = owners.get(owner, 0) + group.get("count", 0)
    words = {"yours": "yours", "library": "a library's", "pytorch": "PyTorch's own"}
    parts = [f"{n} {words.get(o, o)}" for o, n in sorted(owners.items(), key=lambda kv: -kv[1]) if n]
    return f"{total}: {', '.join(parts)}" if parts else str(total)


def _memory(run: ProfileRun) -> tuple[int | None, int | None, float | None, str]:
    eager, best = run.eager, run.speedup_variant
    a = eager.peak_memory_bytes if eager is not None else None
    b = best.peak_memory_bytes if best is not None else None
    if a is None or b is None or b <= 0:  # why, the suite's compression_text says once (not measured on CPU)
        return a, b, None, "—"
    ratio = a / b
    how = f"{format_speedup(ratio)} less" if ratio >= 1 else f"{format_speedup(1 / ratio)} more"
    return a, b, ratio, f"{format_bytes(a)} → {format_bytes(b)} ({how})"


def _samples(run: ProfileRun) -> tuple[list[float], list[float]]:
    eager, best = run.eager, run.speedup_variant
    a = list(eager.timing.samples_ms) if eager is not None and eager.timing is not None else []
    b = list(best.timing.samples_ms) if best is not None and best.timing is not None else []
    return a, b


def _row_flags(
    speedup: float | None, high: float | None, compile_s: float | None, compression: float | None
) -> list[str]:
    """The dashboard's flags an entry raises; a speedup below 0.95× only where its interval is below 1× too (a
    busy machine's "1.52× slower (within noise)" is no finding)."""
    flags = []
    if speedup is not None and speedup < SLOW_SPEEDUP and high is not None and high < 1:
        flags.append(
            f"{ratio_phrase(speedup)}, below the dashboard's {format_speedup(SLOW_SPEEDUP)} ({ratio_phrase(SLOW_SPEEDUP)})"
        )
    if compile_s is not None and compile_s > SLOW_COMPILE_S:
        flags.append(f"compiling took {format_s(compile_s)}, over {format_s(SLOW_COMPILE_S)}")
    if compression is not None and compression < LOW_COMPRESSION:
        flags.append(f"memory compression {format_speedup(compression)}, under {format_speedup(LOW_COMPRESSION)}")
    return flags


def _empty_row(outcome: ModelOutcome, status: str, text: str) -> SuiteRow:
    info = STATUSES[status]
    return SuiteRow(
        name=outcome.name,
        model=outcome.model,
        task=outcome.task,
        dtype=outcome.dtype,
        status=status,
        status_label=info.label,
        status_text=text,
        tone=info.tone,
        colour=info.colour,
        run_id=outcome.run_id,
        speedup=None,
        speedup_low=None,
        speedup_high=None,
        speedup_text="—",
        speedup_meaningful=False,
        speedup_caveat="",
        compile_s=None,
        compile_text="—",
        cache_state="",
        graph_breaks=None,
        graph_break_text="—",
        recompiles=None,
        recompile_text="—",
        peak_eager_bytes=None,
        peak_compiled_bytes=None,
        compression=None,
        memory_text="—",
        top_cause="",
        wall_text=format_s(outcome.wall_s) if outcome.wall_s else "—",
        flags=[],
        samples=0,
    )


def model_row(outcome: ModelOutcome, run: ProfileRun | None, timeout_s: float) -> SuiteRow:
    """One entry's row: from its process's outcome, and from its run where it stored one."""
    if outcome.ended != "finished":
        return _empty_row(outcome, _process_status(outcome), _process_text(outcome, timeout_s))
    if run is None:
        return _empty_row(
            outcome, "missing", f"its run {outcome.run_id} is not in the run store (deleted since the suite ran?)"
        )
    summary = summarize(run)
    status = _run_status(run)
    verdict = summary.get("outcome")
    row = _empty_row(outcome, status, verdict["text"] if verdict else summary.get("headline", ""))
    s = run.speedup
    if s is not None:
        row.speedup, row.speedup_low, row.speedup_high = s.value, s.low, s.high
        # a pass's speedup is meaningful unless the card's verdict overrides it (measured on a busy CPU)
        row.speedup_meaningful = status == "pass" and not (verdict and not verdict["speedup_meaningful"])
        if status == "pass" and not row.speedup_meaningful and verdict:
            row.speedup_caveat = verdict["label"]
            row.colour = UNREAD_COLOUR  # its bar and dot grey, not a pass's green: no speedup to read
        text = format_speedup_interval(s.value, s.low, s.high)
        if row.speedup_meaningful:
            row.speedup_text = text
        elif verdict and not verdict["speedup_meaningful"] and verdict["speedup_text"]:
            row.speedup_text = verdict["speedup_text"]  # the card's: "1.53× slower — not meaningful: results differ"
        else:
            row.speedup_text = f"{ratio_phrase(s.value)} (not meaningful: {row.status_label})"
    row.compile_s = summary.get("compile_s")
    cache = summary.get("cache_words", "")
    row.cache_state = cache
    row.compile_text = format_s(row.compile_s) + (f", {cache}" if cache and row.compile_s is not None else "")
    row.graph_breaks = summary.get("graph_break_count")
    row.graph_break_text = _breaks_text(summary)
    row.recompiles = summary.get("recompile_count")
    row.recompile_text = str(row.recompiles) if row.recompiles else "none"
    row.peak_eager_bytes, row.peak_compiled_bytes, row.compression, row.memory_text = _memory(run)
    causes = summary.get("diagnosis", [])
    if causes:
        top = causes[0]
        row.top_cause = f"{top['title']}: {top['cost_text']}" if top.get("cost_text") else top["title"]
    row.samples = len(_samples(run)[1])
    if status == "pass":  # the speedup's flag only where it is meaningful: a busy CPU's is no finding
        meaningful = row.speedup if row.speedup_meaningful else None
        row.flags = _row_flags(meaningful, row.speedup_high, row.compile_s, row.compression)
    return row


# -- the suite ---------------------------------------------------------------------------------------------------


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%"


def _summary(record: SuiteRecord, rows: list[SuiteRow], runs: Mapping[str, ProfileRun]) -> SuiteSummary:
    counted = [r for r in rows if r.status not in NOT_COUNTED]
    passed = [r for r in counted if r.status == "pass"]
    passing = [r for r in passed if r.speedup is not None and r.speedup_meaningful]
    n, k = len(counted), len(passed)
    rate = k / n if n else None
    rate_text = f"{k} of {n} entr{'y' if n == 1 else 'ies'} pass ({_percent(k, n)})" if n else "no entry has ended yet"
    pairs = []
    for r in passing:
        run = runs.get(r.run_id or "")
        a, b = _samples(run) if run is not None else ([], [])
        if a and b:
            pairs.append((a, b))
    value = low = high = None
    geomean_text = "no entry passes: no geometric mean"
    if passed and not passing:
        caveats = sorted({r.speedup_caveat for r in passed if r.speedup_caveat})
        why = f" ({', '.join(caveats)})" if caveats else ""
        geomean_text = f"no geometric mean: no passing entry's speedup is meaningful{why}"
    if pairs:
        if len(pairs) <= GEOMEAN_INTERVAL_MAX:
            value, lo, hi = stats.geomean_ratio_interval(pairs)
        else:
            value, lo, hi = (
                stats.geomean(float(stats.median(a) / stats.median(b)) for a, b in pairs),
                math.nan,
                math.nan,
            )
        low, high = (lo, hi) if lo == lo and hi == hi else (None, None)  # NaN: too few samples for an interval
        over = f"the {len(pairs)} that pass" if len(pairs) > 1 else "the one that passes"
        left_out = sorted({r.speedup_caveat for r in passed if not r.speedup_meaningful and r.speedup_caveat})
        unread = len(passed) - len(passing)
        said = f"compiled is {format_speedup_interval(value, low, high)}"
        if left_out and unread > len(pairs):
            # most passes left out: that leads, as a headline of one entry's speedup had read as the collection's
            # ("compiled is 1.05× slower" over one of three passes, two on a busy CPU)
            rest = "the one left" if len(pairs) == 1 else f"the {len(pairs)} left"
            geomean_text = (
                f"{unread} of the {k} passing entries' speedups are not meaningful ({', '.join(left_out)}), so the "
                f"geometric mean rests on {rest}: {said}"
            )
        else:
            if left_out:  # a pass whose speedup is not meaningful is counted as passing, and left out of the mean
                which = "passes whose speedup is" if unread == 1 else "pass whose speedups are"
                over += f"; left out: {unread} that {which} not meaningful ({', '.join(left_out)})"
            geomean_text = f"{said} (geometric mean over {over})"
    compiles = [r.compile_s for r in passed if r.compile_s is not None]  # a compile's time needs no speedup
    median_compile = stats.median(compiles) if compiles else None
    compile_text = (
        f"{format_s(median_compile)} median compile over the entries that pass" if median_compile is not None else "—"
    )
    ratios = [r.compression for r in passed if r.compression is not None]
    compression = stats.geomean(ratios) if ratios else None
    if compression is not None:
        compression_text = (
            f"peak memory {format_speedup(compression)} eager's ÷ compiled's (geometric mean over {len(ratios)})"
        )
    else:
        compression_text = f"memory compression: {_unmeasured_why(runs, passed)}"
    return SuiteSummary(
        entries=len(record.settings.entries),
        ended=len(rows),
        counted=n,
        passed=k,
        pass_rate=rate,
        pass_rate_text=rate_text,
        geomean_speedup=value,
        geomean_low=low,
        geomean_high=high,
        geomean_text=geomean_text,
        median_compile_s=median_compile,
        median_compile_text=compile_text,
        compression=compression,
        compression_text=compression_text,
    )


def _unmeasured_why(runs: Mapping[str, ProfileRun], rows: list[SuiteRow]) -> str:
    """Why no peak memory was measured, in the run digest's words (on CPU: read from the CUDA allocator only)."""
    from ..digest.notes import memory_unmeasured_text

    run = next((runs[r.run_id] for r in rows if r.run_id is not None and r.run_id in runs), None)
    return (memory_unmeasured_text(run) if run is not None else "") or "not measured"


def outcomes_by_entry(record: SuiteRecord) -> list[ModelOutcome]:
    """One outcome per entry the suite names, the first stored, in the entries' order: a store merged from someone
    else held 600 outcomes of 8 entries ("600 of 8 entries"), and its digest took minutes."""
    order = {name: i for i, name in enumerate(record.settings.entries)}
    first: dict[str, ModelOutcome] = {}
    for o in record.outcomes:
        if o.name in order:
            first.setdefault(o.name, o)
    return sorted(first.values(), key=lambda o: order[o.name])


def suite_digest(record: SuiteRecord, runs: Mapping[str, ProfileRun]) -> SuiteDigest:
    """The suite's digest from its record and the runs its entries stored (by id; a missing one is said so)."""
    outcomes = outcomes_by_entry(record)
    rows = [model_row(o, runs.get(o.run_id or ""), record.settings.timeout_s) for o in outcomes]
    summary = _summary(record, rows, runs)
    ended = {o.name for o in outcomes}
    pending = [name for name in record.settings.entries if name not in ended]
    pending_text = ""
    if pending:
        shards = f"a shard of the {record.settings.shards} has not reported, or " if record.settings.shards > 1 else ""
        pending_text = (
            f"{len(pending)} of {len(record.settings.entries)} entries not run yet ({shards}the suite was interrupted: "
            f"compile-profile suite {record.settings.collection} --suite-id {record.id} continues it)"
        )
    counts = []
    for status, info in STATUSES.items():
        n = sum(1 for r in rows if r.status == status)
        if n:
            counts.append(StatusCount(status, info.label, n, info.colour))
    flagged = sorted((r for r in rows if r.flags), key=lambda r: r.speedup if r.speedup is not None else 0.0)
    flags = [f"{r.name}: {'; '.join(r.flags)}" for r in flagged]
    skipped = [r for r in rows if r.status == "skipped"]
    notes = [f"{r.name} skipped: {r.status_text}" for r in skipped]
    headline = summary.pass_rate_text
    if summary.geomean_speedup is not None or summary.passed:  # all not meaningful: say so, not nothing
        headline += f"; {summary.geomean_text}"
    title = f"{record.settings.collection_name} · {entries_text(len(record.settings.entries))}"
    threads = threads_text(runs[o.run_id] for o in outcomes if o.run_id is not None and o.run_id in runs)
    return SuiteDigest(
        id=record.id,
        label=record.label,
        title=title,
        created_text=created_text(record.created_at),
        collection=record.settings.collection,
        headline=headline,
        settings_text=settings_text(record),
        where_text=where_text(record, threads),
        environment=SuiteEnvironment(
            torch=record.torch_version,
            device=record.device,
            device_name=record.device_name,
            cpu=record.cpu,
            cores=record.cores,
            host=record.host,
            settings=settings_text(record),
            threads=threads,
        ),
        complete=not pending,
        pending=pending,
        pending_text=pending_text,
        summary=summary,
        status_counts=counts,
        rows=rows,
        flags=flags,
        notes=notes,
    )


def entries_text(n: int) -> str:
    """ "1 entry", "14 entries" ("1 entries" had read in the list, the tab and the CLI)."""
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def list_row(record: SuiteRecord, headline: str = "") -> SuiteListRow:
    """A stored suite's line in a list: its progress, and its digest's headline where one is at hand."""
    total = len(record.settings.entries)
    ended = len(outcomes_by_entry(record))
    return SuiteListRow(
        id=record.id,
        title=f"{record.settings.collection_name} · {entries_text(total)}",
        label=record.label,
        created_text=created_text(record.created_at),
        headline=headline,
        complete=ended >= total,
        progress_text=f"{ended} of {entries_text(total)}" + ("" if ended >= total else " (unfinished)"),
    )


def unreadable_row(suite_id: str, reason: str) -> SuiteListRow:
    """A stored suite that cannot be read (``storage.UnreadableSuite``), as a list shows it: its id and why."""
    return SuiteListRow(
        id=suite_id,
        title="cannot be read",
        label="",
        created_text="",
        headline="",
        complete=False,
        progress_text="",
        unreadable=one_line(reason, 300),
    )
