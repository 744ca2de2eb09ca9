"""The digest of a run as plain JSON: the headline and its wording, warnings, grouped graph breaks,
the correctness sentence, per-line times and the figures every view shows first.

The MIME bundle (the card), the run store's list, the REST API (the panel), the CLI, the text and
HTML views and the widget all read this one dict or the functions behind it, so a figure is computed
and worded once.  ``DIGEST_VERSION`` stamps each dict: the store re-derives summaries it cached under
an older version, so a stored run never shows an older wording than a fresh one.
"""

from __future__ import annotations

from ..profile_run import ProfileRun, Speedup, Variant
from . import contract
from .breakdown import OVERHEAD_BOUND, breakdown, clamp_warning, columns, reduce_overhead_advice, verdict
from .contention import CONTENDED_CORES
from .contention import advice as contention_advice
from .cost import profile_cost
from .diagnosis import diagnosis_digest, diagnosis_heading
from .distributed import ddp_splits_digest, distributed_summary
from .facts import (
    break_count_text,
    break_groups,
    break_summary,
    cache_counts,
    cache_words,
    cell_code,
    correctness_text,
    ddp_wrapper_text,
    device_text,
    interrupted_text,
    kept_tensor_warnings,
    kernel_count_text,
    later_run_failure_text,
    no_breaks_text,
    speedup_drift,
    torch_own_text,
)
from .format import (
    format_bytes,
    format_interval,
    format_ms,
    format_s,
    format_speedup_interval,
    interval_brackets,
    lines_of,
    ratio_phrase,
)
from .guards import guards_digest, recompiles_brief, recompiles_digest, value_guard_warnings
from .inputs import inputs_summary
from .kernel_times import digest as kernel_times_digest
from .kernel_times import withheld
from .lines import line_times
from .measured import cudagraph_warnings, measured
from .notes import (
    bisect_offer,
    bisection_text,
    compile_failure_text,
    error_message,
    memory_unmeasured_text,
    note_text,
    run_notes,
    settings_clause,
    variant_error,
    warning_notes,
)
from .outcome import list_status as outcome_list_status
from .outcome import no_speedup_text, outcome, outcome_digest, partly_eager_text
from .payback import payback
from .timeline import compile_timeline
from .trace import trace_summary

# Bumped whenever a field is added to, or a wording changes in, ``summarize``'s dict.
# 18: the diagnosis heading's why, a compile failure's place; 19: input sequences; 20: bisect_offer; 21: a script's
# lines, the wide-interval note; 22: a recompile at its guard's line, fixes by the value's type, kernels and library
# calls apart, restarts, a few signatures listed, a trace's files read and skipped records; 23: settings not at their
# defaults, setup failures, a failing graph's lines, fallback_random compared, a reference's float32 ops; 24:
# calibrated CPU profiler passes (measured or withheld, never both), host contention as a cause, fused_native
# whichever way the speedup goes; 25: the verdict ladder (outcome), Compare's context; 26: the in-place state put
# back or not, the learning rate's and a fused optimizer's words, a helper's cell; 27: each compile of the timeline
# opens in the Compiles tab (its key), a job's compile ids, cache lookups, collectives, tensor metadata and execution
# order compared across its ranks; 28: a job's cache lookups compared by key, not outcome; a calibrated pass's
# tolerance the timer's noise plus the cost taken out
DIGEST_VERSION = 28

MAX_BREAK_WARNINGS = 3  # groups of graph breaks the card lists; the panel has them all


def first_code_line(source: str) -> str:
    """The first line of code, skipping comments and IPython magics such as ``%%compile_profile``."""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "%")):
            return stripped
    return ""


def _variant_row(v: Variant) -> contract.VariantRow:
    t = v.timing
    return {
        "name": v.name,
        "backend": v.backend,
        "mode": v.mode,
        "median_ms": t.median_ms if t else None,
        "p10_ms": t.p10_ms if t else None,
        "p90_ms": t.p90_ms if t else None,
        "n": t.n if t else 0,
        "first_call_s": v.first_call_s,
        "compile_s": v.compile_s,
        "recompile_s": v.recompile_s,
        "peak_memory_bytes": v.peak_memory_bytes,
        "recompiled_during_timing": v.recompiled_during_timing,
        "error": variant_error(v),
    }


