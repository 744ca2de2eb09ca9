"""The tensors reachable from values of the namespace: the one walk that the device choice, the
in-place-state restore and the float64 reference share.

A value reaches: itself if it is a tensor, a module's parameters and buffers, an optimizer's
state tensors, and the items of lists, tuples and dicts (their values), down to
``container_depth`` levels of containers (``None``: any depth; a container met twice is walked
once, so cycles end).  Each tensor is listed once, in the order first met.

``state_reach`` is the same walk for what a run may change (``plain_state``): it also lists the containers
items go in and out of (lists, dicts, an optimizer's state and param groups, a module's parameter dicts, the
attributes of LR schedulers and of the user's own objects) and tells module buffers from other tensors.

The callers differ only in how deep they look into containers, which is their own choice:
the device of a run looks one container deep (``[x, y]`` of inputs); the in-place restore looks at
names only (it walks the whole notebook namespace, where ``Out`` and long lists of numbers are);
the float64 reference copies containers at any depth, so it looks at any depth.
"""

from __future__ import annotations

import collections
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
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


# -- the state a run may change: tensors, the gradients of leaves, and the containers items go in and out of ----------

# Containers larger than this are neither watched nor walked: a list of a million numbers a cell reads is data,
# and copying or walking it would cost more than the profile's own bookkeeping should.
MAX_WATCHED_ITEMS = 1_000_000
STATE_DEPTH = 4  # containers and objects within containers, this many levels down


@dataclass(frozen=True)
class Container:
    """A mutable container a run may change without touching a tensor: a list it appends to, a dict it fills,
    an optimizer's per-parameter state and param groups, a module's parameter dicts (a parameter replaced), an
    object's attributes (a counter, a scheduler's epoch).  ``public`` : only its keys that do not start with "_"
    are the user's state (a module's attributes beside torch's own hooks)."""

    value: Any  # a list, dict, set or deque; for an object, its ``__dict__``
    name: str
    public: bool = False


# What a tensor is to the state walk: "state" (a module's parameter, an optimizer's state tensor, a value the code
# reads by name), "buffer" (a module's buffer or tensor attribute: eager BatchNorm updates its running stats
# without moving their version counter, torch 2.13), or "item" (inside a container or an object).
TensorKind = str


@dataclass
class StateReach:
    """What ``state_reach`` found: each tensor once, with its name and its ``TensorKind``; the containers, each
    once."""

    tensors: dict[int, tuple[torch.Tensor, str, TensorKind]] = field(default_factory=lambda: {})
    containers: list[Container] = field(default_factory=lambda: [])


def state_reach(roots: list[tuple[str, Any]], *, own_module: str = "__main__") -> StateReach:
    """The tensors and containers reachable from ``roots`` (name, value): modules (parameters, buffers, tensor
    attributes, the dicts that hold them; the public attributes of modules whose class ``own_module`` defines),
    optimizers (state tensors, per-parameter state dicts, param groups), LR schedulers and objects of classes
    ``own_module`` defines (their attributes), and lists, tuples, dicts, sets and deques, ``STATE_DEPTH`` levels
    down.  Not: iterators and generators (a run's draw from them is not undone by putting attributes back), nor
    objects of other libraries' classes."""
    found = StateReach()
    seen: set[int] = set()

    def tensor(t: torch.Tensor, name: str, kind: TensorKind) -> None:
        if id(t) not in found.tensors:
            found.tensors[id(t)] = (t, name, kind)

    def watch(value: Any, name: str, public: bool = False) -> bool:
        if id(value) in seen:
            return False
        seen.add(id(value))
        found.containers.append(Container(value, name, public))
        return True

    def visit(value: Any, name: str, depth: int) -> None:
        if isinstance(value, torch.Tensor):
            tensor(value, name, "state" if depth == 0 else "item")
        elif isinstance(value, torch.nn.Module):
            if id(value) in seen:
                return
            for mod_name, module in value.named_modules(remove_duplicate=True):
                prefix = f"{name}.{mod_name}" if mod_name else name
                for part in ("_parameters", "_buffers", "_modules"):
                    watch(getattr(module, part, {}), f"{prefix}.{part}")
                for key, t in module._parameters.items():
                    if t is not None:
                        tensor(t, f"{prefix}.{key}", "state")
                for key, t in [*module._buffers.items(), *vars(module).items()]:
                    if isinstance(t, torch.Tensor):
                        tensor(t, f"{prefix}.{key}", "buffer")
                if type(module).__module__ == own_module and watch(vars(module), prefix, public=True):
                    for key, item in list(vars(module).items()):
                        if not key.startswith("_") and depth < STATE_DEPTH:
                            visit(item, f"{prefix}.{key}", depth + 1)
            seen.add(id(value))
        elif isinstance(value, torch.optim.Optimizer):
            if not watch(value.state, f"{name}.state"):
                return
            names = {id(t): n for t, n, _ in found.tensors.values()}
            watch(value.param_groups, f"{name}.param_groups")
            for i, group in enumerate(value.param_groups):
                watch(group, f"{name}.param_groups[{i}]")
            for param, state in list(value.state.items()):
                param_name = names.get(id(param), f"#{len(names)}")
                watch(state, f"{name}.state[{param_name}]")
                for key, t in state.items():
                    if isinstance(t, torch.Tensor):
                        tensor(t, f"{name}.state[{param_name}][{key!r}]", "state")
        elif isinstance(value, (list, dict, set, collections.deque)):
            if len(value) > MAX_WATCHED_ITEMS or not watch(value, name) or depth >= STATE_DEPTH:
                return
            if isinstance(value, dict):
                for key, item in list(value.items()):
                    visit(item, f"{name}[{key!r}]", depth + 1)
            elif not isinstance(value, set):
                for i, item in enumerate(list(value)):
                    visit(item, f"{name}[{i}]", depth + 1)
        elif isinstance(value, tuple):
            if len(value) <= MAX_WATCHED_ITEMS and depth < STATE_DEPTH and id(value) not in seen:
                seen.add(id(value))
                for i, item in enumerate(value):
                    visit(item, f"{name}[{i}]", depth + 1)
        elif _object_with_state(value, own_module):
            attributes = vars(value)
            if watch(attributes, name) and depth < STATE_DEPTH:
                for key, item in list(attributes.items()):
                    visit(item, f"{name}.{key}", depth + 1)

    # optimizers after modules, so that their state is named after the parameters it belongs to
    ordered = sorted(roots, key=lambda item: isinstance(item[1], torch.optim.Optimizer))
    for name, value in ordered:
        visit(value, name, 0)
    return found


def _object_with_state(value: Any, own_module: str) -> bool:
    """An LR scheduler, or an object of a class the user's own code defines (a notebook's ``__main__``): its
    attributes are state a run may change.  Not an iterator or a generator, whose position no attribute holds."""
    if not hasattr(value, "__dict__") or isinstance(value, (type, types.ModuleType, types.FunctionType)):
        return False
    if hasattr(value, "__next__"):
        return False
    if isinstance(value, (torch.optim.lr_scheduler.LRScheduler, types.SimpleNamespace)):
        return True
    return type(value).__module__ == own_module
