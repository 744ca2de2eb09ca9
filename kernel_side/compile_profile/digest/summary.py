"""One run's digest: the headline and the warnings (``headline``), and every figure lists, the card and the CLI show
first, each worded (``summary_of``), and beside them what one run's detail shows (``digest_of``): the views lay the
digest's words out and format no number themselves.

Both return dataclasses (``RunSummary``, ``RunDigest``), composed of the shapes the modules that derive each part
declare; ``summarize`` and ``run_digest`` are the same as JSON (``serialize.to_dict``), which the MIME bundle (the
card), the run store's list, the REST API (the panel), the CLI and ``ProfileRun.summary()`` carry, so a figure is
computed and worded once.  ``DIGEST_VERSION`` stamps each summary: the store re-derives summaries it cached under
an older version, so a stored run never shows an older wording than a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..profile_run import Correctness, ProfileRun, Variant
from ..serialize import ADDED_LATER, to_dict
from .breakdown import BreakdownColumn, BreakdownRow, breakdown, breakdown_columns, breakdown_note, verdict
from .breaks import (
    BreakGroup,
    break_count_text,
    break_groups,
    no_breaks_text,
)
from .correctness import correctness_text
from .cost import ProfileCost, profile_cost
from .diagnosis import Cause, diagnosis_digest, diagnosis_heading
from .distributed import (
    DdpSplitSummary,
    DistributedSummary,
    collective_texts,
    ddp_splits_digest,
    distributed_summary,
)
from .facts import (
    cache_counts,
    cache_words,
    device_text,
    interrupted_text,
    kernel_count_text,
    later_run_failure_text,
    median_ratio,
    peak_memory_text,
)
from .format import (
    format_bytes,
    format_diff,
    format_interval,
    format_ms,
    format_s,
    format_timing,
    line_text,
    lines_of,
    ratio_phrase,
)
from .guards import (
    GraphGuards,
    RecompileRow,
    RecompileRun,
    guards_digest,
    recompile_runs_digest,
    recompiles_digest,
)
from .headline import headline, speedup_badge, speedup_phrase, warnings
from .inputs import InputsSummary, inputs_summary
from .kernel_times import KernelCells, KernelTable, PassJudgment, kernel_cells, kernel_table
from .kernel_times import digest as kernel_times_digest
from .lines import LineTimes, line_times
from .magic_line import magic_line
from .measured import Measured, measured
from .noise import timing_warnings
from .notes import (
    bisect_offer,
    error_message,
    memory_unmeasured_text,
    note_text,
    run_notes,
    variant_error,
    warning_notes,
)
from .outcome import Outcome, outcome, outcome_digest
from .outcome import list_status as outcome_list_status
from .payback import Payback, payback
from .recommendation import RecommendationSummary, recommendation_digest
from .timeline import CompileTimeline, compile_timeline
from .trace import TraceSummary, trace_summary

# Bumped whenever a field is added to, or a wording changes in, the summary (``RunSummary`` and its parts).
# 18: the diagnosis heading's why, a compile failure's place; 19: input sequences; 20: bisect_offer; 21: a script's
# lines, the wide-interval note; 22: a recompile at its guard's line, fixes by the value's type, kernels and library
# calls apart, restarts, a few signatures listed, a trace's files read and skipped records; 23: settings not at their
# defaults, setup failures, a failing graph's lines, fallback_random compared, a reference's float32 ops; 24:
# calibrated CPU profiler passes (measured or withheld, never both), host contention as a cause, fused_native
# whichever way the speedup goes; 25: the verdict ladder (outcome), Compare's context; 26: the in-place state put
# back or not, the learning rate's and a fused optimizer's words, a helper's cell; 27: each compile of the timeline
# opens in the Compiles tab (its key), a job's compile ids, cache lookups, collectives, tensor metadata and execution
# order compared across its ranks; 28: a job's cache lookups compared by key, not outcome; a calibrated pass's
# tolerance the timer's noise plus the cost taken out; 29: a --quick profile's reference where outputs leave eager's
# tolerance, in the quick note's words; 30: what the text and HTML views show, worded here (one route into the digest):
# each variant's times, cache and peak, a break's place, a guard group's line, the kernel table, a recompile run;
# 31: every number the panel shows worded here (the summary's compile time, each kernel's cells), the magic line;
# 32: the Lines chart's note naming the variants it leaves out; 33: the busy_cpu verdict (a speedup other processes'
# load set is not meaningful); 34: a backend's failure on a graph is the compiler's break, owned where it is; a verdict
# over more than two functions run eagerly counts them; 35: a message's first line ending in ":" said with the next,
# a withheld pass's wait not blamed on another program, a reference past the code's casts named so; 36: a calibrated
# CPU pass held to 30 % of the timed call and its measured cost; 37: a faster verdict that leads with the time outside
# the kernels says "outside its kernels"; 38: a correctness note the sentence already says is not said again; 39: a
# variant's ratio to eager in the headline's words; 40: the cell's code after a graph break at the recompile limit is
# partly eager, not "ran eagerly"
DIGEST_VERSION = 40

# -- the shapes: what ``summarize`` and ``run_digest`` write (``contract`` lists them; the schema and the panel's
# TypeScript are generated from these classes)


@dataclass
class DeviceSummary:
    """Where the run ran: ``cpu`` or ``cuda``, and the device's name."""

    type: str
    name: str


