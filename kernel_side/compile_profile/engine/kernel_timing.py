"""Per-kernel time from a separate torch.profiler (Kineto) pass after the timed runs.

The timed samples stay clean: this pass runs each compiled variant a few more
times under ``torch.profiler`` and ties what the profiler saw to the kernels the
trace model found in Inductor's output code:

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

What cannot be tied to a kernel is kept as unmatched time, never dropped.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from ..profile_run import Kernel, KernelProfile, LineTime, ProfileRun, UnmatchedKernel
from . import chrome_trace
from .chrome_trace import ChromeTrace, DeviceEvent, HostEvent
from .output_code import dotted_name, launch_call, launcher_functions, parse_output_code

# Profiled time per variant: few calls for slow cells, more for fast ones.  Attribution needs few;
# each call's trace (the Python tracer's above all) costs host time to export and parse.
PROFILE_TARGET_S = 0.03
MIN_CALLS, MAX_CALLS = 3, 10
MAX_UNMATCHED = 20

REGION_PREFIX = "## Call CompiledFxGraph"
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")
CPP_BINDING_CALL = "<built-in function kernel>"  # Inductor's C++ kernels are bound as "kernel"
_CALL_EVENT = re.compile(r"^(?P<path>.+\.py)\((?P<line>\d+)\): call$")
_EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.")


@dataclass
class KernelObservation:
    """What the profiling pass saw of one generated kernel or extern call."""

    kernel: Kernel
    time_us: float = 0.0
    launches: int = 0
    grids: collections.Counter = field(default_factory=collections.Counter)
    blocks: collections.Counter = field(default_factory=collections.Counter)
    in_cuda_graph: bool = False
    outside_cuda_graph: bool = False
    device_names: collections.Counter = field(default_factory=collections.Counter)
    launch_args: list[dict[str, Any]] = field(default_factory=list)  # recorded host-op args of each launch
    configs: collections.Counter = field(default_factory=collections.Counter)
    low_precision: bool = False  # bf16/fp16 operands: its FLOP rate is comparable with the bf16 ceiling


@dataclass
class VariantKernelTimes:
    variant: str
    calls: int
    method: str  # "cupti" or "host"
    observations: dict[str, KernelObservation]  # by Kernel.id
    total_us: float = 0.0
    outside_graphs_us: float | None = None
    in_cuda_graphs_us: float = 0.0
    unmatched: collections.Counter = field(default_factory=collections.Counter)  # (name, where) -> us
    notes: list[str] = field(default_factory=list)


# -- the profiling pass ------------------------------------------------------------


def calls_for(median_ms: float | None) -> int:
    if not median_ms or not math.isfinite(median_ms) or median_ms <= 0:
        return MIN_CALLS
    return int(min(MAX_CALLS, max(MIN_CALLS, round(PROFILE_TARGET_S * 1e3 / median_ms))))


def record_trace(call: Callable[[], Any], before_each: Callable[[], None], *, calls: int,
                 device_type: str) -> ChromeTrace:
    """Run ``call`` under torch.profiler (one discarded warm-up step, then ``calls`` steps)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if device_type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    sync = torch.cuda.synchronize if device_type == "cuda" else (lambda: None)
    prof = profile(
        activities=activities,
        schedule=schedule(wait=0, warmup=1, active=calls, repeat=1),
        record_shapes=True,  # launch arguments' shapes: bytes moved and FLOPs
        with_stack=True,  # the Python tracer names the output-code module and C++ binding calls
    )
    with _cupti_torn_down_afterwards(device_type):
        with _native_stderr_silenced():
            prof.start()
        try:
            for _ in range(calls + 1):
                before_each()
                call()
                sync()
                with _native_stderr_silenced():  # the schedule starts and stops Kineto inside step()
                    prof.step()
        finally:
            with _native_stderr_silenced():
                prof.stop()
    fd, path = tempfile.mkstemp(prefix="compile_profile_trace_", suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        return chrome_trace.load(path, keep_python=_python_event_needed)
    finally:
        os.unlink(path)


@contextlib.contextmanager
def _cupti_torn_down_afterwards(device_type: str) -> Iterator[None]:
    """Left subscribed after profiling, CUPTI slows every later launch by 10-20 % (pytorch#144455;
    measured here on an H200: host-heavy cells 15-45 % slower for the rest of the process).  Kineto
    tears it down at the profiler's stop when TEARDOWN_CUPTI=1; torch itself sets 0 where CUDA
    graphs crash on re-init (CUDA < 12.6), and an explicit choice is kept.  The variable is set
    for the pass only."""
    import torch

    try:
        cuda = tuple(int(x) for x in (torch.version.cuda or "0.0").split(".")[:2])
    except ValueError:
        cuda = (0, 0)
    if device_type != "cuda" or "TEARDOWN_CUPTI" in os.environ or cuda < (12, 6):
        yield
        return
    os.environ["TEARDOWN_CUPTI"] = "1"
    try:
        yield
    finally:
        os.environ.pop("TEARDOWN_CUPTI", None)


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Kineto prints a line to the process's stderr as it starts and stops ("USDT: ...
    profiler_start"), which a notebook shows under every profiled cell; these calls last
    milliseconds, so the descriptor is pointed at /dev/null just around them."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _python_event_needed(name: str) -> bool:
    return name == CPP_BINDING_CALL or name.endswith(": call")


# -- output-code modules -----------------------------------------------------------


@dataclass
class CallSite:
    kind: str  # "triton" | "cpp" | "extern"
    name: str
    kernel: Kernel | None
    op: str = ""  # extern: the ATen op name as the profiler shows it, e.g. "aten::mm"


@dataclass
class ModuleInfo:
    graph_id: str | None
    sites: list[CallSite]


def extern_op_name(callee: str) -> str:
    """``extern_kernels.mm`` -> ``aten::mm``; ``torch.ops.aten._foo.default`` -> ``aten::_foo``."""
    parts = callee.split(".")
    if callee.startswith("extern_kernels."):
        return f"aten::{parts[1]}"
    if callee.startswith("torch.ops.") and len(parts) >= 4:
        return f"{parts[2]}::{parts[3]}"
    if callee.startswith("aten.") and len(parts) >= 2:
        return f"aten::{parts[1]}"
    return callee


def call_sites(code: str) -> list[tuple[str, str, str]]:
    """(kind, name, statement text) of each kernel launch or extern call, in the order ``call()``
    runs them (a graph partition's launches where ``call`` invokes ``self.partitions[N]``)."""
    parsed = parse_output_code(code)
    languages = {k.name: k.language for k in parsed.kernels if k.language != "extern"}
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    functions = launcher_functions(tree)
    if not functions or functions[0].name != "call":
        return []
    partitions = {fn.name: fn for fn in functions[1:]}

    def sites_of(fn: ast.FunctionDef, inline: bool) -> list[tuple[str, str, str]]:
        out = []
        statements = sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Expr, ast.Assign))),
                            key=lambda n: (n.lineno, n.col_offset))
        for stmt in statements:
            partition = _partition_called(stmt) if inline else None
            if partition is not None and partition in partitions:
                out.extend(sites_of(partitions[partition], inline=False))
                continue
            call = launch_call(stmt)
            if call is None:
                continue
            callee = dotted_name(call.func)
            base = callee.split(".")[0]
            text = (ast.get_source_segment(code, stmt) or "").strip()
            if base in languages:
                out.append((languages[base], base, text))
            elif callee.startswith(_EXTERN_PREFIXES):
                out.append(("extern", callee, text))
        return out

    return sites_of(functions[0], inline=True)


