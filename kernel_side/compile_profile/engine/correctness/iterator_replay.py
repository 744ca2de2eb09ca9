"""Iterators the code draws from, replayed so that every correctness run reads the same inputs.

A cell that reads a batch from an iterator (``xb = next(batches)``, ``yb = model(xb)``, the usual data-loader
pattern) draws another batch on each run, so compiled and eager were compared on different inputs: "compiled
results differ from eager in xb, yb: xb compiled gave torch.float32 [8, 17, 128], eager [8, 32, 128]".

For each correctness run, each iterator among the globals the code reads is given as it was before the first
of them, without changing its type: Dynamo guards on the type of a global it calls ``next()`` on (torch 2.13:
``___check_type_id(G['batches'])``), so another type recompiles the frame, and a recompile during the check
would be the tool's, not the user's.  Three kinds can be so replayed:

* a generator: swapped for a generator that yields what the first run drew from the original, each item a
  fresh clone (a run may change a batch in place), drawing further from the original only when a run asks for
  more than the first did (``convert`` changes each item as given: the reference run's float64 copies);
* a list, tuple or range iterator: swapped for a copy at the same position (``copy.copy`` of one is
  independent of it); the original is then moved to where the first run left its copy;
* a DataLoader's iterator: its class's ``__next__`` answers for that one object from the replay during the
  run and is put back after it (Dynamo never traces into it: torch/utils is on its skip list).

The original ends advanced by what the first run drew, as one plain run of the cell advances it.  Any other
iterator (a file, ``map``/``zip``, ``itertools`` objects, a class of the user's, which Dynamo may trace into) is
listed in ``not_replayed``: the caller's second eager run then tells whether the inputs changed.  A replay
stands in for ``next()`` and ``for``, not an iterator's other methods; a cell that fails on one is run again
without replays.
"""

from __future__ import annotations

import contextlib
import copy
import types
from collections.abc import Callable, Generator, Iterator
from typing import Any

import torch

from ..cell.names import substituted


def is_iterator(value: Any) -> bool:
    """Something that yields another item on each ``next()``: running the code again reads other inputs."""
    return isinstance(value, Iterator) and not isinstance(value, torch.Tensor)


def _fresh(item: Any) -> Any:
    """A copy of a drawn item that a run may change without changing what the next run is given."""
    if isinstance(item, torch.Tensor):
        copy = item.detach().clone()
        return copy.requires_grad_(item.requires_grad) if item.is_leaf else copy
    if isinstance(item, list):
        return [_fresh(v) for v in item]
    if isinstance(item, tuple):
        fresh = [_fresh(v) for v in item]
        return type(item)(*fresh) if hasattr(item, "_fields") else tuple(fresh)  # a named tuple keeps its type
    if isinstance(item, dict):
        return {k: _fresh(v) for k, v in item.items()} if type(item) is dict else item  # a mapping type: as it is
    return item


_COPYABLE = (type(iter([])), type(iter(())), type(iter(range(0))))


def _dataloader_iterator(value: Any) -> bool:
    from torch.utils.data.dataloader import _BaseDataLoaderIter

    return isinstance(value, _BaseDataLoaderIter)


