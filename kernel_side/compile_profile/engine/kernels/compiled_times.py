"""A compiled variant's attribution rule for the profiler pass (``profiler_pass.measure_variant``): each profiled
call's events tied to the variant's kernels (``attribution.attribute``), the calls combined into one call's
figures (``combine``), and those written into the run (``apply``: each kernel's time fields and the variant's
``kernel_profile`` with its ``CallBreakdown``).  Eager's rule is ``eager_times``'; both go through the same pass.
"""

from __future__ import annotations

import collections
import heapq
from dataclasses import dataclass, field
from operator import itemgetter

from ...profile_run import CallBreakdown, Kernel, KernelProfile, Note, ProfiledEvent, ProfileRun, UnmatchedKernel
from ...stats import median
from ..common.op_kinds import ATEN, COLLECTIVE, COPY, GENERATED, LIBRARY, kernel_kind
from .attribution import CALL_RANGE, KernelObservation, VariantKernelTimes, attribute
from .chrome_trace import ChromeTrace
from .index import KernelIndex
from .line_marks import line_times
from .profiled_calls import PassCalls

MAX_UNMATCHED = 20  # the unmatched events a kernel profile lists, the longest
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")


@dataclass
class CompiledRule:
    """How a compiled variant's profiled calls become its figures (``profiler_pass.AttributionRule``): each call's
    events tied to the variant's kernels, read from its output code once for all the calls (``index``)."""

    variant: str
    kernels: list[Kernel]
    call_range: str = CALL_RANGE
    bare_on_device: bool = False  # recorded with shapes and the Python tracer everywhere: attribution reads both
    index: KernelIndex = field(init=False)

    def __post_init__(self) -> None:
        self.index = KernelIndex(self.kernels)

    @classmethod
    def of(cls, run: ProfileRun, variant: str) -> CompiledRule:
        return cls(variant, [k for k in run.kernels if k.variant == variant])

    def attribute(
        self, trace: ChromeTrace, *, calls: int, device_type: str, event_cost_us: float
    ) -> VariantKernelTimes:
        return attribute(
            trace,
            self.kernels,
            variant=self.variant,
            calls=calls,
            device_type=device_type,
            index=self.index,
            event_cost_us=event_cost_us,
        )

    def combine(self, per_call: list[VariantKernelTimes]) -> VariantKernelTimes:
        return combine(per_call)

    def apply(self, times: VariantKernelTimes, run: ProfileRun, calls: PassCalls) -> None:
        variant = run.variant(self.variant)
        if (
            run.device.type == "cuda"
            and variant.mode in CUDA_GRAPH_MODES
            and times.total_us > 0
            and times.in_cuda_graphs_us == 0
        ):
            times.notes.append(
                Note("no_cuda_graph", variant=self.variant, values={"skips": list(variant.cudagraph_skips)})
            )
        apply(times, run, calls)

    def events(self, trace: ChromeTrace) -> list[ProfiledEvent]:
        return profiled_events(trace, self.kernels)


EVENTS_KEPT = 2000  # kernel events of one call kept for the Perfetto export (a 16-layer step's CPU call has ~2,400 ops)


def profiled_events(trace: ChromeTrace, kernels: list[Kernel]) -> list[ProfiledEvent]:
    """One call's kernel events for ``export --perfetto``, from the call's start: the device's kernels on a GPU; on a
    CPU the host ops inside the call (the compiled regions, ATen ops, library calls) and the Python calls of its
    generated kernels (by their names), the first ``EVENTS_KEPT`` of them."""
    names = {k.name: k.id for k in kernels}
    call = next((ev for ev in trace.host if ev.name == CALL_RANGE), None)
    start = call.ts if call is not None else min((ev.ts for ev in [*trace.host, *trace.device]), default=0.0)
    if trace.device:
        chosen = [ProfiledEvent(d.name, d.ts - start, d.dur, "device", names.get(d.name, "")) for d in trace.device]
    else:
        chosen = [
            ProfiledEvent(ev.name, ev.ts - start, ev.dur, "host", names.get(ev.name, ""))
            for ev in trace.host
            if (ev.cat in ("cpu_op", "user_annotation") and ev.name != CALL_RANGE)
            or (ev.cat == "python_function" and any(n in ev.name for n in names))
        ]
    if call is not None:  # the first call's, where the trace holds several
        chosen = [e for e in chosen if 0 <= e.start_us <= call.dur]
    chosen.sort(key=lambda e: e.start_us)
    return chosen[:EVENTS_KEPT]


