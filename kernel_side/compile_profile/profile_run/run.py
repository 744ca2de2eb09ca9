"""``ProfileRun``, the root of the run's dataclass tree, and the parts of it no other module of the package holds
(the device, the variants with their timings and kernel profiles, the speedup, the host's load, the inputs, the
distributed rank, where an imported run came from, the profile's settings).

Plain data: it holds data and the few properties that read it (``eager``, ``variant()``, ``untimed``), derives no
figure for a reader (that is ``digest``) and imports no view: how a run shows itself, saves itself and sums itself
up are the views the adapters register (``views``).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import uuid
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import serialize
from .compile_records import CompileRecord
from .compiles import (
    AutotuneResult,
    CacheLookup,
    CacheStats,
    CompileRestart,
    CompileSpan,
    DdpSplit,
    Graph,
    GraphBreak,
    Kernel,
    Recompile,
)
from .correctness import Correctness
from .errors import Bisection, ConfigSetting, ErrorInfo
from .kernel_profile import KernelProfile
from .notes import Note
from .upgrades import SCHEMA_VERSION, upgraded
from .views import VIEWS

RunStatus = Literal["ok", "failed", "interrupted"]


@dataclass
class Device:
    """Where the profile ran."""

    type: Literal["cpu", "cuda"]
    name: str
    count: int = 1


@dataclass
class Timing:
    """Steady-state samples of one variant, in milliseconds."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    n: int
    mean_ms: float = 0.0
    min_ms: float = 0.0
    samples_ms: list[float] = field(default_factory=list[float])
    method: str = "host"  # "host" (perf_counter around a synchronised call) or "cuda_events"
    # CPU (Linux): how long this process's threads waited for a CPU during each sample, per call, in the
    # samples' order (``engine.timing.host_load.ThreadWaits``, summed over threads); empty where not measured
    waited_ms: list[float] = field(default_factory=list[float])
    # CPU: the process's minor page faults during each sample, per call, in the samples' order (pages the allocator
    # took fresh from the OS: ``engine.timing.host_load.minor_faults``); empty where not measured
    faults: list[float] = field(default_factory=list[float])


@dataclass
class Variant:
    """One way of running the cell: eager, or one torch.compile configuration."""

    name: str
    backend: str | None = None
    mode: str | None = None
    dynamic: bool | None = None
    fullgraph: bool = False
    options: dict[str, Any] = field(default_factory=dict[str, Any])
    timing: Timing | None = None
    first_call_s: float | None = None
    peak_memory_bytes: int | None = None
    compile_s: float | None = None
    # compiling again after the first call (recompiles: a learning rate an LR scheduler changes, a new shape);
    # a Llama step's 7 recompiles took 18 s beside its first call's 9 s
    recompile_s: float | None = None
    recompiled_during_timing: bool = False
    torch_compile_call: str | None = None
    error: str | None = None  # its exception, in one line; or "" with ``error_note`` set
    error_note: Note | None = None  # a failure the profile states (another rank's), worded by the digest
    compile_phases: dict[str, float] = field(default_factory=dict[str, float])
    # the compiles' timed spans (first call and recompiles), nested, and their cache lookups
    compile_spans: list[CompileSpan] = field(default_factory=list[CompileSpan])
    cache_lookups: list[CacheLookup] = field(default_factory=list[CacheLookup])
    compile_restarts: list[CompileRestart] = field(default_factory=list[CompileRestart])
    cache_state: str = "none"
    kernel_profile: KernelProfile | None = None  # the profiler pass after timing (every variant)
    # max-autotune's choices, per tuned op
    autotune: list[AutotuneResult] = field(default_factory=list["AutotuneResult"])
    cudagraph_skips: list[str] = field(default_factory=list[str])  # why CUDA graphs were not used (reduce-overhead)


@dataclass
class HostLoad:
    """What other processes used of the machine's CPUs while the profile timed (``engine.timing.host_load``)."""

    other_processes_cores: float  # their busy CPU time over the timed rounds' wall time, in cores
    cores: int  # the cores this process may run on
    threads: int  # the threads the profiled code wanted: torch's intra-op threads on CPU, 1 on a GPU

    @property
    def free_cores(self) -> int:
        """The cores other processes left free, rounded, at least 1: as many threads as torch can run at once."""
        return max(1, round(self.cores - self.other_processes_cores))