def speedup_phrase(s: Speedup) -> str:
    """``1.25× faster`` or ``1.80× slower``: a slowdown is worded by its factor above 1, never "0.56× slower";
    ``1.30× slower (within noise)`` when the interval includes 1×, so the headline never states a
    difference the next line calls unmeasurable."""
    phrase = ratio_phrase(s.value)
    return f"{phrase} (within noise)" if s.includes_one else phrase


def speedup_badge(s: Speedup) -> str:
    """The speedup in a few characters, as the headline words it: ``1.25× faster``, ``1.19× slower``; a badge
    read "0.84×" beside a headline that said "1.19× slower" (issue 23)."""
    return speedup_phrase(s).removesuffix(" (within noise)")


def same_kernels(run: ProfileRun, a: str, b: str) -> bool:
    """Whether variants ``a`` and ``b`` generated the same kernels (the same sources): then no timing
    difference between them is the mode's doing."""

    def sources(variant: str) -> list[str]:
        return sorted(k.source for k in run.kernels if k.variant == variant)

    return bool(sources(a)) and sources(a) == sources(b)


def recommendation_digest(run: ProfileRun) -> contract.RecommendationSummary | None:
    """What ``--sweep`` recommends, judged against noise: the fastest variant's call where it ran
    measurably faster than the next fastest (the interval of their ratio above 1×, and other code
    generated); otherwise "no mode is measurably better" and the plain call (a sweep once recommended one
    of two variants that compiled the same single kernel, from an interval of 0.35–23.3).  ``call`` is
    the one to copy, and every view shows it beside ``text``, which does not repeat it; ``measurable`` whether a
    mode won."""
    r = run.recommendation
    if r is None:
        return None
    plain = r.plain_call or r.call
    if not r.runner_up or r.margin is None:  # one variant swept, or a run from before the margin was measured
        s = run.speedup
        why = (
            f" ({format_speedup_interval(s.value, s.low, s.high)} than eager)"
            if s is not None and s.variant == r.variant
            else ""
        )
        text = f"{r.variant}, the fastest compiled variant{why}"
        return {"variant": r.variant, "call": r.call, "measurable": True, "text": text}
    margin = f"{ratio_phrase(r.margin)} than {r.runner_up}"
    brackets = interval_brackets(r.margin, r.margin_low, r.margin_high)
    if same_kernels(run, r.variant, r.runner_up):
        text = (
            f"no mode is measurably better: {r.variant} and {r.runner_up} generated the same kernels, so the "
            "plain call is as good"
        )
        return {"variant": r.plain_variant or r.variant, "call": plain, "measurable": False, "text": text}
    if r.margin_low is None or r.margin_low <= 1:
        text = (
            f"no mode is measurably better: {r.variant} ran {margin}, within noise"
            + (f" {brackets}" if brackets else "")
            + ", so the plain call is as good"
        )
        return {"variant": r.plain_variant or r.variant, "call": plain, "measurable": False, "text": text}
    text = f"{r.variant} ran {margin}, the next fastest" + (f" {brackets}" if brackets else "")
    return {"variant": r.variant, "call": r.call, "measurable": True, "text": text}


def recommendation_text(run: ProfileRun) -> str:
    """The call to copy and ``recommendation_digest``'s sentence, as the text view says them; "" without a sweep."""
    digest = recommendation_digest(run)
    return f"{digest['call']} — {digest.get('text', '')}" if digest else ""


