"""What to change, ranked by what it costs: the causes that cost the compiled cell time, each with its measured
cost and what to do, largest first (issue 23's "answer first").

Contract: every cause is read off what the run measured for the speedup's variant (the fastest compiled one),
never estimated:

* ``eager_region``: the ops a cell line ran *eagerly inside the compiled variant* (a graph break's code, what
  Dynamo skipped: a fused optimizer step), from its profiler pass (``KernelProfile.eager_lines``), with the
  graph break at that line and whose it is (``breaks.break_groups``);
* ``outside_kernels``: the compiled call's time outside kernels (Python, guards, launches; on CPU dispatch),
  ``breakdown``'s part, across the call's compiled graphs;
* ``fallback_kernels``: ATen kernels Inductor left inside its graphs (``Kernel.kind == "aten"``);
* ``library_slower`` / ``kernels_slower``: library (matmul, convolution, attention) or all other kernels taking
  longer than eager's;
* ``fused_native``: eager already runs a fused native kernel (``torch._transformer_encoder_layer_fwd``, which a
  ``TransformerEncoderLayer`` in eval under ``no_grad`` takes), which compiling cannot improve: it costs what the
  compiled call spends on it, its own ATen kernel where Inductor calls the same op (then it is not also a
  ``fallback_kernels`` cause), else the compiled kernels of its line, else eager's time in it;
* ``host_contention``: more torch threads than the cores other processes left free, or other processes taking
  the CPU from threads that fit, with its measured effect on the compiled call and the fix that applies
  (``contention``); ranked first where it is measured, since every other per-call figure was taken on calls it
  slowed;
* once per program, not per call: ``recompiles`` (their compile time) and ``compile`` (with its payback).

Per-call causes are ranked by their cost per call (``host_contention`` first) and listed before the one-time
ones, ranked by seconds; a per-call cause below the timer's spread (``kernel_times.timer_spread_ms``) is not
measurable and is left out.  Where the profiler pass is withheld (``kernel_times``), no per-call cause read off it is given: its times
are not this call's, and the heading says why (the breakdown's rows show shares then, never times).  The card shows the first ``CARD_CAUSES``; every view shows this one list.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profile_run import ProfileRun, Variant
from ..serialize import ADDED_LATER
from .breakdown import BreakdownRow, breakdown_row, kernel_groups
from .breaks import BreakGroup, break_groups
from .contention import contention, speedup_unsettled
from .facts import cache_words, cell_code
from .format import format_ms, format_s, lines_of, ratio_phrase
from .guards import failed_guard_text
from .kernel_times import timer_spread_ms
from .lines import line_times
from .outcome import outcome
from .payback import calls_text, payback

CARD_CAUSES = 3
# fused native kernels eager may already run, which compiling replaces with its own code
FUSED_NATIVE_OPS = (
    "_transformer_encoder_layer_fwd",
    "_native_multi_head_attention",
    "_fused_adam",
    "_fused_adamw",
    "_fused_sgd",
)
# A cause smaller than this share of the compiled call is not worth a user's change (nor a line on the card).
MIN_SHARE = 0.02


@dataclass
class Cause:
    """One thing that costs the compiled cell time, what it costs, and what to do about it."""

    # eager_region, outside_kernels, fallback_kernels, library_slower, kernels_slower, fused_native, host_contention,
    # recompiles, compile
    kind: str
    title: str  # what it is, in a few words: "line 9: opt.step() runs eagerly"
    cost_text: str  # "3.10 ms a call (41% of the call)"; "12.3 s once"
    action: str  # what to do; "" when there is nothing to do
    cost_ms: float | None = None  # per call
    cost_s: float | None = None  # once
    line: int | None = None
    owner: str = ""  # a graph break's: "yours", "library" or "pytorch"; "" for other causes
    text: str = field(init=False, metadata=ADDED_LATER)  # the list's line: title, cost, what to do (``cause_text``)

    def __post_init__(self) -> None:
        self.text = cause_text(self)


def _best(run: ProfileRun) -> Variant | None:
    s = run.speedup
    return next((v for v in run.variants if s is not None and v.name == s.variant), None)


def _per_call(cost_ms: float, call_ms: float) -> str:
    share = f" ({cost_ms / call_ms:.0%} of the call)" if call_ms > 0 else ""
    return f"{format_ms(cost_ms)} a call{share}"


def _break_at(groups: list[BreakGroup], line: int) -> BreakGroup | None:
    return next((g for g in groups if g.line == line), None)


def _eager_regions(run: ProfileRun, best: Variant, row: BreakdownRow, floor_ms: float) -> list[Cause]:
    profile = best.kernel_profile
    if profile is None:
        return []
    groups = break_groups(run)
    causes = []
    for region in profile.eager_lines:
        if region.time_ms < floor_ms:
            continue
        code = cell_code(run, region.line)
        ops = ", ".join(op.removeprefix("aten::") for op in region.ops[:3])
        group = _break_at(groups, region.line)
        if group is not None and group.owner == "pytorch":
            action = group.note
        elif group is not None and group.owner == "library":
            action = f"{group.note} ({group.inside}: {group.reason})" if group.inside else group.note
        elif group is not None:
            action = f"remove the graph break here ({group.reason})" + (f"; see {group.page}" if group.page else "")
        else:
            action = "Dynamo ran this line's ops outside its graphs (after a graph break in the same function)"
        causes.append(
            Cause(
                kind="eager_region",
                title=f"line {region.line}: {code or '?'} runs eagerly inside the compiled variant"
                + (f" ({ops})" if ops else ""),
                cost_text=_per_call(region.time_ms, row.median_ms),
                action=action,
                cost_ms=region.time_ms,
                line=region.line,
                owner=group.owner if group is not None else "",
            )
        )
    return causes


def _outside_kernels(run: ProfileRun, best: Variant, row: BreakdownRow, eager: BreakdownRow) -> Cause:
    graphs = sum(1 for g in run.graphs if g.kind == "dynamo" and g.variant == best.name)
    host = row.method == "host"
    what = "Python, guards and dispatch" if host else "Python, guards and kernel launches"
    yours = [g for g in break_groups(run) if g.owner == "yours" and best.name in g.variants]
    if graphs > 1 and yours:
        at = ", ".join(f"line {g.line} ({g.reason})" if g.line is not None else g.reason for g in yours[:3])
        action = (
            f"each of the {graphs} graphs a call runs adds a guard check, a frame and the Python between them: "
            f"the graph breaks at {at} split them"
        )
    elif run.device.type == "cuda" and "reduce-overhead" not in (best.mode or ""):
        action = "mode='reduce-overhead' replays the kernels as CUDA graphs and removes launch overhead"
    elif graphs > 1:
        action = f"each of the {graphs} graphs a call runs adds a guard check and a frame"
    else:
        action = "larger batches spread it over more work"
    return Cause(
        kind="outside_kernels",
        title=f"{what} outside kernels"
        + (f", around {graphs} compiled graphs" if graphs > 1 else "")
        + f" (eager {format_ms(eager.outside_ms)})",
        cost_text=_per_call(row.outside_ms, row.median_ms),
        action=action,
        cost_ms=row.outside_ms,
    )


def _fused_op(name: str) -> str | None:
    """The fused native op a kernel or op name is (``aten::_transformer_encoder_layer_fwd``,
    ``torch.ops.aten._transformer_encoder_layer_fwd.default``), else None."""
    base = name.removeprefix("aten::").removeprefix("torch.ops.aten.").removeprefix("aten.")
    base = base.split(".", 1)[0]
    return base if base in FUSED_NATIVE_OPS else None


def _fallbacks(run: ProfileRun, best: Variant, row: BreakdownRow) -> Cause | None:
    kernels = [
        k
        for k in run.kernels
        if k.variant == best.name and k.kind == "aten" and k.device_time_ms and _fused_op(k.name) is None
    ]
    if not kernels:
        return None
    kernels.sort(key=lambda k: -(k.device_time_ms or 0.0))
    cost = sum(k.device_time_ms or 0.0 for k in kernels)
    names = ", ".join(k.name for k in kernels[:3]) + (f" and {len(kernels) - 3} more" if len(kernels) > 3 else "")
    return Cause(
        kind="fallback_kernels",
        title=f"ATen kernels Inductor left inside its graphs: {names}",
        cost_text=_per_call(cost, row.median_ms),
        action="Inductor has no lowering for these ops and calls ATen's; the Kernels tab shows each one's time",
        cost_ms=cost,
    )


# What a kernel group that takes longer than eager's is called in a cause and what to do: by ``kernel_groups``' name.
_SLOWER = {
    "library kernels": (
        "library_slower",
        "library kernels (matmul, convolution, attention)",
        "mode='max-autotune' benchmarks other kernels for them while compiling",
    ),
    "generated, ATen and copy kernels": (
        "kernels_slower",
        "generated, ATen and copy kernels",
        "the Kernels tab lists the slowest; the time per line shows where they came from",
    ),
}


def _slower_kernels(row: BreakdownRow, eager: BreakdownRow, floor_ms: float) -> list[Cause]:
    causes = []
    for group in kernel_groups(row, eager, copies_apart=False):
        if group.grew_ms < floor_ms:
            continue
        kind, what, action = _SLOWER[group.name]
        causes.append(
            Cause(
                kind=kind,
                title=f"{what} take {format_ms(group.ms)} against eager's {format_ms(group.eager_ms)}",
                cost_text=_per_call(group.grew_ms, row.median_ms),
                action=action,
                cost_ms=group.grew_ms,
            )
        )
    return causes


def _fused_native(run: ProfileRun, best: Variant, row: BreakdownRow, floor_ms: float) -> list[Cause]:
    eager = run.eager
    profile = eager.kernel_profile if eager is not None else None
    if profile is None:
        return []
    line_ms = {r.line: t for r in line_times(run).rows if (t := r.time_ms.get(best.name)) is not None}
    causes = []
    for region in profile.eager_lines:
        fused = next((op for op in map(_fused_op, region.ops) if op is not None), None)
        if fused is None:
            continue
        same = [
            k
            for k in run.kernels
            if k.variant == best.name and k.kind == "aten" and k.device_time_ms and _fused_op(k.name) == fused
        ]
        if same:  # Inductor has no lowering for it: the compiled graph calls the same kernel
            cost = sum(k.device_time_ms or 0.0 for k in same)
            action = (
                "compiled calls the same fused kernel inside its graph (Inductor has no lowering for it), so "
                "compiling cannot make this part faster; only the code around it"
            )
        else:
            cost = line_ms.get(region.line, region.time_ms)
            action = (
                "compiling replaces it with kernels of its own and cannot do much better; keep this part eager "
                "(torch.compiler.disable) if compiled is slower here"
            )
        if cost < floor_ms:
            continue
        share = f" ({region.time_ms / eager.timing.median_ms:.0%} of eager's call)" if eager and eager.timing else ""
        causes.append(
            Cause(
                kind="fused_native",
                title=f"line {region.line}: eager already runs {fused}, a fused native kernel: "
                f"{format_ms(region.time_ms)} a call in eager{share}",
                cost_text=_per_call(cost, row.median_ms),
                action=action,
                cost_ms=cost,
                line=region.line,
            )
        )
    return causes


def _contention(run: ProfileRun) -> Cause | None:
    c = contention(run)
    if c is None:
        return None
    return Cause(
        kind="host_contention",
        title=c.title,
        cost_text=c.cost_text,
        action=c.action,
        cost_ms=c.effect_ms,
    )


def _one_time(run: ProfileRun, best: Variant) -> list[Cause]:
    causes = []
    recompile_s = best.recompile_s or 0.0
    recompiles = [r for r in run.recompiles if r.variant == best.name]
    if recompiles:
        r0 = recompiles[0]
        first = failed_guard_text(r0, lines_of(run), run.lr_schedulers) or (
            r0.reason.strip().splitlines()[0] if r0.reason.strip() else ""
        )
        first, _, fix = first.partition("; fix: ")  # the guard in the user's words, and what to do
        causes.append(
            Cause(
                kind="recompiles",
                title=f"{len(recompiles)} recompile{'' if len(recompiles) == 1 else 's'}"
                + (f": {first}" if first else ""),
                cost_text=f"{format_s(recompile_s)} once" if recompile_s else "compile time again",
                action=fix
                or "the Guards tab names the guard that failed, on which value, beside every guard of its graph",
                cost_s=recompile_s or None,
                line=r0.line,
            )
        )
    if best.compile_s:
        back = payback(run)
        words = cache_words(run, best)
        if speedup_unsettled(run) is not None:
            pays = "; its payback is not judged: the speedup was measured on a busy CPU"
        elif back is None or back.calls is None:
            s = run.speedup
            slower = s is not None and s.value < 1 and not s.includes_one  # "1.80x slower" read "not measurably faster"
            pays = f"; it never pays back: compiled is {'slower' if slower else 'not measurably faster'}"
        else:
            pays = f"; it pays back after {calls_text(back.calls)}"
        causes.append(
            Cause(
                kind="compile",
                title="compiling" + (f" ({words})" if words else ""),
                cost_text=f"{format_s(best.compile_s)} once{pays}",
                # Inductor's caches keep what it compiled; another backend (aot_eager, a user's own) has none
                action=""
                if words == "warm cache" or (best.backend or "inductor") != "inductor"
                else "a warm Inductor cache (this code compiled before) cuts it",
                cost_s=best.compile_s,
            )
        )
    return causes


def diagnosis(run: ProfileRun) -> list[Cause]:
    """The causes, per-call ones by cost then one-time ones by seconds (see the module docstring)."""
    best, eager_variant = _best(run), run.eager
    if best is None or eager_variant is None or best.timing is None:
        return []
    row, eager = breakdown_row(best), breakdown_row(eager_variant)
    per_call: list[Cause] = []
    contended = _contention(run)
    # where other processes' load set the timed calls (the busy_cpu verdict), what the profiler pass read off them
    # is theirs too: an MLP's "Python, guards and dispatch outside kernels: 23.6 ms (98%)" beneath "eager took
    # 622 µs at 1 thread, 22.6 ms at 2" was waiting for a CPU, and "larger batches" was the wrong advice
    unsettled = speedup_unsettled(run) is not None
    if row is not None and eager is not None and row.trusted and eager.trusted and not unsettled:
        floor_ms = max(timer_spread_ms(best.timing), MIN_SHARE * row.median_ms)
        per_call += _eager_regions(run, best, row, floor_ms)
        if row.outside_ms >= floor_ms:
            per_call.append(_outside_kernels(run, best, row, eager))
        fallbacks = _fallbacks(run, best, row)
        if fallbacks is not None and (fallbacks.cost_ms or 0.0) >= floor_ms:
            per_call.append(fallbacks)
        per_call += _slower_kernels(row, eager, floor_ms)
        per_call += _fused_native(run, best, row, floor_ms)
    per_call.sort(key=lambda c: -(c.cost_ms or 0.0))
    if contended is not None:  # first: the other per-call figures were measured on calls it slowed
        per_call.insert(0, contended)
    once = sorted(_one_time(run, best), key=lambda c: -(c.cost_s or 0.0))
    return per_call + once


def per_call_withheld(run: ProfileRun) -> str:
    """Why the list has no per-call cause read off the profiler pass although the variants were timed: no pass, or
    one whose times are not this call's (withheld: the breakdown's rows are shares then); "" where they were
    judged, and the rows are times."""
    best, eager_variant = _best(run), run.eager
    if best is None or eager_variant is None or best.timing is None:
        return ""
    row, eager = breakdown_row(best), breakdown_row(eager_variant)
    if row is None or eager is None:
        quick = any(n.kind == "quick_profile" for n in run.notes)
        return "no profiler pass ran" + (" (--quick)" if quick else "")
    for r in (row, eager):
        if not r.trusted:
            return r.withheld_text or f"the {r.variant} profiler pass was withheld"
    return ""


def diagnosis_heading(run: ProfileRun) -> str:
    """What the list answers, with the speedup it explains: ``what to change (compiled is 1.25× slower)``; and,
    where no per-call cause could be judged, why (``per_call_withheld``), so a short list is not read as the
    whole answer."""
    s = run.speedup
    if s is None:
        return "what costs the compiled cell time, largest first"
    verdict = outcome(run)
    pace = ratio_phrase(s.value) + (
        f", not meaningful: {verdict.rung.not_meaningful}"
        if verdict.overrides
        else ", within noise"
        if s.includes_one
        else ""
    )
    heading = f"what costs the compiled cell time, largest first (compiled is {pace})"
    withheld = per_call_withheld(run)
    return f"{heading}; where each call's time goes is not measured: {withheld}" if withheld else heading


def cause_text(c: Cause) -> str:
    """One line of the list: ``line 9: opt.step() runs eagerly …: 3.10 ms a call (41% of the call). PyTorch's …``."""
    return f"{c.title}: {c.cost_text}" + (f" — {c.action}" if c.action else "")


def diagnosis_digest(run: ProfileRun) -> list[Cause]:
    """The summary's ``diagnosis``: ``diagnosis(run)``, largest first."""
    return diagnosis(run)
