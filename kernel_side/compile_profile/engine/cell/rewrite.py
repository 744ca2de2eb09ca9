"""The AST work behind the cell-as-function contract of ``cell.py``: which names a cell binds, and
the rewrites that make its statements, as the body of a function, run as the plain cell would.

Only the cell's own scope counts (``walk_top_scope``): functions, lambdas, classes and
comprehensions the cell defines have scopes of their own, so of them only what runs where they are
defined is read (decorators, defaults, annotations, bases, a comprehension's first iterable, and
walrus targets, which leak out).  ``top_level_assigned_names`` are the names that scope binds (the
cell function's locals to be, or globals), statement by statement; ``read_later`` says which of
them later lines of the cell read (intermediate results, not only outputs).

``reject_unsupported`` raises ``CellSyntaxError`` for what the function would get wrong:
``return`` and ``yield`` (errors in a plain cell, valid in a function), top-level ``await``
(torch.compile compiles synchronous code) and ``from ... import *`` (module level only).

``rewrite_body`` rewrites a copy of the cell's statements, in this order, and takes off its last
expression statement, whose value the function returns:

1. ``del name`` of a local becomes a checked read of ``name`` (deleting an unbound name raises)
   and ``name = <unset>``: a real ``del`` would leave the local unbound, and a later read would
   raise UnboundLocalError where the plain cell raises NameError or finds a builtin.
2. Each read of a local in the cell's own scope (and the target of ``name += ...``) becomes a
   checked read: the value, or while the local is unset what the plain cell's lookup of the global
   gives, the builtin of that name or NameError.
3. After each statement, also inside ``if``/``for``/``while``/``with``/``try``/``match``, each kept
   local it bound is passed to that name's setter, which publishes it to the namespace (first thing
   in a body for what the header bound), so code from other cells reading the global sees the new
   value mid-cell.  ``except ... as e`` catches into a name of its own, since Python unbinds ``e``
   after the handler.

0. Where the cell's own scope calls ``locals()`` or ``vars()``, or ``exec(code)`` or ``eval(code)``
   without their own namespaces (``scope_builtin_calls``), these read and bind what they do at a plain
   cell's top level, the notebook's namespace: ``locals()`` becomes ``SCOPE_PARAMETER(LOCALS_PARAMETER())``
   (``CellScope``: the namespace, seen through the function's locals, taking its bindings), and ``exec``
   and ``eval`` get the namespace and that scope.  Without it ``exec('import json as jj')`` or
   ``locals()['lw'] = 1`` bound a name in the function's own locals, and nothing in the notebook.

The rewritten code refers to the cell function's keyword-only parameters ``UNSET_PARAMETER`` (the
unset marker), ``UNBOUND_PARAMETER`` (the plain cell's lookup), the setters that ``cell.py``
names and supplies, and for step 0 ``SCOPE_PARAMETER``, ``LOCALS_PARAMETER`` and ``NAMESPACE_PARAMETER``.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Iterator, Sequence

UNSET_PARAMETER = "__compile_profile_unset__"
UNBOUND_PARAMETER = "__compile_profile_unbound__"
SCOPE_PARAMETER = "__compile_profile_scope__"
LOCALS_PARAMETER = "__compile_profile_locals__"
NAMESPACE_PARAMETER = "__compile_profile_namespace__"
_SCOPE_BUILTINS = frozenset({"locals", "vars", "exec", "eval"})
_CAUGHT_NAME = "__compile_profile_caught_{}__"


class CellSyntaxError(SyntaxError):
    """The cell cannot be profiled as written; ``lineno`` is the cell line."""


def rewrite_body(
    body: list[ast.stmt], local_names: list[str], setters: dict[str, str], *, scope_calls: bool = False
) -> tuple[list[ast.stmt], ast.expr]:
    """The cell's statements rewritten for the cell function, and the expression it returns (the
    cell's last expression, or None); ``setters`` maps each kept local to its setter's parameter;
    ``scope_calls``: rewrite ``locals()``, ``exec(code)`` and the like (step 0; ``scope_builtin_calls``).
    ``body`` is left as it was."""
    body = copy.deepcopy(body)  # transformed in place; the next compile starts from the cell again
    if scope_calls:
        body = _ScopeBuiltinsToNamespace().visit(ast.Module(body=body, type_ignores=[])).body
    result: ast.expr = ast.Constant(value=None)
    if body and isinstance(last := body[-1], ast.Expr):
        body.pop()
        result = last.value
    statements = _DeleteToUnset(set(local_names)).visit(ast.Module(body=body, type_ignores=[])).body
    checker = _CheckBoundReads(set(local_names))
    statements = [new for s in statements for new in _as_list(checker.visit(s))]
    result = checker.visit(result)
    statements = _PublishBindings(setters).transform(statements)
    return statements, result


def _scope_builtin_called(node: ast.AST) -> str | None:
    """The builtin's name when ``node`` is ``locals()``, ``vars()``, ``exec(code)`` or ``eval(code)``: a call
    that, at a plain cell's top level, reads or binds the notebook's namespace; else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SCOPE_BUILTINS):
        return None
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    name = node.func.id
    return name if len(node.args) == (0 if name in ("locals", "vars") else 1) else None