def combine(per_call: list[VariantKernelTimes]) -> VariantKernelTimes:
    """One pass's figures from its calls', each attributed alone (``calls=1``).

    Each kernel's time is its median over the calls.  The time tied to no kernel (ops outside compiled
    graphs, unmatched device events) is one call's as a whole, the call whose such time is the median, so
    its events, its kinds, the time outside graphs and its cell lines still add up to each other; likewise the rest of
    the total (on CPU the output code's own Python) is its median, and the total is the sum of the three.
    Counts (launches) and launch arguments are summed: no preemption moves them.  Sums are over
    ``len(per_call)`` calls, as a single attribution's are over its calls."""
    n = len(per_call)
    first = per_call[0]
    out = VariantKernelTimes(variant=first.variant, calls=n, method=first.method, observations={})
    for kid in dict.fromkeys(k for r in per_call for k in r.observations):
        seen = [r.observations.get(kid) for r in per_call]
        observed = [o for o in seen if o is not None]
        obs = out.observations[kid] = KernelObservation(observed[0].kernel)
        obs.time_us = median(o.time_us if o is not None else 0.0 for o in seen) * n
        # the median time split as each kind's median over the calls splits it: one call stalled inside a copy
        # moves no kind's share
        kinds = dict.fromkeys(kind for o in observed for kind in o.host_parts)
        parts = {kind: median(o.host_parts.get(kind, 0.0) if o is not None else 0.0 for o in seen) for kind in kinds}
        if sum(parts.values()) > 0:
            total = sum(parts.values())
            for kind, us in parts.items():
                obs.host_parts[kind] = obs.time_us * us / total
        for o in observed:
            obs.launches += o.launches
            obs.grids.update(o.grids)
            obs.blocks.update(o.blocks)
            obs.device_names.update(o.device_names)
            obs.configs.update(o.configs)
            obs.launch_args.extend(o.launch_args)
            obs.in_cuda_graph |= o.in_cuda_graph
            obs.outside_cuda_graph |= o.outside_cuda_graph
    middle = sorted(per_call, key=lambda r: sum(r.unmatched_kinds.values()))[(n - 1) // 2]
    out.unmatched = collections.defaultdict(float, {key: us * n for key, us in middle.unmatched.items()})
    out.unmatched_kinds = collections.defaultdict(float, {kind: us * n for kind, us in middle.unmatched_kinds.items()})
    if middle.outside_graphs_us is not None:
        out.outside_graphs_us = middle.outside_graphs_us * n
    out.line_us = collections.defaultdict(float, {line: us * n for line, us in middle.line_us.items()})
    out.line_ops = {
        line: collections.defaultdict(float, {op: us * n for op, us in ops.items()})
        for line, ops in middle.line_ops.items()
    }
    out.in_cuda_graphs_us = median(r.in_cuda_graphs_us for r in per_call) * n
    out.profiler_cost_us = median(r.profiler_cost_us for r in per_call) * n
    out.event_cost_us = first.event_cost_us
    rest = median(
        r.total_us - sum(o.time_us for o in r.observations.values()) - sum(r.unmatched_kinds.values()) for r in per_call
    )
    out.total_us = sum(o.time_us for o in out.observations.values()) + sum(out.unmatched_kinds.values()) + rest * n
    out.notes = []
    for note in (note for r in per_call for note in r.notes):
        if note not in out.notes:
            out.notes.append(note)
    return out


def apply(result: VariantKernelTimes, run: ProfileRun, calls: PassCalls | None = None) -> None:
    """Fill each kernel's time fields and the variant's ``kernel_profile``; ``calls``, what the pass's
    calls were (all of ``result``'s calls, none preempted, when not given)."""
    if calls is None:
        calls = PassCalls(profiled=result.calls, preempted=0, call_ms=None, waited_ms=None)
    n = max(1, result.calls)
    total_ms = result.total_us / 1e3 / n
    attributed_us = 0.0
    for obs in result.observations.values():
        k = obs.kernel
        attributed_us += obs.time_us
        k.device_time_ms = obs.time_us / 1e3 / n
        k.share = (k.device_time_ms / total_ms) if total_ms > 0 else None
        k.launches_per_call = obs.launches / n
        if obs.grids:
            k.launch_grid = list(obs.grids.most_common(1)[0][0])
        if obs.blocks:
            k.block = list(obs.blocks.most_common(1)[0][0])
        if obs.configs:
            k.launch_config = obs.configs.most_common(1)[0][0]
        if result.method == "cupti" and obs.launches:
            k.in_cuda_graph = obs.in_cuda_graph and not obs.outside_cuda_graph
        k.device_kernels = [name for name, _ in obs.device_names.most_common(8)]
    unmatched = [
        UnmatchedKernel(name=name, time_ms=us / 1e3 / n, where=where)
        for (name, where), us in heapq.nlargest(MAX_UNMATCHED, result.unmatched.items(), key=itemgetter(1))
    ]
    profile = KernelProfile(
        calls=calls.profiled,
        total_ms=total_ms,
        attributed_ms=attributed_us / 1e3 / n,
        method=result.method,
        outside_graphs_ms=None if result.outside_graphs_us is None else result.outside_graphs_us / 1e3 / n,
        in_cuda_graphs_ms=result.in_cuda_graphs_us / 1e3 / n,
        unmatched=unmatched,
        notes=list(result.notes),
        breakdown=compiled_breakdown(result),
        eager_lines=line_times(result.line_us, result.line_ops, result.calls),
        profiled_call_ms=calls.call_ms,
        preempted_calls=calls.preempted,
        waited_ms=calls.waited_ms,
        device_busy_ms=calls.device_busy_ms,
        event_cost_us=result.event_cost_us,
        profiler_cost_ms=result.profiler_cost_us / 1e3 / n if result.event_cost_us is not None else None,
    )
    if result.method == "cupti" and result.outside_graphs_us is None:
        profile.outside_graphs_ms = 0.0
    run.variant(result.variant).kernel_profile = profile


def compiled_breakdown(result: VariantKernelTimes) -> CallBreakdown:
    """Per-call parts of a compiled variant's kernel time; on CUDA they add up to ``result.total_us / calls``.

    Generated, library (and the rare copy extern) come from the kernels each event was tied to;
    device events tied to no kernel (ATen kernels outside compiled graphs, around graph breaks, and the
    few in a graph that no call site explains) go by the eager rule (``device_kind``), so a matmul
    that ran eagerly in a compiled variant is library there as in eager: on an H200 a training step
    whose forward and backward Dynamo left eager read "library 0, ATen 1.27 ms" before, against eager's
    library 1.11 ms.  On CUDA the remainder goes into ``aten_ms``.

    On CPU an extern call's op goes by the host rule too (``KernelObservation.host_parts``): a
    ``TransformerEncoderLayer`` in eval under ``no_grad`` has Inductor call the same fused
    ``aten::_transformer_encoder_layer_fwd`` eager runs, which read "ATen 130 µs" compiled against eager's
    "library 72.9 µs, ATen 56.7 µs, copies 10.2 µs" and made a "kernels slower" cause of the same op.
    The host ops the calls ran outside compiled graphs go by the host rule (``host_op_parts``,
    in ``result.unmatched_kinds``), so they are the same kind of time as in eager: a DDP training step
    (gloo, two ranks, 2 cores) read compiled "ATen 0, copies 0, collectives 0, outside kernels 13.1 ms"
    before, against eager's copies 328 µs and collectives 462 µs; DDP's gradient hooks, its reducer's
    copies and all-reduce, are now copies and collectives in both (a later run: compiled copies 377 µs,
    eager 345 µs; collectives, which include waiting for the other rank, 4.35 ms and 2.37 ms).  ``total_us`` there is the
    regions' host time plus those ops'; the regions' time outside C++ kernels and extern calls is the
    output code's own Python (buffer allocations through Inductor's ``empty_strided_cpu``, which
    bypasses the dispatcher and shows as no ATen op, views, the calls between launches), no part.
    Measured with one thread: 9 us of a 101 us region on a 256x64 matmul + GELU + layer norm cell
    (16-17 % of its total over two runs), 9-10 % on a 256x256 matmul + relu + sum.
    """
    calls = max(1, result.calls)
    parts = {LIBRARY: 0.0, GENERATED: 0.0, ATEN: 0.0, COPY: 0.0, COLLECTIVE: 0.0}
    for obs in result.observations.values():
        if obs.host_parts and kernel_kind(obs.kernel.language, obs.kernel.name) != COLLECTIVE:
            for kind, us in obs.host_parts.items():  # CPU: an extern call's op by the host rule, as in eager
                parts[kind] += us
        else:
            parts[kernel_kind(obs.kernel.language, obs.kernel.name)] += obs.time_us
    for kind, us in result.unmatched_kinds.items():
        parts[kind] += us
    if result.method != "host":
        parts[ATEN] += max(0.0, result.total_us - sum(parts.values()))
    # On CPU the rest of the regions' host time is the output code's own Python, not a kernel: left
    # out of the parts, the digest counts it outside kernels (the CPU CNN of notebook 06 read "ATen
    # 134 µs" for a variant whose ATen ops had all become C++ kernels and extern calls).
    return CallBreakdown(
        library_ms=parts[LIBRARY] / 1e3 / calls,
        generated_ms=parts[GENERATED] / 1e3 / calls,
        aten_ms=parts[ATEN] / 1e3 / calls,
        copy_ms=parts[COPY] / 1e3 / calls,
        collective_ms=parts[COLLECTIVE] / 1e3 / calls,
    )
