"""The first eager run (stage 1) and the last (the table's last row), and the in-place state between them.

The first eager run is the cell's real run: its printed output is shown, its error (if any) is the cell's and
ends the profile, and what it reads decides the run's device, the optimizers and schedulers the variants find,
and what the runs may change in place (``cell.mutable_state``).  After it, what it changed in place is copied to
put back at the end (``cell.plain_state``), where it fits.  The namespace and the cell's value (``Out``) come from
one eager run: the last, which replays the first run's random draws (``cell.random_state``), or, where the state
was put back, a stage failed or an interrupt came, the first.  Afterwards the random generators stand where one
plain run of the cell leaves them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

from ...profile_run import Note, Variant
from ..cell import plain_state
from ..cell.mutable_state import MutableState
from ..cell.optimizers import OptimizerViews, lr_schedulers_in, optimizers_in
from ..cell.random_state import RandomState
from ..cell.reachable_tensors import device_types
from ..common.device import current_device_type, device, device_sync, run_device_type
from ..common.errors import let_go, one_line
from ..distributed import job as distributed
from ..distributed import lockstep
from ..kernels.kept_tensors import kept_tensors
from ..session.session import Session


def eager_first(session: Session) -> None:
    session.current = "eager"
    session.progress("eager: first run")
    t = session.target
    session.calls.reset("eager")
    start_len = session.stdout.tell()
    # the generators the code reads by name (a torch.Generator in the namespace) and the global ones
    session.random_generators = [*_named_values_used(t.function, {}).values(), *t.inputs]
    session.random_before_first = RandomState.capture(session.random_generators)
    session.state_before = plain_state.take_before(t)
    t0 = time.perf_counter()
    try:
        result = session.calls.eager()
        device_sync(current_device_type())()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the user's code raised (SystemExit too): report it with the cell line
        session.eager_error = exc
        session.run.status = "failed"
        session.run.errors.append(session.error("eager", exc))
        session.run.variants.append(Variant(name="eager", error=one_line(exc)))
        return
    finally:  # also when the cell raised, or an interrupt landed in it: what it printed is shown
        session.first_stdout = session.stdout.getvalue()[start_len:]
        session.random_after_first = RandomState.capture(session.random_generators)
    first_s = time.perf_counter() - t0
    session.first_outputs = t.outputs(result)
    used = _named_values_used(t.function, session.first_outputs)
    tensor_devices = device_types([*used.values(), *t.inputs])
    session.run.device = device(run_device_type(tensor_devices, fallback=current_device_type()))
    if session.run.settings is not None:  # as the cell left them: it may set them itself
        session.run.settings.torch_threads = torch.get_num_threads()
        session.run.settings.interop_threads = torch.get_num_interop_threads()
    if t.cell is not None:
        session.run.kept_names, session.run.temporaries = list(t.cell.kept), list(t.cell.temporaries)
        session.run.kept_tensors = kept_tensors(t.cell.intermediates, session.first_outputs, session.run.device.type)
    roots, _, _ = plain_state.roots_of(t)  # what the code reads, through the notebook's functions it calls
    session.run.lr_schedulers = lr_schedulers_in(dict(roots), str(t.globals.get("__name__", "__main__")))
    already_compiled = _compiled_callables(used)
    if already_compiled:
        session.run.notes.append(Note("already_compiled", values={"names": list(already_compiled)}))
    session.calls.reset("eager")  # the namespace as the cell found it, without what the run published
    session.calls.optimizers = OptimizerViews(optimizers_in([*used.values(), *t.inputs]))
    session.ddp_bucket_caps = distributed.ddp_bucket_caps([*used.values(), *t.inputs])
    # what the runs may change in place (an optimizer step): a cell's namespace; a function's globals,
    # closure variables and arguments, so that a training step passed to profile() is judged from
    # the same weights in both variants (without it, every such step read "mismatch")
    state = t.namespace or {
        **{name: value for name, value in used.items() if name not in session.first_outputs},
        **{f"argument {i}": value for i, value in enumerate(t.inputs)},
    }
    session.mutable = MutableState(state) if state else None
    session.run.variants.append(Variant(name="eager", first_call_s=first_s))


def keep_plain_state(session: Session) -> None:
    """Copy what the first eager run changed in place, to put back at the end (``cell.plain_state``), where it fits
    (on every rank of a job); else say why not."""
    before, session.state_before = session.state_before, None
    restore = session.opts.restore
    if before is None:
        return
    taken = before.snapshot(force=restore is True, copy=restore is not False)
    if session.mutable is not None:  # what their versions do not say changed (a fused optimizer's weights)
        session.mutable.include(before.changed)
    snapshot = taken if isinstance(taken, plain_state.Snapshot) else None
    if not lockstep.every_rank_keeps_its_state(snapshot is not None or restore is False) and snapshot is not None:
        snapshot, taken = None, plain_state.Refusal("other_rank")
    session.plain_state = snapshot
    session.plain_state_refused = taken if isinstance(taken, plain_state.Refusal) else None


def put_back_plain_state(session: Session) -> None:
    """At the end: the in-place state as the first eager run left it, and the namespace that run's (its values,
    its printed output); or the fact that the state advanced with the runs, and by how many."""
    if session.plain_state is not None:
        snapshot, session.plain_state = session.plain_state, None
        try:
            session.calls.optimizers.install(OptimizerViews.EAGER)  # the view the copy was taken of
            restored = snapshot.restore()
        except Exception as exc:  # noqa: BLE001 - torch left unusable (a bisection's dispatcher): said, not raised
            let_go(exc)
            refusal = plain_state.Refusal("restore_failed", needed=snapshot.bytes, error=one_line(exc))
            session.run.notes.append(refusal.note(session.calls.runs_in_state))
            return
        note = snapshot.note(restored)
        if any(note.values.get(k) for k in ("tensors", "grads", "containers", "not_restored")):
            session.run.notes.append(note)
        session.kept_run = "first"
    elif session.plain_state_refused is not None:
        session.run.notes.append(session.plain_state_refused.note(session.calls.runs_in_state))


def last_eager_run(session: Session) -> None:
    """One more eager run, from the random state the first one started from, whose values the namespace
    keeps: so they, ``Out`` and the printed output (the first run's) come from the same draws.  A note
    says where its draws still ended elsewhere (how many the cell draws depends on state its runs change).
    Where the in-place state is put back as the first run left it (``cell.plain_state``), the namespace keeps that
    run's values instead, and this one is not needed."""
    session.current = "last eager run"
    if session.plain_state is not None:
        return
    if session.target.feed is not None:  # the first input, as the first run (whose output was shown) read
        session.target.feed.select(0)
    session.calls.reset("eager")
    if session.random_before_first is not None:
        session.random_before_first.restore()
    session.calls.eager()
    device_sync(session.run.device.type)()
    after = RandomState.capture(session.random_generators)
    if session.random_after_first is not None and not after.same_as(session.random_after_first):
        session.run.notes.append(Note("random_draws_differ"))


def _named_values_used(fn: Callable[..., Any], outputs: dict[str, Any]) -> dict[str, Any]:
    """The values of the names the profiled code reads or assigns (its globals, the variables it closes
    over, as a training step defined in ``main()`` reads its model and optimizer, and what it returned)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return dict(outputs)
    values = {**getattr(fn, "__globals__", {}), **_closure_values(fn), **outputs}
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars)
    return {name: values[name] for name in names if name in values} | outputs


def _closure_values(fn: Callable[..., Any]) -> dict[str, Any]:
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # a cell not yet bound
            pass
    return values


def _compiled_callables(named_values: dict[str, Any]) -> list[str]:
    """The names that hold something torch.compile already wrapped."""
    return sorted(
        name
        for name, value in named_values.items()
        if isinstance(value, torch._dynamo.eval_frame.OptimizedModule) or hasattr(value, "_torchdynamo_orig_callable")
    )
