"""What the compiles of a run were, as the trace and the recording backend saw them: each graph (Dynamo's,
AOTAutograd's, the post-grad one) with its guards, each graph break, each recompile with the guard that failed, each
kernel Inductor wrote or called, the caches' hits and misses, each compile's spans, restarts and cache lookups,
max-autotune's choices, and DDPOptimizer's splits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

GraphKind = Literal["dynamo", "aot_forward", "aot_backward", "aot_inference", "post_grad"]

# The name torch.compile knows the recording backend by (``backend="compile_profile"``, the torch backends entry
# point in pyproject.toml): Dynamo's messages name the backend by it, where the user's words are the backend it wraps.
RECORDING_BACKEND = "compile_profile"


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
    # the key it looked up and how many components torch hashed into it (``CompileRecord.cache_lookups``: its
    # components are its artifact's text); "" and 0 where the trace does not say (older runs, torch 2.6)
    key: str = ""
    components: int = 0
    artifact: str = ""  # the sha256 of its payload (``Artifact``), the key components with their values


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
    # in the cell's own code: the cell line of the graph break after which this frame resumes (Dynamo runs the code
    # after a break as a function of its own, ``torch_dynamo_resume_in_…_at_N``); None for the cell's first frame.
    # Such a frame at the recompile limit runs eagerly while the graphs before the break still run compiled.
    resumes_after: int | None = None
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
