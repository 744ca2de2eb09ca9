"""The correctness check in one sentence: whether compiled results matched eager's, how it judged (dtype
tolerance, a float64 or float32 reference run by the benchmark runner's rule, eager's own run-to-run spread), in
which output and by how much, and why nothing was compared where nothing was.  Derived here once; views lay it out."""

from __future__ import annotations

from ..profile_run import Correctness, OutputCheck
from .format import format_diff
from .notes import note_text


def correctness_text(c: Correctness) -> str:
    """What the correctness check found and how it judged, in one sentence."""
    diff = f" (max abs diff {format_diff(c.max_abs_diff)})" if c.max_abs_diff is not None else ""
    if c.ok is None:
        if c.changed_between_runs:
            return _changed_between_runs_text(c)
        note = note_text(c.note).removeprefix("not compared: ") if c.note else ""  # older runs had the prefix
        return f"not compared: {note}" if note else "not compared"
    replayed = _replayed_text(c)
    if c.ok:
        by_rmse = [k for k in c.checks if k.compiled_rmse is not None]
        by_spread = [k for k in c.checks if k.compiled_eager_rmse is not None]
        parts = []
        if by_rmse:
            parts.append(_reference_pass_text(c, by_rmse))
        if by_spread:
            parts.append(_spread_pass_text(by_spread, first=not parts))
        if not parts:
            why = c.note is not None and c.note.kind in ("reference_quick", "reference_random")
            quick = f"; {note_text(c.note)}" if c.note is not None and why else ""
            parts.append(f"compiled results match eager within dtype tolerance{diff}{quick}")
        if c.method in ("mixed", "float32") and not by_rmse:  # the reference judged none: how it was made, still
            parts.append(f"the reference was {reference_words(c)}")
        return "; ".join(parts) + replayed
    failed = [k for k in c.checks if not k.ok]
    first = failed[0] if failed else None
    where = f" in {', '.join(c.mismatched)}" if c.mismatched else ""
    why = f": {first.path} {note_text(first.why)}" if first is not None and first.why is not None else ""
    if c.method == "float64":
        how = ""
    elif c.method in ("mixed", "float32"):
        how = f"; judged against {reference_words(c)}"
    else:
        how = f"; {note_text(c.note)}" if c.note else "; judged by dtype tolerance only"
    return f"compiled results differ from eager{where}{diff}{why}{how}{replayed}"


def reference_words(c: Correctness) -> str:
    """Which reference run the errors were measured against: "a float64 run of the same code", with the ops
    that ran in float32 inside it, or a float32 one where float64 could not run; and where the code casts down
    itself, that those casts only rounded the values."""
    return _reference_run_words(c) + _rounded_casts_words(c)


def _rounded_casts_words(c: Correctness) -> str:
    """`` (its casts to bfloat16 rounding the values only)``: the reference kept its precision past them."""
    if not c.reference_rounded_casts:
        return ""
    targets = ", ".join(dict.fromkeys(cast.rsplit(" to ", 1)[-1] for cast in c.reference_rounded_casts))
    return f" (its casts to {targets} rounding the values only)"


def _reference_run_words(c: Correctness) -> str:
    if c.method == "mixed":
        ops = ", ".join(c.reference_float32_ops)
        many = len(c.reference_float32_ops) > 1
        return (
            f"a float64 run of the same code, with {ops} in float32 ({'they fail' if many else 'it fails'} in float64)"
        )
    if c.method == "float32":
        why = f": {c.reference_fallback}" if c.reference_fallback else ""
        return f"a float32 run of the same code (float64 could not run{why})"
    return "a float64 run of the same code"


def _replayed_text(c: Correctness) -> str:
    if not c.replayed:
        return ""
    names = ", ".join(c.replayed)
    return f"; every run was given the same items from {names}, as the first drew them"


def _changed_between_runs_text(c: Correctness) -> str:
    """Outputs a second eager run gave otherwise: the runs read other inputs, so nothing was compared."""
    paths = c.changed_between_runs
    first = next((k for k in c.checks if k.path == paths[0]), None)
    detail = f" ({first.path}: {note_text(first.changed)})" if first is not None and first.changed is not None else ""
    text = (
        f"not compared: eager itself gave other results on a second run in {', '.join(paths)}{detail}, so the "
        "runs read other inputs: the cell advances an iterator, a generator, a file or a data loader, or changes "
        "state it reads"
    )
    if c.not_replayed:
        names = ", ".join(c.not_replayed)
        why = (
            f" ({c.not_replayed_reason})"
            if c.not_replayed_reason
            else " (generators, list, tuple and range iterators and DataLoader iterators can be, without Dynamo "
            "recompiling)"
        )
        text += f"; {names} could not be given the same items on each run{why}"
    return text


def _spread_pass_text(by_spread: list[OutputCheck], first: bool) -> str:
    """Outputs beyond their dtype's tolerance that eager itself gives otherwise from run to run
    (nondeterministic kernels), judged against that spread."""
    lead = max(by_spread, key=lambda k: (k.max_abs_diff or 0.0, _spread_allowance_used(k)))
    opening = "compiled results are within eager's own run-to-run spread: " if first else ""
    text = (
        f"{opening}compiled differs from eager by {format_diff(lead.max_abs_diff)} in {lead.path}, beyond its "
        f"dtype tolerance, but eager differs from itself by {format_diff(lead.eager_spread_rmse)} RMSE there from "
        f"one run to the next (nondeterministic kernels, and no reference run for it); compiled is "
        f"{format_diff(lead.compiled_eager_rmse)} RMSE from eager, {_within_spread(lead)}"
    )
    rest = [k.path for k in by_spread if k is not lead]
    if rest:
        more = f" and {len(rest) - MORE_OUTPUTS_NAMED} more" if len(rest) > MORE_OUTPUTS_NAMED else ""
        text += f"; {', '.join(rest[:MORE_OUTPUTS_NAMED])}{more} also within eager's spread"
    return text