@dataclass
class ThreadsTrial:
    """The eager call timed again at ``threads`` torch threads (the cores other processes left free) right after
    the timed rounds, which ran at ``user_threads`` (``engine.timing.threads_trial``): what ``torch.set_num_threads(threads)``
    gives on this machine, measured."""

    threads: int
    user_threads: int
    eager_ms: float  # median per call at ``threads``
    samples: int = 0


@dataclass
class DevicePeaks:
    """Ceilings measured on the device in the same session, with the vendor's figures beside them."""

    copy_gbps: float  # device-to-device copy, bytes read plus bytes written
    bf16_matmul_tflops: float
    vendor_gbps: float | None = None
    vendor_bf16_tflops: float | None = None  # dense, no sparsity
    method: str = ""


@dataclass
class KeptTensor:
    """A tensor the cell keeps (it stays bound after the cell) that a later line of the cell also reads.

    Compiled code must write such a tensor out in full, which a temporary it could fuse away would
    not need: ``traffic_ms`` is writing it once and reading it back once at the device's copy
    bandwidth, a lower bound on what keeping it costs a call.
    """

    name: str
    line: int  # where the cell first assigns it
    used_at: list[int]  # later lines that read it
    shape: list[int]
    dtype: str
    bytes: int
    traffic_ms: float | None = None
    bandwidth_gbps: float | None = None


@dataclass
class Speedup:
    """Median eager time over median compiled time, with a bootstrap interval."""

    value: float
    low: float | None  # NaN (None once stored) when there were too few samples for an interval
    high: float | None
    variant: str
    confidence: float = 0.95

    @property
    def has_interval(self) -> bool:
        """False when there were too few samples for one (then low and high are NaN, or None when read back)."""
        return all(isinstance(x, (int, float)) and math.isfinite(x) for x in (self.low, self.high))

    @property
    def includes_one(self) -> bool:
        low, high = self.low, self.high
        return self.has_interval and low is not None and high is not None and low <= 1.0 <= high


@dataclass
class DistributedRank:
    """Where a run sat in a ``torch.distributed`` job (e.g. under ``torchrun``).

    One ``profile`` call on every rank of a job is one *job*: its runs share ``job_id``, which rank 0
    makes and shares at the start of the call.  The ranks make the same calls of the step in the same
    order in every stage (each decision that depends on a measurement is rank 0's, shared), so
    ``calls_by_stage`` is the same on every rank unless something went wrong.
    """

    rank: int
    world_size: int
    backend: str  # the default process group's backend: "gloo", "nccl", ...
    job_id: str
    local_rank: int = 0
    host: str = ""
    torchrun_id: str = ""  # torchrun's run id (TORCHELASTIC_RUN_ID), when it set one
    calls_by_stage: dict[str, int] = field(default_factory=dict[str, int])  # calls of the step made in each stage


# The filename a profiled cell's code runs under (``engine.cell.function``): a frame of the cell, not of a library.
CELL_FILENAME_PREFIX = "<compile-profile-cell-"
# The filename the tool's publish setters are compiled under (``engine.cell.function``): its frames are the
# instrumentation's, never the user's code's.
SETTER_FILENAME = "<compile-profile-publish>"
# The name of the function a profiled cell's code runs as (``engine.cell.function``), which the user never wrote.
CELL_FUNCTION_NAME = "__compile_profile_cell__"
# How Dynamo names the function it resumes a frame in after a graph break: "torch_dynamo_resume_in_<fn>_at_<line>",
# ``line`` the break's line in the file of ``fn``.
RESUME_FUNCTION = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")

# ErrorInfo.type of a rank that stopped because another rank's first call failed (the lock-step)
OTHER_RANK_FAILED = "OtherRankFailed"


@dataclass
class InputSignature:
    """One distinct input signature of a profile over a sequence of inputs: what Dynamo guards on that can be
    read off an input itself (each tensor's shape, dtype, device and requires_grad; each Python scalar's
    value), and what the profile measured on the inputs that share it."""

    parts: list[str]  # per argument (a cell: the bound name), as "x: (8, 4) float32" or "n = 3"
    inputs: list[int] = field(default_factory=list[int])  # the inputs that have it, 0-based, in order
    # variant -> the timed samples on its inputs (round k of the timing used its inputs[k % len(inputs)])
    timings: dict[str, Timing] = field(default_factory=dict[str, Timing])
    speedup: Speedup | None = None  # eager over the run's speedup variant on these inputs, with its interval
    budget_s: float = 0.0  # its share of the timing budget


