"""Where a compile failed (issue 26, item 1): the compiler stage, the user frame the failing operation came from,
and whether the same code compiles and runs under ``backend="aot_eager"`` (Dynamo and AOTAutograd without
Inductor: a failure there too is Dynamo's, AOTAutograd's or the code's; one only under Inductor is Inductor's).

Contract: read off the exception while its traceback still holds its frames (before ``common.errors.let_go`` clears
them), never from the message's wording:

* the stage is the deepest frame of the traceback that lies in one of ``STAGE_MARKERS``' torch files (a
  fake-tensor error while Dynamo traces has Dynamo's frames deepest among the markers, a lowering error
  Inductor's ``lowering.py``/``graph.py``, a C++ compile ``cpp_builder.py``); an error of Dynamo's own, which
  it re-raises without its frames, is Dynamo's;
* the user frames are those of the FX node being run when it raised (``n`` in ``GraphLowering.run_node``, in
  ``torch.fx.Interpreter.run_node``): its ``stack_trace``, the line Dynamo traced it from; for a Dynamo error, its
  own "from user code:" frames;
* where no node was being run (a kernel that did not compile, code generation), the lines are those of the
  graph being compiled: the nodes of the innermost FX ``GraphModule`` its frames hold (``gm`` in
  ``compile_fx``), as an imported trace of the same failure names the lines of the graph its compile id traced;
* ``aot_eager`` is tried once, only for a compile error of a variant whose backend is Inductor;
* the toolchain is "broken" where Inductor says it found no C++ compiler (``InvalidCxxCompiler``), or where
  ``check_toolchain`` (``--bisect``, for a failure compiling kernels) finds that a one-op kernel does not
  compile either: then no kernel compiles, whichever graph or lowering, and the cause is the setup.
"""

from __future__ import annotations

import importlib
import os
import types
from typing import TYPE_CHECKING, Literal

import torch

from ...profile_run import CELL_FILENAME_PREFIX, ErrorInfo
from ..common.device import device_sync
from ..common.errors import let_go, one_line
from ..common.stack_text import Frame, parse_frames
from ..compiler.backend import RecordingBackend

if TYPE_CHECKING:
    from ..cell.locator import CellLocator
    from ..compiler.variants import VariantSpec
    from ..session.session import Session

CompileStage = Literal["", "dynamo", "aot_autograd", "inductor_lowering", "codegen", "kernel_compile"]

# (a path fragment of a torch source file, the stage a frame there belongs to); the deepest matching frame decides
STAGE_MARKERS: tuple[tuple[str, CompileStage], ...] = (
    ("torch/_dynamo/symbolic_convert.py", "dynamo"),
    ("torch/_dynamo/convert_frame.py", "dynamo"),
    ("torch/_dynamo/variables/", "dynamo"),
    ("torch/_dynamo/output_graph.py", "dynamo"),
    ("torch/_functorch/aot_autograd.py", "aot_autograd"),
    ("torch/_functorch/_aot_autograd/", "aot_autograd"),
    ("torch/_functorch/partitioners.py", "aot_autograd"),
    ("torch/_inductor/compile_fx.py", "inductor_lowering"),
    ("torch/_inductor/graph.py", "inductor_lowering"),
    ("torch/_inductor/lowering.py", "inductor_lowering"),
    ("torch/_inductor/ir.py", "inductor_lowering"),
    ("torch/_inductor/fx_passes/", "inductor_lowering"),
    ("torch/_inductor/scheduler.py", "codegen"),
    ("torch/_inductor/codegen/", "codegen"),
    ("torch/_inductor/cpp_builder.py", "kernel_compile"),
    ("torch/_inductor/async_compile.py", "kernel_compile"),
    ("torch/_inductor/runtime/triton_heuristics.py", "kernel_compile"),
    ("torch/_inductor/runtime/compile_tasks.py", "kernel_compile"),
    ("/triton/compiler/", "kernel_compile"),
)
INDUCTOR_STAGES: tuple[CompileStage, ...] = ("inductor_lowering", "codegen", "kernel_compile")
# codecache.py both looks graphs up (around a whole compile) and compiles kernels: only its kernel builders count
_KERNEL_BUILDERS = ("load_by_key_path", "compile_file", "CppCodeCache", "_load_library", "build")


