"""A notebook cell as a function that ``torch.compile`` can compile.

Dynamo compiles function frames, not module code, so the cell body becomes
the body of a function.  Names the cell assigns are the function's locals
(those that already exist in the namespace come in as parameters, so
``x = x + 1`` reads the old ``x``), and the function returns its last
expression's value together with ``locals()``.  Locals rather than globals,
because Dynamo keeps compiling the code after a graph break only when the
values it needs are locals.  Each call starts from the namespace as it was,
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


class CellSyntaxError(SyntaxError):
    """The cell cannot be profiled as written; ``lineno`` is the cell line."""


@dataclass
class CellFunction:
    fn: FunctionType  # returns (last expression value, locals())
    parameters: list[str]  # assigned names that already existed: passed in, fresh, on every call
    assigned: list[str]
    returns_value: bool
    filename: str
    source: str  # the whole cell as the user sees it
    line_offset: int
    user_ns: dict[str, Any]

    def __call__(self) -> tuple[Any, dict[str, Any]]:
        return self.fn(*[self.user_ns[name] for name in self.parameters])

    def outputs(self, returned: tuple[Any, dict[str, Any]]) -> dict[str, Any]:
        """What one run produced: assigned names and the value of the last expression."""
        result, local_values = returned
        out = {name: local_values[name] for name in self.assigned if name in local_values}
        if self.returns_value:
            out[LAST_EXPRESSION] = result
        return out

    def commit(self, returned: tuple[Any, dict[str, Any]]) -> None:
        """Copy one run's assignments into the user namespace, as a normal run would leave it."""
        _, local_values = returned
        for name in self.assigned:
            if name in local_values:
                self.user_ns[name] = local_values[name]
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
    statements = list(tree.body)
    result: ast.expr = ast.Constant(value=None)
    if returns_value:
        last = statements.pop()
        result = last.value
    end_line = (tree.body[-1].end_lineno or tree.body[-1].lineno) if tree.body else line_offset + 1
    ret = ast.Return(
        value=ast.Tuple(
            elts=[result, ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[], keywords=[])],
            ctx=ast.Load(),
        )
    )
    ast.copy_location(ret, tree.body[-1] if tree.body else ast.Pass(lineno=end_line, col_offset=0))
    func = ast.FunctionDef(
        name=CELL_FUNCTION_NAME,
        args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=name) for name in parameters], kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=statements + [ret],
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
    # see later notebook definitions, as after a normal run.  Only the definition of
    # the cell function is written there, and removed at once.
    exec(code, user_ns)
    fn = user_ns.pop(CELL_FUNCTION_NAME)
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

