"""Host contention as a cause: torch's threads against the cores other processes left free, what it cost the
compiled call, measured, and the fix that applies (issue 31).

Facts read: ``run.host_load`` (other processes' busy cores while timing, the cores, torch's threads; its
``free_cores``), ``run.threads_trial`` (the eager call timed again at ``free_cores`` threads right after the
timed rounds: ``engine.timing.threads_trial``) and each timed sample's wait for a CPU (``Timing.waited_ms``).  Two
cases, each with its effect measured:

* **more threads than free cores** (``threads > free_cores``, the cell's own threads counted as well as other
  processes): the effect is the trial's, eager's timed median at the cell's thread count less its median at
  ``free_cores`` (a compiled call is not timed at another count: Dynamo would recompile for it); the fix is ``torch.set_num_threads(free_cores)``.  Named only where the trial measured it faster
  by ``MATERIAL`` of the call: fewer threads that measured no faster are never advised.
* **other processes took the CPU from threads that fit** (``threads <= free_cores`` while others kept
  ``CONTENDED_CORES`` or more busy): the effect is the compiled median less the median of its samples whose
  threads did not wait for a CPU (waited under ``PREEMPTED_SHARE`` of the sample, as a profiled call is judged
  preempted), where ``MIN_CLEAN`` or more did not, or eager's where only eager's moved (the speedup is then
  what it misreads); the fix is a re-run on an idle machine, and fewer threads is not said (torch already runs
  no more than the free cores).

Why these measures: on this project's 2-core machine a 32x128 MLP at 8 threads beside two spinning processes
had no sample free of waiting (eager 519 µs, compiled 751 µs a call, their threads' summed wait 1,084 µs and
1,440 µs: threads that wait at once), so no clean median exists and the summed wait overstates the loss 2.3x;
the trial measured eager at 53.5 µs at 1 thread.  At 1 thread beside the same two processes most samples did
not wait: compiled's median 76.2 µs against 66.3 µs over its samples that did not (eager 41.6 against 41.4 µs).

Where contention set the speedup itself the verdict says so first (``speedup_unsettled``, ``outcome``'s busy_cpu
rung) and the speedup is not meaningful: hand-written attention at L=128 with torch at 2 threads beside a process
holding one of the 2 cores read 4.03x faster (31.8 -> 7.9 ms) while eager took 494 µs at 1 thread; idle, compiled
is 1.09x slower.

The diagnosis ranks the cause first where it is measured (every other per-call figure was taken on calls
contention slowed: that MLP's "Python, guards and dispatch outside kernels: 95.8 ms (100 %)"); the timing
warning's advice (``noise.noise_text``) is this module's fix, so neither says what is already done.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun, Timing
from ..stats import median
from .format import format_ms, ratio_phrase

CONTENDED_CORES = 0.5  # other processes' busy cores below which a shared machine did not compete (a shell)
MATERIAL = 0.1  # an effect under this share of the call is within what two medians on a busy machine differ by
PREEMPTED_SHARE = (
    0.05  # a sample whose threads waited beyond this share of it was preempted (engine.kernels.profiled_calls)
)
MIN_CLEAN = 3  # samples that did not wait, for their median to stand for the call on an idle machine
IDLE = "re-run on an idle machine"


@dataclass(frozen=True)
class Contention:
    """What contention for the host's CPUs cost a call, measured, and what to do."""

    threads: int  # torch's intra-op threads while timing
    cores: int
    others: float  # other processes' busy cores while timing
    free: int  # the cores they left free (``HostLoad.free_cores``)
    effect_ms: float  # per call of ``measured_on``
    call_ms: float  # that call, the effect part of it
    measured_on: str  # "eager" (the trial's) or the compiled variant whose samples waited
    title: str
    action: str
    oversubscribed: bool = False  # the trial's case: more threads than free cores (else samples that waited)

    @property
    def cost_text(self) -> str:
        """``266 µs a call (83% of eager's call)``."""
        share = f" ({self.effect_ms / self.call_ms:.0%} of {self.measured_on}'s call)" if self.call_ms > 0 else ""
        return f"{format_ms(self.effect_ms)} a call{share}"


