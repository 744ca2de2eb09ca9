"""The digest's JSON, typed: the one contract between the digest and every reader of it (the panel, the card, saved
notebooks).

Each shape the digest's functions return (``summarize``, ``run_digest``, ``compare``, ``job_digest``) and the
server and the MIME bundle carry is a ``TypedDict`` here, so the functions keep returning plain dicts and
``json_schema()`` derives ``schema/digest.schema.json`` from these classes, as ``profile_run.json_schema()``
derives the run's schema from its dataclasses; ``ext/src/generated/`` holds the TypeScript generated from both
schemas (``make contract``; ``make lint`` fails when either is stale), and ``tests/test_digest_contract.py``
validates real digests against the schema.

Required and optional keys: a class's own keys are required, those of its ``total=False`` subclass are not.
Required are the keys every digest since the first one carries and the panel reads without a fallback; the
rest may be absent where the data is older than this version (a card's summary saved in a notebook by an older
release) and a view shows nothing in their place.  This version writes every key: the schema allows no other
key (``additionalProperties: false``), so a key added to a digest function but not here fails the test, and
TypeScript never reads a key that is not declared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, TypedDict

from .. import serialize
from .compile_shapes import CompileDetail, CompileIndex

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "digest.schema.json"

# -- one run: summarize(run), what lists, the card and the CLI show ------------------------------------


class DeviceSummary(TypedDict):
    """Where the run ran: ``cpu`` or ``cuda``, and the device's name."""

    type: str
    name: str


class _VariantRow(TypedDict):
    name: str
    median_ms: float | None
    p10_ms: float | None
    p90_ms: float | None
    n: int
    compile_s: float | None
    error: str | None


class VariantRow(_VariantRow, total=False):
    """One variant's figures in the summary: its timing's median and spread, compile time and error."""

    backend: str | None
    mode: str | None
    first_call_s: float | None
    recompile_s: float | None
    peak_memory_bytes: int | None
    recompiled_during_timing: bool


class _SpeedupSummary(TypedDict):
    value: float
    low: float | None  # None: too few samples for an interval
    high: float | None
    variant: str
    text: str  # the one short form, as the headline words it: "1.25× faster"
    phrase: str  # "1.25× faster", "1.80× slower (within noise)"
    has_interval: bool
    includes_one: bool


class SpeedupSummary(_SpeedupSummary, total=False):
    """The speedup as the digest words it: the factor, the headline's phrase and its interval."""

    interval_text: str  # "[1.11×–1.43×]", as the text view words it


class Outcome(TypedDict):
    """The run's verdict (``outcome.outcome``): the first rung of the ladder that holds, which every view shows first
    and colours by ``tone``; beneath a verdict that overrides it the speedup is not meaningful."""

    # "trace", "eager_failed", "compile_failed", "results_differ", "ran_eagerly", "nothing_compiled", "stopped",
    # "partly_eager", "not_measurable", "faster", "slower", "unreadable"
    kind: str
    label: str  # what a badge shows: "results differ", "ran eagerly", or the speedup where it is the verdict
    text: str  # the verdict's sentence, which the headline leads with
    tone: Literal["wrong", "eager", "faster", "slower", "even", "none"]
    speedup_meaningful: bool  # False beneath a verdict that overrides the speedup, and without one
    speedup_text: str  # "1.53× slower — not meaningful: compiled results differ"; the phrase where meaningful


class _CorrectnessSummary(TypedDict):
    ok: bool | None
    max_abs_diff: float | None
    note: str


class CorrectnessSummary(_CorrectnessSummary, total=False):
    """Whether compiled results matched eager's, and the digest's sentence for it."""

    method: str
    text: str


class ErrorSummary(TypedDict):
    """Something that went wrong, at which stage, on which cell line and call."""

    stage: str
    message: str
    line: int | None
    variant: str
    call: int | None


class _RecommendationSummary(TypedDict):
    variant: str
    call: str


class RecommendationSummary(_RecommendationSummary, total=False):
    """What ``--sweep`` concluded: the variant to use and the call to copy (the plain ``torch.compile(model)``
    when no mode ran measurably faster than the next fastest)."""

    text: str  # the recommendation and why, in one line (``summary.recommendation_digest``)
    measurable: bool  # whether a mode won beyond the noise (False: "no mode is measurably better")


class _BreakGroup(TypedDict):
    line: int | None
    code_line: str
    inside: str
    inside_code: str
    reason: str
    reason_full: str
    count: int
    variants: list[str]


