"""The run's first words: the headline (the verdict, the speedup with both medians, compile time and cache, graph
breaks) and the warnings under it, in the order the card, the CLI and every view show them; the badge's and the
headline's one form of the speedup (``speedup_badge``, ``speedup_phrase``).  ``summary`` puts them in the summary."""

from __future__ import annotations

from ..profile_run import ProfileRun, Speedup
from .breaks import break_count_text, break_groups, break_summary, ddp_wrapper_text, torch_own_text
from .correctness import correctness_text
from .facts import cache_words, cell_code, interrupted_text, kept_tensor_warnings, later_run_failure_text
from .format import format_ms, format_s, lines_of, ratio_phrase
from .guards import recompiles_brief, value_guard_warnings
from .inputs import inputs_summary
from .measured import cudagraph_warnings
from .noise import timing_warnings
from .notes import bisection_text, compile_failure_text, settings_clause, warning_notes
from .outcome import no_speedup_text, outcome, partly_eager_text

MAX_BREAK_WARNINGS = 3  # groups of graph breaks the card lists; the panel has them all


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
    if sequence is not None and sequence.mismatches:
        out.append(sequence.comparison_text + ": " + "; ".join(sequence.mismatches[:3]))
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
