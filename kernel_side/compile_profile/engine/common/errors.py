"""What the profiler does with an exception from the profiled code: one line for the card, the
``ErrorInfo`` the run keeps, the memory it holds let go at once, and whether a failed compile left torch's Python
dispatcher switched on; and ``OptionError``, what the profiler raises for an option (or an input) it refuses."""

from __future__ import annotations

import gc
import traceback

import torch

from ...plain_text import first_line
from ...profile_run import ErrorInfo


class OptionError(ValueError):
    """An option the profiler refuses; the message says which (by its magic flag) and why."""


def one_line(exc: BaseException) -> str:
    inner = getattr(exc, "inner_exception", None)
    if isinstance(inner, BaseException):
        # BackendCompilerFailed's first line only names our wrapper ("backend='compile_profile' raised:");
        # the backend's own exception says what went wrong.
        return one_line(inner)
    first = first_line(str(exc))
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def error_info(stage: str, exc: BaseException, *, variant: str = "", line: int | None = None) -> ErrorInfo:
    """The ``ErrorInfo`` of ``exc`` at ``stage``: its one line, type, cell line and full traceback."""
    return ErrorInfo(
        stage=stage,
        message=one_line(exc),
        type=type(exc).__name__,
        variant=variant,
        line=line,
        traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )


def let_go(exc: BaseException) -> None:
    """Free what a failed compiled call allocated, now rather than at some later garbage collection.

    The traceback's frames keep the failed call's locals alive (after an out-of-memory error, the
    very tensors that filled the device), and the frame that caught the exception closes a
    reference cycle through it that only the cycle collector breaks. After an out-of-memory
    error the allocator's cached blocks also go back to the driver, so the user's next cell and
    other processes on the GPU can have them.
    """
    traceback.clear_frames(exc.__traceback__)
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        gc.collect()
        torch.cuda.empty_cache()


def is_compile_error(exc: BaseException) -> bool:
    from torch._dynamo.exc import BackendCompilerFailed, TorchDynamoException

    return isinstance(exc, (BackendCompilerFailed, TorchDynamoException))


def python_dispatcher_on() -> bool:
    """Whether torch's Python dispatcher is switched on for this thread: never between a notebook's calls, unless
    a failed compile left it on (``failure/bisection.py`` checks, measured on an H200 with torch 2.11: the next eager call
    failed with "Hit PythonDispatcher dispatch key but PythonDispatcherTLS was not set")."""
    return torch._C._dispatch_tls_is_dispatch_key_included(torch._C.DispatchKey.PythonDispatcher)
