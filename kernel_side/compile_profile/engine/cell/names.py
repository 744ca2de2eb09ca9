"""The global names code reads, and values put in their place for a while.

``names_read`` follows the functions of the same namespace a function reads (a notebook's helpers), so that what
a cell's code reads through them counts; ``substituted`` swaps values into a namespace for one block and puts
back what was there (or nothing) afterwards, on error too.  The float64 reference runs on copies swapped in so,
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