@dataclass
class InputCall:
    """One input of the sequence, as the sequence pass ran it: eagerly and under each compiled variant, in the
    order given, from the same state and random seed, so the two are compared on the same input."""

    index: int
    signature: int  # into ``InputSequence.signatures``
    compile_s: dict[str, float] = field(default_factory=dict[str, float])  # variant -> seconds its call compiled
    matches: bool | None = None  # compiled (the speedup variant) within tolerance of eager; None: not compared
    not_compared: Note | None = None  # why not, where it was not ("random_ops": the code draws random numbers)
    mismatched: list[str] = field(default_factory=list[str])  # the outputs that differ
    max_abs_diff: float | None = None


@dataclass
class InputSequence:
    """A profile over a sequence of inputs (``profile(fn, inputs=[...])``, ``--inputs NAME=ITERABLE``): each
    input run in order once (``calls``: the recompiles each caused are ``Recompile.input``), then each
    signature timed apart; the variants' ``timing``, the kernel pass and ``correctness`` are of the
    ``representative`` input's signature, ``ProfileRun.speedup`` is over the whole sequence, weighted by calls."""

    count: int  # inputs in the sequence
    signatures: list[InputSignature] = field(default_factory=list[InputSignature])
    calls: list[InputCall] = field(default_factory=list[InputCall])
    representative: int = 0  # the input the single-input figures were measured on (its signature's first)
    name: str = ""  # the cell's name bound to each input (--inputs NAME=...); "" for profile(fn, inputs=...)
    source: str = ""  # what the inputs came from, as given (the namespace's name; "" for profile())


@dataclass
class Recommendation:
    """What ``--sweep`` measured: the fastest compiled variant and its ``torch.compile`` call, and how much
    faster it ran than the next fastest (``runner_up``): the ratio of their medians with its 95% interval.
    The digest says whether that is a measurable difference (``digest.recommendation.recommendation_digest``)."""

    variant: str
    call: str
    runner_up: str = ""  # "" with one compiled variant, and in runs before schema 2
    margin: float | None = None  # runner_up's median / variant's median
    margin_low: float | None = None
    margin_high: float | None = None
    plain_variant: str = ""  # the swept variant with no mode (torch.compile's default), and its call
    plain_call: str = ""


@dataclass
class SkippedRecord:
    """A record of a TORCH_TRACE log that was skipped: its metadata not of its kind's types (``"stack": 1.5``), or
    its payload not the one torch logged (cut short: its MD5 differs)."""

    line: int  # its line in the log, from 1
    kind: str  # its event kind (an artifact's name)
    why: str  # what is wrong with it


@dataclass
class SuiteEntryRef:
    """The suite entry a run is (``compile-profile suite``): its process built the step from a collection's builder,
    so no notebook cell holds it, and running it again is the suite's ``--only ENTRY`` (the panel's Re-run says so)."""

    suite_id: str
    entry: str  # the entry's name in the suite ("gpt2 (training, bfloat16)")


@dataclass
class TraceOrigin:
    """Where a run read from a structured trace came from (``compile-profile import-trace``): the
    ``TORCH_TRACE`` log of a run no profile made, a script's or a job rank's.  Such a run holds what the
    trace holds (graphs, breaks, recompiles, guards, compile time, cache hits, kernels) and no timings: it
    has one variant, ``trace``, never timed, no eager variant and no speedup."""

    path: str  # the trace file, absolute
    rank: int | None = None  # the rank that wrote it, where the trace names one (a torchrun job's)
    torch_version: str = ""  # the torch that wrote it, where the trace says (2.10 and later do, 2.6 does not)
    script: str = ""  # the file whose lines are the run's "cell" lines: the outermost user frame of its compiles
    script_found: bool = False  # whether that file was read here (else its lines have no code beside them)
    # where it was read, when not at its recorded path: the same file under a source root (a checkout elsewhere)
    script_read_from: str = ""
    records: int = 0  # trace records read
    skipped_lines: int = 0  # lines that were no record (a truncated tail, another program's output)
    # event kinds the trace model does not know (a newer torch's), by kind, with their counts: skipped
    unknown_events: dict[str, int] = field(default_factory=dict[str, int])
    # events of a known kind whose content could not be read (a changed payload), by kind: skipped
    unreadable_events: dict[str, int] = field(default_factory=dict[str, int])
    compile_ids: list[str] = field(default_factory=list[str])  # every compile id the trace names, in order
    # the SHA-256 of the log file's bytes: the same log imported again is the run already stored ("" before it was kept)
    content_sha256: str = ""
    bad_records: int = 0  # records skipped as not of their kind's types, or with a payload cut short
    bad_record_lines: list[SkippedRecord] = field(default_factory=list[SkippedRecord])  # the first of them
    # the files of this machine read for the run's lines (the script, a graph break's file), by real path: only
    # Python sources inside the import's source roots are (engine/trace/sources.py)
    files_read: list[str] = field(default_factory=list[str])


