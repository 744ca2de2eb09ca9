"""An ipywidgets explorer of a run (``run.show()``): overview, graph breaks, graphs, kernels, compare.

Every text value it shows is escaped: HTML widgets get ``html.escape``d text or
Pygments output (which escapes the code it highlights), and code uses inline
styles because a widget's HTML cannot count on a page stylesheet.
"""

from __future__ import annotations

import importlib.util
from html import escape

import ipywidgets as widgets

from ..digest.compare import compare
from ..digest.facts import top_kernels
from ..digest.format import one_line
from ..digest.kernel_times import kernel_time_text, withheld
from ..digest.summary import digest_of
from ..profile_run import ProfileRun
from .charts import Figure, figures, overview_figures
from .highlight import highlight_code
from .html import comparison_html, digest_html, html_table


def figure_widget(fig: Figure) -> widgets.Widget:
    """An interactive FigureWidget where anywidget is installed (plotly ≥ 6 needs it), else an Output showing the figure.

    The Output gets plotly's own MIME bundle directly rather than through
    ``display()``, so it needs no running kernel and shows the same figure
    wherever the plotly JupyterLab renderer is installed.
    """
    if importlib.util.find_spec("anywidget") is not None:
        import plotly.graph_objects as go

        return go.FigureWidget(fig)
    out = widgets.Output()
    title = fig.get("layout", {}).get("title", {}).get("text", "figure")
    out.outputs = (
        {
            "output_type": "display_data",
            "data": {
                "application/vnd.plotly.v1+json": {
                    "data": fig["data"],
                    "layout": fig.get("layout", {}),  # charts' figures all have one; the contract's need not
                    "config": {"displaylogo": False},
                },
                "text/plain": f"<plotly figure: {title}>",
            },
            "metadata": {},
        },
    )
    return out


def _code_box(html_value: str = "") -> widgets.HTML:
    return widgets.HTML(value=html_value, layout=widgets.Layout(max_height="600px", overflow="auto"))


class RunExplorer(widgets.Tab):
    """The explorer Tab; its pickers and views are attributes so code (and tests) can drive it."""

    def __init__(self, run: ProfileRun, compare_with: list[ProfileRun] | None = None):
        super().__init__()
        self.run = run
        self.others = list(compare_with or [])
        self.digest = digest_of(run)  # what the panel reads: the overview and graph breaks lay it out
        self.figures = figures(run)
        self.kernels = top_kernels(run.kernels, len(run.kernels))  # slowest first, the order people look in
        self.withheld = withheld(run)  # variants whose kernel times are shares (digest.kernel_times)

        self.overview = widgets.VBox(
            [widgets.HTML(digest_html(self.digest))]
            + [figure_widget(self.figures[name]) for name in overview_figures(run)]
        )
        self.graph_breaks_view = widgets.HTML(self._graph_breaks_html())

        self.graph_picker = widgets.Dropdown(
            options=[(f"#{i} {g.id} · {g.kind} · {g.variant}", i) for i, g in enumerate(run.graphs)],
            value=0 if run.graphs else None,
            description="graph",
            layout=widgets.Layout(width="100%"),
        )
        self.graph_code = _code_box()
        self.graph_picker.observe(self._show_graph, names="value")
        self._show_graph()

        self.kernel_picker = widgets.Dropdown(
            options=[(self._kernel_label(i), i) for i in range(len(self.kernels))],
            value=0 if self.kernels else None,
            description="kernel",
            layout=widgets.Layout(width="100%"),
        )
        self.kernel_info = widgets.HTML()
        self.kernel_source = _code_box()
        self.kernel_picker.observe(self._show_kernel, names="value")
        self._show_kernel()

        self.compare_picker = widgets.Dropdown(
            options=[(f"{o.label or o.id} · {o.created_at}", i) for i, o in enumerate(self.others)],
            value=0 if self.others else None,
            description="against",
            disabled=not self.others,
            layout=widgets.Layout(width="100%"),
        )
        self.compare_table = widgets.HTML()
        self.compare_picker.observe(self._show_compare, names="value")
        self._show_compare()

        self.children = [
            self.overview,
            self.graph_breaks_view,
            widgets.VBox([self.graph_picker, self.graph_code]),
            widgets.VBox(
                [self.kernel_picker, self.kernel_info, self.kernel_source, figure_widget(self.figures["kernels"])]
                + [widgets.HTML(f'<p class="cp-withheld">{escape(j.text)}</p>') for j in self.withheld.values()]
                + ([figure_widget(self.figures["roofline"])] if self.digest.measured.roofline else [])
            ),
            widgets.VBox([self.compare_picker, self.compare_table]),
        ]
        self.titles = (
            "Overview",
            f"Graph breaks ({self.digest.graph_break_count})",
            f"Graphs ({len(run.graphs)})",
            f"Kernels ({len(run.kernels)})",
            "Compare",
        )

    # -- views -----------------------------------------------------------
    def _graph_breaks_html(self) -> str:
        groups = self.digest.graph_breaks
        if not groups:
            return "<p>No graph breaks.</p>"
        rows = [
            [
                str(g.line) if g.line is not None else "—",
                f"<code>{escape(g.code_line)}</code>",
                escape(g.inside) + (f" <code>{escape(g.inside_code)}</code>" if g.inside_code else ""),
                str(g.count),
                escape(", ".join(g.variants)),
                f'<pre style="white-space:pre-wrap;margin:0">{escape(g.reason_full)}</pre>',
            ]
            for g in groups
        ]
        lines = tuple(g.line for g in groups if g.line is not None)
        cell = highlight_code(self.run.cell_source, "python", inline_styles=True, linenos=True, hl_lines=lines)
        return html_table(["cell line", "code", "inside", "times", "variant", "reason"], rows) + cell

    def _kernel_label(self, i: int) -> str:
        k = self.kernels[i]
        time = f" · {kernel_time_text(k, self.withheld, with_share=False)}" if k.device_time_ms is not None else ""
        return f"#{i} {one_line(k.name, 80)} · {k.language}{time}"

    def _show_graph(self, change=None) -> None:
        i = self.graph_picker.value
        self.graph_code.value = (
            "" if i is None else highlight_code(self.run.graphs[i].code, "python", inline_styles=True)
        )

    def _show_kernel(self, change=None) -> None:
        i = self.kernel_picker.value
        if i is None:
            self.kernel_info.value, self.kernel_source.value = "<p>No kernels were generated.</p>", ""
            return
        k = self.kernels[i]
        facts = [f"<code>{escape(k.name)}</code>", escape(k.language), f"graph {escape(k.graph_id)}"]
        if k.variant:
            facts.append(escape(k.variant))
        if k.lines:
            facts.append("cell lines " + ", ".join(map(str, k.lines)))
        if k.aten_ops:
            facts.append(escape(", ".join(k.aten_ops)))
        self.kernel_info.value = " · ".join(facts)
        self.kernel_source.value = highlight_code(k.source, k.language, inline_styles=True)

    def _show_compare(self, change=None) -> None:
        i = self.compare_picker.value
        if i is None:
            self.compare_table.value = (
                "<p>Pass <code>compare_with=[other runs]</code> to compare this run with others.</p>"
            )
            return
        # The other run is A (before), this one B (after), as in the CLI's and the panel's comparison.
        self.compare_table.value = comparison_html(compare(self.others[i], self.run))


def explorer(run: ProfileRun, compare_with: list[ProfileRun] | None = None) -> RunExplorer:
    return RunExplorer(run, compare_with)
