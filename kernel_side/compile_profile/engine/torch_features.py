"""What the installed torch offers the profiler, detected rather than assumed from its version.

compile-profile supports torch 2.6 and later (CI runs 2.6, 2.10 and 2.13; 2.8, 2.11 and 2.14.1
were run by hand: docs/compatibility.md).  Newer torch logs more, and the profiler uses what is
there; each difference it works around is named here, in one place:

* Inductor's provenance tracking (``trace.provenance_tracking_level``, or the older boolean
  ``trace.provenance_tracking``) maps each kernel to the FX nodes and stack traces it came from.
  torch 2.6 has neither: kernels are then placed on cell lines from the post-grad graph's
  frames and the Dynamo graph (``trace_model._kernel_lines``), and the card says so.
* Dynamo's cache entries name their backend (``CacheEntry.backend``) from torch 2.9; before, the
  entries a profile added are told from the user's by when they appeared (``dynamo_state``).
* The post-grad graph of a fresh compile is the ``inductor_post_grad_graph`` artifact from
  torch 2.9, ``after_post_grad_graph`` before (``trace_model``).
"""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=None)
def provenance_patch() -> dict[str, Any]:
    """The Inductor config patch that turns provenance tracking on, or {} where torch has none."""
    import torch._inductor.config as inductor_config

    trace = inductor_config.trace
    if hasattr(trace, "provenance_tracking_level"):
        return {"trace.provenance_tracking_level": 1}
    if hasattr(trace, "provenance_tracking"):
        return {"trace.provenance_tracking": True}
    return {}


def missing_features_note() -> str:
    """What this torch cannot show, and which torch can, for the card; empty when nothing is missing."""
    if provenance_patch():
        return ""
    import torch

    return (
        f"torch {torch.__version__} has no Inductor provenance tracking, so kernels are placed on cell lines by "
        "the frames of their graph's nodes, and a kernel fused from several lines may show all of its graph's "
        "lines; torch 2.7 and later map each kernel to its own nodes"
    )


def cache_entry_backend(entry: Any) -> Any:
    """The backend a Dynamo cache entry was compiled with, or None where torch does not record it."""
    return getattr(entry, "backend", None)
