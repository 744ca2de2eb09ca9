"""DDPOptimizer's pieces read from the trace: which parameters each piece holds and their size.

When a ``DistributedDataParallel`` module runs under torch.compile, Dynamo's DDPOptimizer
(``torch/_dynamo/backends/distributed.py``, ``compile_fn``) splits the Dynamo graph at DDP's
gradient-bucket boundaries, logs the split (``optimize_ddp_split_graph``) and each piece
(``optimize_ddp_split_child``, ``{"name": "submod_0"}``), then compiles the pieces in order.  A
piece's printed ``forward`` lists its inputs; the parameters among them are named after their
Dynamo source, ``L['self']._modules['layers']._modules['0']._parameters['weight']`` printed as
``l_self_modules_layers_modules_0_parameters_weight_``.

Contract: ``param_name`` gives the parameter's dotted name (``layers.0.weight``, relative to the
module whose ``forward`` Dynamo compiled) or None for an input that is no parameter;
``annotation_bytes`` the size of a tensor from its annotation (``f32[512, 64]``: 131072), as
DDPOptimizer counts a parameter (``untyped_storage().nbytes()``: the same for a parameter that
owns its storage), None for a symbolic shape.  The trace does not say whether a parameter requires
grad: DDPOptimizer leaves frozen ones out of a bucket's size, these counts do not.
"""

from __future__ import annotations

import math
import re

from .graph_text import placeholders

_SOURCE = re.compile(r"_(modules|parameters|buffers)_")
_ROOT = re.compile(r"^[lg]_", re.IGNORECASE)  # a local (L['self']) or global (G['model']) source
_ANNOTATION = re.compile(r"^(\w+)\[([^\]]*)\]")


def param_name(placeholder: str) -> str | None:
    """``l_self_modules_layers_modules_0_parameters_weight_`` -> ``layers.0.weight``; a root other than
    ``self`` stays (``g_model_parameters_w_`` -> ``model.w``); None for an input that is no parameter
    (``l_x_``, a buffer, an intermediate of an earlier piece)."""
    if not _ROOT.match(placeholder):
        return None
    parts = _SOURCE.split(_ROOT.sub("", placeholder, count=1).rstrip("_"))
    # root, kind, name, kind, name, ...: a parameter's last kind is "parameters"
    if len(parts) < 3 or parts[-2] != "parameters":
        return None
    root, names = parts[0], parts[2::2]
    return ".".join(([] if root == "self" else [root]) + names)


def _itemsizes() -> dict[str, int]:
    # "f32" for torch.float32, as graphs are printed.  torch 2.6's torch.fx.graph defines it, 2.10's and 2.13's
    # import it from torch.utils._dtype_abbrs, none lists it in __all__: the one path every supported torch has
    from torch.fx.graph import dtype_abbrs  # pyright: ignore[reportPrivateImportUsage]

    return {abbr: dtype.itemsize for dtype, abbr in dtype_abbrs.items()}


_ITEMSIZE: dict[str, int] = {}


def annotation_bytes(annotation: str) -> int | None:
    """``f32[512, 64]`` -> 131072, ``bf16[8]`` -> 16; None for a symbolic shape or an unknown dtype."""
    match = _ANNOTATION.match(annotation)
    if not match:
        return None
    if not _ITEMSIZE:
        _ITEMSIZE.update(_itemsizes())
    itemsize = _ITEMSIZE.get(match.group(1))
    dims = [d.strip() for d in match.group(2).split(",") if d.strip()]
    if itemsize is None or not all(d.isdigit() for d in dims):
        return None
    return itemsize * math.prod(int(d) for d in dims)


def piece_params(code: str) -> list[tuple[str, int]]:
    """The parameters a printed piece takes, in its signature's order, each with its bytes (0 when
    the annotation gives none)."""
    out = []
    for placeholder, annotation in placeholders(code):
        name = param_name(placeholder)
        if name is not None:
            out.append((name, annotation_bytes(annotation) or 0))
    return out


def input_shapes(code: str) -> list[list[int]] | None:
    """The shapes of a printed graph's inputs, None when one is symbolic or unannotated."""
    shapes = []
    for _, annotation in placeholders(code):
        match = _ANNOTATION.match(annotation)
        dims = [d.strip() for d in match.group(2).split(",") if d.strip()] if match else None
        if dims is None or not all(d.isdigit() for d in dims):
            return None
        shapes.append([int(d) for d in dims])
    return shapes
