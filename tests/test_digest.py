"""The digest derives each figure once, and every Python view shows that one derivation.

For two runs of one cell (A slower than eager, B faster, each with two compiled variants and a kernel
fused over two lines), the card (the MIME bundle), ``str(run)``, the HTML report, the widget and the
CLI must show the same headline, the same time per cell line and the same comparison.  The panel is
held to the same words in the browser (ui-tests/tests/consistency.spec.ts, from the same runs).
"""

from __future__ import annotations

import copy
import html
import json
import math

import pytest
from compile_profile.cli import main as cli_main
from compile_profile.digest import (
    DIGEST_VERSION,
    breakdown,
    compare,
    headline,
    line_times,
    payback,
    run_digest,
    speedup_phrase,
    summarize,
    verdict,
    warnings,
)
from compile_profile.digest.breakdown import COLUMNS as BREAKDOWN_COLUMNS
from compile_profile.digest.breakdown import TITLE as BREAKDOWN_TITLE
from compile_profile.digest.facts import cache_counts, cache_words
from compile_profile.digest.format import format_ms
from compile_profile.digest.lines import RULE
from compile_profile.digest.payback import Payback, round_calls
from compile_profile.profile_run import Speedup, Timing
from compile_profile.render.charts import figures
from compile_profile.render.mime import MIME_TYPE, mime_bundle
from compile_profile.render.report import render_report_html
from compile_profile.render.widget import explorer
from compile_profile.serialize import to_dict
from compile_profile.store import RunStore
from render_fixtures import (
    ALL_RUNS,
    ParsedHTML,
    cpu_run,
    cuda_run,
    failed_run,
    slower_and_faster_runs,
    without_breakdown,
)


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

    call.db = db  # type: ignore[attr-defined]  # a test that stores runs of its own
    return call


def _text_of(markup: str) -> str:
    return ParsedHTML(markup).text


def _html_line_times(markup: str, line: int, variants: list[str]) -> list[str]:
    """The times of cell line ``line`` in an HTML view's time-per-line table (line, code, times, kernels)."""
    (row,) = [r for r in ParsedHTML(markup).rows if r and r[0] == str(line) and len(r) == 3 + len(variants)]
    return row[2 : 2 + len(variants)]


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


def test_the_panel_and_card_get_the_interval_as_the_text_view_words_it(runs):
    for run in runs:
        interval = summarize(run)["speedup"]["interval_text"]
        assert interval.endswith("95% CI") and interval in str(run).splitlines()[1]


@pytest.mark.parametrize("value", [0.01, 0.3, 0.56, 0.999, 1.0, 1.8, 40.0])
def test_speedup_phrase_never_puts_a_factor_below_one_before_slower(value):
    phrase = speedup_phrase(Speedup(value=value, low=value, high=value, variant="v"))
    factor = float(phrase.split("×")[0])
    assert factor >= 1 and phrase.removesuffix(" (within noise)").endswith("faster" if value >= 1 else "slower")


def test_a_speedup_whose_interval_includes_one_is_worded_within_noise_in_the_headline():
    # a user read "1.30× slower" in the headline and "no measurable difference" on the next line
    assert speedup_phrase(Speedup(value=0.77, low=0.44, high=1.37, variant="v")) == "1.30× slower (within noise)"
    assert speedup_phrase(Speedup(value=0.77, low=0.70, high=0.85, variant="v")) == "1.30× slower"
    assert speedup_phrase(Speedup(value=1.2, low=float("nan"), high=float("nan"), variant="v")) == "1.20× faster"


# -- time per cell line ---------------------------------------------------------------------------------


def test_lines_split_a_fused_kernel_evenly_and_add_up_to_the_kernels_time(runs):
    for run in runs:
        lt = line_times(run)
        assert lt.variants[0] == "eager" and lt.variants[1] == run.speedup.variant
        for variant in lt.variants[1:]:
            kernels = [k for k in run.kernels if k.variant == variant]
            on_lines = sum(k.device_time_ms for k in kernels if k.lines)
            assert math.isclose(sum(r.time_ms.get(variant) or 0.0 for r in lt.rows), on_lines, rel_tol=1e-9)
            assert math.isclose(lt.unattributed_ms[variant], sum(k.device_time_ms for k in kernels if not k.lines))
        fused = next(k for k in run.kernels if k.variant == lt.variants[1] and len(k.lines) == 2)
        rows = {r.line: r for r in lt.rows}
        for line in fused.lines:
            assert rows[line].shared[fused.variant] == 1
            assert fused.name in rows[line].kernels[fused.variant]


