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
* ``locals()``, ``vars()``, and ``exec``/``eval`` without namespaces of their own, at
  the cell's top level read and bind the namespace, as at a plain cell's top level
  (``CellScope``; ``exec('import json as jj')`` binds ``jj`` in the notebook).
* Every run starts from the namespace as it was (``restore_namespace``), and the
  final values are committed once, so it ends as after one normal run.

The rewrites of the cell's statements that give these semantics (unset locals,
checked reads, publishing each binding) and the reading of which names the cell
binds are in ``rewrite``, with ``CellSyntaxError``, which its checks raise.
This module decides which names are locals, parameters, kept and global, and
builds the function and runs it against the namespace.

The source is registered in ``linecache`` under the cell's filename so tracebacks
and graph-break locations show the cell's lines.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import linecache
import re
import sys
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from ...profile_run import CELL_FILENAME_PREFIX, CELL_FUNCTION_NAME, SETTER_FILENAME
from .rewrite import (
    LOCALS_PARAMETER,
    NAMESPACE_PARAMETER,
    SCOPE_PARAMETER,
    UNBOUND_PARAMETER,
    UNSET_PARAMETER,
    CellSyntaxError,
    read_later,
    reject_unsupported,
    rewrite_body,
    scope_builtin_calls,
    top_level_assigned_names,
    walk_top_scope,
)

# Every name the tool adds to the cell function starts with OWN_NAME_PREFIX, and its publish setters
# are compiled under SETTER_FILENAME: what Dynamo guards on them is the tool's, not the user's code's.
OWN_NAME_PREFIX = "__compile_profile"
LAST_EXPRESSION = "<last expression>"
_SETTER_PARAMETER = "__compile_profile_publish_{}__"
_ABSENT = object()  # a name that was not in the namespace
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


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


# A line IPython rewrites before Python sees it: a magic (%time, %%bash), a shell escape (!ls, files = !ls)
# or a help request (obj?).  The body of %%compile_profile reaches Python as written, where it is invalid.
_IPYTHON_SYNTAX = re.compile(r"^\s*(?:[\w.\[\], ]+=\s*)?(?:%|!)|^\s*[\w.]+\?{1,2}\s*$")
IPYTHON_SYNTAX_HINT = (
    "IPython syntax (%magic, !shell command, obj?) is not Python, and a profiled cell runs as Python: run it "
    "in a cell of its own, or call get_ipython().run_line_magic(...) or get_ipython().system(...)"
)


class UnknownKeptName(ValueError):
    """``keep`` names something the cell does not assign."""


class EmptyCell(ValueError):
    """The cell holds no statement (empty, blank or comments only): there is nothing to profile."""


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
    # the plain globals among the assigned names as the first and the last eager run left them
    _after_first_eager: dict[str, Any] | None = field(default=None, init=False, repr=False)
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

    def restore_locals(self, after: str = "last") -> None:
        """After the runs: the locals wait for ``commit``; names kept global hold what the ``after``
        ("first" or "last") eager run wrote (the last run may be a compiled one that failed halfway)."""
        self.restore_namespace(self.assigned)
        kept = self._after_first_eager if after == "first" else self._after_eager
        for name, value in (kept or {}).items():
            if value is _ABSENT:
                self.user_ns.pop(name, None)
            else:
                self.user_ns[name] = value

    def __call__(self) -> tuple[Any, dict[str, Any]]:
        """One eager run."""
        returned = self.call_with(self.fn)
        self._after_eager = {name: self.user_ns.get(name, _ABSENT) for name in self.global_names}
        if self._after_first_eager is None:
            self._after_first_eager = self._after_eager
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
                return None, {
                    name: local_values[name] for name in self.kept if local_values.get(name, UNSET) is not UNSET
                }
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
        lines = padded.splitlines()
        line = lines[exc.lineno - 1] if exc.lineno and 0 < exc.lineno <= len(lines) else ""
        message = f"{exc.msg}: {IPYTHON_SYNTAX_HINT}" if _IPYTHON_SYNTAX.match(line) else exc.msg
        raise CellSyntaxError(message, (filename, exc.lineno, exc.offset, exc.text)) from None
    if not tree.body:  # compiling an empty function body fails inside Python's compiler ("AST node line range")
        raise EmptyCell("the cell has no code to profile")
    reject_unsupported(tree, filename)
    assigned_anywhere = top_level_assigned_names(tree.body)
    declared_global = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    # Functions and classes the cell defines are globals too: named as in a plain cell (pickle finds them).
    defined_here = {node.name for node in walk_top_scope(tree.body) if isinstance(node, _DEFINITIONS)}
    global_names = [name for name in assigned_anywhere if name in declared_global or name in defined_here]
    kept_names = _kept_names(assigned_anywhere, keep)
    scope_calls = scope_builtin_calls(tree.body, assigned_anywhere)
    compile_args = (kept_names, user_ns, filename, line_offset, scope_calls)
    code = _compile_cell_function(tree, assigned_anywhere, global_names, *compile_args)
    # Locals that nested scopes use would become closure cells, frozen at the cell's values: make them globals.
    captured = [name for name in assigned_anywhere if name in _cell_function_code(code).co_cellvars]
    if captured:
        global_names += captured
        code = _compile_cell_function(tree, assigned_anywhere, global_names, *compile_args)
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
        UNSET_PARAMETER: UNSET,
        UNBOUND_PARAMETER: _lookup_unbound,
        **{_SETTER_PARAMETER.format(i): _setter(name, user_ns) for i, name in enumerate(published)},
        **(
            {SCOPE_PARAMETER: _scope_of(user_ns), LOCALS_PARAMETER: builtins.locals, NAMESPACE_PARAMETER: user_ns}
            if scope_calls
            else {}
        ),
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
    scope_calls: bool,
):
    """The code of a module defining the cell function; its statements are the cell's."""
    local_names = [name for name in assigned if name not in global_names]
    parameters = _parameters(local_names, user_ns)
    published = [name for name in local_names if name in kept]
    setters = {name: _SETTER_PARAMETER.format(i) for i, name in enumerate(published)}
    statements, result = rewrite_body(tree.body, local_names, setters, scope_calls=scope_calls)
    scope_parameters = [SCOPE_PARAMETER, LOCALS_PARAMETER, NAMESPACE_PARAMETER] if scope_calls else []
    anchor = tree.body[0] if tree.body else ast.Pass(lineno=line_offset + 1, col_offset=0)
    unset_name = lambda: ast.Name(id=UNSET_PARAMETER, ctx=ast.Load())
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
            kwonlyargs=[ast.arg(arg=UNSET_PARAMETER), ast.arg(arg=UNBOUND_PARAMETER)]
            + [ast.arg(arg=setter) for setter in setters.values()]
            + [ast.arg(arg=name) for name in scope_parameters],
            kw_defaults=[ast.Constant(value=None) for _ in range(2 + len(setters) + len(scope_parameters))],
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