def _spread_allowance_used(k: OutputCheck) -> float:
    return (k.compiled_eager_rmse or 0.0) / max(k.allowed_rmse or 0.0, 1e-300)


def _within_spread(k: OutputCheck) -> str:
    compiled, spread, multiplier = k.compiled_eager_rmse, k.eager_spread_rmse, k.rmse_multiplier
    # a check judged against eager's spread has all three (engine.correctness records them together)
    assert compiled is not None and spread is not None and multiplier is not None
    if compiled <= spread:
        return "no further than a second eager run"
    if compiled <= multiplier * spread:
        return f"within {k.rmse_multiplier:g}x that"
    return f"over {k.rmse_multiplier:g}x that but within the rule's absolute slack of {format_diff(k.rmse_slack)}"


# Eager this much further from float64 than compiled: not the rounding noise of two ways to compute the same
# thing (their RMSEs were within 0.70-1.01x of each other for GPT-2, ViT, ResNet-18 and an MLP) but an
# output that rounding moves a long way, such as one computed after a branch on a value near 0.
ILL_CONDITIONED_RATIO = 10.0
MORE_OUTPUTS_NAMED = 3


def _reference_pass_text(c: Correctness, by_rmse: list[OutputCheck]) -> str:
    """Outputs that differ from eager beyond their dtype's tolerance yet pass because their RMSE against the
    reference run (float64, or ``reference_words``) is within the benchmark runner's allowance.  They do not match eager, so the sentence says by
    how much they differ (in the output that differs most), how far eager itself is from float64 there, and
    how compiled got within the allowance: no further than eager, within the multiplier, or only within the
    absolute slack."""
    lead = max(by_rmse, key=lambda k: (k.max_abs_diff or 0.0, _allowance_used(k)))
    compiled_rmse, eager_rmse = _reference_rmses(lead)
    ill = (
        f" ({lead.path} is ill-conditioned, e.g. a branch on a value near 0)"
        if eager_rmse > ILL_CONDITIONED_RATIO * compiled_rmse
        else ""
    )
    rule, short = (
        ("the float64 rule", "float64") if c.method in ("float64", "") else ("the reference rule", "the reference")
    )
    text = (
        f"compiled results pass by {rule}, as PyTorch's benchmark runner judges: compiled differs "
        f"from eager by {format_diff(lead.max_abs_diff)} in {lead.path}, beyond its dtype tolerance, but eager "
        f"is itself {format_diff(lead.eager_rmse)} RMSE from {reference_words(c)} there{ill}; "
        f"compiled is {format_diff(lead.compiled_rmse)} from it{_within(lead)}"
    )
    rest = [k for k in by_rmse if k is not lead]
    # another output whose error exceeds eager's came closer to failing than the lead may have: name it
    worse = [k for k in rest if _further_than_eager(k)]
    if worse:
        k = max(worse, key=_allowance_used)
        text += (
            f"; {k.path}: compiled {format_diff(k.compiled_rmse)} RMSE from {short}, eager "
            f"{format_diff(k.eager_rmse)}{_within(k)}"
        )
        rest.remove(k)
    if rest:
        names = ", ".join(k.path for k in rest[:MORE_OUTPUTS_NAMED])
        more = f" and {len(rest) - MORE_OUTPUTS_NAMED} more" if len(rest) > MORE_OUTPUTS_NAMED else ""
        text += f"; {names}{more} also passed by {rule}"
    return text


def _reference_rmses(k: OutputCheck) -> tuple[float, float]:
    """A check judged against the reference: compiled's RMSE from it and eager's (``engine.correctness``
    records both together)."""
    assert k.compiled_rmse is not None and k.eager_rmse is not None
    return k.compiled_rmse, k.eager_rmse


def _further_than_eager(k: OutputCheck) -> bool:
    compiled_rmse, eager_rmse = _reference_rmses(k)
    return compiled_rmse > eager_rmse


def _allowance_used(k: OutputCheck) -> float:
    return (k.compiled_rmse or 0.0) / max(k.allowed_rmse or 0.0, 1e-300)


def _within(k: OutputCheck) -> str:
    """How compiled's RMSE against float64 got within the allowance (multiplier x eager's + slack)."""
    compiled_rmse, eager_rmse = _reference_rmses(k)
    if compiled_rmse <= eager_rmse:
        return ", no further than eager"
    if k.rmse_multiplier is None or k.rmse_slack is None:  # runs stored before the two were recorded
        return f", within the allowed {format_diff(k.allowed_rmse)}"
    if compiled_rmse <= k.rmse_multiplier * eager_rmse:
        return f", within {k.rmse_multiplier:g}x eager's"
    return f", over {k.rmse_multiplier:g}x eager's but within the rule's absolute slack of {format_diff(k.rmse_slack)}"