def headline(run: ProfileRun) -> str:
    """The verdict first (``outcome``: results that differ, compiled code that stopped running, a failure), then the
    speedup, marked ``(not meaningful)`` beneath a verdict that overrides it, with both medians; compile time and
    cache; graph breaks."""
    verdict = outcome(run)
    if verdict.kind == "trace":
        return verdict.text
    eager, best = run.eager, run.speedup_variant  # best: None without a speedup
    if run.speedup is None or best is None or best.timing is None or eager is None or eager.timing is None:
        if verdict.overrides:  # results that differ on a run that then stopped: both
            return f"{verdict.text}; {no_speedup_text(run)}"
        return verdict.text
    phrase = ratio_phrase(run.speedup.value) + " (not meaningful)" if verdict.overrides else speedup_phrase(run.speedup)
    if run.inputs is not None:  # the speedup is the sequence's; each signature's times are in its row
        n = len(run.inputs.signatures)
        parts = [
            f"{best.name} {phrase} over {run.inputs.count} inputs "
            f"({n} signature{'s' if n != 1 else ''}{', weighted by calls' if n > 1 else ''})"
        ]
    else:
        parts = [f"{best.name} {phrase}: {format_ms(eager.timing.median_ms)} → {format_ms(best.timing.median_ms)}"]
    if verdict.overrides:
        parts.insert(0, verdict.text)
    elif verdict.kind == "partly_eager":
        parts.append(partly_eager_text(run))
    if best.compile_s is not None:
        cache = cache_words(run)
        again = f" (+{format_s(best.recompile_s)} recompiling)" if best.recompile_s else ""
        parts.append(f"compile {format_s(best.compile_s)}{again}" + (f", {cache}" if cache else ""))
    if run.graph_breaks:
        parts.append(break_count_text(run))  # "7 graph breaks, 3 in DDP's wrapper"
    return "; ".join(parts)


def warnings(run: ProfileRun) -> list[str]:
    out: list[str] = []
    later_failure = later_run_failure_text(run)
    if later_failure:  # first: what follows was measured before it, and nothing after it
        out.append(later_failure)
    # a compile failure where it was, whose it is, and what runs meanwhile
    of = lines_of(run)  # what its lines are lines of: the cell, or a traced script
    device = run.device.type
    out.extend(
        t for e in run.errors if (t := compile_failure_text(e, cell_code(run, e.line), of, run.configs_changed, device))
    )
    if run.bisection is not None and run.bisection.kind == "failure":
        out.append(bisection_text(run.bisection, run.configs_changed, device))
    if run.correctness is not None and run.correctness.ok is False:  # a setting may be the cause
        out.append(correctness_text(run.correctness) + settings_clause(run.configs_changed))
    if run.bisection is not None and run.bisection.kind == "mismatch":  # under the difference it bisected
        out.append(bisection_text(run.bisection, run.configs_changed, device))
    sequence = inputs_summary(run)
    if sequence is not None and sequence["mismatches"]:
        out.append(sequence["comparison_text"] + ": " + "; ".join(sequence["mismatches"][:3]))
    every = break_groups(run)
    # the breaks the user can act on (theirs, then libraries'), each on a line; PyTorch's own on one line
    groups = [g for g in every if g.owner == "yours"] + [g for g in every if g.owner == "library"]
    out.extend(break_summary(g, of) for g in groups[:MAX_BREAK_WARNINGS])
    if len(groups) > MAX_BREAK_WARNINGS:
        rest = sum(g.count for g in groups[MAX_BREAK_WARNINGS:])
        out.append(f"… and {rest} more graph break{'s' if rest != 1 else ''} elsewhere (see the panel)")
    own = torch_own_text(every, of)
    if own:
        out.append(own)
    ddp = ddp_wrapper_text(every, of)
    if ddp:  # one line for all of them, after the user's own: nothing in them to act on
        out.append(ddp)
    if run.recompiles:
        timed = [r for r in run.recompiles if r.during_timing]
        # each kind of recompile's failed guard says what to fix (mark the value dynamic, keep its shape)
        failed = recompiles_brief(timed or run.recompiles, of, run.lr_schedulers)
        out.append(
            f"{len(run.recompiles)} recompile{'s' if len(run.recompiles) != 1 else ''}"
            + (f", {len(timed)} during timed runs" if timed else "")
            + (f": {failed}" if failed else "")
        )
    out.extend(value_guard_warnings(run))
    out.extend(cudagraph_warnings(run))
    if run.speedup is not None and run.speedup.includes_one:
        out.append("the speedup interval includes 1×: no measurable difference")
    out.extend(timing_warnings(run))
    out.extend(kept_tensor_warnings(run))
    out.extend(warning_notes(run))  # the in-place state left advanced by the runs
    if run.status == "interrupted":
        out.append(interrupted_text(run))
    return out