def _innermost(exc: BaseException) -> BaseException:
    """The exception that says what went wrong: Dynamo wraps a backend's in ``BackendCompilerFailed``."""
    inner = getattr(exc, "inner_exception", None)
    return _innermost(inner) if isinstance(inner, BaseException) else exc


def _frames(exc: BaseException) -> list[types.FrameType]:
    frames: list[types.FrameType] = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _path(frame: types.FrameType) -> str:
    return frame.f_code.co_filename.replace("\\", "/")


def compile_stage(exc: BaseException) -> CompileStage:
    """The compiler stage ``exc`` was raised in (see the module docstring); "" where no torch frame says."""
    stage: CompileStage = ""
    for frame in _frames(_innermost(exc)):  # outermost first: the last match is the deepest
        path = _path(frame)
        if path.endswith("torch/_inductor/codecache.py") and frame.f_code.co_name.startswith(_KERNEL_BUILDERS):
            stage = "kernel_compile"
            continue
        for fragment, marked in STAGE_MARKERS:
            if fragment in path:
                stage = marked
                break
    if not stage and _dynamos_own(exc):  # Dynamo re-raises its own errors without their frames (torch 2.13)
        stage = "dynamo"
    return stage


def _dynamos_own(exc: BaseException) -> bool:
    """An error Dynamo raised itself (an unsupported construct, a graph break under fullgraph), not a backend's."""
    from torch._dynamo.exc import BackendCompilerFailed, TorchDynamoException

    return isinstance(exc, TorchDynamoException) and not isinstance(exc, BackendCompilerFailed)


def _node_stack_trace(frame: types.FrameType) -> str:
    # ``n`` in ``run_node``; ``node`` in ``Interpreter.run``, which re-raises a node's error as its own (AOTAutograd's
    # metadata pass: a timm ConvNeXt under inference_mode on torch 2.11)
    for name in ("n", "node"):
        meta = getattr(frame.f_locals.get(name), "meta", None)
        trace = meta.get("stack_trace") if isinstance(meta, dict) else None
        if isinstance(trace, str) and trace:
            return trace
    return ""


def user_frames(exc: BaseException) -> list[Frame]:
    """The user's frames the failing operation came from, outermost first: the stack trace of the FX node being
    run when it raised (the innermost such frame), else the "from user code" frames of Dynamo's message."""
    inner = _innermost(exc)
    for frame in reversed(_frames(inner)):
        trace = _node_stack_trace(frame)
        if trace:
            return parse_frames(trace)
    for e in (exc, inner):
        found = parse_frames(str(e))
        if found:
            return found
    return []


def graph_cell_lines(exc: BaseException, locator: CellLocator) -> list[int]:
    """The cell lines of the graph Inductor was compiling when ``exc`` was raised: those its innermost frame's FX
    ``GraphModule`` nodes were traced from, sorted; [] where no frame holds one."""
    for frame in reversed(_frames(_innermost(exc))):
        for value in frame.f_locals.values():
            if isinstance(value, torch.fx.GraphModule):
                lines = {
                    line
                    for node in value.graph.nodes
                    if isinstance(trace := node.meta.get("stack_trace"), str)
                    and (line := locator.innermost_cell_line(parse_frames(trace))) is not None
                }
                if lines:
                    return sorted(lines)
    return []


def _no_compiler(exc: BaseException) -> bool:
    """Inductor found no working C++ compiler (``cpp.cxx``, ``$CXX``): no kernel can compile."""
    invalid = getattr(importlib.import_module("torch._inductor.exc"), "InvalidCxxCompiler", None)
    return isinstance(invalid, type) and isinstance(_innermost(exc), invalid)