@dataclass
class VariantRow:
    """One variant's figures in the summary: its timing's median and spread, compile time and error."""

    name: str
    backend: str | None = field(metadata=ADDED_LATER)
    mode: str | None = field(metadata=ADDED_LATER)
    median_ms: float | None
    p10_ms: float | None
    p90_ms: float | None
    n: int
    first_call_s: float | None = field(metadata=ADDED_LATER)
    compile_s: float | None
    recompile_s: float | None = field(metadata=ADDED_LATER)
    peak_memory_bytes: int | None = field(metadata=ADDED_LATER)
    recompiled_during_timing: bool = field(metadata=ADDED_LATER)
    error: str | None
    compiled: bool = field(metadata=ADDED_LATER)  # a compiled variant, not eager
    # its error is one of the run's errors too (their stage or variant is its name): the views list it once
    error_listed: bool = field(metadata=ADDED_LATER)
    timing_text: str = field(metadata=ADDED_LATER)  # "4.12 ms (p10 3.9 ms / p90 4.4 ms, n=50)"; "" untimed
    median_time: str = field(metadata=ADDED_LATER)  # "4.12 ms"; "—" untimed
    p10_time: str = field(metadata=ADDED_LATER)
    p90_time: str = field(metadata=ADDED_LATER)
    # eager's median over this one's in the headline's words, "1.25× faster", "1.80× slower" (it read "0.56×" under a
    # column headed "eager ÷ median"); "" for eager or untimed
    ratio_text: str = field(metadata=ADDED_LATER)
    compile_time: str = field(metadata=ADDED_LATER)  # compile_s worded; "—" where not compiled
    first_call_time: str = field(metadata=ADDED_LATER)  # first_call_s worded; "—" where unknown
    recompile_time: str = field(metadata=ADDED_LATER)  # recompile_s worded; "—" where unknown
    cache_words: str = field(metadata=ADDED_LATER)  # its compile's cache, else the run's: "cold cache", ""
    peak_memory_text: str = field(metadata=ADDED_LATER)  # "1.2 GiB", or why no peak was measured


@dataclass
class SpeedupSummary:
    """The speedup as the digest words it: the factor, the headline's phrase and its interval."""

    value: float
    low: float | None  # None: too few samples for an interval
    high: float | None
    variant: str
    text: str  # the one short form, as the headline words it: "1.25× faster"
    phrase: str  # "1.25× faster", "1.80× slower (within noise)"
    has_interval: bool
    includes_one: bool
    interval_text: str = field(metadata=ADDED_LATER)  # "[1.11×–1.43×]", as the text view words it
    several: bool = field(metadata=ADDED_LATER)  # the run has more than one compiled variant: views name this one
    # why the speedup is not meaningful beneath a verdict that overrides it ("compiled results differ"); "" otherwise
    not_meaningful: str = field(metadata=ADDED_LATER)


