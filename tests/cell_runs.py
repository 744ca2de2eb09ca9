"""Profiling a cell the way the magic does, without IPython, for the engine tests."""

from __future__ import annotations

from compile_profile.engine.run.api import ProfileOptions, ProfileResult, profile_cell
from profile_options import FAST  # the tests' one option set (CHEAP, the cheapest layer, is there too)


def run_cell(body: str, ns: dict, **options) -> ProfileResult:
    """Profile ``body`` as a ``%%compile_profile`` cell (line 1 is the magic); the engine commits it to ``ns``."""
    source = "%%compile_profile\n" + body
    result, _ = profile_cell(body, ns, ProfileOptions(**{**FAST, **options}), source=source, line_offset=1)
    return result
