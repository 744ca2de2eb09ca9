"""A suite laid out: text (the CLI, ``print``), the self-contained HTML report with its charts, the notebook's MIME
bundle, the comparison's text and the progress line.  Every figure and sentence is the digest's
(``suites.digest``, ``suites.compare``); a view here chooses what goes where and escapes text, and words no number.

The report holds plotly.js and one small script, fetches nothing, and escapes all text from the collection
(``html.escape``); the figures' JSON goes inside the script with ``<``, ``>`` and ``&`` as ``\\u`` escapes.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .. import serialize
from ..digest.format import format_s
from ..render.text import terminal_safe, text_table
from .charts import figures
from .compare import SuiteComparison
from .digest import SuiteDigest
from .runner import Progress

MIME_TYPE = "application/vnd.compile-profile.suite+json"
MIME_VERSION = 1

_COLUMNS = ("ENTRY", "STATUS", "SPEEDUP (INTERVAL)", "COMPILE", "BREAKS", "RECOMPILES", "PEAK MEMORY", "TOP CAUSE")


def _cut(text: str, width: int) -> str:
    """A table's cell: one line (a line break written as its escape, as ``terminal_safe`` writes the other controls:
    a name from a ``--json`` file or another store may hold one), cut to ``width``."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def render_text(digest: SuiteDigest) -> str:
    lines = [
        f"suite {digest.id}: {digest.title}" + (f" — {digest.label}" if digest.label else ""),
        f"  {digest.created_text} · {digest.where_text}",
        f"  {digest.settings_text}",
        "",
        digest.headline,
        f"  {digest.summary.median_compile_text}; {digest.summary.compression_text}",
    ]
    if digest.pending_text:
        lines.append(f"  {digest.pending_text}")
    lines.append("")
    rows = [
        [
            _cut(r.name, 32),
            r.status_label,
            r.speedup_text,
            r.compile_text,
            r.graph_break_text,
            r.recompile_text,
            r.memory_text if r.peak_eager_bytes is not None else "—",
            _cut(r.top_cause, 60),
        ]
        for r in digest.rows
    ]
    lines.append(text_table(_COLUMNS, rows))
    why = [r for r in digest.rows if r.status not in ("pass",) and r.status_text]
    if why:
        lines.append("")
        lines += [f"{r.name}: {r.status_label} — {_cut(r.status_text, 300)}" for r in why]
    if digest.flags:
        lines.append("")
        lines.append("flagged (PyTorch's dashboard thresholds):")
        lines += [f"  {flag}" for flag in digest.flags]
    return terminal_safe("\n".join(lines))


def comparison_text(c: SuiteComparison) -> str:
    lines = [f"{c.old} → {c.new}: {c.headline}", *([c.setup_text] if c.setup_text else []), ""]
    rows = [
        [_cut(r.name, 60), r.status_text, r.old_speedup_text, r.new_speedup_text, r.ratio_text, r.compile_text]
        for r in c.rows
    ]
    lines.append(text_table(("ENTRY", "STATUS", "OLD SPEEDUP", "NEW SPEEDUP", "NEW/OLD", "COMPILE"), rows))
    if c.regressions:
        lines.append("")
        lines += [f"  {text}" for text in c.regressions]
    if c.unjudged:
        lines.append("")
        lines += [f"  {text}" for text in c.unjudged]
    lines += ["", c.gate_text]
    return terminal_safe("\n".join(lines))


def _about(seconds: float) -> str:
    """A time left in whole minutes from 90 s on (``format_s`` writes 1040 s as "1.04e+03 s")."""
    return f"{round(seconds / 60)} min" if seconds >= 90 else format_s(seconds)


def progress_text(event: Progress) -> str:
    """``[3/12] gpt2 (training): passed, 1.32× faster [1.20×–1.45×] (41 s); about 6 min left``."""
    where = f"[{event.index}/{event.total}] {event.entry}"
    left = f"; about {_about(event.left_s)} left" if event.left_s else ""
    if event.kind == "start":
        before = f" ({event.skipped_done} done before)" if event.skipped_done and event.index == 1 else ""
        return terminal_safe(f"{where}: profiling…{before}{left}")
    o = event.outcome
    assert o is not None
    ended = {"finished": "finished", "timeout": "timed out", "crashed": "crashed", "oom": "out of memory"}
    how = ended.get(o.ended, o.ended)
    if o.ended == "error":
        how = f"{'profiling' if o.stage == 'profile' else 'failed to build'}: {o.error[:120]}"
    elif o.ended == "skipped":
        how = f"skipped: {o.error[:120]}"
    took = f" ({format_s(o.wall_s)})" if o.ended != "skipped" else ""
    return terminal_safe(f"{where}: {how}{took}{left}")


# -- HTML ------------------------------------------------------------------------------------------------------------

