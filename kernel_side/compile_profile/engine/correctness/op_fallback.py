"""Inside the float64 reference, each op that cannot run in float64 runs at the highest precision that can.

Some ops have no float64 kernel: ``torch._grouped_mm``, which the experts of a Mixtral-style MoE in
``transformers`` call, raises "Expected mat_a to be Float32, BFloat16 or Float16 matrix, got Double" (torch
2.11 CUDA and 2.13 CPU), so the whole float64 run failed and the card judged a bf16 MoE by dtype tolerance
alone ("compiled results differ from eager in logits (max abs diff 2.73)"), while against a float32 run
compiled was 1.06x eager's own error.  Code that makes its own float32 or bf16 tensors (a rotary table, a
mask, a batch from an iterator) meets the float64 copies in an op that wants one dtype ("mat1 and mat2 must
have the same dtype, but got Float and Double").

``HighestPrecision`` is a ``TorchDispatchMode``: it runs each op as it is and, only where that raises, again
with the op's floating tensors

1. all in float64 (the lower ones cast up): a mixed-dtype op then runs in float64 after all;
2. else its float64 ones in float32 (complex128 in complex64), the results cast back to float64: the op
   ran in float32, and ``float32_ops`` names it.

What an op overload needed for a set of argument dtypes is remembered, so the failing attempt is made once.
An op that fails both ways raises its own first error.  In-place and ``out=`` ops write their results back
into the tensors they were given.  The mode sits below autograd, so backward's ops pass through it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map_only

_DOWN = {torch.float64: torch.float32, torch.complex128: torch.complex64}
_UP = {
    torch.float16: torch.float64,
    torch.bfloat16: torch.float64,
    torch.float32: torch.float64,
    torch.complex32: torch.complex128,
    torch.complex64: torch.complex128,
}
_BACK = {torch.float32: torch.float64, torch.complex64: torch.complex128}

AS_IS, ALL_FLOAT64, IN_FLOAT32 = "as is", "float64", "float32"


def _signature(func: Any, args: tuple, kwargs: dict) -> tuple:
    leaves, _ = tree_flatten((args, kwargs))
    return (func, tuple(t.dtype for t in leaves if isinstance(t, torch.Tensor)))


def _cast(mapping: dict[torch.dtype, torch.dtype]) -> Callable[[torch.Tensor], torch.Tensor]:
    def cast(t: torch.Tensor) -> torch.Tensor:
        wanted = mapping.get(t.dtype)
        return t if wanted is None else t.to(wanted)

    return cast


class HighestPrecision(TorchDispatchMode):
    """Run ops that fail on float64 tensors in float64 with their other tensors cast up, else in float32."""

    def __init__(self) -> None:
        super().__init__()
        self._how: dict[tuple, str] = {}
        self.float32_ops: dict[str, None] = {}  # op packets that ran in float32, in the order first met

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        key = _signature(func, args, kwargs)
        how = self._how.get(key, AS_IS)
        if how == AS_IS:
            try:
                return func(*args, **kwargs)
            except Exception as first:  # any op may refuse a dtype, in its own words
                dtypes = {t.dtype for t in _tensors(args, kwargs)}
                ways = [w for w, m in ((ALL_FLOAT64, _UP), (IN_FLOAT32, _DOWN)) if dtypes & m.keys()]
                for how in ways:
                    try:
                        result = self._run(func, args, kwargs, how)
                    except Exception:  # noqa: BLE001 - this way failed too: try the next, else the first error
                        continue
                    self._how[key] = how
                    return result
                raise first from None
        return self._run(func, args, kwargs, how)

    def _run(self, func: Any, args: tuple, kwargs: dict, how: str) -> Any:
        mapping = _UP if how == ALL_FLOAT64 else _DOWN
        cast = _cast(mapping)
        new_args, new_kwargs = tree_map_only(torch.Tensor, cast, (args, kwargs))
        result = func(*new_args, **new_kwargs)
        if how == IN_FLOAT32:
            self.float32_ops.setdefault(str(func.overloadpacket), None)
        written = _written_back(func, args, kwargs, new_args, new_kwargs)
        back = _cast(_BACK) if how == IN_FLOAT32 else (lambda t: t)
        return tree_map_only(torch.Tensor, lambda t: written[id(t)] if id(t) in written else back(t), result)


def _tensors(args: tuple, kwargs: dict) -> list[torch.Tensor]:
    leaves, _ = tree_flatten((args, kwargs))
    return [t for t in leaves if isinstance(t, torch.Tensor)]


def _written_back(func: Any, args: tuple, kwargs: dict, new_args: tuple, new_kwargs: dict) -> dict[int, torch.Tensor]:
    """Copy what a mutating op wrote into cast copies back into the tensors it was given; the copies' ids map
    to the originals, so a result that is a written argument (``add_`` returns ``self``) is the original."""
    if not func._schema.is_mutable:
        return {}
    back: dict[int, torch.Tensor] = {}
    for i, argument in enumerate(func._schema.arguments):
        if argument.alias_info is None or not argument.alias_info.is_write:
            continue
        if argument.kwarg_only or i >= len(args):
            old, new = kwargs.get(argument.name), new_kwargs.get(argument.name)
        else:
            old, new = args[i], new_args[i]
        # new_args and new_kwargs are args and kwargs with their tensors cast: a list stays a list
        pairs = zip(old, new) if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)) else [(old, new)]
        for o, n in pairs:
            if isinstance(o, torch.Tensor) and isinstance(n, torch.Tensor) and o is not n:
                o.copy_(n)
                back[id(n)] = o
    return back
