"""The report's Compiles tab: every compile by compile id and attempt, where they started, and each compile's detail
with its artifacts' texts, in the self-contained HTML report (``render.report``).

Contract: ``compiles_section(run, source)`` lays out the digest's ``CompileIndex`` and each ``CompileDetail``
(``digest.compiles``, ``digest.compile_detail``), words nothing itself, and embeds each artifact's text once (a
text logged again says where it is), read from ``source`` (the store's, or the run's own), within
``REPORT_ARTIFACT_BYTES`` all told: past it an artifact says how to print it.  All text is escaped (``html.escape``);
an artifact is plain text in a ``<pre>``, highlighted by the report's own script when its ``<details>`` opens.
"""

from __future__ import annotations

from html import escape

from ..artifacts import ArtifactSource
from ..digest.compile_detail import compile_detail
from ..digest.compile_shapes import ArtifactRow, CompileDetail, CompileIndex
from ..digest.compiles import compile_index
from ..profile_run import ProfileRun

REPORT_ARTIFACT_BYTES = 16 << 20  # distinct artifact text a report embeds (the rest: `compile-profile show`)
CSS = """
.cp-site { margin: 0; padding-left: 1.2em; font-family: ui-monospace, monospace; font-size: .92em; }
.cp-st-ok { color: #1a7f37; } .cp-st-restarted { color: #9a6700; } .cp-st-empty { color: #6e7781; }
.cp-st-failed { color: #cf222e; } .cp-st-missing { color: #8250df; } .cp-st-dropped { color: #6e7781; text-decoration: line-through; }
@media (prefers-color-scheme: dark) { .cp-st-ok { color: #3fb950; } .cp-st-restarted { color: #d29922; }
  .cp-st-failed { color: #f85149; } .cp-st-missing { color: #bc8cff; } }
"""


def _anchor(key: str) -> str:
    return "compile-" + "".join(c if c.isalnum() else "-" for c in key)


def _link(label: str, status: str, key: str, text: str) -> str:
    return (
        f'<a class="cp-st-{escape(status)}" href="#{_anchor(key)}" data-compile="{_anchor(key)}" '
        f'title="{escape(text)}">{escape(label)}</a>'
    )


def _sites(index: CompileIndex) -> str:
    if not index.sites:
        return ""
    rows = []
    for row in index.sites:
        links = " ".join(_link(c.label, c.status, c.key, c.status_text) for c in row.compiles)
        code = f" <code>{escape(row.code)}</code>" if row.code else ""
        rows.append(
            f'<div style="padding-left:{row.depth * 1.2:.1f}em">{escape(row.text)}{code}'
            + (f" ← {links}" if links else "")
            + "</div>"
        )
    legend = ", ".join(f'<span class="cp-st-{escape(w.status)}">{escape(w.text)}</span>' for w in index.legend)
    return f'<h2>Where compiles started</h2><div class="cp-site">{"".join(rows)}</div><p class="meta">{legend}</p>'


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="list"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


class _Embedder:
    """Each artifact's text once, within the report's budget."""

    def __init__(self, source: ArtifactSource):
        self.source, self.left = source, REPORT_ARTIFACT_BYTES
        self.placed: dict[str, str] = {}  # hash -> where it is embedded

    def body(self, a: ArtifactRow, where: str, how_to_print: str) -> str:
        if a.sha256 in self.placed:
            return f'<p class="meta">the same text as {escape(self.placed[a.sha256])}</p>'
        text = self.source(a.sha256)
        if text is None:
            return f'<p class="meta">its text is not in this run ({escape(how_to_print)} prints it where it is)</p>'
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.left:
            return f'<p class="meta">not embedded: past the report\'s {REPORT_ARTIFACT_BYTES >> 20} MiB of artifacts ({escape(how_to_print)} prints it)</p>'
        self.left -= size
        self.placed[a.sha256] = where
        lang = {"Python": ' data-lang="python"', "C++": ' data-lang="cpp"'}.get(a.language, "")
        klass = "" if lang else ' class="text"'
        return f'<div class="cp-highlight"><pre{klass}{lang}>{escape(text, quote=False)}</pre></div>'