class IteratorReplay:
    """The iterators in ``values`` (a name -> value map of the globals the code reads), replayed run after run."""

    def __init__(self, values: dict[str, Any]):
        iterators = {name: value for name, value in values.items() if is_iterator(value)}
        # a generator, a list, tuple or range iterator (types typeshed does not name) or a DataLoader's
        self.originals: dict[str, Any] = {
            name: value
            for name, value in iterators.items()
            if isinstance(value, (types.GeneratorType, *_COPYABLE)) or _dataloader_iterator(value)
        }
        self.not_replayed = [name for name in iterators if name not in self.originals]
        # a copyable iterator where the first run found it: each run starts from a copy of this, also one after
        # ``finish`` moved the original on (a bisection's runs, which are judged against the first runs)
        self._starts = {name: copy.copy(v) for name, v in self.originals.items() if isinstance(v, _COPYABLE)}
        self._drawn: dict[str, list[Any]] = {name: [] for name in self.originals}
        self._ended: set[str] = set()
        self._positions: dict[str, Any] = {}  # a copyable iterator's position after the first run

    @property
    def names(self) -> list[str]:
        return list(self.originals)

    @property
    def drawn(self) -> dict[str, int]:
        """How many items each iterator gave the runs (the first run's draws, and any a later run asked for)."""
        out = {name: len(items) for name, items in self._drawn.items()}
        for name, position in self._positions.items():
            now = self.originals[name].__reduce__()
            out[name] = position - now[2] if position is not None and len(now) > 2 else 0
        return out

    @contextlib.contextmanager
    def run(self, namespace: dict[str, Any], convert: Callable[[Any], Any] | None = None) -> Iterator[None]:
        """One run with each iterator given from where it was before the first; ``convert`` changes each item
        of a generator or a DataLoader as it is given (the reference run's float64 copies of a batch)."""
        swapped: dict[str, Any] = {}
        replays: list[Generator[Any, None, None]] = []
        patched: list[tuple[type, Any]] = []
        try:
            for name, original in self.originals.items():
                if isinstance(original, _COPYABLE):
                    swapped[name] = copy.copy(self._starts[name])
                    continue
                replay = self._replay(name, convert)
                replays.append(replay)
                if isinstance(original, types.GeneratorType):
                    swapped[name] = replay
                else:
                    patched.append(_answer_next(original, replay))
            with substituted(namespace, swapped):
                yield
            for name, it in swapped.items():
                if isinstance(it, _COPYABLE) and name not in self._positions:
                    self._positions[name] = it.__reduce__()[2] if len(it.__reduce__()) > 2 else None
        finally:
            for owner, method in reversed(patched):
                owner.__next__ = method
            for replay in replays:
                replay.close()

    def finish(self) -> None:
        """Leave each copyable original where the first run left its copy, as a plain run would."""
        for name, position in self._positions.items():
            if position is not None:
                self.originals[name].__setstate__(position)

    def _replay(self, name: str, convert: Callable[[Any], Any] | None) -> Generator[Any, None, None]:
        # the original's own next(), taken now: a DataLoader's class is patched to answer from this replay
        return self._replaying(name, _unpatched_next(self.originals[name]), convert)

    def _replaying(
        self, name: str, draw: Callable[[], Any], convert: Callable[[Any], Any] | None
    ) -> Generator[Any, None, None]:
        drawn = self._drawn[name]
        i = 0
        while True:
            if i == len(drawn):
                if name in self._ended:
                    return
                try:
                    drawn.append(draw())
                except StopIteration:  # in a generator it would become a RuntimeError (PEP 479): end instead
                    self._ended.add(name)
                    return
            item = _fresh(drawn[i])
            i += 1
            yield convert(item) if convert is not None else item


def _owner_of_next(value: Any) -> type:
    return next(k for k in type(value).__mro__ if "__next__" in k.__dict__)


def _unpatched_next(value: Any) -> Callable[[], Any]:
    """``next(value)`` as its class defines it now, before ``_answer_next`` patches it."""
    if isinstance(value, types.GeneratorType):
        return lambda: next(value)
    method = _owner_of_next(value).__dict__["__next__"]
    return lambda: method(value)


def _answer_next(value: Any, replay: Generator[Any, None, None]) -> tuple[type, Any]:
    """Make ``next(value)`` answer from ``replay`` (other objects of its class as before); returns what to put
    back."""
    owner = _owner_of_next(value)
    method = owner.__dict__["__next__"]

    def __next__(self: Any) -> Any:
        return next(replay) if self is value else method(self)

    owner.__next__ = __next__
    return owner, method