def _threads(n: int) -> str:
    return f"{n} thread{'s' if n != 1 else ''}"


def fewer_threads_fix(run: ProfileRun) -> str:
    """``torch.set_num_threads(N)`` where torch ran more threads than the free cores; "" otherwise."""
    load = run.host_load
    if load is None or run.device.type != "cpu" or load.threads <= load.free_cores:
        return ""
    return f"torch.set_num_threads({load.free_cores})"


def advice(run: ProfileRun) -> str:
    """What to do about a busy host, as every view says it: re-run, and fewer threads only where it applies."""
    fix = fewer_threads_fix(run)
    return f"{IDLE}, or give torch fewer threads: {fix}" if fix else IDLE


def _busy(run: ProfileRun) -> str:
    load = run.host_load
    assert load is not None
    return f"other processes kept {load.other_processes_cores:.1f} of the {load.cores} cores busy"


def _from_trial(run: ProfileRun) -> Contention | None:
    load, trial = run.host_load, run.threads_trial
    timing = run.eager.timing if run.eager is not None else None
    if load is None or trial is None or timing is None or timing.median_ms <= 0:
        return None
    effect = timing.median_ms - trial.eager_ms
    if effect < MATERIAL * timing.median_ms:
        return None
    free = trial.threads
    return Contention(
        threads=trial.user_threads,
        cores=load.cores,
        others=load.other_processes_cores,
        free=free,
        effect_ms=effect,
        call_ms=timing.median_ms,
        measured_on="eager",
        title=(
            f"torch runs {_threads(trial.user_threads)} on {free} free core{'s' if free != 1 else ''} "
            f"({_busy(run)} while timing): eager took {format_ms(trial.eager_ms)} at {_threads(free)}, "
            f"{format_ms(timing.median_ms)} at {trial.user_threads}"
        ),
        action=(
            f"torch.set_num_threads({free}) before the cell (a suite's entry: in its builder, or "
            f"OMP_NUM_THREADS={free} in the suite's environment), then profile again (compiled code compiles for the "
            "thread count it runs at, so it was not timed at another)"
        ),
        oversubscribed=True,
    )


def clean_median_ms(timing: Timing) -> float | None:
    """The median of the samples whose threads did not wait for a CPU, where ``MIN_CLEAN`` or more did not."""
    if len(timing.waited_ms) != len(timing.samples_ms):
        return None
    clean = [s for s, w in zip(timing.samples_ms, timing.waited_ms) if w <= PREEMPTED_SHARE * s]
    return median(clean) if len(clean) >= MIN_CLEAN else None


def _waited(run: ProfileRun, name: str) -> tuple[float, float, int, int] | None:
    """A variant's median, the median of its samples that did not wait for a CPU, how many waited and of how many,
    where that differs by ``MATERIAL`` of the median."""
    v = next((v for v in run.variants if v.name == name), None)
    timing = v.timing if v is not None else None
    clean = clean_median_ms(timing) if timing is not None else None
    if timing is None or clean is None or timing.median_ms - clean < MATERIAL * timing.median_ms:
        return None
    waited = sum(1 for s, w in zip(timing.samples_ms, timing.waited_ms) if w > PREEMPTED_SHARE * s)
    return timing.median_ms, clean, waited, len(timing.samples_ms)


