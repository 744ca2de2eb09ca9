"""The global names and closure cells code reads, and values put in their place for a while.

``names_read`` follows the functions of the same namespace a function reads (a notebook's helpers), so that what
a cell's code reads through them counts; ``substituted`` swaps values into a namespace for one block and puts
back what was there (or nothing) afterwards, on error too.  ``closure_cells`` and ``cells_holding`` do the same
for the cells a function closes over (``def step(x): return model(x)`` inside a builder reads ``model`` from a
cell, not from a global).  The float64 reference runs on copies swapped in so,
the correctness runs replay iterators so, and the in-place state walk starts from the names read.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any


def names_read(fn: Callable[..., Any], namespace: dict[str, Any], *, depth: int = 4) -> list[str]:
    """Globals ``fn`` reads, and those read by the functions of the same namespace it reads, transitively."""
    found: dict[str, None] = {}
    seen_code: set[int] = set()

    def visit(code: types.CodeType, level: int) -> None:
        if id(code) in seen_code or level > depth:
            return
        seen_code.add(id(code))
        for name in code.co_names:
            if name not in namespace or name in found:
                continue
            found[name] = None
            value = namespace[name]
            if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
                visit(value.__code__, level + 1)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                visit(const, level)

    code = getattr(fn, "__code__", None)
    if code is not None:
        visit(code, 0)
    return list(found)


@contextlib.contextmanager
def substituted(namespace: dict[str, Any], values: dict[str, Any]) -> Iterator[None]:
    """``namespace`` holds ``values`` inside the block and what it held before afterwards."""
    missing = object()
    before = {name: namespace.get(name, missing) for name in values}
    namespace.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


def closure_cells(fn: Any, *, depth: int = 4) -> dict[str, types.CellType]:
    """The closure cells ``fn`` reads, named ``closure NAME`` (``closure NAME.INNER`` for the cells of a function a
    cell holds, transitively, to ``depth``); empty cells are left out."""
    found: dict[str, types.CellType] = {}
    seen: set[int] = set()

    def visit(f: Any, prefix: str, level: int) -> None:
        if not isinstance(f, types.FunctionType) or id(f) in seen or level > depth:
            return
        seen.add(id(f))
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # a cell not assigned yet
                continue
            key = f"{prefix}{name}"
            found[f"closure {key}"] = cell
            visit(value, f"{key}.", level + 1)

    visit(fn, "", 0)
    return found


@contextlib.contextmanager
def cells_holding(cells: dict[str, types.CellType], values: dict[str, Any]) -> Iterator[None]:
    """Each cell of ``cells`` named in ``values`` holds that value inside the block and what it held before
    afterwards, on error too."""
    before = {name: cells[name].cell_contents for name in values}
    try:
        for name, value in values.items():
            cells[name].cell_contents = value
        yield
    finally:
        for name, value in before.items():
            cells[name].cell_contents = value
