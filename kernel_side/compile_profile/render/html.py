"""Static HTML summary for the cell's ``text/html``: tables only, no script, inline styles.

It has to read well wherever a notebook is shown (JupyterLab, VS Code, GitHub's
viewer, which strips scripts and most styling), so it uses plain tables and
only colour-free styles (opacity, borders in translucent grey) that suit light
and dark themes.  Every value taken from the run goes through ``html.escape``, numbers and enum
fields too (``_value``): a loaded run's types are checked (``serialize.from_dict``), and a run
built in Python with a string where a number belongs still shows it as text.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from html import escape

from ..digest.breakdown import TITLE, breakdown, breakdown_note, columns, verdict
from ..digest.breaks import break_count_text, break_groups
from ..digest.compare import Comparison
from ..digest.correctness import correctness_text
from ..digest.diagnosis import diagnosis, diagnosis_heading
from ..digest.distributed import collective_texts, ddp_split_text, distributed_text
from ..digest.facts import (
    TOP_KERNELS,
    cache_counts,
    device_text,
    interrupted_text,
    kernel_count_text,
    kernel_variants,
    median_ratio,
    peak_memory_text,
    top_kernels,
)
from ..digest.format import format_interval, format_ms, format_s, format_speedup, lines_of, one_line, ratio_phrase
from ..digest.guards import failed_guard_text, kinds_text, run_guards
from ..digest.inputs import inputs_summary
from ..digest.kernel_times import kernel_time_text, withheld, withheld_notes
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
from ..digest.notes import error_message, note_text, run_notes, variant_error
from ..digest.payback import payback
from ..digest.recommendation import recommendation_digest
from ..digest.summary import headline, warnings
from ..digest.trace import origin_text, skipped_text
from ..profile_run import ProfileRun

MAX_ROWS = 10

_TABLE = 'style="border-collapse:collapse;margin:4px 0 8px 0;font-size:90%"'
_TH = 'style="text-align:left;padding:2px 10px 2px 0;border-bottom:1px solid rgba(127,127,127,.5)"'
_TD = 'style="text-align:left;padding:2px 10px 2px 0;border-bottom:1px solid rgba(127,127,127,.2);vertical-align:top"'
_NUM = 'style="text-align:right;padding:2px 10px 2px 0;border-bottom:1px solid rgba(127,127,127,.2);vertical-align:top"'
_H = 'style="font-weight:600;margin:8px 0 2px 0"'
_MUTED = 'style="opacity:.7"'


def html_table(header: list[str], rows: list[list[str]], numeric: AbstractSet[int] = frozenset()) -> str:
    """A table whose cells are already HTML (callers escape user text before passing it)."""
    head = "".join(f"<th {_TH}>{h}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td {_NUM if i in numeric else _TD}>{cell}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table {_TABLE}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _value(value: object) -> str:
    """A number, line or enum value of the run as HTML text."""
    return escape(str(value))


def _lines(lines: list[int]) -> str:
    return escape(", ".join(map(str, lines)))


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>" if text else ""


def _more(shown: int, total: int, what: str) -> str:
    return f"<div {_MUTED}>showing {shown} of {total} {what}</div>" if total > shown else ""


def _variants(run: ProfileRun) -> str:
    rows = []
    for v in run.variants:
        t = v.timing
        ratio = median_ratio(run, v) if v.name != "eager" else None
        status = (
            escape(one_line(error))
            if (error := variant_error(v))
            else ("recompiled while timed" if v.recompiled_during_timing else "")
        )
        rows.append(
            [
                escape(v.name),
                format_ms(t.median_ms) if t else "—",
                format_ms(t.p10_ms) if t else "—",
                format_ms(t.p90_ms) if t else "—",
                _value(t.n) if t else "0",
                format_speedup(ratio) if ratio is not None else "",
                format_s(v.compile_s) if v.compile_s is not None else "",
                format_s(v.first_call_s) if v.first_call_s is not None else "",
                escape(peak_memory_text(run, v)),
                status,
            ]
        )
    header = ["variant", "median", "p10", "p90", "n", "eager ÷ median", "compile", "first call", "peak memory", ""]
    return html_table(header, rows, numeric={1, 2, 3, 4, 5, 6, 7})


def _verdict(run: ProfileRun) -> str:
    """Why compiled is faster or slower, and when compiling pays back (``digest.breakdown``, ``digest.payback``)."""
    pays = payback(run)
    return "".join(
        f'<div class="{cls}" style="margin:2px 0">{escape(text)}</div>'
        for cls, text in (("cp-verdict", verdict(run)), ("cp-payback", pays.text if pays else None))
        if text
    )


def breakdown_html(run: ProfileRun) -> str:
    """Where a call's time goes, a row per variant: library, generated, ATen, copies, outside kernels, call."""
    rows = breakdown(run)
    if not rows:
        return ""
    cols = columns(rows)
    cells = [[escape(r.variant), *(escape(r.part_text(key)) for key, _ in cols)] for r in rows]
    return (
        f"<div {_H}>{escape(TITLE)}</div>"
        + html_table(
            ["variant", *(escape(heading) for _, heading in cols)], cells, numeric=set(range(1, 1 + len(cols)))
        )
        + f"<div {_MUTED}>{escape(breakdown_note(rows))}</div>"
        + "".join(f'<div class="cp-withheld" {_MUTED}>{escape(r.withheld_text)}</div>' for r in rows if not r.trusted)
    )


