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

from typing import Any, Iterable

import torch


def reachable_tensors(values: Iterable[Any], *, container_depth: int | None = None) -> list[torch.Tensor]:
    """The distinct tensors reachable from ``values`` (see the module docstring)."""
    found: dict[int, torch.Tensor] = {}
    walked: set[int] = set()  # containers already walked

    def visit(value: Any, depth: int) -> None:
        if isinstance(value, torch.Tensor):
            found.setdefault(id(value), value)
        elif isinstance(value, torch.nn.Module):
            for t in [*value.parameters(), *value.buffers()]:
                found.setdefault(id(t), t)
        elif isinstance(value, torch.optim.Optimizer):
            for state in value.state.values():
                for t in state.values():
                    if isinstance(t, torch.Tensor):
                        found.setdefault(id(t), t)
        elif isinstance(value, (list, tuple, dict)):
            if (container_depth is not None and depth >= container_depth) or id(value) in walked:
                return
            walked.add(id(value))
            for item in value.values() if isinstance(value, dict) else value:
                visit(item, depth + 1)

    for value in values:
        visit(value, 0)
    return list(found.values())


def device_types(values: Iterable[Any]) -> set[str]:
    """Device types of the tensors among ``values`` and one container deep."""
    return {t.device.type for t in reachable_tensors(values, container_depth=1)}
