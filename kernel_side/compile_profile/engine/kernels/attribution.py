"""Which generated kernel or extern call each event of a profiler trace belongs to.

Given the Chrome trace of a torch.profiler (Kineto) pass and the variant's kernels the
trace model found in Inductor's output code, this ties what the profiler saw to those kernels:

* each compiled graph runs inside a ``## Call CompiledFxGraph <key> ##`` region;
  the Python tracer names the output-code module whose ``call`` ran in it, and
  that module's kernels (name and source) say which of our graphs it is;
* a Triton launch is a host op named after the kernel (Inductor records it with
  the launch's arguments, ``kernel_file`` and the chosen config); the device
  kernels it queued carry the same name;
* an extern call (cuBLAS, cuDNN, SDPA...) is the ATen op directly under the
  region, matched to the module's extern call sites in source order; the device
  kernels it queued are whatever library kernels ran under it;
* C++ kernels (CPU) are the Python binding's ``<built-in function kernel>``
  calls under ``call``, matched to the module's C++ call sites in order; their
  time is host time;
* under CUDA graphs (reduce-overhead) kernels are queued by ``cudaGraphLaunch``:
  Triton ones still carry their names; library kernels between two Triton
  kernels belong to the one extern call site between them in the module, if
  there is exactly one.

* on CPU, the host ops each profiled call (``CALL_RANGE``) ran outside the regions (around graph
  breaks, in autograd hooks, an eager optimizer step) are unmatched time outside compiled graphs,
  split by kind by the rule eager's ops go by (``breakdown.host_op_parts``);
* what ran outside compiled graphs (those host ops on CPU, the device events they launched on CUDA)
  is also counted on the cell line whose range (``line_marks``) was open when it ran, as eager's ops
  are: a fused optimizer step Dynamo skips (``torch.compiler.disable``) runs eagerly on ``opt.step()``.

What cannot be tied to a kernel is kept as unmatched time, never dropped.

The result is a plain ``VariantKernelTimes`` (summed microseconds over all profiled calls).
This module does not run the profiler and does not write into a ``ProfileRun``: the pass
in ``profiler_pass`` does both.  What the output-code modules say (their call sites in order,
which graph a module is) is ``index``'s.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...profile_run import Kernel, Note, TimingMethod
from ..common.op_kinds import device_kind
from .breakdown import host_op_parts, host_time_us, is_host_op
from .chrome_trace import ChromeTrace, DeviceEvent, HostEvent
from .index import KernelIndex, ModuleInfo
from .line_marks import LineRanges

REGION_PREFIX = "## Call CompiledFxGraph"
# the range ``profiler_pass`` opens around each profiled call of a compiled variant (the warm-up
# and the reset before each call stay outside it)
CALL_RANGE = "compile_profile: compiled call"
CPP_BINDING_CALL = "<built-in function kernel>"  # Inductor's C++ kernels are bound as "kernel"
_CALL_EVENT = re.compile(r"^(?P<path>.+\.py)\((?P<line>\d+)\): call$")


@dataclass
class KernelObservation:
    """What the profiling pass saw of one generated kernel or extern call."""

    kernel: Kernel
    time_us: float = 0.0
    launches: int = 0
    grids: collections.Counter[tuple[int, ...]] = field(default_factory=collections.Counter)
    blocks: collections.Counter[tuple[int, ...]] = field(default_factory=collections.Counter)
    in_cuda_graph: bool = False
    outside_cuda_graph: bool = False
    device_names: collections.Counter[str] = field(default_factory=collections.Counter)
    launch_args: list[dict[str, Any]] = field(default_factory=list)  # recorded host-op args of each launch
    configs: collections.Counter[str] = field(default_factory=collections.Counter)
    low_precision: bool = False  # bf16/fp16 operands: its FLOP rate is comparable with the bf16 ceiling
    # CPU: an extern call's host time by kind, by the rule eager's ops go by (``breakdown.host_op_parts``):
    # a fused native op the graph calls (``aten::_transformer_encoder_layer_fwd``) is library, ATen and copies
    # in both variants, as the same op is in eager
    host_parts: collections.defaultdict[str, float] = field(default_factory=lambda: collections.defaultdict(float))


@dataclass
class VariantKernelTimes:
    variant: str
    calls: int
    method: TimingMethod
    observations: dict[str, KernelObservation]  # by Kernel.id
    total_us: float = 0.0
    outside_graphs_us: float | None = None
    in_cuda_graphs_us: float = 0.0
    # microseconds are summed in defaultdict(float)s: typeshed's Counter counts ints only
    unmatched: collections.defaultdict[tuple[str, str], float] = field(  # (name, where) -> us
        default_factory=lambda: collections.defaultdict(float)
    )
    # the time tied to no kernel, by kind: unmatched device events (``common.op_kinds.device_kind``)
    # and, on CPU, the host ops the calls ran outside compiled graphs (``breakdown.host_op_parts``)
    unmatched_kinds: collections.defaultdict[str, float] = field(default_factory=lambda: collections.defaultdict(float))
    notes: list[Note] = field(default_factory=list)
    # what the calls ran outside compiled graphs, by the cell line running it: line -> us, line -> op -> us
    line_us: collections.defaultdict[int, float] = field(default_factory=lambda: collections.defaultdict(float))
    line_ops: dict[int, collections.defaultdict[str, float]] = field(default_factory=dict)
    profiler_cost_us: float = 0.0  # CPU: the profiler's calibrated cost taken out of the kernels' host time
    event_cost_us: float | None = None  # that cost per op event (``profiler_cost``); None: not calibrated


def python_event_needed(name: str) -> bool:
    """The Python-tracer events the attribution reads (a trace keeps only these of them)."""
    return name == CPP_BINDING_CALL or name.endswith(": call")


# -- attribution ---------------------------------------------------------------------


def _enclosing(ev: HostEvent, predicate) -> HostEvent | None:
    return next((a for a in ev.ancestors() if predicate(a)), None)


def is_region(ev: HostEvent) -> bool:
    return ev.name.startswith(REGION_PREFIX)


def _is_op(ev: HostEvent) -> bool:
    return ev.cat in ("cpu_op", "user_annotation")


def attribute(
    trace: ChromeTrace,
    kernels: Iterable[Kernel],
    *,
    variant: str,
    calls: int,
    device_type: str,
    index: KernelIndex | None = None,
    event_cost_us: float = 0.0,
) -> VariantKernelTimes:
    """Each kernel's observed time over the ``calls`` profiled calls in ``trace``; ``index``, the variant's
    ``KernelIndex`` when several traces of it are attributed (it reads each output-code module once); on CPU
    each op's host time less ``event_cost_us`` for every op event recorded inside it (``profiler_cost``)."""
    return KernelAttribution(
        trace, kernels, variant=variant, calls=calls, device_type=device_type, index=index, event_cost_us=event_cost_us
    ).attribute()


