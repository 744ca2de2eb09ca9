"""Optimizers as each variant would find them: Dynamo rewrites the optimizers it traces.

Tracing ``opt.step()`` changes the user's optimizer object, not just the compiled code
(``torch/_dynamo/variables/optimizer.py``): a CUDA optimizer's ``step`` counters move from
the CPU to the device, and a param group whose state is still empty gets
``capturable=True``.  Eager code then runs differently: with device-side ``step``
counters and ``capturable=False``, eager AdamW reads each counter back with ``.item()``,
a host sync per parameter.  On an H200 a TransformerEncoderLayer(768) + AdamW step
measured 3.95 ms eagerly before any compile and 4.72 ms after one (the optimizer's only
change), so a profile that timed eager after compiling read 1.37x where the same code
gained 1.09x.

``OptimizerViews`` keeps both versions of those settings and installs the one each
variant would see: the optimizer as the cell's eager run left it for eager calls, and
as Dynamo made it for compiled calls.  The counter tensors are swapped as objects (so
guards on them keep holding) and carry their value across a swap, so both variants
count every step taken.  The namespace ends with the eager view: the user's optimizer
as one plain run of the cell leaves it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

_FLAGS = ("capturable",)


@dataclass
class _View:
    flags: list[dict[str, Any]]  # per param group, the flags Dynamo may change
    steps: dict[tuple[int, int], torch.Tensor] = field(default_factory=dict)  # (group, param) -> step tensor


def optimizers_in(values: Iterable[Any]) -> list[torch.optim.Optimizer]:
    """The optimizers among ``values`` and one container deep (lists, tuples, dict values)."""
    found: dict[int, torch.optim.Optimizer] = {}
    for value in values:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, torch.optim.Optimizer):
                found.setdefault(id(item), item)
    return list(found.values())


def lr_schedulers_in(named: dict[str, Any], own_module: str = "__main__") -> list[str]:
    """The names of the LR schedulers among ``named`` values, one container deep, and one attribute deep in
    objects of the user's own classes (``trainer.scheduler``)."""
    scheduler = torch.optim.lr_scheduler.LRScheduler
    found: dict[int, str] = {}

    def look(value: Any, name: str, depth: int) -> None:
        if isinstance(value, scheduler):
            found.setdefault(id(value), name)
        elif depth == 0 and isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                look(item, f"{name}[{i}]", 1)
        elif depth == 0 and isinstance(value, dict):
            for key, item in list(value.items()):
                look(item, f"{name}[{key!r}]", 1)
        elif depth == 0 and type(value).__module__ == own_module and hasattr(value, "__dict__"):
            for key, item in list(vars(value).items()):
                look(item, f"{name}.{key}", 1)

    for name, value in named.items():
        look(value, name, 0)
    return list(found.values())


class OptimizerViews:
    """The eager and the compiled view of some optimizers; ``install`` switches between them."""

    EAGER = "eager"
    COMPILED = "compiled"

    def __init__(self, optimizers: list[torch.optim.Optimizer]):
        self.optimizers = optimizers
        self._views: dict[str, list[_View]] = {self.EAGER: self._read()}
        self.current = self.EAGER

    def record_compiled(self) -> bool:
        """Take what the optimizers look like now (after compiling) as the compiled view; True if it differs."""
        compiled = self._read()
        self._views[self.COMPILED] = compiled
        self.current = self.COMPILED
        return any(_differs(a, b) for a, b in zip(self._views[self.EAGER], compiled))

    def install(self, view: str) -> None:
        """Make the optimizers look as ``view`` has them, carrying each step counter's value over."""
        if view == self.current or view not in self._views:
            return
        old, new = self._views[self.current], self._views[view]
        for opt, before, after in zip(self.optimizers, old, new):
            for group, flags in zip(opt.param_groups, after.flags):
                group.update(flags)
            for (g, i), step in after.steps.items():
                param = opt.param_groups[g]["params"][i]
                state = opt.state.get(param)
                if state is None or "step" not in state:
                    continue
                previous = before.steps.get((g, i))
                if previous is not None and previous is not step:
                    with torch.no_grad():
                        step.copy_(previous)
                state["step"] = step
        self.current = view

    def _read(self) -> list[_View]:
        views = []
        for opt in self.optimizers:
            flags = [{k: group[k] for k in _FLAGS if k in group} for group in opt.param_groups]
            steps = {}
            for g, group in enumerate(opt.param_groups):
                for i, param in enumerate(group["params"]):
                    step = opt.state.get(param, {}).get("step")
                    if isinstance(step, torch.Tensor):
                        steps[(g, i)] = step
            views.append(_View(flags=flags, steps=steps))
        return views


def _differs(a: _View, b: _View) -> bool:
    return a.flags != b.flags or a.steps.keys() != b.steps.keys() or any(a.steps[k] is not b.steps[k] for k in a.steps)
