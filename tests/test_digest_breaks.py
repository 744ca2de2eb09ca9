"""Graph breaks as the user can act on them: whose each is, what to do, and a count of the ones that are theirs.

Issue 23, item 1: a Hugging Face training step with fused AdamW read "7 graph breaks" where every one but the
backward's was PyTorch's own optimizer internals (``torch._dynamo.graph_break()`` in optimizer.py,
``_fused_adam`` under ``torch.compiler.disable``, ``zero_grad`` marked not to be traced), and nothing said so.
``break_fixtures/fused_adamw_step.json`` holds the graph breaks of a real CPU training step with
``AdamW(fused=True)`` (torch 2.13), as the engine recorded them.
"""

from __future__ import annotations

import json
from pathlib import Path

from compile_profile.digest.breaks import (
    BACKWARD_NOTE,
    FUSED_OPTIMIZER_NOTE,
    OPTIMIZER_NOTE,
    break_count_text,
    break_groups,
    break_summary,
    no_breaks_text,
)
from compile_profile.digest.facts import interrupted_text
from compile_profile.digest.summary import summarize, warnings
from compile_profile.profile_run import GraphBreak
from compile_profile.render.text import render_text
from render_fixtures import cpu_run, failed_run, interrupted_run

FIXTURES = Path(__file__).parent / "break_fixtures"
SITE = "/home/user/.venv/lib/python3.11/site-packages/"


def _run_with(breaks: list[GraphBreak], source: str):
    run = cpu_run()
    run.cell_source, run.graph_breaks = source, breaks
    return run


def _fused_adamw_step():
    data = json.loads((FIXTURES / "fused_adamw_step.json").read_text())
    return _run_with([GraphBreak(**b) for b in data["graph_breaks"]], data["cell_source"])


def test_a_fused_adamw_steps_breaks_are_all_pytorchs_own_and_the_card_says_so_in_one_line():
    run = _fused_adamw_step()
    groups = break_groups(run)
    assert [g.owner for g in groups] == ["pytorch", "pytorch", "pytorch"]
    zero_grad, hook, fused = groups
    assert zero_grad.note == hook.note == OPTIMIZER_NOTE
    assert fused.note == FUSED_OPTIMIZER_NOTE
    assert zero_grad.line == 2 and zero_grad.code_line == "opt.zero_grad()"
    assert hook.inside == "torch/optim/optimizer.py:79"
    # Dynamo's restart ("Failed to handle graph break gracefully. Skipping the function ...") and its two re-logs
    # of one site are one row, which says the rest of the function ran eagerly
    assert fused.inside == "torch/optim/adam.py:970" and fused.count == 3 and fused.skipped_rest
    assert fused.page.endswith("/gb/gb0098.html")
    assert break_count_text(run) == "5 graph breaks, all PyTorch's own by design"
    card = warnings(run)
    breaks = [w for w in card if "graph break" in w]
    assert len(breaks) == 1 and breaks[0].startswith("5 graph breaks are PyTorch's own by design (")
    assert "torch/optim/adam.py:970 ×3" in breaks[0]
    # the fused step runs outside the graph, and fused=False would compile it: there is something to change
    assert "nothing to change in your code" not in breaks[0]
    assert breaks[0].endswith(
        "the optimizer runs these parts eagerly under torch.compile; a fused optimizer (fused=True) runs its step "
        "outside the graph (torch.compiler.disable); with fused=False (foreach) torch.compile compiles the update "
        "into the graph, which may be faster: profile both"
    )
    summary = summarize(run)
    assert summary["graph_break_text"] == "5 graph breaks, all PyTorch's own by design"
    assert [g["owner"] for g in summary["graph_breaks"]] == ["pytorch"] * 3
    text = render_text(run)
    assert "ran the rest of that function eagerly" in text and "see: https://" in text


def test_the_users_own_break_a_librarys_and_the_backward_are_told_apart_with_what_to_do():
    breaks = [
        GraphBreak(
            reason="Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n"
            "Unsupported builtin print\n  Explanation: Dynamo does not know how to trace builtin `print`.\n\n"
            " For more details about this graph break, please visit: "
            "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html",
            line=2,
            code_line="print(y.sum())",
            filename="<compile-profile-cell-0>",
            file_line=2,
            file_code="print(y.sum())",
        ),
        GraphBreak(
            reason="Unsupported: call logger.warning_once",
            line=3,
            code_line="out = model(ids)",
            filename=SITE + "transformers/modeling_utils.py",
            file_line=4635,
            file_code="logger.warning_once(msg)",
        ),
        GraphBreak(
            reason="Unsupported Tensor.backward() call",
            line=4,
            code_line="loss.backward()",
            filename="<compile-profile-cell-0>",
            file_line=4,
            file_code="loss.backward()",
        ),
    ]
    run = _run_with(breaks, "%%compile_profile\nprint(y.sum())\nout = model(ids)\nloss.backward()\n")
    yours, library, backward = break_groups(run)
    assert (yours.owner, library.owner, backward.owner) == ("yours", "library", "pytorch")
    assert yours.page.endswith("/gb/gb0059.html") and "(see https://" in break_summary(yours)
    assert library.note == "in transformers, not your code: the library breaks the graph there"
    assert backward.note == BACKWARD_NOTE and "compiled_autograd = True" in backward.note
    assert break_count_text(run) == "3 graph breaks, 1 PyTorch's own by design, 1 in libraries"
    card = warnings(run)
    # the user's own first, then the library's, then PyTorch's own on a line of its own
    first, second, third = [w for w in card if "graph break" in w]
    assert first.startswith("graph break at cell line 2 (print(y.sum()))")
    assert second.startswith("graph break at cell line 3 (out = model(ids)), inside transformers/modeling_utils.py")
    assert third.startswith("1 graph break is PyTorch's own by design (cell line 4 (loss.backward()))")


