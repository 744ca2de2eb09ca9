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

from collections.abc import Sequence

from ..digest.breakdown import TITLE
from ..digest.compare import Comparison
from ..digest.format import one_line
from ..digest.summary import RunDigest, VariantRow, digest_of
from ..plain_text import escaped
from ..profile_run import ProfileRun

MAX_LISTED = 10  # graph breaks, recompiles and errors listed one by one; the rest are counted


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def terminal_safe(text: str) -> str:
    """``text`` with every terminal control and format character written as its escape (``plain_text.escaped``):
    text from a run shows as characters in the order it is stored and never moves the cursor, retitles the window,
    rings the bell or reorders a line."""
    return escaped(text)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]  # rows may be empty
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def _variant_segment(v: VariantRow) -> str:
    if v.timing_text:
        return f"{v.name} {v.timing_text}" + (" [recompiled while timed]" if v.recompiled_during_timing else "")
    return f"{v.name} failed" if v.error else f"{v.name} not timed"


def timing_line(d: RunDigest) -> str:
    if d.trace is not None:  # no timings: the headline says so; where the run came from instead
        return d.trace.text
    segments = [_variant_segment(v) for v in d.variants]
    s = d.speedup
    if s is not None:
        which = f" ({s.variant})" if s.several else ""
        text = f"speedup{which} {s.text} {s.interval_text}"
        if s.includes_one:
            text += ": no measurable difference"
        if s.not_meaningful:  # beneath a verdict that overrides it (results that differ, an eager fallback)
            text += f"; not meaningful: {s.not_meaningful}"
        segments.append(text)
    return " | ".join(segments)


def _inputs_lines(d: RunDigest) -> list[str]:
    """A profile over a sequence of inputs: the digest's sentence, a row per signature, the recompiles by input."""
    summary = d.inputs
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


def _compile_lines(d: RunDigest) -> list[str]:
    out = []
    for v in d.variants:
        if not v.compiled or (v.compile_s is None and v.first_call_s is None):
            continue
        text = f"compile {v.name}: {v.compile_time}" + (f" ({v.cache_words})" if v.cache_words else "")
        if v.first_call_s is not None:
            text += f"; first call {v.first_call_time}"
        if v.recompile_s:
            text += f"; recompiling {v.recompile_time} more"
        out.append(text)
    if d.cache_counts:
        out.append("compile cache: " + "; ".join(d.cache_counts))
    timeline = d.compile_timeline
    if timeline is not None and timeline.text:
        out.append("compile timeline: " + timeline.text)
        restarted = [r.restart_text for r in timeline.rows if r.restart_text]
        out.extend(f"  restarted: {t}" for t in restarted[:RESTARTS_LISTED])
        if len(restarted) > RESTARTS_LISTED:
            out.append(f"  … {len(restarted) - RESTARTS_LISTED} more restarted compiles (the Compile tab lists them)")
    return out


RESTARTS_LISTED = 5


def _graph_lines(d: RunDigest) -> list[str]:
    out = [
        f"graphs: {_plural(d.graph_count, 'Dynamo graph')}, "
        f"{d.graph_break_text}, {_plural(d.recompile_count, 'recompile')}"
    ]
    groups = d.graph_breaks
    for g in groups[:MAX_LISTED]:
        times = f" ×{g.count}" if g.count > 1 else ""
        out.append(f"  graph break{times} {'at ' if g.line is not None else ''}{g.place}")
        out.append(f"    reason: {one_line(g.reason)}")
        if g.skipped_rest:
            out.append("    Dynamo could not resume there and ran the rest of that function eagerly")
        if g.note:
            out.append(f"    note: {g.note}")
        if g.page:
            out.append(f"    see: {g.page}")
    if len(groups) > MAX_LISTED:
        out.append(f"  … and {sum(g.count for g in groups[MAX_LISTED:])} more graph breaks")
    runs = d.recompile_runs
    for r in runs[:MAX_LISTED]:
        tag = " [during timing]" if r.during_timing else ""
        variant = f" ({r.variant})" if r.variant else ""
        times = f" ×{r.count}" if r.count > 1 else ""
        out.append(f"  recompile{times}{variant}{tag}: {r.text}")
    if len(runs) > MAX_LISTED:
        out.append(f"  … and {sum(r.count for r in runs[MAX_LISTED:])} more recompiles")
    out += [f"  {split.text}" for split in d.ddp_splits]
    out += [f"  {text}" for text in d.collectives]
    return out


