"""Text a cell controls, from a real profile, reaches every view as text and never as markup.

The cell puts script-running markup in its comments, a string, a graph-break
message and the run label; those end up in the cell source, Dynamo's graph code
(its source-line comments), the break reason and the label.  Every Python view
is parsed; the exported report and the static HTML are opened in headless
Chromium, where each payload would set ``window.__xss`` or open a dialog if it
ran.  The card and the panel in JupyterLab are covered by ``ui-tests`` (see
docs/reliability.md); synthetic runs with markup in every field are covered by
test_render_html, test_render_mime, test_render_report and test_render_widget.
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as widgets
import pytest
import torch
from browser_pages import open_in_chromium
from compile_profile.render.html import render_html
from compile_profile.render.mime import mime_bundle
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from IPython.utils.capture import capture_output
from profile_options import FAST_FLAGS
from render_fixtures import ParsedHTML, cuda_run

ROOT = Path(__file__).resolve().parents[1]


def payload(n: int) -> str:
    """Markup that, if a browser ever ran it, sets window.__xss = n."""
    return f'<img src=x onerror="window.__xss={n}">'


LABEL = "<script>window.__xss=1</script>"
HOSTILE_CELL = f"""\
# {payload(2)} a comment
hostile = '<script>window.__xss=3</script>'
y = x.sin()  # {payload(4)}
torch._dynamo.graph_break(msg='{payload(5)}')
z = y.cos() * 2  # {payload(6)}
"""
MARKERS = [f"window.__xss={n}" for n in range(1, 7)]


@pytest.fixture(scope="module")
def hostile(ip):
    """One real profile of the hostile cell (module-scoped: a compile costs seconds here)."""
    ip.user_ns.update(torch=torch, x=torch.ones(4))
    with capture_output() as out:
        result = ip.run_cell(
            f"%%compile_profile {FAST_FLAGS} --no-store -o hostile_run --label '{LABEL}'\n" + HOSTILE_CELL
        )
    assert result.error_in_exec is None, out.stderr
    run = ip.user_ns.pop("hostile_run")
    assert run.status == "ok", run.errors
    return run


@pytest.mark.compiles
def test_the_cells_text_reaches_the_run_verbatim(hostile):
    assert hostile.label == LABEL
    assert all(marker in hostile.cell_source for marker in MARKERS[1:])
    reasons = "".join(b.reason for b in hostile.graph_breaks)
    assert payload(5) in reasons and [b.line for b in hostile.graph_breaks] == [5]
    code = "".join(g.code for g in hostile.graphs if g.kind == "dynamo")
    assert payload(4) in code and payload(6) in code, "Dynamo's graph code quotes the cell lines"


@pytest.mark.compiles
def test_text_view_keeps_the_text(hostile):
    text = render_text(hostile)
    assert payload(5) in text and LABEL in text


def _assert_inert(html: str) -> ParsedHTML:
    parsed = ParsedHTML(html)
    assert parsed.named("img") == [] and parsed.event_handler_attributes() == []
    # figure JSON may quote the text, but only with < written as an escape: nothing can end the script
    assert not any("<" in script for script in parsed.scripts[1:])
    return parsed


@pytest.mark.compiles
def test_static_html_and_the_cell_bundle_show_it_as_text(hostile):
    for html in (render_html(hostile), mime_bundle(hostile)["text/html"]):
        parsed = _assert_inert(html)
        assert parsed.named("script") == []
        assert payload(5) in parsed.text and LABEL in parsed.text  # the break's reason and cell line, the label


def _all_widgets(w):
    yield w
    for child in getattr(w, "children", ()):
        yield from _all_widgets(child)


@pytest.mark.compiles
def test_widget_explorer_shows_it_as_text(hostile):
    ex = hostile.show()
    shown = []
    for picker in (ex.graph_picker, ex.kernel_picker):  # every graph's code is rendered once picked
        for _, value in picker.options:
            picker.value = value
            shown += [w.value for w in _all_widgets(ex) if isinstance(w, widgets.HTML)]
    assert shown
    text = ""
    for value in shown:
        parsed = _assert_inert(value)
        assert parsed.named("script") == []
        text += parsed.text
    assert payload(4) in text and payload(6) in text and payload(5) in text


@pytest.mark.compiles
def test_report_has_only_its_own_two_scripts(hostile):
    parsed = _assert_inert(render_report_html(hostile))
    assert len(parsed.named("script")) == 2
    assert payload(5) in parsed.text and payload(4) in parsed.text and LABEL in parsed.text


@pytest.mark.compiles
@pytest.mark.browser
def test_no_payload_runs_in_a_browser(hostile, tmp_path):
    report = tmp_path / "report.html"
    report.write_text(render_report_html(hostile), encoding="utf-8")
    static = tmp_path / "static.html"
    static.write_text(f"<!doctype html><html><body>{render_html(hostile)}</body></html>", encoding="utf-8")
    # A control page proves the check would see a payload that did run.
    control = tmp_path / "control.html"
    control.write_text(f"<!doctype html><html><body>{payload(9)}</body></html>", encoding="utf-8")
    pages = open_in_chromium([report, static, control], tmp_path)
    assert pages[str(control)]["xss"] == 9
    for page in (report, static):
        seen = pages[str(page)]
        assert seen["xss"] is None and seen["dialogs"] == [] and seen["imgs"] == 0, (page.name, seen)
        assert payload(5) in seen["text"] and LABEL in seen["text"]
    assert pages[str(report)]["scripts"] == 2 and pages[str(static)]["scripts"] == 0


def test_renderers_say_how_many_times_the_cell_ran():
    # A cell that changes state in place changed it this many times: the views must say so.
    run = cuda_run()
    assert run.cell_runs == 153
    assert "the cell ran 153 times" in render_text(run)
    rows = {row[0]: row[1:] for row in ParsedHTML(render_html(run)).rows if row}
    assert rows["cell runs"][0].startswith("153")
