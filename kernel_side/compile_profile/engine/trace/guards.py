"""Dynamo's guards read as a reader asks about them: what each checks, on which value, from which cell line.

Dynamo logs the guards of each compiled frame in the structured trace: as the C++ guard manager's
tree (``dynamo_cpp_guards_str``, torch 2.13: one ``+- TYPE: code  # user code  # file:line`` leaf
per guard) and, where the Python guard list is logged, as ``dynamo_guards`` (one ``{"code",
"stack", "user_stack"}`` per guard).  ``code`` is the check as Dynamo prints it, e.g.
``check_tensor(L['x'], Tensor, ..., size=[8], stride=[1])``.  A recompile's reason names the
guard that failed (``tensor 'x' size mismatch at index 0. expected 8, actual 16``, or the failed
check itself).  This module classifies a guard's code by what it checks (``GUARD_KINDS``, first
match wins), finds the value it checks (``L['x']``: a local of the cell function, ``G['model']``:
a notebook global) and the cell line that value comes from: the guard's own user stack where it
names a cell line, else the first cell line that reads the name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...profile_run import Guard
from ..cell.function import OWN_NAME_PREFIX, SETTER_FILENAME
from ..common.stack_text import frames_of_stack
from .capture import intern_paths, resolve_stack

if TYPE_CHECKING:
    from ..cell.locator import CellLocator

# What a guard checks, from its type and code ("TENSOR_MATCH: check_tensor(L['x'], ...)"); first
# match wins.  A cell's guards are mostly tensor matches (dtype, device, shape, strides,
# requires_grad) with the dynamic-shape marks checked beside each tensor, and type or identity
# checks on the modules and functions it reads; a few are the ambient state every frame checks.
GUARD_KINDS: list[tuple[str, re.Pattern[str]]] = [
    (
        "global state",
        re.compile(
            r"GLOBAL_STATE|TORCH_FUNCTION_MODE_STACK|DEFAULT_DEVICE|___check_global_state"
            r"|BACKEND_MATCH|___check_current_backend|init_ambient_guards"
        ),
    ),
    ("dynamic-shape marks", re.compile(r"DIMENSION_DYNAMIC_MARKING|_dynamo_\w*(dynamic|static|unbacked)_indices")),
    ("tensor", re.compile(r"TENSOR_MATCH|check_tensor\(|___check_tensors")),
    ("aliasing", re.compile(r"NO_TENSOR_ALIASING|check_no_aliasing|STORAGE_OVERLAPPING|check_overlapping")),
    ("shape", re.compile(r"\.size\(\)|\.stride\(\)|\.storage_offset\(\)|SHAPE_ENV")),
    ("type", re.compile(r"TYPE_MATCH|___check_type_id")),
    ("identity", re.compile(r"ID_MATCH|___check_obj_id|\bis\b")),
    ("length", re.compile(r"LENGTH_CHECK|\blen\(")),
    ("attribute", re.compile(r"HASATTR|hasattr\(")),
    ("dict", re.compile(r"DICT_VERSION|DICT_CONTAINS|DICT_KEYS|___dict_contains")),
    ("value", re.compile(r"EQUALS_MATCH|CONSTANT_MATCH|==|!=")),
]

# A value as Dynamo names it: L['x'] or G['model'], then attributes and constant subscripts.
_SOURCE = re.compile(r"""\b[LG]\[['"][^'"]+['"]\](?:\.[A-Za-z_]\w*(?![\w(])|\[['"][^'"]*['"]\]|\[\d+\])*""")
_ROOT_NAME = re.compile(r"""^[LG]\[['"]([^'"]+)['"]\]""")
# The value a recompile reason names when it gives no L[...] / G[...] source: "tensor 'x' ..."
_QUOTED_NAME = re.compile(r"""^\s*(?:\d+/\d+:\s*)?(?:tensor|type|id|len)?\s*'([A-Za-z_]\w*(?:\[\d+\])*)'""")
# ... or compares a value by its name in the frame: "self.param_groups[0]['lr'] == 0.09" (an optimizer's
# step frame, recompiled for each learning rate an LR scheduler sets)
# ... or checks an object's identity or type by its name: "___check_obj_id(mode, 1403…), type=<class 'Mode'>"
_CHECKED_NAME = re.compile(r"""^\s*(?:\d+/\d+:\s*)?___check_(?:obj|type)_id\(([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*),""")
_COMPARED_NAME = re.compile(
    r"""^\s*(?:\d+/\d+:\s*)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\]|\[['"][^'"]*['"]\])*)\s*(?:==|!=|<=|>=|<|>)"""
)


def guard_kind(code: str) -> str:
    return next((kind for kind, pattern in GUARD_KINDS if pattern.search(code)), "other")


def guard_source(code: str) -> str:
    """The value ``code`` checks (the first ``L[...]``/``G[...]`` it names), or ""."""
    found = _SOURCE.search(code)
    return found.group(0) if found else ""


def root_name(source: str) -> str:
    """``L['model']._modules['0']`` -> ``model``; a bare name stays as it is."""
    found = _ROOT_NAME.match(source)
    return found.group(1) if found else source


def guards_of_compile(payload: Any, locator: CellLocator, outer: list[tuple] | None = None) -> list[Guard]:
    """The guards of one compiled frame from its ``dynamo_guards`` payload (a JSON list)."""
    if not isinstance(payload, list):
        return []
    out = []
    paths = intern_paths()
    for entry in payload:
        if not isinstance(entry, dict) or not entry.get("code"):
            continue
        code = str(entry["code"])
        source = guard_source(code)
        if _is_own(source):
            continue
        user_stack = entry.get("user_stack")
        frames = frames_of_stack(resolve_stack(user_stack, paths)) if isinstance(user_stack, list) else []
        line = locator.innermost_cell_line((outer or []) + frames) if frames else None
        if line is None and source:
            line = locator.first_line_reading(root_name(source))
        out.append(Guard(code=code, kind=guard_kind(code), source=source, line=line))
    return out


# A leaf of the guard tree torch logs as ``dynamo_cpp_guards_str`` (torch >= 2.6 with C++ guard
# managers): "+- TYPE: code  # user code  # file:line in fn (why)".  Ambient guards name a torch
# file after one "#" and no user code.
_TREE_LEAF = re.compile(r"\+- (?P<type>[A-Z][A-Z_]+): (?P<rest>.*)$")
_USER_AT = re.compile(r"\s+# (?P<code>.*?)\s+# (?P<file>[^#]+?):(?P<line>\d+) in [^#]*$")


def _is_own(source: str, filename: str = "") -> bool:
    """A guard on the tool's own names in the cell function (its publish setters, the unset marker), or from
    its setter's code on anything but the frame's locals (its builtins, its marker): the instrumentation's,
    not the user's code's, and left out.  A guard the setter's code placed on a local of the cell's frame
    stays: the setter is where a value assigned at a graph break is first read (``xb = next(batches)``
    publishes ``xb``), and that guard is the one a new batch fails."""
    if root_name(source).startswith(OWN_NAME_PREFIX):
        return True
    return filename == SETTER_FILENAME and not source.startswith("L[")


def guards_of_tree(text: str, locator: CellLocator) -> list[Guard]:
    """The guards of one compiled frame from its ``dynamo_cpp_guards_str`` tree, the tool's own left out."""
    out = []
    for raw in (text or "").splitlines():
        leaf = _TREE_LEAF.search(raw)
        if leaf is None:
            continue
        kind_and_rest = f"{leaf['type']}: {leaf['rest']}"
        at = _USER_AT.search(leaf["rest"])
        code = (leaf["rest"][: at.start()] if at else leaf["rest"].split("  #")[0]).strip()
        source = guard_source(code)
        if _is_own(source, at["file"] if at else ""):
            continue
        line = locator.cell_line(at["file"], int(at["line"]), at["code"]) if at and at["code"].strip() else None
        if line is None and source:
            line = locator.first_line_reading(root_name(source))
        out.append(Guard(code=code, kind=guard_kind(kind_and_rest), source=source, line=line))
    return out


