"""The verdict ladder (digest/outcome.py) on built runs: which rung holds, its words, its tone, the speedup beneath it
and what every list shows; no torch.  tests/test_verdict.py holds the same verdicts on real profiles."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from compile_profile.digest.outcome import LADDER, outcome
from compile_profile.digest.summary import headline, summarize
from compile_profile.profile_run import (
    Correctness,
    GraphBreak,
    InputCall,
    InputSequence,
    InputSignature,
    KernelProfile,
    Note,
    Recompile,
    Speedup,
)
from render_fixtures import cpu_run, cuda_run, failed_run, interrupted_run

GOLDEN = Path(__file__).parent / "verdict_golden.json"  # the panel's jest test reads the same verdicts


def _matching(run):
    run.correctness = Correctness(ok=True, max_abs_diff=1e-7, compared=["y"])
    return run


def _limit_run(frame: str = "", *, profiled: str = "none"):
    """cpu_run with the compiled variant's frame hitting the recompile limit; ``profiled``: "none" (no pass, as
    --quick), "no_graph" (the pass saw no compiled region) or "graphs" (it saw them run)."""
    run = _matching(cpu_run())
    run.recompiles = [
        Recompile(
            reason="G['k'] == 7.0", variant="inductor/default", compile_id="0/8", source="G['k']", change="value"
        ),
        Recompile(
            reason="G['k'] == 8.0",
            variant="inductor/default",
            compile_id="0/9" if not frame else "1/8",
            limit="recompile_limit (8)",
            frame=frame,
            filename="torch/optim/adamw.py" if frame else "",
        ),
    ]
    best = run.variant("inductor/default")
    if profiled == "none":
        best.kernel_profile = None
    elif profiled == "no_graph":
        assert best.kernel_profile is not None
        best.kernel_profile.notes = [Note("no_graph_region", variant=best.name)]
    return run


def test_the_ladder_is_in_the_documented_order():
    assert [r.kind for r in LADDER] == [
        "trace",
        "eager_failed",
        "compile_failed",
        "results_differ",
        "ran_eagerly",
        "nothing_compiled",
        "stopped",
        "busy_cpu",
        "partly_eager",
        "not_measurable",
        "faster",
        "slower",
    ]


def test_results_that_differ_lead_the_headline_badge_and_list_and_the_speedup_is_not_meaningful():
    run = cpu_run()  # compiled y differs from eager by 0.031; 1.05× slower within noise
    s = summarize(run)
    assert s["outcome"] == {
        "kind": "results_differ",
        "label": "results differ",
        "text": "results differ: compiled differs from eager in y (max abs diff 0.031)",
        "tone": "wrong",
        "speedup_meaningful": False,
        "speedup_text": "1.05× slower — not meaningful: compiled results differ",
    }
    assert s["headline"].startswith(
        "results differ: compiled differs from eager in y (max abs diff 0.031); "
        "inductor/default 1.05× slower (not meaningful): 9.43 ms → 10.3 ms; compile 800 ms"
    )
    assert s["list_status"] == "results differ"
    assert "not meaningful: compiled results differ" in s["diagnosis_heading"]
    # the chart's bar of the speedup's variant, beside the headline, says so too
    from compile_profile.render.charts import figures

    (bars,) = figures(run)["variants"]["data"]
    assert dict(zip(bars["x"], bars["text"]))["inductor/default"].endswith("95% CI (not meaningful)")


def test_results_that_differ_on_one_input_of_a_sequence_are_the_verdict():
    run = _matching(cpu_run())
    run.inputs = InputSequence(
        count=3,
        signatures=[InputSignature(parts=["x: (8, 4) float32"], inputs=[0, 1, 2])],
        calls=[InputCall(index=i, signature=0, matches=i != 1, mismatched=["y"] if i == 1 else []) for i in range(3)],
    )
    o = outcome(run)
    assert o.kind == "results_differ" and o.text == "results differ: compiled differs from eager on 1 of 3 inputs"


def test_the_cells_own_frame_at_the_recompile_limit_is_an_eager_fallback_that_overrides_the_speedup():
    run = _limit_run()
    s = summarize(run)
    o = s["outcome"]
    assert (o["kind"], o["label"], o["tone"], o["speedup_meaningful"]) == ("ran_eagerly", "ran eagerly", "eager", False)
    assert o["text"] == (
        "ran eagerly: the cell's code hit Dynamo's recompile limit, torch._dynamo.config.recompile_limit (8), at "
        "compile 0/9, and Dynamo runs it eagerly from then on (a call runs compiled only where an earlier compile's "
        "guards accept it)"
    )
    assert o["speedup_text"] == "1.05× slower — not meaningful: the compiled calls ran eagerly"
    assert s["headline"].startswith(o["text"] + "; inductor/default 1.05× slower (not meaningful): ")
    assert s["list_status"] == "ran eagerly"


def test_a_profiler_pass_that_saw_no_compiled_graph_confirms_the_fallback_in_its_words():
    o = outcome(_limit_run(profiled="no_graph"))
    assert o.kind == "ran_eagerly" and o.text.endswith("as its profiled calls show (they ran no compiled graph)")
    no_limit = _matching(cpu_run())
    profile = no_limit.variant("inductor/default").kernel_profile
    assert isinstance(profile, KernelProfile)
    profile.notes = [Note("no_graph_region", variant="inductor/default")]
    assert outcome(no_limit).text == (
        "ran eagerly: the profiled inductor/default calls ran no compiled graph, every op outside compiled code"
    )


def test_a_limit_whose_frame_still_ran_compiled_graphs_or_a_librarys_frame_is_partly_eager_and_keeps_the_speedup():
    for run in (_limit_run(profiled="graphs"), _limit_run(frame="AdamW.step")):
        s = summarize(run)
        o = s["outcome"]
        assert (o["kind"], o["label"], o["tone"], o["speedup_meaningful"]) == (
            "partly_eager",
            "1.05× slower",  # the speedup is the badge: it is what compiling buys with that part eager
            "even",
            True,
        )
        assert "; part of it ran eagerly: " in s["headline"] and s["list_status"] == "partly eager"
    assert "AdamW.step (adamw.py) hit torch._dynamo.config.recompile_limit (8) at compile 1/8" in headline(
        _limit_run(frame="AdamW.step")
    )


def test_the_cells_code_after_a_graph_break_at_the_limit_is_partly_eager_and_says_whether_it_held_a_graph():
    run = _limit_run()
    run.recompiles[-1].resumes_after = 5  # frame 0 is then the code after the break at cell line 5
    o = outcome(run)
    assert o.kind == "partly_eager" and not o.overrides  # the speedup leads
    held = "" if any(g.compile_id.startswith("0/") for g in run.graphs) else ", which holds no graph"
    assert (
        f"the cell's code after its graph break at line 5{held}, hit torch._dynamo.config.recompile_limit (8) at "
        "compile 0/9" in o.text
    )
    run.graphs = [g for g in run.graphs if not g.compile_id.startswith("0/")]
    assert "after its graph break at line 5, which holds no graph, hit" in outcome(run).text


def test_a_frame_dynamo_skipped_after_a_graph_break_is_partly_eager():
    run = _matching(cpu_run())
    run.graph_breaks = [
        GraphBreak(
            reason="Failed to handle graph break gracefully. Skipping the function and falling back to eager. …",
            line=4,
            code_line="y = torch.relu(x @ w) + 1",
            variant="inductor/default",
        )
    ]
    o = outcome(run)
    assert o.kind == "partly_eager"
    assert "Dynamo could not resume after the graph break at cell line 4 (y = torch.relu(x @ w) + 1)" in o.text


def test_a_speedup_within_noise_is_not_measurably_different_and_a_clear_one_is_faster_or_slower():
    even = _matching(cpu_run())
    assert (outcome(even).kind, summarize(even)["outcome"]["tone"]) == ("not_measurable", "even")
    assert summarize(even)["outcome"]["label"] == "1.05× slower" and summarize(even)["list_status"] == "ok"
    fast = cuda_run()
    s = summarize(fast)["outcome"]
    assert (s["kind"], s["label"], s["tone"], s["speedup_meaningful"]) == ("faster", "2.71× faster", "faster", True)
    slow = _matching(cpu_run())
    slow.speedup = Speedup(value=0.5, low=0.45, high=0.55, variant="inductor/default")
    assert (outcome(slow).kind, summarize(slow)["outcome"]["tone"]) == ("slower", "slower")
    unmeasured = _matching(cpu_run())
    unmeasured.speedup = Speedup(value=1.5, low=None, high=None, variant="inductor/default")
    assert outcome(unmeasured).text.endswith("too few samples for an interval")


def test_a_failed_compile_and_a_stopped_profile_say_so_first_and_lists_show_it():
    failed = summarize(failed_run())
    assert failed["outcome"]["kind"] == "compile_failed" and failed["outcome"]["tone"] == "wrong"
    assert failed["outcome"]["label"] == failed["list_status"] == "compile failed"
    assert failed["headline"].startswith("compile failed (inductor/default)")
    stopped = interrupted_run()  # interrupted while timing: no speedup
    stopped.correctness = None
    s = summarize(stopped)
    assert (s["outcome"]["kind"], s["outcome"]["label"], s["list_status"]) == ("stopped", "interrupted", "interrupted")
    assert s["headline"] == "profile interrupted"
    stopped.correctness = cpu_run().correctness  # it had found results that differ before: both, that first
    s = summarize(stopped)
    assert s["outcome"]["kind"] == "results_differ" and s["list_status"] == "interrupted, results differ"
    assert s["headline"] == "results differ: compiled differs from eager in y (max abs diff 0.031); profile interrupted"


def test_each_rung_keeps_the_speedup_and_status_beneath_it_as_the_panel_reads_them():
    """The verdicts the panel's jest test reads (ext/test/verdict.test.ts): each summary's verdict beside its speedup
    and status, as the digest writes them.  ``UPDATE_GOLDEN=1`` rewrites the file from the digest."""
    cases = {
        "results_differ": cpu_run(),
        "ran_eagerly": _limit_run(),
        "partly_eager": _limit_run(frame="AdamW.step"),
        "not_measurable": _matching(cpu_run()),
        "faster": cuda_run(),
        "compile_failed": failed_run(),
    }
    golden = {}
    for name, run in cases.items():
        s = summarize(run)
        golden[name] = {k: s[k] for k in ("status", "list_status", "speedup", "outcome")}
    golden = json.loads(json.dumps(golden))
    if __import__("os").environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(golden, indent=2, ensure_ascii=False) + "\n")
    assert json.loads(GOLDEN.read_text()) == golden
    for name, case in golden.items():
        assert case["outcome"]["kind"] == name


@pytest.mark.parametrize("make", [cpu_run, cuda_run, failed_run, interrupted_run])
def test_the_outcome_is_the_same_each_time_and_does_not_change_the_run(make):
    run = make()
    before = copy.deepcopy(run.to_dict())
    assert summarize(run)["outcome"] == summarize(run)["outcome"]
    assert run.to_dict() == before


def test_a_compile_that_never_pays_back_says_why_in_the_speedups_own_words():
    from compile_profile.digest.diagnosis import diagnosis

    slower = _matching(cpu_run())  # 1.05x slower, within noise or not: said either way
    compile_cause = next(c for c in diagnosis(slower) if c.kind == "compile")
    s = slower.speedup
    expected = "slower" if s.value < 1 and not s.includes_one else "not measurably faster"
    assert compile_cause.cost_text.endswith(f"it never pays back: compiled is {expected}")
    s.value, s.low, s.high = 1 / 1.8, 1 / 1.86, 1 / 1.75  # 1.80x slower, beyond noise
    assert next(c for c in diagnosis(slower) if c.kind == "compile").cost_text.endswith(
        "it never pays back: compiled is slower"
    )
