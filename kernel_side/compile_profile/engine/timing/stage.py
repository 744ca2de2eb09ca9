"""Stage 3 of a profile: the variants warmed up until their compiles settle, then timed in interleaved rounds
(``interleaved``) while other processes' CPU use is measured (``host_load``); where torch had more threads than
free cores, eager is timed again at fewer (``threads_trial``).

Input sequences are a parameter of the one timing, not a second one: with a sequence of inputs (``Target.feed``)
the stage first runs the sequence pass (``input_sequence``: each input in order, eager against compiled), then
times each input signature as one input is timed, on a share of ``--budget``, and records the sequence's speedup
weighted by calls; with one input the variants are timed once.  Either way a timing is the same steps: warm up,
choose the calls per sample once for all variants, take the interleaved rounds, each sample's wait for a CPU
beside it.  Compiles the calls cause are recompiles (``session.recompiles``).
"""

from __future__ import annotations

import time

import torch

from ...profile_run import Note, NoteValue
from ..common.device import device_sync
from ..common.torch_features import recompile_limit
from ..distributed import job as distributed
from ..distributed import lockstep
from ..session.recompiles import note_recompiles
from ..session.session import Session
from . import host_load, input_sequence, threads_trial
from .interleaved import (
    SETTLED_CALLS,
    Rounds,
    TimedCallable,
    TimingPlan,
    calls_per_sample_for,
    run_interleaved,
    timing_left_s,
    warm_up,
)
from .speedup import record_timings


def time_variants(session: Session) -> None:
    """Warm up and time every variant (on each input signature of a sequence), and record their timings."""
    run, feed = session.run, session.target.feed
    sequence = input_sequence.sequence_pass(session, feed) if feed is not None else None
    device_type = run.device.type
    calls = [("eager", session.calls.eager), *session.compiled.items()]
    if sequence is None:
        timings = [Rounds([TimedCallable(name, call, session.before(name)) for name, call in calls])]
    else:
        assert feed is not None
        timings = input_sequence.signature_rounds(session, feed, sequence, calls)
    budget = session.opts.budget / len(timings)  # shared evenly among a sequence's signatures
    plan = TimingPlan(
        warmup=session.opts.warmup, repeat=session.opts.repeat, min_samples=session.opts.min_samples, budget_s=budget
    )
    session.recorder.take()
    load = host_load.measure(threads=torch.get_num_threads() if device_type == "cpu" else 1)
    # each CPU sample's wait for a CPU: how much of a sample other processes (or torch's own surplus threads) took
    waits = host_load.ThreadWaits() if device_type == "cpu" else None
    timed: list[list[TimedCallable]] = []  # of each timing that ran to its end
    number = 1
    try:
        for i, rounds in enumerate(timings):
            if sequence is not None:
                sequence.signatures[i].budget_s = budget
            number = _time(session, rounds, plan, waits, one_input=sequence is None)
            timed.append(rounds.timed)
        if sequence is None:
            lockstep.stage_done(session, "timing")
    finally:
        if waits is not None:
            waits.close()
        run.host_load = load()
        if sequence is None:
            record_timings(session, timings[0].timed, device_type)
        else:
            input_sequence.record(session, sequence, timed, device_type)
        note_recompiles(session, session.recorder.take(), during_timing=True)
    if sequence is not None:
        assert feed is not None
        feed.select(sequence.representative)  # the later stages run on the representative input
        lockstep.stage_done(session, "timing")
        return
    fewer = threads_trial.wanted(run.host_load, device_type, run.distributed is not None)
    if fewer is not None:
        session.progress(f"timing eager again at {fewer} torch thread{'s' if fewer != 1 else ''}")
        with session.clock("threads trial"):
            run.threads_trial = threads_trial.try_fewer_threads(timings[0].timed[0], fewer, number)


def _time(
    session: Session, rounds: Rounds, plan: TimingPlan, waits: host_load.ThreadWaits | None, *, one_input: bool
) -> int:
    """One timing: warm-up, then the interleaved rounds at one number of calls per sample (returned)."""
    device_type, timed, what = session.run.device.type, rounds.timed, rounds.what
    session.current = "warm-up"
    session.progress(f"warming up on {what}" if what else "warming up")
    settled = warm_up_variants(session, timed, plan, device_type)
    if one_input:
        for name, extra in settled.items():
            if extra:
                values: dict[str, NoteValue] = {"extra_calls": extra, "settled_calls": SETTLED_CALLS}
                session.run.notes.append(Note("warmup_kept_compiling", variant=name, values=values))
        lockstep.stage_done(session, "warm-up")
    rounds.warmed()
    session.current = "timing"
    number = distributed.shared(calls_per_sample_for(min(v.fastest_s for v in timed), device_type))
    subject = what or f"{len(timed)} variants"
    session.progress(f"timing {subject}, {number} call(s) per sample")
    last_report = [time.perf_counter()]
    rounds_started = time.perf_counter()

    def on_round(i: int) -> None:
        now = time.perf_counter()
        if now - last_report[0] > 0.5:
            last_report[0] = now
            left = timing_left_s(i, now - rounds_started, plan)
            # only a second or more is worth saying, and only of the rounds, the one part whose end is known
            said = f", about {left:.0f} s left in timing" if left is not None and left >= 1.0 else ""
            session.progress(f"timing: round {i}{said}")

    run_interleaved(
        timed,
        plan,
        device_type=device_type,
        calls_per_sample=number,
        on_round=on_round,
        decide=distributed.shared,
        waits=waits.waited_s if waits is not None and waits.available else None,
        faults=host_load.minor_faults if device_type == "cpu" else None,
    )
    return number


def dynamo_frames() -> int:
    """How many frames Dynamo has set out to compile in this process (``counters["frames"]["total"]``: each cache
    miss, a graph or none)."""
    from torch._dynamo.utils import counters

    return int(counters["frames"]["total"])


def warm_up_variants(
    session: Session, timed: list[TimedCallable], plan: TimingPlan, device_type: str
) -> dict[str, int]:
    """``interleaved.warm_up`` of the session's variants until their compiles settle (a frame recompiling on each
    call stops at the limit; calls without a compile come between), any rank's compile deciding for all; the
    recompiles it saw noted.  Returns each variant's calls beyond the warm-up asked for."""
    backends = session.backends
    with session.clock("warm-up"):  # the rest of the stage is "timing"'s
        settled = warm_up(
            timed,
            plan,
            device_sync(device_type),
            # Dynamo's compiles of a frame, not only the graphs they gave the backend: a frame after a graph break
            # that holds no graph (a training step's `losses.append(loss.item())`, its list longer each call)
            # recompiles on every call until the limit and gives the backend nothing, so warm-up read it settled
            # and six of its eight recompiles landed in the timed samples (1.17× slower against plain's 0.99×)
            compiles=lambda name: len(backends[name].graphs) + dynamo_frames() if name in backends else 0,
            settling_calls=(recompile_limit() + 1) * SETTLED_CALLS,
            decide=lambda more: bool(distributed.ranks_where_false(not more)),  # any rank compiled
        )
    note_recompiles(session, session.recorder.take(), during_timing=False)
    return settled