def _guard_lines(d: RunDigest) -> list[str]:
    """Each Dynamo graph's guards by kind, then grouped by value with its cell line (``digest.guards``)."""
    graphs = d.guards
    if not graphs:
        return []
    out = ["guards:"]
    for gg in graphs[:MAX_LISTED]:
        out.append(f"  {gg.heading}")
        out += [f"    {g.text}" for g in gg.groups[:MAX_LISTED]]
        if len(gg.groups) > MAX_LISTED:
            out.append(f"    … and {len(gg.groups) - MAX_LISTED} more groups")
    if len(graphs) > MAX_LISTED:
        out.append(f"  … and {len(graphs) - MAX_LISTED} more graphs with guards")
    return out


def _measured_lines(d: RunDigest) -> list[str]:
    """The device's ceilings, each timed kernel's share of them, max-autotune's choices and CUDA-graph skips
    (``digest.measured``)."""
    out = []
    m = d.measured
    if m.device_peaks is not None:
        out.append(m.device_peaks.text)
        if m.device_peaks.method:
            out.append(f"  ({one_line(m.device_peaks.method, 400)})")
    if m.roofline:
        out.append(f"roofline ({m.roofline_note}):")
        out += [f"  {one_line(r.name, 60)} ({r.variant}): {r.text}" for r in m.roofline]
        rest = m.roofline_count - len(m.roofline)
        if rest > 0:
            out.append(f"  … and {rest} more kernels with rates")
    out += [f"autotune ({r.variant}): {r.text}" for r in m.autotune[: MAX_LISTED * 2]]
    out += [s.text for s in m.cudagraph_skips]
    return out


def _memory_line(d: RunDigest) -> str | None:
    if not d.variants:
        return None
    if not d.peak_memory:
        # One reason for all variants reads better than repeating it per variant.
        return f"peak memory: {d.variants[0].peak_memory_text}"
    return "peak memory: " + " | ".join(f"{v.name} {v.peak_memory_text}" for v in d.variants)


def _correctness_line(d: RunDigest) -> str | None:
    c = d.correctness
    if c is None:
        return None
    verdict = {True: "ok: ", False: "MISMATCH: ", None: ""}[c.ok]  # "not compared" says itself
    text = f"correctness: {verdict}{c.text}"
    # Only beside a mismatch: after "not compared" or an "ok" a relative difference on elements near 0
    # (9.38e+03 after a dropout cell's "not compared") read as a failure (review)
    if c.ok is False and c.max_rel_diff_text:
        text += f"; max rel diff {c.max_rel_diff_text}"
    if c.ok is not None and c.note:
        text += f"; {one_line(c.note)}"
    return text


def _breakdown_lines(d: RunDigest) -> list[str]:
    """Where a call's time goes, a row per variant (``digest.breakdown``)."""
    rows = d.breakdown
    if not rows:
        return []
    cols = d.breakdown_columns
    table = text_table(
        ["  variant", *(c.label for c in cols)],
        [[f"  {r.variant}", *(r.texts[c.key] for c in cols)] for r in rows],
    )
    return [
        f"{TITLE.lower()} ({d.breakdown_note}):",
        table,
        *(f"  {r.withheld_text}" for r in rows if not r.trusted),
    ]


def _verdict_lines(d: RunDigest) -> list[str]:
    """Why compiled is faster or slower, and when compiling pays back: the digest's sentences."""
    return [t for t in (d.verdict, d.payback.text if d.payback else None) if t]


def _lines_lines(d: RunDigest) -> list[str]:
    if d.trace is not None:  # times per line, and a trace has none
        return []
    lt = d.lines
    rows = [r for r in lt.rows if r.kernels or r.eager_ops]
    if not rows:
        return []
    table = text_table(
        ["  line", *(v or "kernels" for v in lt.variants), "code"],
        [
            [f"  {r.line}", *(r.texts.get(v, "") for v in lt.variants), one_line(r.code, 60)]
            for r in rows[: MAX_LISTED * 2]
        ],
    )
    out = [f"time per cell line ({lt.rule}):", table]
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


