"""Stage 4 of a profile: compiled outputs against eager's and a float64 reference (``compare``, ``reference``).

``check_correctness`` runs the reference (float64 copies of what the code reads, swapped in for one eager run;
``op_fallback`` runs an op that fails in float64 in float32), then the compiled variant the speedup names, eager and
eager again, each from the same in-place state (``cell.mutable_state``), RNG seed and iterator items
(``iterator_replay``), and writes ``run.correctness``; with ``--bisect`` it leaves the bisection how to judge a
compiled run as it judged this one (``session.MismatchCase``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable
from typing import Any

import torch

from ...profile_run import Correctness, Note, NoteValue
from ..cell.mutable_state import MutableState
from ..cell.names import cells_holding, closure_cells, names_read, substituted
from ..cell.optimizers import OptimizerViews
from ..cell.reachable_tensors import named_tensors
from ..common.errors import let_go, one_line
from ..compiler.variants import VariantSpec
from ..distributed import job as distributed
from ..session.session import MismatchCase, Session
from . import compare as correctness_mod
from . import reference as reference_mod
from .compare import draws_as_eager
from .iterator_replay import IteratorReplay, is_iterator
from .op_fallback import HighestPrecision
from .rounded_casts import RoundedCasts


def check_correctness(session: Session) -> None:
    if not session.opts.check_correctness:
        return
    session.current = "correctness"
    session.progress("checking correctness")
    t = session.target
    mutable = session.mutable
    mutated = mutable.save_mutated_since_creation() if mutable else 0
    session.calls.state_saved()
    if mutated:
        session.run.notes.append(Note("state_restored", values={"tensors": mutated}))
    best = session.run.speedup.variant if session.run.speedup else next(iter(session.compiled))
    best = distributed.shared(best)  # each rank timed its own; rank 0's choice runs on all of them
    # What a step changes in place (weights, optimizer state) is compared as its outputs are: a compiled
    # step that returned the right loss and left the weights where they were read "ok" (review).
    compared = (
        mutable if mutable and mutated and mutable.mutated_bytes <= correctness_mod.STATE_COMPARED_BYTES else None
    )
    if mutable and mutated and compared is None:
        values: dict[str, NoteValue] = {"tensors": mutated, "bytes": mutable.mutated_bytes}
        session.run.notes.append(Note("state_not_compared", values=values))
    # The iterators the code draws from give every run below the same items (replay.py); where the code
    # cannot run on a replay, the runs draw as they would, and the second eager run tells what changed.
    names = names_read(t.function, t.globals)
    replay = IteratorReplay({name: t.globals[name] for name in names})
    not_replayed = [f"argument {i}" for i, a in enumerate(t.arguments()) if is_iterator(a)]
    not_replayed += replay.not_replayed
    replay_error = ""
    random_ops = correctness_mod.random_ops_in(session.variant_ops.get(best, []))
    # with fallback_random compiled code draws eager's numbers: compared with eager, which a float64 run is not
    # (it draws others); else outputs that are not simply close are not compared (compare_outputs)
    drawn_as_eager = random_ops if draws_as_eager(_spec(session, best)) else []
    if drawn_as_eager:
        random_ops = []
    try:
        reference, results = _correctness_runs(session, best, compared, replay, drawn_as_eager)
    except Exception as exc:  # the code cannot run on a replay: again without one
        if not replay.names:
            raise
        let_go(exc)
        not_replayed += replay.names
        replay_error = one_line(exc)
        replay = IteratorReplay({})
        reference, results = _correctness_runs(session, best, compared, replay, drawn_as_eager)
    compiled_out, eager_out, rerun_out = results

    def judged(reference: reference_mod.ReferenceRun) -> Correctness:
        return correctness_mod.compare_outputs(
            eager_out,
            compiled_out,
            random_ops=random_ops,
            reference=reference.outputs,
            reference_note=reference.note,
            reference_method=reference.method,
            reference_float32_ops=reference.float32_ops,
            reference_fallback=reference.fallback,
            reference_rounded_casts=reference.rounded_casts,
            eager_rerun=rerun_out,
            inputs_may_change=bool(not_replayed),
        )

    correctness = judged(reference)
    beyond = _beyond_tolerance(correctness)
    if beyond and reference.note is not None and reference.note.kind == "reference_quick":
        # --quick skips the reference where outputs are simply close to eager's; an output beyond its dtype's
        # tolerance is judged against one as a full profile judges it, never called different on the tolerance
        # alone: on an H200, GPT-2, BERT and T5 bf16 logits lay 0.023-0.063 from eager's, and every --quick
        # profile of them read "results differ" (the float64 rule passes bf16 GPT-2 logits at an RMSE ratio 0.70)
        _restore_state(session)
        with session.clock("float64 reference"):
            reference = _float64_reference(session, compared, replay)
        correctness = judged(reference)
        if correctness.note is None:
            correctness.note = Note("reference_quick_needed", values={"outputs": beyond})
    correctness.replayed = [name for name, n in replay.drawn.items() if n]
    replay.finish()
    correctness.not_replayed, correctness.not_replayed_reason = not_replayed, replay_error
    session.run.correctness = correctness
    if session.opts.bisect and correctness.ok is False and not not_replayed and session.run.distributed is None:
        # --bisect runs after the last stage, judging each compiled run as this check judged the variant
        session.mismatch = MismatchCase(
            variant=best,
            outputs_of=functools.partial(_outputs_of_run, session, compared=compared, replay=replay),
            judge=functools.partial(
                correctness_mod.compare_outputs,
                eager_out,
                random_ops=random_ops,
                reference=reference.outputs,
                reference_method=reference.method,
                eager_rerun=rerun_out,
            ),
        )


def _module_called(t: Any) -> torch.nn.Module | None:
    """The module a profiled callable runs: the callable itself, or the module of a bound method
    (``profile(model, x)``, ``profile(model.generate, ...)``); None for a cell or a plain function."""
    if t.cell is not None:
        return None
    fn = t.function
    if isinstance(fn, torch.nn.Module):
        return fn
    if inspect.ismethod(fn) and isinstance(fn.__self__, torch.nn.Module):
        return fn.__self__
    return None


def _beyond_tolerance(correctness: Correctness) -> list[str]:
    """The outputs the dtype tolerance alone called different: a reference run can judge them otherwise."""
    return [c.path for c in correctness.checks if c.why is not None and c.why.kind == "output_beyond_tolerance"]


def _spec(session: Session, name: str) -> VariantSpec | None:
    return next((s for s in session.specs if s.name == name), None)


def _correctness_runs(
    session: Session,
    best: str,
    compared: MutableState | None,
    replay: IteratorReplay,
    drawn_as_eager: list[str] | None = None,
) -> tuple[reference_mod.ReferenceRun, list[dict[str, Any]]]:
    """The reference run, then the compiled variant ``best``, eager, and eager again (which tells
    nondeterministic outputs and inputs that changed between runs), each from the same state, RNG seed
    and iterator items; no reference where ``best`` draws random numbers as eager does (``drawn_as_eager``,
    the ops): a float64 run draws others."""
    _restore_state(session)
    if session.opts.quick:  # outputs compared with eager only, and the digest says so
        reference = reference_mod.ReferenceRun(None, note=Note("reference_quick"))
    elif drawn_as_eager:
        reference = reference_mod.ReferenceRun(None, note=Note("reference_random", values={"ops": drawn_as_eager}))
    else:
        with session.clock("float64 reference"):
            reference = _float64_reference(session, compared, replay)
    runs = ((best, session.compiled[best]), ("eager", session.calls.eager), ("eager", session.calls.eager))
    return reference, [_outputs_of_run(session, name, call, compared, replay) for name, call in runs]


def _outputs_of_run(
    session: Session, name: str, call: Callable[[], Any], compared: MutableState | None, replay: IteratorReplay
) -> dict[str, Any]:
    """One correctness run of ``call`` (variant ``name``): its outputs, and what it changed in place where
    ``compared``, from the state before the first compiled call, RNG seed 0 and the replayed iterator items."""
    t = session.target
    _restore_state(session)
    session.before(name)()
    with replay.run(t.globals), correctness_mod.same_rng(0):
        result = call()
    outputs = correctness_mod.snapshot(t.outputs(result))
    if compared is not None:
        outputs.update(correctness_mod.in_place_outputs(compared.after_run()))
    return outputs


def _restore_state(session: Session) -> None:
    """Tensors the runs changed in place back as before the first compiled call (eager optimizer view)."""
    if session.mutable:
        session.calls.optimizers.install(OptimizerViews.EAGER)  # the view whose tensors MutableState saved
        session.mutable.restore()
        session.calls.state_restored()


def _float64_reference(
    session: Session, compared: MutableState | None = None, replay: IteratorReplay | None = None
) -> reference_mod.ReferenceRun:
    """The outputs of one eager run on float64 copies of what the code reads, at the highest precision
    that runs (float64; float64 with the ops that fail there in float32; float32 for float16/bfloat16
    code), or why there are none; with ``compared``, the copies of what it changes in place too,
    named as ``MutableState`` names them."""
    t = session.target
    call_with_arguments = t.call_with_arguments
    if call_with_arguments is None:
        return reference_mod.ReferenceRun(None)
    if session.run.distributed is not None:
        return reference_mod.ReferenceRun(None, note=Note("reference_distributed"))
    replay = replay if replay is not None else IteratorReplay({})
    names = names_read(t.function, t.globals)
    originals = {name: t.globals[name] for name in names}
    # what a function reads from its closure (a model a builder's step closes over) and the module a profiled
    # module or bound method runs: on an H100 every bf16 suite entry (GPT-2 ... ViT, a closure over the model)
    # read "results differ", its "reference" the bf16 model itself, equal to eager, so judged by tolerance alone
    cells = closure_cells(t.function)
    held = {name: cell.cell_contents for name, cell in cells.items()}
    callee = _module_called(t)
    if callee is not None:
        held["callee"] = callee
    arguments = t.arguments()
    argument_keys = [f"argument {i}" for i in range(len(arguments))]
    recorded = reference_mod.versions([*originals.values(), *held.values(), *arguments])

    rounding = RoundedCasts()  # the code's own casts down round the copies' values and keep their precision

    def run_at(precision: torch.dtype, mode: HighestPrecision | None) -> dict[str, Any]:
        session.calls.reset("eager")
        copies = reference_mod.float64_copies({**originals, **held, **dict(zip(argument_keys, arguments))}, precision)
        swapped = {name: copies[name] for name in names if copies[name] is not originals[name]}
        swapped_cells = {name: copies[name] for name in cells if copies[name] is not held[name]}
        call = call_with_arguments
        if callee is not None and copies["callee"] is not callee:  # the profiled callable, on its copy
            on_copy = copies["callee"] if t.function is callee else getattr(copies["callee"], t.function.__name__)
            call = lambda arguments: on_copy(*arguments)
        # not through session.calls: not counted in cell_runs, which count the runs that advance the
        # notebook's own state
        with (
            substituted(t.globals, swapped),
            cells_holding(cells, swapped_cells),
            replay.run(t.globals, lambda item: reference_mod.copy_at(item, precision)),
            correctness_mod.same_rng(0),
            mode if mode is not None else contextlib.nullcontext(),
            rounding,
        ):
            result = call([copies[key] for key in argument_keys])
            outputs = correctness_mod.snapshot(t.outputs(result))
            if compared is not None:
                changed = set(compared.compared_names)
                outputs.update(
                    correctness_mod.in_place_outputs(
                        {
                            name: tensor.detach().clone()
                            for name, tensor in named_tensors(copies, container_depth=0).items()
                            if name in changed
                        }
                    )
                )
        return outputs

    # float64 as it is; then with a dispatch mode that runs each op failing in float64 in float32
    # (torch._grouped_mm has no float64 kernel: a Mixtral-style MoE); then float32 copies, worth it only
    # for float16/bfloat16 code (a float32 copy of float32 code is eager again)
    failures: dict[str, str] = {}  # method -> the error the code met on its copies
    unavailable = ""  # why copies could not be made (memory, an object that cannot be copied)
    for method in ("float64", "mixed", "float32"):
        if method == "mixed" and "float64" not in failures:
            continue  # float64 copies could not be made: an op fallback cannot help
        if method == "float32" and not reference_mod.lower_than(
            torch.float32, [*originals.values(), *held.values(), *arguments]
        ):
            break
        mode = HighestPrecision() if method == "mixed" else None
        outputs = None
        try:
            outputs = run_at(torch.float32 if method == "float32" else torch.float64, mode)
        except reference_mod.ReferenceUnavailable as exc:
            unavailable = unavailable or str(exc)
        except Exception as exc:  # noqa: BLE001 - the code may not run in float64 (e.g. it makes bf16 tensors)
            let_go(exc)
            failures[method] = one_line(exc)
        if reference_mod.changed(recorded):
            return reference_mod.ReferenceRun(None, note=Note("reference_changed_state"))
        if outputs is not None:
            float32_ops = list(mode.float32_ops) if mode is not None else []
            if method == "mixed" and not float32_ops:  # every op ran in float64 once the others were cast up
                method = "float64"
            return reference_mod.ReferenceRun(
                outputs,
                method=method,
                float32_ops=float32_ops,
                fallback="" if method == "float64" else failures.get("float64") or unavailable,
                rounded_casts=list(rounding.rounded),
            )
    values: dict[str, NoteValue] = {**failures, "unavailable": unavailable}
    return reference_mod.ReferenceRun(None, note=Note("reference_failed", values=values))
