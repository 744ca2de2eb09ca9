"""What the profiler does with an exception from the profiled code: one line for the card, the
``ErrorInfo`` the run keeps, and the memory it holds let go at once."""

from __future__ import annotations

import gc
import re
import traceback

import torch

from ..profile_run import ErrorFrame, ErrorInfo
from .stack import parse_frames

# A message that is only an object's repr ("<weakref at 0x7f58c4512ed0; to 'torch.storage.UntypedStorage'
# at 0x7f58c4bfb050>", what an H200 ConvNeXt compile under inference_mode raised) says nothing.
_REPR_ONLY = re.compile(r"^<[^<>]* at 0x[0-9a-fA-F]+[^<>]*>$")
RAISED_AT_FRAMES = 3  # the innermost frames of the traceback kept as facts


def innermost(exc: BaseException) -> BaseException:
    """The exception that says what went wrong: through BackendCompilerFailed's and InductorError's
    ``inner_exception`` and LoweringException's cause down to the one raised first."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        inner = getattr(exc, "inner_exception", None) or exc.__cause__
        if not isinstance(inner, BaseException):
            break
        exc = inner
    return exc


def one_line(exc: BaseException) -> str:
    inner = getattr(exc, "inner_exception", None)
    if isinstance(inner, BaseException):
        # BackendCompilerFailed's first line only names our wrapper ("backend='compile_profile' raised:");
        # the backend's own exception says what went wrong.
        return one_line(inner)
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if _REPR_ONLY.match(first):
        return f"{type(exc).__name__} (its message is only an object's repr: {first})"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


# Which part of torch.compile a traceback frame belongs to, tested from the innermost frame out:
# the first frame that matches names the stage.
_STAGE_OF_FILE = (
    ("kernel_compile", ("torch/_inductor/cpp_builder.py", "torch/_inductor/codecache.py", "triton/compiler/")),
    ("kernel_compile", ("torch/_inductor/runtime/triton_heuristics.py", "torch/_inductor/async_compile.py")),
    ("codegen", ("torch/_inductor/codegen/", "torch/_inductor/scheduler.py", "torch/_inductor/wrapper")),
    ("lowering", ("torch/_inductor/lowering.py", "torch/_inductor/graph.py", "torch/_inductor/decomposition.py")),
    ("lowering", ("torch/_inductor/fx_passes/", "torch/_inductor/ir.py")),
    ("aot_autograd", ("torch/_functorch/", "torch/_decomp/", "torch/fx/experimental/proxy_tensor.py")),
    ("dynamo", ("torch/_dynamo/",)),
)


def compile_stage(exc: BaseException, *, compiled_run: bool = False) -> str:
    """The part of torch.compile that raised ``exc``: one of ``COMPILE_STAGES``."""
    from torch._inductor.exc import LoweringException

    chain = [exc]
    while isinstance(getattr(chain[-1], "inner_exception", None) or chain[-1].__cause__, BaseException):
        nxt = getattr(chain[-1], "inner_exception", None) or chain[-1].__cause__
        if nxt in chain:
            break
        chain.append(nxt)
    if any(isinstance(e, LoweringException) for e in chain):
        return "lowering"
    if any(type(e).__name__ in ("CppCompileError", "CompilationError") for e in chain):
        return "kernel_compile"
    if compiled_run:
        return "run"
    files = [f.filename.replace("\\", "/") for e in chain for f in traceback.extract_tb(e.__traceback__)]
    for filename in reversed(files):
        for stage, parts in _STAGE_OF_FILE:
            if any(part in filename for part in parts):
                return stage
    return "dynamo"


def user_frames(exc: BaseException) -> list[ErrorFrame]:
    """The user stack Dynamo or Inductor put in the message ("from user code:", "Found from :"), outermost
    first; the text before it (Inductor's repr of the lowering's arguments holds other nodes' stacks) is
    not read."""
    text = str(exc)
    for marker in ("Found from :", "from user code:"):
        if marker in text:
            text = text.rsplit(marker, 1)[1]
            return [ErrorFrame(file=f, line=n, code=c) for f, n, c in parse_frames(text)]
    return []


def raised_at(exc: BaseException) -> list[ErrorFrame]:
    frames = traceback.extract_tb(innermost(exc).__traceback__)[-RAISED_AT_FRAMES:]
    return [ErrorFrame(file=f.filename, line=f.lineno or 0, code=(f.line or "").strip()) for f in frames]


def error_info(stage: str, exc: BaseException, *, variant: str = "", line: int | None = None) -> ErrorInfo:
    """The ``ErrorInfo`` of ``exc`` at ``stage``: its one line, type, cell line and full traceback; for a
    compile failure (stage "compile" or "compiled run") also the part of torch.compile that raised, the
    user stack it was compiling and the frames that raised."""
    info = ErrorInfo(
        stage=stage,
        message=one_line(exc),
        type=type(innermost(exc)).__name__ if stage in ("compile", "compiled run") else type(exc).__name__,
        variant=variant,
        line=line,
        traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )
    if stage in ("compile", "compiled run"):
        info.compile_stage = compile_stage(exc, compiled_run=stage == "compiled run")
        info.user_frames = user_frames(exc)
        info.raised_at = raised_at(exc)
    return info


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
