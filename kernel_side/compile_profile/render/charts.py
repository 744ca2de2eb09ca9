"""Plotly figures of a run, as plain JSON dicts: built here once for every consumer.

The JupyterLab renderer and panel, the widget and the HTML report all draw
these same dicts.  They are theme-neutral: transparent backgrounds, an empty
template and no colours, so each frontend applies its light or dark theme.

plotly.js reads a small subset of HTML in text (labels, hover text), so text
taken from user code or the compiler (variant and kernel names, code lines) is
HTML-escaped here; plotly.js turns the entities back into the literal
characters when it draws them.
"""

from __future__ import annotations

import textwrap
from html import escape
from typing import Any

from ..digest.breakdown import TITLE, breakdown, columns
from ..digest.facts import focus_kernels, top_kernels
from ..digest.format import format_ms
from ..digest.inputs import sequence_times, signature_text, variant_bar_text
from ..digest.kernel_times import withheld
from ..digest.lines import line_times
from ..digest.measured import roofline_rows
from ..digest.timeline import CompileTimeline, TimelinePhase, compile_timeline
from ..profile_run import ProfileRun

TOP_CHART_KERNELS = 20

# A plotly figure as plotly's own JSON (``data``, ``layout``), drawn as it is; ``digest.contract.PlotlyFigure``
# declares it for the schema and the panel's TypeScript.
Figure = dict[str, Any]


def _text(s: str) -> str:
    return escape(s, quote=False)


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": _text(title)},
        "template": {},  # an explicit empty template keeps plotly.py from baking in its default colours
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "showlegend": False,
    }
    layout.update(extra)
    return layout


def _empty(title: str, why: str) -> Figure:
    """A figure with no data that says why, so every key of ``figures()`` is always drawable."""
    return {
        "data": [],
        "layout": _layout(
            title,
            height=160,  # a message, not a chart: no need for a chart's height
            xaxis={"visible": False},
            yaxis={"visible": False},
            annotations=[
                {"text": _text(why), "showarrow": False, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}
            ],
        ),
    }


