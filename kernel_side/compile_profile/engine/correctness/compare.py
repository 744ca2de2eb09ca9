"""Compare what the compiled cell produced against what the eager cell produced.

Inductor reorders reductions, fuses pointwise math (skipping intermediate
roundings) and picks other matmul kernels, so compiled results are not bit-exact;
with TF32 or bf16 they differ from eager by a lot more than fp32 ulps while being
no less accurate.  Each floating output is therefore judged as PyTorch's
benchmark runner judges a compiled model (``torch._dynamo.utils.same``):

1. close to eager by its dtype's tolerance: the same result;
2. otherwise, when a reference run of the same code in a higher precision could be
   made (every floating tensor, module and optimizer the code reads, copied to
   float64; where an op fails in float64, that op in float32; where float64 cannot
   run at all and the code is in float16 or bfloat16, float32):
   the compiled result's RMSE against it may be at most ``multiplier`` x eager's own
   RMSE against it plus a slack (2x for fp32, 3x for fp16/bf16 and small tensors);
3. otherwise, when a second eager run gave the output otherwise (nondeterministic
   kernels: atomics in a scatter, a reduction split another way), compiled's RMSE
   against eager may be at most ``multiplier`` x the two eager runs' RMSE plus the
   slack: eager's own run-to-run spread is the floor;
4. otherwise: a mismatch.

Where the second eager run differs from the first otherwise than rounding can
(another shape, other integers, a relative RMSE over 1000 epsilons of its dtype, at most 0.25), the
runs read other inputs (the cell advances an iterator, a generator, a file, a data
loader the check could not replay, or state it changes) and nothing is compared.

Non-finite values must sit where eager has them (NaNs where eager has none fail);
integer and bool results must be equal.  Measured on an H200, the outputs the
dtype tolerance alone flagged all pass the rule, by RMSE ratios of 0.70 (GPT-2
bf16 logits), 0.70 (ViT-S bf16), 1.01 (ResNet-18 TF32) and 1.00 (MLP TF32).
"""

from __future__ import annotations

import contextlib
import copy
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import torch

from ...profile_run import Correctness, Note, NoteValue, OutputCheck

if TYPE_CHECKING:
    from ..compiler.variants import VariantSpec

# (rtol, atol) per dtype for "close to eager"; looser than torch.testing's defaults for low
# precision, as in Inductor's own accuracy checks.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1.3e-4, 1e-5),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
    torch.complex64: (1.3e-4, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
# The benchmark runner's ``tol`` per precision; a tenth of it is the RMSE slack.
RMSE_TOL: dict[torch.dtype, float] = {
    torch.float64: 1e-7,
    torch.float32: 1e-4,
    torch.float16: 1e-3,
    torch.bfloat16: 1e-2,
}
LOW_PRECISION = (torch.float16, torch.bfloat16)
SMALL_TENSOR = 1000  # fewer elements: noise dominates the RMSE, so the larger multiplier

RANDOM_OPS = frozenset(
    {
        "aten.rand",
        "aten.randn",
        "aten.randint",
        "aten.randperm",
        "aten.bernoulli",
        "aten.native_dropout",
        "aten.dropout",
        "aten.normal",
        "aten.uniform",
        "aten.multinomial",
        "aten.rand_like",
        "aten.randn_like",
        "aten.randint_like",
        "aten.exponential",
        "aten.poisson",
        "aten.cauchy",
        "aten.geometric",
        "aten.log_normal",
        "prims.inductor_random",
        "prims.inductor_seeds",
    }
)


# Objects inside a returned container whose attributes are read for tensors, this many levels down: a Hugging
# Face model's output holds its KV cache as a ``DynamicCache`` (``.layers[i].keys``/``.values``), which went
# uncompared and unsaid.  Only inside a container: a cell's own objects (an optimizer holding the model's
# parameters, a dataset) are state, not results, and copying them for each run would cost their size.
OBJECT_DEPTH = 3


def _leaves(value: Any, path: str, objects: int = 0, nested: bool = False) -> Iterator[tuple[str, Any]]:
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]", objects, True)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]", objects, True)
    elif isinstance(value, (int, float, bool, complex)):
        if not objects:  # an object's own numbers (counters, flags) are its state, not a result
            yield path, value
    elif nested and objects < OBJECT_DEPTH and _holds_attributes(value):
        for key, item in vars(value).items():
            if not key.startswith("_"):
                yield from _leaves(item, f"{path}.{key}", objects + 1, True)


def _holds_attributes(value: Any) -> bool:
    """A plain object whose attributes may hold result tensors (not a module, optimizer, class or function)."""
    return (
        hasattr(value, "__dict__")
        and not callable(value)
        and not isinstance(value, (torch.nn.Module, torch.optim.Optimizer, type, types.ModuleType))
    )


