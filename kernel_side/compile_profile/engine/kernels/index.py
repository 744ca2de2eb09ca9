"""The output-code modules a profiler pass saw run, read for attribution: each kernel launch and
extern call in the order ``call()`` runs them, and which of the variant's graphs a module is.

``KernelIndex`` holds the variant's kernels (from the trace model) by name, source and graph, and
reads each module file once; ``attribution`` asks it which kernel a launch or call site is.
"""

from __future__ import annotations

import ast
import collections
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from ...profile_run import Kernel
from ..common.op_kinds import extern_op_name
from ..trace.output_code import (
    EXTERN_PREFIXES,
    ParsedOutputCode,
    SourceSegments,
    dotted_name,
    launch_call,
    launcher_functions,
    parse_output_code,
)
from .chrome_trace import HostEvent


@dataclass
class CallSite:
    kind: str  # "triton" | "cpp" | "extern"
    name: str
    kernel: Kernel | None
    op: str = ""  # extern: the ATen op name as the profiler shows it, e.g. "aten::mm"


@dataclass
class ModuleInfo:
    graph_id: str | None
    sites: list[CallSite]


def call_sites(
    code: str, tree: ast.Module | None = None, parsed: ParsedOutputCode | None = None
) -> list[tuple[str, str, str]]:
    """(kind, name, statement text) of each kernel launch or extern call, in the order ``call()``
    runs them (a graph partition's launches where ``call`` invokes ``self.partitions[N]``); ``tree`` and
    ``parsed``, the module's ``ast.parse`` and ``parse_output_code`` where the caller has them."""
    if tree is None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return []
    parsed = parsed if parsed is not None else parse_output_code(code, tree)
    languages = {k.name: k.language for k in parsed.kernels if k.language != "extern"}
    functions = launcher_functions(tree)
    if not functions or functions[0].name != "call":
        return []
    partitions = {fn.name: fn for fn in functions[1:]}
    segments = SourceSegments(code)

    def sites_of(fn: ast.FunctionDef, inline: bool) -> list[tuple[str, str, str]]:
        out = []
        statements = sorted(
            (n for n in ast.walk(fn) if isinstance(n, (ast.Expr, ast.Assign))), key=lambda n: (n.lineno, n.col_offset)
        )
        for stmt in statements:
            partition = _partition_called(stmt) if inline else None
            if partition is not None and partition in partitions:
                out.extend(sites_of(partitions[partition], inline=False))
                continue
            call = launch_call(stmt)
            if call is None:
                continue
            callee = dotted_name(call.func)
            base = callee.split(".")[0]
            text = (segments(stmt) or "").strip()
            if base in languages:
                out.append((languages[base], base, text))
            elif callee.startswith(EXTERN_PREFIXES):
                out.append(("extern", callee, text))
        return out

    return sites_of(functions[0], inline=True)


def _partition_called(stmt: ast.stmt) -> str | None:
    """``partition_N`` for ``(...) = self.partitions[N](...)``."""
    value = getattr(stmt, "value", None)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Subscript):
        target, index = value.func.value, value.func.slice
        if isinstance(target, ast.Attribute) and target.attr == "partitions" and isinstance(index, ast.Constant):
            return f"partition_{index.value}"
    return None


def tracer_prefixes() -> list[str]:
    """The folders the Python tracer takes off the front of a file's path when it names a function, longest
    first: torch's own list (``torch.profiler.python_tracer._prefix_regex``: the site-packages folders and every
    ``sys.path`` entry, made absolute), else ``sys.path``'s entries."""
    try:
        from torch.profiler.python_tracer import _prefix_regex

        return list(_prefix_regex())
    except Exception:  # noqa: BLE001 - a torch without it: the entries it is made of
        return sorted({os.path.abspath(p) + os.sep for p in sys.path}, reverse=True)


