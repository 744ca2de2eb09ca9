"""A recompile and a value guard in the user's words, from real compiles: the cell's variable behind a Dynamo
stack slot, the cell line, what changed and the fix; a value guard on data flagged before it recompiles; a
module's parameter guards in one row.  Each is held against what torch itself says (``TORCH_LOGS=recompiles``)
about a plain ``torch.compile`` of the same code."""

from __future__ import annotations

import itertools
import logging
import re

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.guards import failed_guard_text, run_guards
from profile_options import CHEAP  # Dynamo's guards are the subject, not a backend's

pytestmark = [pytest.mark.filterwarnings("ignore"), pytest.mark.compiles]  # every test profiles


class _Logged(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _recompile_logs(call) -> tuple[object, list[str]]:
    """``call()``'s result and the ``TORCH_LOGS=recompiles`` messages torch logged meanwhile."""
    torch._logging.set_logs(recompiles=True)
    logger = logging.getLogger("torch._dynamo.guards.__recompiles")
    logged = _Logged()
    logger.addHandler(logged)
    try:
        return call(), logged.messages
    finally:
        logger.removeHandler(logged)
        torch._logging.set_logs()


def _batches():
    return itertools.cycle([torch.randn(4, 32), torch.randn(4, 17)])


def test_a_recompile_after_a_graph_break_names_the_cells_variable_its_line_the_changed_dim_and_the_fix():
    torch.manual_seed(0)
    ns = {"torch": torch, "batches": _batches(), "w": torch.randn(4, 1)}
    body = "h = w * 2\nxb = next(batches)\ny = (xb * h).relu().sum()\n"
    run, logged = _recompile_logs(lambda: run_cell(body, ns, **CHEAP).run)
    slot = [r for r in run.recompiles if r.source == "___stack0"]
    assert slot, run.recompiles
    r = slot[0]
    # the cell's line 1 is the magic: the break at `xb = next(batches)` is cell line 3
    assert (r.user_name, r.user_expr, r.line) == ("xb", "next(batches)", 3)
    assert (r.change, r.dim) == ("size", 1) and {r.expected, r.actual} == {"32", "17"}
    # torch's own words for the same recompile: the resume function after the break, its stack slot, the dim
    said = [m for m in logged if "torch_dynamo_resume_in" in m and "'___stack0' size mismatch at index 1" in m]
    assert said and f"expected {r.expected}, actual {r.actual}" in said[0], logged
    assert failed_guard_text(r) == (
        f"xb, what next(batches) returned at cell line 3, changed dim 1: {r.expected} → {r.actual}; "
        "fix: compile with dynamic=True, or torch._dynamo.mark_dynamic on dim 1 of each value next(batches) returns, "
        "where it is made (inside the compiled code mark_dynamic is refused)"
    )
    # the guard that failed is listed under the user's name, at the break's line (not left out as the
    # tool's own, though the publish setter is where it was placed)
    rows = [grp for gg in run_guards(run) for grp in gg.groups if (grp.kind, grp.source) == ("tensor", "xb")]
    assert rows and {grp.line for grp in rows} == {3} and "check_tensor(L['___stack0']" in rows[0].codes[0]
    card = [w for w in run.summary()["warnings"] if re.match(r"\d+ recompiles?\b", w)]
    assert card and "xb, what next(batches) returned at cell line 3" in card[0] and "___stack0" not in card[0]


def _plain(w, batches):
    h = w * 2
    xb = next(batches)  # the break: Dynamo does not trace next() on a generator
    return (xb * h).relu().sum()


def test_the_stack_slot_is_what_the_statement_at_the_break_assigns_as_torch_says_for_a_plain_compile():
    # slot 0 of the resume function at the break's line is next(batches)'s result: a plain torch.compile,
    # no tool in between, recompiles on exactly that value's dim 1 when the batch width changes
    torch._dynamo.reset()
    compiled = torch.compile(_plain, backend="eager")
    batches = iter([torch.randn(4, 32), torch.randn(4, 17)])
    _, logged = _recompile_logs(lambda: [compiled(torch.randn(4, 1), batches) for _ in range(2)])
    line = _plain.__code__.co_firstlineno + 2
    (said,) = [m for m in logged if "Recompiling function" in m]
    assert f"torch_dynamo_resume_in__plain_at_{line}" in said
    assert "tensor '___stack0' size mismatch at index 1. expected 32, actual 17" in said


def _scale(x):
    s = x.sum().item()
    return x / max(s, 1.0)


def test_a_value_guard_on_an_item_result_is_flagged_before_it_recompiles():
    import compile_profile

    torch.manual_seed(0)
    run = compile_profile.profile(_scale, torch.randn(8), **CHEAP)
    flagged = [g for gg in run_guards(run) for g in gg.groups if g.warning]
    assert len(flagged) == 1 and flagged[0].kind == "value" and flagged[0].source == "s", flagged
    assert flagged[0].codes[0].startswith("L['___stack0'] == ")
    warning = [w for w in run.summary()["warnings"] if w.startswith("recompiles when the value changes")]
    assert warning == [flagged[0].warning]
    assert "s, what x.sum().item() returned at cell line 2" in warning[0]
    assert "capture_scalar_outputs = True" in warning[0]
    # torch's own account: a plain compile recompiles on that value for another x, and not with the fix
    torch._dynamo.reset()
    compiled = torch.compile(_scale, backend="eager")
    _, logged = _recompile_logs(lambda: [compiled(torch.randn(8) + i) for i in range(2)])
    assert any("___stack0 == " in m for m in logged), logged
    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        compiled = torch.compile(_scale, backend="eager")
        _, logged = _recompile_logs(lambda: [compiled(torch.randn(8) + i) for i in range(3)])
    assert not [m for m in logged if "Recompiling" in m], logged


def test_a_models_parameter_guards_are_one_row_with_the_raw_runs_count():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    run = run_cell("y = m(x)\n", {"torch": torch, "m": m, "x": torch.randn(2, 8)}, **CHEAP).run
    (graph,) = [g for g in run.graphs if g.kind == "dynamo" and g.variant == run.graphs[0].variant]
    # every guard on one of m's parameters or on a parameters dict of m's modules (its type)
    raw = [g for g in graph.guards if re.match(r"G\['m'\](\._modules\['\w+'\])*\._parameters\b", g.source)]
    (gg,) = [gg for gg in run_guards(run) if gg.graph_id == graph.id]
    rows = [grp for grp in gg.groups if grp.source == "m's parameters"]
    assert {grp.kind for grp in rows} == {g.kind for g in raw}, "one row per kind"
    assert sum(grp.count for grp in rows) == len(raw) and len(raw) >= 4, "2 weights and 2 biases, each checked"
    tensor_row = next(grp for grp in rows if grp.kind == "tensor")
    assert tensor_row.count == sum(1 for g in raw if g.kind == "tensor") == 4
    assert sorted(tensor_row.codes) == sorted(g.code for g in raw if g.kind == "tensor")
    assert not any("_parameters[" in grp.source for gg in run_guards(run) for grp in gg.groups)


def test_the_size_fix_holds_marking_each_batch_where_it_is_made_and_not_inside_the_compiled_code():
    # the advice for a value made at a graph break: torch refuses mark_dynamic inside compiled code, and a
    # batch marked where the generator makes it reaches the resume function dynamic: one graph for every width
    from torch._dynamo.utils import counters

    def marked():
        for n in (32, 17, 9):
            t = torch.randn(4, n)
            torch._dynamo.mark_dynamic(t, 1)
            yield t

    def graphs(batches) -> int:
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(_plain, backend="eager", dynamic=False)
        for _ in range(3):
            compiled(torch.randn(4, 1), batches)
        return counters["stats"]["unique_graphs"]

    assert graphs(iter([torch.randn(4, n) for n in (32, 17, 9)])) == 4, "the call's graph and one per width"
    assert graphs(marked()) == 2, "the call's graph and one dynamic resume graph"

    def inside(w, batches):
        xb = next(batches)
        torch._dynamo.mark_dynamic(xb, 1)
        return xb * w

    torch._dynamo.reset()
    with pytest.raises(Exception, match="forbidden callable"):
        torch.compile(inside, backend="eager")(torch.randn(4, 1), iter([torch.randn(4, 32)]))


def test_a_value_guard_on_an_item_result_in_a_cell_is_flagged_with_the_cells_name_and_line():
    # h, a local tensor, lives across the break, so Dynamo compiles the rest of the cell (a resume frame that
    # holds only the float and globals is skipped by torch: "no tensor-related objects found in frame")
    torch.manual_seed(0)
    ns = {"torch": torch, "x": torch.randn(8)}
    run = run_cell("h = x * 2\ns = h.sum().item()\ny = h / max(s, 1.0)\n", ns, **CHEAP).run
    flagged = [(gg.compile_id, g) for gg in run_guards(run) for g in gg.groups if g.warning]
    assert flagged and all(g.source == "s" and g.line == 3 for _, g in flagged), flagged
    assert all(code.startswith("L['___stack0'] == ") for _, g in flagged for code in g.codes)
    (warning,) = [w for w in run.summary()["warnings"] if w.startswith("recompiles when the value changes")]
    assert "s, what h.sum().item() returned at cell line 3 (compiled for " in warning
    assert "capture_scalar_outputs = True" in warning


def test_the_value_warning_says_what_torch_does_with_a_new_value_and_a_tensor_keeps_one_graph():
    # VALUE_GUARD_LEAD's words, against torch: five values of an .item() result recompile on each under
    # dynamic=False, by default on the first change only; a number passed as a tensor compiles once
    from compile_profile.digest.guards import VALUE_GUARD_LEAD
    from torch._dynamo.utils import counters

    def graphs(fn, args, dynamic) -> int:
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(fn, backend="eager", dynamic=dynamic)
        for a in args:
            compiled(*a)
        return counters["stats"]["unique_graphs"]

    values = [(torch.randn(8) + i,) for i in range(5)]
    assert graphs(_scale, values, dynamic=False) == 6, "the call's graph and one per value"
    assert graphs(_scale, values, dynamic=None) == 3, "the call's graph, the value's, one dynamic"
    assert (
        "each new value under dynamic=False" in VALUE_GUARD_LEAD and "by default the first change" in VALUE_GUARD_LEAD
    )

    def times(x, n):
        return x * n

    numbers = [(torch.randn(8), 0.5 + i) for i in range(5)]
    tensors = [(x, torch.tensor(n)) for x, n in numbers]
    assert graphs(times, numbers, dynamic=False) == 5 and graphs(times, tensors, dynamic=False) == 1
