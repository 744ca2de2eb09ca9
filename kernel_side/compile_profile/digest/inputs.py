"""A profile over a sequence of inputs (``ProfileRun.inputs``) as a reader asks about it: how much faster over the
whole sequence (weighted by the calls each signature served) and per signature, with intervals; which input
caused each recompile, why in the user's words (``guards.recompile_text``) and what its compile cost; and
whether compiled matched eager on every input.

Derived here once for the card, the text, the report and the panel's Overview (the summary's
``inputs``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import InputSequence, ProfileRun, Recompile, Speedup, Variant
from .facts import median_ratio
from .format import (
    format_interval,
    format_ms,
    format_s,
    format_speedup_interval,
    interval_brackets,
    lines_of,
    ratio_phrase,
)
from .guards import recompile_text
from .notes import note_text
from .outcome import outcome


@dataclass
class InputSignatureRow:
    """One input signature of a profile over a sequence of inputs (``inputs_summary``)."""

    signature: str  # "x: (8, 4) float32", "x: (8, 4) float32, n = 3"
    inputs: list[int]  # the inputs that have it, 1-based (the first 100: ``inputs_text`` says them all)
    inputs_text: str  # "1–400, 402, 405–410, … (5,000 inputs)"
    calls: int  # how many calls of the sequence it served
    share: float  # of the sequence's calls
    eager_ms: float | None  # medians on its inputs; None where not timed
    compiled_ms: float | None  # the speedup variant's
    eager_time: str  # eager_ms in words: "1.52 ms", "—" where not timed
    compiled_time: str  # compiled_ms in words
    samples: int  # the speedup variant's samples on it
    speedup: float | None
    low: float | None  # its 95% interval; None with too few samples
    high: float | None
    speedup_text: str  # "1.52× faster [1.40×–1.61×]", or "not timed"
    recompiles: int  # the speedup variant's recompiles its inputs caused
    compile_s: float  # the seconds its inputs' calls spent compiling (the first input's first compile included)
    compile_time: str  # compile_s in words: "2.1 s"
    representative: bool  # the signature the variants' times, kernels and correctness are of


@dataclass
class InputRecompileRow:
    """A recompile and the input whose call made it."""

    input: int  # 1-based
    signature: str
    variant: str
    text: str  # the failed guard in the user's words, then Dynamo's reason (``guards.recompile_text``)
    compile_s: float | None  # the seconds that input's call spent compiling; None on its later recompiles' rows
    compile_time: str  # compile_s in words; "" where compile_s is None


@dataclass
class InputsSummary:
    """A profile over a sequence of inputs: the sentence, a row per signature, the recompiles by input."""

    count: int  # inputs in the sequence
    name: str  # the cell's name bound to each input ("" for profile(fn, inputs=...))
    source: str  # the namespace's iterable they came from ("" for profile(fn, inputs=...))
    text: str  # "6 inputs, 2 signatures: inductor/default 1.52× faster over the sequence, weighted by calls ..."
    rows: list[InputSignatureRow]  # a few signatures; beyond 10, the most called (and the representative)
    more_signatures_text: str  # "… 1,204 more signatures, 19,000 inputs, each timed apart"; "" when all are listed
    recompiles: list[InputRecompileRow]
    mismatches: list[str]  # per input where compiled differed from eager on it, in words
    compared: int  # inputs compared
    comparison_text: str  # "compiled matches eager on each of the 6 inputs, each compared on the same input"
    timing_text: str  # how the samples were taken, and which signature the other figures are of


def signature_text(sequence: InputSequence, index: int) -> str:
    """A signature in words: ``x: (8, 4) float32``, ``x: (8, 4) float32, n = 3``."""
    return ", ".join(sequence.signatures[index].parts)


SIGNATURES_LISTED = 10  # signature rows a summary lists, the most called first; the rest are counted in one line
INPUT_RANGES_LISTED = 8  # runs of input numbers a row lists ("1–400, 402, …")
MISMATCHES_LISTED = 20


def inputs_text(inputs: list[int]) -> str:
    """1-based input numbers as runs, a few of them: ``1–400, 402, 405–410, … (5,000 inputs)``; 20,000 inputs
    printed one by one made two 129,000-character lines of ``show``."""
    runs: list[tuple[int, int]] = []
    for i in sorted(inputs):
        if runs and i == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    shown = [f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:INPUT_RANGES_LISTED]]
    if len(runs) > INPUT_RANGES_LISTED:
        shown.append(f"… ({len(inputs):,} inputs)")
    return ", ".join(shown)


def _input_words(sequence: InputSequence, i: int) -> str:
    """``input 3``: 1-based, as a reader counts the items of a list."""
    return f"input {i + 1}"


def _compile_s(sequence: InputSequence, i: int, variant: str) -> float | None:
    if not 0 <= i < len(sequence.calls):
        return None
    return sequence.calls[i].compile_s.get(variant)


def inputs_summary(run: ProfileRun) -> InputsSummary | None:
    sequence = run.inputs
    if sequence is None:
        return None
    variant = run.speedup.variant if run.speedup else next((v.name for v in run.compiled_variants), "")
    recompiles = [r for r in run.recompiles if r.input is not None]
    rows: list[InputSignatureRow] = []
    representative = sequence.calls[sequence.representative].signature if sequence.calls else 0
    for index, signature in enumerate(sequence.signatures):
        inputs = set(signature.inputs)
        eager = signature.timings.get("eager")
        compiled = signature.timings.get(variant)
        speedup = signature.speedup
        compile_s = sum(_compile_s(sequence, i, variant) or 0.0 for i in signature.inputs)
        rows.append(
            InputSignatureRow(
                signature=signature_text(sequence, index),
                inputs=[i + 1 for i in signature.inputs[:INPUTS_KEPT]],
                inputs_text=inputs_text([i + 1 for i in signature.inputs]),
                calls=len(signature.inputs),
                share=len(signature.inputs) / sequence.count if sequence.count else 0.0,
                eager_ms=eager.median_ms if eager else None,
                compiled_ms=compiled.median_ms if compiled else None,
                eager_time=format_ms(eager.median_ms if eager else None),
                compiled_time=format_ms(compiled.median_ms if compiled else None),
                samples=compiled.n if compiled else 0,
                speedup=speedup.value if speedup else None,
                low=speedup.low if speedup and speedup.has_interval else None,
                high=speedup.high if speedup and speedup.has_interval else None,
                speedup_text=_speedup_text(speedup),
                recompiles=sum(1 for r in recompiles if r.input in inputs and r.variant == variant),
                compile_s=compile_s,
                # a signature whose inputs compiled nothing (their guards passed) shows "—", not "0 ns"
                compile_time=format_s(compile_s) if compile_s > 0 else "—",
                representative=index == representative,
            )
        )
    recompile_rows: list[InputRecompileRow] = []
    said: set[tuple[int, str]] = set()  # an input's compile time is said once, on its first recompile's row
    for r in recompiles:
        assert r.input is not None
        first = (r.input, r.variant) not in said
        said.add((r.input, r.variant))
        compile_s = _compile_s(sequence, r.input, r.variant) if first else None
        recompile_rows.append(
            InputRecompileRow(
                input=r.input + 1,
                signature=signature_text(sequence, sequence.calls[r.input].signature)
                if r.input < len(sequence.calls)
                else "",
                variant=r.variant,
                text=recompile_text(r, lines_of(run), run.lr_schedulers),
                compile_s=compile_s,
                compile_time=format_s(compile_s) if compile_s is not None else "",
            )
        )
    wrong = [c for c in sequence.calls if c.matches is False]
    mismatches = [
        f"{_input_words(sequence, c.index)} ({signature_text(sequence, c.signature)}): compiled differs from eager in "
        f"{', '.join(c.mismatched) or 'its outputs'}"
        + (f" (largest difference {c.max_abs_diff:.3g})" if c.max_abs_diff is not None else "")
        for c in wrong[:MISMATCHES_LISTED]
    ]
    if len(wrong) > MISMATCHES_LISTED:
        mismatches.append(f"… and on {len(wrong) - MISMATCHES_LISTED:,} more inputs")
    listed = _listed_rows(rows)
    more = [r for r in rows if r not in listed]
    return InputsSummary(
        count=sequence.count,
        name=sequence.name,
        source=sequence.source,
        text=sequence_text(run, recompiles, variant),
        rows=listed,
        more_signatures_text=(
            f"… {len(more):,} more signatures, {sum(r.calls for r in more):,} inputs, each timed apart" if more else ""
        ),
        recompiles=recompile_rows,
        mismatches=mismatches,
        compared=sum(1 for c in sequence.calls if c.matches is not None),
        comparison_text=comparison_text(sequence),
        timing_text=timing_text(run),
    )


INPUTS_KEPT = 100  # a row's input numbers kept as a list in the JSON (``inputs_text`` words them all)


def _listed_rows(rows: list[InputSignatureRow]) -> list[InputSignatureRow]:
    """The signature rows a summary lists: all of a few; beyond ``SIGNATURES_LISTED``, the most called ones and
    the representative, in their order."""
    if len(rows) <= SIGNATURES_LISTED:
        return rows
    keep = sorted(range(len(rows)), key=lambda i: (not rows[i].representative, -rows[i].calls, i))
    chosen = set(keep[:SIGNATURES_LISTED])
    return [r for i, r in enumerate(rows) if i in chosen]


def _speedup_text(speedup: Speedup | None) -> str:
    if speedup is None:
        return "not timed"
    return format_speedup_interval(
        speedup.value, speedup.low if speedup.has_interval else None, speedup.high if speedup.has_interval else None
    )


def sequence_text(run: ProfileRun, recompiles: list[Recompile], variant: str) -> str:
    """``6 inputs, 2 signatures: inductor/default 1.52× faster over the sequence, weighted by calls [1.4×–1.6×];
    3 recompiles (input 2: 2, input 3: 1), 2.41 s compiling``."""
    sequence = run.inputs
    assert sequence is not None
    n_sig = len(sequence.signatures)
    head = f"{sequence.count} input{'s' if sequence.count != 1 else ''}, {n_sig} signature{'s' if n_sig != 1 else ''}"
    if run.speedup is not None:
        brackets = (
            interval_brackets(run.speedup.value, run.speedup.low, run.speedup.high) if run.speedup.has_interval else ""
        )
        weighted = ", weighted by calls" if n_sig > 1 else ""
        speed = f"{run.speedup.variant} {ratio_phrase(run.speedup.value)} over the sequence{weighted}"
        head += f": {speed}" + (f" {brackets}" if brackets else "")
    mine = [r for r in recompiles if r.variant == variant]
    by_input: dict[int, int] = {}
    for r in mine:
        assert r.input is not None
        by_input[r.input] = by_input.get(r.input, 0) + 1
    if mine:
        caused = ", ".join(f"{_input_words(sequence, i)}: {n}" for i, n in sorted(by_input.items()))
        compiling = sum(_compile_s(sequence, i, variant) or 0.0 for i in by_input)
        head += f"; {len(mine)} recompile{'s' if len(mine) != 1 else ''} ({caused}), {format_s(compiling)} compiling"
    else:
        head += "; no recompiles"
    return head


def comparison_text(sequence: InputSequence) -> str:
    """What the per-input comparison found (each input run eagerly and compiled from the same state and seed)."""
    compared = [c for c in sequence.calls if c.matches is not None]
    if not compared:
        why = next((c.not_compared for c in sequence.calls if c.not_compared is not None), None)
        if why is not None:  # "the cell draws random numbers (aten.native_dropout), which compiled code ..."
            return (
                f"compiled was not compared with eager on the inputs: {note_text(why).removeprefix('not compared: ')}"
            )
        return "compiled was not compared with eager on the inputs (nothing to compare)"
    wrong = [c for c in compared if c.matches is False]
    if wrong:
        shown = ", ".join(_input_words(sequence, c.index) for c in wrong[:5]) + (" …" if len(wrong) > 5 else "")
        return f"compiled differs from eager on {len(wrong)} of {len(compared)} inputs ({shown})"
    return f"compiled matches eager on each of the {len(compared)} inputs, each compared on the same input"


def timing_text(run: ProfileRun) -> str:
    """How the samples were taken, and which input the other figures are of."""
    sequence = run.inputs
    assert sequence is not None
    n_sig = len(sequence.signatures)
    representative = sequence.calls[sequence.representative].signature if sequence.calls else 0
    budget = sequence.signatures[0].budget_s if sequence.signatures else 0.0
    shared = (
        f"the timing budget shared evenly, {format_s(budget)} a signature, each round on the next of its inputs"
        if n_sig > 1
        else "each round on the next input"
    )
    eager = run.eager
    rep_ms = eager.timing.median_ms if eager and eager.timing else None
    rep = (
        f"; the variants' times, kernels and correctness are of {_input_words(sequence, sequence.representative)}'s "
        f"signature ({signature_text(sequence, representative)}"
        + (f", eager {format_ms(rep_ms)}" if rep_ms is not None else "")
        + ")"
    )
    return f"each signature timed apart, eager and compiled interleaved, {shared}" + (rep if n_sig > 1 else "")


def sequence_times(run: ProfileRun) -> dict[str, list[float]]:
    """Over a sequence of inputs, each variant timed on every signature (eager first) with its time over the sequence
    by signature: the signature's median times the calls it served, in ms, in the signatures' order.  Their sums are
    what the sequence's speedup is the ratio of (``stats.weighted_ratio_interval``: eager's over the compiled
    variant's), so the card's chart of them says what the headline says.  {} for any other run."""
    sequence = run.inputs
    if sequence is None or not sequence.signatures:
        return {}
    out: dict[str, list[float]] = {}
    for v in run.variants:
        timings = [s.timings.get(v.name) for s in sequence.signatures]
        if all(t is not None for t in timings):
            out[v.name] = [len(s.inputs) * t.median_ms for s, t in zip(sequence.signatures, timings) if t is not None]
    return out if "eager" in out else {}


def variant_bar_text(run: ProfileRun, variant: Variant) -> str:
    """The label of ``variant``'s bar of time: what that bar measures.  The speedup's variant reads its speedup with
    its interval (``1.52× faster [1.40×–1.60×] 95% CI``), another compiled variant its ratio of medians to eager's,
    eager none; the speedup's ``(not meaningful)`` beneath a verdict that overrides it.  Over a sequence of inputs the bars are each variant's time over the whole sequence
    (``sequence_times``), so the speedup's variant reads the sequence's speedup as the headline says it (``1.09×
    slower [1.02×–1.17×] 95% CI over 10 inputs``), another its ratio of those times: the card once drew the
    representative signature's bars, labelled "6.19× faster", beside a headline that said "1.09× slower over 10
    inputs"."""
    if variant.name == "eager":
        return ""
    speedup = run.speedup
    if speedup is not None and variant.name == speedup.variant and outcome(run).overrides:
        # beneath a verdict that overrides it (results that differ, an eager fallback), as the headline marks it
        return _bar_text(run, variant) + " (not meaningful)"
    return _bar_text(run, variant)


def _bar_text(run: ProfileRun, variant: Variant) -> str:
    speedup = run.speedup
    totals = {name: sum(times) for name, times in sequence_times(run).items()}
    if run.inputs is not None and totals:
        over = f" over {run.inputs.count} input{'s' if run.inputs.count != 1 else ''}"
        if speedup is not None and variant.name == speedup.variant:
            return f"{ratio_phrase(speedup.value)} {format_interval(speedup)}{over}"
        total = totals.get(variant.name)
        return f"{ratio_phrase(totals['eager'] / total)}{over}" if total else ""
    if speedup is not None and variant.name == speedup.variant:
        return f"{ratio_phrase(speedup.value)} {format_interval(speedup)}"
    ratio = median_ratio(run, variant)
    return ratio_phrase(ratio) if ratio is not None else ""