def test_text_report_widget_and_cli_show_one_time_per_line(runs, cli):
    assert any(
        not r.kernels.get(v) for run in runs for lt in [line_times(run)] for r in lt.rows for v in lt.variants
    ), "a blank cell (a variant with no kernel on a line) is compared too"
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
    assert json.loads(cli("compare", slow.id, fast.id, "--json")) == json.loads(json.dumps(to_dict(c)))
    for d in c.deltas:
        assert widget_rows[d.metric][1:] == [d.a_text, d.b_text, d.change_text]
        line = printed_rows[d.metric]
        assert line.split()[-1] == d.change_text.split()[-1]
        for words in (d.a_text, d.b_text, d.change_text):
            assert words in line
    speedup = next(d for d in c.deltas if d.metric == "speedup")
    assert speedup.better == "b" and speedup.a < 1 < speedup.b


def test_compare_shows_what_the_two_runs_ran_with_that_differs_first_in_every_comparing_view(runs, cli):
    """Two runs of one cell differed by 92.7 % in eager time, which their threads and options explained, and Compare
    showed only device and torch: now their threads, profile options, torch.compile calls and cell lead where they
    differ, before what they share and before the figures."""
    from compile_profile.profile_run import HostLoad, RunSettings

    slow, fast = (copy.deepcopy(r) for r in runs)
    slow.settings = RunSettings(torch_threads=8, interop_threads=8, warmup=2, repeat=100, budget_s=3.0)
    fast.settings = RunSettings(torch_threads=1, interop_threads=8, warmup=2, repeat=100, budget_s=3.0, quick=True)
    slow.host_load = HostLoad(other_processes_cores=1.6, cores=2, threads=8)
    fast.cell_source = slow.cell_source.replace("\n", "\n# tuned\n", 1) + "z = y * 2\n"
    c = compare(slow, fast)
    rows = {r.label: r for r in c.context}
    assert (rows["threads"].a, rows["threads"].b) == ("8 intra-op, 8 inter-op", "1 intra-op, 8 inter-op")
    assert rows["profile options"].b == "warm-up 2, repeat 100, budget 3 s, --quick" and rows["profile options"].differs
    assert (
        rows["other processes"].a == "1.6 of 2 cores busy while timing" and rows["other processes"].b == "not measured"
    )
    assert rows["cell"].differs and rows["cell"].b.startswith("line ")
    assert not rows["torch"].differs and not rows["device"].differs
    first_same = next(i for i, r in enumerate(c.context) if not r.differs)
    assert all(r.differs for r in c.context[:first_same]) and not any(r.differs for r in c.context[first_same:])
    assert {"threads", "profile options", "cell", "other processes"} <= {r.label for r in c.context[:first_same]}
    # the CLI and the widget lay out the same rows, in the same order, before the figures
    with RunStore(cli.db) as store:
        store.put(slow)
        store.put(fast)
    printed = cli("compare", slow.id, fast.id).splitlines()
    labels = [r.label for r in c.context]
    at = [next(i for i, line in enumerate(printed) if line.startswith(label + " ")) for label in labels]
    assert at == sorted(at) and max(at) < next(i for i, line in enumerate(printed) if line.startswith("eager median"))
    assert "differs" in printed[at[0]] and printed[at[-1]].rstrip().endswith("same")
    widget = explorer(fast, compare_with=[slow])
    widget.compare_picker.value = 0
    widget_rows = [r for r in ParsedHTML(widget.compare_table.value).rows if r and r[0]]  # after its header
    assert [r[0] for r in widget_rows[: len(labels)]] == labels
    assert widget_rows[0][1:] == [c.context[0].a, c.context[0].b, "differs"]


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


# -- where a call's time goes, the verdict and the payback (issue 13) --------------------------------------------


def _breakdown_words(run) -> dict[str, list[str]]:
    """The digest's breakdown as every view words it: variant -> its parts and call by format_ms."""
    return {r.variant: [format_ms(ms) for ms in r.parts().values()] for r in breakdown(run)}


