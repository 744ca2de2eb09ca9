"""A sequence of inputs to profile over: ``profile(fn, inputs=[...])`` (argument tuples) and
``%%compile_profile --inputs NAME=ITERABLE`` (each item bound to ``NAME`` in turn), read once into a list,
checked, and grouped by signature.

Contract: ``InputFeed`` holds the items and which one the profiled code reads now (``select``); the
target's calls read ``args()`` (a function) or the bound name (a cell, ``bind``), so every stage runs on the
selected input without knowing there are others.  A *signature* is what Dynamo guards on that can be read
off an input itself: each tensor's shape, dtype, device and requires_grad, and each Python scalar's value
(Dynamo specialises on ints, floats, bools and strings); inputs that share one are timed together.  Values
read from a tensor's data (``.item()``) are no part of it: the recompiles they cause are attributed to the
input whose call compiled (``timing.input_sequence``).  Bad input is refused with an ``OptionError`` that says what to fix.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Iterable, Sized
from typing import Any

import torch

from ..common.errors import OptionError

_SCALARS = (bool, int, float, str, type(None))
MAX_INPUTS = 1000  # the inputs a profile reads at most, unless --max-inputs (max_inputs=) says otherwise


class InputFeed:
    """The inputs of a sequence, each an argument tuple, and the one selected now."""

    def __init__(self, items: list[tuple[Any, ...]], names: list[str], *, bound_name: str = "", source: str = ""):
        self.items = items
        self.names = names  # what each argument is called in a signature: fn's parameter names, or the bound name
        self.bound_name = bound_name  # a cell's name for the input ("" for a function's arguments)
        self.source = source  # the namespace's name the inputs came from (a cell's --inputs)
        self.current = 0
        self.signatures: list[list[str]] = []  # distinct signatures, in the order first seen
        self.signature_of: list[int] = []  # per item, its index into ``signatures``
        for item in items:
            parts = signature_parts(item, names)
            if parts not in self.signatures:
                self.signatures.append(parts)
            self.signature_of.append(self.signatures.index(parts))

    def __len__(self) -> int:
        return len(self.items)

    def select(self, index: int) -> None:
        self.current = index

    def args(self) -> tuple[Any, ...]:
        return self.items[self.current]

    def bind(self, namespace: dict[str, Any]) -> None:
        """A cell's input: the bound name holds the selected item."""
        namespace[self.bound_name] = self.items[self.current][0]

    def inputs_of(self, signature: int) -> list[int]:
        return [i for i, s in enumerate(self.signature_of) if s == signature]

    def representative(self) -> int:
        """The first input of the signature most inputs share (the earliest such signature on a tie): the input
        the figures of one input (the variants' timings, kernels, correctness) are measured on."""
        counts = [self.signature_of.count(s) for s in range(len(self.signatures))]
        return self.inputs_of(counts.index(max(counts)))[0]

    # -- building one ------------------------------------------------------------------------------------------
    @classmethod
    def for_function(cls, fn: Callable[..., Any], inputs: Any, *, limit: int = MAX_INPUTS) -> InputFeed:
        """``profile(fn, inputs=...)``: a list or any iterable of argument tuples, or a callable returning one; an
        item that is not a tuple is the one argument of a function that takes one.  Each item's number of
        arguments is checked against fn's before any call, so a wrong one is refused, never stored as a run that
        failed."""
        items = _materialize(inputs, "inputs=", option="max_inputs=", limit=limit)
        names, required, flexible = _parameters(fn)
        out: list[tuple[Any, ...]] = []
        for i, item in enumerate(items):
            if isinstance(item, tuple):
                out.append(item)
            elif required > 1 and not flexible:
                shown = ", ".join(names[:required])
                raise OptionError(
                    f"inputs= item {i} is {_a(item)}, not a tuple of arguments: {_name(fn)} takes {required} "
                    f"({shown}); give each item as a tuple ({shown})"
                )
            else:
                out.append((item,))
            _check_arity(fn, i, out[-1], names, required, flexible)
        width = max(len(item) for item in out)
        return cls(out, [*names, *(f"argument {i}" for i in range(len(names), width))][:width] or ["argument 0"])

    @classmethod
    def for_cell(cls, spec: str, namespace: dict[str, Any], *, limit: int = MAX_INPUTS) -> InputFeed:
        """``--inputs NAME=ITERABLE``: the namespace's ``ITERABLE`` read into a list (at most ``limit`` items:
        ``--max-inputs``), each item bound to ``NAME``."""
        name, source = parse_inputs_option(spec)
        found, value = resolve_source(source, namespace)
        if not found:
            raise OptionError(f"--inputs {spec}: there is no {source!r} in the namespace; define it before this cell")
        items = _materialize(value, f"--inputs {spec}: {source}", option="--max-inputs", limit=limit, callable_ok=False)
        return cls([(item,) for item in items], [name], bound_name=name, source=source)


def parse_inputs_option(spec: str) -> tuple[str, str]:
    """``NAME=ITERABLE`` -> (NAME, ITERABLE), both identifiers (ITERABLE may be dotted: ``data.batches``)."""
    name, sep, source = (part.strip() for part in spec.partition("="))
    if not sep:
        raise OptionError(
            f"--inputs takes NAME=ITERABLE (the name the cell reads each input by, and the namespace's iterable "
            f"of inputs), got {spec!r}: e.g. --inputs xb=batches"
        )
    if not _identifier(name):
        raise OptionError(f"--inputs {spec}: {name!r} is no Python name for the cell to read each input by")
    if not all(_identifier(part) for part in source.split(".")):
        raise OptionError(f"--inputs {spec}: {source!r} is no name in the namespace (give the iterable's name)")
    return name, source


