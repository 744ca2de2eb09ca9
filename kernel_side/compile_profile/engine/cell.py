"""A notebook cell as a function that ``torch.compile`` can compile.

Dynamo compiles function frames, not module code, so the cell body becomes
the body of a function.  Names the cell assigns are the function's locals
(those that already exist in the namespace come in as parameters, so
``x = x + 1`` reads the old ``x``; new ones start bound to an "unset" marker,
which ``del x`` also restores), and the function returns its last expression's
value together with a tuple of those locals.  Locals rather than globals,
because Dynamo keeps compiling the code after a graph break only when the
values it needs are locals; an explicit tuple rather than ``locals()``, which
older Dynamo cannot trace (a graph break that would empty the compiled graph).  Each call starts from the namespace as it was,
and the final values are copied back once, so the user namespace ends as
after one normal run.  The source is registered in ``linecache`` under the
cell's filename so tracebacks and graph-break locations show the cell's lines.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import sys
from dataclasses import dataclass
from types import FunctionType
from typing import Any

CELL_FUNCTION_NAME = "__compile_profile_cell__"
LAST_EXPRESSION = "<last expression>"
_UNSET_PARAMETER = "__compile_profile_unset__"


class _Unset:
    """Marks a cell name that a run left unbound (never assigned, or deleted)."""

    def __repr__(self) -> str:
        return "<unset by this run>"


UNSET = _Unset()


class CellSyntaxError(SyntaxError):
    """The cell cannot be profiled as written; ``lineno`` is the cell line."""


@dataclass
class CellFunction:
    fn: FunctionType  # returns (last expression value, tuple of the assigned names' values)
    parameters: list[str]  # assigned names that already existed: passed in, fresh, on every call
    assigned: list[str]
    returns_value: bool
    filename: str
    source: str  # the whole cell as the user sees it
    line_offset: int
    user_ns: dict[str, Any]

    def arguments(self) -> list[Any]:
        return [self.user_ns[name] for name in self.parameters]

    def __call__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.fn(*self.arguments())

    def _bound(self, returned: tuple[Any, tuple[Any, ...]]) -> dict[str, Any]:
        _, values = returned
        return {name: value for name, value in zip(self.assigned, values) if value is not UNSET}

    def outputs(self, returned: tuple[Any, tuple[Any, ...]]) -> dict[str, Any]:
        """What one run produced: assigned names and the value of the last expression."""
        out = self._bound(returned)
        if self.returns_value:
            out[LAST_EXPRESSION] = returned[0]
        return out

    def values_at_failure(self, exc: BaseException) -> tuple[Any, tuple[Any, ...]] | None:
        """What the cell had assigned when ``exc`` stopped it, in the shape a return would have.

        A normal cell that raises keeps the assignments made before the error; the cell
        function's frame in the traceback still holds them.
        """
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is self.fn.__code__:
                local_values = tb.tb_frame.f_locals
                return None, tuple(local_values.get(name, UNSET) for name in self.assigned)
            tb = tb.tb_next
        return None

    def commit(self, returned: tuple[Any, tuple[Any, ...]]) -> None:
        """Copy one run's assignments into the user namespace, as a normal run would leave it."""
        bound = self._bound(returned)
        for name in self.assigned:
            if name in bound:
                self.user_ns[name] = bound[name]
            elif name in self.parameters:
                self.user_ns.pop(name, None)  # the cell deleted it


CELL_FILENAME_PREFIX = "<compile-profile-cell-"


def cell_filename(source: str) -> str:
    """A filename that is the same for the same cell text.

    Inductor's caches keep the source locations of the graphs they store; a
    stable name lets a cache hit in a later session still point at this cell.
    """
    return f"{CELL_FILENAME_PREFIX}{hashlib.sha1(source.encode()).hexdigest()[:12]}>"