PYTHON_FLOAT_TOLERANCE = (1.3e-6, 1e-9)  # a Python float is usually a float32 tensor's .item()


def _as_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        # an FSDP2 parameter is a DTensor: each rank compares its own shard (a boolean mask on a DTensor
        # runs sharding propagation on fake tensors, which cannot give nonzero's shape: torch 2.11, H200)
        local = getattr(value, "to_local", None)
        return (cast(torch.Tensor, local()) if callable(local) else value).detach()  # DTensor.to_local
    if isinstance(value, float):
        return torch.tensor(value, dtype=torch.float64)
    if isinstance(value, (bool, int, complex)):
        return torch.tensor(value)
    return None


def _tolerance(value: Any, dtype: torch.dtype) -> tuple[float, float]:
    return PYTHON_FLOAT_TOLERANCE if isinstance(value, float) else TOLERANCES.get(dtype, (1.3e-4, 1e-5))


def _rmse(a: torch.Tensor, b: torch.Tensor) -> float:
    d = (a - b).abs()
    return float(torch.sqrt(torch.mean(d * d)))


# A second eager run further from the first (RMSE over the larger RMS of the two) than this many of the dtype's
# epsilons, at most CHANGED_BETWEEN_RUNS, read other inputs: two batches of random data are ~1.4 apart, and a
# file's next line "81.5" after "80.5" 0.012, while nondeterministic kernels move an output by rounding errors,
# a few epsilons times the square root of the terms summed in another order (float32 atomics with a fan-in of
# 100: ~1e-6; bf16 ones, which round at each add: up to ~0.08).  For float32 the limit (1.2e-4) is about its
# tolerance: a spread within it still sets the floor of a compiled output just beyond the tolerance.
CHANGED_EPSILONS = 1000
CHANGED_BETWEEN_RUNS = 0.25


def _describe(t: torch.Tensor) -> str:
    return f"{t.dtype} {list(t.shape)}"


def eager_spread(expected: Any, rerun: Any, strict: bool = False) -> tuple[Note | None, float | None]:
    """How a second eager run's output differs from the first's: how it changed between runs (None if it did
    not), and for a floating output that rounding moved, the RMSE between the two runs (None if equal).
    ``strict``: the runs read an iterator that could not be replayed, so any difference is a change."""
    e, r = _as_tensor(expected), _as_tensor(rerun)
    if e is None or r is None:
        if expected == rerun:
            return None, None
        return Note("eager_changed_value", values={"first": repr(expected), "then": repr(rerun)}), None
    if r.shape != e.shape or r.dtype != e.dtype:
        return Note("eager_changed_value", values={"first": _describe(e), "then": _describe(r)}), None
    r = r.to(e.device)
    if torch.equal(r, e) or e.numel() == 0:
        return None, None
    if not (e.is_floating_point() or e.is_complex()):
        return Note("eager_changed_values", values={"differ": int((r != e).sum()), "of": e.numel()}), None
    wide = torch.complex128 if e.is_complex() else torch.float64
    ew, rw = e.to(wide), r.to(wide)
    finite = torch.isfinite(ew) & torch.isfinite(rw)
    if not bool(finite.any()):
        return None, None
    spread = _rmse(ew[finite], rw[finite])
    scale = max(_rmse(ew[finite], torch.zeros_like(ew[finite])), _rmse(rw[finite], torch.zeros_like(rw[finite])))
    real = e.real.dtype if e.is_complex() else (torch.float32 if isinstance(expected, float) else e.dtype)
    limit = min(CHANGED_BETWEEN_RUNS, CHANGED_EPSILONS * torch.finfo(real).eps)
    if strict or spread > limit * max(scale, _tolerance(expected, e.dtype)[1]):
        return Note("eager_moved", values={"rmse": spread, "ratio": spread / max(scale, 1e-300)}), None
    return None, spread