def _facts(run: ProfileRun) -> str:
    rows: list[list[str]] = []
    s = run.speedup
    if s is not None:
        rows.append(["speedup", f"<b>{ratio_phrase(s.value)}</b> {format_interval(s)} ({escape(s.variant)})"])
    counts = cache_counts(run)
    rows.append(["compile cache", _value(run.cache.state) + (f" ({escape('; '.join(counts))})" if counts else "")])
    rows.append(["Dynamo graphs", str(run.dynamo_graph_count)])
    groups = break_groups(run)  # where some are DDP's, the digest's words: "7 graph breaks, 3 in DDP's wrapper"
    rows.append(
        [
            "graph breaks",
            escape(break_count_text(run, groups)) if any(g.ddp_wrapper for g in groups) else str(len(run.graph_breaks)),
        ]
    )
    rows += [["DDP split", escape(ddp_split_text(run, split))] for split in run.ddp_splits]
    rows += [["collectives", escape(text)] for text in collective_texts(run)]
    timed = sum(r.during_timing for r in run.recompiles)
    rows.append(["recompiles", f"{len(run.recompiles)}" + (f" ({timed} during timing)" if timed else "")])
    rows.append(["kernels", escape(kernel_count_text(run))])
    if run.cell_runs:
        # in-place changes (x.add_(1), an optimizer step) happened this many times, not once
        rows.append(["cell runs", f"{_value(run.cell_runs)} (first calls, warm-up, timing and checks)"])
    c = run.correctness
    if c is not None:
        verdict = {True: "ok: ", False: "<b>mismatch</b>: ", None: ""}[c.ok]  # "not compared" says itself
        note = f"; {escape(one_line(note_text(c.note)))}" if c.ok is not None and c.note else ""
        rows.append(["correctness", f"{verdict}{escape(correctness_text(c))}{note}"])
    if run.status != "ok":
        rows.append(
            [
                "status",
                f"<b>{escape(run.status)}</b>"
                + (f" ({escape(interrupted_text(run))})" if run.status == "interrupted" else ""),
            ]
        )
    recommendation = recommendation_digest(run)
    if recommendation is not None:
        rows.append(
            [
                "recommendation (--sweep)",
                f"{escape(recommendation.text)}<br>{_code(recommendation.call)}",
            ]
        )
    body = "".join(f"<tr><th {_TH}>{k}</th><td {_TD}>{v}</td></tr>" for k, v in rows)
    return f"<table {_TABLE}><tbody>{body}</tbody></table>"


