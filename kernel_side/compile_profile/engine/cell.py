"""A notebook cell as a function that ``torch.compile`` can compile.

Dynamo compiles function frames, not module code, so the cell body becomes the
body of a function, and runs as a plain cell would:

* Names the cell assigns are the function's locals, because Dynamo keeps compiling
  the code after a graph break only when the values it needs are locals.  Those
  that already exist (in the namespace or as builtins) come in as parameters, so
  ``x = x + 1`` reads the old ``x``; new ones start bound to an "unset" marker,
  which ``del x`` also restores.
* The names the cell *keeps* (all it assigns, unless ``keep`` names some) are
  *published* to the namespace as they are bound, through a tiny setter whose
  ``STORE_GLOBAL`` Dynamo traces: functions from other cells that read those
  globals see the new values mid-cell, compiled or not, and the run's values are
  read back from the namespace.  The function returns only the cell's last
  expression, never its locals: a local kept alive to the end of the function is
  carried across every graph break, which changes how Dynamo splits the frame
  (a training step returning its loss broke 4 times where the same code
  returning nothing broke twice, torch 2.11 and 2.13).  So the compiled variant
  is ``torch.compile`` of the cell written as a plain function over the
  notebook's globals, plus a graph output for each kept tensor.
* Names the cell does not keep are temporaries: never published, so Inductor can
  fuse them away, and unbound after the cell, as if deleted at its end.
* Names that nested scopes use (functions, lambdas, classes and comprehensions the
  cell defines) or that the cell declares ``global`` are plain globals, so what
  the cell defines reads the namespace later, as after a normal run.
* Every run starts from the namespace as it was (``restore_namespace``), and the
  final values are committed once, so it ends as after one normal run.

The source is registered in ``linecache`` under the cell's filename so tracebacks
and graph-break locations show the cell's lines.
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
import linecache
import sys
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any, Callable

CELL_FUNCTION_NAME = "__compile_profile_cell__"
LAST_EXPRESSION = "<last expression>"
_UNSET_PARAMETER = "__compile_profile_unset__"
_SETTER_PARAMETER = "__compile_profile_publish_{}__"
_UNBOUND_PARAMETER = "__compile_profile_unbound__"
_CAUGHT_NAME = "__compile_profile_caught_{}__"
_ABSENT = object()  # a name that was not in the namespace


class _Unset:
    """Marks a cell name that a run left unbound (never assigned, or deleted)."""

    def __repr__(self) -> str:
        return "<unset by this run>"


UNSET = _Unset()


class _Deleted:
    """What a kept name holds in the namespace after the cell deleted it, until the commit removes it."""

    def __repr__(self) -> str:
        return "<deleted by the cell>"


DELETED = _Deleted()


class UnknownKeptName(ValueError):
    """``keep`` names something the cell does not assign."""


class CellSyntaxError(SyntaxError):
    """The cell cannot be profiled as written; ``lineno`` is the cell line."""


@dataclass
class CellFunction:
    """The compiled-or-not function of a cell, and how a run's values get in and out of the namespace.

    A run returns ``(value of the last expression, {kept name: value})``: the values the
    run published, read back from the namespace right after it.
    """

    fn: FunctionType  # returns the value of the cell's last expression (None when it has none)
    parameters: list[str]  # assigned names that already existed: passed in, as they were, on every call
    assigned: list[str]  # the function's locals
    returns_value: bool
    filename: str
    source: str  # the whole cell as the user sees it
    line_offset: int
    user_ns: dict[str, Any]
    global_names: list[str] = field(default_factory=list)  # assigned, but kept as plain globals
    initial: dict[str, Any] = field(default_factory=dict)  # every assigned name as the namespace had it
    kept: list[str] = field(default_factory=list)  # the locals whose values are published and stay after the cell
    temporaries: list[str] = field(default_factory=list)  # assigned names unbound after the cell
    # kept locals that later lines of the cell read: name -> (line first assigned, lines reading it later)
    intermediates: dict[str, tuple[int, list[int]]] = field(default_factory=dict)
    # the plain globals among the assigned names as the last eager run left them
    _after_eager: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def arguments(self) -> list[Any]:
        return [self._initial_value(name) for name in self.parameters]

    def _initial_value(self, name: str) -> Any:
        value = self.initial[name]
        return getattr(builtins, name) if value is _ABSENT else value

    def restore_namespace(self, names: list[str] | None = None) -> None:
        """Put the names the cell assigns (or ``names`` of them) back as they were before the first run."""
        for name in self.initial if names is None else names:
            value = self.initial[name]
            if value is _ABSENT:
                self.user_ns.pop(name, None)
            else:
                self.user_ns[name] = value

    def restore_locals(self) -> None:
        """After the runs: the locals wait for ``commit``; names kept global hold what the last eager run
        wrote (the last run may be a compiled one that failed halfway)."""
        self.restore_namespace(self.assigned)
        for name, value in (self._after_eager or {}).items():
            if value is _ABSENT:
                self.user_ns.pop(name, None)
            else:
                self.user_ns[name] = value

    def __call__(self) -> tuple[Any, dict[str, Any]]:
        """One eager run."""
        returned = self.call_with(self.fn)
        self._after_eager = {name: self.user_ns.get(name, _ABSENT) for name in self.global_names}
        return returned

    def call_with(self, fn: Callable[..., Any]) -> tuple[Any, dict[str, Any]]:
        """One run of ``fn`` (the cell function, or what ``torch.compile`` made of it) and what it kept."""
        value = fn(*self.arguments())
        return value, self._published()

    def _published(self) -> dict[str, Any]:
        ns = self.user_ns
        return {name: ns[name] for name in self.kept if name in ns and ns[name] is not DELETED}

    def outputs(self, returned: tuple[Any, dict[str, Any]]) -> dict[str, Any]:
        """What one run produced: the kept names and the value of the last expression."""
        value, bound = returned
        out = dict(bound)
        if self.returns_value:
            out[LAST_EXPRESSION] = value
        return out

    def values_at_failure(self, exc: BaseException) -> tuple[Any, dict[str, Any]] | None:
        """What the cell had assigned when ``exc`` stopped it, in the shape a run returns.

        A normal cell that raises keeps the assignments made before the error; the cell
        function's frame in the traceback still holds them.
        """
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is self.fn.__code__:
                local_values = tb.tb_frame.f_locals
                return None, {name: local_values[name] for name in self.kept
                              if local_values.get(name, UNSET) is not UNSET}
            tb = tb.tb_next
        return None

    def commit(self, returned: tuple[Any, dict[str, Any]]) -> None:
        """Leave the namespace as one normal run would: the run's kept values, its temporaries unbound.

        Names kept as globals already hold what the last run wrote.
        """
        _, bound = returned
        for name in self.assigned:
            value = bound.get(name, _ABSENT) if name in self.kept else _ABSENT
            untouched_builtin = self.initial[name] is _ABSENT and value is getattr(builtins, name, _ABSENT)
            if value is _ABSENT or untouched_builtin:
                self.user_ns.pop(name, None)
            else:
                self.user_ns[name] = value
        for name in self.global_names:
            if name in self.temporaries or self.user_ns.get(name) is DELETED:
                self.user_ns.pop(name, None)


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
    keep: list[str] | None = None,
) -> CellFunction:
    """Turn ``body`` into a ``CellFunction``.

    ``line_offset`` is how many cell lines precede ``body`` (1 for a
    ``%%compile_profile`` line), so line numbers in code objects are cell lines.
    ``keep`` names the assigned names that stay after the cell (default: all of them).
    """
    padded = "\n" * line_offset + body
    source = padded if source is None else source
    filename = filename or cell_filename(source)
    try:
        tree = compile(padded, filename, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as exc:
        raise CellSyntaxError(exc.msg, (filename, exc.lineno, exc.offset, exc.text)) from None
    _reject_unsupported(tree, filename)
    assigned_anywhere = top_level_assigned_names(tree.body)
    declared_global = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    # Functions and classes the cell defines are globals too: named as in a plain cell (pickle finds them).
    defined_here = {node.name for node in _walk_top_scope(tree.body) if isinstance(node, _DEFINITIONS)}
    global_names = [name for name in assigned_anywhere if name in declared_global or name in defined_here]
    kept_names = _kept_names(assigned_anywhere, keep)
    code = _compile_cell_function(tree, assigned_anywhere, global_names, kept_names, user_ns, filename, line_offset)
    # Locals that nested scopes use would become closure cells, frozen at the cell's values: make them globals.
    captured = [name for name in assigned_anywhere if name in _cell_function_code(code).co_cellvars]
    if captured:
        global_names += captured
        code = _compile_cell_function(tree, assigned_anywhere, global_names, kept_names, user_ns, filename,
                                      line_offset)
    local_names = [name for name in assigned_anywhere if name not in global_names]
    published = [name for name in local_names if name in kept_names]
    parameters = _parameters(local_names, user_ns)
    # Register the whole cell so tracebacks and Dynamo show its lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # The namespace itself is the function's globals, so functions the cell defines
    # see later notebook definitions, as after a normal run; defining it elsewhere
    # and rebinding its globals leaves the namespace untouched.
    scratch: dict[str, Any] = {"__builtins__": __builtins__}
    exec(code, scratch)
    defined = scratch[CELL_FUNCTION_NAME]
    user_ns.setdefault("__builtins__", __builtins__)  # as exec() does; Dynamo reads it from globals
    fn = FunctionType(defined.__code__, user_ns, CELL_FUNCTION_NAME)
    fn.__kwdefaults__ = {
        _UNSET_PARAMETER: UNSET,
        _UNBOUND_PARAMETER: _lookup_unbound,
        **{_SETTER_PARAMETER.format(i): _setter(name, user_ns) for i, name in enumerate(published)},
    }
    return CellFunction(
        fn=fn,
        parameters=parameters,
        assigned=local_names,
        returns_value=bool(tree.body) and isinstance(tree.body[-1], ast.Expr),
        filename=filename,
        source=source,
        line_offset=line_offset,
        user_ns=user_ns,
        global_names=global_names,
        initial={name: user_ns.get(name, _ABSENT) for name in assigned_anywhere},
        kept=published,
        temporaries=[name for name in assigned_anywhere if name not in kept_names],
        intermediates=read_later(tree.body, set(published)),
    )


def read_later(body: list[ast.stmt], names: set[str]) -> dict[str, tuple[int, list[int]]]:
    """For each of ``names`` the cell's own scope assigns: the line of its first assignment and the
    later lines that read it (an intermediate result, not only an output of the cell)."""
    first: dict[str, int] = {}
    reads: dict[str, set[int]] = {}
    for node in _walk_top_scope(body):
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


def _kept_names(assigned: list[str], keep: list[str] | None) -> set[str]:
    if keep is None:
        return set(assigned)
    unknown = [name for name in keep if name not in assigned]
    if unknown:
        raise UnknownKeptName(
            f"names {', '.join(map(repr, unknown))}, which the cell does not assign; "
            f"it assigns {', '.join(assigned) or 'nothing'}"
        )
    return set(keep)


def _parameters(local_names: list[str], user_ns: dict[str, Any]) -> list[str]:
    return [name for name in local_names if name in user_ns or hasattr(builtins, name)]


def _compile_cell_function(
    tree: ast.Module,
    assigned: list[str],
    global_names: list[str],
    kept: set[str],
    user_ns: dict[str, Any],
    filename: str,
    line_offset: int,
):
    """The code of a module defining the cell function; its statements are the cell's."""
    local_names = [name for name in assigned if name not in global_names]
    parameters = _parameters(local_names, user_ns)
    published = [name for name in local_names if name in kept]
    setters = {name: _SETTER_PARAMETER.format(i) for i, name in enumerate(published)}
    body = copy.deepcopy(tree.body)  # transformed in place; the next compile starts from the cell again
    result: ast.expr = ast.Constant(value=None)
    if body and isinstance(body[-1], ast.Expr):
        result = body.pop().value
    statements = _DeleteToUnset(set(local_names)).visit(ast.Module(body=body, type_ignores=[])).body
    checker = _CheckBoundReads(set(local_names))
    statements = [new for s in statements for new in _as_list(checker.visit(s))]
    result = checker.visit(result)
    statements = _PublishBindings(setters).transform(statements)
    anchor = tree.body[0] if tree.body else ast.Pass(lineno=line_offset + 1, col_offset=0)
    unset_name = lambda: ast.Name(id=_UNSET_PARAMETER, ctx=ast.Load())  # noqa: E731
    prologue: list[ast.stmt] = []
    if global_names:
        prologue.append(ast.copy_location(ast.Global(names=list(global_names)), anchor))
    prologue += [
        ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=unset_name()), anchor)
        for name in local_names
        if name not in parameters
    ]
    ret = ast.Return(value=result)
    ast.copy_location(ret, tree.body[-1] if tree.body else anchor)
    func = ast.FunctionDef(
        name=CELL_FUNCTION_NAME,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=name) for name in parameters],
            kwonlyargs=[ast.arg(arg=_UNSET_PARAMETER), ast.arg(arg=_UNBOUND_PARAMETER)]
            + [ast.arg(arg=setter) for setter in setters.values()],
            kw_defaults=[ast.Constant(value=None) for _ in range(2 + len(setters))],
            defaults=[],
        ),
        body=prologue + statements + [ret],
        decorator_list=[],
        returns=None,
        **({"type_params": []} if sys.version_info >= (3, 12) else {}),
    )
    ast.copy_location(func, tree.body[0] if tree.body else ret)
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    try:
        return compile(module, filename, "exec")
    except SyntaxError as exc:  # e.g. a name both global and a parameter, as Python sees the wrapped cell
        raise CellSyntaxError(exc.msg, (filename, exc.lineno, exc.offset, exc.text)) from None