class CellScope(MutableMapping):
    """What ``locals()`` is at a plain cell's top level, for the cell function: the notebook's namespace,
    seen through the function's own locals (the names the cell has bound so far), and taking every binding
    (``exec('import json as jj')``, ``locals()['lw'] = 1``), as the plain cell's namespace does."""

    def __init__(self, local_values: dict[str, Any], namespace: dict[str, Any]):
        self._locals = {
            name: value
            for name, value in local_values.items()
            if not name.startswith(OWN_NAME_PREFIX) and value is not UNSET
        }
        self._namespace = namespace

    def __getitem__(self, name: str) -> Any:
        return self._locals[name] if name in self._locals else self._namespace[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self._namespace[name] = value
        if name in self._locals:
            self._locals[name] = value

    def __delitem__(self, name: str) -> None:
        found = self._locals.pop(name, _ABSENT) is not _ABSENT
        if self._namespace.pop(name, _ABSENT) is _ABSENT and not found:
            raise KeyError(name)

    def __iter__(self):
        return iter({**self._namespace, **self._locals})

    def __len__(self) -> int:
        return len(self._namespace.keys() | self._locals.keys())

    def __repr__(self) -> str:
        return repr(dict(self))


def _scope_of(user_ns: dict[str, Any]) -> Callable[[dict[str, Any]], CellScope]:
    def scope(local_values: dict[str, Any]) -> CellScope:
        return CellScope(local_values, user_ns)

    return scope


def _lookup_unbound(name: str):
    """A plain cell's lookup of a global it has not bound (or deleted): the builtin, or NameError."""
    if hasattr(builtins, name):
        return getattr(builtins, name)
    raise NameError(f"name {name!r} is not defined")


def _setter(name: str, user_ns: dict[str, Any]) -> FunctionType:
    """``v -> global name = v``: a binding published to the namespace, in a form Dynamo traces.

    The unset marker (``del name``) publishes as ``DELETED``, which the commit removes.  It is told by its
    type, not by identity: torch 2.6's Dynamo cannot compare a float it made dynamic on a recompile
    (``a = random.random()``, a SymFloat) with ``is`` against an object ("NotImplementedError:
    UserDefinedObjectVariable(_Unset)"), and failed the compiled variant on its fourth call.
    """
    scratch: dict[str, Any] = {}
    exec(
        compile(
            f"def publish(value, unset=None, deleted=None):\n    global {name}\n"
            f"    {name} = deleted if isinstance(value, unset) else value\n",
            SETTER_FILENAME,
            "exec",
        ),
        scratch,
    )
    setter = FunctionType(scratch["publish"].__code__, user_ns, f"publish_{name}")
    setter.__defaults__ = (_Unset, DELETED)
    return setter


def cell_line_of_exception(exc: BaseException, filename: str) -> int | None:
    """The innermost cell line in ``exc``'s traceback."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