class BreakGroup(_BreakGroup, total=False):
    """Graph breaks with the same cause at the same place, counted (``facts.BreakGroup``)."""

    ddp_wrapper: bool  # in DDP's own forward wrapper, which runs eagerly by design: not the user's to fix
    note: str  # what to do about the group, or why there is nothing to do
    owner: str  # "yours", "library" or "pytorch" (PyTorch's own, by design)
    skipped_rest: bool  # Dynamo could not resume there and ran the rest of that function eagerly
    page: str  # Dynamo's page for this kind of graph break, where the reason names one


class _BreakdownRow(TypedDict):
    variant: str
    method: str  # "cupti" (device times) or "host" (host times of each op's call)
    median_ms: float  # the whole call
    library_ms: float
    generated_ms: float
    aten_ms: float
    copy_ms: float
    kernels_ms: float
    outside_ms: float


class BreakdownRow(_BreakdownRow, total=False):
    """Where one call's time goes in one variant, in ms (``breakdown.BreakdownRow``), with each cell worded."""

    clamped: bool  # the profiled kernels took longer than the timed call, so outside_ms reads 0
    collective_ms: float  # the process group's communication; 0 outside distributed runs
    profiled_ms: float | None  # a profiled call's wall time
    trusted: bool  # False: the profiler pass is withheld (``kernel_times``), the parts are shares of it
    withheld_text: str  # why the pass is withheld; "" when it is not
    texts: dict[str, str]  # part key -> the cell as every view words it: "1.2 ms", "40% of pass", "—"


class BreakdownColumn(TypedDict):
    """A column of the breakdown table, keyed as ``BreakdownRow.parts``, and its heading."""

    key: str
    label: str


class PassJudgment(TypedDict):
    """One variant's profiler pass held against its timed call (``kernel_times.PassJudgment``)."""

    variant: str
    trusted: bool
    kernels_ms: float
    call_ms: float
    tolerance_ms: float
    preempted: bool
    text: str  # why the pass's times are withheld; "" when trusted
    why: str  # the same in a few words, with the variant's name; "" when trusted


class Payback(TypedDict):
    """What compiling cost and after how many calls it pays back (``payback.payback``)."""

    compile_s: float
    saving_ms: float
    calls: int | None  # None: it never does
    text: str


class _DistributedSummary(TypedDict):
    rank: int
    world_size: int
    job_id: str  # shared by every rank of one profile call
    backend: str


class DistributedSummary(_DistributedSummary, total=False):
    """A run's place in a distributed job (``distributed.distributed_summary``)."""

    text: str  # "rank 1 of 2 (gloo), job 3f2a9c01d4e5"


class TraceSummary(TypedDict):
    """Where a run read from a TORCH_TRACE log came from (``trace.trace_summary``)."""

    path: str
    rank: int | None
    torch_version: str  # "" where the trace does not say
    script: str  # the file whose lines are the run's lines
    compile_ids: int  # how many compile ids the trace names
    text: str  # "from the TORCH_TRACE /tmp/t/x.log (rank 1), written by torch 2.13.0+cpu; lines are those of …"
    skipped_text: str  # what of the log was skipped, counted; "" when everything was read
    no_timings: str  # what the views show where a profiled run's timings are: "from a TORCH_TRACE: no timings"


class DdpSplitSummary(TypedDict):
    """A graph DDPOptimizer split at DDP's bucket boundaries, and the digest's sentence for it."""

    variant: str
    compile_id: str
    graph_id: str
    pieces: int
    bucket_cap_bytes: int | None
    text: str


class Cause(TypedDict):
    """One thing that costs the compiled cell time, what it costs and what to do (``diagnosis.Cause``)."""

    kind: str  # eager_region, outside_kernels, fallback_kernels, library_slower, kernels_slower, fused_native,
    # recompiles, compile
    title: str  # what it is, in a few words
    cost_text: str  # "3.10 ms a call (41% of the call)"; "12.3 s once"
    action: str  # what to do; "" when there is nothing to do
    cost_ms: float | None  # per call
    cost_s: float | None  # once
    line: int | None  # the cell line, where the cause has one
    owner: str  # a graph break's: "yours", "library", "pytorch"; "" for other causes


class _RunSummary(TypedDict):
    id: str
    label: str
    created_at: str
    status: str
    notebook: str
    device: DeviceSummary
    first_line: str
    headline: str
    variants: list[VariantRow]
    speedup: SpeedupSummary | None
    compile_s: float | None
    cache_state: str
    graph_count: int
    graph_break_count: int
    recompile_count: int
    kernel_count: int
    warnings: list[str]