@dataclass
class RunSettings:
    """How the profile ran, beside what it measured: torch's threads as the cell left them after its first run, and
    the profile's own options (the compiled variants record theirs).  Compare shows where two runs differ in them
    first: a 92.7 % drop in eager time between two runs of one cell came from its threads and options, which
    Compare did not show.  None in a run stored before they were recorded."""

    torch_threads: int  # torch.get_num_threads(): intra-op threads (OpenMP on CPU)
    interop_threads: int  # torch.get_num_interop_threads()
    warmup: int
    repeat: int
    budget_s: float
    quick: bool = False
    check_correctness: bool = True
    inputs: str = (
        ""  # --inputs NAME=ITERABLE as given; "" for one input (or profile(fn, inputs=...): ``InputSequence``)
    )


@dataclass
class ProfileRun:
    """The result of one ``%%compile_profile`` (or ``compile_profile.profile``) call."""

    id: str
    created_at: str
    label: str
    cell_source: str
    device: Device
    torch_version: str
    variants: list[Variant] = field(default_factory=list[Variant])
    speedup: Speedup | None = None
    graphs: list[Graph] = field(default_factory=list[Graph])
    graph_breaks: list[GraphBreak] = field(default_factory=list[GraphBreak])
    recompiles: list[Recompile] = field(default_factory=list[Recompile])
    kernels: list[Kernel] = field(default_factory=list[Kernel])
    compile_phases: dict[str, float] = field(default_factory=dict[str, float])
    cache: CacheStats = field(default_factory=CacheStats)
    correctness: Correctness | None = None
    errors: list[ErrorInfo] = field(default_factory=list[ErrorInfo])
    status: RunStatus = "ok"
    notebook: str = ""
    cell_runs: int = 0
    notes: list[Note] = field(default_factory=list[Note])
    recommendation: Recommendation | None = None
    bisection: Bisection | None = None  # --bisect: where a failed compile starts to fail
    # the Inductor, Dynamo and functorch settings not at their defaults, recorded where a compile failed or
    # compiled results differed (a setting may be the cause); None where not recorded (nothing went wrong, a run
    # read from a trace, a run stored before they were)
    configs_changed: list[ConfigSetting] | None = None
    device_peaks: DevicePeaks | None = None
    memory_ratio: float | None = None  # eager peak memory / compiled peak memory (PT2 dashboard's compression ratio)
    kept_names: list[str] = field(default_factory=list[str])  # what the cell keeps (published, bound after it)
    temporaries: list[str] = field(default_factory=list[str])  # what it assigns but does not keep (--keep)
    kept_tensors: list[KeptTensor] = field(default_factory=list[KeptTensor])  # large kept intermediates
    # the LR schedulers the profiled code reads (by name: ``sched``, ``trainer.scheduler``): where none is, a float
    # learning rate Dynamo guards on does not change from step to step, and nothing says it would
    lr_schedulers: list[str] = field(default_factory=list[str])
    distributed: DistributedRank | None = None  # set when torch.distributed was initialised
    ddp_splits: list[DdpSplit] = field(default_factory=list[DdpSplit])  # graphs DDPOptimizer split at bucket boundaries
    host_load: HostLoad | None = None  # other processes' CPU use while timing (Linux)
    threads_trial: ThreadsTrial | None = None  # CPU: timed again at fewer threads, where torch had more than free cores
    # the profile's own wall time per stage, in the order they ran ("eager first call", "first call: default",
    # "warm-up", "timing", "float64 reference", "correctness", "kernel pass: eager", ...); the entries do not
    # overlap, "other" is the rest of the profile's wall time; empty in a run stored before they were recorded
    stage_s: dict[str, float] = field(default_factory=dict[str, float])
    imported_trace: TraceOrigin | None = None  # set on a run read from a TORCH_TRACE log: no timings
    suite_entry: SuiteEntryRef | None = None  # set on a suite entry's run, by the suite's child process
    # a profile over a sequence of inputs; then ``speedup`` is the sequence's, weighted by calls
    inputs: InputSequence | None = None
    settings: RunSettings | None = None  # torch's threads and the profile's options (None before they were recorded)
    # every compile by compile id and attempt, with its artifacts by reference (``CompileRecord``)
    compiles: list[CompileRecord] = field(default_factory=list[CompileRecord])
    # the artifacts' texts by SHA-256, while the run is not in a run store (a run file carries them); ``RunStore.put``
    # keeps them in its artifacts table and stores the run without them, so a stored run's JSON has none
    artifact_texts: dict[str, str] = field(default_factory=dict[str, str])
    schema_version: int = SCHEMA_VERSION

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex[:12]

    @staticmethod
    def now() -> str:
        return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

    # -- derived views ---------------------------------------------------
    @property
    def eager(self) -> Variant | None:
        return next((v for v in self.variants if v.name == "eager"), None)

    @property
    def compiled_variants(self) -> list[Variant]:
        return [v for v in self.variants if v.name != "eager"]

    @property
    def speedup_variant(self) -> Variant | None:
        """The compiled variant the speedup names (the fastest timed); None when there is no speedup."""
        return self.variant(self.speedup.variant) if self.speedup is not None else None

    @property
    def memory_variant(self) -> Variant | None:
        """The compiled variant ``memory_ratio`` compares eager with: the speedup's when its memory was
        measured, else the first measured one."""
        measured = [v for v in self.compiled_variants if v.peak_memory_bytes]
        best = next((v for v in measured if self.speedup is not None and v.name == self.speedup.variant), None)
        return best or (measured[0] if measured else None)

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"no variant named {name!r}; have {[v.name for v in self.variants]}")

    @property
    def untimed(self) -> bool:
        """A run that never had timings: read from a TORCH_TRACE log (``imported_trace``), it has no eager variant,
        no speedup, no peak memory and no correctness check, and the views say where it came from instead."""
        return self.imported_trace is not None

    @property
    def dynamo_graph_count(self) -> int:
        return sum(1 for g in self.graphs if g.kind == "dynamo")

    # -- serialization ---------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return serialize.to_dict(self)

    @classmethod
    def from_dict(cls, data: object) -> ProfileRun:
        """A run from its JSON data; ``serialize.FormatError`` (a ``ValueError``) names the first field whose value
        does not have its type (or a speedup naming no variant), and a newer schema is refused with the upgrade
        to make."""
        if not serialize.is_dict(data):
            raise serialize.FormatError(f"its JSON is {serialize.json_kind(data)}, not an object")
        run = serialize.from_dict(cls, upgraded(data))
        # The one cross-reference the views look up: the variant the speedup names (``speedup_variant``).
        if run.speedup is not None and not any(v.name == run.speedup.variant for v in run.variants):
            names = ", ".join(repr(v.name) for v in run.variants) or "none"
            raise serialize.FormatError(f"names no variant of the run (it has {names})"[:300], ("speedup", "variant"))
        return run

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> ProfileRun:
        return cls.from_dict(json.loads(text))

    # -- views: registered by the adapters (``views``); figures are derived in compile_profile.digest --
    def summary(self) -> dict[str, Any]:
        """The run's summary as JSON (``digest.summarize``; its shape is ``digest.summary.RunSummary``)."""
        return VIEWS.get("summary")(self)

    def _repr_mimebundle_(self, include: Container[str] | None = None, exclude: Container[str] | None = None):
        return VIEWS.get("mime_bundle")(self)

    def __repr__(self) -> str:
        speedup = f" speedup={self.speedup.value:.3g}x" if self.speedup is not None else ""
        return (
            f"<ProfileRun {self.id} {self.status} on {self.device.type}: {len(self.variants)} variants"
            f"{speedup}, {len(self.graphs)} graphs, {len(self.kernels)} kernels>"
        )

    def __str__(self) -> str:
        return VIEWS.get("text")(self)

    def to_html(self) -> str:
        """A self-contained HTML report of this run (opens offline; see ``render.report``)."""
        return VIEWS.get("report_html")(self)

    def save(self, db: str | Path | None = None) -> str:
        """Write this run to the run store at ``db`` (default: ``$COMPILE_PROFILE_DB``, else the Jupyter data
        directory's) and return its id; a distributed job's ranks each save theirs into one store."""
        return VIEWS.get("save")(self, db)

    def show(self, compare_with: list[ProfileRun] | None = None) -> Any:
        """An ipywidgets explorer of this run, optionally compared with other runs."""
        return VIEWS.get("explorer")(self, compare_with)


SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "profile_run.schema.json"


def json_schema() -> dict[str, Any]:
    return serialize.json_schema(
        ProfileRun,
        title="compile-profile ProfileRun",
        schema_id="https://compile-profile.invalid/schema/profile_run.schema.json",
    )
