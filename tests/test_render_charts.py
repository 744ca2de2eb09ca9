"""charts.figures: one set of plotly figures for every consumer; numbers from the run, theme-neutral, valid."""

from __future__ import annotations

import json
from html import escape

import plotly.graph_objects as go
import pytest
from compile_profile.digest.kernel_times import withheld
from compile_profile.render.charts import (
    LABEL_GAP_PX,
    LABEL_ROOM,
    NOTE_LINE_PX,
    NOTE_WRAP,
    TOP_CHART_KERNELS,
    WHISKER_CLIP,
    figures,
    variants_axis_top,
)
from render_fixtures import (
    ALL_RUNS,
    HOSTILE,
    big_run,
    cpu_run,
    cuda_run,
    failed_run,
    hostile_run,
    long_tail_run,
    withheld_passes_run,
    without_breakdown,
)

FIGURE_NAMES = {"variants", "samples", "compile_timeline", "kernels", "lines", "breakdown", "roofline"}


def _keys(tree, path=""):
    """Every (path, key, value) in a JSON tree."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield path, k, v
            yield from _keys(v, f"{path}.{k}")
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from _keys(v, f"{path}[{i}]")


@pytest.mark.parametrize("name", sorted(ALL_RUNS))
def test_every_figure_is_valid_plotly_and_plain_json(name):
    figs = figures(ALL_RUNS[name]())
    assert set(figs) == FIGURE_NAMES
    for fig in figs.values():
        go.Figure(fig)  # raises on any property plotly does not know or a value of the wrong type
        json.dumps(fig, allow_nan=False)


@pytest.mark.parametrize("name", sorted(ALL_RUNS))
def test_figures_are_theme_neutral(name):
    for fig in figures(ALL_RUNS[name]()).values():
        layout = fig["layout"]
        assert layout["template"] == {}
        assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "rgba(0,0,0,0)"
        colours = [
            (p, k) for p, k, _ in _keys(fig) if "color" in k.lower() and k not in ("paper_bgcolor", "plot_bgcolor")
        ]
        assert colours == []


def test_variants_bars_are_medians_with_p10_p90_error_bars_and_speedup_text():
    run = cuda_run()
    (bar,) = figures(run)["variants"]["data"]
    assert bar["x"] == [v.name for v in run.variants]
    assert bar["y"] == [v.timing.median_ms for v in run.variants]
    assert bar["error_y"]["array"] == pytest.approx([v.timing.p90_ms - v.timing.median_ms for v in run.variants])
    assert bar["error_y"]["arrayminus"] == pytest.approx([v.timing.median_ms - v.timing.p10_ms for v in run.variants])
    assert bar["customdata"] == [[v.timing.p10_ms, v.timing.p90_ms, v.timing.n] for v in run.variants]
    ratio = run.eager.timing.median_ms / run.variant("inductor/default").timing.median_ms
    # each ratio in the headline's words (issue 23: one form of the speedup everywhere)
    assert bar["text"] == ["", f"{ratio:.2f}× faster", "2.71× faster [2.60×–2.83×] 95% CI"]


def test_each_bar_label_sits_above_its_whisker_in_room_the_axis_leaves_it():
    # plotly's textposition "outside" put "1.42× faster [1.39×–1.44×] 95% CI" at the bar's top, across its whisker
    run = cuda_run()
    fig = figures(run)["variants"]
    (bar,) = fig["data"]
    assert bar["textposition"] == "none"  # the bar draws no text of its own
    labels = fig["layout"]["annotations"]
    compiled = [v for v in run.variants if v.name != "eager"]
    assert [a["x"] for a in labels] == [v.name for v in compiled]  # eager's bar has no label
    assert [a["text"] for a in labels] == [t for t in bar["text"] if t]
    high = fig["layout"]["yaxis"]["range"][1]
    for a, v in zip(labels, compiled):
        # its bottom above the whisker's top (the p90), by a gap; the axis goes on past it by the label's room
        assert a["y"] == pytest.approx(v.timing.p90_ms) and a["yanchor"] == "bottom" and not a["showarrow"]
        assert a["yshift"] == LABEL_GAP_PX >= 6  # clear of a clipped whisker's ▲ (10 px high, on the whisker's top)
        assert (high - a["y"]) / high >= LABEL_ROOM - 1e-9
    assert high >= max(v.timing.p90_ms for v in run.variants)  # every whisker whole
    # a p90 that reads below its median (a hand-edited run): the label on the bar's top, not inside the bar
    fast = run.variant("inductor/max-autotune").timing
    fast.p90_ms = fast.median_ms * 0.9
    label = figures(run)["variants"]["layout"]["annotations"][1]
    assert label["y"] == fast.median_ms


def test_untimed_variants_are_left_out_and_nothing_timed_is_an_empty_figure():
    run = failed_run()
    (bar,) = figures(run)["variants"]["data"]
    assert bar["x"] == ["eager"]
    run.variants[0].timing = None
    fig = figures(run)["variants"]
    assert fig["data"] == [] and fig["layout"]["annotations"][0]["text"] == "no variant was timed"


def test_samples_are_every_kept_sample_per_variant():
    run = cuda_run()
    traces = figures(run)["samples"]["data"]
    assert [t["name"] for t in traces] == [v.name for v in run.variants]
    for trace, v in zip(traces, run.variants):
        assert trace["type"] == "box" and trace["y"] == v.timing.samples_ms and trace["boxpoints"] == "all"


def test_compile_timeline_puts_each_compile_on_a_row_with_its_phases_nested():
    run = cuda_run()
    fig = figures(run)["compile_timeline"]
    bars = {
        (label, name): (base, x, width)
        for t in fig["data"]
        for label, name, base, x, width in zip(t["y"], t["text"], t["base"], t["x"], t["width"], strict=True)
    }
    # seconds from the first compile's start; a deeper span a thinner bar drawn over the one holding it
    assert bars[("0/0", "dynamo")] == (0.0, 10.0, 0.8)
    base, x, width = bars[("0/0", "backend_compile")]
    assert base == pytest.approx(0.8) and x == 9.0 and width < 0.8
    assert bars[("0/0", "code_gen")][2] < bars[("0/0", "inductor_compile")][2] < width
    assert bars[("1/0", "dynamo")][0] == pytest.approx(10.2)
    # a span under 1% of its compile is left out; one trace per part of the stack, so the legend names them
    assert ("0/0", "pass.post_grad_passes.tiny") not in bars
    names = [t["name"] for t in fig["data"]]
    assert {"whole compile", "AOTAutograd", "Inductor", "Dynamo"} <= set(names) and len(names) == len(set(names))
    assert fig["layout"]["barmode"] == "overlay" and fig["layout"]["yaxis"]["autorange"] == "reversed"


def test_a_run_without_compile_spans_says_so_in_the_timeline():
    fig = figures(cpu_run())["compile_timeline"]
    assert fig["data"] == [] and "no compile spans" in fig["layout"]["annotations"][0]["text"]


def test_kernels_chart_has_the_top_kernels_by_device_time():
    run = big_run(1000)
    (bar,) = figures(run)["kernels"]["data"]
    slowest = sorted(run.kernels, key=lambda k: -k.device_time_ms)[:TOP_CHART_KERNELS]
    assert len(bar["x"]) == TOP_CHART_KERNELS
    assert bar["x"] == [k.device_time_ms for k in reversed(slowest)]
    assert bar["y"] == [k.name for k in reversed(slowest)]


def test_kernels_chart_shares_and_repeated_names():
    run = cuda_run()
    run.kernels[2].name = run.kernels[0].name
    (bar,) = figures(run)["kernels"]["data"]
    # Equal names would share one category; the repeat is numbered instead.
    assert bar["y"] == ["triton_poi_fused_add_relu_0 [2]", "triton_poi_fused_add_relu_0", "extern_kernels.mm"]
    assert bar["x"] == [0.15, 0.42, 1.05]
    assert bar["text"] == ["9.3%", "25.9%", "64.8%"]


def test_cpu_run_without_device_times_has_an_empty_kernels_chart_and_counts_per_line():
    figs = figures(without_breakdown(cpu_run()))  # no eager line times either
    assert figs["kernels"]["data"] == [] and figs["kernels"]["layout"]["height"] == 160
    assert figs["kernels"]["layout"]["annotations"][0]["text"] == "no kernel device times were recorded"
    (bar,) = figs["lines"]["data"]
    assert bar["x"] == ["line 4"] and bar["y"] == [2]
    # kernels, of them shared, code, ops run outside compiled graphs
    assert bar["customdata"] == [[2, 0, "y = torch.relu(x @ w) + 1", 0]]


def _trace(fig, name):
    (trace,) = [t for t in fig["data"] if t["name"] == name]
    return trace


def test_lines_chart_sums_device_time_of_each_lines_kernels():
    (bar,) = figures(without_breakdown(cuda_run()))["lines"]["data"]
    assert bar["x"] == ["line 4", "line 6"]
    assert bar["y"] == pytest.approx([0.42 + 1.05, 0.15])
    assert [c[0] for c in bar["customdata"]] == [2, 1]


def test_lines_chart_has_a_bar_per_variant_the_speedups_first_and_kernels_chart_one_variant():
    run = cuda_run()  # its kernels are inductor/default's
    autotune_kernels = cuda_run().kernels
    for k in autotune_kernels:
        k.variant = "inductor/max-autotune"
        k.device_time_ms = 10.0
    run.kernels += autotune_kernels
    figs = figures(run)
    eager, autotune, default = figs["lines"]["data"]
    # Eager's line times come first, then the speedup's variant (max-autotune); no variant's time is summed
    # into another's.
    assert eager["name"] == "eager" and eager["y"] == pytest.approx([0.03125, 0.03125, 2.25, 0.15625, 1.0703125])
    run.variants[0].kernel_profile.eager_lines = []
    autotune, default = figures(run)["lines"]["data"]
    assert autotune["name"] == "inductor/max-autotune" and autotune["y"] == pytest.approx([20.0, 10.0])
    assert default["name"] == "inductor/default" and default["y"] == pytest.approx([0.42 + 1.05, 0.15])
    assert figs["lines"]["layout"]["barmode"] == "group"
    assert figs["kernels"]["data"][0]["x"] == [10.0, 10.0, 10.0]


def test_lines_chart_splits_a_fused_kernel_evenly_over_its_lines():
    run = without_breakdown(cuda_run())
    run.kernels[0].lines = [4, 6]  # 0.42 ms over two lines
    (bar,) = figures(run)["lines"]["data"]
    assert bar["y"] == pytest.approx([0.21 + 1.05, 0.15 + 0.21])
    assert sum(bar["y"]) == pytest.approx(sum(k.device_time_ms for k in run.kernels))
    assert [c[1] for c in bar["customdata"]] == [1, 1]


def test_user_text_is_escaped_for_plotly_labels():
    run = hostile_run()
    text = json.dumps(figures(run))
    assert HOSTILE not in text
    (bar,) = figures(run)["kernels"]["data"]
    assert escape(f"triton_{HOSTILE}", quote=False) in bar["y"]
    run.kernels[0].lines = [5]
    (lines,) = figures(without_breakdown(run))["lines"]["data"]
    assert lines["x"] == ["line 4", "line 5", "line 6"]
    assert lines["customdata"][1] == [1, 0, escape(f"print('{HOSTILE}')", quote=False), 0]


def _sequence_run():
    """cpu_run over three inputs of two signatures: the representative one 1.30× faster, the other 2× slower and
    compiling nothing of its own (its input's guards passed), the sequence 1.25× slower."""
    from compile_profile.profile_run import Correctness, InputCall, InputSequence, InputSignature, Speedup, Timing

    run = cpu_run()
    run.correctness = Correctness(ok=True, max_abs_diff=1e-7, compared=["y"])
    best = run.speedup.variant

    def timed(ms: float) -> Timing:
        return Timing(median_ms=ms, p10_ms=ms * 0.9, p90_ms=ms * 1.1, n=8)

    run.inputs = InputSequence(
        count=3,
        signatures=[
            InputSignature(
                parts=["x: (8, 4) float32"],
                inputs=[0, 2],
                timings={"eager": timed(1.3), best: timed(1.0)},
                speedup=Speedup(value=1.30, low=1.20, high=1.40, variant=best),
            ),
            InputSignature(
                parts=["x: (16, 4) float32"],
                inputs=[1],
                timings={"eager": timed(2.0), best: timed(4.0)},
                speedup=Speedup(value=0.5, low=0.4, high=0.6, variant=best),
            ),
        ],
        calls=[
            InputCall(index=0, signature=0, compile_s={best: 0.8}),
            InputCall(index=1, signature=1),
            InputCall(index=2, signature=0),
        ],
    )
    run.speedup = Speedup(value=(2 * 1.3 + 2.0) / (2 * 1.0 + 4.0), low=0.70, high=0.90, variant=best)
    return run


def test_over_a_sequence_of_inputs_the_chart_draws_the_sequence_the_headline_words():
    """The card drew the representative signature's bars ("6.19× faster") beside a headline that said "1.09× slower
    over 10 inputs": now each variant's bar is its time over the whole sequence, a segment per signature, labelled
    with the sequence's speedup in the headline's words."""
    from compile_profile.digest.inputs import inputs_summary, variant_bar_text
    from compile_profile.digest.summary import headline

    run = _sequence_run()
    best = run.speedup.variant
    figure = figures(run)["variants"]
    small, large = figure["data"]
    assert (small["name"], large["name"]) == ("x: (8, 4) float32", "x: (16, 4) float32")
    assert small["x"] == large["x"] == ["eager", best] and figure["layout"]["barmode"] == "stack"
    assert small["y"] == pytest.approx([2 * 1.3, 2 * 1.0]) and large["y"] == pytest.approx([2.0, 4.0])
    eager_total, compiled_total = (a + b for a, b in zip(small["y"], large["y"]))
    assert eager_total / compiled_total == pytest.approx(run.speedup.value)  # what the headline's figure is
    (label,) = figure["layout"]["annotations"]
    assert label["x"] == best and label["y"] == pytest.approx(compiled_total)
    assert (
        label["text"] == variant_bar_text(run, run.variant(best)) == "1.30× slower [1.11×–1.43×] 95% CI over 3 inputs"
    )
    assert headline(run).startswith(f"{best} 1.30× slower over 3 inputs")
    # the signature whose input compiled nothing shows no compile time, not "0 ns"
    rows = inputs_summary(run).rows
    assert [r.compile_time for r in rows] == ["800 ms", "—"]


@pytest.mark.parametrize("make", [long_tail_run, withheld_passes_run])
def test_the_long_tail_and_withheld_figures_are_valid_plotly_and_theme_neutral(make):
    for fig in figures(make()).values():
        go.Figure(fig)
        json.dumps(fig, allow_nan=False)
        assert not [k for _, k, _ in _keys(fig) if "color" in k.lower() and k not in ("paper_bgcolor", "plot_bgcolor")]


def test_the_variants_axis_holds_every_whisker_where_the_p90s_are_near_the_medians():
    assert variants_axis_top([0.5, 0.4], [0.6, 1.4]) is None  # within 3x the largest median
    assert variants_axis_top([], []) is None and variants_axis_top([0.0], [5.0]) is None
    run = cuda_run()
    fig = figures(run)["variants"]
    (bar,) = fig["data"]  # no ▲ marker: no whisker clipped
    assert [m + up for m, up in zip(bar["y"], bar["error_y"]["array"])] == pytest.approx(
        [v.timing.p90_ms for v in run.variants]
    )
    assert fig["layout"]["yaxis"]["range"][1] >= max(v.timing.p90_ms for v in run.variants)
    assert fig["layout"]["title"]["text"] == "Median time per variant (bars: p10–p90)"


def test_a_p90_far_above_the_medians_ends_the_axis_at_three_medians_its_whisker_clipped_under_a_marker():
    assert variants_axis_top([0.52, 0.41], [54.0, 0.5]) == pytest.approx(WHISKER_CLIP * 0.52)
    run = long_tail_run()
    eager, compiled = (v.timing for v in run.variants)
    assert eager.p90_ms / eager.median_ms > 50 and compiled.p90_ms / compiled.median_ms > 30  # as seen
    fig = figures(run)["variants"]
    bar, marker = fig["data"]
    top = WHISKER_CLIP * eager.median_ms
    low, high = fig["layout"]["yaxis"]["range"]
    # the medians fill a fifth of the axis or more, not a pixel of a 0-54 ms one; above the clipped whiskers, the
    # room of the compiled bar's label (above its ▲)
    assert low == 0 and top <= high <= top / (1 - LABEL_ROOM) + 1e-9 and min(bar["y"]) / high > 0.2
    # each whisker stops at the axis's top; the hover keeps the p90 as measured
    assert [m + up for m, up in zip(bar["y"], bar["error_y"]["array"])] == pytest.approx([top, top])
    assert [c[1] for c in bar["customdata"]] == [eager.p90_ms, compiled.p90_ms]
    # a marker at the top of each clipped whisker gives its p90, and the title says what the marker means
    assert marker["type"] == "scatter" and marker["marker"]["symbol"] == "triangle-up"
    assert marker["x"] == ["eager", "inductor/default"] and marker["y"] == pytest.approx([top, top])
    assert eager.p90_ms == pytest.approx(54.0) and marker["text"] == ["p90 54 ms", "p90 16 ms"]
    assert "▲ a p90 above the axis" in fig["layout"]["title"]["text"]


def test_a_clipped_axis_leaves_a_whisker_within_it_whole():
    run = long_tail_run()
    compiled = run.variants[1].timing
    compiled.p90_ms = compiled.median_ms * 1.5
    bar, marker = figures(run)["variants"]["data"]
    assert bar["error_y"]["array"][1] == pytest.approx(compiled.p90_ms - compiled.median_ms)
    assert marker["x"] == ["eager"]


def test_the_lines_chart_names_the_variant_it_draws_and_in_one_note_the_withheld_ones_it_leaves_out():
    # it drew one variant's bars with no legend, and under them repeated both withheld passes' whole reasons,
    # which the panel shows again under the table
    run = withheld_passes_run()
    assert len(withheld(run)) == 2
    layout = figures(run)["lines"]["layout"]
    (block,) = layout["annotations"]
    lines = block["text"].split("<br>")
    joined = " ".join(lines)
    assert joined.startswith("eager and inductor/default not drawn: their profiler passes are withheld")
    assert "under the table" in joined and "waited for a CPU" not in joined  # the reasons are said once, elsewhere
    assert all(len(line) <= NOTE_WRAP for line in lines)
    assert layout["showlegend"] is True
    drawn = [t["name"] for t in figures(run)["lines"]["data"]]
    assert drawn and not set(drawn) & set(withheld(run))
    # under the plot, below the x axis's tick labels, and inside a margin that holds every line
    assert block["yref"] == "paper" and block["y"] == 0 and block["yanchor"] == "top" and block["yshift"] <= -30
    assert layout["margin"]["b"] >= -block["yshift"] + NOTE_LINE_PX * len(lines)
    assert layout["height"] - layout["margin"]["t"] - layout["margin"]["b"] >= 150


def test_the_breakdown_and_kernels_notes_are_one_block_in_a_margin_that_holds_them():
    run = withheld_passes_run()
    for name in ("breakdown", "kernels"):
        layout = figures(run)[name]["layout"]
        (block,) = layout["annotations"]
        lines = block["text"].split("<br>")
        assert layout["margin"]["b"] >= -block["yshift"] + NOTE_LINE_PX * len(lines), name