NOISY_SPREAD = 2.0  # p90 / p10 beyond which samples are not one steady state
# An interval wider than this share of the speedup says the samples did not settle.  Steady profiles
# on an H200 read 0.3-1.5 %; one GPT-2 profile on a freshly started machine read 2.34x [1.86, 3.20]
# where the same code timed 3.2x a minute later.
WIDE_INTERVAL = 0.1


def contention_warning(run: ProfileRun) -> str | None:
    """Other processes kept cores busy that the profiled code's threads needed while it was timed: the sign,
    as ``noise_text`` lists it."""
    load = run.host_load
    if load is None or load.other_processes_cores < CONTENDED_CORES:
        return None
    if load.other_processes_cores + load.threads <= load.cores:
        return None
    whose = "torch's" if run.device.type == "cpu" else "the host thread's"
    return (
        f"other processes kept {load.other_processes_cores:.1f} of the {load.cores} cores busy while timing, "
        f"beside {whose} {load.threads} thread{'s' if load.threads != 1 else ''}: the CPU was oversubscribed"
    )


def wide_interval_text(value: float, low: float, high: float) -> str:
    """The interval too wide to read, worded as the headline words the speedup (``interval_brackets`` beside
    ``ratio_phrase``): ``the speedup's 95% interval [1.72×–2.00×] (1.87× slower) spans 15% of it``, a slowdown's
    bounds and width in slower multiples, never "0.50×–0.58×" beside a headline that says "slower"."""
    if value < 1 and low <= 0:  # a slowdown with no upper bound (a sample that took no time): no width to say
        return (
            f"the speedup's 95% interval {interval_brackets(value, low, high)} ({ratio_phrase(value)}) reaches 0×: "
            "it bounds nothing"
        )
    if value < 1:  # read as slowdowns: 1/value within [1/high, 1/low]
        width = (1 / low - 1 / high) * value
    else:
        width = (high - low) / value
    return (
        f"the speedup's 95% interval {interval_brackets(value, low, high)} ({ratio_phrase(value)}) spans "
        f"{width:.0%} of it"
    )


def noise_text(run: ProfileRun) -> str:
    """One line for every sign that the timings are unreliable (a busy CPU, samples that spread, an interval too
    wide to read, a speedup that moved while timing), with the figures and what to do; "" when there is none.

    Each sign used to be a warning of its own, and a busy machine gave five at once, each telling the user
    again to re-run (issue 23): they are one cause, said once."""
    signs: list[str] = []
    contended = contention_warning(run)
    if contended:
        signs.append(contended)
    for v in run.variants:
        t = v.timing
        if t is not None and t.n >= 3 and t.p10_ms > 0 and t.p90_ms / t.p10_ms > NOISY_SPREAD:
            signs.append(f"{v.name}'s samples spread from {format_ms(t.p10_ms)} (p10) to {format_ms(t.p90_ms)} (p90)")
    s = run.speedup
    low, high = (s.low, s.high) if s is not None else (None, None)
    # has_interval: both are finite numbers, which the type checker cannot see through the property
    # (a bound of 0, which a hand-made run file may hold, is worded by wide_interval_text without dividing by it)
    if s is not None and s.has_interval and low is not None and high is not None and s.value > 0:
        if (high - low) / s.value > WIDE_INTERVAL:
            signs.append(wide_interval_text(s.value, low, high))
    drift = speedup_drift(run)
    if drift is not None:
        signs.append(
            f"the machine moved while timing: from the first to the last third of the samples eager went "
            f"{format_ms(drift.eager_early_ms)} → {format_ms(drift.eager_late_ms)} and {drift.variant} "
            f"{format_ms(drift.compiled_early_ms)} → {format_ms(drift.compiled_late_ms)}, so the speedup went "
            f"{ratio_phrase(drift.early_speedup)} → {ratio_phrase(drift.late_speedup)}, further than its "
            "interval allows"
        )
    if not signs:
        return ""
    if contended:  # fewer threads only where torch ran more than the free cores (``contention``)
        advice = contention_advice(run)
    else:
        advice = "re-run, or time for longer (--budget 10)" + (" after a longer warm-up (--warmup)" if drift else "")
    return f"timings are unreliable: {'; '.join(signs)}; {advice}"


