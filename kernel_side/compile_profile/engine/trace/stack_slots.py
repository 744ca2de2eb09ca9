"""Dynamo's stack slots back to the user's names.

After a graph break Dynamo runs the rest of the frame as a resume function,
``torch_dynamo_resume_in_<fn>_at_<N>`` (``N``: the line of the break in ``fn``'s file), whose first
arguments are the values on the interpreter's stack at the break: ``___stack0``, ``___stack1``, ….
A guard on such a value (``tensor '___stack0' size mismatch …``, ``L['___stack0'] == 56.15``) names
a slot, not a variable.  The statement at line ``N`` says which value it is: for ``xb = next(batches)``
the stack at the break holds one value, what ``next(batches)`` returned, and the statement assigns it
to ``xb`` (checked on torch 2.13 / Python 3.11 against ``TORCH_LOGS=recompiles``).

Only the plain case is named: a statement outside any loop, ``with`` or ``try`` block (those keep
values of their own on the stack) that assigns one call's result (``name = call(...)``, or
``a, b = call(...)`` for ``___stack0[0]``, ``[1]``), whose arguments call nothing (a call among them
could be the one that broke, with the outer call's function on the stack below it).  Anywhere else
the slot keeps no name; the break's line is still known.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ...profile_run import RESUME_FUNCTION

# a stack slot as a guard or a reason names it: ___stack0, L['___stack0'], ___stack0[1], L['___stack0'][1]
STACK_SLOT = re.compile(r"""^(?:L\[['"])?___stack(?P<slot>\d+)(?:['"]\])?(?:\[(?P<item>\d+)\])?""")
_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


@dataclass
class SlotValue:
    """What a stack slot holds: the name the statement assigns it to ("" when it is not that plain) and
    the expression whose value it is (``next(batches)``)."""

    name: str = ""
    expr: str = ""


def resume_line(frame_name: str) -> int | None:
    """The file line of the break a resume function continues from (``N`` in ``…_at_N``), else None."""
    found = RESUME_FUNCTION.match(frame_name or "")
    return int(found.group("line")) if found else None


def slot_of(source: str) -> tuple[int, int | None] | None:
    """``(slot, item)`` of a stack-slot source (``L['___stack0'][1]`` -> ``(0, 1)``), else None."""
    found = STACK_SLOT.match(source or "")
    if not found:
        return None
    return int(found.group("slot")), (int(found.group("item")) if found.group("item") is not None else None)


def _parse(lines: list[str]) -> ast.Module | None:
    # a cell's magics and shell escapes are no Python: blank them, keeping the line numbers
    code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _statement_at(tree: ast.Module, line: int) -> tuple[ast.stmt | None, bool]:
    """The innermost statement spanning ``line`` and whether a loop, ``with`` or ``try`` encloses it."""

    def visit(body: list[ast.stmt], in_block: bool) -> tuple[ast.stmt | None, bool]:
        for stmt in body:
            if not (stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)):
                continue
            block = in_block or isinstance(stmt, _BLOCKS)
            for attr in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, attr, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler)):
                    bodies = [h.body for h in inner] if isinstance(inner[0], ast.excepthandler) else [inner]
                    for b in bodies:
                        found = visit(b, block)
                        if found[0] is not None:
                            return found
            return stmt, in_block
        return None, in_block

    return visit(tree.body, False)


def slot_value(lines: list[str], line: int | None, source: str) -> SlotValue:
    """What the stack slot ``source`` names at a break on (1-based) ``line`` of ``lines``."""
    slot = slot_of(source)
    tree = _parse(lines) if slot is not None and line is not None else None
    if tree is None or slot is None or line is None:
        return SlotValue()
    stmt, in_block = _statement_at(tree, line)
    code = "\n".join(lines)
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Return)) else None
    if not isinstance(value, ast.Call):
        return SlotValue()
    expr = ast.get_source_segment(code, value) or ""
    if (
        in_block
        or slot[0] != 0
        or any(isinstance(n, ast.Call) for a in value.args + value.keywords for n in ast.walk(a))
    ):
        return SlotValue()
    target = (
        stmt.targets[0]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
        else stmt.target
        if isinstance(stmt, ast.AnnAssign)
        else None
    )
    item = slot[1]
    if isinstance(target, ast.Name) and item is None:
        return SlotValue(name=target.id, expr=expr)
    if isinstance(target, ast.Tuple) and item is not None and item < len(target.elts):
        element = target.elts[item]
        if isinstance(element, ast.Name) and not any(isinstance(e, ast.Starred) for e in target.elts):
            return SlotValue(name=element.id, expr=expr)
    return SlotValue(expr=expr)
