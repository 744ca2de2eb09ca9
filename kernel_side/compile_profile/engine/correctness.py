"""Compare what the compiled cell produced against what the eager cell produced.

Tolerances depend on dtype: Inductor reorders reductions and fuses pointwise
math, so bit-exact equality is not expected, but differences beyond a few ulps
of the dtype's precision are real mismatches.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

import torch

from ..profile_run import Correctness

# (rtol, atol) per dtype; looser than torch.testing's defaults for low precision,
# as in Inductor's own accuracy checks.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1.3e-4, 1e-5),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.complex64: (1.3e-4, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}

RANDOM_OPS = frozenset(
    {
        "aten.rand", "aten.randn", "aten.randint", "aten.randperm", "aten.bernoulli", "aten.native_dropout",
        "aten.dropout", "aten.normal", "aten.uniform", "aten.multinomial", "aten.rand_like", "aten.randn_like",
        "aten.randint_like", "aten.exponential", "aten.poisson", "aten.cauchy", "aten.geometric",
        "aten.log_normal", "prims.inductor_random", "prims.inductor_seeds",
    }
)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]")
    elif isinstance(value, (int, float, bool, complex)):
        yield path, value


def compare_outputs(eager: dict[str, Any], compiled: dict[str, Any], *, random_ops: list[str]) -> Correctness:
    compared: list[str] = []
    mismatched: list[str] = []
    max_abs = 0.0
    max_rel = 0.0
    eager_leaves = dict(_leaves_of(eager))
    compiled_leaves = dict(_leaves_of(compiled))
    for path, expected in eager_leaves.items():
        if path not in compiled_leaves:
            continue
        actual = compiled_leaves[path]
        compared.append(path)
        if isinstance(expected, torch.Tensor):
            if not isinstance(actual, torch.Tensor) or actual.shape != expected.shape or actual.dtype != expected.dtype:
                mismatched.append(path)
                continue
            if expected.numel() == 0:
                continue
            e = expected.detach()
            a = actual.detach().to(e.device)
            if not (e.is_floating_point() or e.is_complex()):
                if not torch.equal(a, e):
                    mismatched.append(path)
                    max_abs = max(max_abs, float((a.double() - e.double()).abs().max()))
                continue
            rtol, atol = TOLERANCES.get(e.dtype, (1.3e-4, 1e-5))
            wide = torch.complex128 if e.is_complex() else torch.float64  # .double() drops imaginary parts
            diff = (a.to(wide) - e.to(wide)).abs()
            finite = torch.isfinite(e) & torch.isfinite(a)
            same_nonfinite = bool(((~finite) & ~((a == e) | (torch.isnan(a) & torch.isnan(e)))).sum() == 0)
            d = diff[finite]
            if d.numel():
                max_abs = max(max_abs, float(d.max()))
                denom = e.to(wide).abs()[finite].clamp_min(atol)
                max_rel = max(max_rel, float((d / denom).max()))
            if not same_nonfinite or not torch.allclose(a[finite], e[finite], rtol=rtol, atol=atol):
                mismatched.append(path)
        else:
            if isinstance(expected, float) and isinstance(actual, float):
                ok = math.isclose(expected, actual, rel_tol=1.3e-6, abs_tol=1e-9) or (
                    math.isnan(expected) and math.isnan(actual)
                )
            else:
                ok = expected == actual
            if not ok:
                mismatched.append(path)
    if not compared:
        return Correctness(ok=None, note="no tensors or numbers to compare")
    if mismatched and random_ops:
        return Correctness(
            ok=None,
            max_abs_diff=max_abs,
            max_rel_diff=max_rel,
            compared=compared,
            mismatched=mismatched,
            note=(
                f"not compared: the cell draws random numbers ({', '.join(sorted(random_ops))}), "
                "which compiled code generates with its own RNG; set "
                "torch._inductor.config.fallback_random = True to compare them"
            ),
        )
    return Correctness(
        ok=not mismatched,
        max_abs_diff=max_abs,
        max_rel_diff=max_rel,
        compared=compared,
        mismatched=mismatched,
    )


def _leaves_of(outputs: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for name, value in outputs.items():
        yield from _leaves(value, name)


def snapshot(outputs: dict[str, Any]) -> dict[str, Any]:
    """Clone tensors so later runs (which may reuse buffers or mutate in place) cannot change them."""

    def clone(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach().clone()
        if isinstance(value, list):
            return [clone(v) for v in value]
        if isinstance(value, tuple):
            return tuple(clone(v) for v in value)
        if isinstance(value, dict):
            return {k: clone(v) for k, v in value.items()}
        return value

    return {k: clone(v) for k, v in outputs.items()}


def random_ops_in(op_names: list[str]) -> list[str]:
    return sorted({op for op in op_names if op.rsplit(".", 1)[0] in RANDOM_OPS or op in RANDOM_OPS})


@contextlib.contextmanager
def same_rng(seed: int = 0) -> Iterator[None]:
    """Seed torch's RNGs for one run and restore the caller's RNG state afterwards."""
    cpu_state = torch.random.get_rng_state()
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    torch.manual_seed(seed)
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu_state)
        if cuda_states is not None:
            torch.cuda.set_rng_state_all(cuda_states)


class MutableState:
    """Tensors reachable from the namespace that a run changes in place, so they can be
    put back before each correctness run (optimizer steps, ``x.add_(1)``)."""

    def __init__(self, namespace: dict[str, Any]):
        self._tensors = list(_reachable_tensors(namespace))
        self._versions = [t._version for t in self._tensors]
        self._saved: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]] = []

    def save_mutated_since_creation(self) -> int:
        """Snapshot the tensors whose version counter moved since construction; return how many."""
        self._saved = [
            (t, t.detach().clone(), t.grad.detach().clone() if t.grad is not None else None)
            for t, v in zip(self._tensors, self._versions)
            if t._version != v
        ]
        return len(self._saved)

    def restore(self) -> None:
        with torch.no_grad():
            for tensor, value, grad in self._saved:
                tensor.copy_(value)
                if grad is not None and tensor.grad is not None:
                    tensor.grad.copy_(grad)


def _reachable_tensors(namespace: dict[str, Any]) -> Iterator[torch.Tensor]:
    seen: set[int] = set()

    def add(t: torch.Tensor) -> Iterator[torch.Tensor]:
        if id(t) not in seen and not t.is_inference():
            seen.add(id(t))
            yield t

    for name, value in list(namespace.items()):
        if name.startswith("_"):
            continue
        if isinstance(value, torch.Tensor):
            yield from add(value)
        elif isinstance(value, torch.nn.Module):
            for t in list(value.parameters()) + list(value.buffers()):
                yield from add(t)
        elif isinstance(value, torch.optim.Optimizer):
            for state in value.state.values():
                for t in state.values():
                    if isinstance(t, torch.Tensor):
                        yield from add(t)