def output_code_file(named: str, prefixes: list[str]) -> str:
    """The file of an output-code module the Python tracer named ``named``: as named where absolute, else the first
    of ``prefixes`` (``tracer_prefixes``) with ``named`` after it that is a file.  A Jupyter kernel has "" (its
    working folder) on ``sys.path``, so an Inductor cache under the notebook's folder (``TORCHINDUCTOR_CACHE_DIR=
    ./.cache``) is named from there (``.cache/ab/cabc.py(12): call``), and read as named from elsewhere it was
    no file: every compiled kernel went unattributed, 0 µs."""
    if os.path.isabs(named):
        return named
    for prefix in prefixes:
        if os.path.isfile(prefix + named):
            return prefix + named
    return named


class KernelIndex:
    """The variant's kernels, looked up by module, graph and name."""

    def __init__(self, kernels: Iterable[Kernel]):
        self.kernels = list(kernels)
        self.by_name_source: dict[tuple[str, str], list[Kernel]] = collections.defaultdict(list)
        self.by_graph_name: dict[tuple[str, str], list[Kernel]] = collections.defaultdict(list)
        self.graphs_by_name: dict[str, set[str]] = collections.defaultdict(set)
        for k in self.kernels:
            self.by_name_source[(k.name, k.source.strip())].append(k)
            self.by_graph_name[(k.graph_id, k.name)].append(k)
            if k.language != "extern":
                self.graphs_by_name[k.name].add(k.graph_id)
        self._modules: dict[str, ModuleInfo | None] = {}
        self._prefixes: list[str] | None = None  # ``tracer_prefixes``, read at the first relative name

    def module(self, path: str) -> ModuleInfo | None:
        if path not in self._modules:
            self._modules[path] = self._read_module(path)
        return self._modules[path]

    def _read_module(self, path: str) -> ModuleInfo | None:
        if not os.path.isabs(path) and self._prefixes is None:
            self._prefixes = tracer_prefixes()
        try:
            with open(output_code_file(path, self._prefixes or [])) as f:
                code = f.read()
        except OSError:
            return None
        try:
            tree = ast.parse(code)  # once: parse_output_code and call_sites walk the same tree
        except SyntaxError:
            return None
        module = parse_output_code(code, tree)
        parsed = {k.name: k for k in module.kernels if k.language != "extern"}
        votes: collections.Counter[str] = collections.Counter()
        raw = call_sites(code, tree, module)
        for kind, name, text in raw:
            source = parsed[name].source.strip() if kind != "extern" else text
            for k in self.by_name_source.get((name, source), []):
                votes[k.graph_id] += 1
        if not votes:
            return None
        graph_id = votes.most_common(1)[0][0]
        sites = []
        used: set[str] = set()
        for kind, name, text in raw:
            source = parsed[name].source.strip() if kind != "extern" else text
            candidates = [k for k in self.by_name_source.get((name, source), []) if k.graph_id == graph_id]
            fresh = [k for k in candidates if k.id not in used] or candidates
            kernel = fresh[0] if fresh else None
            if kernel is not None and kind == "extern":
                used.add(kernel.id)  # one extern Kernel per call site
            sites.append(CallSite(kind, name, kernel, extern_op_name(name) if kind == "extern" else ""))
        return ModuleInfo(graph_id, sites)

    def graph_by_names(self, names: Iterable[str]) -> str | None:
        votes: collections.Counter[str] = collections.Counter()
        for name in names:
            for graph_id in self.graphs_by_name.get(name, ()):
                votes[graph_id] += 1
        return votes.most_common(1)[0][0] if votes else None

    def generated(self, graph_id: str | None, name: str) -> Kernel | None:
        if graph_id is not None:
            found = [k for k in self.by_graph_name.get((graph_id, name), []) if k.language != "extern"]
            if found:
                return found[0]
        graphs = self.graphs_by_name.get(name, set())
        if len(graphs) == 1:  # unambiguous across the variant
            return self.generated(next(iter(graphs)), name)
        return None

    def is_triton_launch(self, ev: HostEvent) -> bool:
        return (
            ev.cat == "cpu_op"
            and (
                ev.args.get("kernel_backend") == "triton" or "kernel_file" in ev.args or ev.name in self.graphs_by_name
            )
            and not ev.name.startswith("aten::")
        )