@dataclass
class CorrectnessSummary:
    """Whether compiled results matched eager's, and the digest's sentence for it."""

    ok: bool | None
    max_abs_diff: float | None
    note: str
    method: str = field(metadata=ADDED_LATER)
    text: str = field(metadata=ADDED_LATER)
    max_rel_diff_text: str = field(metadata=ADDED_LATER)  # "9.38e+03"; "" where none was measured


def _correctness_summary(c: Correctness) -> CorrectnessSummary:
    text = correctness_text(c)
    note = note_text(c.note) if c.note else ""
    return CorrectnessSummary(
        ok=c.ok,
        max_abs_diff=c.max_abs_diff,
        # said once: a --quick run's "no float64 reference (--quick): compared with eager only" is in the sentence,
        # and the text view had said it twice on one line
        note="" if note and note in text else note,
        method=c.method,
        text=text,
        max_rel_diff_text=format_diff(c.max_rel_diff) if c.max_rel_diff is not None else "",
    )


@dataclass
class ErrorSummary:
    """Something that went wrong, at which stage, on which cell line and call."""

    stage: str
    message: str
    line: int | None
    variant: str
    call: int | None
    type: str = field(metadata=ADDED_LATER)  # the exception's type, "" when unknown
    line_text: str = field(metadata=ADDED_LATER)  # "cell line 3", "train.py line 3"; "" without a line


@dataclass
class RunSummary:
    """One run's digest for lists, the card and the CLI (``summarize``)."""

    digest: int = field(metadata=ADDED_LATER)  # DIGEST_VERSION: the store derives an older one's summary again
    id: str
    label: str
    created_at: str
    status: str
    list_status: str = field(metadata=ADDED_LATER)  # what lists show: the status, or the verdict that says more
    outcome: Outcome = field(metadata=ADDED_LATER)  # the verdict every view shows first (digest 22 on)
    notebook: str
    device: DeviceSummary
    torch_version: str = field(metadata=ADDED_LATER)
    first_line: str
    headline: str
    variants: list[VariantRow]
    speedup: SpeedupSummary | None
    compile_s: float | None
    compile_time: str = field(metadata=ADDED_LATER)  # compile_s worded, "1.2 s"; "—" where nothing compiled
    cache_state: str
    cache_words: str = field(metadata=ADDED_LATER)  # "cold cache", "warm cache", "partly cached" or ""
    cache_counts: list[str] = field(metadata=ADDED_LATER)  # "FX graph 3 hits, 0 missed", "kernels 6, none built …"
    graph_count: int
    graph_break_count: int
    graph_break_text: str = field(metadata=ADDED_LATER)  # "7 graph breaks, 3 in DDP's wrapper"
    graph_break_empty_text: str = field(metadata=ADDED_LATER)  # what an empty list of graph breaks means here
    ddp_wrapper_break_count: int = field(metadata=ADDED_LATER)
    recompile_count: int
    kernel_count: int
    kernel_text: str = field(metadata=ADDED_LATER)  # "32 generated kernels (cpp), 742 library calls"
    device_text: str = field(metadata=ADDED_LATER)  # "cuda (NVIDIA H200)", "cpu" where no name is known
    cell_runs: int = field(metadata=ADDED_LATER)
    peak_memory: dict[str, str] = field(metadata=ADDED_LATER)  # variant -> its measured peak, worded
    memory_note: str = field(metadata=ADDED_LATER)  # why the run has no peak memory; "" when it has one
    notes: list[str] = field(metadata=ADDED_LATER)  # the run's notes in words, in the order the engine recorded them
    correctness: CorrectnessSummary | None = field(metadata=ADDED_LATER)
    bisect_offer: str = field(metadata=ADDED_LATER)  # what --bisect would find; "" where it would find nothing
    graph_breaks: list[BreakGroup] = field(metadata=ADDED_LATER)
    warnings: list[str]
    errors: list[ErrorSummary] = field(metadata=ADDED_LATER)
    recommendation: RecommendationSummary | None = field(metadata=ADDED_LATER)
    breakdown: list[BreakdownRow] = field(metadata=ADDED_LATER)  # [] when not measured
    breakdown_columns: list[BreakdownColumn] = field(metadata=ADDED_LATER)  # collectives after copies where timed
    verdict: str | None = field(metadata=ADDED_LATER)  # one sentence why compiled is faster or slower, or None
    kernel_times: dict[str, PassJudgment] = field(metadata=ADDED_LATER)  # variant -> its pass held against its call
    payback: Payback | None = field(metadata=ADDED_LATER)
    distributed: DistributedSummary | None = field(metadata=ADDED_LATER)  # None for a single-process run
    ddp_splits: list[DdpSplitSummary] = field(metadata=ADDED_LATER)
    unreadable: str | None = field(metadata=ADDED_LATER)  # why a stored run cannot be read; None when it can
    diagnosis: list[Cause] = field(metadata=ADDED_LATER)  # what costs the compiled cell time, largest first
    diagnosis_heading: str = field(metadata=ADDED_LATER)  # what the list answers, with the speedup it explains
    trace: TraceSummary | None = field(metadata=ADDED_LATER)  # a run read from a TORCH_TRACE log; None if profiled
    inputs: InputsSummary | None = field(metadata=ADDED_LATER)  # a profile over a sequence of inputs; None for one


