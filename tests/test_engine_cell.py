"""The cell-to-function transformation (no compiling here)."""

from __future__ import annotations

import linecache

import pytest

from compile_profile.engine.cell import CellSyntaxError, cell_line_of_exception, cell_to_function


def test_assigned_names_become_outputs_and_last_expression_is_returned():
    ns = {"a": 2}
    cell = cell_to_function("import math\nb = a * 3\ndef f(v):\n    inner = v\n    return inner\n[q for q in range(2)]\nb + 1", ns)
    assert cell.assigned == ["math", "b", "f"]  # not `inner` (function scope) nor `q` (comprehension)
    returned = cell()
    outputs = cell.outputs(returned)
    assert outputs["b"] == 6 and outputs["<last expression>"] == 7
    assert "b" not in ns, "profiling must not write the namespace before commit"
    cell.commit(returned)
    assert ns["b"] == 6 and ns["f"](5) == 5 and "q" not in ns


def test_existing_names_are_read_fresh_on_every_call():
    ns = {"x": 1}
    cell = cell_to_function("x = x + 1\nx", ns)
    assert cell.parameters == ["x"]
    results = [cell.outputs(cell())["x"] for _ in range(3)]
    assert results == [2, 2, 2], "each repetition starts from the namespace as it was"
    cell.commit(cell())
    assert ns["x"] == 2


def test_del_in_cell_removes_the_name_on_commit():
    ns = {"gone": 1}
    cell = cell_to_function("del gone", ns)
    cell.commit(cell())
    assert "gone" not in ns


def test_functions_defined_in_the_cell_see_later_namespace_names():
    ns = {}
    cell = cell_to_function("def uses_later():\n    return later_name", ns)
    cell.commit(cell())
    ns["later_name"] = 42
    assert ns["uses_later"]() == 42


def test_line_numbers_are_cell_lines_and_source_is_in_linecache():
    source = "%%compile_profile\nx = 1\ny = 1 / 0\n"
    cell = cell_to_function(source.split("\n", 1)[1], {}, source=source, line_offset=1)
    with pytest.raises(ZeroDivisionError) as info:
        cell()
    assert cell_line_of_exception(info.value, cell.filename) == 3
    assert linecache.getline(cell.filename, 3).strip() == "y = 1 / 0"


@pytest.mark.parametrize(
    "body, line, fragment",
    [
        ("x = 1\ny = (2\n", 3, "never closed"),
        ("x = 1\nawait thing()\n", 3, "top-level 'await'"),
        ("for i in range(3):\n    yield i\n", 3, "'yield' outside a function"),
        ("return 5\n", 2, "'return' outside a function"),
    ],
)
def test_unprofilable_cells_name_the_cell_line(body, line, fragment):
    with pytest.raises(CellSyntaxError) as info:
        cell_to_function(body, {}, source="%%compile_profile\n" + body, line_offset=1)
    assert info.value.lineno == line
    assert fragment in info.value.msg


def test_nested_await_inside_async_def_is_allowed():
    cell = cell_to_function("async def g():\n    await other()\n", {})
    assert cell.assigned == ["g"]


def test_a_failing_run_keeps_what_it_assigned_before_the_error():
    ns = {"keep": 0}
    cell = cell_to_function("keep = 1\nbefore = 2\nraise ValueError('stop')\nafter = 3\n", ns)
    with pytest.raises(ValueError) as info:
        cell()
    cell.commit(cell.values_at_failure(info.value))
    assert ns["keep"] == 1 and ns["before"] == 2 and "after" not in ns