def _partition_called(stmt: ast.stmt) -> str | None:
    """``partition_N`` for ``(...) = self.partitions[N](...)``."""
    value = getattr(stmt, "value", None)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Subscript):
        target, index = value.func.value, value.func.slice
        if isinstance(target, ast.Attribute) and target.attr == "partitions" and isinstance(index, ast.Constant):
            return f"partition_{index.value}"
    return None


class KernelIndex:
    """The variant's kernels, looked up by module, graph and name."""

    def __init__(self, kernels: Iterable[Kernel]):
        self.kernels = list(kernels)
        self.by_name_source: dict[tuple[str, str], list[Kernel]] = collections.defaultdict(list)
        self.by_graph_name: dict[tuple[str, str], list[Kernel]] = collections.defaultdict(list)
        self.graphs_by_name: dict[str, set[str]] = collections.defaultdict(set)
        for k in self.kernels:
            self.by_name_source[(k.name, k.source.strip())].append(k)
            self.by_graph_name[(k.graph_id, k.name)].append(k)
            if k.language != "extern":
                self.graphs_by_name[k.name].add(k.graph_id)
        self._modules: dict[str, ModuleInfo | None] = {}

    def module(self, path: str) -> ModuleInfo | None:
        if path not in self._modules:
            self._modules[path] = self._read_module(path)
        return self._modules[path]

    def _read_module(self, path: str) -> ModuleInfo | None:
        try:
            with open(path) as f:
                code = f.read()
        except OSError:
            return None
        parsed = {k.name: k for k in parse_output_code(code).kernels if k.language != "extern"}
        votes: collections.Counter[str] = collections.Counter()
        raw = call_sites(code)
        for kind, name, text in raw:
            source = parsed[name].source.strip() if kind != "extern" else text
            for k in self.by_name_source.get((name, source), []):
                votes[k.graph_id] += 1
        if not votes:
            return None
        graph_id = votes.most_common(1)[0][0]
        sites = []
        used: set[str] = set()
        for kind, name, text in raw:
            source = parsed[name].source.strip() if kind != "extern" else text
            candidates = [k for k in self.by_name_source.get((name, source), []) if k.graph_id == graph_id]
            fresh = [k for k in candidates if k.id not in used] or candidates
            kernel = fresh[0] if fresh else None
            if kernel is not None and kind == "extern":
                used.add(kernel.id)  # one extern Kernel per call site
            sites.append(CallSite(kind, name, kernel, extern_op_name(name) if kind == "extern" else ""))
        return ModuleInfo(graph_id, sites)

    def graph_by_names(self, names: Iterable[str]) -> str | None:
        votes: collections.Counter[str] = collections.Counter()
        for name in names:
            for graph_id in self.graphs_by_name.get(name, ()):
                votes[graph_id] += 1
        return votes.most_common(1)[0][0] if votes else None

    def generated(self, graph_id: str | None, name: str) -> Kernel | None:
        if graph_id is not None:
            found = [k for k in self.by_graph_name.get((graph_id, name), []) if k.language != "extern"]
            if found:
                return found[0]
        graphs = self.graphs_by_name.get(name, set())
        if len(graphs) == 1:  # unambiguous across the variant
            return self.generated(next(iter(graphs)), name)
        return None


