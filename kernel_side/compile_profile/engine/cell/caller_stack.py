"""The call stack the cell's code sees, as deep as the user's own: torch's lazy-initialisation bookkeeping, which
formats the whole stack at a call, skips the profiler's frames while a profile runs.

``torch.manual_seed`` on a machine where CUDA is not initialised (every CPU machine) queues the seed for CUDA, XPU
and MTIA with ``traceback.format_stack()`` each (``torch.cuda._lazy_call``: where the seed came from, for the error
of a failed lazy init).  Formatting costs about 7 µs a frame, and the profiler calls the cell from under about ten
frames of its own: a seeded dropout cell timed 348 µs eager and 418 µs compiled where ``torch.utils.benchmark``
read 232 and 327 µs in the same process (1.20x slower against 1.41x), the seed alone 270 against 187 µs.

Contract: ``frames_of_the_profiler_hidden()`` gives each such torch module (those of ``LAZY_INIT_MODULES`` that are
imported and hold ``traceback``) a ``traceback`` whose ``format_stack`` leaves out the frames of this package's
files, and puts the module's own back on exit, on error and interrupt too.  The stack it formats is the one a
plain run of the cell has: the cell's frames and its callers' outside the profiler.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
import types
from collections.abc import Iterator
from types import FrameType
from typing import Any

# torch's modules whose lazy init formats the stack at a call (torch 2.6-2.13: ``_lazy_call``)
LAZY_INIT_MODULES = ("torch.cuda", "torch.xpu", "torch.mtia")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _outside_the_profiler(frame: FrameType | None) -> Iterator[tuple[FrameType, int]]:
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PACKAGE):
            yield frame, frame.f_lineno
        frame = frame.f_back


def format_stack(f: FrameType | None = None, limit: int | None = None) -> list[str]:
    """``traceback.format_stack`` without this package's frames."""
    frame = f if f is not None else sys._getframe(1)
    stack = traceback.StackSummary.extract(_outside_the_profiler(frame), limit=limit)
    stack.reverse()
    return stack.format()


def _traceback_without_the_profiler() -> types.ModuleType:
    module = types.ModuleType("traceback")
    module.__dict__.update({k: v for k, v in vars(traceback).items() if not k.startswith("__")})
    setattr(module, "format_stack", format_stack)  # noqa: B010
    return module


@contextlib.contextmanager
def frames_of_the_profiler_hidden() -> Iterator[None]:
    """While in it, torch's lazy-init modules format the stack without the profiler's frames."""
    replaced: list[tuple[Any, Any]] = []
    shim = _traceback_without_the_profiler()
    for name in LAZY_INIT_MODULES:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "traceback", None) is traceback:
            replaced.append((module, traceback))
            setattr(module, "traceback", shim)  # noqa: B010 - a module's attribute pyright does not know
    try:
        yield
    finally:
        for module, original in replaced:
            setattr(module, "traceback", original)  # noqa: B010