def cell_to_function(
    body: str,
    user_ns: dict[str, Any],
    *,
    source: str | None = None,
    line_offset: int = 0,
    filename: str | None = None,
) -> CellFunction:
    """Turn ``body`` into a ``CellFunction``.

    ``line_offset`` is how many cell lines precede ``body`` (1 for a
    ``%%compile_profile`` line), so line numbers in code objects are cell lines.
    """
    padded = "\n" * line_offset + body
    source = padded if source is None else source
    filename = filename or cell_filename(source)
    try:
        tree = compile(padded, filename, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as exc:
        raise CellSyntaxError(exc.msg, (filename, exc.lineno, exc.offset, exc.text)) from None
    _reject_unsupported(tree, filename)
    assigned = top_level_assigned_names(tree.body)
    parameters = [name for name in assigned if name in user_ns]
    returns_value = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    statements = _DeleteToUnset().visit(ast.Module(body=list(tree.body), type_ignores=[])).body
    result: ast.expr = ast.Constant(value=None)
    if returns_value:
        result = statements.pop().value
    anchor = tree.body[0] if tree.body else ast.Pass(lineno=line_offset + 1, col_offset=0)
    unset_name = lambda: ast.Name(id=_UNSET_PARAMETER, ctx=ast.Load())  # noqa: E731
    prologue = [
        ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=unset_name()), anchor)
        for name in assigned
        if name not in parameters
    ]
    values = ast.Tuple(elts=[ast.Name(id=name, ctx=ast.Load()) for name in assigned], ctx=ast.Load())
    ret = ast.Return(value=ast.Tuple(elts=[result, values], ctx=ast.Load()))
    ast.copy_location(ret, tree.body[-1] if tree.body else anchor)
    func = ast.FunctionDef(
        name=CELL_FUNCTION_NAME,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=name) for name in parameters],
            kwonlyargs=[ast.arg(arg=_UNSET_PARAMETER)],
            kw_defaults=[unset_name()],
            defaults=[],
        ),
        body=prologue + statements + [ret],
        decorator_list=[],
        returns=None,
        **({"type_params": []} if sys.version_info >= (3, 12) else {}),
    )
    ast.copy_location(func, tree.body[0] if tree.body else ret)
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    code = compile(module, filename, "exec")
    # Register the whole cell so tracebacks and Dynamo show its lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # The namespace itself is the function's globals, so functions the cell defines
    # see later notebook definitions, as after a normal run; defining it elsewhere
    # and rebinding its globals leaves the namespace untouched.
    scratch: dict[str, Any] = {"__builtins__": __builtins__, _UNSET_PARAMETER: UNSET}
    exec(code, scratch)
    defined = scratch[CELL_FUNCTION_NAME]
    user_ns.setdefault("__builtins__", __builtins__)  # as exec() does; Dynamo reads it from globals
    fn = FunctionType(defined.__code__, user_ns, CELL_FUNCTION_NAME)
    fn.__kwdefaults__ = defined.__kwdefaults__
    return CellFunction(
        fn=fn,
        parameters=parameters,
        assigned=assigned,
        returns_value=returns_value,
        filename=filename,
        source=source,
        line_offset=line_offset,
        user_ns=user_ns,
    )


class _DeleteToUnset(ast.NodeTransformer):
    """``del name`` in the cell's own scope becomes ``name = <unset>``: the name stays
    a bound local, so the function can return it, and the commit deletes it."""

    def visit_Delete(self, node: ast.Delete):
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        others = [t for t in node.targets if not isinstance(t, ast.Name)]
        out: list[ast.stmt] = []
        if others:
            out.append(ast.copy_location(ast.Delete(targets=others), node))
        for target in names:
            assign = ast.Assign(
                targets=[ast.Name(id=target.id, ctx=ast.Store())],
                value=ast.Name(id=_UNSET_PARAMETER, ctx=ast.Load()),
            )
            out.append(ast.copy_location(assign, node))
        return out

    def _leave(self, node):  # nested scopes delete their own locals
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _leave


def _reject_unsupported(tree: ast.Module, filename: str) -> None:
    for node in _walk_top_scope(tree.body):
        if isinstance(node, (ast.Await, ast.AsyncFor, ast.AsyncWith)):
            raise CellSyntaxError(
                "top-level 'await' cannot be profiled: torch.compile compiles synchronous code; "
                "await the coroutine in another cell and profile the synchronous part",
                (filename, node.lineno, node.col_offset + 1, None),
            )
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            raise CellSyntaxError(
                "'yield' outside a function: a cell cannot be a generator; move it into a function",
                (filename, node.lineno, node.col_offset + 1, None),
            )
        if isinstance(node, ast.Return):
            raise CellSyntaxError("'return' outside a function", (filename, node.lineno, node.col_offset + 1, None))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_top_scope(nodes: list[ast.stmt]):
    """Walk the cell's own scope: nested functions, classes, lambdas and comprehensions
    are yielded but not entered (their decorators run in the cell's scope and are)."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            if not isinstance(node, ast.Lambda):
                stack.extend(node.decorator_list)
            continue
        if isinstance(node, _COMPREHENSIONS):
            # only the first iterable is evaluated in the enclosing scope; walrus targets
            # inside leak out, which the NamedExpr case below still catches
            stack.append(node.generators[0].iter)
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        stack.extend(ast.iter_child_nodes(node))


def top_level_assigned_names(body: list[ast.stmt]) -> list[str]:
    names: dict[str, None] = {}

    def add(name: str) -> None:
        names.setdefault(name, None)

    for node in _walk_top_scope(body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    continue
                add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name)
        elif isinstance(node, ast.MatchAs) and node.name:
            add(node.name)
        elif isinstance(node, ast.MatchStar) and node.name:
            add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            add(node.rest)
        elif isinstance(node, ast.NamedExpr):
            add(node.target.id)
    return list(names)


def cell_line_of_exception(exc: BaseException, filename: str) -> int | None:
    """The innermost cell line in ``exc``'s traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

