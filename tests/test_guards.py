"""Guards: what each checks, on which value, from which cell line (``engine.trace.guards``), from the trace
torch logs, and the guard a recompile failed on."""

from __future__ import annotations

import pytest
import torch
from compile_profile.engine.cell.function import cell_to_function
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.compiler.backend import RecordingBackend
from compile_profile.engine.trace.capture import capture_compiles
from compile_profile.engine.trace.guards import (
    failed_guard_source,
    failure_change,
    guard_kind,
    guards_of_tree,
    root_name,
)
from compile_profile.engine.trace.model import build_variant_trace
from compile_profile.engine.trace.stack_slots import SlotValue, resume_line, slot_value

CELL = "<compile-profile-cell-abc>"
LOCATOR = CellLocator(CELL, ["y = (x * 2).relu()", "z = y + w"])

# Leaves of a dynamo_cpp_guards_str tree as torch 2.13 logs them (abridged).
TREE = f"""
TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GLOBAL_STATE: ___check_global_state() against {{"grad_mode":true}}
| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None                           # _dynamo/output_graph.py:1122 in init_ambient_guards
| +- GuardManager: source=L['__compile_profile_publish_0__'], accessed_by=FrameLocalsGuardAccessor(key='x')
| | | +- ID_MATCH: ___check_obj_id(L['__compile_profile_publish_0__'].__code__, 1), type=<class 'code'>  # y = (x * 2).relu()  # {CELL}:1 in __compile_profile_cell__
| | | +- TENSOR_MATCH: check_tensor(G['w'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[8], stride=[1])  # z = y + w  # {CELL}:2 in __compile_profile_cell__
| | | +- DIMENSION_DYNAMIC_MARKING_GUARD: hasattr(G['w'], '_dynamo_dynamic_indices') == False           # z = y + w  # {CELL}:2 in __compile_profile_cell__
| | | +- TYPE_MATCH: ___check_type_id(G['model'], 94), type=<class 'Linear'>
+- LAMBDA_GUARD: G['w'].size()[0] == G['x'].size()[0]  # z = y + w  # {CELL}:2 in __compile_profile_cell__ (_subclasses/fake_impls.py:1960 in infer_size)
"""


def test_the_line_that_reads_a_name_is_found_by_its_tokens_not_inside_a_string_an_attribute_or_a_comment():
    """A hostile script's line 2, ``EVIL = "<img src=x …>"``, took a recompile on ``forward``'s ``x``."""
    lines = [
        "import torch",
        'EVIL = "<img src=x onerror=alert(1)>\\x1b"  # x',
        "class M(torch.nn.Module):",
        "    def forward(self, x):",
        "        return self.x + x",
    ]
    assert CellLocator("f", lines).first_line_reading("x") == 4
    assert CellLocator("f", ["%time y = x", "y = obj.x", "z = x + 1"]).first_line_reading("x") == 3
    assert CellLocator("f", ['s = """', "x", '"""', "x"]).first_line_reading("x") == 4  # a string over lines
    # a cell that does not tokenize (an open bracket to the end) is searched by word, outside comments
    assert CellLocator("f", ["y = f(", "# x", "x"]).first_line_reading("x") == 3


def test_guards_of_a_tree_say_what_each_checks_on_which_value_and_cell_line():
    guards = guards_of_tree(TREE, CellLocator(CELL, ["y = (x * 2).relu()", "z = y + w", "out = model(z)"]))
    assert [(g.kind, g.source, g.line) for g in guards] == [
        ("global state", "", None),
        ("global state", "", None),
        ("tensor", "G['w']", 2),
        ("dynamic-shape marks", "G['w']", 2),
        ("type", "G['model']", 3),  # no user code logged: the first line that reads model
        ("shape", "G['w']", 2),
    ]
    assert guards[2].code.startswith("check_tensor(G['w'], Tensor") and "# z = y + w" not in guards[2].code


def test_the_tools_own_guards_are_left_out():
    guards = guards_of_tree(TREE, LOCATOR)
    assert not any("__compile_profile" in g.code for g in guards)


def test_a_guard_the_setter_placed_on_a_users_value_stays():
    # after a break at `xb = next(batches)` the value is first read by the publish setter: its tensor match,
    # the guard a batch of another width fails, is logged at the setter's code
    tree = (
        "+- TENSOR_MATCH: check_tensor(L['___stack0'], Tensor, torch.float32, size=[4, 32], stride=[32, 1])"
        "  #   # <compile-profile-publish>:3 in publish\n"
        "+- ID_MATCH: ___check_obj_id(L['__compile_profile_publish_0__'].__code__, 1)"
        "  #   # <compile-profile-publish>:3 in publish\n"
        "+- ID_MATCH: ___check_obj_id(G['__builtins_dict___8']['isinstance'], 1)"
        "  #   # <compile-profile-publish>:3 in publish\n"
    )
    (guard,) = guards_of_tree(tree, LOCATOR)
    assert (guard.kind, guard.source) == ("tensor", "L['___stack0']")


