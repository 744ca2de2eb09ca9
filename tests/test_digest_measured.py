"""digest.measured and the digest's guards: the words for what the engine measured beside the timings
(device peaks, memory ratio, max-autotune's choices, CUDA-graph skips, each kernel's roofline figures) and
for each Dynamo graph's guards and a recompile's failed guard; what the REST API serves for them; and
every Python view (card, ``str(run)``, the cell's HTML, the report, the widget, the CLI) showing those words.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from compile_profile.digest import run_digest, summarize, warnings
from compile_profile.digest.format import format_gbps, format_share, format_tflops
from compile_profile.digest.guards import graph_heading, group_text, recompile_text, run_guards
from compile_profile.digest.measured import (
    ROOFLINE_ROWS,
    autotune_rows,
    autotune_text,
    cudagraph_text,
    device_peaks_text,
    dtype_words,
    memory_ratio_text,
    roofline_rows,
    roofline_text,
    shape_words,
)
from compile_profile.profile_run import AutotuneResult, DevicePeaks, Kernel
from render_fixtures import HOSTILE, cpu_run, cuda_run, hostile_run, reduce_overhead_run, slower_and_faster_runs


def test_formatters():
    assert format_gbps(4100.0) == "4.1 TB/s" and format_gbps(612.4) == "612 GB/s" and format_gbps(None) == "—"
    assert format_tflops(790.2) == "790 TFLOP/s" and format_tflops(0.25) == "250 GFLOP/s"
    assert format_share(0.462) == "46%" and format_share(0.004) == "0.4%" and format_share(0.0) == "0%"


def test_device_peaks_and_memory_ratio_words():
    run = cuda_run()
    assert device_peaks_text(run.device_peaks) == (
        "device peaks measured here: copy 4.1 TB/s (vendor 4.8 TB/s), bf16 matmul 790 TFLOP/s (vendor 989)"
    )
    assert device_peaks_text(DevicePeaks(copy_gbps=900.0, bf16_matmul_tflops=120.0)) == (
        "device peaks measured here: copy 900 GB/s, bf16 matmul 120 TFLOP/s"
    )
    assert memory_ratio_text(run) == "eager peak memory is 1.33× inductor/max-autotune's"
    run.memory_ratio = 0.8  # the compiled variant used more
    assert memory_ratio_text(run) == "inductor/max-autotune's peak memory is 1.25× eager's"
    run.variants = run.variants[:2]
    run.memory_ratio = 1.8
    assert memory_ratio_text(run) == "eager peak memory is 1.80× the compiled variant's"
    assert memory_ratio_text(cpu_run()) is None and cpu_run().device_peaks is None


def test_autotune_words():
    assert shape_words("[[4096, 4096], [4096, 64]]") == "[4096×4096, 4096×64]" and shape_words("?") == "?"
    assert dtype_words("[torch.bfloat16, torch.bfloat16]") == "bf16"
    r = AutotuneResult(
        op="mm",
        shape="[[4096, 4096], [4096, 4096]]",
        dtypes="[torch.bfloat16, torch.bfloat16]",
        choices=18,
        best="mm",
        best_ms=0.41,
        best_triton="triton_mm_4",
        best_triton_ms=0.45,
        autotune_s=12.3,
    )
    assert autotune_text(r) == (
        "mm [4096×4096, 4096×4096] bf16: picked mm at 410 µs over the best Triton config "
        "at 450 µs, 18 choices, tuned in 12.3 s"
    )
    r.best, r.best_ms = "triton_mm_4", 0.45  # a Triton config won
    assert autotune_text(r).startswith("mm [4096×4096, 4096×4096] bf16: picked Triton config triton_mm_4 at 450 µs, ")
    (row,) = autotune_rows(cuda_run())
    assert row.variant == "inductor/max-autotune" and row.shape == "[1024×1024, 1024×1024]"
    assert row.text == (
        "mm [1024×1024, 1024×1024] fp32: picked mm at 410 µs over the best Triton config at 450 µs, "
        "18 choices, tuned in 12.3 s"
    )


def test_autotune_rows_carry_their_times_worded_for_the_panel():
    """The panel's autotune table shows these words and formats nothing (ext/src/measured.ts)."""
    (row,) = run_digest(cuda_run())["measured"]["autotune"]
    assert row["texts"] == {"best_ms": "410 µs", "best_triton_ms": "450 µs", "autotune_s": "12.3 s"}
    extern_only = dataclasses.replace(autotune_rows(cuda_run())[0], best_triton_ms=None, autotune_s=None)
    assert extern_only.texts == {"best_ms": "410 µs", "best_triton_ms": "—", "autotune_s": "—"}


