"""What a profile runs: the eager call, the function ``torch.compile`` compiles, and how to read a run's results.

A notebook cell (``run.api.profile_cell``: its ``CellFunction``, its namespace) and a function with its arguments
(``run.api.profile``) each become one ``Target``; the stages call it only through it (``calls.CellCalls`` counts
the calls).  Plain data: nothing here runs the code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .function import CellFunction
    from .input_feed import InputFeed
    from .locator import CellLocator


@dataclass
class Target:
    """What to profile: an eager call, the function to compile, and how to read results."""

    eager_call: Callable[[], Any]
    function: Callable[..., Any]
    call_compiled: Callable[[Callable[..., Any]], Any]
    locator: CellLocator
    source: str
    before_each: Callable[[], None] = lambda: None
    outputs: Callable[[Any], dict[str, Any]] = lambda result: {"<result>": result}
    namespace: dict[str, Any] = field(default_factory=lambda: {})
    inputs: tuple[Any, ...] = ()  # the arguments of a profiled function, if any
    globals: dict[str, Any] = field(default_factory=lambda: {})  # where the code's global names are read from
    cell: CellFunction | None = None  # a notebook cell's function, for what it keeps
    arguments: Callable[[], list[Any]] = list  # what the eager call passes to ``function``
    call_with_arguments: Callable[[list[Any]], Any] | None = None  # the eager call with other arguments
    feed: InputFeed | None = (
        None  # a sequence of inputs the calls read the selected one of (``engine.cell.input_feed``)
    )