def _text_breakdown(text: str) -> dict[str, list[str]]:
    """The text view's breakdown table, read by column: variant -> its cells."""
    lines = text.splitlines()
    start = next(i for i, t in enumerate(lines) if t.startswith(BREAKDOWN_TITLE.lower()))
    header = lines[start + 1]
    headings = ["variant", *(h for _, h in BREAKDOWN_COLUMNS)]
    starts = [header.index(h) for h in headings] + [None]
    out = {}
    for row in lines[start + 2 :]:
        if not row.startswith("  ") or row.startswith("  line"):
            break
        cells = [row[a:b].strip() for a, b in zip(starts, starts[1:])]
        out[cells[0]] = cells[1:]
    return out


def _html_breakdown(markup: str) -> dict[str, list[str]]:
    parsed = ParsedHTML(markup)
    start = parsed.rows.index(["variant", *(h for _, h in BREAKDOWN_COLUMNS)])
    out = {}
    for row in parsed.rows[start + 1 :]:
        if len(row) != 1 + len(BREAKDOWN_COLUMNS) or row[0] in out:
            break
        out[row[0]] = row[1:]
    return out


def test_the_runs_have_a_breakdown_and_the_slower_and_faster_verdicts(runs):
    slow, fast = runs
    assert verdict(slow) == (
        "inductor/default is slower: its kernels take 3.85 ms (eager 3.44 ms) but each call spends 3.35 ms "
        "outside them (eager 562 µs); mode='reduce-overhead' removes launch overhead"
    )
    assert verdict(fast) == (
        "inductor/max-autotune is faster: its kernels take 2.71 ms (eager 3.44 ms), generated kernels (1.01 ms) "
        "replacing 1.5 ms of eager ATen kernels; outside kernels 189 µs (eager 562 µs)"
    )
    assert payback(slow).text == "inductor/default is slower: compiling never pays back"
    assert payback(fast).text == (
        "compiling cost 21.7 s (cold cache) and saves 1.1 ms a call: it pays back after ~19,700 calls"
    )


def test_a_faster_verdict_says_which_aten_kernels_the_compiled_variant_kept(runs):
    _, fast = runs
    bd = fast.variant(fast.speedup.variant).kernel_profile.breakdown
    bd.aten_ms, bd.generated_ms = 0.37, bd.generated_ms - 0.37  # Dynamo left part of the code eager
    assert ", generated kernels (641 µs) and ATen kernels (370 µs) where eager ran 1.5 ms of ATen kernels;" in verdict(
        fast
    )


def test_card_text_report_widget_and_cli_show_one_verdict_payback_and_breakdown(runs, cli):
    for run in runs:
        words, pays, parts = verdict(run), payback(run).text, _breakdown_words(run)
        assert words and pays and set(parts) == {v.name for v in run.variants}
        summary = mime_bundle(run)[MIME_TYPE]["summary"]  # what the JupyterLab card shows
        assert summary["verdict"] == words and summary["payback"]["text"] == pays
        assert {
            r["variant"]: [
                format_ms(r[f]) for f in ("library_ms", "generated_ms", "aten_ms", "copy_ms", "outside_ms", "median_ms")
            ]
            for r in summary["breakdown"]
        } == parts
        shown = cli("show", run.id)
        for text in (str(run), mime_bundle(run)["text/plain"], shown):
            lines = text.splitlines()
            assert words in lines and pays in lines
            assert _text_breakdown(text) == parts
        for markup in (
            mime_bundle(run)["text/html"],
            render_report_html(run),
            explorer(run).overview.children[0].value,
        ):
            assert words in _text_of(markup) and pays in _text_of(markup)
            assert _html_breakdown(markup) == parts


def test_breakdown_parts_and_outside_add_up_to_the_median_exactly(runs):
    for run in [*runs, cuda_run(), cpu_run()]:
        rows = breakdown(run)
        assert [r.variant for r in rows] == [v.name for v in run.variants if v.timing is not None]
        for r in rows:
            b = run.variant(r.variant).kernel_profile.breakdown
            assert (r.library_ms, r.generated_ms, r.aten_ms, r.copy_ms) == (
                b.library_ms,
                b.generated_ms,
                b.aten_ms,
                b.copy_ms,
            )
            assert r.kernels_ms == b.kernels_ms and not r.clamped
            assert r.library_ms + r.generated_ms + r.aten_ms + r.copy_ms + r.outside_ms == r.median_ms
            assert r.outside_ms == r.median_ms - r.kernels_ms


