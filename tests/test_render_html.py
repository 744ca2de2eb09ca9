"""render_html: the static summary table of the cell output; escaped, script-free, bounded."""

from __future__ import annotations

import pytest
from compile_profile.digest.format import format_ms
from compile_profile.render.html import render_html
from render_fixtures import (
    ALL_RUNS,
    HOSTILE,
    ParsedHTML,
    big_run,
    cpu_run,
    cuda_run,
    failed_run,
    hostile_run,
    without_breakdown,
)


def _row(parsed: ParsedHTML, first_cell: str, width: int | None = None) -> list[str]:
    """The one table row starting with ``first_cell`` (of ``width`` cells, where tables share first cells)."""
    rows = [r for r in parsed.rows if r and r[0] == first_cell and width in (None, len(r))]
    assert len(rows) == 1, (first_cell, parsed.rows)
    return rows[0]


@pytest.mark.parametrize("name", sorted(ALL_RUNS))
def test_html_is_well_formed_and_has_no_active_content(name):
    parsed = ParsedHTML(render_html(ALL_RUNS[name]()))
    assert parsed.nesting_errors == []
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"script", "img", "iframe", "object", "embed", "link", "style"}
    assert parsed.event_handler_attributes() == []


def test_hostile_text_is_shown_as_text():
    run = without_breakdown(hostile_run())  # no eager column: line 5's row is as wide as the breaks table's
    html = render_html(run)
    assert "<script" not in html.lower() and "<img" not in html.lower()
    parsed = ParsedHTML(html)
    # Label, cell line, break reason, kernel name, error message and more all carry it, as text.
    assert parsed.text.count(HOSTILE) >= 6
    assert _row(parsed, "5", 5)[1] == f"print('{HOSTILE}')"  # the graph breaks table
    assert _row(parsed, "5", 5)[4] == f"builtin: print {HOSTILE}"
    assert _row(parsed, "5", 4)[1] == f"print('{HOSTILE}')"  # time per cell line
    assert any(row and row[0] == f"triton_{HOSTILE}" for row in parsed.rows)
    assert _row(parsed, "correctness", 4)[3] == f"mismatch {HOSTILE}"


def test_variant_rows_match_the_run():
    run = cuda_run()
    parsed = ParsedHTML(render_html(run))
    for v in run.variants:
        row = _row(parsed, v.name, 10)
        assert row[1:5] == [
            format_ms(v.timing.median_ms),
            format_ms(v.timing.p10_ms),
            format_ms(v.timing.p90_ms),
            str(v.timing.n),
        ]
    assert (
        _row(parsed, "inductor/default", 10)[5]
        == f"{run.eager.timing.median_ms / run.variant('inductor/default').timing.median_ms:.2f}× faster"
    )
    assert "against eager" in parsed.text and "÷" not in parsed.text  # the headline's words, not a ratio to read
    assert _row(parsed, "speedup")[1] == "2.71× faster [2.60×–2.83×] 95% CI (inductor/max-autotune)"
    assert _row(parsed, "inductor/max-autotune", 10)[9] == "recompiled while timed"


def test_facts_rows():
    parsed = ParsedHTML(render_html(cuda_run()))
    assert _row(parsed, "Dynamo graphs")[1] == "2"
    assert _row(parsed, "recompiles")[1] == "1 (1 during timing)"
    assert _row(parsed, "kernels")[1] == "2 generated kernels (triton), 1 library call"
    assert _row(parsed, "compile cache")[1] == "cold (FX graph 0 hits, 2 missed)"
    assert (
        _row(parsed, "correctness", 2)[1]
        == "ok: compiled results match eager within dtype tolerance (max abs diff 1.9e-06)"
    )
    assert _row(parsed, "recommendation (--sweep)")[1] == (
        "inductor/max-autotune, the fastest compiled variant (2.71× faster [2.60×–2.83×] than eager)"
        'torch.compile(fn, mode="max-autotune")'
    )


def test_cpu_memory_is_the_note():
    run = cpu_run()
    parsed = ParsedHTML(render_html(run))
    for v in run.variants:
        assert _row(parsed, v.name, 10)[8] == "not measured on CPU (peak memory is read from the CUDA allocator)"
    assert "MiB" not in parsed.text


def test_failed_run_shows_the_error_and_status():
    parsed = ParsedHTML(render_html(failed_run()))
    assert _row(parsed, "compile", 4)[1:] == [
        "inductor/default",
        "4",
        "LoweringException: NotImplementedError: aten.weird…",
    ]
    assert _row(parsed, "status")[1] == "failed"
    assert _row(parsed, "inductor/default", 10)[1] == "—"


def test_thousand_kernels_list_the_top_ten_and_a_count():
    run = big_run(1000)
    html = render_html(run)
    assert len(html) < 40_000
    parsed = ParsedHTML(html)
    slowest = sorted(run.kernels, key=lambda k: -k.device_time_ms)[:10]
    listed = [row[0] for row in parsed.rows if row and row[0].startswith("triton_poi_fused_")]
    assert listed == [k.name for k in slowest]
    assert "showing 10 of 1000 kernels" in parsed.text
    assert run.kernels[0].source not in html
