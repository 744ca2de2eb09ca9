"""The one torch.profiler (Kineto) pass a profile makes of each variant, eager's and every compiled one's, after
the timed runs so the timed samples stay clean: ``measure_variant`` runs the variant a few more times
(``calls_for``) under ``torch.profiler`` (``record_trace``), each call inside its rule's range with its cell lines
marked (``line_marks``), chooses the calls its figures come from (``profiled_calls``: on CPU those a busy machine
did not preempt), and hands each call's trace to the variant's attribution rule (``AttributionRule``), which
attributes, combines and writes the figures into the run: eager's (``eager_times``) or a compiled variant's
(``compiled_times``, through ``attribution`` and ``index``).  On CPU the profiler's own cost per op event is
calibrated before each pass and taken out (``profiler_cost``).

It neither classifies time (``breakdown``, ``common.op_kinds``) nor computes roofline figures (``roofline``);
``profiler_passes`` wraps all of a profile's passes (CUPTI set up once and torn down after the last).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any, Protocol, TypeVar

from ...profile_run import ProfiledEvent, ProfileRun
from ..distributed import job as distributed
from ..timing import host_load
from . import chrome_trace, profiler_cost
from .attribution import python_event_needed
from .chrome_trace import ChromeTrace
from .line_marks import marking_lines, profiler_range
from .profiled_calls import (
    WANTED_CLEAN_CALLS,
    CallRecord,
    PassCalls,
    busy_us,
    chosen,
    clean_calls,
    pass_calls,
    settled,
)
from .profiler_session import native_stderr_silenced, restore_profile_hook, suspend_profile_hook

# Profiled time per variant: few calls for slow cells, more for fast ones.  Attribution needs few;
# each call's trace (the Python tracer's above all) costs host time to export and parse.
PROFILE_TARGET_S = 0.03
MIN_CALLS, MAX_CALLS = 3, 10
# CPU: the recorded time a pass lets the profiler settle before the calls its figures come from
# (``profiled_calls.CallRecord.settling``), in the timed call's terms, at most ``MAX_SETTLING`` calls.  A call
# this long or longer settles none: the first call's few hundred µs are its own, and its median of three or
# more sets it aside.  The 32x128 MLP (51.7 µs timed, ~150-250 µs profiled) settled after 6 calls.
SETTLE_MS = 2.0
MAX_SETTLING = 10


def calls_for(median_ms: float | None) -> int:
    """The profiled calls for a variant whose timed median is ``median_ms``; in a distributed job
    rank 0's count, so every rank makes the same calls (``distributed.job``)."""
    if not median_ms or not math.isfinite(median_ms) or median_ms <= 0:
        calls = MIN_CALLS
    else:
        calls = int(min(MAX_CALLS, max(MIN_CALLS, round(PROFILE_TARGET_S * 1e3 / median_ms))))
    return distributed.shared(calls)


def settling_for(median_ms: float | None, device_type: str) -> int:
    """The calls a pass records before those its figures come from, while the profiler settles: on CPU
    ``SETTLE_MS`` of the timed median's calls, at most ``MAX_SETTLING``; none on a GPU, whose device times
    the host's profiler does not stretch, or for a call ``SETTLE_MS`` or longer (in a distributed job rank 0's
    count)."""
    if device_type == "cuda" or not median_ms or not math.isfinite(median_ms) or median_ms >= SETTLE_MS:
        return distributed.shared(0)
    return distributed.shared(min(MAX_SETTLING, math.ceil(SETTLE_MS / median_ms)))


def record_trace(
    call: Callable[[], Any],
    before_each: Callable[[], None],
    *,
    calls: int,
    device_type: str,
    settling: int = 0,
    with_stack: bool = True,
    record_shapes: bool = True,
    records: list[CallRecord] | None = None,
) -> ChromeTrace:
    """Run ``call`` under torch.profiler (one discarded warm-up call, then ``settling`` calls recorded while the
    profiler settles, then ``calls`` recorded calls; a step each on a GPU, one step for all of them on CPU).

    ``with_stack=False`` leaves the Python tracer off and ``record_shapes=False`` the launch
    arguments' shapes unrecorded (the eager pass marks its lines itself and needs no shapes).
    ``records`` gets a ``CallRecord`` per recorded step, in order (the settling ones marked ``settling``): its wall
    time and, on CPU, how long this process's threads waited for a CPU meanwhile.  On CPU, while fewer than
    ``profiled_calls.WANTED_CLEAN_CALLS`` of them were not preempted, up to ``calls`` more steps run: a
    busy machine costs the pass more calls, an idle one none (in a distributed job, rank 0's calls decide)."""
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if device_type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    sync = torch.cuda.synchronize if device_type == "cuda" else (lambda: None)
    waits = host_load.ThreadWaits() if device_type != "cuda" else None
    # in a job every rank makes the same calls (``distributed.job``): rank 0's count, and rank 0's choice to go on
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
    suspend_profile_hook(previous_profile)
    try:
        with native_stderr_silenced():
            prof.start()
    except BaseException:
        restore_profile_hook(previous_profile)
        raise
    try:
        for step in range(most + settling + 1):
            if step > settling + calls and not distributed.shared(clean_calls(taken) < wanted):
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
                taken.append(CallRecord(wall_s=wall, waited_s=waited, settling=step <= settling))
            # On CPU the schedule steps once, out of the warm-up: the recording calls then run back to back, as
            # the timed ones do, the calls' ranges telling them apart.  A step between them (Kineto's
            # bookkeeping, stderr redirected around it) left each call's first ops colder: a
            # TransformerEncoderLayer's fused op read 183-246 µs stepped after each call, 169-184 µs stepped
            # once, on a 2-core machine other processes kept busy.
            if step == 0 or device_type == "cuda":
                with native_stderr_silenced():  # the schedule starts and stops Kineto inside step()
                    prof.step()
    finally:
        try:
            with native_stderr_silenced():
                prof.stop()
        finally:
            restore_profile_hook(previous_profile)
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
    with native_stderr_silenced():
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


