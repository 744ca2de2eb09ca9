"""render_report_html: one self-contained, offline HTML file with every figure, graph and kernel."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
from html import escape

import pytest
from compile_profile.render.charts import figures
from compile_profile.render.highlight import highlight_code
from compile_profile.render.report import render_report_html
from plotly.offline import get_plotlyjs
from render_fixtures import ALL_RUNS, HOSTILE, ParsedHTML, cpu_run, cuda_run, failed_run, hostile_run


def _figures_in(parsed: ParsedHTML) -> dict:
    """The figure JSON the page script draws from (it starts ``var FIGURES = {...};``)."""
    script = parsed.scripts[1]
    decoder = json.JSONDecoder()
    assert script.startswith("var FIGURES = ")
    value, _ = decoder.raw_decode(script, len("var FIGURES = "))
    return value


@pytest.fixture(scope="module")
def cuda_report():
    run = cuda_run()
    return run, render_report_html(run)


@pytest.mark.parametrize("name", ["cuda", "cpu", "failed", "interrupted", "hostile"])
def test_report_parses_and_has_exactly_two_local_scripts(name):
    html = render_report_html(ALL_RUNS[name]())
    assert html.startswith("<!DOCTYPE html>")
    parsed = ParsedHTML(html)
    assert parsed.nesting_errors == []
    scripts = parsed.named("script")
    assert len(scripts) == 2 and all("src" not in attrs for attrs in scripts)
    assert parsed.scripts[0] == get_plotlyjs()
    assert parsed.scripts[1].startswith("var FIGURES = ")
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"img", "iframe", "object", "embed", "link", "base", "form"}
    assert parsed.event_handler_attributes() == []
    # Nothing outside plotly.js points at the network: links are in-page anchors only.
    assert [a["href"] for a in parsed.named("a")] == [f"#{s['id']}" for s in parsed.named("section")]
    assert "http" not in html.replace(parsed.scripts[0], "")


def test_report_draws_every_figure_of_the_run(cuda_report):
    run, html = cuda_report
    parsed = ParsedHTML(html)
    assert _figures_in(parsed) == json.loads(json.dumps(figures(run)))
    drawn = [div["data-figure"] for div in parsed.named("div") if "data-figure" in div]
    assert sorted(drawn) == sorted(figures(run))


def test_report_lists_each_compile_with_its_largest_phases_and_cache(cuda_report):
    _, html = cuda_report
    parsed = ParsedHTML(html)
    assert "Compile timeline" in parsed.text
    assert "first call 12.9 s: 12.1 s of it (94%) compiling 2 frames" in parsed.text
    row = "<tr><td>inductor/default</td><td>0/0</td><td>first call</td><td>10 s</td>"
    assert row + "<td>backend_compile 9 s, inductor_compile 8.2 s, code_gen 7.5 s</td>" in html
    assert "<td>FX graph: 1 miss (full_miss); AOTAutograd: 1 miss (full_miss)</td>" in html


def test_the_reports_table_and_figure_show_the_digests_timeline_derived_once(monkeypatch):
    """The table and the figure lay out one derivation of the compile timeline, not one each."""
    from compile_profile.digest import timeline

    calls = []
    derive = timeline.compile_rows
    monkeypatch.setattr(timeline, "compile_rows", lambda run: calls.append(run.id) or derive(run))
    run = cuda_run()
    html = render_report_html(run)
    assert len(calls) == 1
    parsed = ParsedHTML(html)
    rows = timeline.compile_timeline(run).rows
    drawn = {label for t in _figures_in(parsed)["compile_timeline"]["data"] for label in t["y"]}
    assert drawn == {r.compile_id for r in rows}
    assert all(f"<td>{r.compile_id}</td>" in html for r in rows)


def test_report_sections_hold_every_graph_and_kernel_source_once_as_text(cuda_report):
    run, html = cuda_report
    parsed = ParsedHTML(html)
    assert [s["id"] for s in parsed.named("section")] == [
        "overview",
        "graph-breaks",
        "graphs",
        "guards",
        "kernels",
    ]
    for k in run.kernels:  # plain escaped text, highlighted by the page script when its <details> opens
        assert f'<pre data-lang="python">{escape(k.source, quote=False)}</pre>' in html
        assert parsed.text.count(k.source) == 1
    for g in run.graphs:
        assert f'<pre data-lang="python">{escape(g.code, quote=False)}</pre>' in html
    assert "<span" not in html.split('<section id="graphs">')[1]  # no Pygments markup in graphs and kernels
    assert ".cp-highlight .k" in html  # Pygments' stylesheet colours the page script's spans too
    assert "function highlightCode" in parsed.scripts[1]
    assert html.count("<details>") == len(run.kernels) + len(run.graphs)


def test_a_kernel_source_seen_before_is_named_not_repeated():
    run = cuda_run()
    first = run.kernels[0]
    copy = dataclasses.replace(first, name="triton_copy_of_first", variant="inductor/max-autotune")
    run.kernels.append(copy)
    parsed = ParsedHTML(render_report_html(run))
    assert parsed.text.count(first.source) == 1
    assert f"same source as {first.name} ({first.variant})" in parsed.text


def test_kernel_languages_get_their_highlighters():
    run = cpu_run()
    html = render_report_html(run)
    cpp = run.kernels[0]
    assert f'<pre data-lang="cpp">{escape(cpp.source, quote=False)}</pre>' in html
    # The cell itself stays highlighted by Pygments, its break lines marked.
    assert highlight_code(run.cell_source, "python", linenos=True).split("<pre>")[0] in html


def test_graph_breaks_section_and_cell_lines(cuda_report):
    run, html = cuda_report
    parsed = ParsedHTML(html)
    row = next(r for r in parsed.rows if r and r[0] == "cell line 5")
    assert row[1:5] == ["print(y.sum())", "", "1", "inductor/default"]  # not inside a library; once
    assert row[5] == run.graph_breaks[0].reason.strip()  # the whole reason, every line of it
    # The cell's listing marks the line of the break.
    assert '<span class="hll">' in html


def test_errors_get_their_own_section_with_the_traceback():
    run = failed_run()
    parsed = ParsedHTML(render_report_html(run))
    assert "errors" in [s["id"] for s in parsed.named("section")]
    assert "Traceback ..." in parsed.text
    assert "compile · inductor/default · cell line 4: LoweringException" in parsed.text


def test_hostile_text_stays_text():
    run = hostile_run()
    html = render_report_html(run)
    parsed = ParsedHTML(html)
    assert len(parsed.named("script")) == 2 and parsed.named("img") == []
    # Label, cell, reason, graph code, kernel name and source, error: all present, as text.
    assert parsed.text.count(HOSTILE) >= 8
    # No string in the figure data can end the script element early.
    assert "</" not in parsed.scripts[1]
    assert _figures_in(parsed) == json.loads(json.dumps(figures(run)))


def test_profile_run_to_html_is_the_report():
    run = cuda_run()
    assert run.to_html() == render_report_html(run)


@pytest.mark.browser
def test_report_opens_offline_in_a_browser_and_draws_its_charts(tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "the browser tests need Chromium (apt-get install chromium)"
    page = tmp_path / "report.html"
    html = render_report_html(hostile_run())
    # the Triton kernel's source (with hostile text in a comment) opened, as a click would: the page script highlights it then, as text nodes
    hostile_source = html.index("# &lt;script&gt;", html.index('<section id="kernels">'))
    kernel = html.rindex("<details>", 0, hostile_source)
    html = html[:kernel] + "<details open>" + html[kernel + len("<details>") :]
    page.write_text(html, encoding="utf-8")
    dom = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    # Plotly marks each div it drew; the page script hid all but the first tab.
    assert len(re.findall(r'class="[^"]*js-plotly-plot', dom)) == len(figures(hostile_run()))
    assert re.search(r'<section id="overview">', dom) and re.search(r'<section id="kernels" hidden', dom)
    assert "<img" not in dom
    kernels = dom[dom.index('<section id="kernels"') :]
    opened = re.findall(r'<pre data-lang="\w+" data-highlighted="1">(.*?)</pre>', kernels, re.S)
    assert len(opened) == 1 and '<span class="k">' in opened[0]
    assert "<script>alert" not in opened[0] and HOSTILE.replace("<", "&lt;").replace(">", "&gt;")[:20] in opened[0]