class InputSignatureRow(TypedDict):
    """One input signature of a profile over a sequence of inputs (``inputs.inputs_summary``)."""

    signature: str  # "x: (8, 4) float32", "x: (8, 4) float32, n = 3"
    inputs: list[int]  # the inputs that have it, 1-based (the first 100: ``inputs_text`` says them all)
    inputs_text: str  # "1–400, 402, 405–410, … (5,000 inputs)"
    calls: int  # how many calls of the sequence it served
    share: float  # of the sequence's calls
    eager_ms: float | None  # medians on its inputs; None where not timed
    compiled_ms: float | None  # the speedup variant's
    eager_time: str  # eager_ms in words: "1.52 ms", "—" where not timed
    compiled_time: str  # compiled_ms in words
    samples: int  # the speedup variant's samples on it
    speedup: float | None
    low: float | None  # its 95% interval; None with too few samples
    high: float | None
    speedup_text: str  # "1.52× faster [1.40×–1.61×]", or "not timed"
    recompiles: int  # the speedup variant's recompiles its inputs caused
    compile_s: float  # the seconds its inputs' calls spent compiling (the first input's first compile included)
    compile_time: str  # compile_s in words: "2.1 s"
    representative: bool  # the signature the variants' times, kernels and correctness are of


class InputRecompileRow(TypedDict):
    """A recompile and the input whose call made it."""

    input: int  # 1-based
    signature: str
    variant: str
    text: str  # the failed guard in the user's words, then Dynamo's reason (``guards.recompile_text``)
    compile_s: float | None  # the seconds that input's call spent compiling; None on its later recompiles' rows
    compile_time: str  # compile_s in words; "" where compile_s is None


class InputsSummary(TypedDict):
    """A profile over a sequence of inputs: the sentence, a row per signature, the recompiles by input."""

    count: int  # inputs in the sequence
    name: str  # the cell's name bound to each input ("" for profile(fn, inputs=...))
    source: str  # the namespace's iterable they came from ("" for profile(fn, inputs=...))
    text: str  # "6 inputs, 2 signatures: inductor/default 1.52× faster over the sequence, weighted by calls ..."
    rows: list[InputSignatureRow]  # a few signatures; beyond 10, the most called (and the representative)
    more_signatures_text: str  # "… 1,204 more signatures, 19,000 inputs, each timed apart"; "" when all are listed
    recompiles: list[InputRecompileRow]
    mismatches: list[str]  # per input where compiled differed from eager on it, in words
    compared: int  # inputs compared
    comparison_text: str  # "compiled matches eager on each of the 6 inputs, each compared on the same input"
    timing_text: str  # how the samples were taken, and which signature the other figures are of


class RunSummary(_RunSummary, total=False):
    """One run's digest for lists, the card and the CLI (``summary.summarize``)."""

    digest: int  # DIGEST_VERSION: the store re-derives a summary cached under an older one
    list_status: str  # what lists show: the status, or the verdict that says more ("results differ")
    outcome: Outcome  # the verdict every view shows first (digest 22 on)
    torch_version: str
    cache_words: str  # "cold cache", "warm cache", "partly cached" or ""
    cache_counts: list[str]
    graph_break_text: str  # "7 graph breaks, 3 in DDP's wrapper"
    graph_break_empty_text: str  # what an empty list of graph breaks means for this run
    ddp_wrapper_break_count: int
    cell_runs: int
    kernel_text: str  # "32 generated kernels (cpp), 742 library calls" (``facts.kernel_count_text``)
    device_text: str  # "cuda (NVIDIA H200)", "cpu" where no name is known
    peak_memory: dict[str, str]  # variant -> its measured peak, worded
    memory_note: str  # why the run has no peak memory; "" when it has one
    notes: list[str]  # the run's notes in words, in the order the engine recorded them
    correctness: CorrectnessSummary | None
    # what re-running the cell with --bisect would find; "" where it would find nothing (``notes.bisect_offer``)
    bisect_offer: str
    graph_breaks: list[BreakGroup]
    errors: list[ErrorSummary]
    recommendation: RecommendationSummary | None
    breakdown: list[BreakdownRow]  # [] when not measured
    breakdown_columns: list[BreakdownColumn]  # collectives after copies where a call spent time in them
    verdict: str | None  # one sentence why compiled is faster or slower; None when there is none
    kernel_times: dict[str, PassJudgment]  # variant -> its profiler pass held against its timed call
    payback: Payback | None
    distributed: DistributedSummary | None  # None for a single-process run
    ddp_splits: list[DdpSplitSummary]
    unreadable: str | None  # why a stored run cannot be read (``unreadable_summary``); None when it can
    diagnosis: list[Cause]  # what costs the compiled cell time, largest first (``diagnosis``); the card shows 3
    diagnosis_heading: str  # what the list answers, with the speedup it explains
    trace: TraceSummary | None  # a run read from a TORCH_TRACE log (``import-trace``); None for a profiled run
    inputs: InputsSummary | None  # a profile over a sequence of inputs; None for one input