def _unique(labels: list[str]) -> list[str]:
    """Category axes merge equal labels; number repeats so each bar keeps its own."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} [{seen[label]}]")
    return out


# The variants chart's value axis reaches at most this many times the largest median.  A p90 far above the
# median (a stalled sample in a short budget, a busy machine) once set the axis alone: 0.5 ms bars on a 0-54 ms
# axis, a pixel or two high in the card's 220 px chart (issue 31).  A whisker past the axis stops at its top,
# where a marker gives its p90.
WHISKER_CLIP = 3.0


def variants_axis_top(medians_ms: list[float], p90s_ms: list[float]) -> float | None:
    """Where the variants chart's value axis ends, or None where it holds every whisker as plotly autoscales
    it: the highest p90 when it is within ``WHISKER_CLIP`` times the largest median, else that many times the
    largest median (the whiskers above it are clipped, and the chart says so)."""
    if not medians_ms or max(medians_ms) <= 0:
        return None
    top = WHISKER_CLIP * max(medians_ms)
    return top if max(p90s_ms, default=0.0) > top else None


# A bar's label ("1.42× faster [1.39×–1.44×] 95% CI") sits above its whisker's end, not on the bar's top: plotly's
# textposition "outside" drew it at the median, over the p10-p90 whisker (the card's 1.42× label lay across it).
# The axis leaves the label its room above the highest labelled whisker: LABEL_GAP_PX over the cap (clear of a
# clipped whisker's ▲ marker, 10 px high) plus a 12 px line (14 px drawn in Chromium) is 20 px, 15 % of the card's
# 130 px plot (220 px less its margins), the least any view draws it in; LABEL_ROOM keeps 20 %, 26 px there.
LABEL_GAP_PX = 6
LABEL_ROOM = 0.2


def variants_figure(run: ProfileRun) -> Figure:
    if sequence_times(run):
        return sequence_figure(run)
    timed = [(v, v.timing) for v in run.variants if v.timing is not None]
    title = "Median time per variant (bars: p10–p90)"
    if not timed:
        return _empty(title, "no variant was timed")
    texts = [variant_bar_text(run, v) for v, _ in timed]
    names = [_text(v.name) for v, _ in timed]
    top = variants_axis_top([t.median_ms for _, t in timed], [t.p90_ms for _, t in timed])
    ends = [t.p90_ms if top is None else min(t.p90_ms, top) for _, t in timed]  # each whisker's drawn top
    trace = {
        "type": "bar",
        "x": names,
        "y": [t.median_ms for _, t in timed],
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [end - t.median_ms for end, (_, t) in zip(ends, timed)],
            "arrayminus": [t.median_ms - t.p10_ms for _, t in timed],
        },
        "customdata": [[t.p10_ms, t.p90_ms, t.n] for _, t in timed],
        "hovertemplate": "%{x}<br>median %{y:.4g} ms<br>p10 %{customdata[0]:.4g} ms, p90 %{customdata[1]:.4g} ms"
        "<br>n=%{customdata[2]}<extra></extra>",
        "text": texts,  # each bar's label, drawn by the annotations above its whisker
        "textposition": "none",
    }
    # where each bar's marks end: its whisker's top, or the bar's own where a p90 reads below its median
    tops = [max(end, t.median_ms) for end, (_, t) in zip(ends, timed)]
    labels = [
        {
            "x": name,
            "y": mark,
            "text": _text(text),
            "showarrow": False,
            "yanchor": "bottom",
            "yshift": LABEL_GAP_PX,
        }
        for name, mark, text in zip(names, tops, texts)
        if text
    ]
    yaxis: dict[str, Any] = {"title": {"text": "median (ms)"}, "rangemode": "tozero"}
    data: list[dict[str, Any]] = [trace]
    if labels:
        highest = max(label["y"] for label in labels)
        yaxis["range"] = [0, max(highest / (1 - LABEL_ROOM), max(tops) * 1.06)]
    if top is not None:
        clipped = [(name, t) for name, (_, t) in zip(names, timed) if t.p90_ms > top]
        title = "Median time per variant (bars: p10–p90; ▲ a p90 above the axis)"
        yaxis["range"] = [0, max(top * 1.06, yaxis.get("range", [0, 0])[1])]
        data.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [name for name, _ in clipped],
                "y": [top] * len(clipped),
                "marker": {"symbol": "triangle-up", "size": 10},
                "text": [f"p90 {format_ms(t.p90_ms)}" for _, t in clipped],
                "textposition": "middle right",
                "cliponaxis": False,
                "hovertemplate": "%{x}: p90 %{text}, above the axis<extra></extra>",
            }
        )
    return {"data": data, "layout": _layout(title, yaxis=yaxis, annotations=labels)}


def sequence_figure(run: ProfileRun) -> Figure:
    """Over a sequence of inputs, each variant's time over the whole sequence (``digest.inputs.sequence_times``), a
    segment per signature (its median × the calls it served), each bar labelled as the headline words the speedup
    over the sequence: the chart and the headline say the same thing."""
    sequence = run.inputs
    assert sequence is not None
    times = sequence_times(run)
    names = list(times)
    count = sequence.count
    title = f"Time over the sequence of {count} input{'s' if count != 1 else ''} per variant (a segment per signature)"
    traces: list[dict[str, Any]] = []
    for i, signature in enumerate(sequence.signatures):
        calls = len(signature.inputs)
        traces.append(
            {
                "type": "bar",
                "name": _text(signature_text(sequence, i)),
                "x": [_text(n) for n in names],
                "y": [times[n][i] for n in names],
                "customdata": [[calls, times[n][i] / calls if calls else 0.0] for n in names],
                "hovertemplate": "%{x}: %{y:.4g} ms over %{customdata[0]} call(s) of %{fullData.name}"
                "<br>median %{customdata[1]:.4g} ms a call<extra></extra>",
            }
        )
    labels = [
        {
            "x": _text(n),
            "y": sum(times[n]),
            "text": _text(variant_bar_text(run, run.variant(n))),
            "showarrow": False,
            "yanchor": "bottom",
        }
        for n in names
        if n != "eager"
    ]
    return {
        "data": traces,
        "layout": _layout(
            title,
            barmode="stack",
            showlegend=len(sequence.signatures) > 1,
            annotations=labels,
            yaxis={"title": {"text": "time over the sequence (ms)"}, "rangemode": "tozero"},
        ),
    }


def samples_figure(run: ProfileRun) -> Figure:
    sampled = [(v.name, v.timing.samples_ms) for v in run.variants if v.timing is not None and v.timing.samples_ms]
    title = "Timing samples per variant"
    if not sampled:
        return _empty(title, "no timing samples were kept")
    traces = [
        {
            "type": "box",
            "name": _text(name),
            "y": list(samples),
            "boxpoints": "all",
            "jitter": 0.4,
            "pointpos": 0,
            "hovertemplate": "%{y:.4g} ms<extra>%{fullData.name}</extra>",
        }
        for name, samples in sampled
    ]
    return {"data": traces, "layout": _layout(title, yaxis={"title": {"text": "time per call (ms)"}})}


def compile_timeline_figure(timeline: CompileTimeline | None) -> Figure:
    """The digest's compile timeline (``timeline.compile_timeline``): each compile on a row of its own, its phases
    nested as they ran (a deeper span a thinner bar on top of the one that holds it), one colour per part of the
    stack (``timeline.family``); seconds from the first compile."""
    title = "Compile timeline: each compile's phases, nested"
    if timeline is None:
        return _empty(title, "no compile spans were recorded")
    rows = timeline.rows
    several = len({r.variant for r in rows}) > 1
    labels = _unique(
        [
            f"{r.variant + ' ' if several else ''}{r.compile_id}{' (recompile)' if r.when == 'recompile' else ''}"
            for r in rows
        ]
    )
    by_family: dict[str, list[tuple[str, TimelinePhase]]] = {}
    for label, r in zip(labels, rows, strict=True):
        for p in r.phases:
            by_family.setdefault(p.family, []).append((label, p))
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": _text(name),
            "y": [_text(label) for label, _ in phases],
            "base": [p.start_s for _, p in phases],
            "x": [p.duration_s for _, p in phases],
            "width": [max(0.15, 0.8 - 0.16 * p.depth) for _, p in phases],
            "text": [_text(p.name) for _, p in phases],
            "textposition": "none",
            "hovertemplate": "%{text}: %{x:.3g} s (from %{base:.3g} s)<extra>%{fullData.name}</extra>",
        }
        for name, phases in by_family.items()
    ]
    return {
        "data": traces,
        "layout": _layout(
            title,
            # seconds from the first compile's start, said by the ticks: an axis title and the legend under it
            # took the same place in the panel (seen at 1600x1000)
            xaxis={"ticksuffix": " s", "rangemode": "tozero"},
            yaxis={"automargin": True, "autorange": "reversed", "type": "category"},
            barmode="overlay",
            showlegend=True,
            legend={"orientation": "h", "y": -0.12, "yanchor": "top"},
            margin={"l": 60, "r": 20, "t": 40, "b": 80},
            height=min(900, 200 + 34 * len(rows)),
        ),
    }


LEGEND_ENTRY_PX = 21  # a legend entry's height at plotly's default 12 px font
NOTE_WRAP = 100  # characters a line of a chart's note: 100 at plotly's 12 px fit the detail's ~880 px at 1600 px
NOTE_LINE_PX = 16  # the height of a line of annotation text at plotly's default 12 px font
NOTES_GAP_PX = 10


def _notes(texts: list[str], below_axis_px: int) -> tuple[list[dict[str, Any]], int]:
    """Sentences under a chart's plot (why a withheld pass's figures are shares or missing), each wrapped
    (plotly draws an annotation on one line unless it holds ``<br>``), all in one block under the x axis's
    labels (``below_axis_px`` under the plot: its ticks, and its title where it has one), and the bottom margin
    that holds them.  Two notes placed a share of the plot's height apart once overlapped each other and the
    axis labels in the panel's 240 px chart (issue 31)."""
    lines = [_text(part) for text in texts for part in textwrap.wrap(text, NOTE_WRAP)]
    if not lines:
        return [], 0
    note = {
        "text": "<br>".join(lines),
        "showarrow": False,
        "xref": "paper",
        "yref": "paper",
        "x": 0,
        "y": 0,
        "yshift": -below_axis_px,
        "xanchor": "left",
        "yanchor": "top",
        "align": "left",
    }
    return [note], below_axis_px + NOTE_LINE_PX * len(lines) + NOTES_GAP_PX