def test_roofline_words_closer_ceiling_and_doubtful_bytes():
    peaks = DevicePeaks(copy_gbps=4100.0, bf16_matmul_tflops=790.0)
    mm = Kernel(
        name="mm",
        language="extern",
        source="",
        graph_id="g",
        achieved_tflops=612.0,
        compute_share=612 / 790,
        achieved_gbps=1230.0,
        bandwidth_share=0.3,
    )
    assert roofline_text(mm, peaks) == "612 TFLOP/s, 77% of the bf16 matmul peak; 1.23 TB/s, 30% of the copy peak"
    add = Kernel(
        name="add", language="triton", source="", graph_id="g", achieved_gbps=1900.0, bandwidth_share=1900 / 4100
    )
    assert roofline_text(add, peaks) == "1.9 TB/s, 46% of the copy peak"
    gather = Kernel(name="gather", language="triton", source="", graph_id="g", achieved_gbps=16000.0)
    assert roofline_text(gather, peaks) == "16 TB/s, above the copy peak: its byte count overstates what it moved"
    fp32 = Kernel(
        name="mm",
        language="extern",
        source="",
        graph_id="g",
        achieved_tflops=2.05,
        achieved_gbps=12.0,
        bandwidth_share=12 / 4100,
    )
    assert roofline_text(fp32, peaks) == "2.05 TFLOP/s; 12 GB/s, 0.3% of the copy peak"  # no share: not bf16


def test_roofline_rows_most_time_first_and_bounded():
    _, fast = slower_and_faster_runs()
    rows = roofline_rows(fast)
    times = {k.id: k.device_time_ms for k in fast.kernels}
    assert [times[r.kernel_id] for r in rows] == sorted((times[r.kernel_id] for r in rows), reverse=True)
    many = cuda_run()
    many.kernels = many.kernels * 10
    assert len(roofline_rows(many)) == ROOFLINE_ROWS
    assert roofline_rows(cpu_run()) == []


def test_cudagraph_skip_words_and_the_cards_warning():
    run = reduce_overhead_run()
    reason = run.variant("inductor/reduce-overhead").cudagraph_skips[0]
    # the line after torch's "Found from :" says where: it is said with it (plain_text.first_line)
    words = (
        "inductor/reduce-overhead did not use CUDA graphs: skipping cudagraphs due to mutated inputs (1 instances). "
        'Found from : File "<compile-profile cell>", line 4, in <cell>…'
    )
    assert cudagraph_text("inductor/reduce-overhead", [reason]) == words
    assert words in warnings(run) and words in summarize(run)["warnings"]
    assert cudagraph_text("v", ["a", "b", "c"], first_only=True) == "v did not use CUDA graphs: a (and 2 more reasons)"
    assert not [w for w in warnings(cuda_run()) if "CUDA graphs" in w]


def test_guard_and_recompile_words():
    run = cuda_run()
    g0, g1 = run_guards(run)
    assert graph_heading(g0) == (
        "graph 0/0 (inductor/default): 9 guards: 2 tensor, 2 dynamic-shape marks, "
        "2 identity, 1 aliasing, 2 global state"
    )
    assert group_text(g0.groups[0]) == "1 tensor guard on x (cell line 2)"
    assert group_text(g0.groups[-1]) == "2 global state guards"
    said = "x (cell line 2) changed dim 0: 1024 → 2048; fix: compile with dynamic=True, or torch._dynamo.mark_dynamic(x, 0) on each new x before the compiled code reads it"
    assert recompile_text(run.recompiles[0]) == (
        f"{said}; Dynamo: tensor 'L['x']' size mismatch at index 0. expected 1024, actual 2048"
    )
    # the card leads with the user's words, then the recompile count
    assert f"1 recompile, 1 during timed runs: {said}" in summarize(run)["warnings"]