@dataclass
class RunDigest(RunSummary):
    """``summarize`` plus what one run's detail shows (``run_digest``)."""

    lines: LineTimes = field(metadata=ADDED_LATER)
    guards: list[GraphGuards] = field(metadata=ADDED_LATER)  # per Dynamo graph with guards
    recompiles: list[RecompileRow] = field(metadata=ADDED_LATER)
    measured: Measured = field(metadata=ADDED_LATER)
    profile_cost: ProfileCost | None = field(metadata=ADDED_LATER)  # None for a run stored before stages were timed
    compile_timeline: CompileTimeline | None = field(metadata=ADDED_LATER)  # None for a run stored before spans
    later_run_failure: str = field(metadata=ADDED_LATER)  # why a later run of the cell failed; "" where none did
    interrupted_text: str = field(metadata=ADDED_LATER)  # what an interrupted run holds; "" for any other
    timing_warnings: list[str] = field(metadata=ADDED_LATER)  # whether the timings can be read (digest.noise)
    state_warnings: list[str] = field(metadata=ADDED_LATER)  # the in-place state the runs left advanced
    collectives: list[str] = field(metadata=ADDED_LATER)  # each graph's collectives, then the collective kernels
    recompile_runs: list[RecompileRun] = field(metadata=ADDED_LATER)  # the recompiles, a run of one guard together
    recompiles_timed: int = field(metadata=ADDED_LATER)  # how many recompiles came during timed runs
    breakdown_note: str = field(metadata=ADDED_LATER)  # what the breakdown's figures are, said under it
    kernel_table: KernelTable = field(metadata=ADDED_LATER)  # the kernels that took the most device time
    kernel_cells: list[KernelCells] = field(metadata=ADDED_LATER)  # each kernel's cells worded, in the run's order
    magic_line: str = field(metadata=ADDED_LATER)  # the %%compile_profile line the run's cell was profiled by


def first_code_line(source: str) -> str:
    """The first line of code, skipping comments and IPython magics such as ``%%compile_profile``."""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "%")):
            return stripped
    return ""


def _variant_row(run: ProfileRun, v: Variant) -> VariantRow:
    t = v.timing
    ratio = median_ratio(run, v) if v.name != "eager" else None
    return VariantRow(
        name=v.name,
        backend=v.backend,
        mode=v.mode,
        median_ms=t.median_ms if t else None,
        p10_ms=t.p10_ms if t else None,
        p90_ms=t.p90_ms if t else None,
        n=t.n if t else 0,
        first_call_s=v.first_call_s,
        compile_s=v.compile_s,
        recompile_s=v.recompile_s,
        peak_memory_bytes=v.peak_memory_bytes,
        recompiled_during_timing=v.recompiled_during_timing,
        error=variant_error(v),
        compiled=v.name != "eager",
        error_listed=any(v.name in (e.variant, e.stage) for e in run.errors),  # eager's is stage "eager"
        timing_text=format_timing(t.median_ms, t.p10_ms, t.p90_ms, t.n) if t else "",
        median_time=format_ms(t.median_ms) if t else "—",
        p10_time=format_ms(t.p10_ms) if t else "—",
        p90_time=format_ms(t.p90_ms) if t else "—",
        ratio_text=ratio_phrase(ratio) if ratio is not None else "",
        compile_time=format_s(v.compile_s),
        first_call_time=format_s(v.first_call_s),
        recompile_time=format_s(v.recompile_s),
        cache_words=cache_words(run, v) if v.name != "eager" else "",
        peak_memory_text=peak_memory_text(run, v),
    )


