"""The state of the random number generators a cell draws from, taken and put back.

A profile runs the cell dozens of times, and each run that draws random numbers advances the
generators: after ``torch.manual_seed(0)`` a profiled ``r = torch.randn(3)`` left torch's generator
about 60 draws on, so a seeded notebook diverged from that cell on, and ``r`` (the last run's draw)
was not what the first run printed.  ``RandomState.capture`` before the first eager run and after it
lets the profiler replay the first run's draws in the run whose values the namespace keeps, and leave
the generators as one plain run of the cell leaves them.

Covered: torch's default CPU generator, every initialised CUDA device's default generator (one that
the first run initialised is put back to its seed, where it started), Python's ``random`` and numpy's
global ``np.random`` state, and the generator objects among the values the code reads by name
(``torch.Generator``, ``random.Random``, numpy's ``Generator`` and ``RandomState``).  Generators held
inside other objects (a DataLoader's sampler) are not found; docs/reliability.md says so.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import torch


def _numpy() -> Any:
    return sys.modules.get("numpy")  # a cell that never imported numpy draws nothing from it


def _cuda_initialized() -> bool:
    return torch.cuda.is_available() and torch.cuda.is_initialized()


def _object_state(value: Any) -> Any:
    """A copy of ``value``'s state if it is a generator, else None."""
    if isinstance(value, torch.Generator):
        return value.get_state()
    if isinstance(value, random.Random):
        return value.getstate()
    np = _numpy()
    if np is not None:
        if isinstance(value, np.random.Generator):
            return value.bit_generator.state
        if isinstance(value, np.random.RandomState):
            return value.get_state(legacy=False)
    return None


def _set_object_state(value: Any, state: Any) -> None:
    if isinstance(value, torch.Generator):
        value.set_state(state)
    elif isinstance(value, random.Random):
        value.setstate(state)
    elif isinstance(value, _numpy().random.Generator):
        value.bit_generator.state = state
    else:
        value.set_state(state)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    np = _numpy()
    if np is not None and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        return bool(np.array_equal(a, b))
    return a == b


@dataclass
class RandomState:
    cpu: torch.Tensor
    cuda: list[torch.Tensor] | None  # None: CUDA was not initialised
    python: Any
    numpy: Any
    objects: list[tuple[Any, Any]] = field(default_factory=list)  # (generator object, its state)

    @classmethod
    def capture(cls, values: Iterable[Any] = ()) -> RandomState:
        """The global generators' state, and that of the generator objects among ``values``."""
        np = _numpy()
        objects, seen = [], set()
        for value in values:
            if id(value) in seen:
                continue
            seen.add(id(value))
            state = _object_state(value)
            if state is not None:
                objects.append((value, state))
        return cls(
            cpu=torch.random.get_rng_state(),
            cuda=torch.cuda.get_rng_state_all() if _cuda_initialized() else None,
            python=random.getstate(),
            numpy=np.random.get_state(legacy=False) if np is not None else None,
            objects=objects,
        )

    def restore(self) -> None:
        torch.random.set_rng_state(self.cpu)
        if self.cuda is not None:
            torch.cuda.set_rng_state_all(self.cuda)
        elif _cuda_initialized():
            # CUDA started during the first run: its generators began at their seeds (offset 0)
            for generator in torch.cuda.default_generators:
                generator.manual_seed(generator.initial_seed())
        random.setstate(self.python)
        np = _numpy()
        if self.numpy is not None and np is not None:
            np.random.set_state(self.numpy)
        for value, state in self.objects:
            _set_object_state(value, state)

    def same_as(self, other: RandomState) -> bool:
        """Whether every generator both cover stands where it stands in ``other``."""
        if not torch.equal(self.cpu, other.cpu):
            return False
        if self.cuda is not None and other.cuda is not None and not _same(self.cuda, other.cuda):
            return False
        if self.python != other.python:
            return False
        if self.numpy is not None and other.numpy is not None and not _same(self.numpy, other.numpy):
            return False
        theirs = {id(value): state for value, state in other.objects}
        return all(id(v) not in theirs or _same(s, theirs[id(v)]) for v, s in self.objects)
