"""Profiling a cell the way the magic does, without IPython, for the engine tests."""

from __future__ import annotations

from compile_profile.engine.profiler import ProfileOptions, ProfileResult, profile_cell

FAST = dict(warmup=1, repeat=8, min_samples=3, budget=0.2)  # tiny workloads, two cores


def run_cell(body: str, ns: dict, **options) -> ProfileResult:
    """Profile ``body`` as a ``%%compile_profile`` cell (line 1 is the magic) and commit it as the magic does."""
    source = "%%compile_profile\n" + body
    result, cell = profile_cell(body, ns, ProfileOptions(**{**FAST, **options}), source=source, line_offset=1)
    if result.has_eager_result:
        cell.commit(result.last_eager_result)
    return result
