"""Split Inductor's output code (one Python module per compiled graph) into its kernels.

The module defines each generated kernel as ``name = async_compile.triton(...)``
(Triton, on GPU) or ``async_compile.cpp_pybinding(...)`` (C++/OpenMP, on CPU)
and calls extern kernels (cuBLAS/oneDNN matmuls, SDPA, convolutions) from its
``call`` function.  Parsing it with ``ast`` rather than regular expressions keeps
kernel sources exact, whatever quoting Inductor chose.
"""

from __future__ import annotations

import ast
import collections
import functools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

_AOT_ID = re.compile(r"#\s*AOT ID:\s*\['\d+_(\w+)'\]")
_ORIGINAL_ATEN = re.compile(r"Original ATen:\s*\[([^\]]*)\]")
_SOURCE_NODES = re.compile(r"Source Nodes:\s*\[([^\]]*)\]")
_PROVENANCE = re.compile(r"\[Provenance debug handles\]\s*([\w.]+):(\d+)")
_GRID_ARGS = re.compile(r"\.run\((.*)\)\s*$")
_PARTITION = re.compile(r"^partition_(\d+)$")  # graph partitions (CUDA graphs) hold the launches
EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.")

KernelLanguage = Literal["triton", "cpp", "extern"]  # as ``Kernel.language``
_LANGUAGE: dict[str, KernelLanguage] = {"triton": "triton", "cpp_pybinding": "cpp", "cpp": "cpp"}


@dataclass
class ParsedKernel:
    name: str
    language: KernelLanguage
    source: str
    aten_ops: list[str] = field(default_factory=list)
    handles: list[int] = field(default_factory=list)  # provenance debug handles of its call sites
    source_nodes: list[str] = field(default_factory=list)  # FX node names Inductor names in its comments
    launches: list[str] = field(default_factory=list)  # call sites in call(), e.g. Triton launch arguments


@dataclass
class ParsedOutputCode:
    graph_kind: str  # "forward" | "backward" | "inference" | ""
    kernels: list[ParsedKernel]


def parse_output_code(code: str, tree: ast.Module | None = None) -> ParsedOutputCode:
    """The module's kernels; ``tree``, ``ast.parse(code)`` where the caller has it already."""
    match = _AOT_ID.search(code[:500])
    kind = match.group(1) if match else ""
    if tree is None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return ParsedOutputCode(kind, [])
    lines = code.splitlines()
    kernels: dict[str, ParsedKernel] = {}
    for node in tree.body:
        kernel = _kernel_definition(node, lines)
        if kernel is not None:
            kernels[kernel.name] = kernel
    externs: list[ParsedKernel] = []
    segments = SourceSegments(code)
    for fn in launcher_functions(tree):
        _collect_call_sites(fn, lines, segments, kernels, externs)
    return ParsedOutputCode(kind, list(kernels.values()) + externs)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class SourceSegments:
    """``ast.get_source_segment`` for many nodes of one module: the module is split into lines once.

    ``ast.get_source_segment`` splits the whole source at each call, so reading a module's launches was quadratic
    in its size: on a 2-layer TransformerEncoder training step, 100 s of a 124 s profile (2 CPU cores).  Lines and
    offsets as ``ast`` counts them: split at ``\\r\\n``, ``\\r`` and ``\\n`` only, columns in UTF-8 bytes."""

    def __init__(self, code: str) -> None:
        self.lines = _LINE.findall(code)

    def __call__(self, node: ast.AST) -> str | None:
        if not isinstance(node, (ast.expr, ast.stmt)) or node.end_lineno is None or node.end_col_offset is None:
            return None  # a node with no position (ast.get_source_segment gives None for it too)
        first, last = node.lineno - 1, node.end_lineno - 1
        start, end = node.col_offset, node.end_col_offset
        if first < 0 or last >= len(self.lines):
            return None
        if first == last:
            return self.lines[first].encode()[start:end].decode()
        head = self.lines[first].encode()[start:].decode()
        tail = self.lines[last].encode()[:end].decode()
        return head + "".join(self.lines[first + 1 : last]) + tail


