"""``ProfileRun``: everything one profile measured, as a serializable dataclass tree.

This is the contract between the measuring core and every consumer (renderers,
the run store, the server, the JupyterLab extension).  Field names are part of
the public JSON shape documented by ``schema/profile_run.schema.json``; add
fields freely, rename none.

About 500 lines, kept in one module on purpose: the dataclass tree is the schema, and the JSON
Schema is generated from this one file (``serialize``); it holds data and the few properties that
read it (``eager``, ``variant()``), and derives no figure for a reader (that is ``digest``).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import uuid
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from . import serialize

if TYPE_CHECKING:
    from .digest.contract import RunSummary

# 2: notes became facts (``Note``: a kind and its values, worded by ``digest.notes``); ``memory_note`` and
# ``Recommendation.reason`` went (the digest words both from the run); older runs are upgraded on load
# (``UPGRADES``), never rewritten in the store.
SCHEMA_VERSION = 2

GraphKind = Literal["dynamo", "aot_forward", "aot_backward", "aot_inference", "post_grad"]
RunStatus = Literal["ok", "failed", "interrupted"]
TimingMethod = Literal["cupti", "host"]  # CUPTI's device times (CUDA), or the profiler's host times (CPU)


# What a note records; ``digest.notes.NOTE_WORDS`` words each kind (a test holds the two lists together).
NoteKind = Literal[
    "text",  # a note written by compile-profile before schema 2, in its own words: values["text"]
    "already_compiled",  # the cell calls callables torch.compile already wrapped: values["names"]
    "random_draws_differ",  # runs from the same generator state drew differently
    "optimizer_changed_by_compile",  # Dynamo changed the optimizer (step counters, capturable)
    "nothing_compiled",  # Dynamo captured no graph
    "dispatcher_left_on",  # --bisect's failed compiles left torch's Python dispatcher switched on (a PyTorch bug)
    "recompiled_during_timing",  # variant, values["graphs"]
    "recompile_limit",  # variant, values["compile_id"], ["limit"], ["during_timing"]
    "warmup_kept_compiling",  # variant, values["extra_calls"], ["settled_calls"]
    "state_restored",  # the cell changes tensors in place: values["tensors"]
    "state_not_compared",  # ... too large to compare: values["tensors"], ["bytes"]
    # what the cell changed in place was put back as its first run left it (``engine.cell.plain_state``):
    # values["tensors"], ["grads"], ["containers"] (lists, dicts, objects, names put back), ["bytes"] (the copy),
    # ["kept_in"] ("device" or "host"), ["not_restored"] (tensors later runs changed that the first did not)
    "state_put_back",
    # ... or not: it holds values["runs"] runs' changes; ["reason"]: "too_large" (["bytes"] needed against
    # ["host_free"] and ["device_free"] on ["device"]), "failed" (["error"]), "disabled" (--no-restore),
    # "other_rank" (another rank's copy did not fit), "restore_failed" (putting it back raised: ["error"])
    "state_advanced",
    "torch_lacks",  # what this torch cannot show: values["torch"], ["features"] ("provenance", "caller_lines")
    "no_post_grad_on_cache_hit",  # values["torch"]
    "not_saved",  # the run store refused the run: values["why"]
    "no_cuda_graph",  # variant: no kernel ran inside a CUDA graph; values["skips"]
    "no_graph_region",  # variant: the profiler saw no compiled-graph region
    "nothing_to_compare",  # correctness: no tensors or numbers in the outputs
    "random_ops",  # correctness: values["ops"] draw random numbers compiled code draws otherwise
    "reference_distributed",  # no float64 reference: a distributed step
    "reference_changed_state",  # no float64 reference: the run changed the notebook's own tensors
    "reference_failed",  # no float64 reference: values["float64"], ["mixed"], ["float32"], ["unavailable"]
    # why an output failed its check (``OutputCheck.why``)
    "output_differs",  # a non-tensor output: values["eager"], ["compiled"] (their reprs)
    "output_shape",  # values["eager"], ["compiled"]: each "dtype [shape]"
    "output_not_equal",  # integers or booleans that differ
    "output_non_finite",  # NaN/inf where the other has finite values
    "output_beyond_spread",  # RMSE against eager beyond eager's run-to-run spread (the check's figures)
    "output_beyond_tolerance",  # values["dtype"], ["rtol"], ["atol"]
    "output_beyond_reference",  # RMSE against the reference beyond eager's (the check's figures)
    # how a second eager run gave an output otherwise (``OutputCheck.changed``)
    "eager_changed_value",  # values["first"], ["then"]: reprs, or "dtype [shape]"
    "eager_changed_values",  # integers: values["differ"] of values["of"]
    "eager_moved",  # values["rmse"], ["ratio"]: RMSE between the runs, and that over the output's RMS
    "other_rank_failed",  # values["ranks"] (the ranks whose work failed), ["scope"]: "eager", "stage", "variant",
    # "variant_not_timed": every rank stops there, so that none waits in a collective for it
    "interrupted",  # the user interrupted the profile
    "reference_quick",  # no float64 reference: a --quick profile (outputs compared with eager only)
    # no float64 reference: the cell draws random numbers (values["ops"]) and compiled code draws eager's
    # (Inductor's fallback_random is on), so outputs are compared with eager's; a float64 run draws others
    "reference_random",
    "quick_profile",  # a --quick profile: no kernel profiler pass, no per-line eager profile, no float64 reference
]
NoteValue = str | int | float | bool | list[str]


@dataclass
class Note:
    """A fact recorded beside the figures (why one is missing, what a run did to the notebook), as a kind
    and its values; ``digest.notes`` words it, so the engine composes no sentence."""

    kind: NoteKind
    variant: str = ""
    values: dict[str, NoteValue] = field(default_factory=dict[str, NoteValue])


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


@dataclass
class CompileSpan:
    """One timed span of a compile (Dynamo's ``chromium_event`` begin and end): ``dynamo`` around a whole frame
    compile, ``bytecode_tracing``, ``backend_compile``, ``inductor_compile``, ``code_gen``, ``compile_file`` ...
    nested as they ran.  ``depth`` 0 is a span no other of its compile encloses; ``start_s`` is wall-clock
    seconds (the events' own clock: epoch seconds), so spans of one run can be laid side by side.  A backward
    compiled lazily at the first ``backward()`` has depth-0 spans of its own under the forward's compile id."""

    compile_id: str  # "0/0"; Dynamo's attempt suffix where a restart made one ("0/0_1")
    name: str
    start_s: float
    duration_s: float
    depth: int = 0


@dataclass
class CompileRestart:
    """A compile whose analysis Dynamo restarted before it kept one (``compilation_metrics``' ``restart_reasons``): a
    graph break restarts it to compile the part before the break, a speculation that failed (``TensorifyScalar
    RestartAnalysis``) to trace again.  ``attempt`` is the attempt kept, as tlparse names it (``[6/1_2]``: two
    restarts), ``reasons`` each restart's reason, in order, in its first line."""

    compile_id: str
    attempt: int
    reasons: list[str] = field(default_factory=list[str])


@dataclass
class CacheLookup:
    """One lookup in Inductor's FX graph cache or the AOTAutograd cache, as the compile logged it."""

    compile_id: str
    cache: Literal["fx_graph", "aot_autograd"]
    state: str  # "hit", "miss", "bypass"
    detail: str = ""  # torch's finer status ("full_miss", ...) or why the cache was bypassed


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
class UnmatchedKernel:
    """A device kernel the profiling pass saw but could not tie to a generated kernel or extern call (on
    CPU: a host op a compiled variant's calls ran outside its compiled graphs)."""

    name: str
    time_ms: float
    where: str = ""  # "in compiled graph", "in CUDA graph", "outside compiled graphs"


@dataclass
class CallBreakdown:
    """Where one call's kernel time goes, by kind of kernel (per call, from the profiler pass).

    On CUDA (``KernelProfile.method == "cupti"``) these are device times; on CPU (``"host"``) host
    times of each op's call.  ``library_ms``: matmul, convolution and attention libraries (cuBLAS,
    cuDNN, flash attention; a compiled variant's extern calls); ``generated_ms``: kernels Inductor
    generated (Triton, C++), 0 for eager; ``aten_ms``: other ATen kernels (eager's elementwise ops and
    reductions; in a compiled variant, ATen ops that ran outside its graphs); ``copy_ms``: memcpy,
    memset and copy ops; ``collective_ms``: communication between ranks.  On CPU a compiled variant's
    parts also hold the host ops its calls ran outside its compiled graphs (around graph breaks, in
    autograd hooks such as DDP's gradient copies and all-reduce, an eager optimizer step), each by
    eager's rule, so the same op is the same kind of time in both variants.  The time outside kernels
    is not stored: the digest derives it from the timed median, the figure both variants are timed by.
    The parts add up to ``KernelProfile.total_ms`` except for a compiled variant on CPU, whose
    ``total_ms`` also counts the output code's own Python around its kernels, which is no kernel and
    so counts as outside them.
    """

    library_ms: float = 0.0
    generated_ms: float = 0.0
    aten_ms: float = 0.0
    copy_ms: float = 0.0
    collective_ms: float = 0.0  # collectives: NCCL kernels on CUDA, c10d/gloo ops' host time on CPU

    @property
    def kernels_ms(self) -> float:
        return self.library_ms + self.generated_ms + self.aten_ms + self.copy_ms + self.collective_ms


@dataclass
class EagerLineTime:
    """Eager kernel time launched while one cell line ran (per call), and its largest ATen ops."""

    line: int
    time_ms: float
    ops: list[str] = field(default_factory=list[str])  # the line's ATen ops, most time first, bounded


@dataclass
class KernelProfile:
    """What the separate torch.profiler pass after timing measured for one variant.

    Times are per call of the cell: each the median over the profiled calls not preempted (on CPU;
    ``preempted_calls``), over every profiled call on a GPU (runs stored before: the mean).  With
    ``method == "cupti"`` they are device kernel times (plus copies and memsets);
    with ``"host"`` (CPU) they are host times of each kernel's call.  Compiled variants' kernel
    times are on their ``Kernel``s; the eager variant has no ``Kernel``s, so its time per cell line
    is ``eager_lines`` (each op counted on the one cell line running when it was called).  A compiled
    variant's ``eager_lines`` are what it ran outside its compiled graphs (around graph breaks, what
    Dynamo skipped: a fused optimizer step), counted the same way.
    """

    calls: int  # every profiled call (a busy CPU adds calls: ``engine.kernels.profiler_pass.record_trace``)
    total_ms: float
    attributed_ms: float
    method: TimingMethod = "cupti"
    outside_graphs_ms: float | None = None  # time of code Dynamo did not compile (device; CPU: host ops' time)
    in_cuda_graphs_ms: float = 0.0
    unmatched: list[UnmatchedKernel] = field(default_factory=list[UnmatchedKernel])  # largest first, bounded
    notes: list[Note] = field(default_factory=list[Note])
    breakdown: CallBreakdown | None = None
    # compiled: ops run outside its graphs
    eager_lines: list[EagerLineTime] = field(default_factory=list[EagerLineTime])
    # a profiled call's median wall time: over the timed median, what profiling cost a call (on CPU each
    # op's cost lands in its host time: a T5 step with 4,869 ops a call ran 1.54x slower profiled)
    profiled_call_ms: float | None = None
    # profiled calls during which this process's threads waited for a CPU beyond 5 % of the call
    # (``engine.kernels.profiled_calls``): set aside when others were not; when every call was (== calls), the
    # figures come from them and the digest withholds them.  0 on a GPU's device times and in older runs.
    preempted_calls: int = 0
    waited_ms: float | None = None  # the median wait for a CPU of the calls the figures come from (CPU, Linux)
    # the median time per call with at least one device event running (GPU): kernels on concurrent streams
    # (NCCL's all-reduce beside the backward) once, where ``total_ms`` sums them
    device_busy_ms: float | None = None
    # CPU: what the profiler costs per op event it records, calibrated in the same process
    # (``engine.kernels.profiler_cost``), and what that cost came to in the kernels' host times per call, taken out of
    # them (each op's host time less the cost of the op events recorded inside it).  None: not calibrated
    # (a GPU's device times, runs stored before)
    event_cost_us: float | None = None
    profiler_cost_ms: float | None = None


@dataclass
class AutotuneResult:
    """One op max-autotune benchmarked (from the structured trace's autotuning events)."""

    op: str
    shape: str = ""
    dtypes: str = ""
    choices: int | None = None
    triton_choices: int | None = None
    best: str = ""
    best_description: str = ""
    best_ms: float | None = None
    best_triton: str = ""
    best_triton_ms: float | None = None
    autotune_s: float | None = None
    compile_id: str = ""


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
class Guard:
    """One check Dynamo runs before reusing a compiled graph (``dynamo_cpp_guards_str`` in the trace).

    ``kind`` says what it checks (``engine.trace.guards.GUARD_KINDS``); ``source`` is the value it checks as
    Dynamo names it (``L['x']``, ``G['model']``), ``line`` the cell line that value comes from.
    """

    code: str
    kind: str
    source: str = ""
    line: int | None = None
    # where ``source`` is a Dynamo stack slot (``L['___stack0']`` in a resume function after a graph break):
    # the cell's name for the value (``xb`` for ``xb = next(batches)``; "" where the statement is not that
    # plain) and the expression it is the value of (``next(batches)``; for ``___stack0[1]`` the one whose item 1
    # it is, ``yb`` of ``xb, yb = next(pairs)``); ``line`` is then the break's line
    user_name: str = ""
    user_expr: str = ""


@dataclass
class Graph:
    """One FX graph seen while compiling: Dynamo's, AOTAutograd's or Inductor's post-grad one."""

    id: str
    kind: GraphKind
    code: str
    variant: str = ""
    compile_id: str = ""
    op_counts: dict[str, int] = field(default_factory=dict[str, int])
    lines: list[int] = field(default_factory=list[int])
    input_shapes: list[list[int]] = field(default_factory=list[list[int]])
    guards: list[Guard] = field(default_factory=list[Guard])  # Dynamo graphs: what must hold to reuse the compile
    # the collective ops among ``op_counts``, by op name (``all_reduce``); empty in runs before schema 2
    collectives: dict[str, int] = field(default_factory=dict[str, int])


@dataclass
class GraphBreak:
    """Where Dynamo stopped tracing and why; ``line`` is the 1-based cell line (None when outside the cell)."""

    reason: str
    line: int | None
    code_line: str = ""
    variant: str = ""
    compile_id: str = ""
    filename: str = ""  # the innermost frame: where Dynamo stopped, in the cell or in a library it called
    file_line: int | None = None
    file_code: str = ""  # the code at filename:file_line
    file_function: str = ""  # the function of that frame (``scale_by_max``), where the trace names it
    # where filename is another notebook cell's code (a helper defined there): that cell's number, In[n]
    file_cell: int | None = None


@dataclass
class Recompile:
    """One recompilation of a frame (one new compile id): the guard failure that made Dynamo compile it again.

    ``reason`` is the failed guard of the frame's most recent compiled entry (its first line), then the
    failures of its older entries, a few of them; Dynamo checks every entry before it compiles anew."""

    reason: str
    variant: str = ""
    compile_id: str = ""
    during_timing: bool = False
    source: str = ""  # the value whose guard failed, as Dynamo names it (``L['x']``)
    line: int | None = None  # the cell line that value comes from
    # the Dynamo limit this compile hit, as torch names it with its value (``recompile_limit (8)``): Dynamo
    # compiled nothing and from then on runs the frame eagerly (unless an earlier entry's guards pass); "" if none
    limit: str = ""
    # the recompiled frame when it is not the cell's own (``ForCausalLMLoss`` in transformers/loss/loss_utils.py,
    # line 51): then ``source`` is that frame's variable and ``line`` the cell line that called into it
    frame: str = ""
    filename: str = ""
    file_line: int | None = None
    # where ``source`` is a Dynamo stack slot (``___stack0``: the value on the stack at a graph break, in the
    # resume function Dynamo runs after it): the cell's name for it (``xb``) and the expression it is the
    # value of (``next(batches)``), as ``Guard.user_name``/``user_expr``; ``line`` is then the break's line
    user_name: str = ""
    user_expr: str = ""
    # what changed, read from the first line of ``reason`` (``engine.trace.guards.failure_change``): size, stride,
    # dtype, rank, dispatch keys, requires_grad, device, type, identity, length or value ("" unread); the
    # dimension for a size or stride; what the compiled entry expected and what came (as Dynamo prints
    # them: "32", "Float"; ``actual`` is "" where Dynamo does not say it)
    change: str = ""
    dim: int | None = None
    expected: str = ""
    actual: str = ""
    # in a profile over a sequence of inputs (``InputSequence``): the input (0-based, in the order given) whose
    # compiled call made this compile; None in a profile of one input
    input: int | None = None


@dataclass
class Kernel:
    """A kernel Inductor generated (or an extern call it emitted), with where it came from."""

    name: str
    language: Literal["triton", "cpp", "extern"]
    source: str
    graph_id: str
    aten_ops: list[str] = field(default_factory=list[str])
    lines: list[int] = field(default_factory=list[int])
    variant: str = ""
    id: str = ""  # unique within the run (names repeat across graphs and variants)
    # what it is (``engine.common.op_kinds.kernel_kind``): "generated" (Triton, C++), or an extern call's
    # "library", "aten", "copy" or "collective"; "" in runs before schema 2
    kind: Literal["", "generated", "library", "aten", "copy", "collective"] = ""
    launches: list[str] = field(default_factory=list[str])  # its call sites in the generated wrapper
    device_time_ms: float | None = None  # per cell call, summed over its launches (see KernelProfile)
    share: float | None = None  # of the variant's KernelProfile.total_ms
    launches_per_call: float | None = None
    launch_grid: list[int] = field(default_factory=list[int])  # as launched (the profiler's grid), when known
    block: list[int] = field(default_factory=list[int])
    launch_config: str = ""  # Triton's chosen config, e.g. "XBLOCK=1024, num_warps=4, num_stages=1"
    in_cuda_graph: bool | None = None  # ran inside a CUDA graph replay (reduce-overhead)
    device_kernels: list[str] = field(default_factory=list[str])  # device kernel names seen for it (e.g. cuBLAS)
    bytes: int | None = None  # moved per cell call (each argument once; in-place ones twice)
    bytes_source: str = ""  # "inductor" (kernel_num_gb) or "arguments" (recorded launch arguments)
    achieved_gbps: float | None = None
    bandwidth_share: float | None = None  # of DevicePeaks.copy_gbps
    flops: int | None = None  # per cell call, matmul/convolution/attention only
    achieved_tflops: float | None = None
    compute_share: float | None = None  # of DevicePeaks.bf16_matmul_tflops (bf16/fp16 operands only)


@dataclass
class CacheStats:
    """What Inductor's caches held for the compiles (the first calls' and every recompile's).

    The FX graph and AOTAutograd caches' lookups as the structured trace logs them, and the compiled-kernel
    caches (C++ shared libraries, Triton binaries: ``engine/compiler/kernel_builds.py``) by the binaries the compiles
    built, None where they were not counted.  ``state`` is "cold" when nothing was found (graphs missed,
    kernels built), "warm" when every lookup hit and no kernel was built, "mixed" otherwise: graphs that
    missed while every kernel came from the kernel cache (a plain ``torch.compile`` of other code filled it)
    compile in a fraction of a cold compile's time (13.7 s against 47 s for a CPU training step).
    """

    fx_graph_hits: int = 0
    fx_graph_misses: int = 0
    aot_autograd_hits: int = 0
    aot_autograd_misses: int = 0
    kernels: int = 0  # generated kernels (Triton, C++) in the compiles' code: each built or found in a kernel cache
    kernels_built: int | None = None  # kernel binaries the compiles wrote to the kernel caches
    state: Literal["cold", "warm", "mixed", "none"] = "none"

    def derived_state(self) -> Literal["cold", "warm", "mixed", "none"]:
        hits = self.fx_graph_hits + self.aot_autograd_hits
        misses = self.fx_graph_misses + self.aot_autograd_misses
        built = self.kernels_built
        if not (hits or misses):
            return "cold" if built else "none"
        if not misses:
            return "warm" if not built else "mixed"
        if not hits:
            return "mixed" if built == 0 and self.kernels else "cold"
        return "mixed"

    def add(self, other: CacheStats) -> None:
        self.fx_graph_hits += other.fx_graph_hits
        self.fx_graph_misses += other.fx_graph_misses
        self.aot_autograd_hits += other.aot_autograd_hits
        self.aot_autograd_misses += other.aot_autograd_misses
        self.kernels += other.kernels
        if other.kernels_built is not None:
            self.kernels_built = (self.kernels_built or 0) + other.kernels_built
        self.state = self.derived_state()


@dataclass
class OutputCheck:
    """How one output (a tensor or number the cell produced) was judged.

    With a reference (``Correctness.method`` "float64", "mixed" or "float32") a floating output
    passes when it is close to eager by its dtype's tolerance, or when its RMSE against
    the reference run is at most ``multiplier`` x eager's own RMSE against it plus a slack
    (``allowed_rmse``), which is how PyTorch's benchmark runner judges accuracy.
    Without a reference for it, an output that a second eager run gave differently (nondeterministic
    kernels) passes when compiled's RMSE against eager is at most ``multiplier`` x the two eager
    runs' RMSE plus the slack: eager's own run-to-run spread is the floor.
    """

    path: str
    dtype: str
    ok: bool
    max_abs_diff: float | None = None
    compiled_rmse: float | None = None  # against the reference
    eager_rmse: float | None = None
    allowed_rmse: float | None = None  # rmse_multiplier x eager_rmse (or eager_spread_rmse) + rmse_slack
    rmse_multiplier: float | None = None  # 2 (fp32), 3 (fp16/bf16, fewer than 1000 elements)
    rmse_slack: float | None = None  # absolute: a tenth of the benchmark runner's tol for the dtype
    why: Note | None = None  # why it failed (a kind and its figures, worded by ``digest.notes``)
    # judged against eager's run-to-run spread (no reference for it): the RMSE between two eager runs, and
    # compiled's RMSE against the first
    eager_spread_rmse: float | None = None
    compiled_eager_rmse: float | None = None
    # a second eager run gave this output otherwise than rounding can (another shape, other integers, a
    # relative RMSE over 1000 epsilons of its dtype, at most 0.25): the inputs changed between runs; how
    changed: Note | None = None


@dataclass
class Correctness:
    """Compiled outputs compared against eager ones (and a float64 eager reference, when one could run)."""

    ok: bool | None
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    compared: list[str] = field(default_factory=list[str])
    mismatched: list[str] = field(default_factory=list[str])
    note: Note | None = None  # why nothing was compared, or how the comparison was limited
    # "float64": errors against a float64 eager run; "mixed": a float64 run in which the ops of
    # ``reference_float32_ops`` ran in float32 (they failed in float64); "float32": a float32 run of
    # float16/bfloat16 code (float64 failed even so); "tolerance": dtype tolerances only
    method: str = ""
    checks: list[OutputCheck] = field(default_factory=list[OutputCheck])
    reference_float32_ops: list[str] = field(default_factory=list[str])  # e.g. "aten._grouped_mm"
    reference_fallback: str = ""  # what stopped a plain float64 run, where the reference is "mixed" or "float32"
    # iterators the code draws from (``next(batches)``) whose draws every correctness run was given again
    replayed: list[str] = field(default_factory=list[str])
    # outputs a second eager run gave otherwise than rounding can: the runs read other inputs (an iterator
    # reached other than by a global name, a file, state the cell changes), so nothing was compared
    changed_between_runs: list[str] = field(default_factory=list[str])
    # iterators the code reads that could not be replayed (a replay failed in the code, or an argument of
    # ``profile``): what stopped the comparison
    not_replayed: list[str] = field(default_factory=list[str])
    not_replayed_reason: str = ""  # the error the code raised on a replay


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

# ErrorInfo.type of a rank that stopped because another rank's first call failed (the lock-step)
OTHER_RANK_FAILED = "OtherRankFailed"


@dataclass
class DdpBucket:
    """One piece of a DDPOptimizer split: the parameters whose gradients DDP all-reduces together."""

    index: int  # in the order the pieces run in the forward
    params: list[str] = field(default_factory=list[str])  # as the graph names them, e.g. "layers.2.weight"
    bytes: int = 0  # the parameters' size, as DDPOptimizer counts them against the bucket cap
    graph_id: str = ""  # the AOT forward graph compiled for this piece, when one was recorded


@dataclass
class DdpSplit:
    """DDPOptimizer split one Dynamo graph at DDP's gradient-bucket boundaries and compiled each piece
    on its own, so that DDP's all-reduce of a bucket can overlap the backward of the next: pieces of
    one graph, not graph breaks (``torch/_dynamo/backends/distributed.py``)."""

    variant: str
    compile_id: str
    graph_id: str  # the Dynamo graph that was split
    buckets: list[DdpBucket] = field(default_factory=list[DdpBucket])
    bucket_cap_bytes: int | None = None  # the DDP module's bucket_bytes_cap, when the profile saw it


@dataclass
class ErrorInfo:
    """Something that went wrong, at which stage, and the cell line when there is one."""

    stage: str
    message: str
    type: str = ""
    variant: str = ""
    line: int | None = None
    traceback: str = ""
    # Which run of the cell raised (1 is the first eager run, counted as ``ProfileRun.cell_runs`` counts),
    # when the cell's own code raised; None when the profiler failed outside the cell's code.
    call: int | None = None
    # What a failure after the first calls says about the cell: "iterator_ran_out" (StopIteration: it
    # reads from an iterator that its runs used up), "recompile_failed" (a later call compiled again and
    # that compile failed), "later_run_failed" (its code raised on a later run where earlier ones returned:
    # it changes what later runs read, as a list it empties); "" for the first calls' errors.
    cause: Literal["", "iterator_ran_out", "recompile_failed", "later_run_failed"] = ""
    # a failure the profile states rather than an exception's (another rank's, an interrupt), as a fact the
    # digest words (``digest.notes.error_message``); ``message`` is then ""
    why: Note | None = None
    # A compile error, read off its traceback (``engine/failure/compile_failure.py``): the compiler stage that raised it,
    # the innermost frame of the failing operation's user stack outside the cell (a library's code the cell
    # called: ``timm/layers/mlp.py:48``), and whether the same code compiled and ran under backend="aot_eager"
    # (Dynamo and AOTAutograd without Inductor), with that try's error where it failed too; "" where not tried.
    compile_stage: Literal["", "dynamo", "aot_autograd", "inductor_lowering", "codegen", "kernel_compile"] = ""
    frame_file: str = ""
    frame_line: int | None = None
    frame_code: str = ""
    aot_eager: Literal["", "runs", "fails"] = ""
    aot_eager_error: str = ""
    # The cell lines of the graph being compiled, where the failure names no single operation (a kernel that did
    # not compile, code generation): its nodes' lines; ``line`` is then the first of them
    graph_lines: list[int] = field(default_factory=list[int])
    # Whether Inductor compiles any kernel here under the settings in force: "broken" where the failure says it
    # found no compiler (``InvalidCxxCompiler``) or a one-op kernel failed to compile too (tried by --bisect for a
    # failure compiling kernels: no compiler, a broken toolchain or a setting, not this graph), with that try's
    # error; "works" where that kernel compiled; "" where not known
    toolchain: Literal["", "works", "broken"] = ""
    toolchain_error: str = ""
    # A standalone script that compiles the failing graph as Inductor was given it (``engine/trace/reproducer.py``:
    # torch's ``fx_graph_runnable`` of that compile with the versions it was made with); "" where torch logged none
    reproducer: str = ""

    @property
    def backend_may_own(self) -> bool:
        """A compile failure a backend may own, not an error Dynamo raised on the code itself (an unsupported
        construct, a break under fullgraph, which no backend changes): what ``--bisect`` bisects."""
        return self.stage == "compile" and self.compile_stage != "dynamo"


@dataclass
class ConfigSetting:
    """A compiler setting in force that is not at its default (``engine/failure/changed_settings.py``): its full name
    (``torch._inductor.config.cpp.cxx``), its value and its default, each as ``repr`` writes it."""

    name: str
    value: str
    default: str


@dataclass
class Bisection:
    """``--bisect``: a failed compile, or a variant whose results differed from eager, bisected with PyTorch's
    ``CompilerBisector`` (``engine/failure/bisection.py``): the backend where the failure or the difference starts (eager,
    aot_eager, aot_eager_decomp_partition, inductor) and, within it, the subsystem (a pass list, the lowerings, a
    config switch) and how many of its applications it took, with the bisector's note on that application (the
    lowering's op, the pass's name)."""

    variant: str  # the variant bisected
    # "setup": not bisected, as no kernel compiles here (``ErrorInfo.toolchain`` "broken"): no backend, pass or
    # lowering is to blame
    outcome: Literal["found", "backend", "not_reproduced", "timed_out", "failed", "setup"]
    kind: Literal["failure", "mismatch"] = "failure"  # what was bisected: a failed compile, or results that differ
    backend: str = ""
    subsystem: str = ""
    bisect_number: int | None = None
    debug_info: str = ""
    switch: str = ""  # the config setting that avoids it, where the subsystem is one (``fallback_random = True``)
    runs: int = 0  # test runs of the code
    seconds: float = 0.0
    error: str = ""  # the bisection's own error, for outcome "failed"


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
    The digest says whether that is a measurable difference (``digest.summary.recommendation_digest``)."""

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
    # a profile over a sequence of inputs; then ``speedup`` is the sequence's, weighted by calls
    inputs: InputSequence | None = None
    settings: RunSettings | None = None  # torch's threads and the profile's options (None before they were recorded)
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
    def memory_note(self) -> str:
        """Why no peak memory was measured, in the digest's words (a field before schema 2, kept readable)."""
        from .digest.notes import memory_unmeasured_text

        return memory_unmeasured_text(self)

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
        try:
            version = serialize.from_dict(int, data.get("schema_version", SCHEMA_VERSION))
        except serialize.FormatError as exc:
            raise exc.inside("schema_version") from None
        if version > SCHEMA_VERSION:
            raise ValueError(
                f"this run was written by a newer compile-profile (schema {version}); "
                f"this one reads schema {SCHEMA_VERSION} or older: upgrade compile-profile"
            )
        for to_version, upgrade in UPGRADES:
            if version < to_version:
                data = {**upgrade(data), "schema_version": to_version}  # its shape is that version's now
        run = serialize.from_dict(cls, data)
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

    # -- views (figures are derived in compile_profile.digest, laid out in compile_profile.render) --
    def summary(self) -> RunSummary:
        from .digest import summarize

        return summarize(self)

    def _repr_mimebundle_(self, include: Container[str] | None = None, exclude: Container[str] | None = None):
        from .render.mime import mime_bundle

        return mime_bundle(self)

    def __repr__(self) -> str:
        speedup = f" speedup={self.speedup.value:.3g}x" if self.speedup is not None else ""
        return (
            f"<ProfileRun {self.id} {self.status} on {self.device.type}: {len(self.variants)} variants"
            f"{speedup}, {len(self.graphs)} graphs, {len(self.kernels)} kernels>"
        )

    def __str__(self) -> str:
        from .render.text import render_text

        return render_text(self)

    def to_html(self) -> str:
        """A self-contained HTML report of this run (opens offline; see ``render.report``)."""
        from .render.report import render_report_html

        return render_report_html(self)

    def save(self, db: str | Path | None = None) -> str:
        """Write this run to the run store at ``db`` (default: ``$COMPILE_PROFILE_DB``, else the Jupyter data
        directory's) and return its id; a distributed job's ranks each save theirs into one store."""
        from .store import RunStore

        with RunStore(db) as store:
            store.put(self)
        return self.id

    def show(self, compare_with: list[ProfileRun] | None = None):
        """An ipywidgets explorer of this run, optionally compared with other runs."""
        from .render.widget import explorer

        return explorer(self, compare_with)


def _notes_as_facts(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 to 2: each note in words becomes a ``text`` note holding them; ``memory_note`` and the
    recommendation's reason go (the digest words both from the run)."""

    def as_note(text: Any) -> Any:
        return {"kind": "text", "values": {"text": text}} if isinstance(text, str) else text

    data = dict(data)
    data.pop("memory_note", None)
    if isinstance(data.get("notes"), list):
        data["notes"] = [as_note(n) for n in data["notes"]]
    correctness = data.get("correctness")
    if serialize.is_dict(correctness):
        note = correctness.get("note")
        checks = correctness.get("checks")
        correctness = {**correctness, "note": as_note(note) if note else None}
        if serialize.is_list(checks):
            correctness["checks"] = [_check_notes_as_facts(c, as_note) for c in checks]
        data["correctness"] = correctness
    if isinstance(data.get("variants"), list):
        data["variants"] = [_variant_notes_as_facts(v, as_note) for v in data["variants"]]
    return data


def _check_notes_as_facts(check: Any, as_note: Callable[[Any], Any]) -> Any:
    if not serialize.is_dict(check):
        return check
    out = {k: v for k, v in check.items() if k not in ("reason", "changed_between_runs")}
    if check.get("reason"):
        out["why"] = as_note(check["reason"])
    if check.get("changed_between_runs"):
        out["changed"] = as_note(check["changed_between_runs"])
    return out


def _variant_notes_as_facts(variant: Any, as_note: Callable[[Any], Any]) -> Any:
    profile = variant.get("kernel_profile") if serialize.is_dict(variant) else None
    if not serialize.is_dict(profile) or "note" not in profile:
        return variant
    profile = {k: v for k, v in profile.items() if k != "note"}
    profile["notes"] = [as_note(variant["kernel_profile"]["note"])] if variant["kernel_profile"]["note"] else []
    return {**variant, "kernel_profile": profile}


# Each step moves a run's JSON one schema version up, in order; a released step does the same thing forever.
UPGRADES: list[tuple[int, Callable[[dict[str, Any]], dict[str, Any]]]] = [(2, _notes_as_facts)]

SCHEMA_PATH = Path(__file__).with_name("schema") / "profile_run.schema.json"


def json_schema() -> dict[str, Any]:
    return serialize.json_schema(
        ProfileRun,
        title="compile-profile ProfileRun",
        schema_id="https://compile-profile.invalid/schema/profile_run.schema.json",
    )