def _with_notes(layout: dict[str, Any], texts: list[str], below_axis_px: int, plot_px: int) -> None:
    """Put ``texts`` under the plot of ``layout``, its bottom margin and height grown to hold them under a plot
    area of ``plot_px`` (a frontend that sets a chart's height keeps the figure's where it is larger)."""
    annotations, margin = _notes(texts, below_axis_px)
    if not annotations:
        return
    layout["annotations"] = annotations
    layout["margin"] = {**layout["margin"], "b": margin}
    layout["height"] = max(layout.get("height", 0), plot_px + layout["margin"]["t"] + margin)


def kernels_figure(run: ProfileRun, top: int = TOP_CHART_KERNELS) -> Figure:
    """The focus variant's kernels, most time first; where its pass is withheld (``digest.kernel_times``),
    each kernel's share of the pass's time instead, with the reason under the plot."""
    variant, kernels = focus_kernels(run)
    judged = withheld(run).get(variant)
    timed = [k for k in top_kernels(kernels, len(kernels)) if k.device_time_ms is not None][:top]
    what = "Share of the profiler pass per kernel" if judged else "Device time per kernel"
    title = f"{what} (top {top})" if len(timed) == top else what
    title += f", {variant}" if variant else ""
    if not timed:
        return _empty(title, "no kernel device times were recorded")
    if judged:
        timed = [k for k in timed if k.share is not None]
    labels = _unique([_text(k.name) for k in timed])  # numbered in rank order: the slowest keeps the bare name
    timed.reverse()  # plotly draws the last bar on top
    labels.reverse()
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [k.share * 100 for k in timed if k.share is not None] if judged else [k.device_time_ms for k in timed],
        "text": [f"{k.share * 100:.1f}%" if k.share is not None else "" for k in timed],
        "textposition": "auto",
        "customdata": [[_text(k.language), _text(", ".join(map(str, k.lines)))] for k in timed],
        "hovertemplate": ("%{y}<br>%{x:.3g}% of the pass" if judged else "%{y}<br>%{x:.4g} ms")
        + " (%{customdata[0]})<br>cell lines %{customdata[1]}<extra></extra>",
    }
    height = 120 + 22 * len(timed)
    axis = "% of the profiler pass's kernel time" if judged else "device time (ms)"
    layout = _layout(title, xaxis={"title": {"text": axis}}, yaxis={"automargin": True}, height=height)
    if judged:
        _with_notes(layout, [judged.text], below_axis_px=45, plot_px=22 * len(timed) + 40)
    return {"data": [trace], "layout": layout}


