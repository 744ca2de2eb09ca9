"""Where the profile's own time went (``digest.cost``): one sentence and a table, the same in the text view,
the report and the REST digest; nothing for a run stored before its stages were timed."""

from __future__ import annotations

import re

import pytest
from compile_profile.digest import run_digest
from compile_profile.digest.cost import profile_cost
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from compile_profile.serialize import to_dict
from render_fixtures import ParsedHTML, cpu_run

# the H200 figures of issue 24: a 24-layer training step, 186 s in all
STAGES = {
    "eager first call": 1.2,
    "first call: inductor/default": 80.6,
    "warm-up": 2.1,
    "timing": 3.0,
    "float64 reference": 4.0,
    "correctness": 3.5,
    "memory": 1.0,
    "kernel pass: eager": 40.0,
    "kernel pass: inductor/default": 25.0,
    "kernel pass": 1.5,
    "last eager run": 0.1,
    "other": 0.0001,
}


@pytest.fixture
def run():
    run = cpu_run()
    run.stage_s = dict(STAGES)
    return run


def test_the_sentence_names_first_calls_timing_and_the_largest_stage_after_timing(run):
    cost = profile_cost(run)
    assert cost is not None
    assert cost.total_s == pytest.approx(sum(STAGES.values()))
    assert cost.text == (
        "The profile took 162 s: 80.6 s in the first compiled calls, 5.1 s warming up and timing, "
        "75.1 s (46%) after timing, most of it the eager profile (per cell line) (40 s)."
    )


def test_the_rows_keep_the_stages_order_and_leave_out_what_took_nothing(run):
    rows = profile_cost(run).rows
    assert [r.stage for r in rows] == [name for name in STAGES if name != "other"]
    kernel = next(r for r in rows if r.stage == "kernel pass: inductor/default")
    assert (kernel.label, kernel.time, kernel.share) == ("inductor/default: kernel profile", "25 s", "15%")


def test_a_run_stored_before_stages_were_timed_has_no_cost():
    run = cpu_run()
    assert run.stage_s == {}
    assert profile_cost(run) is None
    assert run_digest(run)["profile_cost"] is None
    assert "The profile took" not in render_text(run)
    assert "The profile's own time" not in render_report_html(run)


def test_text_view_report_and_rest_show_one_cost(run):
    cost = profile_cost(run)
    assert run_digest(run)["profile_cost"] == to_dict(cost)
    text = render_text(run)
    assert cost.text in text
    assert re.search(r"^eager profile \(per cell line\) +40 s +25%$", text, re.M)
    parsed = ParsedHTML(render_report_html(run))
    assert cost.text in parsed.text
    assert ["eager profile (per cell line)", "40 s", "25%"] in parsed.rows
