"""The digest derives each figure once, and every Python view shows that one derivation.

For two runs of one cell (A slower than eager, B faster, each with two compiled variants and a kernel
fused over two lines), the card (the MIME bundle), ``str(run)``, the HTML report, the widget and the
CLI must show the same headline, the same time per cell line and the same comparison.  The panel is
held to the same words in the browser (ui-tests/tests/consistency.spec.ts, from the same runs).
"""

from __future__ import annotations

import html
import json
import math

import pytest
from render_fixtures import ALL_RUNS, ParsedHTML, slower_and_faster_runs

from compile_profile.cli import main as cli_main
from compile_profile.digest import compare, headline, line_times, run_digest, speedup_phrase, summarize
from compile_profile.digest.lines import RULE
from compile_profile.profile_run import Speedup
from compile_profile.render.mime import MIME_TYPE, mime_bundle
from compile_profile.render.report import render_report_html
from compile_profile.render.widget import explorer
from compile_profile.store import RunStore


@pytest.fixture
def runs():
    return slower_and_faster_runs()


@pytest.fixture
def cli(tmp_path, capsys, runs):
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        for run in runs:
            store.put(run)

    def call(*argv: str) -> str:
        assert cli_main(["--db", str(db), *argv]) == 0
        return capsys.readouterr().out

    return call


def _text_of(markup: str) -> str:
    return ParsedHTML(markup).text


def _html_line_times(markup: str, line: int, variants: list[str]) -> list[str]:
    """The times of cell line ``line`` in an HTML view's time-per-line table (line, code, times, kernels)."""
    (row,) = [r for r in ParsedHTML(markup).rows if r and r[0] == str(line) and len(r) == 3 + len(variants)]
    return row[2:2 + len(variants)]


def _text_line_times(text: list[str], line: int, variants: list[str]) -> list[str]:
    """The times of cell line ``line`` in the text view's time-per-line table, read by column."""
    header = next(t for t in text if t.startswith("  line  "))
    starts = [header.index("  line"), *(header.index(f"  {v}  ") + 2 for v in variants), header.index("  code") + 2]
    (row,) = [t for t in text if t.startswith(f"  {line} ")]
    return [row[a:b].strip() for a, b in zip(starts[1:], starts[2:])]


# -- the runs are what the test needs ---------------------------------------------------------------


def test_the_runs_are_one_slower_and_one_faster_with_two_variants_and_a_fused_kernel(runs):
    slow, fast = runs
    assert slow.speedup.value < 1 < fast.speedup.value
    assert all(len(r.compiled_variants) == 2 for r in runs)
    assert any(len(set(k.lines)) > 1 for r in runs for k in r.kernels)


# -- headline -----------------------------------------------------------------------------------------


def test_card_text_report_widget_and_cli_show_one_headline(runs, cli):
    for run in runs:
        words = headline(run)
        assert words == summarize(run)["headline"] == run_digest(run)["headline"]
        bundle = mime_bundle(run)
        assert bundle[MIME_TYPE]["summary"]["headline"] == words  # what the JupyterLab card shows
        assert bundle["text/plain"].splitlines()[0] == words
        assert str(run).splitlines()[0] == words
        assert words in _text_of(bundle["text/html"])
        assert words in _text_of(render_report_html(run))
        assert words in _text_of(explorer(run).overview.children[0].value)
        assert cli("show", run.id).splitlines()[0] == words


def test_a_slowdown_is_worded_by_its_factor_above_one_everywhere(runs, cli):
    slow, _ = runs
    phrase = speedup_phrase(slow.speedup)
    assert phrase == f"{1 / slow.speedup.value:.2f}× slower"
    for shown in (headline(slow), str(slow), _text_of(render_report_html(slow)), cli("show", slow.id)):
        assert phrase in shown
        assert f"{slow.speedup.value:.2f}× slower" not in shown


@pytest.mark.parametrize("value", [0.01, 0.3, 0.56, 0.999, 1.0, 1.8, 40.0])
def test_speedup_phrase_never_puts_a_factor_below_one_before_slower(value):
    phrase = speedup_phrase(Speedup(value=value, low=value, high=value, variant="v"))
    factor = float(phrase.split("×")[0])
    assert factor >= 1 and phrase.endswith("faster" if value >= 1 else "slower")


# -- time per cell line ---------------------------------------------------------------------------------