# -- one run's detail: run_digest(run), what the REST API serves with a run -------------------------------


class _LineRow(TypedDict):
    line: int
    code: str
    kernels: dict[str, list[str]]  # variant -> kernel names, in generation order
    time_ms: dict[str, float | None]  # variant -> this line's share of kernel time (None: none timed)
    shared: dict[str, int]  # variant -> kernels also counted on other lines
    graph_breaks: int


class LineRow(_LineRow, total=False):
    """One cell line's kernels and time per variant (``lines.LineRow``), with each cell worded."""

    eager_ops: dict[str, list[str]]  # compiled variant -> the ops it ran on this line outside its graphs
    share: dict[str, float | None]  # variant -> the line's share of the pass, where the pass is withheld
    texts: dict[str, str]  # variant -> the cell as every view words it: "1.2 ms", "31% of pass", "—"


class _LineTimes(TypedDict):
    rule: str  # the one rule the times follow, in words
    variants: list[str]
    rows: list[LineRow]
    unattributed: dict[str, int]  # variant -> kernels tied to no cell line
    unattributed_ms: dict[str, float | None]


class LineTimes(_LineTimes, total=False):
    """Time per cell line (``lines.LineTimes``)."""

    off_lines_ms: dict[str, float]  # variant -> its measured kernel time that no line holds
    off_lines_text: list[str]  # what no line holds, worded per variant
    withheld: dict[str, str]  # variant -> why its line times are shares


class GuardGroup(TypedDict):
    """The guards of one kind on one value (``guards.GuardGroup``)."""

    kind: str
    # the value checked in the user's words: "x", "self.weight", "xb" (a stack slot after a graph break),
    # "m's parameters" (a module's parameters together: one row for them all)
    source: str
    line: int | None  # the cell line the value comes from
    count: int
    codes: list[str]  # the checks themselves, as Dynamo prints them
    # "recompiles when the value changes (…): s, what x.sum().item() returned at cell line 2 (compiled for
    # 1.533); fix: …" for a value guard on a number from data; "" for any other group
    warning: str


class GraphGuards(TypedDict):
    """One Dynamo graph's guards (``guards.GraphGuards``), and their kinds in words."""

    graph_id: str
    variant: str
    compile_id: str
    total: int
    by_kind: dict[str, int]  # kind -> count, in the digest's order
    groups: list[GuardGroup]
    kinds_text: str  # "12 tensor, 3 shape, 4 global state"


class RecompileRow(TypedDict):
    """A recompile with the guard that failed: which value, at which cell line."""

    variant: str
    reason: str
    during_timing: bool
    source: str
    line: int | None
    # "xb, what next(batches) returned at cell line 3, changed dim 1: 32 → 17; fix: compile with dynamic=True, or
    # torch._dynamo.mark_dynamic(xb, 1)"; "the guard on x (cell line 1) failed" where no change was read; "" when unknown
    failed_guard: str
    value: str  # "xb, what next(batches) returned at cell line 3"; "x (cell line 2)"; "" when unknown
    changed: str  # "dim 1: 32 → 17", "dtype: Float → Double", "value (compiled for 56.15…)"; "" when unread
    fix: str  # "compile with dynamic=True, or torch._dynamo.mark_dynamic(xb, 1)"; "" when none is known


class DevicePeaksSummary(TypedDict):
    """The device's measured ceilings in words, and how they were measured."""

    text: str
    method: str


class MemoryRatio(TypedDict):
    """Compiled's peak memory over eager's, and the sentence for it."""

    value: float
    text: str


class AutotuneRow(TypedDict):
    """One max-autotune choice: the op, its shape, what won and how long tuning took (``measured.AutotuneRow``)."""

    variant: str
    op: str
    shape: str  # in words: [4096×4096, 4096×4096]
    choices: int | None
    best: str
    best_ms: float | None
    best_triton: str
    best_triton_ms: float | None
    autotune_s: float | None
    text: str
    texts: dict[str, str]  # best_ms, best_triton_ms, autotune_s as every view words them: "410 µs", "—"


