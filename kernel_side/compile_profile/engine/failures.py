"""What the profiler does with an exception from the profiled code: one line for the card, the
``ErrorInfo`` the run keeps, the memory it holds let go at once, and torch's thread-local dispatch state put back
where a failed compile left it changed."""

from __future__ import annotations

import contextlib
import gc
import traceback
from collections.abc import Iterator

import torch

from ..profile_run import ErrorInfo


def one_line(exc: BaseException) -> str:
    inner = getattr(exc, "inner_exception", None)
    if isinstance(inner, BaseException):
        # BackendCompilerFailed's first line only names our wrapper ("backend='compile_profile' raised:");
        # the backend's own exception says what went wrong.
        return one_line(inner)
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
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


# The dispatch keys a compile switches on for this thread while it traces (the Python dispatcher, the Python key of
# the mode stack, functionalization, pre-dispatch tracing), through guard objects that switch them off again when
# they go
_TRACING_KEYS = ("Python", "PythonDispatcher", "PythonTLSSnapshot", "Functionalize", "PreDispatch")


@contextlib.contextmanager
def dispatch_state_kept() -> Iterator[None]:
    """Torch's thread-local dispatch state (``_TRACING_KEYS`` included or excluded, the dispatch mode stack) on
    leaving as on entering, also when a compile inside failed half-way.

    Measured on an H200, torch 2.11: after ``--bisect`` ran a timm ConvNeXt's failing compile under
    ``inference_mode`` again, the Python dispatcher stayed on, and the notebook's next eager call of the model failed
    with "Hit PythonDispatcher dispatch key but PythonDispatcherTLS was not set".  The guards that would have
    switched it off were still held, by the failed run's frames; a garbage collection lets most of them go, and what
    is still changed after it is set back here."""
    keys = [k for k in (getattr(torch._C.DispatchKey, name, None) for name in _TRACING_KEYS) if k is not None]
    included = [torch._C._dispatch_tls_is_dispatch_key_included(k) for k in keys]
    excluded = [torch._C._dispatch_tls_is_dispatch_key_excluded(k) for k in keys]
    modes = torch._C._len_torch_dispatch_stack()
    try:
        yield
    finally:
        gc.collect()
        while torch._C._len_torch_dispatch_stack() > modes:
            torch._C._pop_torch_dispatch_stack(None)  # the innermost mode, infra modes aside
        for key, was_included, was_excluded in zip(keys, included, excluded):
            if torch._C._dispatch_tls_is_dispatch_key_included(key) != was_included:
                torch._C._dispatch_tls_set_dispatch_key_included(key, was_included)
            if torch._C._dispatch_tls_is_dispatch_key_excluded(key) != was_excluded:
                torch._C._dispatch_tls_set_dispatch_key_excluded(key, was_excluded)