def _error_lines(d: RunDigest) -> list[str]:
    out = []
    for e in d.errors[:MAX_LISTED]:
        where = [e.stage]
        if e.variant:
            where.append(e.variant)
        if e.line_text:
            where.append(e.line_text)
        if e.call is not None:
            where.append(f"run {e.call}")
        kind = f"{e.type}: " if e.type and not e.message.startswith(e.type) else ""
        out.append(f"error [{', '.join(where)}]: {kind}{one_line(e.message)}")
    if len(d.errors) > MAX_LISTED:
        out.append(f"… and {len(d.errors) - MAX_LISTED} more errors")
    if d.later_run_failure:
        out.append(f"warning: {d.later_run_failure}")
    # A variant's own error is reported only when no error of the run already tells it.
    out += [f"error [{v.name}]: {one_line(v.error)}" for v in d.variants if v.error and not v.error_listed]
    return out


def _cost_lines(d: RunDigest) -> list[str]:
    """Where the profile's own time went (``digest.cost``): its sentence and a row per stage."""
    cost = d.profile_cost
    if cost is None:
        return []
    rows = [[row.label, row.time, row.share] for row in cost.rows]
    return [cost.text, text_table(["stage", "time", "share"], rows)] if rows else [cost.text]


def cell_runs_text(n: int) -> str:
    # Said outright because a cell that changes state in place (x.add_(1), an optimizer step)
    # changed it this many times, not once.
    return f"the cell ran {_plural(n, 'time')} (first calls, warm-up, timing and checks)"


def _diagnosis_lines(d: RunDigest) -> list[str]:
    if not d.diagnosis:
        return []
    return [f"{d.diagnosis_heading}:"] + [f"  {i}. {one_line(c.text, 400)}" for i, c in enumerate(d.diagnosis, 1)]


def render_text(run: ProfileRun) -> str:
    """The run's text view: ``digest_text`` of its digest."""
    return digest_text(digest_of(run))


def digest_text(d: RunDigest) -> str:
    """A run's digest laid out as text: every line reads a field of ``d``."""
    lines = [d.headline] + [t for t in [timing_line(d)] if t]
    lines += _inputs_lines(d)
    lines += _diagnosis_lines(d)
    lines += _verdict_lines(d)
    lines += _compile_lines(d)
    lines += _graph_lines(d)
    lines += _guard_lines(d)
    memory = _memory_line(d)
    if memory:
        lines.append(memory)
    if d.measured.memory_ratio is not None:
        lines.append(d.measured.memory_ratio.text)
    correctness = _correctness_line(d)
    if correctness:
        lines.append(correctness)
    lines.append(f"kernels: {d.kernel_text}")
    lines += _measured_lines(d)
    lines += _breakdown_lines(d)
    lines += _lines_lines(d)
    if d.cell_runs:
        lines.append(cell_runs_text(d.cell_runs))
    lines += _cost_lines(d)
    lines += _error_lines(d)
    if d.status != "ok":
        lines.append(f"status: {d.status}" + (f" ({d.interrupted_text})" if d.status == "interrupted" else ""))
    if d.recommendation is not None:
        lines.append(f"recommendation (--sweep): {d.recommendation.call} — {d.recommendation.text}")
    lines += [f"note: {one_line(n, 240)}" for n in d.notes]
    if d.trace is not None and d.trace.skipped_text:
        lines.append(f"note: {d.trace.skipped_text}")
    lines += [f"warning: {w}" for w in d.timing_warnings]
    lines += [f"warning: {w}" for w in d.state_warnings]  # the in-place state left advanced by the runs
    if d.distributed is not None:
        lines.append(d.distributed.text)
    label = f" {one_line(d.label, 80)!r}" if d.label else ""
    lines.append(f"run {d.id}{label} on {d.device_text}, torch {d.torch_version or 'unknown'}")
    return "\n".join(lines)