class CudagraphSkip(TypedDict):
    """Why CUDA graphs were skipped in one variant."""

    variant: str
    reasons: list[str]


class RooflineRow(TypedDict):
    """One kernel's achieved rates as shares of the device's ceilings (``measured.RooflineRow``)."""

    kernel_id: str
    name: str
    variant: str
    achieved_gbps: float | None
    bandwidth_share: float | None  # of the copy peak
    achieved_tflops: float | None
    compute_share: float | None  # of the bf16 matmul peak
    text: str


class Measured(TypedDict):
    """What was measured beside the timing (``measured.measured``): the digest's figures and sentences."""

    device_peaks: DevicePeaksSummary | None
    memory_ratio: MemoryRatio | None
    autotune: list[AutotuneRow]
    cudagraph_skips: list[CudagraphSkip]
    roofline: list[RooflineRow]


class ProfileCostRow(TypedDict):
    """One stage of the profile's own wall time (``cost.profile_cost``)."""

    stage: str  # the key of ProfileRun.stage_s ("kernel pass: eager")
    label: str  # in words ("eager profile (per cell line)")
    seconds: float
    time: str  # "1.2 s"
    share: str  # of the profile's wall time: "43%"


class ProfileCost(TypedDict):
    """Where the profile's own time went (``cost.profile_cost``)."""

    total_s: float
    time: str
    text: str  # one sentence: first calls, timing, after timing and its largest stage
    # in the order the stages ended (an outer one after those in it), those under 0.5 ms left out
    rows: list[ProfileCostRow]


class TimelinePhase(TypedDict):
    """One timed span of a compile (``timeline.compile_rows``), nested by depth."""

    name: str  # Dynamo's span name: "backend_compile", "inductor_compile", "compile_file"
    family: str  # the part of the stack: "Dynamo", "AOTAutograd", "Inductor", "code generation and C++/Triton compile"
    depth: int  # how many of the compile's shown phases hold it: 0 for its outermost spans
    start_s: float  # from the variant's first compile's start
    duration_s: float
    time: str


class CompileTimelineRow(TypedDict):
    """One compile (a compile id) of a compiled variant, its time and nested phases (``timeline.compile_rows``)."""

    variant: str
    compile_id: str  # "0/0"
    when: Literal["first call", "recompile"]
    start_s: float  # from the variant's first compile's start
    total_s: float  # its outermost spans' sum
    time: str
    cache_text: str  # "FX graph: 2 misses (full_miss); AOTAutograd: 1 miss (full_miss)"; "" with no lookup
    restart_text: str  # "[6/1_2] after 2 restarts: Failed to trace builtin operator; …" (tlparse's); "" with none
    phases: list[TimelinePhase]  # timeline.SHOWN_PHASES, each at least 1% of the compile
    compile_key: str  # the compile's kept attempt in the Compiles tab (``compiles.compile_key``); "" where not recorded


class CompileTimeline(TypedDict):
    """Where the compiles' time went, compile by compile (``timeline.compile_timeline``)."""

    text: str  # "first call 12.3 s: 11.9 s of it (97%) compiling 3 frames (0/0 9.1 s, ...)"
    rows: list[CompileTimelineRow]


class RunDigest(RunSummary, total=False):
    """``summarize`` plus what one run's detail shows (``summary.run_digest``)."""

    lines: LineTimes
    guards: list[GraphGuards]  # per Dynamo graph with guards
    recompiles: list[RecompileRow]
    measured: Measured
    profile_cost: ProfileCost | None  # None for a run stored before its stages were timed
    compile_timeline: CompileTimeline | None  # None for a run stored before its spans were recorded


# -- two runs: compare(a, b).as_dict() ------------------------------------------------------------------


class RunRef(TypedDict):
    """A run as the comparison names it (``compare.RunRef``)."""

    id: str
    label: str
    created_at: str
    device: str
    torch_version: str


class Delta(TypedDict):
    """One compared figure (``compare.Delta``): each run's value, worded, and B's change against A."""

    metric: str
    a: float | None
    b: float | None
    a_text: str
    b_text: str
    change: float | None  # b / a - 1; None when undefined
    change_text: str
    better: Literal["a", "b", ""]  # which run's figure is the better one; "" when neither, within noise or no direction
    within_noise: bool  # the change lies within one run's interval (p10–p90, the speedup's): shown neutral


