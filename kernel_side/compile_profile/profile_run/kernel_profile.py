"""What the torch.profiler pass after timing measured for each variant (``Variant.kernel_profile``): its kernel times
per call, their breakdown by kind, eager's time per cell line, the kernels it could not attribute, the events of
one profiled call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .notes import Note

TimingMethod = Literal["cupti", "host"]  # CUPTI's device times (CUDA), or the profiler's host times (CPU)


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
class ProfiledEvent:
    """One kernel event of one profiled call, as the profiler recorded it (for ``export --perfetto``): a device kernel
    on a GPU, a kernel's or op's host call on a CPU."""

    name: str
    start_us: float  # from the call's start
    duration_us: float
    track: Literal["device", "host"] = "device"
    kernel_id: str = ""  # the ``Kernel.id`` it was attributed to, "" where none


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
    # the kernel events of the first call the figures come from, at most ``engine.kernels.compiled_times.EVENTS_KEPT``
    # (the export to Perfetto lays them beside the compiles); empty in runs stored before they were kept
    events: list[ProfiledEvent] = field(default_factory=list[ProfiledEvent])