# -- attribution ---------------------------------------------------------------------


def _is_triton_launch(ev: HostEvent, index: KernelIndex) -> bool:
    return ev.cat == "cpu_op" and (
        ev.args.get("kernel_backend") == "triton" or "kernel_file" in ev.args or ev.name in index.graphs_by_name
    ) and not ev.name.startswith("aten::")


def _enclosing(ev: HostEvent, predicate) -> HostEvent | None:
    return next((a for a in ev.ancestors() if predicate(a)), None)


def _is_region(ev: HostEvent) -> bool:
    return ev.name.startswith(REGION_PREFIX)


def _is_op(ev: HostEvent) -> bool:
    return ev.cat in ("cpu_op", "user_annotation")


def attribute(trace: ChromeTrace, kernels: Iterable[Kernel], *, variant: str, calls: int,
              device_type: str) -> VariantKernelTimes:
    index = KernelIndex(kernels)
    method = "cupti" if device_type == "cuda" else "host"
    result = VariantKernelTimes(variant=variant, calls=calls, method=method, observations={})

    def observe(kernel: Kernel) -> KernelObservation:
        obs = result.observations.get(kernel.id)
        if obs is None:
            obs = result.observations[kernel.id] = KernelObservation(kernel)
        return obs

    regions = [ev for ev in trace.host if _is_region(ev)]
    region_graph: dict[HostEvent, str | None] = {}
    region_module: dict[HostEvent, ModuleInfo | None] = {}
    graph_of_key: dict[str, str] = {}
    for region in regions:
        module = None
        for ev in region.descendants():
            m = _CALL_EVENT.match(ev.name) if ev.cat == "python_function" else None
            if m:
                module = index.module(m.group("path"))
                if module is not None:
                    break
        region_module[region] = module
        region_graph[region] = module.graph_id if module else None
        if module and module.graph_id:
            graph_of_key[region.name] = module.graph_id

    # Triton launches: host ops named after the kernel, inside a region.
    launch_kernel: dict[HostEvent, Kernel] = {}
    for ev in trace.host:
        if not _is_triton_launch(ev, index):
            continue
        region = _enclosing(ev, _is_region)
        graph_id = region_graph.get(region) if region is not None else None
        if region is not None and graph_id is None:
            graph_id = graph_of_key.get(region.name) or index.graph_by_names(
                e.name for e in region.descendants() if _is_triton_launch(e, index))
            region_graph[region] = graph_id
            if graph_id:
                graph_of_key.setdefault(region.name, graph_id)
        kernel = index.generated(graph_id, ev.name)
        if kernel is None:
            continue
        launch_kernel[ev] = kernel
        obs = observe(kernel)
        obs.launch_args.append(ev.args)
        config = ", ".join(str(x) for x in (
            ev.args.get("kernel_kwargs"),
            f"num_warps={ev.args['num_warps']}" if "num_warps" in ev.args else None,
            f"num_stages={ev.args['num_stages']}" if "num_stages" in ev.args else None,
        ) if x)
        if config:
            obs.configs[config] += 1
        if method == "host":  # a Triton kernel on CPU would be odd; count its host time all the same
            obs.time_us += ev.dur
            obs.launches += 1

    # Extern calls and C++ kernels: matched to the module's call sites in order.
    extern_op: dict[HostEvent, Kernel] = {}
    for region in regions:
        module = region_module.get(region)
        if module is None:
            continue
        top_ops = sorted((ev for ev in region.descendants() if ev.cat == "cpu_op"
                          and _enclosing(ev, _is_op) is region and not _is_triton_launch(ev, index)),
                         key=lambda ev: ev.ts)
        pending: dict[str, collections.deque[CallSite]] = collections.defaultdict(collections.deque)
        for site in module.sites:
            if site.kind == "extern" and site.kernel is not None:
                pending[site.op].append(site)
        for ev in top_ops:
            queue = pending.get(ev.name)
            if queue:
                site = queue.popleft()
                extern_op[ev] = site.kernel
                obs = observe(site.kernel)
                obs.launch_args.append(ev.args)
                if method == "host":
                    obs.time_us += ev.dur
                    obs.launches += 1
        if method == "host":
            _attribute_cpp_calls(region, module, observe)

    if method == "host":
        result.total_us = sum(r.dur for r in regions)
    else:
        _attribute_device(trace, index, result, observe, launch_kernel, extern_op, region_graph, graph_of_key,
                          region_module)
    return result