def resolve_source(source: str, namespace: dict[str, Any]) -> tuple[bool, Any]:
    head, *rest = source.split(".")
    if head not in namespace:
        return False, None
    value = namespace[head]
    for attribute in rest:
        if not hasattr(value, attribute):
            return False, None
        value = getattr(value, attribute)
    return True, value


def _identifier(text: str) -> bool:
    return text.isidentifier() and not keyword.iskeyword(text)


def _materialize(inputs: Any, what: str, *, option: str, limit: int, callable_ok: bool = True) -> list[Any]:
    """The items of ``inputs``, read once: at most ``limit`` of them (an endless iterator, ``itertools.count()`` or
    a ``cycle`` over a loader, is refused after ``limit + 1`` items, not read until memory runs out; a sized one
    longer than that before any is read), an item whose reading raises refused with its number."""
    if isinstance(inputs, torch.Tensor):
        raise OptionError(
            f"{what} is one tensor: give a list of inputs, e.g. [x1, x2] (iterating a tensor would give its rows)"
        )
    if callable_ok and callable(inputs) and not isinstance(inputs, Iterable):
        inputs = inputs()
    if isinstance(inputs, (str, bytes, dict)) or not isinstance(inputs, Iterable):
        raise OptionError(
            f"{what} is {_a(inputs)}, not an iterable of inputs: give a list, a generator or a DataLoader"
        )
    too_many = (
        f"give at most {limit:,} (itertools.islice(…, {limit}) takes the first ones of an endless iterator), or "
        f"allow more with {option} N"
    )
    if isinstance(inputs, Sized):
        try:
            size = len(inputs)
        except Exception:  # noqa: BLE001 - a len() that raises (an IterableDataset's loader): read it instead
            size = None
        if size is not None and size > limit:
            raise OptionError(f"{what} has {size:,} items, more than the {limit:,} a profile reads: {too_many}")
    items: list[Any] = []
    try:
        iterator = iter(inputs)
    except Exception as exc:
        raise OptionError(f"{what}: iter() raised {type(exc).__name__}: {exc}") from exc
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            break
        except Exception as exc:
            raise OptionError(
                f"{what}: reading item {len(items)} (counting from 0) raised {type(exc).__name__}: {exc}; "
                f"{len(items)} item{'' if len(items) == 1 else 's'} read before it, nothing profiled"
            ) from exc
        if len(items) == limit:
            raise OptionError(f"{what} has more than {limit:,} items (an endless iterator?): {too_many}")
        items.append(item)
    if not items:
        raise OptionError(f"{what} is empty: give at least one input")
    return items


def _check_arity(
    fn: Callable[..., Any], index: int, item: tuple[Any, ...], names: list[str], required: int, flexible: bool
) -> None:
    """Refuse an item with fewer arguments than fn requires, or more than it takes."""
    if required <= len(item) and (flexible or len(item) <= len(names)):
        return
    wanted = f"{required}" if required == len(names) or flexible else f"{required} to {len(names)}"
    shown = ", ".join(names)
    raise OptionError(
        f"inputs= item {index} gives {_name(fn)} {len(item)} argument{'' if len(item) == 1 else 's'}, but it takes "
        f"{wanted} ({shown}): give each item as a tuple of {_name(fn)}'s arguments"
    )


def _parameters(fn: Callable[..., Any]) -> tuple[list[str], int, bool]:
    """fn's positional parameter names, how many it requires, and whether it takes more (``*args``) or cannot
    be read."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [], 0, True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is p.empty)
    flexible = any(p.kind == p.VAR_POSITIONAL for p in parameters)
    return [p.name for p in positional], required, flexible


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _a(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


# -- signatures ------------------------------------------------------------------------------------------------
def signature_parts(item: tuple[Any, ...], names: list[str]) -> list[str]:
    """Each argument's part of the signature: ``x: (8, 4) float32``, ``n = 3``."""
    parts = []
    for i, value in enumerate(item):
        name = names[i] if i < len(names) else f"argument {i}"
        described = describe(value)
        parts.append(f"{name} = {described}" if isinstance(value, _SCALARS) else f"{name}: {described}")
    return parts


def describe(value: Any, depth: int = 0) -> str:
    """What Dynamo guards on in a value, in words: a tensor's shape, dtype, device and requires_grad; a scalar's
    value; a container's items (a few levels deep); another object's type."""
    if isinstance(value, torch.Tensor):
        shape = "(" + ", ".join(str(d) for d in value.shape) + ("," if value.dim() == 1 else "") + ")"
        text = f"{shape} {str(value.dtype).removeprefix('torch.')}"
        if value.device.type != "cpu":
            text += f" {value.device}"
        if value.requires_grad:
            text += " requires_grad"
        return text
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, _SCALARS):
        text = repr(value)
        return text if len(text) <= 40 else text[:39] + "…"
    if depth >= 3:
        return type(value).__name__
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v, depth + 1) for v in value[:8]) + (", …" if len(value) > 8 else "")
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        inner = ", ".join(f"{k!r}: {describe(v, depth + 1)}" for k, v in list(value.items())[:8])
        return "{" + inner + (", …" if len(value) > 8 else "") + "}"
    return type(value).__name__