def test_profiled_kernels_longer_than_the_call_within_the_timers_noise_clamp_outside_to_zero_and_warn_once(runs):
    _, fast = runs
    for v in fast.compiled_variants:  # the profiled kernels 2 % over the timed call: within the timer's noise
        b = v.kernel_profile.breakdown
        b.aten_ms += 1.02 * v.timing.median_ms - b.kernels_ms
    rows = {r.variant: r for r in breakdown(fast)}
    for name in ("inductor/default", "inductor/max-autotune"):
        assert rows[name].outside_ms == 0.0 and rows[name].clamped
    assert not rows["eager"].clamped
    said = [w for w in warnings(fast) if "profiled calls ran slower than the timed ones" in w]
    assert len(said) == 1 and "inductor/default" in said[0] and "inductor/max-autotune" in said[0]
    assert summarize(fast)["warnings"].count(said[0]) == 1


def test_a_verdict_whose_profiled_calls_ran_slower_than_the_timed_ones_does_not_say_where_the_time_went(runs):
    _, fast = runs
    best = fast.variant(fast.speedup.variant)
    best.kernel_profile.breakdown.aten_ms += 2.0  # kernels now exceed the timed call beyond the timer's noise
    said = verdict(fast)
    assert said.startswith(f"{best.name} is faster, but the profiler pass cannot say where (")
    assert f"{best.name}'s kernels" in said and "outside them" not in said and "eager" not in said.split("(")[1]


def test_a_slower_call_whose_kernels_grew_says_which_kernels(runs):
    slow, _ = runs
    slow.variant("inductor/default").kernel_profile.breakdown.library_ms += 3.0  # outside shrinks by as much
    assert verdict(slow) == (
        "inductor/default is slower: its kernels take 6.85 ms (eager 3.44 ms), library kernels "
        "5.5 ms (eager 1.88 ms); outside kernels 350 µs (eager 562 µs)"
    )


def test_a_faster_call_whose_saving_is_outside_its_kernels_names_the_kernels_it_spends_time_outside_of(runs):
    """The sentence leads with the time outside the kernels there: "outside them" had no kernels before it."""
    _, fast = runs
    fast.eager.kernel_profile.breakdown.library_ms -= 0.7  # eager's kernels 2.74 ms, its time outside 1.26 ms
    assert verdict(fast) == (
        "inductor/max-autotune is faster: each call spends 189 µs outside its kernels (eager 1.26 ms); its kernels "
        "take 2.71 ms (eager 2.74 ms)"
    )


def test_cuda_graph_advice_only_on_cuda_and_not_for_reduce_overhead(runs):
    slow, _ = runs
    slow.variant("inductor/default").mode = "reduce-overhead"
    assert verdict(slow).endswith("outside them (eager 562 µs)")
    cpu = cpu_run()
    cpu.speedup = Speedup(value=0.5, low=0.45, high=0.55, variant="inductor/default")
    cpu.variants[1].kernel_profile.breakdown.generated_ms = 0.0  # its kernels no slower than eager's
    words = verdict(cpu)
    assert words.startswith(
        "compiled is slower: its kernels take 5.25 ms of host time (eager 8.25 ms) but each "
        "call spends 5.07 ms of host time outside them"
    )
    assert "reduce-overhead" not in words and "launch" not in words


def test_the_verdict_replaces_the_overhead_bound_warning(runs):
    slow, _ = runs  # inductor/default's kernels take 3.85 of its 7.2 ms: over half, so make it overhead-bound
    best = slow.variant("inductor/default")
    best.kernel_profile.breakdown.library_ms = 0.5
    best.kernel_profile.total_ms = best.kernel_profile.breakdown.kernels_ms
    assert "kernels take 1.85 ms" in verdict(slow)
    assert not [w for w in warnings(slow) if "of each" in w]
    without_breakdown(slow)  # a run profiled before the breakdown keeps the warning, and has no verdict
    assert verdict(slow) is None
    assert [w for w in warnings(slow) if "kernels take 1.85 ms of each 7.2 ms call (26%)" in w]


