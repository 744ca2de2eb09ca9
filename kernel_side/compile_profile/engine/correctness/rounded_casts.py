"""Inside the high-precision reference, a cast the code makes to a lower floating dtype rounds the values and keeps
the reference's precision.

The reference runs the code on float64 copies of what it reads (``reference``).  Code that casts explicitly
(``x.bfloat16() @ w.bfloat16()``, ``.half()``, ``.to(torch.float16)``, ``.float()``) brought the copies back down
to eager's dtype, so the reference computed what eager computes, bit for bit; the check took it for no reference
and judged the output by the dtype's tolerance alone.  ``softmax((x.bfloat16() @ w.bfloat16()) * 3.7, -1).sum(0)``
read "results differ" (max abs diff 0.133), where against the exact result on the same bf16 inputs eager and
compiled were both 0.1497 off (relative: eager 1.71, compiled 0.96).

``RoundedCasts`` is a ``TorchDispatchMode``: an ``aten._to_copy`` from a floating dtype to a lower floating one
(float64 to bfloat16, float32 to float16 ...) returns the values the cast gives, in the dtype it was given.  The
reference is then the exact arithmetic on the values eager rounded to at each of the code's own casts, which is
what a cast means to the user, and eager's and compiled's errors are both measured against it.  The mode sits below
autograd; ``_to_copy``'s backward casts the gradient to the input's dtype, the dtype it keeps here.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# floating dtypes from the most precise down: a cast to one further down this list is a rounding
_PRECISION = [torch.float64, torch.float32, torch.bfloat16, torch.float16]


def _lowers(source: torch.dtype, target: Any) -> bool:
    return (
        isinstance(target, torch.dtype)
        and source in _PRECISION
        and target in _PRECISION
        and _PRECISION.index(target) > _PRECISION.index(source)
    )


class RoundedCasts(TorchDispatchMode):
    """Casts to a lower floating dtype round the values and keep the tensor's dtype."""

    def __init__(self) -> None:
        super().__init__()
        self.rounded: dict[str, None] = {}  # "float64 to bfloat16", in the order first met

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.aten._to_copy.default and args and isinstance(args[0], torch.Tensor):
            source, target = args[0].dtype, kwargs.get("dtype")
            if _lowers(source, target):
                self.rounded.setdefault(f"{str(source).removeprefix('torch.')} to {str(target).removeprefix('torch.')}")
                rounded = func(*args, **kwargs)
                return func(rounded, dtype=source)
        return func(*args, **kwargs)