RESULTS_DIFFER = "results differ"


def list_status(run: ProfileRun) -> str:
    """The run's state in the words every list shows (``compile-profile ls``, the panel's run list), read off the
    verdict (``outcome.list_status``): its status, or the verdict that says more ("results differ", "ran eagerly")."""
    return outcome_list_status(run)


def summary_of(run: ProfileRun) -> RunSummary:
    """The run's summary: what lists, the card and the CLI show (``summarize`` is its JSON)."""
    best = run.speedup_variant
    if best is None and run.untimed:  # a trace's one variant: its compile time, never timed
        best = run.compiled_variants[0] if run.compiled_variants else None
    groups = break_groups(run)
    ruling, of = outcome(run), lines_of(run)
    return RunSummary(
        digest=DIGEST_VERSION,
        id=run.id,
        label=run.label,
        created_at=run.created_at,
        status=run.status,
        list_status=list_status(run),  # status, or the verdict that says more: "results differ", "ran eagerly"
        outcome=outcome_digest(run),  # the verdict every view shows first
        notebook=run.notebook,
        device=DeviceSummary(type=run.device.type, name=run.device.name),
        torch_version=run.torch_version,
        first_line=first_code_line(run.cell_source),
        headline=headline(run),
        variants=[_variant_row(run, v) for v in run.variants],
        speedup=(
            SpeedupSummary(
                value=run.speedup.value,
                low=run.speedup.low,
                high=run.speedup.high,
                variant=run.speedup.variant,
                text=speedup_badge(run.speedup),  # the one short form: badge, list, job rows
                phrase=speedup_phrase(run.speedup),
                has_interval=run.speedup.has_interval,
                includes_one=run.speedup.includes_one,
                interval_text=format_interval(run.speedup),
                several=len(run.compiled_variants) > 1,
                not_meaningful=ruling.rung.not_meaningful if ruling.overrides else "",
            )
            if run.speedup
            else None
        ),
        compile_s=best.compile_s if best else None,
        compile_time=format_s(best.compile_s if best else None),
        cache_state=run.cache.state,
        cache_words=cache_words(run),  # "cold cache", "warm cache", "partly cached" or ""
        cache_counts=cache_counts(run),  # "FX graph 3 hits, 0 missed", ..., "kernels 6, none built (...)"
        graph_count=run.dynamo_graph_count,
        graph_break_count=len(run.graph_breaks),
        graph_break_text=break_count_text(run, groups),
        graph_break_empty_text=no_breaks_text(run),  # what an empty list of breaks means for this run
        ddp_wrapper_break_count=sum(g.count for g in groups if g.ddp_wrapper),
        recompile_count=len(run.recompiles),
        kernel_count=len(run.kernels),
        kernel_text=kernel_count_text(run),
        device_text=device_text(run.device),
        cell_runs=run.cell_runs,
        peak_memory={
            v.name: format_bytes(v.peak_memory_bytes) for v in run.variants if v.peak_memory_bytes is not None
        },
        memory_note=memory_unmeasured_text(run),
        notes=run_notes(run),
        correctness=(_correctness_summary(run.correctness) if run.correctness else None),
        bisect_offer=bisect_offer(run),
        graph_breaks=groups,
        warnings=warnings(run),
        errors=[
            ErrorSummary(
                stage=e.stage,
                message=error_message(e),
                line=e.line,
                variant=e.variant,
                call=e.call,
                type=e.type,
                line_text=line_text(e.line, of) if e.line is not None else "",
            )
            for e in run.errors
        ],
        recommendation=recommendation_digest(run),
        breakdown=breakdown(run),
        # the breakdown's columns in order, keyed as BreakdownRow.parts (collectives only where a call spent
        # time in them), so the panel lays out what the text and HTML views do
        breakdown_columns=breakdown_columns(breakdown(run)),
        verdict=verdict(run),
        # each variant's profiler pass held against its timed call (digest.kernel_times): the panel's
        # Kernels and Lines tabs show shares where a pass is withheld
        kernel_times=kernel_times_digest(run),
        payback=payback(run),
        distributed=distributed_summary(run),
        ddp_splits=ddp_splits_digest(run),
        unreadable=None,  # why a stored run cannot be read (``unreadable_summary``); None for every readable one
        diagnosis=diagnosis_digest(run),
        diagnosis_heading=diagnosis_heading(run),
        trace=trace_summary(run),
        inputs=inputs_summary(run),
    )