def _timed(run, eager_ms: float, compiled_ms: float, compile_s: float | None, low: float, high: float):
    run.variants[0].timing = Timing(median_ms=eager_ms, p10_ms=eager_ms, p90_ms=eager_ms, n=9)
    run.variants[1].timing = Timing(median_ms=compiled_ms, p10_ms=compiled_ms, p90_ms=compiled_ms, n=9)
    run.variants[1].compile_s = compile_s
    run.speedup = Speedup(value=eager_ms / compiled_ms, low=low, high=high, variant=run.variants[1].name)
    return run


def test_payback_arithmetic():
    run = _timed(cpu_run(), 50.0, 21.0, 71.0, 2.2, 2.6)
    run.cache.state = "cold"
    p = payback(run)
    assert p is not None and p.compile_s == 71.0 and p.saving_ms == 29.0 and p.calls == 2449  # ceil(71000 / 29)
    assert p.text == "compiling cost 71 s (cold cache) and saves 29 ms a call: it pays back after ~2,450 calls"
    run.variants[1].cache_state = "warm"  # the variant's own state wins over the run's
    assert "(warm cache)" in payback(run).text
    assert payback(_timed(cpu_run(), 4.0, 3.2, 3.2, 1.2, 1.3)).calls == 4000  # 3200 / 0.8, not 4001
    assert payback(_timed(cpu_run(), 4.0, 3.0, 0.0005, 1.2, 1.4)).text.endswith("after ~1 call")
    assert round_calls(123456) == 123000 and round_calls(999) == 999


def test_payback_never_and_not_measurable_and_none():
    slower = payback(_timed(cpu_run(), 4.0, 7.2, 3.2, 0.5, 0.6))
    assert slower == Payback(
        compile_s=3.2, saving_ms=4.0 - 7.2, calls=None, text="compiled is slower: compiling never pays back"
    )
    same = payback(_timed(cpu_run(), 4.0, 4.0, 3.2, math.nan, math.nan))  # no saving, and no interval to blame
    assert same is not None and same.calls is None and same.text == "compiled is slower: compiling never pays back"
    level = payback(_timed(cpu_run(), 4.0, 3.9, 3.2, 0.98, 1.07))  # faster by its median, but the interval includes 1
    assert (
        level is not None and level.calls is None and level.text == "no measurable saving: compiling does not pay back"
    )
    assert payback(_timed(cpu_run(), 4.0, 3.0, None, 1.2, 1.4)) is None  # no compile time
    assert payback(failed_run()) is None  # no timing of a compiled variant


def test_summary_carries_breakdown_verdict_and_payback(runs):
    for run in runs:
        s = json.loads(json.dumps(summarize(run)))
        assert s["digest"] == DIGEST_VERSION == 40 and s["unreadable"] is None and s["trace"] is None
        assert s["verdict"] == verdict(run) and s["payback"] == to_dict(payback(run))
        assert s["cache_words"] == cache_words(run) and s["cache_counts"] == cache_counts(run)
        assert s["breakdown"] == to_dict(breakdown(run))
        assert set(s["breakdown"][0]) >= {
            "variant",
            "method",
            "median_ms",
            "library_ms",
            "generated_ms",
            "aten_ms",
            "copy_ms",
            "kernels_ms",
            "outside_ms",
        }


def test_lines_carry_eager_and_compiled_time(runs):
    for run in [*runs, cuda_run(), cpu_run()]:
        lt = line_times(run)
        assert lt.variants[0] == "eager"
        rows = {r.line: r for r in lt.rows}
        for e in run.eager.kernel_profile.eager_lines:
            assert rows[e.line].time_ms["eager"] == e.time_ms and rows[e.line].kernels["eager"] == e.ops
            assert rows[e.line].time_text("eager") == format_ms(e.time_ms)
        assert any(r.time_text("eager") and r.time_text(lt.variants[1]) for r in lt.rows)
    assert "eager time is counted on the line that was running when each op was called" in RULE


