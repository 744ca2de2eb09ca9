"""``--bisect`` (issue 26, items 2 and 4): a compile that failed, or a compiled variant whose results differed from
eager, bisected with PyTorch's ``CompilerBisector``.

The bisector (``torch/_inductor/compiler_bisector.py``, torch 2.6 and later) runs a test function again and again:
first under each backend in turn (eager, aot_eager, aot_eager_decomp_partition, inductor) to find the first that
fails, then, within it, with each subsystem disabled (pre-grad, joint-graph and post-grad passes, config switches,
CUDA graphs, lowerings) to find one whose disabling makes it pass, then by binary search over that subsystem's
applications to the first that breaks it.  Here the test is the cell itself, compiled afresh under the backend the
bisector names and run once: for a failure, True when it returns; for a mismatch, True when its outputs pass the
card's correctness rule (``correctness.compare_outputs`` against the same eager outputs and float64 reference, from
the same state, RNG seed and iterator items as the correctness check: ``session.MismatchCase``).

Contract: only an Inductor variant is bisected, and not a compile failure Dynamo raised itself (an unsupported
construct, a break under fullgraph: the cell's code, which no backend changes), nor a mismatch on inputs that
change from run to run (an iterator that cannot be replayed).  Each test resets Dynamo (``torch._dynamo.reset``)
with Inductor's caches off, so a cached graph never skips the failing step; afterwards Dynamo is reset once more,
so the user's other compiled functions compile again on their next call, and the tensors the cell changes in place
are as the profile's last eager run left them.  The bisection stops after ``ProfileOptions.bisect_timeout_s`` and
says so.  Its own prints go nowhere.

A failure compiling kernels is first checked against a one-op kernel (``compile_failure.check_toolchain``): where
that does not compile either (or Inductor said it found no C++ compiler), no kernel compiles, the bisector
would only find the first lowering that makes one, and the outcome is "setup", unbisected.

Whatever ends the bisection, an exception or an interrupt (any ``BaseException``), leaves the bisector as it
was: ``CompilerBisector.do_bisect`` turns itself off and deletes its status only when its frame's objects go,
which a propagating exception's traceback keeps alive (an interrupt left it on for the rest of the session:
every later ``torch.compile`` got the bisector's backend, and its "Bisection status deleted." printed into a
later cell).  Here the traceback's finished frames are cleared while its prints still go nowhere, and
``_bisector_as_it_was`` puts its switch, status folder and subsystem table back in any case.
"""

from __future__ import annotations

import contextlib
import gc
import io
import shutil
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import torch

from ...profile_run import Bisection, Note
from ..cell.optimizers import OptimizerViews
from ..common.device import device_sync
from ..common.errors import let_go, one_line, python_dispatcher_on
from ..compiler.variants import VariantSpec
from ..session.session import Session
from .compile_failure import check_toolchain


class _OutOfTime(Exception):
    pass


def _config_change(backend: str, subsystem: str) -> str:
    """The setting that avoids a failure the bisector pinned on a config switch: ``torch._inductor.config.
    fallback_random = True``; "" for any other subsystem."""
    from torch._inductor.compiler_bisector import BACKENDS, ConfigChange

    for s in BACKENDS.get(backend, []):
        if isinstance(s, ConfigChange) and s.name == subsystem:
            module = "torch._inductor.config" if s.config_name == "inductor" else f"config of {s.config_name}"
            return f"{module}.{s.config_field} = {s.config_value!r}"
    return ""


@contextlib.contextmanager
def _bisector_as_it_was() -> Iterator[None]:
    """``CompilerBisector`` on leaving as on entering, whatever ends the block: its switch off (as it was), the
    status folder it made removed, no folder of its named, its subsystem table as it was."""
    from torch._inductor import compiler_bisector
    from torch._inductor.compiler_bisector import CompilerBisector

    enabled, folder = CompilerBisector.bisection_enabled, CompilerBisector.in_process_cache
    subsystems = {name: list(table) for name, table in compiler_bisector.BACKENDS.items()}
    try:
        yield
    finally:
        made = CompilerBisector.in_process_cache
        if made and made != folder:
            shutil.rmtree(made, ignore_errors=True)
        CompilerBisector.bisection_enabled, CompilerBisector.in_process_cache = enabled, folder
        for name, table in subsystems.items():
            compiler_bisector.BACKENDS[name][:] = table


