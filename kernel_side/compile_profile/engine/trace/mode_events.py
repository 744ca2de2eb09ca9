"""What the structured trace says about the compile modes: max-autotune's choices and
why reduce-overhead did not use CUDA graphs.

Inductor times each autotuned op in a ``<op>_template_autotuning`` chromium event;
its end event carries the op's shapes and dtypes and, in ``autotune_choices_stats``
(``max_autotune_report_choices_stats``, on by default), how many choices were
benchmarked and which won.  A CUDA-graph skip is recorded as
``cudagraph_skip_reason`` in the compile's ``compilation_metrics``.
"""

from __future__ import annotations

import math
from typing import Any

from ...profile_run import AutotuneResult
from .capture import ChromiumEvent
from .records import load_json

AUTOTUNE_SUFFIX = "_template_autotuning"


def autotune_result(span: ChromiumEvent, compile_id: str, start_ts: float | None) -> AutotuneResult | None:
    """An ``AutotuneResult`` for the end event of an autotuning span, ``None`` for any other event;
    ``start_ts`` is the span's begin timestamp, if its begin event was seen."""
    if span.phase != "E" or not span.name.endswith(AUTOTUNE_SUFFIX):
        return None
    args = span.args
    stats = args.get("autotune_choices_stats")
    stats = _json(stats) if isinstance(stats, str) else stats
    stats = stats if isinstance(stats, dict) else {}
    return AutotuneResult(
        op=span.name[: -len(AUTOTUNE_SUFFIX)],
        shape=str(args.get("autotune_shape", "")),
        dtypes=str(args.get("autotune_dtypes", "")),
        choices=_int(stats.get("num_choices")),
        triton_choices=_int(stats.get("num_triton_choices")),
        best=str(stats.get("best_kernel", "")),
        best_description=str(stats.get("best_kernel_desc", "")),
        best_ms=_float(stats.get("best_time")),
        best_triton=str(stats.get("best_triton_kernel", "")),
        best_triton_ms=_float(stats.get("best_triton_time")),
        autotune_s=(span.ts - start_ts) / 1e6 if start_ts is not None else None,
        compile_id=compile_id or str(args.get("compile_id", "")),
    )


def cudagraph_skips(metrics: dict[str, Any]) -> list[str]:
    reason = metrics.get("cudagraph_skip_reason")
    return [str(reason)] if reason else []


def _json(payload: str):
    try:
        return load_json(payload)
    except ValueError:
        return None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError, OverflowError):
        return None


def _float(value: Any) -> float | None:
    try:
        number = float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    return number if number is None or math.isfinite(number) else None  # a trace's "nan" is no time
