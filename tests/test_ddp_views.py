"""DDP's own graph breaks said as such, and the collectives part of the call breakdown, in every view.

``ddp_step_run.json`` is rank 0's run of tests/distributed_step.py's "same" step (torchrun, 2 ranks, gloo),
trimmed (graphs' code and guards and the kernels dropped): 7 graph breaks, 3 of them in DDP's forward
wrapper (distributed.py:1757, and twice contextlib.py:105 entering ``_inside_ddp_forward``); eager spent
0.48 ms a call in collectives.
"""

from __future__ import annotations

import copy
import json
import pathlib

import plotly.graph_objects as go
import pytest
from compile_profile.digest.breakdown import breakdown, columns
from compile_profile.digest.breaks import (
    BACKWARD_NOTE,
    DDP_WRAPPER_NOTE,
    OPTIMIZER_NOTE,
    break_count_text,
    break_groups,
    break_summary,
    is_ddp_wrapper_break,
)
from compile_profile.digest.job import job_digest
from compile_profile.digest.summary import headline, summarize, warnings
from compile_profile.profile_run import GraphBreak, ProfileRun
from compile_profile.render.charts import breakdown_figure
from compile_profile.render.html import render_html
from compile_profile.render.report import render_report_html
from job_fixtures import add_print_break
from render_fixtures import cpu_run

FIXTURE = pathlib.Path(__file__).with_name("ddp_step_run.json")
COUNT = "7 graph breaks, all PyTorch's own by design (3 in DDP's wrapper)"
ESCAPED_COUNT = COUNT.replace("'", "&#x27;")

LOGGER_REASON = (
    "Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n"
    "Unsupported method call\n  Explanation: Dynamo does not know how to trace method "
    "`set_runtime_stats_and_log` of class `Logger`\n"
)
SKIPPED_REASON = (
    "Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n"
    "Attempted to call function marked as skipped\n  Explanation: Dynamo developers have intentionally "
    "marked that the function `DistributedDataParallel._inside_ddp_forward` in file "
    "`/site-packages/torch/nn/parallel/distributed.py` should not be traced.\n"
)


@pytest.fixture
def ddp_run() -> ProfileRun:
    return ProfileRun.from_json(FIXTURE.read_text())


def _ddp_groups(run):
    return [g for g in break_groups(run) if g.ddp_wrapper]


def test_ddp_s_wrapper_breaks_are_marked_with_the_note_and_the_user_s_are_not(ddp_run):
    groups = break_groups(ddp_run)
    marked = {g.inside: (g.count, g.note) for g in groups if g.ddp_wrapper}
    assert marked == {
        "torch/nn/parallel/distributed.py:1757": (1, DDP_WRAPPER_NOTE),
        "contextlib.py:105": (2, DDP_WRAPPER_NOTE),
    }
    others = [g for g in groups if not g.ddp_wrapper]
    assert [g.code_line for g in others] == ["opt.zero_grad()", "loss.backward()", "opt.step()"]
    # none of them the user's either: PyTorch's optimizer and backward, each with its own note
    assert [g.owner for g in others] == ["pytorch"] * 3
    assert [g.note for g in others] == [OPTIMIZER_NOTE, BACKWARD_NOTE, OPTIMIZER_NOTE]
    assert sum(g.count for g in groups) == len(ddp_run.graph_breaks) == 7  # still counted as graph breaks


def test_the_rule_is_the_innermost_file_or_a_reason_naming_ddp():
    site = "/venv/lib/python3.11/site-packages/"
    assert is_ddp_wrapper_break(
        GraphBreak(reason=LOGGER_REASON, line=3, filename=site + "torch/nn/parallel/distributed.py", file_line=1757)
    )
    assert is_ddp_wrapper_break(
        GraphBreak(reason=SKIPPED_REASON, line=3, filename="/usr/lib/python3.11/contextlib.py", file_line=105)
    )
    assert not is_ddp_wrapper_break(GraphBreak(reason="builtin: print", line=4, filename="<compile_profile cell>"))
    assert not is_ddp_wrapper_break(
        GraphBreak(reason=LOGGER_REASON, line=3, filename=site + "torch/optim/optimizer.py")
    )


def test_headline_and_summary_say_how_many_breaks_are_ddp_s(ddp_run):
    assert break_count_text(ddp_run) == COUNT
    assert headline(ddp_run).endswith(f"; {COUNT}")
    s = json.loads(json.dumps(summarize(ddp_run)))
    assert s["graph_break_count"] == 7 and s["ddp_wrapper_break_count"] == 3
    assert s["graph_break_text"] == COUNT
    by_inside = {g["inside"]: g for g in s["graph_breaks"]}
    assert by_inside["contextlib.py:105"]["ddp_wrapper"] is True
    assert by_inside["contextlib.py:105"]["note"] == DDP_WRAPPER_NOTE
    assert by_inside["torch/optim/optimizer.py:79"]["ddp_wrapper"] is False


def test_a_run_without_ddp_is_worded_as_before():
    run = cpu_run()
    assert break_count_text(run) == f"{len(run.graph_breaks)} graph break{'s' if len(run.graph_breaks) != 1 else ''}"
    s = summarize(run)
    assert s["ddp_wrapper_break_count"] == 0 and "DDP" not in s["headline"]
    assert not any("DDP" in w for w in s["warnings"])