def failed_guard_source(reason: str) -> str:
    """The value whose guard a recompile reason says failed: its ``L[...]`` source, else a quoted name."""
    source = guard_source(reason)
    if source:
        return source
    found = _QUOTED_NAME.match(reason) or _CHECKED_NAME.match(reason) or _COMPARED_NAME.match(reason)
    return found.group(1) if found else ""


# What changed, from the first line of a recompile's reason as Dynamo words a failed check (torch 2.13's
# C++ guards: "tensor 'x' size mismatch at index 1. expected 32, actual 17"; a Python check is printed
# as itself: "n == 3", "len(xs) == 1", "___check_type_id(L['x'], 94…)").
_TENSOR_CHANGE = re.compile(
    r"(?P<what>size|stride) mismatch at index (?P<dim>\d+)\. expected (?P<expected>[^,\s]+), actual (?P<actual>\S+)"
    r"|(?P<what2>dtype|rank|dispatch key set) mismatch\. expected (?P<expected2>.+?), actual (?P<actual2>\S+)"
    r"|requires_grad mismatch\. expected requires_grad=(?P<rg>[01])"
    r"|device index mismatch\. Expected device index to be (?P<expected3>\S+?),? actual (?P<actual3>\S+)",
    re.IGNORECASE,
)
_LENGTH_CHECK = re.compile(r"^len\((?P<of>.+)\) == (?P<expected>\d+)$")
_VALUE_CHECK = re.compile(r"^(?P<of>.+?) == (?P<expected>-?[\d.]+(?:e[-+]?\d+)?|True|False|None|'[^']*'|\"[^\"]*\")$")
_FAILURE_PREFIX = re.compile(r"^\s*(?:-\s*)?(?:\d+/\d+:\s*)?")


def failure_change(reason: str) -> tuple[str, int | None, str, str]:
    """``(change, dim, expected, actual)`` for a recompile's reason: ``("size", 1, "32", "17")``; change is one
    of size, stride, dtype, rank, dispatch keys, requires_grad, device, type, identity, length, value, else "";
    ``actual`` is "" where Dynamo does not say it (a Python check prints only what it expected)."""
    first = _FAILURE_PREFIX.sub("", (reason or "").strip().splitlines()[0] if (reason or "").strip() else "")
    found = _TENSOR_CHANGE.search(first)
    if found:
        if found["what"]:
            return found["what"].lower(), int(found["dim"]), found["expected"], found["actual"].rstrip(".")
        if found["what2"]:
            what = found["what2"].lower()
            return ("dispatch keys" if what == "dispatch key set" else what), None, found["expected2"], found["actual2"]
        if found["rg"]:
            expected = found["rg"] == "1"
            return "requires_grad", None, str(expected), str(not expected)
        return "device", None, found["expected3"], found["actual3"]
    check = first.split("  #")[0].strip()
    if "___check_type_id" in check or "TYPE_MATCH" in check:
        return "type", None, "", ""
    if "___check_obj_id" in check or "ID_MATCH" in check:
        return "identity", None, "", ""
    if found := _LENGTH_CHECK.match(check):
        return "length", None, found["expected"], ""
    if found := _VALUE_CHECK.match(check):
        return "value", None, found["expected"], ""
    return "", None, "", ""
