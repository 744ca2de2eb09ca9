"""A profile over a sequence of inputs (``InputFeed``), the parts of the timing stage (``stage.time_variants``) that
one input has not: the sequence pass before the timing, each input signature's callables, and the record after it.

1. The sequence pass runs every input in the order given, as a loop over them would: eagerly, then under
   each compiled variant, both from the same state (what the code changes in place put back) and the same
   random seed, so their outputs are compared on the same input (``InputCall.matches``, judged by each
   dtype's tolerance).  The compiles a compiled call makes are recompiles caused by that input
   (``Recompile.input``) and its compile cost (``InputCall.compile_s``); the first input's compile is the
   variants' first call (``run.compile_stage``), made on it.
2. Each signature is timed as one input is (``stage._time``: warm-up, then eager and compiled interleaved),
   the k-th round on the signature's ``inputs[k % n]``, the same input for every variant of that round.  The
   budget (``--budget``) is shared evenly among the signatures (each has at least ``min_samples`` samples a
   variant and at most ``--repeat``), so a rare signature is measured as well as a common one; the speedup over
   the sequence weighs each signature by the calls it served (``stats.weighted_ratio_interval``: the
   sequence's eager time over its compiled time).
3. The variants' ``timing`` is their timing on the representative input's signature (the one most inputs
   share), on which the later stages (correctness, the kernel pass) run too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import stats
from ...profile_run import InputCall, InputSequence, InputSignature, Speedup, Timing
from ..cell.input_feed import InputFeed
from ..cell.optimizers import OptimizerViews
from ..common.device import device_sync
from ..correctness import compare as correctness_mod
from ..correctness.compare import draws_as_eager
from ..distributed import lockstep
from ..session.recompiles import note_recompiles
from ..session.session import Session
from .interleaved import Rounds, TimedCallable, summarize_samples
from .speedup import recommendation


def sequence_pass(session: Session, feed: InputFeed) -> InputSequence:
    """The run's ``InputSequence``, its calls run in order and compared (1. above)."""
    run = session.run
    sequence = InputSequence(
        count=len(feed),
        signatures=[
            InputSignature(parts=list(parts), inputs=feed.inputs_of(s)) for s, parts in enumerate(feed.signatures)
        ],
        calls=[InputCall(index=i, signature=feed.signature_of[i]) for i in range(len(feed))],
        representative=feed.representative(),
        name=feed.bound_name,
        source=feed.source,
    )
    run.inputs = sequence
    for r in run.recompiles:  # made by the first calls, on the first input
        r.input = 0
    for name in session.compiled:
        sequence.calls[0].compile_s[name] = run.variant(name).compile_s or 0.0
    with session.clock("input sequence"):
        _sequence_pass(session, feed, sequence)
    lockstep.stage_done(session, "input sequence")
    return sequence


def _sequence_pass(session: Session, feed: InputFeed, sequence: InputSequence) -> None:
    session.current = "input sequence"
    mutable = session.mutable
    if mutable is not None:
        mutable.save_mutated_since_creation()
        session.calls.state_saved()
    sync = device_sync(session.run.device.type)
    session.recorder.take()
    for call in sequence.calls:
        i = call.index
        session.progress(f"input {i + 1} of {len(feed)}")
        feed.select(i)
        _restore(session)
        session.before("eager")()
        with correctness_mod.same_rng(0):
            eager_out = correctness_mod.snapshot(session.target.outputs(session.calls.eager()))
        sync()
        session.recorder.take()  # eager compiles nothing of ours
        matches: list[bool] = []
        for name, compiled in session.compiled.items():
            _restore(session)
            session.before(name)()
            with correctness_mod.same_rng(0):
                out = correctness_mod.snapshot(session.target.outputs(compiled()))
            sync()
            for variant, seconds in note_recompiles(
                session, session.recorder.take(), during_timing=False, input=i
            ).items():
                call.compile_s[variant] = call.compile_s.get(variant, 0.0) + seconds
            spec = next((s for s in session.specs if s.name == name), None)
            drawn = [] if draws_as_eager(spec) else session.variant_ops.get(name, [])  # fallback_random: eager's
            result = correctness_mod.compare_outputs(eager_out, out, random_ops=correctness_mod.random_ops_in(drawn))
            if result.ok is None and call.not_compared is None:
                call.not_compared = result.note
            if result.ok is not None:
                matches.append(result.ok)
                call.mismatched += [m for m in result.mismatched if m not in call.mismatched]
            if result.max_abs_diff is not None:
                call.max_abs_diff = max(call.max_abs_diff or 0.0, result.max_abs_diff)
        call.matches = all(matches) if matches else None
    _restore(session)


