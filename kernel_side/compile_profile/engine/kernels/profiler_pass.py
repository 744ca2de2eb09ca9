"""Per-kernel time from a separate torch.profiler (Kineto) pass after the timed runs.

The timed samples stay clean: this pass runs each compiled variant a few more
times under ``torch.profiler``, hands the trace to ``kernel_attribution`` (which ties
the profiler's events to the kernels the trace model found in Inductor's output code)
and writes what it returns into the ``ProfileRun``: each kernel's time fields and the
variant's ``kernel_profile``.  It is the only part of the pass that writes into the run.

It does not match events to kernels (``kernel_attribution`` does), does not classify kernel time
(``kernel_breakdown`` does) and does not compute roofline figures (``roofline`` does, from the same
``VariantKernelTimes``).  The eager variant goes through the same ``record_trace`` and ``calls_for``
in ``eager_profile``.  Each profiled call of a compiled variant runs inside a
``kernel_attribution.CALL_RANGE`` range, as eager's inside its own: on CPU the attribution counts the
host ops a call ran outside its compiled graphs within it, and not the reset before each call.  Its
cell lines are marked as eager's are (``line_marks.marking_lines``, given the profiled code): what a
call ran outside its compiled graphs is written per line into ``kernel_profile.eager_lines``.
"""

from __future__ import annotations

import collections
import contextlib
import heapq
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from operator import itemgetter
from types import CodeType
from typing import Any

from ...profile_run import KernelProfile, Note, ProfileRun, UnmatchedKernel
from ...stats import median
from ..distributed import job as distributed
from ..timing import host_load
from . import chrome_trace, profiler_cost
from .attribution import CALL_RANGE, KernelObservation, VariantKernelTimes, attribute, python_event_needed
from .breakdown import compiled_breakdown
from .chrome_trace import ChromeTrace
from .index import KernelIndex
from .line_marks import line_times, marking_lines, profiler_range
from .profiled_calls import WANTED_CLEAN_CALLS, CallRecord, PassCalls, busy_us, chosen, clean_calls, pass_calls

# Profiled time per variant: few calls for slow cells, more for fast ones.  Attribution needs few;
# each call's trace (the Python tracer's above all) costs host time to export and parse.
PROFILE_TARGET_S = 0.03
MIN_CALLS, MAX_CALLS = 3, 10
MAX_UNMATCHED = 20

CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")


def calls_for(median_ms: float | None) -> int:
    """The profiled calls for a variant whose timed median is ``median_ms``; in a distributed job
    rank 0's count, so every rank makes the same calls (``distributed``)."""
    if not median_ms or not math.isfinite(median_ms) or median_ms <= 0:
        calls = MIN_CALLS
    else:
        calls = int(min(MAX_CALLS, max(MIN_CALLS, round(PROFILE_TARGET_S * 1e3 / median_ms))))
    return distributed.shared(calls)


