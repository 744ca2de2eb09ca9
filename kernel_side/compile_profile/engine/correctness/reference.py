"""A high-precision eager run of the profiled code: the reference that correctness judges errors against.

What the code reads is copied to float64, as PyTorch's benchmark runner casts a
model and its inputs for its accuracy check: floating tensors, modules (their
parameters and buffers), optimizers (their state), and lists, tuples and dicts of
those.  Copies share what the originals share (a module's parameters stay the
optimizer's parameters), and the originals are never touched: the copies are
swapped into the namespace for the one run and swapped out afterwards.

Where float64 cannot run, the highest precision that can: the caller tries float64,
then float64 with each op that fails there run in float32 (``op_fallback``), then
float32 copies (worth it only for code in float16 or bfloat16: a float32 copy of
float32 code is the eager run again).  ``PRECISIONS`` maps each precision to the
dtypes its copies widen.  Where none can run (the code reads a tensor through an
object this module does not copy, or the copies would not fit), there is no
reference and ``ReferenceUnavailable`` says why, in words for the card.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import torch

from ...profile_run import Note
from ..cell.reachable_tensors import reachable_tensors
from ..common.device import available_host_memory

_WIDE = {
    torch.float16: torch.float64,
    torch.bfloat16: torch.float64,
    torch.float32: torch.float64,
    torch.complex32: torch.complex128,
    torch.complex64: torch.complex128,
}
# what copies at each precision widen to, and to what
PRECISIONS: dict[torch.dtype, dict[torch.dtype, torch.dtype]] = {
    torch.float64: _WIDE,
    torch.float32: {
        torch.float16: torch.float32,
        torch.bfloat16: torch.float32,
        torch.complex32: torch.complex64,
    },
}
MEMORY_SHARE = 0.5  # of the free device (or host) memory the copies may take


class ReferenceUnavailable(Exception):
    """No float64 reference for this code; the message says why."""


def _worth_copying(value: Any) -> bool:
    if isinstance(value, (torch.Tensor, torch.nn.Module, torch.optim.Optimizer)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_worth_copying(v) for v in value)
    if isinstance(value, dict):
        return any(_worth_copying(v) for v in value.values())
    return False


def _check_memory(values: list[Any], precision: torch.dtype) -> None:
    tensors = reachable_tensors(values)
    wide = PRECISIONS[precision]
    needed = sum(t.numel() * wide[t.dtype].itemsize for t in tensors if t.dtype in wide)
    if any(t.is_cuda for t in tensors):
        free, _ = torch.cuda.mem_get_info()
        where = "GPU"
    else:
        free, where = available_host_memory(), "host"
    if free is not None and needed > MEMORY_SHARE * free:
        raise ReferenceUnavailable(
            f"a {str(precision).removeprefix('torch.')} copy of what the code reads needs {needed / 2**30:.1f} GiB, more than half the free "
            f"{where} memory ({free / 2**30:.1f} GiB)"
        )


def _wide_tensor(t: torch.Tensor, wide_of: dict[torch.dtype, torch.dtype]) -> torch.Tensor:
    wide = wide_of.get(t.dtype)
    if wide is None:
        return t
    copy_ = t.detach().to(wide)
    if t.requires_grad:
        copy_.requires_grad_(True)
    return copy_


def lower_than(precision: torch.dtype, values: list[Any]) -> bool:
    """Whether any floating tensor reachable from ``values`` is of a lower precision, which copies at
    ``precision`` would widen (a float32 copy of float32 code is no reference)."""
    wide = PRECISIONS[precision]
    return any(t.dtype in wide for t in reachable_tensors(values))


def float64_copies(values: dict[str, Any], precision: torch.dtype = torch.float64) -> dict[str, Any]:
    """float64 (or ``precision``) copies of the tensors, modules, optimizers and containers of them in
    ``values``; other values are passed through.  Modules come first so that tensors and optimizers referring
    to their parameters get the copied parameters."""
    copyable = {name: v for name, v in values.items() if _worth_copying(v)}
    _check_memory(list(copyable.values()), precision)
    wide = PRECISIONS[precision]
    memo: dict[int, Any] = {}
    out = dict(values)
    order = sorted(
        copyable,
        key=lambda n: (
            not isinstance(copyable[n], torch.nn.Module),
            not isinstance(copyable[n], torch.optim.Optimizer),
        ),
    )
    name = ""
    try:
        for name in order:
            out[name] = _copy(copyable[name], memo, wide)
    except Exception as exc:  # noqa: BLE001 - deepcopy of arbitrary user objects can fail in any way
        to = str(precision).removeprefix("torch.")
        raise ReferenceUnavailable(f"could not copy {name!r} to {to} ({type(exc).__name__}: {exc})") from None
    return out


def copy_at(value: Any, precision: torch.dtype) -> Any:
    """One value (a batch an iterator yielded: tensors in containers) copied at ``precision``."""
    return _copy(value, {}, PRECISIONS[precision])


def _copy(value: Any, memo: dict[int, Any], wide: dict[torch.dtype, torch.dtype]) -> Any:
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, torch.Tensor):
        result = _wide_tensor(value, wide)
    elif isinstance(value, torch.nn.Module):
        result = copy.deepcopy(value, memo)
        # in place: parameters keep their identity (memo) for optimizers; only the dtypes ``wide`` widens
        # change (a float32 copy keeps a float64 buffer as it is)
        result._apply(lambda t: t.to(wide[t.dtype]) if t.dtype in wide else t)
        for original, copied in zip([*value.parameters(), *value.buffers()], [*result.parameters(), *result.buffers()]):
            memo.setdefault(id(original), copied)
    elif isinstance(value, torch.optim.Optimizer):
        result = copy.deepcopy(value, memo)
        for state in result.state.values():
            for key, t in list(state.items()):
                if isinstance(t, torch.Tensor):
                    state[key] = t.to(wide.get(t.dtype, t.dtype))
    elif isinstance(value, (list, tuple)):
        items = [_copy(v, memo, wide) for v in value]
        result = type(value)(items) if type(value) in (list, tuple) else value
    elif isinstance(value, dict):
        result = {k: _copy(v, memo, wide) for k, v in value.items()}
    else:
        return value
    memo[id(value)] = result
    return result


def versions(values: list[Any]) -> list[tuple[torch.Tensor, int]]:
    """Version counters of the tensors reachable from ``values``, to tell whether a run changed them."""
    return [(t, t._version) for t in reachable_tensors(values) if not t.is_inference()]


def changed(recorded: list[tuple[torch.Tensor, int]]) -> bool:
    return any(t._version != version for t, version in recorded)


@dataclass
class ReferenceRun:
    """What the reference stage made: the run's outputs (None: no reference), at which precision, and why
    not another."""

    outputs: dict[str, Any] | None
    method: str = ""  # "float64", "mixed" (float64, ``float32_ops`` in float32), "float32"; "" without one
    float32_ops: list[str] = field(default_factory=list)
    fallback: str = ""  # what stopped the plain float64 run, where the method is "mixed" or "float32"
    rounded_casts: list[str] = field(default_factory=list)  # the code's casts down it met (``rounded_casts``)
    note: Note | None = None  # why there is none (``digest.notes`` words it)