@pytest.mark.parametrize("make", [cuda_run, cpu_run, lambda: slower_and_faster_runs()[1]])
def test_a_run_without_breakdown_shows_none_of_it(make, tmp_path, capsys):
    run = without_breakdown(make())
    assert breakdown(run) == [] and verdict(run) is None
    assert line_times(run).variants[0] != "eager"
    s = summarize(run)
    assert s["breakdown"] == [] and s["verdict"] is None
    text = str(run)
    assert BREAKDOWN_TITLE.lower() not in text and "outside kernels" not in text
    for markup in (mime_bundle(run)["text/html"], render_report_html(run), explorer(run).overview.children[0].value):
        assert BREAKDOWN_TITLE not in _text_of(markup) and "outside kernels" not in _text_of(markup)
    assert 'data-figure="breakdown"' not in render_report_html(run)
    assert figures(run)["breakdown"]["data"] == []  # drawable, says why
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        store.put(run)
    assert cli_main(["--db", str(db), "show", run.id]) == 0
    assert capsys.readouterr().out.splitlines()[0] == headline(run)


def test_the_breakdown_chart_stacks_the_parts_per_variant(runs):
    _, fast = runs
    fig = figures(fast)["breakdown"]
    assert [t["name"] for t in fig["data"]] == ["library", "generated", "ATen", "copies", "outside kernels"]
    assert fig["layout"]["barmode"] == "stack"
    rows = {r.variant: r for r in breakdown(fast)}
    for t in fig["data"]:
        assert t["orientation"] == "h" and t["y"] == ["inductor/max-autotune", "inductor/default", "eager"]
    for i, name in enumerate(fig["data"][0]["y"]):
        assert sum(t["x"][i] for t in fig["data"]) == rows[name].median_ms
    assert 'data-figure="breakdown"' in render_report_html(fast)


@pytest.mark.parametrize(
    "cause, why",
    [
        ("iterator_ran_out", "an iterator it reads ran out (StopIteration)"),
        ("later_run_failed", "it changes what its later runs read (a list it empties"),
        ("recompile_failed", "the call compiled again, and that compile failed"),
    ],
)
def test_a_later_run_that_failed_is_worded_once_for_every_view(cause, why):
    from compile_profile.profile_run import Device, ErrorInfo, ProfileRun, Variant
    from compile_profile.render.html import render_html
    from compile_profile.render.text import render_text

    run = ProfileRun(
        id="later",
        created_at="2026-12-02T00:00:00Z",
        label="",
        cell_source="%%compile_profile\nbatch = next(it)\n",
        device=Device(type="cpu", name="cpu"),
        torch_version="2.13",
        variants=[Variant(name="eager", first_call_s=0.01), Variant(name="inductor/default", backend="inductor")],
        status="failed",
        cell_runs=7,
        errors=[
            ErrorInfo(
                stage="warm-up",
                message="StopIteration",
                type="StopIteration",
                variant="inductor/default",
                line=2,
                call=7,
                cause=cause,
            )
        ],
    )
    sentence = warnings(run)[0]
    assert sentence.startswith("the cell failed on its run 7 (warm-up, inductor/default, cell line 2), after 6 earlier")
    assert why in sentence and "the names the cell binds are as after its first run" in sentence
    assert headline(run) == "profile stopped at warm-up: the cell's run 7 raised StopIteration"
    assert summarize(run)["errors"][0]["call"] == 7
    assert f"warning: {sentence}" in render_text(run)
    assert "error [warm-up, inductor/default, cell line 2, run 7]: StopIteration" in render_text(run)
    assert html.escape(sentence) in render_html(run)


def test_a_speedup_and_its_interval_read_one_way_in_every_list():
    from compile_profile.digest.format import format_speedup_interval

    assert format_speedup_interval(4.0, 3.6, 4.4) == "4.00× faster [3.60×–4.40×]"
    # a slowdown's bounds are slowdowns too (compile-profile ls read "0.80× [0.70×–0.90×]" beside "slower")
    assert format_speedup_interval(0.8, 0.7, 0.9) == "1.25× slower [1.11×–1.43×]"
    assert format_speedup_interval(1.05, 0.9, 1.2) == "1.05× faster (within noise) [0.90×–1.20×]"
    assert format_speedup_interval(0.8, None, None) == "1.25× slower"
    # within noise, a slowdown's bounds are still read as slowdowns: from 0.97x slower (faster) to 1.14x slower
    assert format_speedup_interval(0.95, 0.88, 1.03) == "1.05× slower (within noise) [0.97×–1.14×]"
    assert format_speedup_interval(None, None, None) == "—"