def _function_defs(tree: ast.Module) -> list[ast.FunctionDef]:
    """The module's function definitions, breadth first as ``ast.walk`` finds them, looking only into statements'
    bodies: not into the expressions, where the kernels' sources are (walking those too took 0.34 s of a 16-layer
    training step's 22 MB log's import)."""
    found: list[ast.FunctionDef] = []
    pending: collections.deque[ast.AST] = collections.deque(tree.body)
    while pending:
        node = pending.popleft()
        if isinstance(node, ast.FunctionDef):
            found.append(node)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                pending.extend(c for c in block if isinstance(c, (ast.stmt, ast.excepthandler, ast.match_case)))
    return found


def launcher_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """``call`` and, when Inductor partitioned the graph (CUDA graphs), each ``partition_N`` it calls."""
    functions = _function_defs(tree)
    call = [n for n in functions if n.name == "call"][:1]
    numbered = [(int(m.group(1)), n) for n in functions if (m := _PARTITION.match(n.name))]
    return call + [n for _, n in sorted(numbered, key=lambda pair: pair[0])]


def launch_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of a launch statement: ``f(...)`` alone, or ``buf = torch.ops.aten.x.default(...)``
    (fallback ops such as SDPA return their outputs)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return stmt.value
    if (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Call)
        and dotted_name(stmt.value.func).startswith(EXTERN_PREFIXES)
    ):
        return stmt.value
    return None


def _kernel_definition(node: ast.stmt, lines: list[str]) -> ParsedKernel | None:
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return None
    call = node.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "async_compile"
        and call.func.attr in _LANGUAGE
    ):
        return None
    strings = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not strings:
        return None
    source = max(strings, key=len)
    comments = _comments_above(lines, node.lineno)
    return ParsedKernel(
        name=node.targets[0].id,
        language=_LANGUAGE[call.func.attr],
        source=source.strip("\n"),
        aten_ops=_original_aten(comments),
        source_nodes=_listed(_SOURCE_NODES, comments + "\n" + source),
    )


def _collect_call_sites(
    call: ast.FunctionDef,
    lines: list[str],
    segments: SourceSegments,
    kernels: dict[str, ParsedKernel],
    externs: list[ParsedKernel],
) -> None:
    for stmt in (node for node in ast.walk(call) if isinstance(node, ast.stmt)):  # launches are statements
        call_node = launch_call(stmt)
        if call_node is None:
            continue
        func = call_node.func
        text = segments(stmt) or ""
        comments = _comments_above(lines, stmt.lineno)
        handle = _PROVENANCE.search(comments)
        callee = dotted_name(func)
        base = callee.split(".")[0] if callee else ""
        target = kernels.get(base)
        if target is not None:  # a generated kernel: kernel(...) or kernel.run(...)
            target.launches.append(text.strip())
            if handle:
                target.handles.append(int(handle.group(2)))
            if not target.aten_ops:
                target.aten_ops = _original_aten(comments)
            target.source_nodes += [n for n in _listed(_SOURCE_NODES, comments) if n not in target.source_nodes]
            continue
        if callee.startswith(EXTERN_PREFIXES) or (isinstance(stmt, ast.Expr) and "Original ATen" in comments):
            externs.append(
                ParsedKernel(
                    name=callee,
                    language="extern",
                    source=text.strip(),
                    aten_ops=_original_aten(comments) or _op_of_callee(callee),
                    handles=[int(handle.group(2))] if handle else [],
                    launches=[text.strip()],
                    source_nodes=_listed(_SOURCE_NODES, comments),
                )
            )


def _op_of_callee(callee: str) -> list[str]:
    """``extern_kernels.mm`` -> ``aten.mm``; ``torch.ops.aten._foo.default`` -> ``aten._foo``."""
    parts = callee.split(".")
    if callee.startswith("extern_kernels.") and len(parts) == 2:
        return [f"aten.{parts[1]}"]
    if callee.startswith("torch.ops.") and len(parts) >= 4:
        return [f"{parts[2]}.{parts[3]}"]
    return []


