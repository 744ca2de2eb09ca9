"""The tensors the profiled code changes in place (an optimizer step, ``x.add_(1)``), saved so the correctness runs
and the sequence pass each start from the same values, and compared as outputs.

Contract: ``MutableState`` is made from a namespace after the first eager run; it watches the tensors its names
hold (not containers: a notebook's ``Out`` and long lists), tells those a run changed by their version counters
(and those ``include`` names, which a fused optimizer changes without moving one), saves them, and puts them
back.  It words nothing and runs no code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from .reachable_tensors import named_tensors

STEP_COUNTER = "['step']"  # an optimizer's per-parameter step count, as ``named_tensors`` names it


class MutableState:
    """Tensors reachable from the namespace that a run changes in place, so they can be
    put back before each correctness run (optimizer steps, ``x.add_(1)``)."""

    def __init__(self, namespace: dict[str, Any]):
        # names only, not containers: the notebook namespace holds ``Out`` and long lists of numbers
        values = {name: value for name, value in list(namespace.items()) if not name.startswith("_")}
        named = named_tensors(values, container_depth=0)
        self._names = [name for name, t in named.items() if not t.is_inference()]
        self._tensors = [named[name] for name in self._names]
        self._versions = [t._version for t in self._tensors]
        self._saved: _Snapshot = []
        self._saved_names: list[str] = []
        self._always: set[int] = set()  # ids of tensors ``include`` says change

    def include(self, changed: list[tuple[torch.Tensor, str]]) -> None:
        """Tensors known to change though their version counter may not move (``plain_state`` tells them by their
        values: a fused optimizer's step moves no version counter, so a fused AdamW step's weights were not put
        back between the correctness runs, and eager "changed between runs": nothing was compared)."""
        known = {id(t) for t in self._tensors}
        for t, name in changed:
            if id(t) not in known and not t.is_inference():
                known.add(id(t))
                self._names.append(name)
                self._tensors.append(t)
                self._versions.append(t._version)
        self._always = {id(t) for t, _ in changed}

    def _mutated(self) -> list[tuple[str, torch.Tensor]]:
        """The tensors whose version counter moved since construction, and those ``include`` says change, by name."""
        return [
            (name, t)
            for name, t, v in zip(self._names, self._tensors, self._versions)
            if t._version != v or id(t) in self._always
        ]

    def save_mutated_since_creation(self) -> int:
        """Snapshot the tensors whose version counter moved since construction; return how many."""
        mutated = self._mutated()
        self._saved = _snapshot([t for _, t in mutated])
        self._saved_names = [name for name, _ in mutated]
        return len(self._saved)

    @property
    def compared_names(self) -> list[str]:
        """The names ``after_run`` gives."""
        return [name for name in self._saved_names if not name.endswith(STEP_COUNTER)]

    @property
    def mutated_bytes(self) -> int:
        return sum(t.numel() * t.element_size() for t, _, _ in self._saved)

    def after_run(self) -> dict[str, torch.Tensor]:
        """What a run left in the tensors it changes in place, by name (a training step's weights and
        optimizer state: its result as much as the loss it returns).  Not an optimizer's step counters:
        a count, and on CUDA the compiled variant's are other tensors (``OptimizerViews``), so the eager
        view's would read as never advanced by a compiled step."""
        return {
            name: t.detach().clone()
            for name, (t, _, _) in zip(self._saved_names, self._saved)
            if not name.endswith(STEP_COUNTER)
        }

    @contextlib.contextmanager
    def kept(self) -> Iterator[None]:
        """Whatever runs inside leaves the tensors changed since construction as they are on entry (the
        bisection's runs after the profile's last eager run); the snapshot ``restore`` puts back stays as it is."""
        now = _snapshot([t for _, t in self._mutated()])
        try:
            yield
        finally:
            _put_back(now)

    def restore(self) -> None:
        _put_back(self._saved)


_Snapshot = list[tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]]  # (tensor, its value, its grad's)


def _snapshot(tensors: list[torch.Tensor]) -> _Snapshot:
    return [(t, t.detach().clone(), t.grad.detach().clone() if t.grad is not None else None) for t in tensors]


def _put_back(saved: _Snapshot) -> None:
    with torch.no_grad():
        for tensor, value, grad in saved:
            tensor.copy_(value)
            if grad is not None and tensor.grad is not None:
                tensor.grad.copy_(grad)
