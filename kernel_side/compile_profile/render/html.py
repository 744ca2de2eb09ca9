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

from ..digest.breakdown import TITLE
from ..digest.compare import Comparison
from ..digest.format import one_line
from ..digest.summary import RunDigest, digest_of
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


def _variants(d: RunDigest) -> str:
    rows = [
        [
            escape(v.name),
            v.median_time,
            v.p10_time,
            v.p90_time,
            _value(v.n),
            v.ratio_text,
            v.compile_time if v.compile_s is not None else "",
            v.first_call_time if v.first_call_s is not None else "",
            escape(v.peak_memory_text),
            escape(one_line(v.error)) if v.error else ("recompiled while timed" if v.recompiled_during_timing else ""),
        ]
        for v in d.variants
    ]
    header = ["variant", "median", "p10", "p90", "n", "against eager", "compile", "first call", "peak memory", ""]
    return html_table(header, rows, numeric={1, 2, 3, 4, 5, 6, 7})


def _verdict(d: RunDigest) -> str:
    """Why compiled is faster or slower, and when compiling pays back (``digest.breakdown``, ``digest.payback``)."""
    return "".join(
        f'<div class="{cls}" style="margin:2px 0">{escape(text)}</div>'
        for cls, text in (("cp-verdict", d.verdict), ("cp-payback", d.payback.text if d.payback else None))
        if text
    )


def breakdown_html(d: RunDigest) -> str:
    """Where a call's time goes, a row per variant: library, generated, ATen, copies, outside kernels, call."""
    rows = d.breakdown
    if not rows:
        return ""
    cols = d.breakdown_columns
    cells = [[escape(r.variant), *(escape(r.texts[c.key]) for c in cols)] for r in rows]
    return (
        f"<div {_H}>{escape(TITLE)}</div>"
        + html_table(["variant", *(escape(c.label) for c in cols)], cells, numeric=set(range(1, 1 + len(cols))))
        + f"<div {_MUTED}>{escape(d.breakdown_note)}</div>"
        + "".join(f'<div class="cp-withheld" {_MUTED}>{escape(r.withheld_text)}</div>' for r in rows if not r.trusted)
    )


def _facts(d: RunDigest) -> str:
    rows: list[list[str]] = []
    s = d.speedup
    if s is not None:
        rows.append(["speedup", f"<b>{s.text}</b> {s.interval_text} ({escape(s.variant)})"])
    counts = d.cache_counts
    rows.append(["compile cache", _value(d.cache_state) + (f" ({escape('; '.join(counts))})" if counts else "")])
    rows.append(["Dynamo graphs", str(d.graph_count)])
    # where some are DDP's, the digest's words: "7 graph breaks, 3 in DDP's wrapper"
    rows.append(["graph breaks", escape(d.graph_break_text) if d.ddp_wrapper_break_count else str(d.graph_break_count)])
    rows += [["DDP split", escape(split.text)] for split in d.ddp_splits]
    rows += [["collectives", escape(text)] for text in d.collectives]
    timed = d.recompiles_timed
    rows.append(["recompiles", f"{d.recompile_count}" + (f" ({timed} during timing)" if timed else "")])
    rows.append(["kernels", escape(d.kernel_text)])
    if d.cell_runs:
        # in-place changes (x.add_(1), an optimizer step) happened this many times, not once
        rows.append(["cell runs", f"{_value(d.cell_runs)} (first calls, warm-up, timing and checks)"])
    c = d.correctness
    if c is not None:
        verdict = {True: "ok: ", False: "<b>mismatch</b>: ", None: ""}[c.ok]  # "not compared" says itself
        note = f"; {escape(one_line(c.note))}" if c.ok is not None and c.note else ""
        rows.append(["correctness", f"{verdict}{escape(c.text)}{note}"])
    if d.status != "ok":
        rows.append(
            [
                "status",
                f"<b>{escape(d.status)}</b>"
                + (f" ({escape(d.interrupted_text)})" if d.status == "interrupted" else ""),
            ]
        )
    recommendation = d.recommendation
    if recommendation is not None:
        rows.append(
            [
                "recommendation (--sweep)",
                f"{escape(recommendation.text)}<br>{_code(recommendation.call)}",
            ]
        )
    body = "".join(f"<tr><th {_TH}>{k}</th><td {_TD}>{v}</td></tr>" for k, v in rows)
    return f"<table {_TABLE}><tbody>{body}</tbody></table>"


