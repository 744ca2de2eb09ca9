"""Plain-text view of a run: ``str(run)``, the ``text/plain`` of the cell output and ``compile-profile show``;
and the plain-text tables the CLI prints (``text_table``, ``comparison_text``).

The first line is the digest's headline, the card's; the second reads like ``%timeit``'s: each
variant's median with its spread, then the speedup with its interval; then why compiled is faster or
slower and when compiling pays back.  The lines after them say what compiling did (graphs, guards,
recompiles and the guard each failed on, DDPOptimizer's splits), what was measured beside the timings (device peaks, memory
ratio, each kernel's roofline figures, max-autotune's choices, CUDA-graph skips) and where a call's
time goes; a distributed run ends with its rank and job.  Every figure and sentence comes from ``compile_profile.digest``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..digest.breakdown import TITLE, breakdown, breakdown_note, columns, verdict
from ..digest.breaks import break_count_text, break_groups, break_place
from ..digest.compare import Comparison
from ..digest.correctness import correctness_text
from ..digest.cost import profile_cost
from ..digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from ..digest.distributed import collective_texts, ddp_split_text, distributed_text
from ..digest.facts import (
    cache_counts,
    cache_words,
    device_text,
    interrupted_text,
    kernel_count_text,
    later_run_failure_text,
    peak_memory_text,
)
from ..digest.format import (
    format_diff,
    format_interval,
    format_s,
    format_timing,
    line_text,
    lines_of,
    one_line,
    ratio_phrase,
)
from ..digest.guards import graph_heading, group_text, recompile_runs, recompile_text, run_guards
from ..digest.inputs import inputs_summary
from ..digest.lines import RULE, line_times
from ..digest.measured import (
    autotune_rows,
    cudagraph_skips,
    cudagraph_text,
    device_peaks_text,
    memory_ratio_text,
    roofline_kernels,
    roofline_note,
    roofline_rows,
)
from ..digest.noise import timing_warnings
from ..digest.notes import error_message, note_text, run_notes, variant_error, warning_notes
from ..digest.outcome import outcome
from ..digest.payback import payback
from ..digest.recommendation import recommendation_text
from ..digest.summary import headline
from ..digest.timeline import compile_timeline
from ..digest.trace import origin_text, skipped_text
from ..profile_run import ProfileRun, Variant

MAX_LISTED = 10  # graph breaks, recompiles and errors listed one by one; the rest are counted


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# Every character but newline, tab and printable ASCII may be one a terminal acts on instead of showing; those whose
# Unicode category is a control (Cc: C0 and C1, DEL; 0x9b alone starts a CSI sequence in some terminals), a format
# character (Cf: the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069, which reorder what a line
# shows, zero-width characters), a line or paragraph separator (Zl, Zp) or a lone surrogate (Cs: no terminal
# encoding can write it) are written as escapes.  The category decides, not a list, so a character a later Unicode
# adds to these classes is escaped too.
_MAYBE_CONTROL = re.compile(r"[^\t\n\x20-\x7e]")
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_safe(text: str) -> str:
    """``text`` with every terminal control and format character written as its escape (ESC as ``\\x1b``, a
    right-to-left override as ``\\u202e``), so text from a run (a label, the cell's source, a compiler message)
    shows as characters in the order it is stored and never moves the cursor, retitles the window, rings the bell
    or reorders a line."""
    return _MAYBE_CONTROL.sub(lambda m: _escape(m.group()), text)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]  # rows may be empty
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def _variant_segment(v: Variant) -> str:
    if v.timing is not None:
        t = v.timing
        text = f"{v.name} {format_timing(t.median_ms, t.p10_ms, t.p90_ms, t.n)}"
        if v.recompiled_during_timing:
            text += " [recompiled while timed]"
        return text
    if variant_error(v):
        return f"{v.name} failed"
    return f"{v.name} not timed"


def timing_line(run: ProfileRun) -> str:
    if run.imported_trace is not None:  # no timings: the headline says so; where the run came from instead
        return origin_text(run.imported_trace)
    segments = [_variant_segment(v) for v in run.variants]
    s = run.speedup
    if s is not None:
        which = f" ({s.variant})" if len(run.compiled_variants) > 1 else ""
        text = f"speedup{which} {ratio_phrase(s.value)} {format_interval(s)}"
        if s.includes_one:
            text += ": no measurable difference"
        verdict = outcome(run)
        if verdict.overrides:  # beneath a verdict that overrides it (results that differ, an eager fallback)
            text += f"; not meaningful: {verdict.rung.not_meaningful}"
        segments.append(text)
    return " | ".join(segments)


def _inputs_lines(run: ProfileRun) -> list[str]:
    """A profile over a sequence of inputs: the digest's sentence, a row per signature, the recompiles by input."""
    summary = inputs_summary(run)
    if summary is None:
        return []
    rows = [
        [
            r.signature + (" *" if r.representative else ""),
            r.inputs_text,
            r.eager_time,
            r.compiled_time,
            r.speedup_text,
            _plural(r.recompiles, "recompile"),
            r.compile_time + " compiling",
        ]
        for r in summary.rows
    ]
    table = text_table(["signature", "inputs", "eager", "compiled", "speedup", "recompiles", "compile"], rows)
    out = [f"inputs: {summary.text}", *(f"  {line}" for line in table.splitlines())]
    if summary.more_signatures_text:
        out.append(f"  {summary.more_signatures_text}")
    for r in summary.recompiles[:MAX_LISTED]:
        cost = f", {r.compile_time} compiling" if r.compile_time else ""
        out.append(f"  input {r.input} ({r.signature}) recompiled{cost}: {r.text}")
    if len(summary.recompiles) > MAX_LISTED:
        out.append(f"  … and {len(summary.recompiles) - MAX_LISTED} more recompiles")
    out.append(f"  {summary.comparison_text}")
    out += [f"  {m}" for m in summary.mismatches[:MAX_LISTED]]
    out.append(f"  timing: {summary.timing_text}" + (" (* that signature)" if len(rows) > 1 else ""))
    return out


def _compile_lines(run: ProfileRun) -> list[str]:
    out = []
    for v in run.compiled_variants:
        if v.compile_s is None and v.first_call_s is None:
            continue
        state = cache_words(run, v)
        text = f"compile {v.name}: {format_s(v.compile_s)}" + (f" ({state})" if state else "")
        if v.first_call_s is not None:
            text += f"; first call {format_s(v.first_call_s)}"
        if v.recompile_s:
            text += f"; recompiling {format_s(v.recompile_s)} more"
        out.append(text)
    counts = cache_counts(run)
    if counts:
        out.append("compile cache: " + "; ".join(counts))
    timeline = compile_timeline(run)
    if timeline is not None and timeline.text:
        out.append("compile timeline: " + timeline.text)
        restarted = [r.restart_text for r in timeline.rows if r.restart_text]
        out.extend(f"  restarted: {t}" for t in restarted[:RESTARTS_LISTED])
        if len(restarted) > RESTARTS_LISTED:
            out.append(f"  … {len(restarted) - RESTARTS_LISTED} more restarted compiles (the Compile tab lists them)")
    return out


RESTARTS_LISTED = 5


def _graph_lines(run: ProfileRun) -> list[str]:
    out = [
        f"graphs: {_plural(run.dynamo_graph_count, 'Dynamo graph')}, "
        f"{break_count_text(run)}, {_plural(len(run.recompiles), 'recompile')}"
    ]
    groups, of = break_groups(run), lines_of(run)
    for g in groups[:MAX_LISTED]:
        times = f" ×{g.count}" if g.count > 1 else ""
        out.append(f"  graph break{times} {'at ' if g.line is not None else ''}{break_place(g, of)}")
        out.append(f"    reason: {one_line(g.reason)}")
        if g.skipped_rest:
            out.append("    Dynamo could not resume there and ran the rest of that function eagerly")
        if g.note:
            out.append(f"    note: {g.note}")
        if g.page:
            out.append(f"    see: {g.page}")
    if len(groups) > MAX_LISTED:
        out.append(f"  … and {sum(g.count for g in groups[MAX_LISTED:])} more graph breaks")
    runs = recompile_runs(run)
    for same in runs[:MAX_LISTED]:
        r = same[-1]  # the last says the limit, when one was hit
        tag = " [during timing]" if r.during_timing else ""
        variant = f" ({r.variant})" if r.variant else ""
        times = f" ×{len(same)}" if len(same) > 1 else ""
        out.append(f"  recompile{times}{variant}{tag}: {recompile_text(r, of, run.lr_schedulers)}")
    if len(runs) > MAX_LISTED:
        out.append(f"  … and {sum(len(same) for same in runs[MAX_LISTED:])} more recompiles")
    out += [f"  {ddp_split_text(run, split)}" for split in run.ddp_splits]
    out += [f"  {text}" for text in collective_texts(run)]
    return out


def _guard_lines(run: ProfileRun) -> list[str]:
    """Each Dynamo graph's guards by kind, then grouped by value with its cell line (``digest.guards``)."""
    graphs = run_guards(run)
    if not graphs:
        return []
    out = ["guards:"]
    for gg in graphs[:MAX_LISTED]:
        out.append(f"  {graph_heading(gg)}")
        out += [f"    {group_text(g, lines_of(run))}" for g in gg.groups[:MAX_LISTED]]
        if len(gg.groups) > MAX_LISTED:
            out.append(f"    … and {len(gg.groups) - MAX_LISTED} more groups")
    if len(graphs) > MAX_LISTED:
        out.append(f"  … and {len(graphs) - MAX_LISTED} more graphs with guards")
    return out


def _measured_lines(run: ProfileRun) -> list[str]:
    """The device's ceilings, each timed kernel's share of them, max-autotune's choices and CUDA-graph skips
    (``digest.measured``)."""
    out = []
    if run.device_peaks is not None:
        out.append(device_peaks_text(run.device_peaks))
        if run.device_peaks.method:
            out.append(f"  ({one_line(run.device_peaks.method, 400)})")
    rows = roofline_rows(run)
    if rows:
        out.append(f"roofline ({roofline_note(run)}):")
        out += [f"  {one_line(r.name, 60)} ({r.variant}): {r.text}" for r in rows]
        rest = len(roofline_kernels(run)) - len(rows)
        if rest > 0:
            out.append(f"  … and {rest} more kernels with rates")
    out += [f"autotune ({r.variant}): {r.text}" for r in autotune_rows(run)[: MAX_LISTED * 2]]
    out += [cudagraph_text(s.variant, s.reasons) for s in cudagraph_skips(run)]
    return out


def _memory_line(run: ProfileRun) -> str | None:
    if not run.variants:
        return None
    measured = [v for v in run.variants if v.peak_memory_bytes is not None]
    if not measured:
        # One reason for all variants reads better than repeating it per variant.
        return f"peak memory: {peak_memory_text(run, run.variants[0])}"
    return "peak memory: " + " | ".join(f"{v.name} {peak_memory_text(run, v)}" for v in run.variants)


def _correctness_line(run: ProfileRun) -> str | None:
    c = run.correctness
    if c is None:
        return None
    verdict = {True: "ok: ", False: "MISMATCH: ", None: ""}[c.ok]  # "not compared" says itself
    text = f"correctness: {verdict}{correctness_text(c)}"
    # Only beside a mismatch: after "not compared" or an "ok" a relative difference on elements near 0
    # (9.38e+03 after a dropout cell's "not compared") read as a failure (review)
    if c.ok is False and c.max_rel_diff is not None:
        text += f"; max rel diff {format_diff(c.max_rel_diff)}"
    if c.ok is not None and c.note:
        text += f"; {one_line(note_text(c.note))}"
    return text


def _kernel_line(run: ProfileRun) -> str:
    return f"kernels: {kernel_count_text(run)}"


def _breakdown_lines(run: ProfileRun) -> list[str]:
    """Where a call's time goes, a row per variant (``digest.breakdown``)."""
    rows = breakdown(run)
    if not rows:
        return []
    cols = columns(rows)
    table = text_table(
        ["  variant", *(heading for _, heading in cols)],
        [[f"  {r.variant}", *(r.part_text(key) for key, _ in cols)] for r in rows],
    )
    return [
        f"{TITLE.lower()} ({breakdown_note(rows)}):",
        table,
        *(f"  {r.withheld_text}" for r in rows if not r.trusted),
    ]


def _verdict_lines(run: ProfileRun) -> list[str]:
    """Why compiled is faster or slower, and when compiling pays back: the digest's sentences."""
    pays = payback(run)
    return [t for t in (verdict(run), pays.text if pays else None) if t]


def _lines_lines(run: ProfileRun) -> list[str]:
    if run.imported_trace is not None:  # times per line, and a trace has none
        return []
    lt = line_times(run)
    rows = [r for r in lt.rows if r.kernels or r.eager_ops]
    if not rows:
        return []
    table = text_table(
        ["  line", *(v or "kernels" for v in lt.variants), "code"],
        [[f"  {r.line}", *(r.time_text(v) for v in lt.variants), one_line(r.code, 60)] for r in rows[: MAX_LISTED * 2]],
    )
    out = [f"time per cell line ({RULE}):", table]
    if len(rows) > MAX_LISTED * 2:
        out.append(f"  … and {len(rows) - MAX_LISTED * 2} more lines")
    if lt.off_lines_text:
        out.append("  tied to no cell line: " + ", ".join(lt.off_lines_text))
    out += [f"  {text}" for text in lt.withheld.values()]
    return out


def comparison_text(c: Comparison) -> str:
    """A ``digest.compare`` comparison as a plain-text table (``compile-profile compare``)."""
    rows = [
        ["label", one_line(c.a.label, 30), one_line(c.b.label, 30), ""],
        ["created", c.a.created_at, c.b.created_at, ""],
    ]
    # what the runs ran with, the rows where they differ first (digest.compare.context): threads and options
    # explained a 92.7 % eager drop that the figures below showed alone
    rows += [[r.label, one_line(r.a, 60), one_line(r.b, 60), "differs" if r.differs else "same"] for r in c.context]
    rows += [[d.metric, d.a_text, d.b_text, d.change_text] for d in c.deltas]
    lines = [text_table(["", f"A {c.a.id}", f"B {c.b.id}", "B vs A"], rows)]
    for what, found in (("added in B", c.kernels_added), ("removed in B", c.kernels_removed)):
        names = ", ".join(k.name + (f" ×{k.count}" if k.count > 1 else "") for k in found)
        lines.append(f"kernels {what}: {names or 'none'}")
    lines.append(f"kernels in both: {c.kernels_kept} (matched by name without Inductor's trailing counter)")
    return "\n".join(lines)


def _error_lines(run: ProfileRun) -> list[str]:
    out = []
    for e in run.errors[:MAX_LISTED]:
        where = [e.stage]
        if e.variant:
            where.append(e.variant)
        if e.line is not None:
            where.append(line_text(e.line, lines_of(run)))
        if e.call is not None:
            where.append(f"run {e.call}")
        message = error_message(e)
        kind = f"{e.type}: " if e.type and not message.startswith(e.type) else ""
        out.append(f"error [{', '.join(where)}]: {kind}{one_line(message)}")
    if len(run.errors) > MAX_LISTED:
        out.append(f"… and {len(run.errors) - MAX_LISTED} more errors")
    later_failure = later_run_failure_text(run)
    if later_failure:
        out.append(f"warning: {later_failure}")
    for v in run.variants:
        # A variant's own error is reported only when no ErrorInfo already tells it.
        error = variant_error(v)
        if error and not any(v.name in (e.variant, e.stage) for e in run.errors):  # eager's is stage "eager"
            out.append(f"error [{v.name}]: {one_line(error)}")
    return out


def _cost_lines(run: ProfileRun) -> list[str]:
    """Where the profile's own time went (``digest.cost``): its sentence and a row per stage."""
    cost = profile_cost(run)
    if cost is None:
        return []
    rows = [[row.label, row.time, row.share] for row in cost.rows]
    return [cost.text, text_table(["stage", "time", "share"], rows)] if rows else [cost.text]


def cell_runs_text(n: int) -> str:
    # Said outright because a cell that changes state in place (x.add_(1), an optimizer step)
    # changed it this many times, not once.
    return f"the cell ran {_plural(n, 'time')} (first calls, warm-up, timing and checks)"


def _diagnosis_lines(run: ProfileRun) -> list[str]:
    causes = diagnosis(run)
    if not causes:
        return []
    return [f"{diagnosis_heading(run)}:"] + [f"  {i}. {one_line(cause_text(c), 400)}" for i, c in enumerate(causes, 1)]


def render_text(run: ProfileRun) -> str:
    lines = [headline(run)] + [t for t in [timing_line(run)] if t]
    lines += _inputs_lines(run)
    lines += _diagnosis_lines(run)
    lines += _verdict_lines(run)
    lines += _compile_lines(run)
    lines += _graph_lines(run)
    lines += _guard_lines(run)
    memory = _memory_line(run)
    if memory:
        lines.append(memory)
    ratio = memory_ratio_text(run)
    if ratio:
        lines.append(ratio)
    correctness = _correctness_line(run)
    if correctness:
        lines.append(correctness)
    lines.append(_kernel_line(run))
    lines += _measured_lines(run)
    lines += _breakdown_lines(run)
    lines += _lines_lines(run)
    if run.cell_runs:
        lines.append(cell_runs_text(run.cell_runs))
    lines += _cost_lines(run)
    lines += _error_lines(run)
    if run.status != "ok":
        lines.append(f"status: {run.status}" + (f" ({interrupted_text(run)})" if run.status == "interrupted" else ""))
    if run.recommendation is not None:
        lines.append(f"recommendation (--sweep): {recommendation_text(run)}")
    lines += [f"note: {one_line(n, 240)}" for n in run_notes(run)]
    skipped = skipped_text(run.imported_trace) if run.imported_trace is not None else ""
    if skipped:
        lines.append(f"note: {skipped}")
    lines += [f"warning: {w}" for w in timing_warnings(run)]
    lines += [f"warning: {w}" for w in warning_notes(run)]  # the in-place state left advanced by the runs
    place = distributed_text(run)
    if place:
        lines.append(place)
    label = f" {one_line(run.label, 80)!r}" if run.label else ""
    device = device_text(run.device)
    lines.append(f"run {run.id}{label} on {device}, torch {run.torch_version or 'unknown'}")
    return "\n".join(lines)