def _graph_breaks(run: ProfileRun) -> str:
    groups = break_groups(run)
    if not groups:
        return ""
    rows = [
        [
            _value(g.line) if g.line is not None else "—",
            _code(g.code_line),
            escape(g.inside) + (" " + _code(g.inside_code) if g.inside_code else ""),
            str(g.count),
            escape(one_line(g.reason))
            + (f'<div class="cp-ddp-wrapper" {_MUTED}>{escape(g.note)}</div>' if g.note else ""),
        ]
        for g in groups[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Graph breaks</div>"
        + html_table(["cell line", "code", "inside", "times", "reason"], rows)
        + _more(min(MAX_ROWS, len(groups)), len(groups), "kinds of graph break")
    )


def _recompiles(run: ProfileRun) -> str:
    if not run.recompiles:
        return ""
    rows = [
        [
            escape(r.variant),
            "yes" if r.during_timing else "",
            escape(failed_guard_text(r, lines_of(run), run.lr_schedulers)),
            escape(one_line(r.reason)),
        ]
        for r in run.recompiles[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Recompiles</div>"
        + html_table(["variant", "while timed", "what changed, and the fix", "Dynamo's reason"], rows)
        + _more(min(MAX_ROWS, len(run.recompiles)), len(run.recompiles), "recompiles")
    )


def inputs_html(run: ProfileRun) -> str:
    """A profile over a sequence of inputs: the digest's sentence, a row per signature, the recompiles by input."""
    summary = inputs_summary(run)
    if summary is None:
        return ""
    rows = [
        [
            escape(r.signature) + (" *" if r.representative else ""),
            escape(r.inputs_text),
            str(r.calls),
            escape(r.eager_time),
            escape(r.compiled_time),
            escape(r.speedup_text),
            str(r.recompiles),
            escape(r.compile_time),
        ]
        for r in summary.rows
    ]
    recompiles = [
        [str(r.input), escape(r.signature), escape(r.compile_time or "—"), escape(r.text)]
        for r in summary.recompiles[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Inputs</div><div>{escape(summary.text)}</div>"
        + html_table(
            ["signature", "inputs", "calls", "eager", "compiled", "speedup", "recompiles", "compiling"],
            rows,
            numeric={2, 3, 4, 6, 7},
        )
        + (f"<div {_MUTED}>{escape(summary.more_signatures_text)}</div>" if summary.more_signatures_text else "")
        + (
            html_table(["input", "signature", "compiling", "recompile: what changed, and the fix"], recompiles)
            if recompiles
            else ""
        )
        + f"<div {_MUTED}>{escape(summary.comparison_text)}; {escape(summary.timing_text)}"
        + (" (* that signature)" if len(summary.rows) > 1 else "")
        + "</div>"
    )


def guards_html(run: ProfileRun) -> str:
    """A row per Dynamo graph: its guards by kind (``digest.guards``); the report lists each guard."""
    graphs = run_guards(run)
    if not graphs:
        return ""
    rows = [
        [escape(gg.compile_id or gg.graph_id), escape(gg.variant), str(gg.total), escape(kinds_text(gg.by_kind))]
        for gg in graphs[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Guards</div>"
        + html_table(["graph", "variant", "guards", "what they check"], rows, numeric={2})
        + _more(min(MAX_ROWS, len(graphs)), len(graphs), "graphs with guards")
    )


def measured_html(run: ProfileRun) -> str:
    """Device peaks, memory ratio, CUDA-graph skips, max-autotune's choices and the top kernels' roofline
    figures (``digest.measured``)."""
    facts = []
    if run.device_peaks is not None:
        facts.append(
            [
                "device peaks",
                escape(device_peaks_text(run.device_peaks))
                + (
                    f" <span {_MUTED}>({escape(one_line(run.device_peaks.method, 400))})</span>"
                    if run.device_peaks.method
                    else ""
                ),
            ]
        )
    ratio = memory_ratio_text(run)
    if ratio:
        facts.append(["peak memory", escape(ratio)])
    facts += [["CUDA graphs", escape(cudagraph_text(c.variant, c.reasons))] for c in cudagraph_skips(run)]
    out = ""
    if facts:
        body = "".join(f"<tr><th {_TH}>{k}</th><td {_TD}>{v}</td></tr>" for k, v in facts)
        out += f"<table {_TABLE}><tbody>{body}</tbody></table>"
    tuned = autotune_rows(run)
    if tuned:
        out += (
            f"<div {_H}>Autotune</div>"
            + html_table(
                ["variant", "op", "choice"],
                [[escape(r.variant), escape(r.op), escape(r.text)] for r in tuned[:MAX_ROWS]],
            )
            + _more(min(MAX_ROWS, len(tuned)), len(tuned), "tuned ops")
        )
    rows = roofline_rows(run, MAX_ROWS)
    if rows:
        total = len(roofline_kernels(run))
        out += (
            f"<div {_H}>Roofline</div>"
            + html_table(
                ["kernel", "variant", "achieved"], [[_code(r.name), escape(r.variant), escape(r.text)] for r in rows]
            )
            + _more(len(rows), total, "kernels with rates")
            + f"<div {_MUTED}>{escape(roofline_note(run))}</div>"
        )
    return out


def _kernels(run: ProfileRun) -> str:
    if not run.kernels:
        return ""
    several = len(kernel_variants(run)) > 1
    left_out = withheld(run)
    rows = []
    for k in top_kernels(run.kernels, TOP_KERNELS):
        rows.append(
            [
                _code(k.name) + (f" <span {_MUTED}>({escape(k.variant)})</span>" if several and k.variant else ""),
                escape(k.language),
                escape(kernel_time_text(k, left_out, with_share=False)),
                f"{k.share * 100:.1f}%" if k.share is not None else "",
                _lines(k.lines),
                escape(", ".join(k.aten_ops[:6]) + (" …" if len(k.aten_ops) > 6 else "")),
            ]
        )
    timed = any(k.device_time_ms is not None for k in run.kernels)
    title = "Top kernels by device time" if timed else "Kernels"
    return (
        f"<div {_H}>{title}</div>"
        + html_table(["kernel", "language", "device time", "share", "cell lines", "aten ops"], rows, numeric={2, 3})
        + _more(min(TOP_KERNELS, len(run.kernels)), len(run.kernels), "kernels")
        + _withheld(withheld_notes(run, kernel_variants(run)))
    )


def _withheld(notes: list[str]) -> str:
    """Why a withheld pass's kernels and lines show shares, under the table that shows them."""
    return "".join(f'<div class="cp-withheld" {_MUTED}>{escape(text)}</div>' for text in notes)


def lines_html(run: ProfileRun) -> str:
    """Time per cell line for each variant with kernels (``digest.lines``: one rule for every view)."""
    lt = line_times(run)
    if not lt.rows:
        return ""
    rows = []
    for r in lt.rows[: MAX_ROWS * 3]:
        times = [escape(r.time_text(v)) for v in lt.variants]
        kernels = sum(len(names) for v, names in r.kernels.items() if v != "eager")  # eager's are ops, not kernels
        rows.append([_value(r.line), _code(r.code), *times, str(kernels) + (" (break)" if r.graph_breaks else "")])
    variants = [escape(v or "kernels") for v in lt.variants]
    return (
        f"<div {_H}>Time per cell line</div>"
        + html_table(["cell line", "code", *variants, "kernels"], rows, numeric=set(range(2, 2 + len(variants))))
        + _more(min(MAX_ROWS * 3, len(lt.rows)), len(lt.rows), "lines")
        + f"<div {_MUTED}>{escape(RULE)}</div>"
        + _withheld(list(lt.withheld.values()))
    )


def comparison_html(c: Comparison) -> str:
    """A ``digest.compare`` comparison as a table: A before, B after, B's change."""
    # what the runs ran with first, the rows where they differ leading (digest.compare.context)
    rows = [
        [escape(r.label), escape(r.a), escape(r.b), "<b>differs</b>" if r.differs else f"<span {_MUTED}>same</span>"]
        for r in c.context
    ]
    rows += [[escape(d.metric), escape(d.a_text), escape(d.b_text), escape(d.change_text)] for d in c.deltas]
    kernels = "".join(
        f"<div>{what}: "
        + (
            ", ".join(f"<code>{escape(k.name)}</code>" + (f" ×{k.count}" if k.count > 1 else "") for k in found)
            or "none"
        )
        + "</div>"
        for what, found in (("kernels added in B", c.kernels_added), ("kernels removed in B", c.kernels_removed))
    )
    title_a = escape(f"A {one_line(c.a.label, 40) or c.a.id}")
    title_b = escape(f"B {one_line(c.b.label, 40) or c.b.id}")
    return (
        html_table(["", title_a, title_b, "B vs A"], rows)
        + f"<div {_MUTED}>{c.kernels_kept} kernel(s) in both</div>"
        + kernels
    )


def _errors(run: ProfileRun) -> str:
    rows = [
        [
            escape(e.stage),
            escape(e.variant),
            _value(e.line) if e.line is not None else "",
            escape(one_line(error_message(e), 300)),
        ]
        for e in run.errors[:MAX_ROWS]
    ]
    if not rows:
        return ""
    return (
        f"<div {_H}>Errors</div>"
        + html_table(["stage", "variant", "cell line", "message"], rows)
        + _more(min(MAX_ROWS, len(run.errors)), len(run.errors), "errors")
    )


def _diagnosis(run: ProfileRun) -> str:
    """What costs the compiled cell time, largest first: each cause, its cost in bold, what to do."""
    causes = diagnosis(run)
    if not causes:
        return ""
    items = "".join(
        f'<li class="cp-cause"><span>{escape(c.title)}</span>: <b>{escape(c.cost_text)}</b>'
        + (f"<div {_MUTED}>{escape(c.action)}</div>" if c.action else "")
        + "</li>"
        for c in causes
    )
    return f'<div {_H}>{escape(diagnosis_heading(run))}</div><ol style="margin:4px 0">{items}</ol>'


def render_html(run: ProfileRun) -> str:
    meta = [
        f"run {escape(run.id)}",
        escape(device_text(run.device)),
        f"torch {escape(run.torch_version)}",
    ]
    if run.label:
        meta.insert(0, f"<b>{escape(one_line(run.label, 120))}</b>")
    place = distributed_text(run)
    if place:
        meta.append(escape(place))
    trace = run.imported_trace
    if trace is not None:
        meta.append(escape(origin_text(trace)))
    warn = "".join(f"<li>{escape(w)}</li>" for w in warnings(run))
    skipped = [skipped_text(trace)] if trace is not None and skipped_text(trace) else []
    notes = "".join(f"<li>{escape(one_line(n, 300))}</li>" for n in [*run_notes(run), *skipped])
    parts = [
        '<div class="compile-profile-run" style="line-height:1.4">',
        f'<div style="font-weight:600;font-size:110%">{escape(headline(run))}</div>',
        f"<div {_MUTED}>{' · '.join(meta)}</div>",
        _diagnosis(run),
        _verdict(run),
        f'<ul style="margin:4px 0">{warn}</ul>' if warn else "",
        _variants(run),
        inputs_html(run),
        breakdown_html(run),
        _facts(run),
        _graph_breaks(run),
        _recompiles(run),
        guards_html(run),
        _kernels(run),
        measured_html(run),
        lines_html(run),
        _errors(run),
        f'<ul style="margin:4px 0;opacity:.8">{notes}</ul>' if notes else "",
        "</div>",
    ]
    return "".join(parts)