def _restore(session: Session) -> None:
    if session.mutable:
        session.calls.optimizers.install(OptimizerViews.EAGER)
        session.mutable.restore()
        session.calls.state_restored()


def signature_rounds(
    session: Session, feed: InputFeed, sequence: InputSequence, calls: list[tuple[str, Callable[[], Any]]]
) -> list[Rounds]:
    """Each signature's rounds (2. above): before each call the signature's next input is selected, then the
    namespace reset; after the warm-up each variant starts the inputs over, so that the k-th timed round of
    every variant is on the same input."""
    out = []
    for s, signature in enumerate(sequence.signatures):
        rounds: dict[str, int] = {}

        def before(name: str, inputs: list[int] = signature.inputs, rounds: dict[str, int] = rounds) -> Any:
            prepare = session.before(name)

            def select_and_prepare() -> None:
                k = rounds.get(name, 0)
                rounds[name] = k + 1
                feed.select(inputs[k % len(inputs)])
                prepare()

            return select_and_prepare

        timed = [TimedCallable(name, call, before(name)) for name, call in calls]
        out.append(Rounds(timed, f"signature {s + 1} of {len(sequence.signatures)}", rounds.clear))
    return out


def record(
    session: Session, sequence: InputSequence, timed_by_signature: list[list[TimedCallable]], device_type: str
) -> None:
    """Each signature's timings, the variants' (the representative signature's), and the sequence's speedup
    weighted by calls (3. above); no speedup where a signature's timing did not end (an interrupt)."""
    run = session.run
    method = "cuda_events" if device_type == "cuda" else "host"
    for signature, timed in zip(sequence.signatures, timed_by_signature):
        signature.timings = {
            t.name: summarize_samples(t.samples_s, method=method, waited_s=t.waited_s, faults=t.faults)
            for t in timed
            if t.samples_s
        }
    if len(timed_by_signature) < len(sequence.signatures):
        return  # interrupted: no speedup over a part of the sequence
    representative = sequence.signatures[sequence.calls[sequence.representative].signature]
    for variant in run.variants:
        if variant.name in representative.timings:
            variant.timing = representative.timings[variant.name]
    candidates = [name for name in session.compiled if all(name in s.timings for s in sequence.signatures)]
    if "eager" not in representative.timings or not candidates:
        return

    def sequence_time(name: str) -> float:
        return sum(len(s.inputs) * _median(s.timings[name]) for s in sequence.signatures)

    best = min(candidates, key=sequence_time)
    groups = [
        (float(len(s.inputs)), _samples(s.timings["eager"]), _samples(s.timings[best])) for s in sequence.signatures
    ]
    value, low, high = stats.weighted_ratio_interval(groups)
    run.speedup = Speedup(value=value, low=low, high=high, variant=best)
    for s in sequence.signatures:
        v, lo, hi = stats.ratio_interval(_samples(s.timings["eager"]), _samples(s.timings[best]))
        s.speedup = Speedup(value=v, low=lo, high=hi, variant=best)
    if session.opts.sweep:  # the margin over the runner-up on the representative signature
        timed = {t.name: t for t in timed_by_signature[sequence.signatures.index(representative)]}
        others = [timed[name] for name in candidates if name != best]
        run.recommendation = recommendation(session, timed[best], others)


def _samples(t: Timing) -> list[float]:
    return [ms / 1e3 for ms in t.samples_ms]


def _median(t: Timing) -> float:
    return stats.median(_samples(t))