_CSS = """
:root { color-scheme: light dark; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px; }
h1 { font-size: 1.3em; margin: 0; } .meta { opacity: .75; margin: 2px 0; }
.headline { font-size: 1.1em; font-weight: 600; margin: 12px 0 4px; }
table.cp-suite { border-collapse: collapse; width: 100%; margin: 8px 0; }
table.cp-suite th, table.cp-suite td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top;
  border-bottom: 1px solid rgba(127,127,127,.25); }
.cp-status { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff; white-space: nowrap; }
.why { opacity: .8; font-size: .92em; }
ul.flags li { margin: 2px 0; }
"""

_SCRIPT = r"""
(function () {
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var ink = dark ? "#ddd" : "#222", grid = dark ? "rgba(200,200,200,.2)" : "rgba(60,60,60,.15)";
  document.querySelectorAll("[data-figure]").forEach(function (div) {
    var fig = FIGURES[div.getAttribute("data-figure")];
    var layout = JSON.parse(JSON.stringify(fig.layout));
    layout.font = Object.assign({color: ink}, layout.font || {});
    ["xaxis", "yaxis"].forEach(function (a) { layout[a] = Object.assign({gridcolor: grid, zerolinecolor: grid}, layout[a] || {}); });
    Plotly.newPlot(div, fig.data, layout, {responsive: true, displaylogo: false});
  });
})();
"""


def _script_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def table_html(digest: SuiteDigest) -> str:
    """The entries as a static table (the notebook's HTML fallback and the report)."""
    e = escape
    head = "".join(
        f"<th>{h}</th>"
        for h in ("entry", "status", "speedup", "compile", "graph breaks", "recompiles", "peak memory", "top cause")
    )
    body = []
    for r in digest.rows:
        status = f'<span class="cp-status" style="background:{e(r.colour)}">{e(r.status_label)}</span>'
        why = f'<div class="why">{e(r.status_text)}</div>' if r.status != "pass" and r.status_text else ""
        body.append(
            f"<tr data-status='{e(r.status)}'><td>{e(r.name)}</td><td>{status}{why}</td><td>{e(r.speedup_text)}</td>"
            f"<td>{e(r.compile_text)}</td><td>{e(r.graph_break_text)}</td><td>{e(r.recompile_text)}</td>"
            f"<td>{e(r.memory_text)}</td><td>{e(r.top_cause)}</td></tr>"
        )
    return f'<table class="cp-suite"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _header_html(digest: SuiteDigest) -> str:
    e = escape
    parts = [
        f"<h1>suite {e(digest.id)}: {e(digest.title)}{' — ' + e(digest.label) if digest.label else ''}</h1>",
        f'<div class="meta">{e(digest.created_text)} · {e(digest.where_text)}</div>',
        f'<div class="meta">{e(digest.settings_text)}</div>',
        f'<p class="headline">{e(digest.headline)}</p>',
        f'<div class="meta">{e(digest.summary.median_compile_text)}; {e(digest.summary.compression_text)}</div>',
    ]
    if digest.pending_text:
        parts.append(f'<p class="meta">{e(digest.pending_text)}</p>')
    return "".join(parts)


def _flags_html(digest: SuiteDigest) -> str:
    if not digest.flags and not digest.notes:
        return ""
    items = "".join(f"<li>{escape(f)}</li>" for f in digest.flags)
    notes = "".join(f"<li>{escape(n)}</li>" for n in digest.notes)
    return (f"<h2>Flagged (PyTorch's dashboard thresholds)</h2><ul class='flags'>{items}</ul>" if items else "") + (
        f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""
    )


def render_report_html(digest: SuiteDigest) -> str:
    """The suite's self-contained HTML report: its header, both charts, the table, the flags."""
    from plotly.offline import get_plotlyjs

    figs = figures(digest)
    charts = "".join(f'<div class="figure" data-figure="{name}"></div>' for name in figs)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>compile-profile suite {escape(digest.id)}: {escape(digest.title)}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<header>{_header_html(digest)}</header><main>{charts}{table_html(digest)}{_flags_html(digest)}</main>"
        f'<script type="text/javascript">{get_plotlyjs()}</script>'
        f'<script type="text/javascript">var FIGURES = {_script_json(figs)};{_SCRIPT}</script>'
        "</body></html>\n"
    )


def card_html(digest: SuiteDigest) -> str:
    """The notebook's HTML fallback (where the JupyterLab extension is not installed): no script, the table."""
    return f"<div class='cp-suite-card'><style>{_CSS}</style>{_header_html(digest)}{table_html(digest)}</div>"


def mime_payload(digest: SuiteDigest) -> dict[str, Any]:
    """What the JupyterLab renderer draws: the digest and its figures (``SuitePage``'s shape), with a version."""
    return {"version": MIME_VERSION, "suite": serialize.to_dict(digest), "figures": figures(digest)}


def mime_bundle(digest: SuiteDigest) -> dict[str, Any]:
    return {"text/plain": render_text(digest), "text/html": card_html(digest), MIME_TYPE: mime_payload(digest)}
