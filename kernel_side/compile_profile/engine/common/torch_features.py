"""What the installed torch offers the profiler, detected rather than assumed from its version.

compile-profile supports torch 2.6 and later (CI runs 2.6, 2.10 and 2.13; 2.8, 2.11 and 2.14.1
were run by hand: docs/compatibility.md).  Newer torch logs more, and the profiler uses what is
there; each difference it works around is named here, in one place:

* Inductor's provenance tracking (``trace.provenance_tracking_level``; some releases had a boolean
  ``trace.provenance_tracking``) maps each kernel to the FX nodes and stack traces it came from.
  torch 2.6 and 2.8 have none: kernels are then placed on cell lines from the post-grad graph's
  frames and the Dynamo graph (``trace.model._kernel_lines``), and the card says so.
* Dynamo's cache entries name their backend (``CacheEntry.backend``) in 2.10 and later, not in
  2.6 or 2.8; there the entries a profile added are told by when they appeared (``compiler.dynamo_state``).
* The frames that called a compiled frame (``dynamo_start``'s stack) place a graph Dynamo started
  inside a library on the cell line that called into it.  torch 2.6 reports the cell's frame at
  its first line while it runs Dynamo's rewritten code (a break in ``opt.step()`` on line 5 read as
  line 2), so there those graphs and breaks stay off the cell's lines rather than on a wrong one.
* The post-grad graph of a fresh compile is the ``inductor_post_grad_graph`` artifact in 2.10 and
  later, ``after_post_grad_graph`` in 2.8; a cache hit logs it as a top-level
  ``inductor_post_grad_graph`` event in 2.8 and later, and not at all in 2.6 (``trace.model``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any


@functools.cache
def provenance_patch() -> dict[str, Any]:
    """The Inductor config patch that turns provenance tracking on, or {} where torch has none."""
    import torch._inductor.config as inductor_config

    trace = inductor_config.trace
    if hasattr(trace, "provenance_tracking_level"):
        return {"trace.provenance_tracking_level": 1}
    if hasattr(trace, "provenance_tracking"):
        return {"trace.provenance_tracking": True}
    return {}


@contextlib.contextmanager
def provenance_outside_cache_key() -> Iterator[None]:
    """While provenance tracking is on for a profile, Inductor's FX graph and AOTAutograd cache keys are
    the ones the user's own ``torch.compile`` computes.

    torch 2.10 and later put ``provenance_tracking_level`` into ``FxGraphHashDetails`` (which the
    AOTAutograd key extends), so a profile's compiles missed every entry a plain ``torch.compile`` had
    written (a warm training step read "FX graph 0 hits, 3 missed" and "cold", 3.4 s where the plain warm
    compile took 1.9 s), and hit only its own.  Here the key records the level the user's config has.
    A hit then loads an entry without provenance, which the kernel attribution already handles (by
    the graph's frames); an entry a profile writes carries provenance comments, which a plain run
    loads and runs unchanged (the generated kernels are the same).
    """
    import torch._inductor.codecache as codecache
    import torch._inductor.config as inductor_config

    details = getattr(codecache, "FxGraphHashDetails", None)
    users_level = getattr(inductor_config.trace, "provenance_tracking_level", None)
    if details is None or users_level is None:
        yield
        return
    original = details.__init__

    @functools.wraps(original)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if hasattr(self, "provenance_tracking_level"):
            self.provenance_tracking_level = users_level

    details.__init__ = init
    try:
        yield
    finally:
        details.__init__ = original


def missing_features() -> list[str]:
    """What this torch cannot show (``digest.notes`` says which torch can): "provenance" (Inductor's per-kernel
    provenance tracking), "caller_lines" (reliable caller frames); empty when nothing is missing."""
    missing = []
    if not provenance_patch():
        missing.append("provenance")
    if not caller_lines_reliable():
        missing.append("caller_lines")
    return missing


@functools.cache
def _version() -> tuple[int, int]:
    """The installed torch's (major, minor), read from its distribution's metadata: a log's import asks it without
    importing torch (2 s here), which a profile has imported anyway."""
    import sys

    torch = sys.modules.get("torch")
    text = getattr(torch, "__version__", None) if torch is not None else None
    if not isinstance(text, str):
        from importlib.metadata import version

        text = version("torch")
    major, minor = text.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def logs_post_grad_graph_on_cache_hit() -> bool:
    """Whether an FX graph cache hit logs the post-grad graph it loaded (not in torch 2.6)."""
    return _version() >= (2, 8)


def caller_lines_reliable() -> bool:
    """Whether ``dynamo_start``'s caller frames carry the line being run (2.8 and later; 2.7 not checked)."""
    return _version() >= (2, 8)


def cache_entry_backend(entry: Any) -> Any:
    """The backend a Dynamo cache entry was compiled with, or None where torch does not record it."""
    return getattr(entry, "backend", None)


def recompile_limit() -> int:
    """Dynamo's limit on compiles of one frame (``recompile_limit``; ``cache_size_limit`` before 2.7)."""
    import torch._dynamo.config as dynamo_config

    value = getattr(dynamo_config, "recompile_limit", None)
    if value is None:
        value = getattr(dynamo_config, "cache_size_limit", 8)
    return int(value)
