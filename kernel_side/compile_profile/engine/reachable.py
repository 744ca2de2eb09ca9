"""The tensors reachable from values of the namespace: the one walk that the device choice, the
in-place-state restore and the float64 reference share.

A value reaches: itself if it is a tensor, a module's parameters and buffers, an optimizer's
state tensors, and the items of lists, tuples and dicts (their values), down to
``container_depth`` levels of containers (``None``: any depth; a container met twice is walked
once, so cycles end).  Each tensor is listed once, in the order first met.

The callers differ only in how deep they look into containers, which is their own choice:
the device of a run looks one container deep (``[x, y]`` of inputs); the in-place restore looks at
names only (it walks the whole notebook namespace, where ``Out`` and long lists of numbers are);
the float64 reference copies containers at any depth, so it looks at any depth.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch


def reachable_tensors(values: Iterable[Any], *, container_depth: int | None = None) -> list[torch.Tensor]:
    """The distinct tensors reachable from ``values`` (see the module docstring)."""
    return [t for t, _ in _walk([("", v) for v in values], container_depth).values()]


def named_tensors(namespace: dict[str, Any], *, container_depth: int | None = None) -> dict[str, torch.Tensor]:
    """The same walk over a namespace, each tensor under the name a reader would write for it
    (``model.layers.0.weight``, ``opt.state[model.layers.0.weight]['exp_avg']``, ``xs[1]``)."""
    return {name: t for t, name in _walk(list(namespace.items()), container_depth).values()}


def _walk(values: list[tuple[str, Any]], container_depth: int | None) -> dict[int, tuple[torch.Tensor, str]]:
    found: dict[int, tuple[torch.Tensor, str]] = {}
    walked: set[int] = set()  # containers already walked

    def visit(value: Any, name: str, depth: int) -> None:
        if isinstance(value, torch.Tensor):
            found.setdefault(id(value), (value, name))
        elif isinstance(value, torch.nn.Module):
            for key, t in [*value.named_parameters(), *value.named_buffers()]:
                found.setdefault(id(t), (t, f"{name}.{key}" if name else key))
        elif isinstance(value, torch.optim.Optimizer):
            for param, state in value.state.items():
                param_name = found[id(param)][1] if id(param) in found else f"#{len(found)}"
                for key, t in state.items():
                    if isinstance(t, torch.Tensor):
                        found.setdefault(id(t), (t, f"{name}.state[{param_name}][{key!r}]"))
        elif isinstance(value, (list, tuple, dict)):
            if (container_depth is not None and depth >= container_depth) or id(value) in walked:
                return
            walked.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                visit(item, f"{name}[{key!r}]" if isinstance(value, dict) else f"{name}[{key}]", depth + 1)

    for name, value in values:
        visit(value, name, 0)
    return found


def device_types(values: Iterable[Any]) -> set[str]:
    """Device types of the tensors among ``values`` and one container deep."""
    return {t.device.type for t in reachable_tensors(values, container_depth=1)}