def record_trace(
    call: Callable[[], Any],
    before_each: Callable[[], None],
    *,
    calls: int,
    device_type: str,
    with_stack: bool = True,
    record_shapes: bool = True,
    records: list[CallRecord] | None = None,
) -> ChromeTrace:
    """Run ``call`` under torch.profiler (one discarded warm-up call, then ``calls`` recorded calls; a step each on
    a GPU, one step for all of them on CPU).

    ``with_stack=False`` leaves the Python tracer off and ``record_shapes=False`` the launch
    arguments' shapes unrecorded (the eager pass marks its lines itself and needs no shapes).
    ``records`` gets a ``CallRecord`` per profiled step, in order: its wall time and, on CPU, how long this
    process's threads waited for a CPU meanwhile.  On CPU, while fewer than
    ``profiled_calls.WANTED_CLEAN_CALLS`` of them were not preempted, up to ``calls`` more steps run: a
    busy machine costs the pass more calls, an idle one none (in a distributed job, rank 0's calls decide)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if device_type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    sync = torch.cuda.synchronize if device_type == "cuda" else (lambda: None)
    waits = host_load.ThreadWaits() if device_type != "cuda" else None
    # in a job every rank makes the same calls (``distributed``): rank 0's count, and rank 0's choice to go on
    most = distributed.shared(2 * calls if waits is not None and waits.available else calls)
    wanted = min(WANTED_CLEAN_CALLS, calls)
    taken: list[CallRecord] = []
    prof = profile(
        activities=activities,
        schedule=schedule(wait=0, warmup=1, active=most, repeat=1),
        record_shapes=record_shapes,  # launch arguments' shapes: bytes moved and FLOPs
        with_stack=with_stack,  # the Python tracer names the output-code module and C++ binding calls
    )
    # The Python tracer (with_stack) takes the thread's profile function and stops with it unset: a
    # user's own sys.setprofile hook (cProfile's, a tracer's) was dropped for the rest of the session. It
    # is not called during the pass (the tracer holds the one slot) and is put back after it, on error too.
    # It is taken off before the tracer starts: torch 2.6's tracer, started over a cProfile.Profile, failed
    # its replay at stop ("INTERNAL ASSERT FAILED ... Python replay stack is empty").
    previous_profile = sys.getprofile()
    _suspend_profile_hook(previous_profile)
    try:
        with _native_stderr_silenced():
            prof.start()
    except BaseException:
        _restore_profile_hook(previous_profile)
        raise
    try:
        for step in range(most + 1):
            if step > calls and not distributed.shared(clean_calls(taken) < wanted):
                break
            before_each()
            waited0 = waits.waited_s() if waits is not None else None
            t0 = time.perf_counter()
            call()
            sync()
            wall = time.perf_counter() - t0
            waited1 = waits.waited_s() if waits is not None else None
            if step:  # step 0 is the profiler's warm-up, discarded
                waited = waited1 - waited0 if waited0 is not None and waited1 is not None else None
                taken.append(CallRecord(wall_s=wall, waited_s=waited))
            # On CPU the schedule steps once, out of the warm-up: the recording calls then run back to back, as
            # the timed ones do, the calls' ranges telling them apart.  A step between them (Kineto's
            # bookkeeping, stderr redirected around it) left each call's first ops colder: a
            # TransformerEncoderLayer's fused op read 183-246 µs stepped after each call, 169-184 µs stepped
            # once, on a 2-core machine other processes kept busy.
            if step == 0 or device_type == "cuda":
                with _native_stderr_silenced():  # the schedule starts and stops Kineto inside step()
                    prof.step()
    finally:
        try:
            with _native_stderr_silenced():
                prof.stop()
        finally:
            _restore_profile_hook(previous_profile)
            if waits is not None:
                waits.close()
    if records is not None:
        records.extend(taken)
    fd, path = tempfile.mkstemp(prefix="compile_profile_trace_", suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        return chrome_trace.load(path, keep_python=python_event_needed if with_stack else (lambda name: False))
    finally:
        os.unlink(path)


@contextlib.contextmanager
def profiler_session(prof: Any) -> Iterator[None]:
    """``prof`` (a ``torch.profiler.profile``) started before the block and stopped after it, on error too, as
    ``record_trace`` runs its session: Kineto's start and stop lines silenced, the thread's profile function (a
    user's cProfile) off meanwhile and put back."""
    previous_profile = sys.getprofile()
    _suspend_profile_hook(previous_profile)
    try:
        with _native_stderr_silenced():
            prof.start()
        try:
            yield
        finally:
            with _native_stderr_silenced():
                prof.stop()
    finally:
        _restore_profile_hook(previous_profile)


def _suspend_profile_hook(previous: Any) -> None:
    """Take the thread's profile function off for a profiler session (``_restore_profile_hook`` puts it back)."""
    if previous is None or callable(previous):
        sys.setprofile(None)
    elif callable(getattr(previous, "disable", None)):
        previous.disable()  # a cProfile.Profile: it keeps what it has counted until enable()


def _restore_profile_hook(previous: Any) -> None:
    """Put back the thread's profile function as it was before a profiler session."""
    if previous is None or callable(previous):
        sys.setprofile(previous)
    elif callable(getattr(previous, "enable", None)):
        # cProfile (IPython's %prun) installs itself in C; sys.getprofile() gives its Profile object,
        # which re-installs itself, keeping what it has counted and its flags
        previous.enable()


@contextlib.contextmanager
def profiler_passes(device_type: str) -> Iterator[None]:
    """Around all of a profile's passes (eager and every compiled variant): CUPTI is torn down once,
    after the last pass, and the first pass is preceded by an empty profiler session.

    After a teardown the next profiler session re-initialises CUPTI lazily and, on torch 2.11 (cu130,
    H200), records no device event at all: passes alternated between 6 kernels and none, with or
    without the Python tracer; the session after that one works.  So passes inside one profile do
    not tear down between them, and an empty session absorbs the previous profile's teardown (it
    costs a profiler start and stop, no call of the cell)."""
    if device_type != "cuda":
        yield
        return
    _empty_session()
    try:
        yield
    finally:
        with _cupti_torn_down_afterwards(device_type):
            _empty_session()


def _empty_session() -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile

    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with _native_stderr_silenced():
        prof.start()
        torch.cuda.synchronize()
        prof.stop()


def _cuda_version() -> tuple[int, ...]:
    """The CUDA torch was built with, ``(12, 6)``; ``(0, 0)`` for a CPU build or a version it cannot read."""
    import torch

    try:
        return tuple(int(x) for x in (torch.version.cuda or "0.0").split(".")[:2])
    except ValueError:
        return (0, 0)


@contextlib.contextmanager
def _cupti_torn_down_afterwards(device_type: str) -> Iterator[None]:
    """Left subscribed after profiling, CUPTI slows every later launch by 10-20 % (pytorch#144455;
    measured here on an H200: host-heavy cells 15-45 % slower for the rest of the process).  Kineto
    tears it down at the profiler's stop when TEARDOWN_CUPTI=1; torch itself sets 0 where CUDA
    graphs crash on re-init (CUDA < 12.6), and an explicit choice is kept.  The variable is set
    for the last session of a profile only (``profiler_passes``)."""
    if device_type != "cuda" or "TEARDOWN_CUPTI" in os.environ or _cuda_version() < (12, 6):
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


# -- combining the calls and writing the results into the run ---------------------------------------


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


def chosen_call_traces(
    trace: ChromeTrace, records: list[CallRecord], range_name: str, method: str
) -> tuple[list[ChromeTrace] | None, PassCalls]:
    """The trace of each call a pass's figures come from (``profiled_calls.chosen``), and what its calls
    were.  None for the traces where the trace's ``range_name`` ranges do not match the records one for
    one (then the whole trace stands for every call)."""
    traces = chrome_trace.split_calls(trace, range_name)
    if not records or len(traces) != len(records):
        return None, pass_calls(records, list(range(len(records))))
    used = chosen(records, method)
    busy = [busy_us(traces[i].device) for i in used] if method == "cupti" else None
    return [traces[i] for i in used], pass_calls(records, used, busy)


def measure_variant(
    run: ProfileRun,
    name: str,
    call: Callable[[], Any],
    before_each: Callable[[], None],
    *,
    code: CodeType | None = None,
    line_offset: int = 0,
) -> VariantKernelTimes:
    """Profile one compiled variant once more and fill its kernels' times and ``kernel_profile``: each call
    attributed alone, the figures the median over the calls not preempted (``combine``); ``code`` (the
    profiled function's, whose cell lines ``line_offset`` maps as eager's) has its lines marked."""

    variant = run.variant(name)
    calls = calls_for(variant.timing.median_ms if variant.timing else None)

    def marked_call() -> Any:  # on CPU the ops it runs outside compiled graphs are counted within this range
        with profiler_range(CALL_RANGE), marking_lines(code, line_offset):
            return call()

    method = "cupti" if run.device.type == "cuda" else "host"
    # on CPU, the profiler's cost per op event, as this pass records them (shapes, the Python tracer), measured
    # before the pass as eager's is (``eager_profile.measure_eager``)
    cost = profiler_cost.event_cost_us(record_shapes=True, with_stack=True) if method == "host" else None
    records: list[CallRecord] = []
    trace = record_trace(marked_call, before_each, calls=calls, device_type=run.device.type, records=records)
    kernels = [k for k in run.kernels if k.variant == name]
    call_traces, pass_info = chosen_call_traces(trace, records, CALL_RANGE, method)
    device_type, event_cost = run.device.type, cost or 0.0
    if call_traces:
        index = KernelIndex(kernels)  # each output-code module is read once for all the calls
        result = combine(
            [
                attribute(
                    t, kernels, variant=name, calls=1, device_type=device_type, index=index, event_cost_us=event_cost
                )
                for t in call_traces
            ]
        )
    else:
        result = attribute(
            trace, kernels, variant=name, calls=len(records) or calls, device_type=device_type, event_cost_us=event_cost
        )
    result.event_cost_us = cost
    if (
        run.device.type == "cuda"
        and variant.mode in CUDA_GRAPH_MODES
        and result.total_us > 0
        and result.in_cuda_graphs_us == 0
    ):
        result.notes.append(Note("no_cuda_graph", variant=name, values={"skips": list(variant.cudagraph_skips)}))
    apply(result, run, pass_info)
    return result