def scope_builtin_calls(body: list[ast.stmt], assigned: list[str]) -> bool:
    """Whether the cell's own scope makes such a call (of the builtins: the cell does not rebind their names)."""
    own = set(assigned)
    called = (_scope_builtin_called(node) for node in walk_top_scope(body))
    return any(name is not None and name not in own for name in called)


def reject_unsupported(tree: ast.Module, filename: str) -> None:
    """Raise ``CellSyntaxError`` at the first construct of the cell's own scope that cannot be profiled
    (top-level ``await``, ``yield``, ``return``, ``from ... import *``)."""
    for node in walk_top_scope(tree.body):
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
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            raise CellSyntaxError(
                "'from ... import *' cannot be profiled (Python allows it only at module level): "
                "import the names the cell uses, or run the import in another cell",
                (filename, node.lineno, node.col_offset + 1, None),
            )


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def walk_top_scope(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Walk the cell's own scope: nested functions, classes, lambdas and comprehensions
    are yielded but not entered (their decorators run in the cell's scope and are)."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            stack.extend(_evaluated_in_enclosing_scope(node))
            continue
        if isinstance(node, _COMPREHENSIONS):
            # only the first iterable is evaluated in the enclosing scope; walrus targets
            # inside leak out, which the NamedExpr case below still catches
            stack.append(node.generators[0].iter)
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        stack.extend(ast.iter_child_nodes(node))


def _evaluated_in_enclosing_scope(node: ast.AST) -> list[ast.AST]:
    """The parts of a def, lambda or class statement that run where it is defined: all but its body
    (decorators, defaults, annotations, bases)."""
    parts: list[ast.AST] = []
    for field_name, value in ast.iter_fields(node):
        if field_name != "body":
            parts += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, ast.AST)]
    return parts


def top_level_assigned_names(body: Sequence[ast.AST]) -> list[str]:
    """The names the cell's own scope binds (or deletes), each once, statement by statement."""
    names: dict[str, None] = {}

    def add(name: str) -> None:
        names.setdefault(name, None)

    for node in walk_top_scope(body):
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


def read_later(body: list[ast.stmt], names: set[str]) -> dict[str, tuple[int, list[int]]]:
    """For each of ``names`` the cell's own scope assigns: the line of its first assignment and the
    later lines that read it (an intermediate result, not only an output of the cell)."""
    first: dict[str, int] = {}
    reads: dict[str, set[int]] = {}
    for node in walk_top_scope(body):
        if isinstance(node, ast.Name) and node.id in names:
            if isinstance(node.ctx, ast.Store):
                first[node.id] = min(first.get(node.id, node.lineno), node.lineno)
            elif isinstance(node.ctx, ast.Load):
                reads.setdefault(node.id, set()).add(node.lineno)
    out = {}
    for name, line in first.items():
        later = sorted(n for n in reads.get(name, ()) if n > line)
        if later:
            out[name] = (line, later)
    return out


class _PublishBindings:
    """After each statement of the cell's own scope, publish the locals it bound."""

    def __init__(self, setters: dict[str, str]):
        self.setters = setters
        self.caught = 0

    def transform(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            out.append(self._enter(statement))
            out += self._publish(top_level_assigned_names([statement]), statement)
        return out

    def _publish(self, names: list[str], where: ast.AST) -> list[ast.stmt]:
        calls = []
        for name in names:
            if name in self.setters:
                call = ast.Call(
                    func=ast.Name(id=self.setters[name], ctx=ast.Load()),
                    args=[ast.Name(id=name, ctx=ast.Load())],
                    keywords=[],
                )
                calls.append(ast.copy_location(ast.Expr(value=call), where))
        return calls

    def _enter(self, statement: ast.stmt) -> ast.stmt:
        """Publish inside compound statements too, and what their headers bind first thing in each body."""
        if isinstance(statement, _SCOPES):
            return statement
        header = _bound_by_header(statement)
        for field_name in ("body", "orelse", "finalbody"):
            body = getattr(statement, field_name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                first = self._publish(header, body[0]) if field_name == "body" else []
                setattr(statement, field_name, first + self.transform(body))
        if isinstance(statement, ast.Try) or (sys.version_info >= (3, 11) and isinstance(statement, ast.TryStar)):
            statement.handlers = [self._handler(h) for h in statement.handlers]
        if isinstance(statement, ast.Match):
            for case in statement.cases:
                case.body = self._publish(top_level_assigned_names([case.pattern]), case.body[0]) + self.transform(
                    case.body
                )
        return statement

    def _handler(self, handler: ast.ExceptHandler) -> ast.ExceptHandler:
        body = self.transform(handler.body)
        if handler.name and handler.name in self.setters:
            # Python deletes ``except ... as e`` after the handler, which would leave the local ``e``
            # unbound rather than unset (an UnboundLocalError, not the NameError of a plain cell), so
            # the handler catches into a name of its own and unsets ``e`` (published: deleted) afterwards.
            name, self.caught = handler.name, self.caught + 1
            handler.name = _CAUGHT_NAME.format(self.caught)
            bind = ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Name(id=handler.name, ctx=ast.Load())
            )
            unset = ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Name(id=UNSET_PARAMETER, ctx=ast.Load())
            )
            body = (
                [ast.copy_location(bind, handler)]
                + self._publish([name], handler)
                + body
                + [ast.copy_location(unset, handler)]
                + self._publish([name], handler)
            )
        handler.body = body
        return handler


