"""``--bisect`` (issue 26, item 2): a compile that failed, bisected with PyTorch's ``CompilerBisector``.

The bisector (``torch/_inductor/compiler_bisector.py``, torch 2.6 and later) runs a test function again and again:
first under each backend in turn (eager, aot_eager, aot_eager_decomp_partition, inductor) to find the first that
fails, then, within it, with each subsystem disabled (pre-grad, joint-graph and post-grad passes, config switches,
CUDA graphs, lowerings) to find one whose disabling makes it pass, then by binary search over that subsystem's
applications to the first that breaks it.  Here the test is the cell itself, compiled afresh under the backend the
bisector names and run once: True when it returns.

Contract: only a compile failure of an Inductor variant is bisected, and not one Dynamo raised itself (an
unsupported construct, a break under fullgraph: the cell's code, which no backend changes).  Each test resets
Dynamo (``torch._dynamo.reset``) with Inductor's caches off, so a cached graph never skips the failing step;
afterwards Dynamo is reset once more, so the user's other compiled functions compile again on their next call.  The
bisection stops after ``ProfileOptions.bisect_timeout_s`` and says so.  Its own prints go nowhere.
"""

from __future__ import annotations

import contextlib
import gc
import io
import time

import torch

from ..profile_run import Bisection, ErrorInfo
from .failures import let_go, one_line
from .session import Session
from .timing import device_sync


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


def should_bisect(error: ErrorInfo) -> bool:
    """A compile failure the backend may own: not Dynamo's own error on the cell's code."""
    return error.stage == "compile" and error.compile_stage != "dynamo"


def bisect_failure(session: Session) -> None:
    """Bisect the first failed compile of an Inductor variant into ``run.bisection``."""
    run = session.run
    error = next((e for e in run.errors if should_bisect(e)), None)
    spec = next((s for s in session.specs if error is not None and s.name == error.variant), None)
    if error is None or spec is None or spec.backend != "inductor":
        return
    from torch._inductor import config as inductor_config
    from torch._inductor.compiler_bisector import CompilerBisector

    t = session.target
    started = time.perf_counter()
    result = Bisection(variant=spec.name, outcome="failed")
    name = f"{spec.name} (bisect)"

    def test() -> bool:
        if time.perf_counter() - started > session.opts.bisect_timeout_s:
            raise _OutOfTime
        result.runs += 1
        backend = CompilerBisector.get_backend() or "inductor"
        session.progress(f"bisecting {spec.name}: run {result.runs}, backend {backend}")
        torch._dynamo.reset()
        compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
        call = session.calls.compiled(compiled_fn, name)
        session.calls.reset(name)
        try:
            call()
            device_sync(run.device.type)()
            return True
        except Exception as exc:  # noqa: BLE001 - a failing run is what the bisector looks for
            let_go(exc)
            return False
        finally:
            session.recorder.take()

    mutable = session.mutable  # what the cell changes in place goes back as it was before the bisection's runs
    if mutable is not None:
        mutable.save_mutated_since_creation()
    try:
        with inductor_config.patch(force_disable_caches=True), contextlib.redirect_stdout(io.StringIO()):
            failure = session.calls.failure
            try:
                found = CompilerBisector.do_bisect(test)
            finally:
                # The bisector cleans up (and prints) when its frame's objects go, or at exit: here.  A failed
                # test run's exception, which the calls keep, holds that frame through its traceback's frames.
                session.calls.failure = failure
                gc.collect()
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
        if mutable is not None:
            mutable.restore()
        session.recorder.take()
    run.bisection = result