def lines_figure(run: ProfileRun) -> Figure:
    """Time per cell line, a bar per variant with kernels (eager's first, when it has line times):
    ``digest.lines``, the rule the panel's table shows.  With any time measured, a variant with none is left out."""
    lt = line_times(run)
    rows = [r for r in lt.rows if r.kernels or r.eager_ops]
    if not rows:
        return _empty("Kernels per cell line", "no kernel was traced back to a cell line")
    timed_variants = [v for v in lt.variants if any(r.time_ms.get(v) is not None for r in rows)]
    timed = bool(timed_variants)
    traces = []
    for variant in timed_variants if timed else lt.variants:
        counts = [len(r.kernels.get(variant, [])) for r in rows]
        if variant == "eager":
            hover = (
                "%{x}: %{y:.4g} ms of eager kernels from %{customdata[0]} ops (each op counted on the line "
                "running when it was called)<br>%{customdata[2]}<extra></extra>"
            )
        elif timed:
            hover = (
                "%{x}: %{y:.4g} ms from %{customdata[0]} kernels (%{customdata[1]} shared with "
                "other lines, split evenly) and %{customdata[3]} ops run outside compiled graphs"
                "<br>%{customdata[2]}<extra></extra>"
            )
        else:
            hover = "%{x}: %{customdata[0]} kernels<br>%{customdata[2]}<extra></extra>"
        traces.append(
            {
                "type": "bar",
                "name": _text(variant or "kernels"),
                "x": [f"line {r.line}" for r in rows],
                "y": [r.time_ms.get(variant) or 0.0 for r in rows] if timed else counts,
                "customdata": [
                    [n, r.shared.get(variant, 0), _text(r.code), len(r.eager_ops.get(variant, []))]
                    for n, r in zip(counts, rows)
                ],
                "hovertemplate": hover,
            }
        )
    host = run.device.type == "cpu"
    title = ("Host time per cell line" if host else "Device time per cell line") if timed else "Kernels per cell line"
    axis = ("host time (ms)" if host else "device time (ms)") if timed else "kernels"
    layout = _layout(
        title,
        yaxis={"title": {"text": axis}},
        xaxis={"type": "category"},
        barmode="group",
        # the drawn variant is named where another is left out: one bar colour alone does not say whose it is
        showlegend=len(traces) > 1 or bool(lt.chart_note),
    )
    if lt.chart_note:  # a withheld pass's lines have no time to draw: its variant is left out, which is said here
        _with_notes(layout, [lt.chart_note], below_axis_px=30, plot_px=150)
    return {"data": traces, "layout": layout}