def test_warnings_say_pytorchs_own_breaks_and_ddps_in_one_line_each(ddp_run):
    out = warnings(ddp_run)
    breaks = [w for w in out if "graph break" in w]
    assert breaks[0].startswith(
        "4 graph breaks are PyTorch's own by design (cell line 2 (opt.zero_grad()); cell line 4 (loss.backward()); "
        "torch/optim/optimizer.py:79 ×2)"
    )
    assert "compiled_autograd = True" in breaks[0]
    assert breaks[1] == (
        "3 graph breaks in DDP's own wrapper (torch/nn/parallel/distributed.py:1757, "
        "contextlib.py:105), which runs eagerly by design; not yours to fix"
    )
    assert len(breaks) == 2  # none takes the card's slots for the user's own


def test_text_view_says_the_note_under_each_ddp_break(ddp_run):
    text = str(ddp_run)
    assert f"graphs: 3 Dynamo graphs, {COUNT}, 0 recompiles" in text
    lines = text.splitlines()
    for g in _ddp_groups(ddp_run):
        at = next(i for i, line in enumerate(lines) if g.inside in line and "graph break" in line)
        assert lines[at + 2] == f"    note: {DDP_WRAPPER_NOTE}"
    assert text.count(f"note: {DDP_WRAPPER_NOTE}") == 2 and text.count("note: ") == 5


def test_html_and_report_say_the_note(ddp_run):
    note = DDP_WRAPPER_NOTE.replace("'", "&#x27;")
    html = render_html(ddp_run)
    assert html.count(note) == 2 and f">{ESCAPED_COUNT}</td>" in html
    report = render_report_html(ddp_run)
    section = report[report.index('<section id="graph-breaks">') :]
    section = section[: section.index("</section>")]
    assert f'<p class="meta">{ESCAPED_COUNT}</p>' in section
    assert section.count(f'<p class="meta ddp-wrapper">{note}</p>') == 2
    assert section.count('<tr class="ddp-wrapper">') == 2


def test_job_break_comparison_still_compares_groups(ddp_run):
    rank0 = ddp_run
    rank1 = copy.deepcopy(ddp_run)
    rank1.distributed.rank = 1
    rank1.id = "rank1"
    assert not [d for d in job_digest([rank0, rank1])["divergences"] if d["what"] == "breaks"]

    add_print_break(rank1)  # a break of the user's on rank 1 only
    (d,) = [d for d in job_digest([rank0, rank1])["divergences"] if d["what"] == "breaks"]
    assert d["rank"] == 1 and "extra graph break" in d["text"] and "DDP" not in d["text"]

    rank1 = copy.deepcopy(ddp_run)
    rank1.distributed.rank, rank1.id = 1, "rank1"
    rank1.graph_breaks = [b for b in rank1.graph_breaks if not b.filename.endswith("contextlib.py")]
    extra = next(g for g in _ddp_groups(ddp_run) if g.inside == "contextlib.py:105")
    # two ranks that differ: the one with more breaks diverges, here rank 0 with DDP's group rank 1 lacks
    (d,) = [d for d in job_digest([rank0, rank1])["divergences"] if d["what"] == "breaks"]
    assert d["rank"] == 0
    assert d["text"] == f"graph breaks differ from the others': extra {break_summary(extra)}"
    assert d["text"].endswith(f"({DDP_WRAPPER_NOTE})")


# -- collectives in the breakdown chart -------------------------------------------------------------


def test_breakdown_chart_takes_the_digest_s_columns_collectives_included(ddp_run):
    rows = breakdown(ddp_run)
    fig = breakdown_figure(ddp_run)
    go.Figure(fig)  # meta is a plotly trace property
    parts = [key for key, _ in columns(rows) if key != "call"]
    assert parts == ["library", "generated", "aten", "copies", "collectives", "outside"]
    assert [t["meta"]["part"] for t in fig["data"]] == parts
    assert [t["name"] for t in fig["data"]] == [h for k, h in columns(rows) if k != "call"]
    collectives = next(t for t in fig["data"] if t["meta"]["part"] == "collectives")
    by_variant = dict(zip(collectives["y"], collectives["x"]))
    assert by_variant["eager"] == pytest.approx(0.4828376666666667) and by_variant["inductor/default"] == 0.0
    # the parts still add up to the call
    for i, label in enumerate(fig["data"][0]["y"]):
        row = next(r for r in rows if r.variant == label)
        assert sum(t["x"][i] for t in fig["data"]) == pytest.approx(row.kernels_ms + row.outside_ms)
    assert summarize(ddp_run)["breakdown_columns"] == [{"key": k, "label": h} for k, h in columns(rows)]


def test_breakdown_chart_has_no_collectives_part_outside_distributed_runs():
    run = cpu_run()
    fig = breakdown_figure(run)
    assert [t["meta"]["part"] for t in fig["data"]] == ["library", "generated", "aten", "copies", "outside"]
    assert [c["key"] for c in summarize(run)["breakdown_columns"]] == [
        "library",
        "generated",
        "aten",
        "copies",
        "outside",
        "call",
    ]
