"""Figures measured after the timed runs, so the timed samples stay clean: per-kernel time
(a torch.profiler pass per variant: ``eager_profile`` for eager, with its time per cell line,
``kernel_profiler`` for each compiled one), the device's ceilings and each kernel's
roofline figures, and the peak-memory ratio.  Each part that fails becomes an ``ErrorInfo``
and leaves the others standing, except where the profiled code itself raised (``cell_raised``), which
stops the passes as it stops the timed runs."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Callable
from typing import Any

from ...profile_run import ErrorInfo, ProfileRun
from ..common.errors import error_info
from ..session.session import no_clock
from . import eager_times as eager_profile
from . import profiler_pass as kernel_profiler
from . import roofline


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
    eager: eager_profile.EagerCall | None = None,
    *,
    cell_raised: Callable[[BaseException], bool] = lambda exc: False,
    clock: Callable[[str], contextlib.AbstractContextManager[None]] = no_clock,
) -> list[ErrorInfo]:
    """The passes; ``clock`` times each (``session.StageClock``: "kernel pass: eager", "kernel pass: NAME")."""
    errors: list[ErrorInfo] = []
    run.memory_ratio = memory_ratio(run)
    results = []
    with kernel_profiler.profiler_passes(run.device.type):
        if eager is not None and run.eager is not None:
            try:
                with clock("kernel pass: eager"):
                    eager_profile.measure_eager(run, eager)
            except Exception as exc:  # the eager pass failing leaves the compiled ones
                if cell_raised(exc):
                    raise
                errors.append(error_info("kernel timing", exc, variant="eager"))
        for name, call in compiled.items():
            try:
                with clock(f"kernel pass: {name}"):
                    results.append(
                        kernel_profiler.measure_variant(
                            run,
                            name,
                            call,
                            before_each,
                            code=eager.code if eager is not None else None,
                            line_offset=eager.line_offset if eager is not None else 0,
                        )
                    )
            except Exception as exc:  # one variant's failed pass leaves the others
                if cell_raised(exc):
                    raise
                errors.append(error_info("kernel timing", exc, variant=name))
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