def breakdown_figure(run: ProfileRun) -> Figure:
    """Where a call's time goes: a stacked bar per variant (``digest.breakdown``), the parts in the table's order.

    The parts are the table's columns (``digest.breakdown.columns``: collectives only where a call spent time
    in them).  Every part is a trace even where it is 0, and each trace names its part in ``meta.part``, so
    the frontend gives a part the same colour in a light and a dark theme and from run to run, whether or
    not the run has collectives.
    """
    rows = breakdown(run)
    title = TITLE
    if not rows:
        return _empty(title, "no call breakdown was measured")
    rows = list(reversed(rows))  # plotly draws the first category at the bottom: eager on top
    labels = _unique([_text(r.variant) for r in rows])
    traces = []
    for key, heading in columns(rows):
        if key == "call":
            continue
        values = [r.part(key) if r.trusted else 0.0 for r in rows]  # a withheld row's parts are not its call's
        traces.append(
            {
                "type": "bar",
                "meta": {"part": key},
                "orientation": "h",
                "name": _text(heading),
                "y": labels,
                "x": values,
                "customdata": [[format_ms(ms), format_ms(r.median_ms)] for ms, r in zip(values, rows)],
                "hovertemplate": "%{y}: %{fullData.name} %{customdata[0]} of a %{customdata[1]} call<extra></extra>",
            }
        )
    untrusted = [r for r in rows if not r.trusted]
    if untrusted:  # the timed call alone, its parts withheld (``digest.kernel_times``)
        traces.append(
            {
                "type": "bar",
                "meta": {"part": "withheld"},
                "orientation": "h",
                "name": "call, parts withheld",
                "y": labels,
                "x": [0.0 if r.trusted else r.median_ms for r in rows],
                "customdata": [[format_ms(r.median_ms), _text(r.withheld_text)] for r in rows],
                "hovertemplate": "%{y}: a %{customdata[0]} call<br>%{customdata[1]}<extra></extra>",
            }
        )
    unit = "host time per call (ms)" if all(r.method == "host" for r in rows) else "time per call (ms)"
    # the legend lies beside the plot and scrolls past its height: 6 parts (a withheld call's too) under two
    # bars' 80 px hid "outside kernels" and "call, parts withheld" (seen at 1600x1000)
    plot_px = max(40 * len(rows), LEGEND_ENTRY_PX * len(traces))
    layout = _layout(
        title,
        barmode="stack",
        showlegend=True,
        height=140 + plot_px,
        xaxis={"title": {"text": unit}, "rangemode": "tozero"},
        yaxis={"automargin": True},
        legend={"traceorder": "normal"},
    )
    if untrusted:
        # under the axis's ticks and its title: 45 px put the note's first line on the title
        _with_notes(layout, [r.withheld_text for r in reversed(untrusted)], below_axis_px=60, plot_px=plot_px)
    return {"data": traces, "layout": layout}