def timing_warnings(run: ProfileRun) -> list[str]:
    """What the timings themselves say about how far to trust, or how to read, the speedup."""
    out: list[str] = []
    noise = noise_text(run)
    if noise:
        out.append(noise)
    clamped = clamp_warning(run)
    if clamped:
        out.append(clamped)
    out.extend(j.text for j in withheld(run).values())
    best = run.speedup_variant
    profile = getattr(best, "kernel_profile", None) if best else None
    # A run with a breakdown says this in its verdict (digest.breakdown), with eager's figures beside it;
    # older runs, profiled before the breakdown, keep this warning.
    if (
        verdict(run) is None
        and best is not None
        and best.name not in withheld(run)
        and best.timing is not None
        and profile is not None
        and profile.total_ms > 0
    ):
        share = profile.total_ms / best.timing.median_ms
        if share < OVERHEAD_BOUND:
            advice = reduce_overhead_advice(run, best)
            out.append(
                f"{best.name}: kernels take {format_ms(profile.total_ms)} of each {format_ms(best.timing.median_ms)} "
                f"call ({share:.0%}); the rest is outside the kernels (Python, guards, launches){advice}"
            )
    return out


RESULTS_DIFFER = "results differ"


def list_status(run: ProfileRun) -> str:
    """The run's state in the words every list shows (``compile-profile ls``, the panel's run list), read off the
    verdict (``outcome.list_status``): its status, or the verdict that says more ("results differ", "ran eagerly")."""
    return outcome_list_status(run)


def summarize(run: ProfileRun) -> contract.RunSummary:
    best = run.speedup_variant
    if best is None and run.imported_trace is not None:  # a trace's one variant: its compile time, never timed
        best = run.compiled_variants[0] if run.compiled_variants else None
    groups = break_groups(run)
    return {
        "digest": DIGEST_VERSION,
        "id": run.id,
        "label": run.label,
        "created_at": run.created_at,
        "status": run.status,
        "list_status": list_status(run),  # status, or the verdict that says more: "results differ", "ran eagerly"
        "outcome": outcome_digest(run),  # the verdict every view shows first
        "notebook": run.notebook,
        "device": {"type": run.device.type, "name": run.device.name},
        "torch_version": run.torch_version,
        "first_line": first_code_line(run.cell_source),
        "headline": headline(run),
        "variants": [_variant_row(v) for v in run.variants],
        "speedup": (
            {
                "value": run.speedup.value,
                "low": run.speedup.low,
                "high": run.speedup.high,
                "variant": run.speedup.variant,
                "text": speedup_badge(run.speedup),  # the one short form: badge, list, job rows
                "phrase": speedup_phrase(run.speedup),
                "has_interval": run.speedup.has_interval,
                "includes_one": run.speedup.includes_one,
                "interval_text": format_interval(run.speedup),
            }
            if run.speedup
            else None
        ),
        "compile_s": best.compile_s if best else None,
        "cache_state": run.cache.state,
        "cache_words": cache_words(run),  # "cold cache", "warm cache", "partly cached" or ""
        "cache_counts": cache_counts(run),  # "FX graph 3 hits, 0 missed", ..., "kernels 6, none built (...)"
        "graph_count": run.dynamo_graph_count,
        "graph_break_count": len(run.graph_breaks),
        "graph_break_text": break_count_text(run, groups),
        "graph_break_empty_text": no_breaks_text(
            run
        ),  # what an empty list of breaks means for this run  # "7 graph breaks, 3 in DDP's wrapper"
        "ddp_wrapper_break_count": sum(g.count for g in groups if g.ddp_wrapper),
        "recompile_count": len(run.recompiles),
        "kernel_count": len(run.kernels),
        "kernel_text": kernel_count_text(run),
        "device_text": device_text(run.device),
        "cell_runs": run.cell_runs,
        "peak_memory": {
            v.name: format_bytes(v.peak_memory_bytes) for v in run.variants if v.peak_memory_bytes is not None
        },
        "memory_note": memory_unmeasured_text(run),
        "notes": run_notes(run),
        "correctness": (
            {
                "ok": run.correctness.ok,
                "max_abs_diff": run.correctness.max_abs_diff,
                "note": note_text(run.correctness.note) if run.correctness.note else "",
                "method": run.correctness.method,
                "text": correctness_text(run.correctness),
            }
            if run.correctness
            else None
        ),
        "bisect_offer": bisect_offer(run),
        "graph_breaks": [g.as_dict() for g in groups],
        "warnings": warnings(run),
        "errors": [
            {"stage": e.stage, "message": error_message(e), "line": e.line, "variant": e.variant, "call": e.call}
            for e in run.errors
        ],
        "recommendation": recommendation_digest(run),
        "breakdown": [r.as_dict() for r in breakdown(run)],
        # the breakdown's columns in order, keyed as BreakdownRow.parts (collectives only where a call spent
        # time in them), so the panel lays out what the text and HTML views do
        "breakdown_columns": [{"key": key, "label": label} for key, label in columns(breakdown(run))],
        "verdict": verdict(run),
        # each variant's profiler pass held against its timed call (digest.kernel_times): the panel's
        # Kernels and Lines tabs show shares where a pass is withheld
        "kernel_times": kernel_times_digest(run),
        "payback": payback(run),
        "distributed": distributed_summary(run),
        "ddp_splits": ddp_splits_digest(run),
        "unreadable": None,  # why a stored run cannot be read (``unreadable_summary``); None for every readable one
        "diagnosis": diagnosis_digest(run),
        "diagnosis_heading": diagnosis_heading(run),
        "trace": trace_summary(run),
        "inputs": inputs_summary(run),
    }