def test_the_rest_api_serves_guards_recompiles_and_measured_with_the_agreed_keys():
    for run in [cuda_run(), *slower_and_faster_runs(), reduce_overhead_run(), cpu_run()]:
        d = json.loads(json.dumps(run_digest(run)))
        for g in d["guards"]:
            assert set(g) == {
                "graph_id",
                "variant",
                "compile_id",
                "total",
                "by_kind",
                "kinds_text",
                "heading",
                "groups",
            }
            assert all(
                set(grp) == {"kind", "source", "line", "count", "codes", "warning", "text"} for grp in g["groups"]
            )
            assert sum(g["by_kind"].values()) == g["total"] == sum(grp["count"] for grp in g["groups"])
        for r in d["recompiles"]:
            assert set(r) == {
                "variant",
                "reason",
                "during_timing",
                "source",
                "line",
                "failed_guard",
                "value",
                "changed",
                "fix",
            }
        m = d["measured"]
        assert set(m) == {
            "device_peaks",
            "memory_ratio",
            "autotune",
            "cudagraph_skips",
            "roofline",
            "roofline_count",
            "roofline_note",
        }
        assert m["device_peaks"] is None or set(m["device_peaks"]) == {"text", "method"}
        assert m["memory_ratio"] is None or set(m["memory_ratio"]) == {"value", "text"}
        assert all(
            set(a)
            == {
                "variant",
                "op",
                "shape",
                "choices",
                "best",
                "best_ms",
                "best_triton",
                "best_triton_ms",
                "autotune_s",
                "text",
                "texts",
            }
            for a in m["autotune"]
        )
        assert all(set(s) == {"variant", "reasons", "text"} for s in m["cudagraph_skips"])
        assert all(
            set(r)
            == {
                "kernel_id",
                "name",
                "variant",
                "achieved_gbps",
                "bandwidth_share",
                "achieved_tflops",
                "compute_share",
                "text",
            }
            for r in m["roofline"]
        )
    cpu = run_digest(cpu_run())
    assert cpu["guards"] == [] and cpu["recompiles"] == []
    assert cpu["measured"] == {
        "device_peaks": None,
        "memory_ratio": None,
        "autotune": [],
        "cudagraph_skips": [],
        "roofline": [],
        "roofline_count": 0,
        "roofline_note": "",
    }
    cuda = run_digest(cuda_run())
    assert (
        cuda["recompiles"][0]["failed_guard"]
        == "x (cell line 2) changed dim 0: 1024 → 2048; fix: compile with dynamic=True, or torch._dynamo.mark_dynamic(x, 0) on each new x before the compiled code reads it"
    )
    assert (cuda["recompiles"][0]["value"], cuda["recompiles"][0]["changed"]) == (
        "x (cell line 2)",
        "dim 0: 1024 → 2048",
    )
    assert [g["kinds_text"] for g in cuda["guards"]] == [
        "2 tensor, 2 dynamic-shape marks, 2 identity, 1 aliasing, 2 global state",
        "1 tensor, 1 global state",
    ]
    assert cuda["measured"]["memory_ratio"]["value"] == pytest.approx(4 / 3)
    assert run_digest(reduce_overhead_run())["measured"]["cudagraph_skips"][0]["variant"] == "inductor/reduce-overhead"
    assert "guards" not in summarize(cuda_run()) and "measured" not in summarize(cuda_run())  # the card stays small


def test_hostile_text_reaches_the_digest_as_text():
    d = run_digest(hostile_run())
    assert HOSTILE in d["guards"][0]["groups"][0]["source"] and HOSTILE in d["guards"][0]["groups"][0]["codes"][0]
    assert HOSTILE in d["recompiles"][0]["failed_guard"]


# -- every Python view shows the digest's words ---------------------------------------------------


def _views(run, tmp_path, capsys) -> dict[str, str]:
    """Each view's text: str(run), the CLI's show, and the visible text of the cell's HTML, the report and the
    widget's overview."""
    from compile_profile.cli import main as cli_main
    from compile_profile.render.mime import mime_bundle
    from compile_profile.render.report import render_report_html
    from compile_profile.render.widget import explorer
    from compile_profile.store import RunStore
    from render_fixtures import ParsedHTML

    db = tmp_path / f"{run.id}.sqlite"
    with RunStore(db) as store:
        store.put(run)
    assert cli_main(["--db", str(db), "show", run.id]) == 0
    bundle = mime_bundle(run)
    return {
        "text": str(run),
        "cli": capsys.readouterr().out,
        "plain": bundle["text/plain"],
        "html": ParsedHTML(bundle["text/html"]).text,
        "report": ParsedHTML(render_report_html(run)).text,
        "widget": ParsedHTML(explorer(run).overview.children[0].value).text,
    }


