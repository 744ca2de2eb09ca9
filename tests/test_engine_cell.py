"""The cell-to-function transformation (no compiling here)."""

from __future__ import annotations

import linecache

import pytest
from compile_profile.engine.cell.function import CellSyntaxError, cell_line_of_exception, cell_to_function


def test_assigned_names_become_outputs_and_last_expression_is_returned():
    ns = {"a": 2}
    cell = cell_to_function(
        "import math\nb = a * 3\ndef f(v):\n    inner = v\n    return inner\n[q for q in range(2)]\nb + 1", ns
    )
    # not `inner` (function scope) nor `q` (comprehension); `f`, a definition, stays a plain global
    assert cell.assigned == ["math", "b"] and cell.global_names == ["f"]
    returned = cell()
    outputs = cell.outputs(returned)
    assert outputs["b"] == 6 and outputs["<last expression>"] == 7
    cell.restore_namespace()
    assert "b" not in ns and "f" not in ns, "between runs the namespace is as the cell found it"
    returned = cell()  # the last run: what the profiler commits
    cell.restore_locals()
    assert "b" not in ns and ns["f"](5) == 5, "locals wait for the commit; definitions are the last run's"
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
    assert cell.global_names == ["g"]


def test_a_failing_run_keeps_what_it_assigned_before_the_error():
    ns = {"keep": 0}
    cell = cell_to_function("keep = 1\nbefore = 2\nraise ValueError('stop')\nafter = 3\n", ns)
    with pytest.raises(ValueError) as info:
        cell()
    cell.commit(cell.values_at_failure(info.value))
    assert ns["keep"] == 1 and ns["before"] == 2 and "after" not in ns


def _define(ns: dict, source: str) -> dict:
    """Run ``source`` as an earlier, ordinary cell of the same namespace."""
    exec(source, ns)
    return ns


def test_functions_from_other_cells_see_the_cells_assignments_as_they_happen():
    ns = _define({"scale": 1.0}, "def doubled():\n    return x * 2\ndef scaled():\n    return scale * 10\n")
    cell = cell_to_function("x = 3\ny = doubled()\nscale = 5.0\nz = scaled()\n", ns)
    outputs = cell.outputs(cell())
    assert outputs["y"] == 6 and outputs["z"] == 50.0
    cell.restore_namespace()
    assert ns["scale"] == 1.0 and "x" not in ns


def test_every_run_starts_from_the_namespace_as_it_was():
    ns = _define({"y": 1}, "def next_y():\n    return y + 1\n")
    cell = cell_to_function("y = next_y()\n", ns)
    results = []
    for _ in range(3):
        cell.restore_namespace()
        results.append(cell.outputs(cell())["y"])
    assert results == [2, 2, 2]
    cell.restore_namespace()
    cell.commit(cell())
    assert ns["y"] == 2


def test_a_handled_exception_name_is_unbound_after_its_handler():
    ns: dict = {}
    cell = cell_to_function(
        "try:\n    int('a')\nexcept ValueError as e:\n    msg = str(e)\n    seen = repr(e)\ny = 1\n", ns
    )
    cell.commit(cell())
    assert "invalid literal" in ns["msg"] and ns["y"] == 1
    assert "e" not in ns, "as after a plain cell: Python unbinds the handler's name"


def test_what_the_cell_defines_reads_the_namespace_later_and_is_importable_by_name():
    ns: dict = {}
    cell = cell_to_function(
        "scale = 2\ndef times(t):\n    return t * scale\nclass Box:\n    pass\nmul = lambda t: t * scale\n", ns
    )
    assert sorted(cell.global_names) == ["Box", "scale", "times"]
    cell.commit(cell())
    ns["scale"] = 3
    assert ns["times"](1) == 3 and ns["mul"](1) == 3, "no closure over the cell's own value"
    assert ns["Box"].__qualname__ == "Box", "a class, not a local of the cell function: pickle finds it"


def test_rebinding_a_builtin_reads_the_builtin_first():
    ns: dict = {}
    cell = cell_to_function("len = len([1, 2])\n", ns)
    cell.commit(cell())
    assert ns["len"] == 2
    untouched = cell_to_function("if False:\n    print = None\nz = 1\n", {})
    untouched.commit(untouched())
    assert "print" not in untouched.user_ns, "a builtin the run did not rebind stays a builtin"


def test_global_declarations_in_the_cell_or_its_functions_keep_names_global():
    ns = {"counter": 0}
    cell = cell_to_function("global counter\ncounter = counter + 1\n", ns)
    for _ in range(3):
        cell.restore_namespace()
        cell()
    assert ns["counter"] == 1, "each run starts from the namespace, so it ends as after one run"
    ns2: dict = {}
    cell2 = cell_to_function("def add(v):\n    global total\n    total = v\nadd(2)\ntotal += 1\n", ns2)
    cell2.commit(cell2())
    assert ns2["total"] == 3


def test_star_import_is_refused_with_its_cell_line():
    with pytest.raises(CellSyntaxError) as info:
        cell_to_function(
            "x = 1\nfrom math import *\n", {}, source="%%compile_profile\nx = 1\nfrom math import *\n", line_offset=1
        )
    assert info.value.lineno == 3 and "import *" in info.value.msg


def _run_like_the_profiler(cell):
    cell.restore_namespace()
    returned = cell()
    cell.restore_locals()
    cell.commit(returned)
    return returned


@pytest.mark.parametrize(
    "body",
    ["if False:\n    y = 1\ny\n", "w += 1\n", "del never_bound\n", "z = 1\ndel z\nz\n", "print(later)\nlater = 1\n"],
    ids=["conditional", "augmented", "del-unbound", "read-after-del", "read-before-assignment"],
)
def test_reading_a_name_the_run_has_not_bound_is_a_name_error(body):
    with pytest.raises(NameError):
        cell_to_function(body, {})()


def test_the_name_error_idiom_and_tuple_deletes_work_as_in_a_plain_cell():
    ns: dict = {}
    _run_like_the_profiler(
        cell_to_function("try:\n    counter\nexcept NameError:\n    counter = 0\ncounter += 1\n", ns)
    )
    assert ns["counter"] == 1
    ns2 = {"len": lambda _: 99}
    returned = _run_like_the_profiler(cell_to_function("a = 1\nb = 2\ndel (a, b)\ndel len\nlen([1, 2])\n", ns2))
    assert returned[0] == 2 and not {"a", "b", "len"} & set(ns2)


def test_walrus_in_defaults_and_class_bases_binds_in_the_cell():
    ns: dict = {}
    _run_like_the_profiler(
        cell_to_function("def f(a=(w := 3)):\n    return a\nclass A((B := object)):\n    pass\n", ns)
    )
    assert ns["w"] == 3 and ns["B"] is object and ns["f"]() == 3