def _detail(run: ProfileRun, d: CompileDetail, embed: _Embedder) -> str:
    parts = [f"<p>{escape(d.link.status_text)}</p>"]
    if d.failure_text:
        parts.append(f'<pre class="text">{escape(d.failure_text)}</pre>')
    if d.restarts_text:
        parts.append(f"<p>{escape(d.restarts_text)}</p>")
    if d.attempts:
        items = "".join(
            f"<li>{_link(a.link.label, a.link.status, a.link.key, a.link.status_text)} {escape(a.text)}</li>"
            for a in d.attempts
        )
        parts.append(f"<h3>Attempts</h3><ul>{items}</ul>")
    if d.stack:
        parts.append(
            "<h3>Started from</h3><ol>" + "".join(f"<li><code>{escape(f)}</code></li>" for f in d.stack) + "</ol>"
        )
    if d.metrics:
        parts.append(
            "<h3>Compilation metrics</h3>" + _table(["metric", "value"], [[m.label, m.value] for m in d.metrics])
        )
    if d.cache_lookups:
        rows = [[c.text, c.key, c.components_text] for c in d.cache_lookups]
        parts.append("<h3>Cache lookups</h3>" + _table(["lookup", "key", "components"], rows))
    if d.shape_facts:
        rows = [[f.kind, f.text, f.where] for f in d.shape_facts]
        parts.append("<h3>Symbolic shapes</h3>" + _table(["what", "", "where"], rows))
    if d.collectives_text:
        parts.append(f"<p>{escape(d.collectives_text)}</p>")
    if d.tensor_meta:
        parts.append('<h3>Tensor metadata</h3><pre class="text">' + escape("\n".join(d.tensor_meta)) + "</pre>")
    for view in d.provenance:
        groups = "".join(
            f"<li><strong>{escape(g.title)}</strong><br>{escape(g.text)}<br>"
            f'<span class="meta">{escape(g.lines_text)}</span></li>'
            for g in view.groups
        )
        parts.append(
            f'<h3>Provenance, {escape(view.title)}</h3><p class="meta">{escape(view.how)}</p><ul>{groups}</ul>'
        )
    items = []
    for i, a in enumerate(d.artifacts, start=1):
        where = f"{d.link.label} artifact {i} ({a.label})"
        how = f"compile-profile show {run.id} --compile {d.link.key} --artifact {i}"
        items.append(
            f"<details><summary>{i}. <strong>{escape(a.label)}</strong> · {escape(a.stage)} · "
            f"{escape(a.size_text)} · <code>{escape(a.name)}</code></summary>{embed.body(a, where, how)}</details>"
        )
    parts.append(f"<h3>Artifacts ({escape(d.artifacts_text)})</h3>{''.join(items)}")
    return (
        f'<details id="{_anchor(d.link.key)}"><summary class="cp-st-{escape(d.link.status)}">'
        f"<strong>{escape(d.title)}</strong></summary>{''.join(parts)}</details>"
    )


def compiles_section(run: ProfileRun, source: ArtifactSource) -> str:
    """The report's Compiles section; "" for a run with no compile recorded."""
    if not run.compiles:
        return ""
    index = compile_index(run)
    embed = _Embedder(source)
    details = "".join(
        _detail(run, d, embed) for row in index.rows if (d := compile_detail(run, row.link.key)) is not None
    )
    return (
        f'<section id="compiles"><h2>Compiles</h2><p>{escape(index.text)}</p>'
        f'<p class="meta">Perfetto: {escape(index.perfetto_text)} (compile-profile export {escape(run.id)} '
        f"--perfetto OUT.json)</p>{_sites(index)}<h2>Each compile</h2>{details}</section>"
    )