@pytest.mark.parametrize(
    "make", [cuda_run, reduce_overhead_run, lambda: slower_and_faster_runs()[0], lambda: slower_and_faster_runs()[1]]
)
def test_card_text_report_widget_and_cli_show_one_set_of_guard_and_measured_words(make, tmp_path, capsys):
    from compile_profile.render.mime import MIME_TYPE, mime_bundle

    run = make()
    d = run_digest(run)
    views = _views(run, tmp_path, capsys)
    card = mime_bundle(run)[MIME_TYPE]["summary"]
    failed = [r["failed_guard"] for r in d["recompiles"] if r["failed_guard"]]
    assert failed and any(failed[0] in w for w in card["warnings"])  # the card: the failed guard, with the count
    m = d["measured"]
    words = (
        [g["kinds_text"] for g in d["guards"]]
        + failed
        + [a["text"] for a in m["autotune"]]
        + [r["text"] for r in m["roofline"][:10]]
        + [m["device_peaks"]["text"], m["memory_ratio"]["text"]]
        + [cudagraph_text(s["variant"], s["reasons"]) for s in m["cudagraph_skips"]]
    )
    assert d["guards"] and m["autotune"] and m["roofline"]
    for name, shown in views.items():
        for w in words:
            assert w in shown, (name, w)
    for r in run.recompiles:  # the text view's recompile line: the failed guard, then the reason
        assert f": {recompile_text(r)}" in views["text"] and f": {recompile_text(r)}" in views["cli"]
    for gg in run_guards(run):
        assert graph_heading(gg) in views["text"] and graph_heading(gg) in views["report"]
        assert all(group_text(g) in views["text"] for g in gg.groups)
    for r in m["roofline"]:  # the text view and the report list every row the digest serves
        assert r["text"] in views["text"] and r["text"] in views["report"]


def test_the_report_lists_every_guards_check_and_draws_the_roofline():
    from compile_profile.render.charts import figures
    from compile_profile.render.report import render_report_html
    from render_fixtures import ParsedHTML

    run = cuda_run()
    parsed = ParsedHTML(render_report_html(run))
    for g in run.graphs:
        assert all(guard.code in parsed.text for guard in g.guards)
    assert 'data-figure="roofline"' in render_report_html(run)
    fig = figures(run)["roofline"]
    (trace,) = fig["data"]
    rows = [r for r in roofline_rows(run) if r.bound() is not None]
    assert trace["y"][::-1] == [r.name for r in rows]  # most time on top
    assert trace["x"][::-1] == [r.bound()[1] * 100 for r in rows]
    assert [c[0] for c in trace["customdata"]][::-1] == [r.text for r in rows]
    cpu = cpu_run()
    assert figures(cpu)["roofline"]["data"] == [] and 'data-figure="roofline"' not in render_report_html(cpu)
    assert 'id="guards"' not in render_report_html(cpu)


def test_hostile_guards_sources_and_kernel_names_stay_text_in_every_html_view():
    from compile_profile.render.charts import figures
    from compile_profile.render.mime import mime_bundle
    from compile_profile.render.report import render_report_html
    from compile_profile.render.widget import explorer
    from render_fixtures import ParsedHTML

    run = hostile_run()
    for markup in (render_report_html(run), mime_bundle(run)["text/html"], explorer(run).overview.children[0].value):
        parsed = ParsedHTML(markup)
        assert HOSTILE not in markup
        assert not parsed.event_handler_attributes() and not [a for a in parsed.named("img")]
        assert f"{HOSTILE} (cell line 2) changed dim 0: 1024 → 2048" in parsed.text
        assert f"skipping cudagraphs due to {HOSTILE}" in parsed.text
    report = ParsedHTML(render_report_html(run)).text
    assert f"check_tensor(L['x'], {HOSTILE})" in report and f"picked triton_{HOSTILE}" in report
    assert HOSTILE not in json.dumps(figures(run)["roofline"])


def test_the_roofline_note_promises_a_share_of_a_peak_only_where_one_was_measured():
    from compile_profile.digest.measured import roofline_note

    assert "as a share of the device peak measured in this session" in roofline_note(cuda_run())
    cpu = cpu_run()
    assert cpu.device_peaks is None
    assert "share" not in roofline_note(cpu) and "absolute rates" in roofline_note(cpu)
