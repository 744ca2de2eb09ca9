"""The ipywidgets explorer, driven from Python the way a user's clicks drive it."""

from __future__ import annotations

import json

import ipywidgets as widgets
import pytest
from compile_profile.render.charts import OVERVIEW_FIGURES, figures
from compile_profile.render.highlight import highlight_code
from compile_profile.render.html import render_html
from compile_profile.render.widget import RunExplorer, explorer
from render_fixtures import HOSTILE, ParsedHTML, big_run, cpu_run, cuda_run, hostile_run


def _all_widgets(w: widgets.Widget):
    yield w
    for child in getattr(w, "children", ()):
        yield from _all_widgets(child)


def _html_values(w: widgets.Widget) -> list[str]:
    return [x.value for x in _all_widgets(w) if isinstance(x, widgets.HTML)]


def test_explorer_tabs_and_overview():
    run = cuda_run()
    ex = run.show()
    assert isinstance(ex, widgets.Tab) and isinstance(ex, RunExplorer)
    assert ex.titles == ("Overview", "Graph breaks (1)", "Graphs (3)", "Kernels (3)", "Compare")
    assert ex.overview.children[0].value == render_html(run)


def test_overview_figures_are_the_shared_figures():
    run = cuda_run()
    ex = explorer(run)
    shown = []
    for child in ex.overview.children[1:]:
        if isinstance(child, widgets.Output):
            (output,) = child.outputs
            shown.append(output["data"]["application/vnd.plotly.v1+json"])
        else:  # a plotly FigureWidget, where anywidget is installed
            shown.append(child.to_plotly_json())
    expected = figures(run)
    assert [fig["data"] for fig in shown] == [expected[name]["data"] for name in OVERVIEW_FIGURES]


def test_kernel_picker_shows_the_picked_kernels_source():
    run = cuda_run()
    ex = explorer(run)
    slowest_first = sorted(run.kernels, key=lambda k: -k.device_time_ms)
    assert [label.split(" · ")[0] for label, _ in ex.kernel_picker.options] == [
        f"#{i} {k.name}" for i, k in enumerate(slowest_first)
    ]
    assert ex.kernel_source.value == highlight_code(
        slowest_first[0].source, slowest_first[0].language, inline_styles=True
    )
    ex.kernel_picker.value = 2
    assert ex.kernel_source.value == highlight_code(slowest_first[2].source, "triton", inline_styles=True)
    assert "triton_per_fused__softmax_mul_1" in ex.kernel_info.value and "cell lines 6" in ex.kernel_info.value


def test_graph_picker_shows_the_picked_graph():
    run = cuda_run()
    ex = explorer(run)
    ex.graph_picker.value = 1
    assert ex.graph_code.value == highlight_code(run.graphs[1].code, "python", inline_styles=True)
    assert "softmax" in ex.graph_code.value


def test_compare_tab_gives_deltas_against_the_picked_run():
    run, slower = cuda_run(), cuda_run()
    slower.id, slower.label = "slower000001", "before the fix"
    t = slower.variants[1].timing
    t.median_ms, t.p10_ms, t.p90_ms = t.median_ms * 2, t.p10_ms * 2, t.p90_ms * 2  # beyond both spreads
    slower.graph_breaks = slower.graph_breaks * 3
    ex = explorer(run, compare_with=[cpu_run(), slower])
    assert ex.compare_picker.options[1][0].startswith("before the fix")
    ex.compare_picker.value = 1
    # A is the picked run (before), B this one (after), as every comparing view orders them.
    rows = {r[0]: r for r in ParsedHTML(ex.compare_table.value).rows}
    assert rows["inductor/default median"][3] == "-50.0%"
    assert rows["graph breaks"][1:] == ["3", "1", "-2"]  # counts change by their difference
    assert rows["eager median"][3] == "within noise (+0.0%)"  # the same spread: no change to call one


def test_compare_without_other_runs_says_how():
    ex = explorer(cuda_run())
    assert ex.compare_picker.disabled and ex.compare_picker.value is None
    assert "compare_with" in ex.compare_table.value


def test_hostile_text_is_escaped_in_every_html_widget():
    run = hostile_run()
    ex = explorer(run, compare_with=[hostile_run()])
    # Show the hostile kernel, whose name and source carry the markup.
    ex.kernel_picker.value = next(v for label, v in ex.kernel_picker.options if HOSTILE in label)
    values = _html_values(ex)
    assert any("&lt;script&gt;alert(1)&lt;/script&gt;" in v for v in values)
    text = "".join(ParsedHTML(v).text for v in values)
    assert text.count(HOSTILE) >= 4
    for value in values:
        parsed = ParsedHTML(value)
        assert parsed.named("script") == [] and parsed.named("img") == [], value[:200]
        assert parsed.event_handler_attributes() == []
    outputs = json.dumps([o.outputs for o in _all_widgets(ex) if isinstance(o, widgets.Output)])
    assert HOSTILE not in outputs


@pytest.mark.parametrize("make", [cpu_run, big_run])
def test_explorer_builds_for_cpu_and_large_runs(make):
    run = make()
    ex = explorer(run)
    assert len(ex.kernel_picker.options) == len(run.kernels)
    # Only the picked kernel's source is rendered, whatever the number of kernels.
    assert sum(len(v) for v in _html_values(ex)) < 200_000