def bisect_failure(session: Session) -> None:
    """Bisect the first failed compile of an Inductor variant into ``run.bisection``."""
    run = session.run
    error = next((e for e in run.errors if e.backend_may_own), None)
    spec = next((s for s in session.specs if error is not None and s.name == error.variant), None)
    if error is None or spec is None or spec.backend != "inductor":
        return
    if error.compile_stage == "kernel_compile" and error.toolchain == "":
        started = time.perf_counter()
        check_toolchain(session, error)
        if error.toolchain == "broken":
            run.bisection = Bisection(variant=spec.name, outcome="setup", runs=1, seconds=time.perf_counter() - started)
            return
    if error.toolchain == "broken":  # no kernel compiles: no backend, pass or lowering is to blame
        run.bisection = Bisection(variant=spec.name, outcome="setup")
        return
    sync = device_sync(run.device.type)

    def runs(name: str, call: Callable[[], Any]) -> bool:
        session.calls.reset(name)
        call()
        sync()
        return True

    run.bisection = _bisect(session, spec, Bisection(variant=spec.name, outcome="failed"), runs)


def bisect_mismatch(session: Session) -> None:
    """Bisect the variant whose results differed from eager (``session.mismatch``) into ``run.bisection``."""
    case = session.mismatch
    spec = next((s for s in session.specs if case is not None and s.name == case.variant), None)
    if case is None or spec is None or spec.backend != "inductor":
        return

    def matches(name: str, call: Callable[[], Any]) -> bool:
        return case.judge(case.outputs_of(name, call)).ok is not False

    result = Bisection(variant=spec.name, outcome="failed", kind="mismatch")
    session.run.bisection = _bisect(session, spec, result, matches)


def _bisect(
    session: Session, spec: VariantSpec, result: Bisection, passes: Callable[[str, Callable[[], Any]], bool]
) -> Bisection:
    """Run the bisector with ``passes(name, call)`` as its test of one fresh compile of the cell under the backend
    it names (an exception counts as a failing run); fill ``result`` with what it found."""
    from torch._inductor import config as inductor_config
    from torch._inductor.compiler_bisector import CompilerBisector

    t = session.target
    started = time.perf_counter()
    name = f"{spec.name} (bisect)"

    dispatcher_was_on = python_dispatcher_on()

    def test() -> bool:
        if time.perf_counter() - started > session.opts.bisect_timeout_s:
            raise _OutOfTime
        result.runs += 1
        backend = CompilerBisector.get_backend() or "inductor"
        session.progress(f"bisecting {spec.name}: run {result.runs}, backend {backend}")
        torch._dynamo.reset()
        compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
        try:
            return passes(name, session.calls.compiled(compiled_fn, name))
        except Exception as exc:  # noqa: BLE001 - a failing run is what the bisector looks for
            # handled here: the calls must not keep it, nor through its traceback the bisector's frame, which
            # cleans up (and prints) only when its objects go
            session.calls.forget(exc)
            let_go(exc)
            return False
        finally:
            session.recorder.take()

    kept = session.mutable.kept() if session.mutable is not None else contextlib.nullcontext()
    try:
        with (
            _bisector_as_it_was(),
            kept,
            inductor_config.patch(force_disable_caches=True),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            try:
                found = CompilerBisector.do_bisect(test)
            except BaseException as exc:  # its cleanup runs (and prints) when do_bisect's frame goes: here
                traceback.clear_frames(exc.__traceback__)
                raise
            finally:  # the optimizers as a plain run leaves them, before ``kept`` puts their tensors back
                session.calls.optimizers.install(OptimizerViews.EAGER)
                gc.collect()  # the bisector cleans up (and prints) when its objects go: here, not at exit
        if found is None:
            result.outcome = "not_reproduced"
        else:
            result.backend = found.backend
            result.subsystem = found.subsystem or ""
            result.bisect_number = found.bisect_number
            result.debug_info = found.debug_info or ""
            result.outcome = "found" if found.subsystem else "backend"
            change = _config_change(found.backend, result.subsystem)
            if change:
                result.switch = change
    except _OutOfTime:
        result.outcome = "timed_out"
    except Exception as exc:  # noqa: BLE001 - the bisection's own failure is said, the profile kept
        result.error = one_line(exc)
        let_go(exc)
    finally:
        result.seconds = time.perf_counter() - started
        torch._dynamo.reset()
        session.recorder.take()
        if python_dispatcher_on() and not dispatcher_was_on:  # said, not undone: setting it back made it worse
            session.run.notes.append(Note("dispatcher_left_on"))
    return result