_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)).replace("\\", "/") + "/"


def in_torch(filename: str) -> bool:
    """A frame of PyTorch's own code: its installed package, or the code FX generates.  Not any path with a folder
    named torch in it: a venv at ``/opt/torch/.venv`` holds timm's files too."""
    path = filename.replace("\\", "/")
    return path.startswith((_TORCH_DIR, "<eval_with_key>")) or any(
        f"{packages}/torch/" in path for packages in ("site-packages", "dist-packages")
    )


def describe(session: Session, info: ErrorInfo, exc: BaseException) -> None:
    """Fill ``info``'s compile stage, its cell line (the failing operation's, where the node says) and the library
    frame it came from."""
    info.compile_stage = compile_stage(exc)
    if _no_compiler(exc):
        info.toolchain = "broken"
    frames = user_frames(exc)
    locator = session.target.locator
    line = locator.innermost_cell_line(frames)
    if line is not None:
        info.line = line
    elif info.compile_stage in INDUCTOR_STAGES:  # no operation was being lowered: the graph it was compiling
        info.graph_lines = graph_cell_lines(exc, locator)
        if info.graph_lines:
            info.line = info.graph_lines[0]
    for filename, number, code in reversed(frames):  # the innermost frame neither the cell's nor torch's
        if filename.startswith(CELL_FILENAME_PREFIX) or locator.cell_line(filename, number, code) is not None:
            break
        if not in_torch(filename):
            info.frame_file, info.frame_line, info.frame_code = filename, number, code
            break


def try_aot_eager(session: Session, spec: VariantSpec, info: ErrorInfo) -> None:
    """Compile and run the code once more under backend="aot_eager", as the failed variant would (its dynamic and
    fullgraph), and record whether it ran; its trace events are dropped (they are no variant's)."""
    name = f"{spec.name} (aot_eager check)"
    session.progress(f"{spec.name}: compile failed; trying backend='aot_eager'")
    t = session.target
    session.recorder.take()
    try:
        # through a recording backend of its own, so that the entry it leaves is the profile's and goes with the
        # others (``compiler.dynamo_state``): a plain "aot_eager" entry stayed on the cell's code with the globals Dynamo
        # installed for it, and at exit their cleanup hooks printed "Exception ignored ... KeyError:
        # '__builtins_dict___2'"
        backend = RecordingBackend(inner="aot_eager", dynamic=spec.dynamic)
        compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
        call = session.calls.compiled(compiled_fn, name)
        session.calls.reset(name)
        call()
        device_sync(session.run.device.type)()
        info.aot_eager = "runs"
    except Exception as exc:  # noqa: BLE001 - its failure is the finding
        info.aot_eager, info.aot_eager_error = "fails", one_line(exc)
        let_go(exc)
    finally:
        session.recorder.take()


def check_toolchain(session: Session, info: ErrorInfo) -> None:
    """Compile and run a one-op function (``x + 1``) under Inductor on the run's device, fresh (a new code object,
    so no Dynamo cache entry answers for it, and Inductor's caches off, so no cached kernel does), and record
    whether it did: where it does not, no kernel compiles here.  Its trace events are dropped (they are no
    variant's)."""
    from torch._inductor import config as inductor_config

    session.progress(f"{info.variant}: its kernels did not compile; trying a one-op kernel")
    one_op = eval(compile("lambda x: x + 1", "<compile-profile toolchain check>", "eval"))
    session.recorder.take()
    try:
        with inductor_config.patch(force_disable_caches=True):
            one_op_compiled = torch.compile(one_op, backend="inductor")
            one_op_compiled(torch.ones(8, device=session.run.device.type))
            device_sync(session.run.device.type)()
        info.toolchain = "works"
    except Exception as exc:  # noqa: BLE001 - its failure is the finding
        info.toolchain, info.toolchain_error = "broken", one_line(exc)
        let_go(exc)
    finally:
        session.recorder.take()