def chosen_call_traces(
    trace: ChromeTrace, records: list[CallRecord], range_name: str, method: str
) -> tuple[list[ChromeTrace] | None, PassCalls]:
    """The trace of each call a pass's figures come from (``profiled_calls.chosen``, of the calls recorded after
    the profiler settled), and what those calls were.  None for the traces where the trace's ``range_name`` ranges
    do not match the records one for one (then the whole trace stands for every call)."""
    traces = chrome_trace.split_calls(trace, range_name)
    profiled = settled(records)
    if not records or len(traces) != len(records):
        kept = [records[i] for i in profiled]
        return None, pass_calls(kept, list(range(len(kept))))
    traces, records = [traces[i] for i in profiled], [records[i] for i in profiled]
    used = chosen(records, method)
    busy = [busy_us(traces[i].device) for i in used] if method == "cupti" else None
    return [traces[i] for i in used], pass_calls(records, used, busy)


class Attributed(Protocol):
    """What a rule's attribution gives: figures summed over its calls, with the profiler's calibrated cost."""

    event_cost_us: float | None


T = TypeVar("T", bound=Attributed)


class AttributionRule(Protocol[T]):
    """How one variant's profiled calls become its figures: eager's (``eager_times.EagerRule``: every op of the
    call, on its cell line) or a compiled variant's (``compiled_times.CompiledRule``: each event tied to a kernel
    of its output code).  The pass itself, the same for both, is ``measure_variant``."""

    @property
    def call_range(self) -> str:
        """The profiler range each profiled call runs inside."""
        ...

    @property
    def bare_on_device(self) -> bool:
        """Recorded without shapes and the Python tracer on a GPU."""
        ...

    def attribute(self, trace: ChromeTrace, *, calls: int, device_type: str, event_cost_us: float) -> T: ...

    def combine(self, per_call: list[T]) -> T: ...

    def apply(self, times: T, run: ProfileRun, calls: PassCalls) -> None: ...

    def events(self, trace: ChromeTrace) -> list[ProfiledEvent]:
        """One profiled call's kernel events, kept on its ``KernelProfile`` for the Perfetto export."""
        ...


def measure_variant(
    run: ProfileRun,
    name: str,
    call: Callable[[], Any],
    before_each: Callable[[], None],
    *,
    rule: AttributionRule[T],
    code: CodeType | None = None,
    line_offset: int = 0,
) -> T:
    """Profile variant ``name`` once more, after its timed samples, and write its figures into ``run`` by ``rule``:
    ``calls_for`` its timed median calls, each inside ``rule.call_range`` with the lines of ``code`` marked
    (``line_offset`` maps them to cell lines), each attributed alone and combined into one call's figures (the
    median over the calls not preempted, ``profiled_calls``), or the whole trace where its calls cannot be told
    apart.  On CPU each op's host time has the profiler's own cost taken out, calibrated before the pass
    (``profiler_cost``), the variants recorded alike (shapes, the Python tracer) so the same op reads alike in
    each: with eager recorded bare, the same ops read slower compiled (a TransformerEncoderLayer's fused op 133 µs
    eager, 166-177 µs compiled, a 32x128 MLP's addmm 35.9 µs against 43.7 µs), causes made of the instrument;
    recorded alike, 146 against 137 µs and 40.3 against 43.1 µs.  Calibrated before the pass: its sessions also
    take the profiler's first start in the process (~1 s), after which a 32x128 MLP's eager ops read 1.17x its
    timed call when the pass itself was that first session, 0.77-0.84x in later profiles of the same process."""
    variant = run.variant(name)
    median_ms = variant.timing.median_ms if variant.timing else None
    calls = calls_for(median_ms)

    def marked_call() -> Any:  # on CPU the ops it runs outside compiled graphs are counted within this range
        with profiler_range(rule.call_range), marking_lines(code, line_offset):
            return call()

    method = "cupti" if run.device.type == "cuda" else "host"
    recorded_in_full = method == "host" or not rule.bare_on_device
    cost = profiler_cost.event_cost_us(record_shapes=True, with_stack=True) if method == "host" else None
    records: list[CallRecord] = []
    trace = record_trace(
        marked_call,
        before_each,
        calls=calls,
        device_type=run.device.type,
        settling=settling_for(median_ms, run.device.type),
        with_stack=recorded_in_full,
        record_shapes=recorded_in_full,
        records=records,
    )
    call_traces, calls_made = chosen_call_traces(trace, records, rule.call_range, method)
    device_type, event_cost = run.device.type, cost or 0.0
    if call_traces:
        times = rule.combine(
            [rule.attribute(t, calls=1, device_type=device_type, event_cost_us=event_cost) for t in call_traces]
        )
    else:
        times = rule.attribute(trace, calls=len(records) or calls, device_type=device_type, event_cost_us=event_cost)
    times.event_cost_us = cost
    rule.apply(times, run, calls_made)
    profile = run.variant(name).kernel_profile
    if profile is not None:
        profile.events = rule.events(call_traces[0] if call_traces else trace)
    return times