def unreadable_summary(
    run_id: str, reason: str, *, created_at: str = "", notebook: str = "", label: str = ""
) -> RunSummary:
    """The summary of a stored run that cannot be read (its JSON is not a run's, or a field has the wrong type):
    listed with its id, its status ``unreadable`` and why, beside the runs that can be read.  It has every key of a
    readable run's summary, empty, so a view that reads one finds it."""
    return RunSummary(
        digest=DIGEST_VERSION,
        id=run_id,
        label=label,
        created_at=created_at,
        status="unreadable",
        list_status="unreadable",
        outcome=Outcome(
            kind="unreadable",
            label="unreadable",
            text=f"this run cannot be read: {reason}",
            tone="none",
            speedup_meaningful=False,
            speedup_text="",
        ),
        notebook=notebook,
        device=DeviceSummary(type="", name=""),
        torch_version="",
        first_line="",
        headline=f"this run cannot be read: {reason}",
        variants=[],
        speedup=None,
        compile_s=None,
        compile_time="—",
        cache_state="none",
        cache_words="",
        cache_counts=[],
        graph_count=0,
        graph_break_count=0,
        graph_break_text="",
        graph_break_empty_text="",
        ddp_wrapper_break_count=0,
        recompile_count=0,
        kernel_count=0,
        kernel_text="",
        device_text="",
        cell_runs=0,
        peak_memory={},
        memory_note="",
        notes=[],
        correctness=None,
        bisect_offer="",
        graph_breaks=[],
        warnings=[],
        errors=[],
        recommendation=None,
        breakdown=[],
        breakdown_columns=[],
        verdict=None,
        kernel_times={},
        payback=None,
        distributed=None,
        ddp_splits=[],
        unreadable=reason,
        diagnosis=[],
        diagnosis_heading="",
        trace=None,
        inputs=None,
    )


def digest_of(run: ProfileRun) -> RunDigest:
    """The run's summary plus what its detail shows (per-line times, each Dynamo graph's guards, each recompile's
    failed guard, what was measured beside the timings, the profile's own cost, the compile timeline).

    Kept apart from ``summary_of``, which the store caches for every run in its list and the MIME bundle
    carries: a 24-layer training step's per-line rows name hundreds of kernels.
    """
    summary = summary_of(run)
    return RunDigest(
        **{f.name: getattr(summary, f.name) for f in fields(summary)},
        lines=line_times(run),
        guards=guards_digest(run),
        recompiles=recompiles_digest(run),
        measured=measured(run),
        profile_cost=profile_cost(run),
        compile_timeline=compile_timeline(run),
        later_run_failure=later_run_failure_text(run),
        interrupted_text=interrupted_text(run),
        timing_warnings=timing_warnings(run),
        state_warnings=warning_notes(run),
        collectives=collective_texts(run),
        recompile_runs=recompile_runs_digest(run),
        recompiles_timed=sum(r.during_timing for r in run.recompiles),
        breakdown_note=breakdown_note(summary.breakdown),
        kernel_table=kernel_table(run),
        kernel_cells=kernel_cells(run),
        magic_line=magic_line(run),
    )


# -- as JSON: what the card, the store, the CLI, the REST API and ``ProfileRun.summary()`` carry ----------------


def summarize(run: ProfileRun) -> dict[str, Any]:
    """``summary_of(run)`` as JSON (``RunSummary``)."""
    return to_dict(summary_of(run))


def run_digest(run: ProfileRun) -> dict[str, Any]:
    """``digest_of(run)`` as JSON (``RunDigest``): what the REST API serves with a run."""
    return to_dict(digest_of(run))