def judge_output(
    path: str, expected: Any, actual: Any, reference: Any = None, spread: float | None = None
) -> OutputCheck:
    """One output: eager's ``expected``, compiled's ``actual``, the reference run's ``reference`` if any, and
    the RMSE between two eager runs of it (``spread``) where they differ."""
    e, a = _as_tensor(expected), _as_tensor(actual)
    dtype = str(e.dtype).removeprefix("torch.") if e is not None else type(expected).__name__
    if e is None or a is None:
        why = (
            None
            if expected == actual
            else Note("output_differs", values={"eager": repr(expected), "compiled": repr(actual)})
        )
        return OutputCheck(path=path, dtype=dtype, ok=expected == actual, why=why)
    if a.shape != e.shape or (a.dtype != e.dtype and isinstance(expected, torch.Tensor)):
        return OutputCheck(
            path=path,
            dtype=dtype,
            ok=False,
            why=Note("output_shape", values={"compiled": _describe(a), "eager": _describe(e)}),
        )
    a = a.to(e.device)
    if e.numel() == 0:
        return OutputCheck(path=path, dtype=dtype, ok=True)
    if not (e.is_floating_point() or e.is_complex()):
        equal = torch.equal(a, e)
        diff = 0.0 if equal else float((a.double() - e.double()).abs().max())
        return OutputCheck(
            path=path, dtype=dtype, ok=equal, max_abs_diff=diff, why=None if equal else Note("output_not_equal")
        )
    wide = torch.complex128 if e.is_complex() else torch.float64  # .double() drops imaginary parts
    ew, aw = e.to(wide), a.to(wide)
    finite = torch.isfinite(ew) & torch.isfinite(aw)
    same_nonfinite = bool(((~finite) & ~((aw == ew) | (torch.isnan(aw) & torch.isnan(ew)))).sum() == 0)
    d = (aw - ew).abs()[finite]
    check = OutputCheck(path=path, dtype=dtype, ok=True, max_abs_diff=float(d.max()) if d.numel() else 0.0)
    if not same_nonfinite:
        check.ok, check.why = False, Note("output_non_finite")
        return check
    rtol, atol = _tolerance(expected, e.dtype)
    if torch.allclose(aw[finite], ew[finite], rtol=rtol, atol=atol):
        return check
    multiplier = 3.0 if e.dtype in LOW_PRECISION or e.numel() < SMALL_TENSOR else 2.0
    slack = RMSE_TOL.get(torch.float32 if isinstance(expected, float) else e.dtype, 1e-4) / 10
    r = _as_tensor(reference)
    if (
        r is None
        or r.shape != e.shape
        or not (r.is_floating_point() or r.is_complex())
        or torch.equal(r.to(e.device), e)
    ):  # the same computation as eager: not a reference
        if spread is not None:  # eager moves from run to run: compiled may move as much
            check.compiled_eager_rmse = _rmse(aw[finite], ew[finite])
            check.eager_spread_rmse = spread
            check.rmse_multiplier, check.rmse_slack = multiplier, slack
            check.allowed_rmse = multiplier * spread + slack
            if not check.compiled_eager_rmse <= check.allowed_rmse:
                values = {"rmse": check.compiled_eager_rmse, "multiplier": multiplier, "spread": spread}
                check.ok, check.why = False, Note("output_beyond_spread", values=values)
            return check
        values: dict[str, NoteValue] = {"dtype": str(e.dtype), "rtol": rtol, "atol": atol}
        check.ok, check.why = False, Note("output_beyond_tolerance", values=values)
        return check
    rw = r.to(e.device, wide)
    keep = finite & torch.isfinite(rw)
    check.compiled_rmse = _rmse(aw[keep], rw[keep])
    check.eager_rmse = _rmse(ew[keep], rw[keep])
    check.rmse_multiplier, check.rmse_slack = multiplier, slack
    check.allowed_rmse = multiplier * check.eager_rmse + slack
    if not check.compiled_rmse <= check.allowed_rmse:
        values = {"rmse": check.compiled_rmse, "multiplier": multiplier, "eager_rmse": check.eager_rmse}
        check.ok, check.why = False, Note("output_beyond_reference", values=values)
    return check