def test_lines_split_a_fused_kernel_evenly_and_add_up_to_the_kernels_time(runs):
    for run in runs:
        lt = line_times(run)
        for variant in lt.variants:
            kernels = [k for k in run.kernels if k.variant == variant]
            on_lines = sum(k.device_time_ms for k in kernels if k.lines)
            assert math.isclose(sum(r.time_ms.get(variant) or 0.0 for r in lt.rows), on_lines, rel_tol=1e-9)
            assert math.isclose(lt.unattributed_ms[variant], sum(k.device_time_ms for k in kernels if not k.lines))
        fused = next(k for k in run.kernels if k.variant == lt.variants[0] and len(k.lines) == 2)
        rows = {r.line: r for r in lt.rows}
        for line in fused.lines:
            assert rows[line].shared[fused.variant] == 1
            assert fused.name in rows[line].kernels[fused.variant]


def test_text_report_widget_and_cli_show_one_time_per_line(runs, cli):
    assert any(not r.kernels.get(v) for run in runs for lt in [line_times(run)] for r in lt.rows
               for v in lt.variants), "a blank cell (a variant with no kernel on a line) is compared too"
    for run in runs:
        lt = line_times(run)
        text = str(run).splitlines()
        shown = cli("show", run.id).splitlines()
        report = render_report_html(run)
        overview = explorer(run).overview.children[0].value
        assert RULE in "\n".join(text) and RULE in _text_of(report) and RULE in _text_of(overview)
        for r in (r for r in lt.rows if r.kernels):
            words = [r.time_text(v) for v in lt.variants]
            assert _text_line_times(text, r.line, lt.variants) == words
            assert _text_line_times(shown, r.line, lt.variants) == words
            for markup in (report, overview):
                assert _html_line_times(markup, r.line, lt.variants) == words


def test_the_rest_api_serves_the_lines_the_views_show(runs):
    for run in runs:
        served = json.loads(json.dumps(run_digest(run)))["lines"]
        lt = line_times(run)
        assert served["variants"] == lt.variants and served["rule"] == RULE
        assert [(r["line"], r["time_ms"]) for r in served["rows"]] == [(r.line, r.time_ms) for r in lt.rows]


# -- comparison --------------------------------------------------------------------------------------------


def test_cli_widget_and_rest_show_one_comparison(runs, cli):
    slow, fast = runs
    c = compare(slow, fast)
    assert c.deltas, "something was compared"
    printed = cli("compare", slow.id, fast.id)
    printed_rows = {line.split("  ")[0]: line for line in printed.splitlines()}
    widget = explorer(fast, compare_with=[slow])
    widget.compare_picker.value = 0
    widget_rows = {r[0]: r for r in ParsedHTML(widget.compare_table.value).rows}
    assert json.loads(cli("compare", slow.id, fast.id, "--json")) == json.loads(json.dumps(c.as_dict()))
    for d in c.deltas:
        assert widget_rows[d.metric][1:] == [d.a_text, d.b_text, d.change_text]
        line = printed_rows[d.metric]
        assert line.split()[-1] == d.change_text.split()[-1]
        for words in (d.a_text, d.b_text, d.change_text):
            assert words in line
    speedup = next(d for d in c.deltas if d.metric == "speedup")
    assert speedup.better == "b" and speedup.a < 1 < speedup.b


def test_renumbered_kernels_are_the_same_kernel_in_every_comparing_view(runs, cli):
    slow, fast = runs  # fast's kernels are numbered from 0 as slow's, but one extra kernel is added
    c = compare(slow, fast)
    assert [(k.name, k.count) for k in c.kernels_added] == [("triton_poi_fused_cat", 1)]
    assert c.kernels_removed == []
    assert "kernels added in B: triton_poi_fused_cat\n" in cli("compare", slow.id, fast.id)
    widget = explorer(fast, compare_with=[slow])
    widget.compare_picker.value = 0
    assert "kernels added in B: triton_poi_fused_cat" in _text_of(widget.compare_table.value)


# -- every fixture run ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALL_RUNS))
def test_every_view_opens_with_the_digests_headline(name):
    run = ALL_RUNS[name]()
    words = headline(run)
    assert str(run).splitlines()[0] == words
    assert html.escape(words, quote=False) in mime_bundle(run)["text/html"]
