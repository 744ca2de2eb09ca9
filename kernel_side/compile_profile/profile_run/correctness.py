"""Whether compiled results were right: each output's check against eager and a high-precision reference, and the
verdict (``engine.correctness`` measures it; ``digest.outcome`` words it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .notes import Note


@dataclass
class OutputCheck:
    """How one output (a tensor or number the cell produced) was judged.

    With a reference (``Correctness.method`` "float64", "mixed" or "float32") a floating output
    passes when it is close to eager by its dtype's tolerance, or when its RMSE against
    the reference run is at most ``multiplier`` x eager's own RMSE against it plus a slack
    (``allowed_rmse``), which is how PyTorch's benchmark runner judges accuracy.
    Without a reference for it, an output that a second eager run gave differently (nondeterministic
    kernels) passes when compiled's RMSE against eager is at most ``multiplier`` x the two eager
    runs' RMSE plus the slack: eager's own run-to-run spread is the floor.
    """

    path: str
    dtype: str
    ok: bool
    max_abs_diff: float | None = None
    compiled_rmse: float | None = None  # against the reference
    eager_rmse: float | None = None
    allowed_rmse: float | None = None  # rmse_multiplier x eager_rmse (or eager_spread_rmse) + rmse_slack
    rmse_multiplier: float | None = None  # 2 (fp32), 3 (fp16/bf16, fewer than 1000 elements)
    rmse_slack: float | None = None  # absolute: a tenth of the benchmark runner's tol for the dtype
    why: Note | None = None  # why it failed (a kind and its figures, worded by ``digest.notes``)
    # judged against eager's run-to-run spread (no reference for it): the RMSE between two eager runs, and
    # compiled's RMSE against the first
    eager_spread_rmse: float | None = None
    compiled_eager_rmse: float | None = None
    # a second eager run gave this output otherwise than rounding can (another shape, other integers, a
    # relative RMSE over 1000 epsilons of its dtype, at most 0.25): the inputs changed between runs; how
    changed: Note | None = None


@dataclass
class Correctness:
    """Compiled outputs compared against eager ones (and a float64 eager reference, when one could run)."""

    ok: bool | None
    max_abs_diff: float | None = None
    max_rel_diff: float | None = None
    compared: list[str] = field(default_factory=list[str])
    mismatched: list[str] = field(default_factory=list[str])
    note: Note | None = None  # why nothing was compared, or how the comparison was limited
    # "float64": errors against a float64 eager run; "mixed": a float64 run in which the ops of
    # ``reference_float32_ops`` ran in float32 (they failed in float64); "float32": a float32 run of
    # float16/bfloat16 code (float64 failed even so); "tolerance": dtype tolerances only
    method: str = ""
    checks: list[OutputCheck] = field(default_factory=list[OutputCheck])
    reference_float32_ops: list[str] = field(default_factory=list[str])  # e.g. "aten._grouped_mm"
    reference_fallback: str = ""  # what stopped a plain float64 run, where the reference is "mixed" or "float32"
    # the code's own casts to a lower floating dtype the reference met ("float64 to bfloat16"): each rounded the
    # values and kept the reference's precision (``engine.correctness.rounded_casts``)
    reference_rounded_casts: list[str] = field(default_factory=list[str])
    # iterators the code draws from (``next(batches)``) whose draws every correctness run was given again
    replayed: list[str] = field(default_factory=list[str])
    # outputs a second eager run gave otherwise than rounding can: the runs read other inputs (an iterator
    # reached other than by a global name, a file, state the cell changes), so nothing was compared
    changed_between_runs: list[str] = field(default_factory=list[str])
    # iterators the code reads that could not be replayed (a replay failed in the code, or an argument of
    # ``profile``): what stopped the comparison
    not_replayed: list[str] = field(default_factory=list[str])
    not_replayed_reason: str = ""  # the error the code raised on a replay