def compare_outputs(
    eager: dict[str, Any],
    compiled: dict[str, Any],
    *,
    random_ops: list[str],
    reference: dict[str, Any] | None = None,
    reference_note: Note | None = None,
    reference_method: str = "float64",
    reference_float32_ops: list[str] | None = None,
    reference_fallback: str = "",
    reference_rounded_casts: list[str] | None = None,
    eager_rerun: dict[str, Any] | None = None,
    inputs_may_change: bool = False,
) -> Correctness:
    """Judge every leaf output present in both runs; ``reference`` is the reference run's outputs, if any, made
    as ``reference_method`` says; ``eager_rerun`` a second eager run's, which sets the floor of
    nondeterministic outputs and tells outputs whose inputs changed between runs (any difference, where
    ``inputs_may_change``: the code reads an iterator that could not be replayed)."""
    eager_leaves = dict(_leaves_of(eager))
    compiled_leaves = dict(_leaves_of(compiled))
    reference_leaves = dict(_leaves_of(reference)) if reference is not None else {}
    changed: dict[str, Note] = {}
    spreads: dict[str, float] = {}
    if eager_rerun is not None:
        rerun_leaves = dict(_leaves_of(eager_rerun))
        for path, expected in eager_leaves.items():
            if path not in compiled_leaves:
                continue
            if path not in rerun_leaves:
                changed[path] = Note("eager_changed_value", values={"first": "it", "then": "nothing"})
                continue
            why, spread = eager_spread(expected, rerun_leaves[path], strict=inputs_may_change)
            if why is not None:
                changed[path] = why
            elif spread is not None:
                spreads[path] = spread
    checks = [
        judge_output(path, expected, compiled_leaves[path], reference_leaves.get(path), spreads.get(path))
        for path, expected in eager_leaves.items()
        if path in compiled_leaves
    ]
    if not checks:
        return Correctness(ok=None, note=Note("nothing_to_compare"))
    mismatched = [c.path for c in checks if not c.ok]
    used = reference is not None
    result = Correctness(
        ok=not mismatched,
        max_abs_diff=max((c.max_abs_diff for c in checks if c.max_abs_diff is not None), default=None),
        max_rel_diff=_max_rel_diff(eager_leaves, compiled_leaves, checks),
        compared=[c.path for c in checks],
        mismatched=mismatched,
        method=reference_method if used else "tolerance",
        checks=checks,
        note=reference_note,
        reference_float32_ops=list(reference_float32_ops or []) if used else [],
        reference_fallback=reference_fallback if used else "",
        reference_rounded_casts=list(reference_rounded_casts or []) if used else [],
    )
    if changed:
        for c in checks:
            if c.path in changed:
                c.changed = changed[c.path]
        result.ok = None
        result.mismatched = []
        result.changed_between_runs = list(changed)
        return result
    # With random numbers drawn, outputs that are not simply close differ by their draws, not by the
    # compiler: the float64 run draws yet other numbers, so its errors say nothing either (a training
    # step with dropout: compiled and eager both 0.44 RMSE from it).
    if random_ops and any(not c.ok or c.compiled_rmse is not None for c in checks):
        result.ok = None
        result.note = Note("random_ops", values={"ops": sorted(random_ops)})
    return result


def _max_rel_diff(eager: dict[str, Any], compiled: dict[str, Any], checks: list[OutputCheck]) -> float | None:
    """The largest |compiled - eager| / max(|eager|, atol) over floating outputs."""
    best = None
    for c in checks:
        e, a = _as_tensor(eager[c.path]), _as_tensor(compiled[c.path])
        if (
            e is None
            or a is None
            or a.shape != e.shape
            or not (e.is_floating_point() or e.is_complex())
            or e.numel() == 0
        ):
            continue
        wide = torch.complex128 if e.is_complex() else torch.float64
        ew, aw = e.to(wide), a.to(e.device, wide)
        finite = torch.isfinite(ew) & torch.isfinite(aw)
        if not bool(finite.any()):
            continue
        atol = _tolerance(eager[c.path], e.dtype)[1]
        rel = float(((aw - ew).abs()[finite] / ew.abs()[finite].clamp_min(atol)).max())
        best = rel if best is None else max(best, rel)
    return best


def _leaves_of(outputs: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for name, value in outputs.items():
        yield from _leaves(value, name)


def snapshot(outputs: dict[str, Any]) -> dict[str, Any]:
    """Clone tensors so later runs (which may reuse buffers or mutate in place) cannot change them."""

    def clone(value: Any, nested: bool = False) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach().clone()
        if isinstance(value, list):
            return [clone(v, True) for v in value]
        if isinstance(value, tuple):
            return tuple(clone(v, True) for v in value)
        if isinstance(value, dict):
            return {k: clone(v, True) for k, v in value.items()}
        if nested and any(isinstance(t, torch.Tensor) for _, t in _leaves(value, "", nested=True)):
            try:  # a KV cache object: its tensors, as they are now
                return copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - an object that cannot be copied is compared as later runs leave it
                return value
        return value

    return {k: clone(v) for k, v in outputs.items()}


def random_ops_in(op_names: list[str]) -> list[str]:
    return sorted({op for op in op_names if op.rsplit(".", 1)[0] in RANDOM_OPS or op in RANDOM_OPS})


def draws_as_eager(spec: VariantSpec | None) -> bool:
    """Whether the variant's compiled code draws its random numbers as eager does: Inductor with
    ``fallback_random`` on (set in its config or the variant's options) runs ATen's own random ops on the same
    generator, so from the same seed it draws the same numbers, and its outputs can be compared with eager's."""
    if spec is None or spec.backend != "inductor":
        return False
    from torch._inductor import config as inductor_config

    return bool(dict(spec.options).get("fallback_random", inductor_config.fallback_random))


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


# The most the in-place-changed tensors may take for the correctness runs to compare them: two more copies
# (eager's and compiled's) beside MutableState's own, and a float64 one.
STATE_COMPARED_BYTES = 1 << 30
IN_PLACE = " (changed in place)"


def in_place_outputs(values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A run's in-place-changed tensors as outputs to compare: ``model.w (changed in place)``."""
    return {f"{name}{IN_PLACE}": value for name, value in values.items()}