def _from_waits(run: ProfileRun) -> Contention | None:
    load, best = run.host_load, run.speedup_variant
    if load is None or best is None or load.other_processes_cores < CONTENDED_CORES:
        return None
    if load.threads > load.free_cores:
        return None  # more threads than free cores: the trial's case
    # the compiled call's cost, or eager's where only eager's samples were slowed: the speedup's other side (a
    # small Llama at 1 thread beside 1.6 busy cores: eager's median 5.29 ms, 1.37 ms over its samples that did not
    # wait; compiled 711 µs, 628 µs; the headline read 7.44x)
    compiled, eager = _waited(run, best.name), _waited(run, "eager")
    measured = compiled if compiled is not None else eager
    if measured is None:
        return None
    median_ms, clean, waited, n = measured
    name = ("compiled" if len(run.compiled_variants) <= 1 else best.name) if compiled is not None else "eager"
    beside = ""
    if compiled is not None and eager is not None:
        beside = f"; eager {format_ms(eager[0])}, {format_ms(eager[1])}"
    # fewer threads is already done: torch runs no more than the free cores (one thread, say)
    already = f"torch already runs {_threads(load.threads)}, no more than the free cores"
    return Contention(
        threads=load.threads,
        cores=load.cores,
        others=load.other_processes_cores,
        free=load.free_cores,
        effect_ms=median_ms - clean,
        call_ms=median_ms,
        measured_on=name,
        title=(
            f"{_busy(run)} while timing: {waited} of {n} {name} samples waited for a CPU "
            f"(median {format_ms(median_ms)}, {format_ms(clean)} over those that did not{beside})"
        ),
        action=f"{IDLE} ({already})",
    )


def _quiet_and_timed(run: ProfileRun) -> tuple[float, float] | None:
    """``(quiet, timed)``: eager's median over compiled's, over the samples whose threads did not wait for a CPU
    (``quiet_speedup``) and over all of them; None where a side is missing or too few of its samples did not wait."""
    best, eager = run.speedup_variant, run.eager
    if best is None or eager is None:
        return None
    medians: list[float] = []
    timed: list[float] = []
    for timing in (eager.timing, best.timing):
        if timing is None or timing.median_ms <= 0:
            return None
        clean = clean_median_ms(timing)
        if clean is None and any(w > PREEMPTED_SHARE * s for s, w in zip(timing.samples_ms, timing.waited_ms)):
            return None
        medians.append(
            clean if clean is not None and timing.median_ms - clean >= MATERIAL * timing.median_ms else timing.median_ms
        )
        timed.append(timing.median_ms)
    return (medians[0] / medians[1], timed[0] / timed[1]) if medians[1] > 0 else None


def quiet_speedup(run: ProfileRun) -> float | None:
    """Eager's median over compiled's, each over its samples whose threads did not wait for a CPU
    (``clean_median_ms``), or over all its samples where their waits moved its median by under ``MATERIAL``; None
    where a side that waited has too few samples that did not."""
    both = _quiet_and_timed(run)
    return both[0] if both is not None else None


def speedup_unsettled(run: ProfileRun) -> str | None:
    """Why contention leaves the speedup unread, in the verdict's words; None where it does not (``outcome``'s
    ``busy_cpu`` rung).  With more threads than free cores, always where ``contention`` found the effect material:
    eager's call at the free cores' count is known (the trial), compiled's is not, so the speedup compares two
    calls slowed by threads that did not fit.  With threads that fit, where the speedup over the samples that did
    not wait (``quiet_speedup``) differs from the measured one by ``MATERIAL`` or more, or cannot be had: a small
    Llama at 1 thread beside 1.6 busy cores read 7.44x, 2.18x over those samples (5.29 -> 1.37 ms eager, 711 ->
    628 µs compiled)."""
    c, s = contention(run), run.speedup
    if c is None or s is None:
        return None
    if c.oversubscribed:  # the diagnosis' first cause gives the fix's why; the verdict names it
        return f"busy CPU: {c.title}; profile again after torch.set_num_threads({c.free})"
    both = _quiet_and_timed(run)
    quiet = both[0] if both is not None else None
    # against the same samples' own medians, not ``run.speedup`` (an input sequence's is the sequence's)
    if both is not None and abs(both[0] / both[1] - 1) < MATERIAL:
        return None
    over = f"; over the samples that did not wait compiled is {ratio_phrase(quiet)}" if quiet is not None else ""
    return f"busy CPU: {c.title}{over}; {IDLE}"


def contention(run: ProfileRun) -> Contention | None:
    """What contention cost the compiled call, measured (the module docstring's two cases); None where it was
    not measured or not material."""
    if run.device.type != "cpu":
        return None
    return _from_trial(run) or _from_waits(run)