def _cell_function_code(module_code):
    return next(c for c in module_code.co_consts if getattr(c, "co_name", None) == CELL_FUNCTION_NAME)


def _lookup_unbound(name: str):
    """A plain cell's lookup of a global it has not bound (or deleted): the builtin, or NameError."""
    if hasattr(builtins, name):
        return getattr(builtins, name)
    raise NameError(f"name {name!r} is not defined")


def _setter(name: str, user_ns: dict[str, Any]) -> FunctionType:
    """``v -> global name = v``: a binding published to the namespace, in a form Dynamo traces.

    The unset marker (``del name``) publishes as ``DELETED``, which the commit removes.
    """
    scratch: dict[str, Any] = {}
    exec(
        compile(
            f"def publish(value, unset=None, deleted=None):\n    global {name}\n"
            f"    {name} = deleted if value is unset else value\n",
            "<compile-profile-publish>",
            "exec",
        ),
        scratch,
    )
    setter = FunctionType(scratch["publish"].__code__, user_ns, f"publish_{name}")
    setter.__defaults__ = (UNSET, DELETED)
    return setter


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
                call = ast.Call(func=ast.Name(id=self.setters[name], ctx=ast.Load()),
                                args=[ast.Name(id=name, ctx=ast.Load())], keywords=[])
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
        if isinstance(statement, _TRY_STATEMENTS):
            statement.handlers = [self._handler(h) for h in statement.handlers]
        if isinstance(statement, ast.Match):
            for case in statement.cases:
                case.body = self._publish(top_level_assigned_names([case.pattern]), case.body[0]) \
                    + self.transform(case.body)
        return statement

    def _handler(self, handler: ast.ExceptHandler) -> ast.ExceptHandler:
        body = self.transform(handler.body)
        if handler.name and handler.name in self.setters:
            # Python deletes ``except ... as e`` after the handler, which would leave the local ``e``
            # unbound rather than unset (an UnboundLocalError, not the NameError of a plain cell), so
            # the handler catches into a name of its own and unsets ``e`` (published: deleted) afterwards.
            name, self.caught = handler.name, self.caught + 1
            handler.name = _CAUGHT_NAME.format(self.caught)
            bind = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Name(id=handler.name, ctx=ast.Load()))
            unset = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                               value=ast.Name(id=_UNSET_PARAMETER, ctx=ast.Load()))
            body = [ast.copy_location(bind, handler)] + self._publish([name], handler) + body \
                + [ast.copy_location(unset, handler)] + self._publish([name], handler)
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
        test=ast.Compare(left=ast.Name(id=name, ctx=ast.Load()), ops=[ast.IsNot()],
                         comparators=[ast.Name(id=_UNSET_PARAMETER, ctx=ast.Load())]),
        body=ast.Name(id=name, ctx=ast.Load()),
        orelse=ast.Call(func=ast.Name(id=_UNBOUND_PARAMETER, ctx=ast.Load()), args=[ast.Constant(value=name)],
                        keywords=[]),
    )


class _CheckBoundReads(ast.NodeTransformer):
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

    def _enclosing_parts_only(self, node):
        """A def, lambda or class: only what runs where it is defined (see _evaluated_in_enclosing_scope)."""
        body = node.body
        node.body = ast.Constant(value=None) if isinstance(node, ast.Lambda) else []
        self.generic_visit(node)
        node.body = body
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _enclosing_parts_only

    def _comprehension(self, node):
        first = node.generators[0]
        first.iter = self.visit(first.iter)  # the rest runs in the comprehension's own scope
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


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
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            raise CellSyntaxError(
                "'from ... import *' cannot be profiled (Python allows it only at module level): "
                "import the names the cell uses, or run the import in another cell",
                (filename, node.lineno, node.col_offset + 1, None),
            )


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_TRY_STATEMENTS = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_top_scope(nodes: list[ast.stmt]):
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