class KernelCount(TypedDict):
    """A kernel name (Inductor's trailing counter stripped) and how many more one run has."""

    name: str
    count: int


class ContextRow(TypedDict):
    """One thing two runs ran with (``compare.ContextRow``): device, torch, threads, options, the cell; each worded."""

    label: str
    a: str
    b: str
    differs: bool


class _Comparison(TypedDict):
    a: RunRef
    b: RunRef
    deltas: list[Delta]
    kernels_added: list[KernelCount]
    kernels_removed: list[KernelCount]
    kernels_kept: int


class Comparison(_Comparison, total=False):
    """Run A (before) against run B (after) (``compare.Comparison``)."""

    context: list[ContextRow]  # what the runs ran with, the rows that differ first (digest 22 on)


# -- a distributed job: job_digest(runs) ----------------------------------------------------------------


class _JobRow(TypedDict):
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
    divergent: bool  # this rank differs from the others; ``reasons`` says how
    reasons: list[str]


class JobRow(_JobRow, total=False):
    """One rank of a job (``job.job_digest`` rows): every figure with the digest's words for it."""

    eager_text: str  # this rank's eager and compiled medians ("9.43 ms", "failed", "—")
    compiled_text: str
    correctness_text: str
    error_text: str  # the run's first error, "stage: message"
    notes: list[str]  # what the rank's figures include but it did not cause


class JobDivergence(TypedDict):
    """A way one rank differs from the rest of its job."""

    rank: int
    what: str
    text: str


class CompileSpread(TypedDict):
    """The compile times of a job's ranks, and the digest's sentence for their spread."""

    min_s: float | None
    median_s: float | None
    max_s: float | None
    text: str


class _JobDigest(TypedDict):
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


class JobDigest(_JobDigest, total=False):
    """One profile call on every rank of a distributed job (``job.job_digest``)."""

    peak_memory_note: str  # why the peak memory column reads "not measured", said once
    ddp_note: str  # the order DDP all-reduces the pieces the DDP buckets column counts


# -- what the server and the MIME bundle carry the digest in ---------------------------------------------


class _PlotlyFigure(TypedDict):
    data: list[dict[str, Any]]


class PlotlyFigure(_PlotlyFigure, total=False):
    """A plotly figure as JSON (``render.charts``): drawn as it is, so not typed further."""

    layout: dict[str, Any]
    config: dict[str, Any]


class _RunMimeData(TypedDict):
    version: int
    run_id: str
    summary: RunSummary


class RunMimeData(_RunMimeData, total=False):
    """The data of an ``application/vnd.compile-profile.run+json`` output (``render.mime.run_payload``)."""

    figures: dict[str, PlotlyFigure]
    logs: list[str]  # the lines the profile wrote to stderr, a repeated line once (the magic's card folds them)
    logs_text: str  # the fold's heading: how many lines, how many different


class RunsPage(TypedDict):
    """GET runs: a page of the store's summaries, how many there are, and the store's change token."""

    runs: list[RunSummary]
    total: int
    token: int


class JobPage(TypedDict):
    """GET jobs/<job_id>: the job's digest and its runs' summaries, in rank order."""

    job: JobDigest
    runs: list[RunSummary]


# The shapes a reader receives whole; the schema's root is any one of them and its $defs name each.  The compile views'
# are dataclasses (``compile_shapes``), declared once: their schema and TypeScript come from them.
ROOTS = (RunDigest, RunSummary, RunMimeData, RunsPage, Comparison, JobDigest, JobPage, CompileIndex, CompileDetail)


def json_schema() -> dict[str, Any]:
    return serialize.json_schema(
        ROOTS,
        title="compile-profile digest",
        schema_id="https://compile-profile.invalid/schema/digest.schema.json",
    )


def _schema_files() -> dict[Path, dict[str, Any]]:
    from .. import profile_run

    return {profile_run.SCHEMA_PATH: profile_run.json_schema(), SCHEMA_PATH: json_schema()}


def main(argv: list[str] | None = None) -> int:
    """Write both shipped schemas (the run's and the digest's) from their classes, or with ``--check`` only say
    which is stale, exiting 1: ``make contract`` and ``make lint`` call it (``python -c``, since ``python -m``
    would run this module a second time beside the copy the digest package has imported)."""
    import sys

    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for path, schema in _schema_files().items():
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)}; regenerate with `make contract`", file=sys.stderr)
        return 1
    return 0
