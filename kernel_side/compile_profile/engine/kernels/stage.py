"""Stage 6 of a profile: the profiler pass of every variant, after the timed runs so the timed samples stay clean
(``profiler_pass.measure_variant``, each variant by its attribution rule: eager's ``eager_times.EagerRule`` with
its time per cell line, a compiled variant's ``compiled_times.CompiledRule`` with its time per kernel), then the
device's ceilings and each kernel's roofline figures (``roofline``), and the peak-memory ratio.  Each part that
fails becomes an ``ErrorInfo`` and leaves the others standing, except where the profiled code itself raised
(``cell_raised``), which stops the passes as it stops the timed runs."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Callable
from typing import Any

from ...profile_run import ErrorInfo, ProfileRun
from ..common.errors import error_info
from ..session.session import Session, no_clock
from . import profiler_pass, roofline
from .attribution import VariantKernelTimes
from .compiled_times import CompiledRule
from .eager_times import EagerCall, EagerRule
from .profiler_pass import AttributionRule, profiler_passes


def memory_ratio(run: ProfileRun) -> float | None:
    """Eager peak memory over the compiled variant's (the one the speedup names, else the first measured)."""
    eager = run.eager
    if eager is None or not eager.peak_memory_bytes:
        return None
    best = run.memory_variant
    if best is None or not best.peak_memory_bytes:
        return None
    return eager.peak_memory_bytes / best.peak_memory_bytes


def measure_after_timing(
    run: ProfileRun,
    compiled: dict[str, Callable[[], Any]],
    before_each: Callable[[], None],
    eager: EagerCall | None = None,
    *,
    cell_raised: Callable[[BaseException], bool] = lambda exc: False,
    clock: Callable[[str], contextlib.AbstractContextManager[None]] = no_clock,
) -> list[ErrorInfo]:
    """The passes; ``clock`` times each (``session.StageClock``: "kernel pass: eager", "kernel pass: NAME")."""
    errors: list[ErrorInfo] = []
    run.memory_ratio = memory_ratio(run)
    code, line_offset = (eager.code, eager.line_offset) if eager is not None else (None, 0)
    passes: list[tuple[str, Callable[[], Any], Callable[[], None], AttributionRule[Any]]] = []
    if eager is not None and run.eager is not None:
        passes.append(("eager", eager.call, eager.before_each, EagerRule()))
    passes += [(name, call, before_each, CompiledRule.of(run, name)) for name, call in compiled.items()]
    results: list[VariantKernelTimes] = []  # the compiled variants', for their roofline figures
    with profiler_passes(run.device.type):
        for name, call, before, rule in passes:
            try:
                with clock(f"kernel pass: {name}"):
                    times = profiler_pass.measure_variant(
                        run, name, call, before, rule=rule, code=code, line_offset=line_offset
                    )
            except Exception as exc:  # one variant's failed pass leaves the others
                if cell_raised(exc):
                    raise
                errors.append(error_info("kernel timing", exc, variant=name))
                continue
            if isinstance(times, VariantKernelTimes):
                results.append(times)
    if run.device.type == "cuda" and results:
        try:
            import torch

            run.device_peaks = roofline.measure_peaks(torch.cuda.current_device())
        except Exception as exc:  # noqa: BLE001 - e.g. too little free memory for the probes
            errors.append(error_info("roofline", exc))
    for result in results:
        try:
            roofline.annotate(result, run.device_peaks)
        except Exception as exc:  # noqa: BLE001
            errors.append(error_info("roofline", exc, variant=result.variant))
    if run.device_peaks is not None:
        run.device_peaks = dataclasses.replace(run.device_peaks)  # the measured peaks stay cached as measured
        roofline.ceilings_at_least_best_seen(run.device_peaks, results)
        roofline.apply_shares(results, run.device_peaks)
    # The traces' nested events form reference cycles; collect them now, not in the middle of the
    # user's next timed runs (measured on an H200: 15 % slower runs for seconds after a pass).
    results.clear()
    gc.collect()
    return errors


def measure_kernels(session: Session) -> None:
    if not session.opts.kernel_timing:
        return
    session.current = "kernel timing"
    session.progress("profiling kernels")
    from ..kernels.eager_times import EagerCall
    from ..kernels.stage import measure_after_timing

    t = session.target
    eager = EagerCall(
        call=session.calls.eager,
        before_each=lambda: session.calls.reset("eager"),
        code=getattr(t.function, "__code__", None),
        line_offset=t.locator.line_offset,
    )

    # the cell's own code raising in the pass (an iterator that ran out) stops the stages, as in the
    # timed runs (``run.stages._measure_stages``); the pass failing otherwise loses its figures only
    def cell_raised(exc: BaseException) -> bool:
        return session.calls.failed_call(exc) is not None

    try:
        tagged = {name: session.tagged(name, call) for name, call in session.compiled.items()}
        session.run.errors.extend(
            measure_after_timing(
                session.run,
                tagged,
                lambda: session.calls.reset("compiled"),
                eager,
                cell_raised=cell_raised,
                clock=session.clock,
            )
        )
    except Exception as exc:  # a failed profiler pass loses its figures, never the run
        if cell_raised(exc):
            raise
        session.run.errors.append(session.error("kernel timing", exc))