class KernelAttribution:
    """One trace attributed to one variant's kernels.

    The maps the steps share are attributes: which graph and output-code module each
    compiled-graph region ran (``region_graph``, ``region_module``, and ``graph_of_key`` for
    regions of the same key whose module the Python tracer did not name), and which host op
    launched which kernel (``launch_kernel``, ``extern_op``).  ``attribute()`` fills
    ``result`` once; calling it again returns the same result.
    """

    def __init__(
        self,
        trace: ChromeTrace,
        kernels: Iterable[Kernel],
        *,
        variant: str,
        calls: int,
        device_type: str,
        index: KernelIndex | None = None,
        event_cost_us: float = 0.0,
    ):
        self.trace = trace
        self.event_cost_us = event_cost_us
        self.index = index if index is not None else KernelIndex(kernels)
        self.method: TimingMethod = "cupti" if device_type == "cuda" else "host"
        self.result = VariantKernelTimes(variant=variant, calls=calls, method=self.method, observations={})
        self.regions = [ev for ev in trace.host if is_region(ev)]
        self.region_graph: dict[HostEvent, str | None] = {}
        self.region_module: dict[HostEvent, ModuleInfo | None] = {}
        self.graph_of_key: dict[str, str] = {}
        self.launch_kernel: dict[HostEvent, Kernel] = {}  # Triton launch host op -> its kernel
        self.extern_op: dict[HostEvent, Kernel] = {}  # extern call's ATen op -> its call site's kernel
        self.ranges = LineRanges(trace, CALL_RANGE)
        self._done = False

    def attribute(self) -> VariantKernelTimes:
        if self._done:
            return self.result
        self._done = True
        self._read_regions()
        self._attribute_triton_launches()
        self._attribute_call_sites()
        if self.method == "host":
            self.result.total_us = sum(host_time_us(r, self.event_cost_us) for r in self.regions)
            self._attribute_host_ops_outside_regions()
        else:
            self._attribute_device()
        if not self.regions:
            self.result.notes.append(Note("no_graph_region", variant=self.result.variant))
        return self.result

    def observe(self, kernel: Kernel) -> KernelObservation:
        obs = self.result.observations.get(kernel.id)
        if obs is None:
            obs = self.result.observations[kernel.id] = KernelObservation(kernel)
        return obs

    def graph_of(self, region: HostEvent | None) -> str | None:
        if region is None:
            return None
        return self.region_graph.get(region) or self.graph_of_key.get(region.name)

    def _read_regions(self) -> None:
        """Each region's output-code module, from the Python tracer's ``<module>.py(N): call``."""
        for region in self.regions:
            module = None
            for ev in region.descendants():
                m = _CALL_EVENT.match(ev.name) if ev.cat == "python_function" else None
                if m:
                    module = self.index.module(m.group("path"))
                    if module is not None:
                        break
            self.region_module[region] = module
            self.region_graph[region] = module.graph_id if module else None
            if module and module.graph_id:
                self.graph_of_key[region.name] = module.graph_id

    def _attribute_triton_launches(self) -> None:
        """Triton launches: host ops named after the kernel, inside a region."""
        index = self.index
        for ev in self.trace.host:
            if not index.is_triton_launch(ev):
                continue
            region = _enclosing(ev, is_region)
            graph_id = self.region_graph.get(region) if region is not None else None
            if region is not None and graph_id is None:
                graph_id = self.graph_of_key.get(region.name) or index.graph_by_names(
                    e.name for e in region.descendants() if index.is_triton_launch(e)
                )
                self.region_graph[region] = graph_id
                if graph_id:
                    self.graph_of_key.setdefault(region.name, graph_id)
            kernel = index.generated(graph_id, ev.name)
            if kernel is None:
                continue
            self.launch_kernel[ev] = kernel
            obs = self.observe(kernel)
            obs.launch_args.append(ev.args)
            config = ", ".join(
                str(x)
                for x in (
                    ev.args.get("kernel_kwargs"),
                    f"num_warps={ev.args['num_warps']}" if "num_warps" in ev.args else None,
                    f"num_stages={ev.args['num_stages']}" if "num_stages" in ev.args else None,
                )
                if x
            )
            if config:
                obs.configs[config] += 1
            if self.method == "host":  # a Triton kernel on CPU would be odd; count its host time all the same
                obs.time_us += ev.dur
                obs.launches += 1

    def _attribute_call_sites(self) -> None:
        """Extern calls and C++ kernels: matched to the module's call sites in order."""
        for region in self.regions:
            module = self.region_module.get(region)
            if module is None:
                continue
            top_ops = sorted(
                (
                    ev
                    for ev in region.descendants()
                    if ev.cat == "cpu_op" and _enclosing(ev, _is_op) is region and not self.index.is_triton_launch(ev)
                ),
                key=lambda ev: ev.ts,
            )
            pending: dict[str, collections.deque[Kernel]] = collections.defaultdict(collections.deque)
            for site in module.sites:
                if site.kind == "extern" and site.kernel is not None:
                    pending[site.op].append(site.kernel)
            for ev in top_ops:
                queue = pending.get(ev.name)
                if queue:
                    kernel = queue.popleft()
                    self.extern_op[ev] = kernel
                    obs = self.observe(kernel)
                    obs.launch_args.append(ev.args)
                    if self.method == "host":
                        op_us = host_time_us(ev, self.event_cost_us)
                        obs.time_us += op_us
                        obs.launches += 1
                        self.result.profiler_cost_us += ev.dur - op_us
                        for kind, us in host_op_parts(ev, self.event_cost_us).items():
                            obs.host_parts[kind] += us
            if self.method == "host":
                self._attribute_cpp_calls(region, module)

    def _attribute_cpp_calls(self, region: HostEvent, module: ModuleInfo) -> None:
        call_event = next(
            (ev for ev in region.descendants() if ev.cat == "python_function" and _CALL_EVENT.match(ev.name)), None
        )
        if call_event is None:
            return
        binding_calls = sorted((ev for ev in call_event.children if ev.name == CPP_BINDING_CALL), key=lambda e: e.ts)
        cpp_sites = [s for s in module.sites if s.kind == "cpp"]
        if len(binding_calls) == len(cpp_sites):
            pairs = list(zip(binding_calls, cpp_sites))
        elif len({s.name for s in cpp_sites}) == 1 and cpp_sites[0].kernel is not None:
            pairs = [(ev, cpp_sites[0]) for ev in binding_calls]  # one kernel, called in a loop
        else:
            return  # the calls cannot be told apart; their time stays in the region's total
        for ev, site in pairs:
            if site.kernel is None:
                continue
            obs = self.observe(site.kernel)
            obs.time_us += ev.dur
            obs.launches += 1

    def _attribute_host_ops_outside_regions(self) -> None:
        """On CPU, the host ops each profiled call ran outside compiled graphs (around graph breaks, in
        autograd hooks such as DDP's reducer copying gradients into its buckets and its all-reduce, an
        eager optimizer step) count by the rule eager's ops do (``breakdown.host_op_parts``), so the
        same op is the same kind of time in both variants.

        Counted: each op (``is_host_op``) inside a profiled call (``CALL_RANGE``; on another thread, one
        that started while a call ran, as eager counts its ops) that is in no region and in no other
        counted op.  An op with a region inside it (``autograd::engine::evaluate_function:
        CompiledFunctionBackward``, which runs a compiled backward) is not counted itself: its time
        outside the region is the compiled code's own Python, outside kernels as in the regions; the
        ops under it outside the region are counted.  A trace without ``CALL_RANGE`` counts none.  Each
        counted op is also on the cell line whose range was open when it ran (``_on_line``)."""
        if not self.ranges.calls:
            return
        self.result.outside_graphs_us = self.result.outside_graphs_us or 0.0
        wrappers = {a for region in self.regions for a in region.ancestors()}  # events holding a region
        result = self.result
        for ev in self.trace.host:
            if not is_host_op(ev) or ev in wrappers:
                continue
            if any(is_region(a) or (is_host_op(a) and a not in wrappers) for a in ev.ancestors()):
                continue  # in a compiled graph, or counted with the op it is in
            if not self.ranges.in_call(ev):
                continue
            for kind, us in host_op_parts(ev, self.event_cost_us).items():
                result.unmatched_kinds[kind] += us
            op_us = host_time_us(ev, self.event_cost_us)
            result.profiler_cost_us += ev.dur - op_us
            result.total_us += op_us
            result.outside_graphs_us = (result.outside_graphs_us or 0.0) + op_us
            result.unmatched[(ev.name, "outside compiled graphs")] += op_us
            self._on_line(self.ranges.line_of(ev), ev.name, op_us)

    def _on_line(self, line: int | None, op: str | None, us: float) -> None:
        """Time run outside compiled graphs, on the cell line that ran it (none: no line was open)."""
        if line is None:
            return
        self.result.line_us[line] += us
        if op is not None:
            self.result.line_ops.setdefault(line, collections.defaultdict(float))[op] += us

    def _attribute_device(self) -> None:
        result = self.result
        graph_launches: dict[int, list[DeviceEvent]] = collections.defaultdict(list)
        for d in self.trace.device:
            result.total_us += d.dur
            if d.in_cuda_graph:
                result.in_cuda_graphs_us += d.dur
            kernel, region = None, None
            if d.launcher is not None:
                for anc in d.launcher.ancestors():
                    if anc in self.launch_kernel:
                        kernel = self.launch_kernel[anc]
                        break
                    if anc in self.extern_op:
                        kernel = self.extern_op[anc]
                        break
                    if is_region(anc):
                        region = anc
                        break
            if kernel is None and region is None and d.launcher is not None:
                region = _enclosing(d.launcher, is_region)
            if kernel is None and d.cat == "kernel" and (region is not None or d.in_cuda_graph):
                # by name: Triton kernels keep theirs on the device
                kernel = self.index.generated(self.graph_of(region), d.name)
            if kernel is None and d.in_cuda_graph and d.correlation is not None:
                graph_launches[d.correlation].append(d)  # library kernels in a graph: aligned below
                continue
            self._count(d, kernel, region)
        for events in graph_launches.values():
            self._align_graph_replay(events)

    def _count(self, d: DeviceEvent, kernel: Kernel | None, region: HostEvent | None) -> None:
        if kernel is not None:
            obs = self.observe(kernel)
            obs.time_us += d.dur
            obs.launches += 1
            obs.device_names[d.name] += 1
            if d.in_cuda_graph:
                obs.in_cuda_graph = True
            else:
                obs.outside_cuda_graph = True
            if isinstance(d.args.get("grid"), list):
                obs.grids[tuple(d.args["grid"])] += 1
            if isinstance(d.args.get("block"), list):
                obs.blocks[tuple(d.args["block"])] += 1
            return
        ops = [a.name for a in d.launcher.ancestors() if a.cat == "cpu_op"] if d.launcher is not None else []
        self.result.unmatched_kinds[device_kind(d.cat, d.name, ops)] += d.dur
        if region is None and not d.in_cuda_graph:
            where = "outside compiled graphs"
            self.result.outside_graphs_us = (self.result.outside_graphs_us or 0.0) + d.dur
            if d.launcher is not None:  # on the line as eager's device events are: its outermost op names it
                top = [a.name for a in d.launcher.ancestors() if is_host_op(a)]
                self._on_line(self.ranges.line_of(d.launcher), top[-1] if top else None, d.dur)
        else:
            where = "in CUDA graph" if d.in_cuda_graph else "in compiled graph"
        self.result.unmatched[(d.name, where)] += d.dur

    def _module_of_graph(self, graph_id: str | None) -> ModuleInfo | None:
        return next((m for m in self.region_module.values() if m is not None and m.graph_id == graph_id), None)

    def _align_graph_replay(self, unmatched_events: list[DeviceEvent]) -> None:
        """Library kernels inside a CUDA graph replay: the extern call site between the Triton
        kernels that ran just before and just after them, when there is exactly one."""
        correlation = unmatched_events[0].correlation
        replay = [d for d in self.trace.device if d.correlation == correlation]
        launcher = unmatched_events[0].launcher
        region = _enclosing(launcher, is_region) if launcher is not None else None
        graph_id = self.graph_of(region)
        if graph_id is None:
            graph_id = self.index.graph_by_names(d.name for d in replay)
        module = self._module_of_graph(graph_id)
        sites = module.sites if module else []
        site_pos = 0
        position: dict[int, int] = {}  # device event id -> index of its call site
        for d in replay:
            if d.cat != "kernel":
                continue
            for j in range(site_pos, len(sites)):
                if sites[j].kind == "triton" and sites[j].name == d.name:
                    position[id(d)] = j
                    site_pos = j + 1
                    break
        for i, d in enumerate(replay):
            if d not in unmatched_events:
                continue
            before = max((position[id(e)] for e in replay[:i] if id(e) in position), default=-1)
            after = min((position[id(e)] for e in replay[i + 1 :] if id(e) in position), default=len(sites))
            externs = [s for s in sites[before + 1 : after] if s.kind == "extern" and s.kernel is not None]
            self._count(d, externs[0].kernel if len(externs) == 1 else None, region or launcher)