def roofline_figure(run: ProfileRun) -> Figure:
    """Each top kernel's share of the ceiling it comes closest to (``digest.measured``: the copy peak or the
    bf16 matmul peak), a horizontal bar per kernel, most device time on top; the hover gives its rates."""
    bounded = [(r, bound) for r in roofline_rows(run) if (bound := r.bound()) is not None]
    title = "Share of the device peak per kernel"
    if not bounded:
        return _empty(title, "no kernel's rate was measured against a device peak")
    rows = [r for r, _ in bounded]
    several = len({r.variant for r in rows}) > 1
    labels = _unique([_text(r.name + (f" ({r.variant})" if several and r.variant else "")) for r in rows])
    bounded, rows, labels = bounded[::-1], rows[::-1], labels[::-1]  # plotly draws the last bar on top
    trace = {
        "type": "bar",
        "orientation": "h",
        "y": labels,
        "x": [share * 100 for _, (_, share) in bounded],
        "text": [_text(peak) for _, (peak, _) in bounded],
        "textposition": "auto",
        "customdata": [[_text(r.text)] for r in rows],
        "hovertemplate": "%{y}<br>%{customdata[0]}<extra></extra>",
    }
    return {
        "data": [trace],
        "layout": _layout(
            title,
            xaxis={"title": {"text": "% of the closer device peak"}, "range": [0, 100]},
            yaxis={"automargin": True},
            height=120 + 22 * len(rows),
        ),
    }


# The figures the report's and the widget's Overview draw, in order.
OVERVIEW_FIGURES = ("variants", "breakdown", "samples", "compile_timeline", "lines")


# the overview's charts of timed calls, which a run read from a TORCH_TRACE has none of (it drew two empty ones)
TIMING_FIGURES = frozenset({"variants", "breakdown", "samples", "lines"})


def overview_figures(run: ProfileRun) -> list[str]:
    """``OVERVIEW_FIGURES`` this run has something for: a run profiled before the call breakdown has none, and a
    run read from a TORCH_TRACE no timing chart."""
    return [
        name
        for name in OVERVIEW_FIGURES
        if (name != "breakdown" or breakdown(run)) and not (run.untimed and name in TIMING_FIGURES)
    ]


def figures(run: ProfileRun, timeline: CompileTimeline | None = None) -> dict[str, Figure]:
    """Every figure of the run; ``timeline`` is the digest's compile timeline where the caller already holds it
    (the report's table shows the same rows), derived here once otherwise."""
    return {
        "variants": variants_figure(run),
        "samples": samples_figure(run),
        "compile_timeline": compile_timeline_figure(timeline if timeline is not None else compile_timeline(run)),
        "kernels": kernels_figure(run),
        "lines": lines_figure(run),
        "breakdown": breakdown_figure(run),
        "roofline": roofline_figure(run),
    }
