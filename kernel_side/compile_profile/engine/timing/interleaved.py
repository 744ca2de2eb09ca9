"""Steady-state timing of several callables, interleaved so drift hits them all.

Each sample synchronises the device at both ends; on CUDA the sample is the
elapsed time between two CUDA events recorded around the calls (the host
clock is kept too).  The number of calls per sample is chosen once, from the
fastest variant's warm-up time, and shared by all variants so that their
per-call times carry the same per-sample overhead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ... import stats
from ...profile_run import Timing
from ..common.device import device_sync

MIN_SAMPLE_S = 1e-3  # below this, perf_counter and sync overhead would dominate a sample
# On CUDA each sample starts on an idle device, so its first kernel waits for the host's launch
# latency (tens of µs for a compiled call); 10 ms samples make that a few tenths of a percent.
# Measured on an H200 with 1 ms samples: medians 4-15 % above a bare back-to-back loop.
MIN_SAMPLE_S_CUDA = 10e-3
# On CUDA one untimed call precedes each sample's start event, so the device is already busy and
# the host ahead when timing starts, as in a back-to-back loop (a host-heavy training step measured
# 9 % slow with 4-call samples otherwise).  It is real work, counted in the cell's runs.
PRIMING_CALLS = {"cuda": 1}
# The longest a variant's warm-up goes on while its calls still compile (``warm_up``): 8 recompiles of
# a Llama optimizer step took 18 s on a 2-core CPU.
SETTLE_S = 60.0
# Calls in a row that compiled nothing before a warm-up that compiled counts as settled: inputs that
# cycle through shapes reach a size not yet compiled after one or two calls that found their entries.
SETTLED_CALLS = 3


@dataclass
class TimedCallable:
    name: str
    call: Callable[[], object]
    before: Callable[[], None] = lambda: None  # untimed preparation before each sample
    samples_s: list[float] = field(default_factory=list[float])
    host_samples_s: list[float] = field(default_factory=list[float])
    waited_s: list[float] = field(default_factory=list[float])  # per sample, per call (``run_interleaved``'s waits)
    faults: list[float] = field(default_factory=list[float])  # minor page faults per sample, per call (its faults)
    fastest_s: float = math.inf  # its fastest warm-up call (``warm_up``)


@dataclass
class Rounds:
    """One timing of several callables: warmed up, then sampled in interleaved rounds (``warm_up``,
    ``run_interleaved``).  ``what`` names it in the progress line ("" for a profile's one input); ``warmed`` runs
    between the warm-up and the rounds (an input signature's rounds start its inputs over)."""

    timed: list[TimedCallable]
    what: str = ""
    warmed: Callable[[], None] = lambda: None


@dataclass
class TimingPlan:
    warmup: int = 2
    repeat: int = 100  # most samples per variant
    min_samples: int = 5
    budget_s: float = 3.0  # wall time for the timed rounds


def warm_up(
    variants: list[TimedCallable],
    plan: TimingPlan,
    sync: Callable[[], None],
    *,
    compiles: Callable[[str], int] = lambda name: 0,
    settling_calls: int = 0,
    decide: Callable[[bool], bool] = lambda more: more,
) -> dict[str, int]:
    """Run each variant ``plan.warmup`` times, then, if one of them compiled (``compiles(name)`` grew),
    on until ``SETTLED_CALLS`` calls in a row compiled nothing, at most ``settling_calls`` more: a call
    that compiles is no steady state.  An LR scheduler
    changes a float the optimizer's frame is guarded on, so that frame recompiles on each call until
    Dynamo's recompile limit sends it to eager (a Llama training step: 7 more calls of 2-3 s each on
    CPU); samples taken meanwhile read 386x slower where the steady state is 1.57x faster.  The
    settling calls of one variant stop after ``SETTLE_S`` too; what still
    compiles then is flagged where it lands in the samples.

    Sets each variant's ``fastest_s`` (its fastest warm-up call that compiled nothing, else its
    fastest) and returns how many settling calls each one took.  ``decide`` turns this process's wish
    to go on into the decision followed (in a distributed job: go on while any rank compiled)."""
    settled: dict[str, int] = {}
    for v in variants:
        best, best_compiling = math.inf, math.inf
        calls = since_compile = 0
        compiled_any = False
        settle_start = math.inf
        while True:
            before = compiles(v.name)
            v.before()
            sync()
            t0 = time.perf_counter()
            v.call()
            sync()
            elapsed = time.perf_counter() - t0
            if compiles(v.name) > before:
                best_compiling = min(best_compiling, elapsed)
                compiled_any, since_compile = True, 0
            else:
                best = min(best, elapsed)
                since_compile += 1
            calls += 1
            extra = calls - max(1, plan.warmup)
            if extra == 0:
                settle_start = time.perf_counter()
            unsettled = compiled_any and since_compile < SETTLED_CALLS
            in_time = time.perf_counter() - settle_start < SETTLE_S
            if extra >= 0 and not decide(unsettled and extra < settling_calls and in_time):
                break
        v.fastest_s = best if math.isfinite(best) else best_compiling
        settled[v.name] = max(0, calls - max(1, plan.warmup))
    return settled


def run_interleaved(
    variants: list[TimedCallable],
    plan: TimingPlan,
    *,
    device_type: str,
    calls_per_sample: int,
    on_round: Callable[[int], None] | None = None,
    decide: Callable[[bool], bool] = lambda stop: stop,
    waits: Callable[[], float | None] | None = None,
    faults: Callable[[], int | None] | None = None,
) -> None:
    """Take samples round-robin, rotating the order each round, until each variant
    has ``plan.repeat`` samples or the budget is spent (but at least ``min_samples``).

    ``decide`` turns this process's wish to stop into the decision followed (in a distributed job,
    rank 0's, so every rank takes the same number of samples).  ``waits`` (``host_load.ThreadWaits.waited_s``),
    read just outside each sample's clock, gives each sample's wait for a CPU per call (``waited_s``); ``faults``
    (``host_load.minor_faults``), read there too, each sample's page faults per call."""
    sync = device_sync(device_type)
    events = None  # on CUDA, a start and an end event around each sample's calls
    if device_type == "cuda":
        import torch

        events = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
    deadline = time.perf_counter() + plan.budget_s
    round_index = 0
    while True:
        n = min(len(v.samples_s) for v in variants)
        if decide(n >= plan.repeat or (n >= plan.min_samples and time.perf_counter() >= deadline)):
            break
        shift = round_index % len(variants)
        for v in variants[shift:] + variants[:shift]:
            v.before()
            sync()
            if events is not None:
                v.call()  # priming: see PRIMING_CALLS
            waited0 = waits() if waits is not None else None
            faults0 = faults() if faults is not None else None
            t0 = time.perf_counter()
            if events is not None:
                events[0].record()
            for _ in range(calls_per_sample):
                v.call()
            if events is not None:
                events[1].record()
            sync()
            host = (time.perf_counter() - t0) / calls_per_sample
            waited1 = waits() if waits is not None else None
            if waited0 is not None and waited1 is not None:
                v.waited_s.append((waited1 - waited0) / calls_per_sample)
            faults1 = faults() if faults is not None else None
            if faults0 is not None and faults1 is not None:
                v.faults.append((faults1 - faults0) / calls_per_sample)
            v.host_samples_s.append(host)
            v.samples_s.append(
                events[0].elapsed_time(events[1]) / 1e3 / calls_per_sample if events is not None else host
            )
        round_index += 1
        if on_round:
            on_round(round_index)


def timing_left_s(rounds: int, elapsed_s: float, plan: TimingPlan) -> float | None:
    """About how many seconds the timed rounds have left after ``rounds`` rounds in ``elapsed_s``, as
    ``run_interleaved`` stops: at ``plan.repeat`` samples, or past the budget with ``plan.min_samples``; the
    rounds to come taken to last as long as the ones so far.  None before a round has ended."""
    if rounds <= 0 or elapsed_s <= 0:
        return None
    per_round = elapsed_s / rounds
    to_repeat = per_round * max(0, plan.repeat - rounds)
    to_budget = max(plan.budget_s - elapsed_s, per_round * max(0, plan.min_samples - rounds), 0.0)
    return min(to_repeat, to_budget)


def calls_per_sample_for(fastest_call_s: float, device_type: str = "cpu") -> int:
    if fastest_call_s <= 0 or not math.isfinite(fastest_call_s):
        return 1
    min_sample_s = MIN_SAMPLE_S_CUDA if device_type == "cuda" else MIN_SAMPLE_S
    return max(1, math.ceil(min_sample_s / fastest_call_s))


def summarize_samples(
    samples_s: list[float], *, method: str, waited_s: list[float] | None = None, faults: list[float] | None = None
) -> Timing:
    """``waited_s``: each sample's wait for a CPU per call, kept where there is one for every sample; ``faults``
    each sample's page faults per call, likewise."""
    ms = [float(x) * 1e3 for x in samples_s]
    waited = [float(x) * 1e3 for x in waited_s] if waited_s is not None and len(waited_s) == len(ms) else []
    faulted = [float(x) for x in faults] if faults is not None and len(faults) == len(ms) else []
    return Timing(
        median_ms=stats.median(ms),
        p10_ms=stats.percentile(ms, 10),
        p90_ms=stats.percentile(ms, 90),
        n=len(ms),
        mean_ms=sum(ms) / len(ms),
        min_ms=min(ms),
        samples_ms=ms,
        method=method,
        waited_ms=waited,
        faults=faulted,
    )


def fastest(timed: list[TimedCallable]) -> TimedCallable:
    """The variant with the lowest median sample, by the median the speedup and every view use (the
    mean of the middle two of an even count: picking by the upper one of them could name a variant whose
    median, and so whose speedup, was not the best)."""
    return min(timed, key=lambda t: stats.median(t.samples_s))