def unreadable_summary(
    run_id: str, reason: str, *, created_at: str = "", notebook: str = "", label: str = ""
) -> contract.RunSummary:
    """The summary of a stored run that cannot be read (its JSON is not a run's, or a field has the wrong type):
    listed with its id, its status ``unreadable`` and why, beside the runs that can be read.  It has every key of
    ``summarize``'s dict, empty, so a view that reads one finds it."""
    return {
        "digest": DIGEST_VERSION,
        "id": run_id,
        "label": label,
        "created_at": created_at,
        "status": "unreadable",
        "list_status": "unreadable",
        "outcome": {
            "kind": "unreadable",
            "label": "unreadable",
            "text": f"this run cannot be read: {reason}",
            "tone": "none",
            "speedup_meaningful": False,
            "speedup_text": "",
        },
        "notebook": notebook,
        "device": {"type": "", "name": ""},
        "torch_version": "",
        "first_line": "",
        "headline": f"this run cannot be read: {reason}",
        "variants": [],
        "speedup": None,
        "compile_s": None,
        "cache_state": "none",
        "cache_words": "",
        "cache_counts": [],
        "graph_count": 0,
        "graph_break_count": 0,
        "graph_break_text": "",
        "graph_break_empty_text": "",
        "ddp_wrapper_break_count": 0,
        "recompile_count": 0,
        "kernel_count": 0,
        "kernel_text": "",
        "device_text": "",
        "cell_runs": 0,
        "peak_memory": {},
        "memory_note": "",
        "notes": [],
        "correctness": None,
        "bisect_offer": "",
        "graph_breaks": [],
        "warnings": [],
        "errors": [],
        "recommendation": None,
        "breakdown": [],
        "breakdown_columns": [],
        "verdict": None,
        "kernel_times": {},
        "payback": None,
        "distributed": None,
        "ddp_splits": [],
        "unreadable": reason,
        "diagnosis": [],
        "diagnosis_heading": "",
        "trace": None,
        "inputs": None,
    }


def run_digest(run: ProfileRun) -> contract.RunDigest:
    """``summarize`` plus what one run's detail shows (per-line times, each Dynamo graph's guards, each
    recompile's failed guard, what was measured beside the timings): what the REST API serves with a run.

    Kept apart from ``summarize``, which the store caches for every run in its list and the MIME bundle
    carries: a 24-layer training step's per-line rows name hundreds of kernels.
    """
    return {
        **summarize(run),
        "lines": line_times(run).as_dict(),
        "guards": guards_digest(run),
        "recompiles": recompiles_digest(run),
        "measured": measured(run),
        "profile_cost": profile_cost(run),
        "compile_timeline": compile_timeline(run),
    }
