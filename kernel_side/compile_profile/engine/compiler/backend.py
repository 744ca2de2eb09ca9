"""The ``compile_profile`` torch.compile backend: record each Dynamo graph, then hand off.

Like the small backends in ``torch/_dynamo/backends/debugging.py`` this is a
plain function from an FX graph to a callable.  It returns exactly what the
inner backend returns, so code compiled under it is the code plain
``torch.compile`` would run.

    torch.compile(model, backend="compile_profile")                 # Inductor inside
    torch.compile(model, backend="compile_profile", mode="max-autotune")
    torch.compile(model, backend=RecordingBackend(inner="aot_eager"))
"""

from __future__ import annotations

import collections
import importlib
import linecache
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch._dynamo.backends import registry
from torch._dynamo.backends.registry import lookup_backend

from ...profile_run import RECORDING_BACKEND
from ..common.stack_text import Frame, parse_frames
from .variants import VariantSpec


@dataclass
class RecordedGraph:
    """What the backend saw of one Dynamo graph."""

    index: int
    code: str
    op_counts: dict[str, int]
    input_shapes: list[list[int]]
    node_stacks: list[list[Frame]]  # each node's user stack (file, line, code), outermost first
    node_names: list[str] = field(default_factory=list)  # the node of each stack
    handoff_s: float = 0.0  # time spent in the inner backend (its compile)
    started_at: float = 0.0
    caller_frames: list[Frame] = field(default_factory=list)  # ``caller_frames()`` when it was compiled


@dataclass
class RecordingBackend:
    """A torch.compile backend that records graphs and delegates to ``inner``.

    ``mode``, ``options`` and ``dynamic`` are honoured exactly as
    ``torch.compile`` honours them for Inductor, through the same wrapper.
    A fresh instance is a fresh backend for Dynamo's cache, so each profile
    compiles afresh instead of reusing entries compiled for other backends.
    """

    inner: str | Callable = "inductor"
    mode: str | None = None
    options: dict[str, Any] | None = None
    dynamic: bool | None = None
    graphs: list[RecordedGraph] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._inner_fn = _make_inner(self.inner, self.mode, self.options, self.dynamic)

    @classmethod
    def for_variant(cls, spec: VariantSpec) -> RecordingBackend:
        """A fresh backend compiling as ``spec.torch_compile_call()`` says (``fullgraph`` goes to torch.compile)."""
        return cls(inner=spec.backend, mode=spec.mode, options=dict(spec.options) or None, dynamic=spec.dynamic)

    @property
    def __name__(self) -> str:  # Dynamo names compiled functions after their backend
        return RECORDING_BACKEND

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        with self._lock:
            recorded = record_graph(gm, example_inputs, index=len(self.graphs))
            self.graphs.append(recorded)
        start = time.perf_counter()
        try:
            return self._inner_fn(gm, example_inputs)
        finally:
            recorded.handoff_s = time.perf_counter() - start


def _make_inner(inner: str | Callable, mode: str | None, options: dict | None, dynamic: bool | None) -> Callable:
    if inner == "inductor":
        # torch.compile(backend="inductor") imports Inductor's compiler when it is called, before the first
        # call compiles; imported lazily here it landed in the timed first call (1.0 s of a 2.4 s warm
        # compile of a CPU training step, which plain torch.compile compiled in 1.85 s)
        # (imported by name: ``import torch._inductor.compile_fx`` here would make ``torch`` a local name of
        # the whole function, unbound in the branch below)
        importlib.import_module("torch._inductor.compile_fx")

        # The same wrapper torch.compile builds for backend="inductor": mode and
        # options become the same Inductor config patches.
        return torch._TorchCompileInductorWrapper(mode, options, dynamic)
    if mode not in (None, "default") or options:
        return torch._TorchCompileWrapper(inner, mode, options, dynamic)
    return lookup_backend(inner)


def record_graph(gm: torch.fx.GraphModule, example_inputs: list[Any], *, index: int) -> RecordedGraph:
    op_counts: collections.Counter[str] = collections.Counter()
    stacks: list[list[Frame]] = []
    names: list[str] = []
    for node in gm.graph.nodes:
        if node.op in ("call_function", "call_method", "call_module"):
            op_counts[_target_name(node, gm)] += 1
            stacks.append(parse_frames(node.meta.get("stack_trace") or ""))
            names.append(node.name)
    shapes = [list(t.shape) if isinstance(t, torch.Tensor) else [] for t in example_inputs]
    try:
        code = gm.print_readable(print_output=False)
    except Exception:  # noqa: BLE001 - readable printing is best effort; the plain code always exists
        code = gm.code
    return RecordedGraph(
        index=index,
        code=code,
        op_counts=dict(op_counts),
        input_shapes=shapes,
        node_stacks=stacks,
        node_names=names,
        started_at=time.perf_counter(),
        caller_frames=caller_frames(),
    )


def caller_frames() -> list[Frame]:
    """The Python frames running when Dynamo began compiling the frame this graph came from, outermost
    first, each at the line it was running: the frame chain up to Dynamo's frame callback
    (``torch/_dynamo/convert_frame.py``), [] when that is not on the stack (the backend called directly).

    ``dynamo_start``'s stack names the callers too, but its traceback leaves out every frame running code
    Dynamo transformed: a graph resumed in a helper of the user's module after a graph break there
    (``print`` in ``noisy_scale``, called from a cell line) listed the notebook's module frame and torch's
    ``compile_wrapper``, neither the cell's frame nor the helper's, so its kernel had no cell line; the
    frame chain has both, at the lines that made the calls (the cell's ``y = noisy_scale(h)``)."""
    import torch._dynamo.convert_frame as convert_frame

    stop = convert_frame.__file__
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    out: list[Frame] = []
    for f in reversed(frames):
        filename = f.f_code.co_filename
        if filename == stop:
            return out
        line = f.f_lineno or 0
        out.append((filename, line, linecache.getline(filename, line).strip()))
    return []


def _target_name(node: torch.fx.Node, gm: torch.fx.GraphModule) -> str:
    if node.op == "call_module" and isinstance(node.target, str):  # a call_module's target is its path
        try:
            return type(gm.get_submodule(node.target)).__name__
        except AttributeError:
            return str(node.target)
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    target = node.target
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", None) or str(target)
    if module.startswith("torch") and not module.startswith("torch._ops"):
        return f"torch.{name}" if module in ("torch", "torch.functional") else f"{module}.{name}"
    if module == "_operator":
        return f"operator.{name}"
    return str(target) if not module else f"{module}.{name}"


# Standalone use: graphs recorded when no profile is running are kept here (bounded).
standalone_graphs: collections.deque[RecordedGraph] = collections.deque(maxlen=256)


def compile_profile_backend(
    gm: torch.fx.GraphModule,
    example_inputs: list[Any],
    *,
    mode: str | None = None,
    options: dict[str, Any] | None = None,
) -> Callable:
    """``torch.compile(..., backend="compile_profile")``: record, then compile with Inductor."""
    standalone_graphs.append(record_graph(gm, example_inputs, index=len(standalone_graphs)))
    return _make_inner("inductor", mode, options, None)(gm, example_inputs)


def register() -> None:
    """Make ``backend="compile_profile"`` resolve even where the entry point is not installed.

    Installed, the package declares the backend under the ``torch_dynamo_backends``
    entry point and torch imports this module on first use; registering at import
    as well would trip Dynamo's duplicate-name check, so this runs on demand.
    """
    registry._lazy_import()  # also discovers entry points
    if RECORDING_BACKEND not in registry._BACKENDS:
        registry.register_backend(compile_profile_backend, name=RECORDING_BACKEND)