def _attribute_cpp_calls(region: HostEvent, module: ModuleInfo, observe) -> None:
    call_event = next((ev for ev in region.descendants() if ev.cat == "python_function"
                       and _CALL_EVENT.match(ev.name)), None)
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
        obs = observe(site.kernel)
        obs.time_us += ev.dur
        obs.launches += 1


def _attribute_device(trace, index, result, observe, launch_kernel, extern_op, region_graph, graph_of_key,
                      region_module) -> None:
    graph_launches: dict[int, list[DeviceEvent]] = collections.defaultdict(list)
    for d in trace.device:
        result.total_us += d.dur
        if d.in_cuda_graph:
            result.in_cuda_graphs_us += d.dur
        kernel, region = None, None
        if d.launcher is not None:
            for anc in d.launcher.ancestors():
                if anc in launch_kernel:
                    kernel = launch_kernel[anc]
                    break
                if anc in extern_op:
                    kernel = extern_op[anc]
                    break
                if _is_region(anc):
                    region = anc
                    break
        if kernel is None and region is None and d.launcher is not None:
            region = _enclosing(d.launcher, _is_region)
        graph_id = None
        if region is not None:
            graph_id = region_graph.get(region) or graph_of_key.get(region.name)
        if kernel is None and d.cat == "kernel" and (region is not None or d.in_cuda_graph):
            kernel = index.generated(graph_id, d.name)  # by name: Triton kernels keep theirs on the device
        if kernel is None and d.in_cuda_graph and d.correlation is not None:
            graph_launches[d.correlation].append(d)  # library kernels in a graph: aligned below
            continue
        _count(result, observe, d, kernel, region)
    for events in graph_launches.values():
        _align_graph_replay(events, trace, index, result, observe, region_graph, graph_of_key, region_module)


def _count(result, observe, d: DeviceEvent, kernel: Kernel | None, region: HostEvent | None) -> None:
    if kernel is not None:
        obs = observe(kernel)
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
    where = ("in CUDA graph" if d.in_cuda_graph else "in compiled graph") if region is not None or d.in_cuda_graph \
        else "outside compiled graphs"
    if where == "outside compiled graphs":
        result.outside_graphs_us = (result.outside_graphs_us or 0.0) + d.dur
    result.unmatched[(d.name, where)] += d.dur


def _align_graph_replay(unmatched_events, trace, index, result, observe, region_graph, graph_of_key,
                        region_module) -> None:
    """Library kernels inside a CUDA graph replay: the extern call site between the Triton
    kernels that ran just before and just after them, when there is exactly one."""
    correlation = unmatched_events[0].correlation
    replay = [d for d in trace.device if d.correlation == correlation]
    launcher = unmatched_events[0].launcher
    region = _enclosing(launcher, _is_region) if launcher is not None else None
    graph_id = (region_graph.get(region) or graph_of_key.get(region.name)) if region is not None else None
    module = next((m for m in region_module.values() if m is not None and m.graph_id == graph_id), None)
    if graph_id is None:
        graph_id = index.graph_by_names(d.name for d in replay)
        module = next((m for m in region_module.values() if m is not None and m.graph_id == graph_id), None)
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
        after = min((position[id(e)] for e in replay[i + 1:] if id(e) in position), default=len(sites))
        externs = [s for s in sites[before + 1:after] if s.kind == "extern" and s.kernel is not None]
        _count(result, observe, d, externs[0].kernel if len(externs) == 1 else None, region or launcher)