def _graph_breaks(d: RunDigest) -> str:
    groups = d.graph_breaks
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


def _recompiles(d: RunDigest) -> str:
    if not d.recompiles:
        return ""
    rows = [
        [
            escape(r.variant),
            "yes" if r.during_timing else "",
            escape(r.failed_guard),
            escape(one_line(r.reason)),
        ]
        for r in d.recompiles[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Recompiles</div>"
        + html_table(["variant", "while timed", "what changed, and the fix", "Dynamo's reason"], rows)
        + _more(min(MAX_ROWS, len(d.recompiles)), len(d.recompiles), "recompiles")
    )


def inputs_html(d: RunDigest) -> str:
    """A profile over a sequence of inputs: the digest's sentence, a row per signature, the recompiles by input."""
    summary = d.inputs
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


def guards_html(d: RunDigest) -> str:
    """A row per Dynamo graph: its guards by kind (``digest.guards``); the report lists each guard."""
    graphs = d.guards
    if not graphs:
        return ""
    rows = [
        [escape(gg.compile_id or gg.graph_id), escape(gg.variant), str(gg.total), escape(gg.kinds_text)]
        for gg in graphs[:MAX_ROWS]
    ]
    return (
        f"<div {_H}>Guards</div>"
        + html_table(["graph", "variant", "guards", "what they check"], rows, numeric={2})
        + _more(min(MAX_ROWS, len(graphs)), len(graphs), "graphs with guards")
    )


def measured_html(d: RunDigest) -> str:
    """Device peaks, memory ratio, CUDA-graph skips, max-autotune's choices and the top kernels' roofline
    figures (``digest.measured``)."""
    m = d.measured
    facts = []
    if m.device_peaks is not None:
        facts.append(
            [
                "device peaks",
                escape(m.device_peaks.text)
                + (
                    f" <span {_MUTED}>({escape(one_line(m.device_peaks.method, 400))})</span>"
                    if m.device_peaks.method
                    else ""
                ),
            ]
        )
    if m.memory_ratio is not None:
        facts.append(["peak memory", escape(m.memory_ratio.text)])
    facts += [["CUDA graphs", escape(c.text)] for c in m.cudagraph_skips]
    out = ""
    if facts:
        body = "".join(f"<tr><th {_TH}>{k}</th><td {_TD}>{v}</td></tr>" for k, v in facts)
        out += f"<table {_TABLE}><tbody>{body}</tbody></table>"
    tuned = m.autotune
    if tuned:
        out += (
            f"<div {_H}>Autotune</div>"
            + html_table(
                ["variant", "op", "choice"],
                [[escape(r.variant), escape(r.op), escape(r.text)] for r in tuned[:MAX_ROWS]],
            )
            + _more(min(MAX_ROWS, len(tuned)), len(tuned), "tuned ops")
        )
    rows = m.roofline[:MAX_ROWS]
    if rows:
        out += (
            f"<div {_H}>Roofline</div>"
            + html_table(
                ["kernel", "variant", "achieved"], [[_code(r.name), escape(r.variant), escape(r.text)] for r in rows]
            )
            + _more(len(rows), m.roofline_count, "kernels with rates")
            + f"<div {_MUTED}>{escape(m.roofline_note)}</div>"
        )
    return out


def _kernels(d: RunDigest) -> str:
    table = d.kernel_table
    if not table.total:
        return ""
    rows = [
        [
            _code(k.name)
            + (f" <span {_MUTED}>({escape(k.variant)})</span>" if table.several_variants and k.variant else ""),
            escape(k.language),
            escape(k.time),
            k.share_text,
            _lines(k.lines),
            escape(k.aten_ops_text),
        ]
        for k in table.rows
    ]
    return (
        f"<div {_H}>{table.title}</div>"
        + html_table(["kernel", "language", "device time", "share", "cell lines", "aten ops"], rows, numeric={2, 3})
        + _more(len(table.rows), table.total, "kernels")
        + _withheld(table.withheld_notes)
    )


def _withheld(notes: list[str]) -> str:
    """Why a withheld pass's kernels and lines show shares, under the table that shows them."""
    return "".join(f'<div class="cp-withheld" {_MUTED}>{escape(text)}</div>' for text in notes)


def lines_html(d: RunDigest) -> str:
    """Time per cell line for each variant with kernels (``digest.lines``: one rule for every view)."""
    lt = d.lines
    if not lt.rows:
        return ""
    rows = []
    for r in lt.rows[: MAX_ROWS * 3]:
        times = [escape(r.texts.get(v, "")) for v in lt.variants]
        rows.append(
            [_value(r.line), _code(r.code), *times, str(r.kernel_count) + (" (break)" if r.graph_breaks else "")]
        )
    variants = [escape(v or "kernels") for v in lt.variants]
    return (
        f"<div {_H}>Time per cell line</div>"
        + html_table(["cell line", "code", *variants, "kernels"], rows, numeric=set(range(2, 2 + len(variants))))
        + _more(min(MAX_ROWS * 3, len(lt.rows)), len(lt.rows), "lines")
        + f"<div {_MUTED}>{escape(lt.rule)}</div>"
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


def _errors(d: RunDigest) -> str:
    rows = [
        [
            escape(e.stage),
            escape(e.variant),
            _value(e.line) if e.line is not None else "",
            escape(one_line(e.message, 300)),
        ]
        for e in d.errors[:MAX_ROWS]
    ]
    if not rows:
        return ""
    return (
        f"<div {_H}>Errors</div>"
        + html_table(["stage", "variant", "cell line", "message"], rows)
        + _more(min(MAX_ROWS, len(d.errors)), len(d.errors), "errors")
    )


def _diagnosis(d: RunDigest) -> str:
    """What costs the compiled cell time, largest first: each cause, its cost in bold, what to do."""
    if not d.diagnosis:
        return ""
    items = "".join(
        f'<li class="cp-cause"><span>{escape(c.title)}</span>: <b>{escape(c.cost_text)}</b>'
        + (f"<div {_MUTED}>{escape(c.action)}</div>" if c.action else "")
        + "</li>"
        for c in d.diagnosis
    )
    return f'<div {_H}>{escape(d.diagnosis_heading)}</div><ol style="margin:4px 0">{items}</ol>'


def render_html(run: ProfileRun) -> str:
    """The run's HTML summary: ``digest_html`` of its digest."""
    return digest_html(digest_of(run))


def digest_html(d: RunDigest) -> str:
    """A run's digest laid out as HTML: every part reads a field of ``d``."""
    meta = [f"run {escape(d.id)}", escape(d.device_text), f"torch {escape(d.torch_version)}"]
    if d.label:
        meta.insert(0, f"<b>{escape(one_line(d.label, 120))}</b>")
    if d.distributed is not None:
        meta.append(escape(d.distributed.text))
    if d.trace is not None:
        meta.append(escape(d.trace.text))
    warn = "".join(f"<li>{escape(w)}</li>" for w in d.warnings)
    skipped = [d.trace.skipped_text] if d.trace is not None and d.trace.skipped_text else []
    notes = "".join(f"<li>{escape(one_line(n, 300))}</li>" for n in [*d.notes, *skipped])
    parts = [
        '<div class="compile-profile-run" style="line-height:1.4">',
        f'<div style="font-weight:600;font-size:110%">{escape(d.headline)}</div>',
        f"<div {_MUTED}>{' · '.join(meta)}</div>",
        _diagnosis(d),
        _verdict(d),
        f'<ul style="margin:4px 0">{warn}</ul>' if warn else "",
        _variants(d),
        inputs_html(d),
        breakdown_html(d),
        _facts(d),
        _graph_breaks(d),
        _recompiles(d),
        guards_html(d),
        _kernels(d),
        measured_html(d),
        lines_html(d),
        _errors(d),
        f'<ul style="margin:4px 0;opacity:.8">{notes}</ul>' if notes else "",
        "</div>",
    ]
    return "".join(parts)