def _bound_by_header(statement: ast.stmt) -> list[str]:
    parts: list[ast.AST] = []
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        parts = [statement.target, statement.iter]
    elif isinstance(statement, (ast.While, ast.If)):
        parts = [statement.test]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        parts = list(statement.items)
    elif isinstance(statement, ast.Match):
        parts = [statement.subject]
    return top_level_assigned_names(parts)


def _as_list(node_or_nodes) -> list:
    return node_or_nodes if isinstance(node_or_nodes, list) else [node_or_nodes]


def _flatten(targets):
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            yield from _flatten(target.elts)
        else:
            yield target


def _checked_read(name: str) -> ast.expr:
    """``name``, or when the run left it unbound what a plain cell's lookup gives: a builtin, or NameError."""
    return ast.IfExp(
        test=ast.Compare(
            left=ast.Name(id=name, ctx=ast.Load()),
            ops=[ast.IsNot()],
            comparators=[ast.Name(id=UNSET_PARAMETER, ctx=ast.Load())],
        ),
        body=ast.Name(id=name, ctx=ast.Load()),
        orelse=ast.Call(
            func=ast.Name(id=UNBOUND_PARAMETER, ctx=ast.Load()), args=[ast.Constant(value=name)], keywords=[]
        ),
    )


class _TopScopeTransformer(ast.NodeTransformer):
    """Transforms the cell's own scope only: of nested functions, lambdas, classes and comprehensions,
    only what runs where they are defined."""

    def _enclosing_parts_only(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
        """A def, lambda or class: only what runs where it is defined (see _evaluated_in_enclosing_scope)."""
        if isinstance(node, ast.Lambda):
            expression = node.body
            node.body = ast.Constant(value=None)
            self.generic_visit(node)
            node.body = expression
        else:
            body = node.body
            node.body = []
            self.generic_visit(node)
            node.body = body
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _enclosing_parts_only

    def _comprehension(self, node):
        first = node.generators[0]
        first.iter = self.visit(first.iter)  # the rest runs in the comprehension's own scope
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


class _ScopeBuiltinsToNamespace(_TopScopeTransformer):
    """``locals()``/``vars()`` -> ``SCOPE(LOCALS())``; ``exec(code)``/``eval(code)`` -> ``exec(code, NAMESPACE,
    SCOPE(LOCALS()))``: what they read and bind at a plain cell's top level."""

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        name = _scope_builtin_called(node)
        if name is None:
            return node
        scope = ast.Call(
            func=ast.Name(id=SCOPE_PARAMETER, ctx=ast.Load()),
            args=[ast.Call(func=ast.Name(id=LOCALS_PARAMETER, ctx=ast.Load()), args=[], keywords=[])],
            keywords=[],
        )
        if name in ("locals", "vars"):
            return ast.copy_location(scope, node)
        node.args = [*node.args, ast.Name(id=NAMESPACE_PARAMETER, ctx=ast.Load()), scope]
        return node


class _CheckBoundReads(_TopScopeTransformer):
    """Reads of the cell's locals in its own scope raise NameError while the local is unset."""

    def __init__(self, local_names: set[str]):
        self.local_names = local_names

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.local_names:
            return ast.copy_location(_checked_read(node.id), node)
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        node.value = self.visit(node.value)
        if isinstance(node.target, ast.Name) and node.target.id in self.local_names:
            check = ast.copy_location(ast.Expr(value=_checked_read(node.target.id)), node)
            return [check, node]
        node.target = self.visit(node.target)
        return node


class _DeleteToUnset(ast.NodeTransformer):
    """``del name`` of a local in the cell's own scope becomes ``name = <unset>``: the name stays a
    bound local that later reads can check; publishing the unset value marks it deleted."""

    def __init__(self, local_names: set[str]):
        self.local_names = local_names

    def visit_Delete(self, node: ast.Delete):
        targets = list(_flatten(node.targets))
        names = [t for t in targets if isinstance(t, ast.Name) and t.id in self.local_names]
        others = [t for t in targets if t not in names]
        out: list[ast.stmt] = []
        if others:
            out.append(ast.copy_location(ast.Delete(targets=others), node))
        for target in names:
            # ``del`` of an unbound name raises, as in a plain cell
            out.append(ast.copy_location(ast.Expr(value=_checked_read(target.id)), node))
            assign = ast.Assign(
                targets=[ast.Name(id=target.id, ctx=ast.Store())],
                value=ast.Name(id=UNSET_PARAMETER, ctx=ast.Load()),
            )
            out.append(ast.copy_location(assign, node))
        return out

    def _leave(self, node):  # nested scopes delete their own locals
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _leave