def _comments_above(lines: list[str], lineno: int) -> str:
    out = []
    i = lineno - 2
    while i >= 0 and lines[i].lstrip().startswith("#"):
        out.append(lines[i].strip())
        i -= 1
    return "\n".join(reversed(out))


def _original_aten(comments: str) -> list[str]:
    return _listed(_ORIGINAL_ATEN, comments)


def _listed(pattern: re.Pattern, text: str) -> list[str]:
    """The names in the first ``Label: [a, b]`` comment that ``pattern`` finds."""
    match = pattern.search(text)
    if not match:
        return []
    return [item.strip() for item in match.group(1).split(",") if item.strip()]


def dotted_name(node: ast.expr) -> str:
    """``a.b.c`` for an attribute chain on a name; empty for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def ops_from_kernel_name(name: str) -> list[str]:
    """Inductor names fused kernels after their original ATen ops (``cpp_fused_add_relu_0``), joined by ``_``
    though op names hold ``_`` too: the name is read as the longest registered op names in turn, and a word
    that starts none is dropped.  Split at every ``_``, the CPU attention backward's kernel read as ten ops,
    ``aten.scaled``, ``aten.dot``, ``aten.for``, ``aten.cpu`` ... of which eight do not exist."""
    match = re.match(r"^(?:cpp|triton)_(?:\w+?_)?fused_(.*?)(?:_\d+)?$", name)
    if not match:
        return []
    return _split_op_names(match.group(1))


OP_NAMES_FILE = Path(__file__).with_name("aten_op_names.txt")


def _registered_ops() -> dict[str, str]:
    """Each ATen and prims op name (no overload) -> its dotted name; ATen's where both have it: the running torch's
    registry where torch is imported (a profile), else the names of the torch the package ships them from
    (``aten_op_names.txt``): a log's import reads its kernels' names without importing torch (2 s here)."""
    return _live_ops() if "torch" in sys.modules else _shipped_ops()


@functools.lru_cache(maxsize=1)
def _live_ops() -> dict[str, str]:
    import torch

    names: dict[str, str] = {}
    for full in torch._C._dispatch_get_all_op_names():
        namespace, _, rest = full.partition("::")
        if namespace in ("aten", "prims"):
            op = rest.split(".", 1)[0]
            if namespace == "aten" or op not in names:
                names[op] = f"{namespace}.{op}"
    return names


@functools.lru_cache(maxsize=1)
def _shipped_ops() -> dict[str, str]:
    lines = OP_NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return {name.split(".", 1)[1]: name for name in lines if name and not name.startswith("#")}


def write_op_names() -> None:
    """Write ``aten_op_names.txt`` from the installed torch (``python -m compile_profile.engine.trace.output_code
    --write-op-names``)."""
    import torch

    header = (
        f"# ATen and prims op names (no overload) of torch {torch.__version__}, for reading a fused kernel's name "
        "without\n# importing torch (engine/trace/output_code.py); regenerate with: python -m "
        "compile_profile.engine.trace.output_code --write-op-names\n"
    )
    OP_NAMES_FILE.write_text(header + "".join(f"{n}\n" for n in sorted(_live_ops().values())), encoding="utf-8")


def _split_op_names(joined: str) -> list[str]:
    registered = _registered_ops()
    ops, i = [], 0
    while i < len(joined):
        ends = [j for j in range(len(joined), i, -1) if j == len(joined) or joined[j] == "_"]
        found = next((joined[i:j] for j in ends if joined[i:j] in registered), None)
        if found is not None:
            ops.append(registered[found])
            i += len(found) + 1  # and the "_" after it
            continue
        following = joined.find("_", i + 1)
        if following < 0:
            break
        i = following + 1
    return ops


if __name__ == "__main__" and sys.argv[1:] == ["--write-op-names"]:
    write_op_names()
