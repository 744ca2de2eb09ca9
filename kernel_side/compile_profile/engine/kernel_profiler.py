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

import contextlib
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any

from ..profile_run import KernelProfile, ProfileRun, UnmatchedKernel
from . import chrome_trace, distributed
from .chrome_trace import ChromeTrace
from .kernel_attribution import CALL_RANGE, VariantKernelTimes, attribute, python_event_needed
from .kernel_breakdown import compiled_breakdown
from .line_marks import line_times, marking_lines

# Profiled time per variant: few calls for slow cells, more for fast ones.  Attribution needs few;
# each call's trace (the Python tracer's above all) costs host time to export and parse.
PROFILE_TARGET_S = 0.03
MIN_CALLS, MAX_CALLS = 3, 10
MAX_UNMATCHED = 20

CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")


def profiled_call_ms(call_times: list[float]) -> float | None:
    """The median wall time of a profiled call in ms: against the timed median, what profiling cost a call."""
    return statistics.median(call_times) * 1e3 if call_times else None


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
    call_times: list[float] | None = None,
) -> ChromeTrace:
    """Run ``call`` under torch.profiler (one discarded warm-up step, then ``calls`` steps).

    ``with_stack=False`` leaves the Python tracer off and ``record_shapes=False`` the launch
    arguments' shapes unrecorded (the eager pass marks its lines itself and needs no shapes).
    ``call_times`` gets each profiled step's wall time in seconds (``profiled_call_ms``)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if device_type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    sync = torch.cuda.synchronize if device_type == "cuda" else (lambda: None)
    prof = profile(
        activities=activities,
        schedule=schedule(wait=0, warmup=1, active=calls, repeat=1),
        record_shapes=record_shapes,  # launch arguments' shapes: bytes moved and FLOPs
        with_stack=with_stack,  # the Python tracer names the output-code module and C++ binding calls
    )
    # The Python tracer (with_stack) takes the thread's profile function and stops with it unset: a
    # user's own sys.setprofile hook (cProfile's, a tracer's) was dropped for the rest of the session. It
    # is not called during the pass (the tracer holds the one slot) and is put back after it, on error too.
    previous_profile = sys.getprofile()
    with _native_stderr_silenced():
        prof.start()
    try:
        for step in range(calls + 1):
            before_each()
            t0 = time.perf_counter()
            call()
            sync()
            if step and call_times is not None:  # step 0 is the profiler's warm-up, discarded
                call_times.append(time.perf_counter() - t0)
            with _native_stderr_silenced():  # the schedule starts and stops Kineto inside step()
                prof.step()
    finally:
        try:
            with _native_stderr_silenced():
                prof.stop()
        finally:
            _restore_profile_hook(previous_profile)
    fd, path = tempfile.mkstemp(prefix="compile_profile_trace_", suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        return chrome_trace.load(path, keep_python=python_event_needed if with_stack else (lambda name: False))
    finally:
        os.unlink(path)


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


@contextlib.contextmanager
def _cupti_torn_down_afterwards(device_type: str) -> Iterator[None]:
    """Left subscribed after profiling, CUPTI slows every later launch by 10-20 % (pytorch#144455;
    measured here on an H200: host-heavy cells 15-45 % slower for the rest of the process).  Kineto
    tears it down at the profiler's stop when TEARDOWN_CUPTI=1; torch itself sets 0 where CUDA
    graphs crash on re-init (CUDA < 12.6), and an explicit choice is kept.  The variable is set
    for the last session of a profile only (``profiler_passes``)."""
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
    unmatched = [
        UnmatchedKernel(name=name, time_ms=us / 1e3 / calls, where=where)
        for (name, where), us in result.unmatched.most_common(MAX_UNMATCHED)
    ]
    profile = KernelProfile(
        calls=result.calls,
        total_ms=total_ms,
        attributed_ms=attributed_us / 1e3 / calls,
        method=result.method,  # type: ignore[arg-type]
        outside_graphs_ms=None if result.outside_graphs_us is None else result.outside_graphs_us / 1e3 / calls,
        in_cuda_graphs_ms=result.in_cuda_graphs_us / 1e3 / calls,
        unmatched=unmatched,
        note="; ".join(result.notes),
        breakdown=compiled_breakdown(result),
        eager_lines=line_times(result.line_us, result.line_ops, result.calls),
        profiled_call_ms=result.profiled_call_ms,
    )
    if result.method == "cupti" and result.outside_graphs_us is None:
        profile.outside_graphs_ms = 0.0
    run.variant(result.variant).kernel_profile = profile


def measure_variant(
    run: ProfileRun,
    name: str,
    call: Callable[[], Any],
    before_each: Callable[[], None],
    *,
    code: CodeType | None = None,
    line_offset: int = 0,
) -> VariantKernelTimes:
    """Profile one compiled variant once more and fill its kernels' times and ``kernel_profile``; ``code``
    (the profiled function's, whose cell lines ``line_offset`` maps as eager's) has its lines marked."""
    from torch.autograd.profiler import record_function

    variant = run.variant(name)
    calls = calls_for(variant.timing.median_ms if variant.timing else None)

    def marked_call() -> Any:  # on CPU the ops it runs outside compiled graphs are counted within this range
        with record_function(CALL_RANGE), marking_lines(code, line_offset):
            return call()

    call_times: list[float] = []
    trace = record_trace(marked_call, before_each, calls=calls, device_type=run.device.type, call_times=call_times)
    kernels = [k for k in run.kernels if k.variant == name]
    result = attribute(trace, kernels, variant=name, calls=calls, device_type=run.device.type)
    result.profiled_call_ms = profiled_call_ms(call_times)
    if (
        run.device.type == "cuda"
        and variant.mode in CUDA_GRAPH_MODES
        and result.total_us > 0
        and result.in_cuda_graphs_us == 0
    ):
        result.notes.append(
            "no kernel ran inside a CUDA graph: Inductor did not use CUDA graphs for this variant"
            + (f" ({'; '.join(variant.cudagraph_skips)})" if variant.cudagraph_skips else "")
        )
    apply(result, run)
    return result
