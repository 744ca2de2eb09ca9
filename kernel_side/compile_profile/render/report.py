"""One self-contained HTML file for a run: opens offline, shares by email, survives without a server.

plotly.js is embedded from the installed plotly package, the figures come from
``charts.figures``; the cell is highlighted by Pygments.  Each graph's and kernel's code is there once, as
escaped plain text folded in a ``<details>`` (a kernel whose source an earlier one has says so, by name),
and highlighted when it is opened, by the page script (``highlightCode``: comments, strings,
numbers and keywords, as text nodes in spans of Pygments' classes, so the one stylesheet colours both):
highlighting every block with Pygments made a 2,500-kernel report 34 MB and slow to write and open.
The file holds exactly two scripts, plotly.js and the small one below, and fetches nothing.  All text
from the run is escaped (by ``html.escape`` or by Pygments), numbers and enum values too;
the figure JSON is placed inside the script with ``<``, ``>`` and ``&`` written
as ``\\u`` escapes so no string in it can close the script element.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from plotly.offline import get_plotlyjs

from ..artifacts import ArtifactSource, first_of, of_run
from ..digest.facts import top_kernels
from ..digest.format import one_line
from ..digest.kernel_times import kernel_time_text, withheld
from ..digest.measured import roofline_kernels, roofline_rows
from ..digest.summary import RunDigest, digest_of
from ..digest.timeline import CompileTimeline
from ..profile_run import Graph, Kernel, ProfileRun
from .charts import figures, overview_figures
from .compile_html import CSS as COMPILES_CSS
from .compile_html import compiles_section
from .highlight import highlight_code, stylesheet
from .html import digest_html

_PAGE_CSS = """
:root { color-scheme: light dark; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px; }
nav { display: flex; gap: 4px; border-bottom: 1px solid rgba(127,127,127,.4); margin: 12px 0; }
nav a { padding: 6px 12px; text-decoration: none; color: inherit; border: 1px solid transparent; border-bottom: none; }
nav a.active { border-color: rgba(127,127,127,.4); border-radius: 4px 4px 0 0; font-weight: 600; }
h1 { font-size: 1.3em; margin: 0; }
h2 { font-size: 1.1em; }
.meta { opacity: .7; }
details { margin: 4px 0; border-bottom: 1px solid rgba(127,127,127,.2); padding: 2px 0; }
summary { cursor: pointer; }
pre.text { white-space: pre-wrap; }
.cp-highlight pre { overflow-x: auto; padding: 6px; margin: 4px 0; }
table.list { border-collapse: collapse; }
table.list th, table.list td { text-align: left; padding: 2px 10px 2px 0; border-bottom: 1px solid rgba(127,127,127,.25); vertical-align: top; }
"""

# Tabs (sections stay visible without scripts), plots drawn in the page's theme,
# and a redraw when a tab with plots becomes visible so they take its width.
_PAGE_SCRIPT = r"""
(function () {
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var ink = dark ? "#ddd" : "#222", grid = dark ? "rgba(200,200,200,.2)" : "rgba(60,60,60,.15)";
  function themed(layout) {
    var out = JSON.parse(JSON.stringify(layout));
    out.font = Object.assign({color: ink}, out.font || {});
    ["xaxis", "yaxis"].forEach(function (a) { out[a] = Object.assign({gridcolor: grid, zerolinecolor: grid}, out[a] || {}); });
    return out;
  }
  document.querySelectorAll("[data-figure]").forEach(function (div) {
    var fig = FIGURES[div.getAttribute("data-figure")];
    Plotly.newPlot(div, fig.data, themed(fig.layout), {responsive: true, displaylogo: false, showSendToCloud: false,
      showEditInChartStudio: false, modeBarButtonsToRemove: ["sendDataToCloud", "editInChartStudio"]});
  });
  var links = document.querySelectorAll("nav a"), sections = document.querySelectorAll("main > section");
  function show(id) {
    sections.forEach(function (s) { s.hidden = s.id !== id; });
    links.forEach(function (a) { a.classList.toggle("active", a.getAttribute("href") === "#" + id); });
    document.querySelectorAll("#" + id + " [data-figure]").forEach(function (div) { Plotly.Plots.resize(div); });
  }
  links.forEach(function (a) {
    a.addEventListener("click", function (e) { e.preventDefault(); show(a.getAttribute("href").slice(1)); });
  });
  var KEYWORDS = {
    python: "and as assert break class continue def del elif else except False finally for from global if import in is " +
      "lambda None nonlocal not or pass raise return True try while with yield",
    cpp: "auto bool break case char const constexpr continue default do double else enum extern float for if inline " +
      "int long namespace return short signed sizeof static struct switch template typedef typename unsigned void " +
      "volatile while"
  };
  var COMMENT = {python: /#[^\n]*/.source, cpp: /\/\/[^\n]*|\/\*[\s\S]*?\*\/|^[ \t]*#[^\n]*/.source};
  var STRING = /"{3}[\s\S]*?"{3}|'{3}[\s\S]*?'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/.source;
  var NUMBER = /\b\d+(?:\.\d*)?(?:[eE][+-]?\d+)?\b/.source;
  // A graph's or kernel's code, plain text until its details element opens: comments, strings, numbers and
  // keywords wrapped in spans of Pygments' classes (text nodes: nothing in the code becomes markup).
  function highlightCode(pre) {
    if (pre.getAttribute("data-highlighted")) return;
    pre.setAttribute("data-highlighted", "1");
    var lang = pre.getAttribute("data-lang") === "cpp" ? "cpp" : "python", text = pre.textContent;
    var pattern = new RegExp("(" + COMMENT[lang] + ")|(" + STRING + ")|(" + NUMBER + ")|\\b(" +
      KEYWORDS[lang].split(" ").join("|") + ")\\b", "gm");
    var out = document.createDocumentFragment(), at = 0, m;
    while ((m = pattern.exec(text)) !== null) {
      if (!m[0]) { pattern.lastIndex++; continue; }
      var kind = m[1] !== undefined ? (m[0].trim().charAt(0) === "#" && lang === "cpp" ? "cp" : "c1")
        : m[2] !== undefined ? "s" : m[3] !== undefined ? "m" : "k";
      out.appendChild(document.createTextNode(text.slice(at, m.index)));
      var span = document.createElement("span");
      span.className = kind;
      span.textContent = m[0];
      out.appendChild(span);
      at = m.index + m[0].length;
    }
    out.appendChild(document.createTextNode(text.slice(at)));
    pre.textContent = "";
    pre.appendChild(out);
  }
  // toggle does not bubble: it is listened for on its way down to the details element
  document.addEventListener("toggle", function (e) {
    if (e.target.open) e.target.querySelectorAll("pre[data-lang]").forEach(highlightCode);
  }, true);
  // a details element open in the markup (an error's) may have fired its toggle before this script ran
  document.querySelectorAll("details[open] pre[data-lang]").forEach(function (pre) {
    highlightCode(pre);
  });
  // a compile's link (the compile-site tree, an attempt) opens its details and scrolls to it, in the Compiles tab
  document.querySelectorAll("a[data-compile]").forEach(function (a) {
    a.addEventListener("click", function (e) {
      var target = document.getElementById(a.getAttribute("data-compile"));
      if (!target) return;
      e.preventDefault();
      target.open = true;
      target.scrollIntoView();
    });
  });
  var wanted = location.hash.slice(1);
  show(Array.prototype.some.call(sections, function (s) { return s.id === wanted; }) ? wanted : sections[0].id);
})();
"""


def _script_json(value: Any) -> str:
    """JSON that is also a safe JavaScript expression inside ``<script>``."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _value(value: object) -> str:
    """A number, line or enum value of the run as HTML text (see ``render.html``)."""
    return escape(str(value))


def _figure_div(name: str) -> str:
    return f'<div class="figure" data-figure="{escape(name)}"></div>'


def _overview(run: ProfileRun, d: RunDigest) -> str:
    break_lines = tuple(g.line for g in d.graph_breaks if g.line is not None)
    source = (
        "<h2>Cell</h2>"
        + ('<p class="meta">highlighted: cell lines with a graph break</p>' if break_lines else "")
        + highlight_code(run.cell_source, "python", linenos=True, hl_lines=break_lines)
        if run.cell_source
        else ""
    )
    charts = "".join(_figure_div(name) for name in overview_figures(run))
    return (
        f'<section id="overview"><h2>Summary</h2>{digest_html(d)}{charts}{_compile_timeline(d.compile_timeline)}'
        f"{source}{_profile_cost(d)}</section>"
    )


def _compile_timeline(timeline: CompileTimeline | None) -> str:
    """Each compile's time, when it ran, its cache lookups and its largest phases (``digest.timeline``)."""
    if timeline is None:
        return ""
    rows = []
    for r in timeline.rows:
        rows.append(
            f"<tr><td>{escape(r.variant)}</td><td>{escape(r.compile_id)}</td>"
            f"<td>{escape(r.when)}{'<br>' + escape(r.restart_text) if r.restart_text else ''}</td>"
            f"<td>{escape(r.time)}</td><td>{escape(r.largest_phases)}</td><td>{escape(r.cache_text)}</td></tr>"
        )
    return (
        f"<h3>Compile timeline</h3><p>{escape(timeline.text)}</p>"
        '<table class="list"><thead><tr><th>variant</th><th>compile</th><th>when</th><th>time</th>'
        "<th>largest phases</th><th>cache</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _profile_cost(d: RunDigest) -> str:
    """Where the profile's own time went (``digest.cost``): its sentence and a row per stage."""
    cost = d.profile_cost
    if cost is None:
        return ""
    rows = "".join(
        f"<tr><td>{escape(r.label)}</td><td>{escape(r.time)}</td><td>{escape(r.share)}</td></tr>" for r in cost.rows
    )
    return (
        f"<h2>The profile's own time</h2><p>{escape(cost.text)}</p>"
        '<table class="list"><thead><tr><th>stage</th><th>time</th><th>share</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _graph_breaks(d: RunDigest) -> str:
    rows = []
    for g in d.graph_breaks:
        inside = escape(g.inside) + (f" <code>{escape(g.inside_code)}</code>" if g.inside_code else "")
        # DDP's own wrapper: said under the place, so nobody chases it
        note = f'<p class="meta ddp-wrapper">{escape(g.note)}</p>' if g.note else ""
        if g.skipped_rest:
            note += '<p class="meta">Dynamo could not resume there and ran the rest of that function eagerly</p>'
        if g.page:
            note += f'<p class="meta">see {escape(g.page)}</p>'
        tr = '<tr class="ddp-wrapper">' if g.ddp_wrapper else "<tr>"
        rows.append(
            f"{tr}<td>{escape(g.where)}{note}</td><td><code>{escape(g.code_line)}</code></td><td>{inside}</td>"
            f"<td>{g.count}</td><td>{escape(', '.join(g.variants))}</td>"
            f'<td><pre class="text">{escape(g.reason_full)}</pre></td></tr>'
        )
    recompiles = "".join(
        f"<tr><td>{escape(r.variant)}</td><td>{'yes' if r.during_timing else ''}</td>"
        f"<td>{escape(r.failed_guard)}</td>"
        f'<td><pre class="text">{escape(r.reason)}</pre></td></tr>'
        for r in d.recompiles
    )
    recompile_table = (
        '<h2>Recompiles</h2><table class="list"><thead><tr><th>variant</th><th>while timed</th>'
        f"<th>what changed, and the fix</th><th>Dynamo's reason</th></tr></thead><tbody>{recompiles}</tbody></table>"
        if recompiles
        else ""
    )
    breaks = (
        f'<p class="meta">{escape(d.graph_break_text)}</p>'
        '<table class="list"><thead><tr><th>where</th><th>code</th>'
        "<th>inside</th><th>times</th><th>variant</th><th>reason</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>No graph breaks.</p>"
    )
    splits = "".join(f'<p class="ddp-split">{escape(split.text)}</p>' for split in d.ddp_splits)
    splits += "".join(f'<p class="collectives">{escape(text)}</p>' for text in d.collectives)
    return f'<section id="graph-breaks"><h2>Graph breaks</h2>{breaks}{splits}{recompile_table}</section>'


def _guards(d: RunDigest) -> str:
    """Every guard of each Dynamo graph, grouped by kind and value, the checks as Dynamo prints them."""
    if not d.guards:
        return ""
    body = []
    for gg in d.guards:
        rows = "".join(
            f"<tr><td>{escape(g.kind)}</td><td><code>{escape(g.source)}</code>"
            + (f'<p class="meta">{escape(g.warning)}</p>' if g.warning else "")
            + "</td>"
            f"<td>{_value(g.line) if g.line is not None else ''}</td><td>{g.count}</td>"
            f'<td><pre class="text">{escape(chr(10).join(g.codes))}</pre></td></tr>'
            for g in gg.groups
        )
        body.append(
            f"<h3>{escape(gg.heading)}</h3>"
            '<table class="list"><thead><tr><th>kind</th><th>value</th><th>cell line</th><th>guards</th>'
            f"<th>checks</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    return f'<section id="guards"><h2>Guards</h2>{"".join(body)}</section>'


def _measured(run: ProfileRun, d: RunDigest) -> str:
    """The device's ceilings, every kernel with rates against them, and max-autotune's choices."""
    out = ""
    m = d.measured
    if m.device_peaks is not None:
        out += f"<p>{escape(m.device_peaks.text)}</p>" + (
            f'<p class="meta">{escape(m.device_peaks.method)}</p>' if m.device_peaks.method else ""
        )
    rows = roofline_rows(run, len(roofline_kernels(run)))  # every one: the digest carries the first ROOFLINE_ROWS
    if rows:
        body = "".join(
            f"<tr><td><code>{escape(r.name)}</code></td><td>{escape(r.variant)}</td><td>{escape(r.text)}</td></tr>"
            for r in rows
        )
        out += (
            f'<h2>Roofline</h2>{_figure_div("roofline")}<p class="meta">{escape(m.roofline_note)}</p>'
            '<table class="list"><thead><tr><th>kernel</th><th>variant</th><th>achieved</th></tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )
    tuned = m.autotune
    if tuned:
        body = "".join(
            f"<tr><td>{escape(r.variant)}</td><td>{escape(r.op)}</td><td>{escape(r.shape)}</td>"
            f"<td><code>{escape(r.best)}</code></td><td>{r.texts['best_ms']}</td>"
            f"<td><code>{escape(r.best_triton)}</code></td><td>{r.texts['best_triton_ms']}</td>"
            f"<td>{'' if r.choices is None else _value(r.choices)}</td><td>{escape(r.texts['autotune_s'])}</td>"
            f"<td>{escape(r.text)}</td></tr>"
            for r in tuned
        )
        out += (
            '<h2>Autotune</h2><table class="list"><thead><tr><th>variant</th><th>op</th><th>shape</th>'
            "<th>picked</th><th>time</th><th>best Triton</th><th>time</th><th>choices</th><th>tuning</th>"
            f"<th>in words</th></tr></thead><tbody>{body}</tbody></table>"
        )
    return out


def _graph(g: Graph) -> str:
    ops = ", ".join(f"{escape(op)} ×{_value(n)}" for op, n in sorted(g.op_counts.items(), key=lambda kv: -kv[1])[:8])
    facts = [escape(g.kind), escape(g.variant), f"compile {escape(g.compile_id)}" if g.compile_id else ""]
    if g.lines:
        facts.append("cell lines " + escape(", ".join(map(str, g.lines))))
    summary = f"<code>{escape(g.id)}</code> · " + " · ".join(f for f in facts if f) + (f" · {ops}" if ops else "")
    return f"<details><summary>{summary}</summary>{_code(g.code, 'python')}</details>"


def _graphs(run: ProfileRun) -> str:
    body = "".join(_graph(g) for g in run.graphs) or "<p>No graphs were captured.</p>"
    return f'<section id="graphs"><h2>Graphs ({len(run.graphs)})</h2>{body}</section>'


def _code(code: str, language: str) -> str:
    """A graph's or kernel's code as escaped plain text, highlighted when its ``<details>`` opens (the page
    script's ``highlightCode``, which reads ``data-lang``)."""
    lang = "cpp" if language == "cpp" else "python"
    return f'<div class="cp-highlight"><pre data-lang="{lang}">{escape(code, quote=False)}</pre></div>'


def _kernel(k: Kernel, left_out, first_with_source: dict[str, Kernel]) -> str:
    facts = [escape(k.language)]
    if k.variant:
        facts.append(escape(k.variant))
    if k.device_time_ms is not None:
        facts.append(escape(kernel_time_text(k, left_out)))
    if k.lines:
        facts.append("cell lines " + escape(", ".join(map(str, k.lines))))
    if k.aten_ops:
        facts.append(escape(", ".join(k.aten_ops)))
    summary = f"<code>{escape(k.name)}</code> · " + " · ".join(facts)
    first = first_with_source.setdefault(k.source, k)
    if first is not k and k.source:  # a sweep's variants often generate the same kernel: its source once
        where = f" ({escape(first.variant)})" if first.variant else ""
        body = f'<p class="meta">same source as <code>{escape(first.name)}</code>{where}</p>'
    else:
        body = _code(k.source, k.language)
    return f"<details><summary>{summary}</summary>{body}</details>"


def _kernels(run: ProfileRun, d: RunDigest) -> str:
    left_out = withheld(run)
    first_with_source: dict[str, Kernel] = {}
    body = (
        "".join(_kernel(k, left_out, first_with_source) for k in top_kernels(run.kernels, len(run.kernels)))
        or "<p>No kernels were generated.</p>"
    )
    notes = "".join(f'<p class="meta cp-withheld">{escape(j.text)}</p>' for j in left_out.values())
    return (
        f'<section id="kernels"><h2>Kernels ({len(run.kernels)})</h2>'
        f"{notes}{_figure_div('kernels')}{body}{_measured(run, d)}</section>"
    )


def _errors(run: ProfileRun, d: RunDigest) -> str:
    """Each error as the digest words it, with its traceback (the run's: the digest leaves tracebacks out)."""
    if not d.errors:
        return ""
    items = "".join(
        f"<details open><summary>{escape(e.stage)}"
        + (f" · {escape(e.variant)}" if e.variant else "")
        + (f" · {escape(e.line_text)}" if e.line_text else "")
        + f": {escape(one_line(e.message))}</summary>"
        + f'<pre class="text">{escape(e.type + ": " if e.type else "")}{escape(e.message)}</pre>'
        + (f'<pre class="text">{escape(raw.traceback)}</pre>' if raw.traceback else "")
        + "</details>"
        for e, raw in zip(d.errors, run.errors, strict=True)
    )
    return f'<section id="errors"><h2>Errors ({len(d.errors)})</h2>{items}</section>'


# Where a report framed in a page of several (``plotly_from_parent``) takes plotly.js: the page holds it once, as text
# in a script element of this id that runs nothing, and each framed report runs that text in its own frame.  Each
# report had carried its own 4.8 MB copy, escaped into the frame's srcdoc: 35.5 MB for a notebook of 6 profiled cells.
PLOTLY_JS_ID = "cp-plotly-js"
_PLOTLY_FROM_PARENT = (
    "(function(){var held=window.parent&&window.parent!==window&&window.parent.document.getElementById("
    f'"{PLOTLY_JS_ID}");if(held){{var s=document.createElement("script");s.text=held.textContent;'
    "document.head.appendChild(s);}})();"
)


def plotly_js_holder() -> str:
    """The element a page of framed reports holds plotly.js in, once (``plotly_from_parent``)."""
    return f'<script type="text/plain" id="{PLOTLY_JS_ID}">{get_plotlyjs()}</script>'


def render_report_html(
    run: ProfileRun, artifacts: ArtifactSource | None = None, *, plotly_from_parent: bool = False
) -> str:
    """The report; ``artifacts`` reads the compiles' artifact texts it embeds (the store's), after the run's own;
    ``plotly_from_parent``: framed in a page that holds plotly.js (``plotly_js_holder``), which it runs from there."""
    d = digest_of(run)  # the digest's rows, once: the tables and the figures show the same
    guards = _guards(d)
    compiles = compiles_section(run, first_of(of_run(run), artifacts))
    sections = [_overview(run, d), _graph_breaks(d), _graphs(run), guards, _kernels(run, d), compiles]
    sections.append(_errors(run, d))
    tabs = [("overview", "Overview"), ("graph-breaks", f"Graph breaks ({d.graph_break_count})"), ("graphs", "Graphs")]
    if guards:
        tabs.append(("guards", f"Guards ({sum(gg.total for gg in d.guards)})"))
    tabs.append(("kernels", "Kernels"))
    if compiles:
        tabs.append(("compiles", f"Compiles ({sum(1 for c in run.compiles if c.compile_id)})"))
    if d.errors:
        tabs.append(("errors", f"Errors ({len(d.errors)})"))
    nav = "".join(f'<a href="#{sid}">{escape(name)}</a>' for sid, name in tabs)
    title = one_line(d.label or d.first_line or d.id, 80)
    meta = f"run {d.id} · {d.created_at} · {d.device_text} · torch {d.torch_version}"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>compile-profile: {escape(title)}</title>"
        f"<style>{_PAGE_CSS}{COMPILES_CSS}{stylesheet()}</style>"
        "</head><body>"
        f'<header><h1>{escape(title)}</h1><div class="meta">{escape(meta)}</div></header>'
        f"<nav>{nav}</nav><main>{''.join(sections)}</main>"
        # plotly.js (4.8 MB) after the page, not in <head>: the text paints before the browser has parsed and run
        # it (a 2,500-kernel report's first paint in Chromium, 2-core machine: 1.92 s with it in <head>)
        f'<script type="text/javascript">{_PLOTLY_FROM_PARENT if plotly_from_parent else get_plotlyjs()}</script>'
        f'<script type="text/javascript">var FIGURES = {_script_json(figures(run, d.compile_timeline))};{_PAGE_SCRIPT}</script>'
        "</body></html>\n"
    )