# -- --sweep's recommendation, judged against the noise (issue 23, item 4) ----------------------------------------


def _swept(margin: float, low: float, high: float, *, same_code: bool = False):
    from compile_profile.profile_run import Recommendation

    run = cuda_run()
    best, other = "inductor/max-autotune", "inductor/default"
    run.recommendation = Recommendation(
        variant=best,
        call='torch.compile(model, mode="max-autotune")',
        runner_up=other,
        margin=margin,
        margin_low=low,
        margin_high=high,
        plain_variant=other,
        plain_call="torch.compile(model)",
    )
    import dataclasses

    run.kernels = [k for k in run.kernels if k.variant != best]
    if same_code:  # max-autotune compiled what default did, kernel for kernel
        run.kernels += [dataclasses.replace(k, variant=best, id=f"{k.id}'") for k in run.kernels if k.variant == other]
    return run


def test_a_mode_that_ran_measurably_faster_is_recommended_with_its_margin():
    advice = summarize(_swept(1.31, 1.12, 1.50))["recommendation"]
    assert advice["measurable"] and advice["call"] == 'torch.compile(model, mode="max-autotune")'
    assert advice["text"] == (
        "inductor/max-autotune ran 1.31× faster than inductor/default, the next fastest [1.12×–1.50×]"
    )


def test_a_mode_faster_only_within_the_noise_is_not_recommended():
    advice = summarize(_swept(1.05, 0.35, 23.3))["recommendation"]
    assert not advice["measurable"] and advice["call"] == "torch.compile(model)"
    assert advice["text"].startswith("no mode is measurably better: inductor/max-autotune ran 1.05× faster")
    assert advice["text"] == (
        "no mode is measurably better: inductor/max-autotune ran 1.05× faster than inductor/default, within noise "
        "[0.35×–23.3×], so the plain call is as good"
    )


def test_modes_that_generated_the_same_kernels_are_no_choice_whatever_their_timings():
    advice = summarize(_swept(1.4, 1.2, 1.6, same_code=True))["recommendation"]
    assert not advice["measurable"] and advice["call"] == "torch.compile(model)"
    assert "generated the same kernels" in advice["text"]


def test_every_view_says_the_recommendation_in_the_digests_words():
    run = _swept(1.05, 0.9, 1.2)
    advice = summarize(run)["recommendation"]
    assert f"recommendation (--sweep): {advice['call']} — {advice['text']}" in str(run).splitlines()
    page = run._repr_mimebundle_()["text/html"]
    assert html.escape(advice["text"], quote=False) in page and html.escape(advice["call"]) in page


def test_a_change_is_called_only_beyond_both_runs_intervals():
    from render_fixtures import cpu_run, slower_and_faster_runs

    slow, fast = slower_and_faster_runs()
    deltas = {d.metric: d for d in compare(slow, fast).deltas}
    # eager ran the same in both: within both p10-p90 spreads, so no colour and "within noise"
    assert deltas["eager median"].within_noise and deltas["eager median"].better == ""
    assert deltas["eager median"].change_text.startswith("within noise")
    # the compiled medians and the speedups moved far beyond both runs' intervals
    for metric in ("inductor/default median", "speedup"):
        assert not deltas[metric].within_noise and deltas[metric].better == "b", metric
    # B's median just outside A's spread but A's inside B's (B's spread is wide): still noise
    a, b = cpu_run(), cpu_run()
    t = b.compiled_variants[0].timing
    ta = a.compiled_variants[0].timing
    t.median_ms = ta.p90_ms * 1.01
    t.p10_ms, t.p90_ms = ta.p10_ms * 0.5, ta.p90_ms * 2
    d = next(d for d in compare(a, b).deltas if d.metric == f"{a.compiled_variants[0].name} median")
    assert d.within_noise and d.better == ""
    t.p10_ms, t.p90_ms = ta.p90_ms * 1.005, ta.p90_ms * 1.02  # now beyond both
    d = next(d for d in compare(a, b).deltas if d.metric == f"{a.compiled_variants[0].name} median")
    assert not d.within_noise and d.better == "a" and "noise" not in d.change_text