def test_an_empty_list_of_breaks_says_whether_dynamo_traced_whole_graphs_or_never_ran():
    # before: a run that failed before Dynamo ran read "No graph breaks: Dynamo traced the cell in whole graphs"
    traced = cpu_run()
    traced.graph_breaks = []
    assert no_breaks_text(traced) == "No graph breaks: Dynamo traced the cell in whole graphs."
    failed = failed_run()
    failed.graphs, failed.graph_breaks = [], []
    assert "failed before Dynamo traced the cell" in no_breaks_text(failed)
    stopped = interrupted_run()
    stopped.graphs = []
    assert "interrupted before Dynamo traced the cell" in no_breaks_text(stopped)
    assert summarize(stopped)["graph_break_empty_text"] == no_breaks_text(stopped)
    # and an interrupted run says what it holds, not "partial results" with nothing in them
    assert interrupted_text(stopped) == "interrupted before anything was compiled: only the eager run's results stand"
    assert interrupted_text(stopped) in warnings(stopped)
    assert interrupted_text(traced) == ""


def _lines_run(script: str | None):
    """cpu_run with a break, a recompile, a value guard on data and a compile error, each at a line; read from a
    TORCH_TRACE of ``script`` where one is given."""
    from compile_profile.profile_run import ErrorInfo, Graph, Guard, Recompile, TraceOrigin

    run = cpu_run()
    variant = run.variants[-1].name
    run.graph_breaks = [GraphBreak(reason="builtin: print", line=4, code_line="print(y)", variant=variant)]
    run.recompiles = [Recompile(reason="size mismatch", variant=variant, source="L['x']", line=2, change="size", dim=0)]
    run.graphs.append(
        Graph(
            id=f"{variant}/1/0/dynamo",
            kind="dynamo",
            code="",
            variant=variant,
            compile_id="1/0",
            guards=[
                Guard(
                    code="L['___stack0'] == 56.15234375",
                    kind="value",
                    source="L['___stack0']",
                    line=5,
                    user_name="s",
                    user_expr="x.sum().item()",
                )
            ],
        )
    )
    run.errors = [
        ErrorInfo(stage="compile", message="boom", variant=variant, compile_stage="inductor_lowering", line=3)
    ]
    if script is not None:
        run.imported_trace = TraceOrigin(path="/tmp/t/log.log", script=script)
    return run


def test_a_traced_scripts_lines_are_the_scripts_wherever_the_digest_words_one():
    from compile_profile.digest.guards import recompiles_digest

    run = _lines_run("/home/me/repo/train.py")
    words = [*warnings(run), render_text(run), *(r.failed_guard for r in recompiles_digest(run))]
    said = "\n".join(words)
    assert "cell line" not in said
    for n in (2, 3, 4, 5):
        assert f"train.py line {n}" in said, n
    assert "graph break at train.py line 4 (print(y))" in said
    assert "x (train.py line 2) changed dim 0" in said
    # a trace that named no user frame: its lines are the script's, unnamed
    assert "script line 4" in "\n".join(warnings(_lines_run("")))


def test_a_cells_lines_stay_cell_lines():
    said = "\n".join([*warnings(_lines_run(None)), render_text(_lines_run(None))])
    for n in (2, 3, 4, 5):
        assert f"cell line {n}" in said, n


def test_a_break_in_a_helper_another_cell_defines_is_placed_by_its_function_and_cell_number():
    # placed at "2868138915.py:2" (the kernel's file of cell [3]) before: the engine now records the function and
    # the cell (GraphBreak.file_function, file_cell)
    b = GraphBreak(
        reason="Dynamo does not know how to trace builtin operator `print`",
        line=2,
        code_line="y = scale_by_max(x)",
        filename="/tmp/ipykernel_4242/2868138915.py",
        file_line=2,
        file_code="print(t.max())",
        file_function="scale_by_max",
        file_cell=3,
    )
    [group] = break_groups(_run_with([b], "x = x * 2\ny = scale_by_max(x)\n"))
    assert group.owner == "yours" and group.inside == "scale_by_max, cell [3] line 2"
    assert break_summary(group).startswith(
        "graph break at cell line 2 (y = scale_by_max(x)), inside scale_by_max, cell [3] line 2 (print(t.max()))"
    )