def test_guard_kinds_and_sources_from_code_alone():
    assert guard_kind("___check_obj_id(G['torch'], 1)") == "identity"
    assert guard_kind("len(L['xs']) == 2") == "length"
    assert guard_kind("L['n'] == 3") == "value"
    assert root_name("L['model']._modules['0'].weight") == "model"
    assert failed_guard_source("0/0: tensor 'G['w']' size mismatch at index 0. expected 8, actual 16") == "G['w']"
    assert failed_guard_source("tensor 'x' size mismatch at index 0. expected 8, actual 16") == "x"


@pytest.mark.compiles
def test_a_compiled_cell_has_its_guards_and_a_recompile_names_the_failed_guards_line():
    torch._dynamo.reset()
    ns = {"x": torch.randn(8), "w": torch.randn(8)}
    cell = cell_to_function("y = (x * 2).relu()\nz = y + w\n", ns)
    backend = RecordingBackend(inner="aot_eager")  # Dynamo's guards, whatever compiles the graph
    with capture_compiles() as recorder:
        compiled = torch.compile(cell.fn, backend=backend)
        cell.call_with(compiled)
        ns.update(x=torch.randn(16), w=torch.randn(16))  # a new shape: the tensor guards fail
        cell.call_with(compiled)
    result = build_variant_trace(
        recorder.take(), backend.graphs, variant="v", locator=CellLocator(cell.filename, cell.source.splitlines())
    )
    first = next(g for g in result.graphs if g.kind == "dynamo")
    by_source = {g.source: g for g in first.guards if g.kind == "tensor"}
    assert by_source["G['x']"].line == 1 and by_source["G['w']"].line == 2
    assert "size=[8]" in by_source["G['x']"].code
    assert not any("__compile_profile" in g.code for g in first.guards)
    (recompile,) = result.recompiles
    assert "size mismatch" in recompile.reason
    assert (recompile.source, recompile.line) in {("G['x']", 1), ("G['w']", 2)}


# -- what changed, and a stack slot's name (engine.trace.guards.failure_change, engine.trace.stack_slots) -------------


def test_what_changed_is_read_from_each_failure_as_torch_words_it():
    # first lines of recompile reasons as torch 2.13 logged them (TORCH_LOGS=recompiles), prefix and all
    assert failure_change("1/0: tensor '___stack0' size mismatch at index 1. expected 32, actual 17") == (
        "size",
        1,
        "32",
        "17",
    )
    assert failure_change("0/0: tensor 'x' stride mismatch at index 0. expected 4, actual 1") == ("stride", 0, "4", "1")
    assert failure_change("0/0: tensor 'x' dtype mismatch. expected Float, actual Double") == (
        "dtype",
        None,
        "Float",
        "Double",
    )
    assert failure_change("0/0: tensor 'x' rank mismatch. expected 1, actual 2") == ("rank", None, "1", "2")
    assert failure_change("0/0: tensor 'x' requires_grad mismatch. expected requires_grad=0") == (
        "requires_grad",
        None,
        "False",
        "True",
    )
    assert failure_change("1/0: ___stack0 == -4.633584976196289") == ("value", None, "-4.633584976196289", "")
    assert failure_change("0/0: len(xs) == 1") == ("length", None, "1", "")
    assert failure_change("0/0: ___check_type_id(L['n'], 94)")[0] == "type"
    assert failure_change("0/0: ___check_obj_id(G['f'], 140)")[0] == "identity"
    assert failure_change("0/0: something Dynamo words otherwise") == ("", None, "", "")


CELL_LINES = ["%%compile_profile", "h = w * 2", "xb = next(batches)", "xb, yb = next(pairs)", "y = f(g(x))"]


def test_a_stack_slot_is_named_by_the_plain_assignment_at_the_break():
    assert slot_value(CELL_LINES, 3, "___stack0") == SlotValue("xb", "next(batches)")
    assert slot_value(CELL_LINES, 3, "L['___stack0']") == SlotValue("xb", "next(batches)")
    assert slot_value(CELL_LINES, 4, "___stack0[1]") == SlotValue("yb", "next(pairs)")
    assert resume_line("torch_dynamo_resume_in___compile_profile_cell___at_3") == 3
    assert resume_line("__compile_profile_cell__") is None


def test_a_stack_slot_is_left_unnamed_where_the_stack_may_hold_more():
    assert slot_value(CELL_LINES, 3, "___stack1") == SlotValue(), "not the only value on the stack"
    assert slot_value(CELL_LINES, 5, "___stack0") == SlotValue(), "g(x) may be the call that broke"
    loop = ["for b in range(2):", "    xb = next(batches)"]
    assert slot_value(loop, 2, "___stack0") == SlotValue(), "a loop keeps its iterator on the stack"
    assert slot_value(CELL_LINES, 2, "x") == SlotValue(), "no stack slot"
