"""A suite's plotly figures, as plain JSON dicts built from its digest: the panel, the notebook's card and the HTML
report draw these same dicts (``render/charts.py`` does the same for a run).

``speedup``: the release blog's chart for this machine: one bar per entry, sorted by speedup, coloured by status
(``digest.STATUSES``' colours, readable on the light and the dark theme), the 1× line and the geometric mean
marked; an entry without a speedup (a failure) stands at the left with its status for a label.  ``compile``:
compile time against speedup, one point per entry that compiled, named beside it (on hover past eight points).
Text from the collection (entry names) is HTML-escaped, as plotly reads a subset of HTML in labels.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..digest.format import ratio_phrase
from .digest import SuiteDigest, SuiteRow

Figure = dict[str, Any]
BAR_PX = 34  # height per entry of a horizontal bar: names stay readable at 1600 px with both sidebars open


def _layout(title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": escape(title, quote=False)},
        "template": {},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "margin": {"l": 200, "r": 30, "t": 50, "b": 50},
        "showlegend": False,
    }
    layout.update(extra)
    return layout


def _bar_text(speedup: float) -> str:
    """``4.13× faster`` beside a bar that ends at 4.13, ``1.25× slower`` beside one at 0.8: the headline's words for
    every bar and the geomean's mark (a chart once read "geomean 0.97×" under "compiled is 1.03× slower", and
    "1.24×" beside "1.36× slower")."""
    return ratio_phrase(speedup)


def _hover(r: SuiteRow) -> str:
    lines = [f"<b>{escape(r.name, quote=False)}</b>", escape(r.status_label, quote=False), r.speedup_text]
    if r.compile_text != "—":
        lines.append(f"compile {escape(r.compile_text, quote=False)}")
    return "<br>".join(lines)


def speedup_figure(digest: SuiteDigest) -> Figure:
    rows = [r for r in digest.rows if r.status != "skipped"]
    timed = sorted((r for r in rows if r.speedup is not None), key=lambda r: r.speedup or 0.0)
    untimed = [r for r in rows if r.speedup is None]
    ordered = untimed + timed  # bottom to top: failures first, the fastest on top
    names = [escape(r.name, quote=False) for r in ordered]
    values = [r.speedup if r.speedup is not None else 0.0 for r in ordered]
    labels = [
        (
            _bar_text(r.speedup)
            if r.speedup_meaningful
            else f"{_bar_text(r.speedup)} ({r.speedup_caveat or r.status_label})"
        )
        if r.speedup is not None
        else r.status_label
        for r in ordered
    ]
    top = max([*values, digest.summary.geomean_speedup or 0.0, 1.0])
    shapes: list[dict[str, Any]] = [
        {
            "type": "line",
            "x0": 1,
            "x1": 1,
            "y0": 0,
            "y1": 1,
            "yref": "paper",
            "line": {"dash": "dot", "width": 1, "color": "#8a8a8a"},
        },
    ]
    annotations: list[dict[str, Any]] = []
    g = digest.summary.geomean_speedup
    if g is not None:
        shapes.append(
            {
                "type": "line",
                "x0": g,
                "x1": g,
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": {"width": 2, "color": "#1976d2"},
            }
        )
        annotations.append(
            {
                "x": g,
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "text": f"geomean {_bar_text(g)}",
                "showarrow": False,
                "font": {"color": "#1976d2"},
            }
        )
    figure: Figure = {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": names,
                "x": values,
                "text": labels,
                "textposition": "outside",
                "cliponaxis": False,
                "marker": {"color": [r.colour for r in ordered]},
                "hovertext": [_hover(r) for r in ordered],
                "hoverinfo": "text",
                "meta": {"statuses": [r.status for r in ordered]},
            }
        ],
        "layout": _layout(
            "speedup per entry: eager ÷ compiled",
            height=max(220, 90 + BAR_PX * len(ordered)),
            xaxis={"title": {"text": "speedup (×)"}, "range": [0, top * 1.25], "zeroline": True},
            yaxis={"automargin": True, "type": "category"},
            shapes=shapes,
            annotations=annotations,
            bargap=0.25,
        ),
    }
    return figure


LABELLED_POINTS = 8  # up to this many points carry their names; a dozen labels near one point overlapped into none


def compile_figure(digest: SuiteDigest) -> Figure:
    rows = sorted(
        (r for r in digest.rows if r.compile_s is not None and r.speedup is not None), key=lambda r: r.compile_s or 0.0
    )
    labelled = len(rows) <= LABELLED_POINTS
    trace: dict[str, Any] = {
        "type": "scatter",
        "mode": "markers+text" if labelled else "markers",
        "x": [r.compile_s for r in rows],
        "y": [r.speedup for r in rows],
        "marker": {"size": 11, "color": [r.colour for r in rows]},
        "hovertext": [_hover(r) for r in rows],
        "hoverinfo": "text",
    }
    if labelled:
        # Neighbours in compile time alternate above and below their points, so two entries that compiled in
        # about the same time (the image models: 5-13 s) do not print their names over each other.
        trace["text"] = [escape(r.name, quote=False) for r in rows]
        trace["textposition"] = ["top center" if i % 2 == 0 else "bottom center" for i in range(len(rows))]
        trace["cliponaxis"] = False
    return {
        "data": [trace],
        "layout": _layout(
            "compile time against speedup" + ("" if labelled else " (an entry's name on hover)"),
            height=320,
            margin={"l": 70, "r": 30, "t": 50, "b": 55},
            xaxis={"title": {"text": "compile time (s)"}, "rangemode": "tozero"},
            yaxis={"title": {"text": "speedup (×)"}, "rangemode": "tozero"},
            shapes=[
                {
                    "type": "line",
                    "x0": 0,
                    "x1": 1,
                    "xref": "paper",
                    "y0": 1,
                    "y1": 1,
                    "line": {"dash": "dot", "width": 1},
                }
            ],
        ),
    }


def figures(digest: SuiteDigest) -> dict[str, Figure]:
    return {"speedup": speedup_figure(digest), "compile": compile_figure(digest)}