# -- writing the results into the run ---------------------------------------------------


def apply(result: VariantKernelTimes, run: ProfileRun) -> None:
    """Fill each kernel's time fields and the variant's ``kernel_profile``."""
    calls = max(1, result.calls)
    total_ms = result.total_us / 1e3 / calls
    attributed_us = 0.0
    for obs in result.observations.values():
        k = obs.kernel
        attributed_us += obs.time_us
        k.device_time_ms = obs.time_us / 1e3 / calls
        k.share = (k.device_time_ms / total_ms) if total_ms > 0 else None
        k.launches_per_call = obs.launches / calls
        if obs.grids:
            k.launch_grid = list(obs.grids.most_common(1)[0][0])
        if obs.blocks:
            k.block = list(obs.blocks.most_common(1)[0][0])
        if obs.configs:
            k.launch_config = obs.configs.most_common(1)[0][0]
        if result.method == "cupti" and obs.launches:
            k.in_cuda_graph = obs.in_cuda_graph and not obs.outside_cuda_graph
        k.device_kernels = [name for name, _ in obs.device_names.most_common(8)]
    lines = line_times([o.kernel for o in result.observations.values()], total_ms)
    unmatched = [UnmatchedKernel(name=name, time_ms=us / 1e3 / calls, where=where)
                 for (name, where), us in result.unmatched.most_common(MAX_UNMATCHED)]
    profile = KernelProfile(
        calls=result.calls,
        total_ms=total_ms,
        attributed_ms=attributed_us / 1e3 / calls,
        method=result.method,  # type: ignore[arg-type]
        outside_graphs_ms=None if result.outside_graphs_us is None else result.outside_graphs_us / 1e3 / calls,
        in_cuda_graphs_ms=result.in_cuda_graphs_us / 1e3 / calls,
        lines=lines,
        unmatched=unmatched,
        note="; ".join(result.notes),
    )
    if result.method == "cupti" and result.outside_graphs_us is None:
        profile.outside_graphs_ms = 0.0
    run.variant(result.variant).kernel_profile = profile


def line_times(kernels: Iterable[Kernel], total_ms: float) -> list[LineTime]:
    """Each kernel's time split evenly over the cell lines it came from, summed per line."""
    per_line: dict[int, float] = collections.defaultdict(float)
    per_line_kernels: dict[int, list[str]] = collections.defaultdict(list)
    for k in kernels:
        if not k.device_time_ms or not k.lines:
            continue
        part = k.device_time_ms / len(k.lines)
        for line in k.lines:
            per_line[line] += part
            per_line_kernels[line].append(k.id)
    return [
        LineTime(line=line, time_ms=ms, share=(ms / total_ms) if total_ms > 0 else 0.0,
                 kernels=per_line_kernels[line])
        for line, ms in sorted(per_line.items())
    ]


def measure_variant(
    run: ProfileRun, name: str, call: Callable[[], Any], before_each: Callable[[], None]
) -> VariantKernelTimes:
    """Profile one compiled variant once more and fill its kernels' times and ``kernel_profile``."""
    variant = run.variant(name)
    calls = calls_for(variant.timing.median_ms if variant.timing else None)
    trace = record_trace(call, before_each, calls=calls, device_type=run.device.type)
    run.cell_runs += calls + 1
    kernels = [k for k in run.kernels if k.variant == name]
    result = attribute(trace, kernels, variant=name, calls=calls, device_type=run.device.type)
    if not any(_is_region(ev) for ev in trace.host):
        result.notes.append("the profiler saw no compiled-graph region, so no kernel could be timed")
    if (run.device.type == "cuda" and variant.mode in CUDA_GRAPH_MODES and result.total_us > 0
            and result.in_cuda_graphs_us == 0):
        result.notes.append("no kernel ran inside a CUDA graph: Inductor did not use CUDA graphs for this variant"
                            + (f" ({'; '.join(variant.cudagraph_skips)})" if variant.cudagraph_skips else ""))
    apply(result, run)
    return result
