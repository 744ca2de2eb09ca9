"""Split Inductor's output code (one Python module per compiled graph) into its kernels.

The module defines each generated kernel as ``name = async_compile.triton(...)``
(Triton, on GPU) or ``async_compile.cpp_pybinding(...)`` (C++/OpenMP, on CPU)
and calls extern kernels (cuBLAS/oneDNN matmuls, SDPA, convolutions) from its
``call`` function.  Parsing it with ``ast`` rather than regular expressions keeps
kernel sources exact, whatever quoting Inductor chose.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_AOT_ID = re.compile(r"#\s*AOT ID:\s*\['\d+_(\w+)'\]")
_ORIGINAL_ATEN = re.compile(r"Original ATen:\s*\[([^\]]*)\]")
_SOURCE_NODES = re.compile(r"Source Nodes:\s*\[([^\]]*)\]")
_PROVENANCE = re.compile(r"\[Provenance debug handles\]\s*([\w.]+):(\d+)")
_GRID_ARGS = re.compile(r"\.run\((.*)\)\s*$")
_PARTITION = re.compile(r"^partition_(\d+)$")  # graph partitions (CUDA graphs) hold the launches
EXTERN_PREFIXES = ("extern_kernels.", "torch.ops.", "aten.")

_LANGUAGE = {"triton": "triton", "cpp_pybinding": "cpp", "cpp": "cpp"}


@dataclass
class ParsedKernel:
    name: str
    language: str  # "triton" | "cpp" | "extern"
    source: str
    aten_ops: list[str] = field(default_factory=list)
    handles: list[int] = field(default_factory=list)  # provenance debug handles of its call sites
    source_nodes: list[str] = field(default_factory=list)  # FX node names Inductor names in its comments
    launches: list[str] = field(default_factory=list)  # call sites in call(), e.g. Triton launch arguments


@dataclass
class ParsedOutputCode:
    graph_kind: str  # "forward" | "backward" | "inference" | ""
    kernels: list[ParsedKernel]


def parse_output_code(code: str) -> ParsedOutputCode:
    match = _AOT_ID.search(code[:500])
    kind = match.group(1) if match else ""
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
    for fn in launcher_functions(tree):
        _collect_call_sites(fn, lines, kernels, externs)
    return ParsedOutputCode(kind, list(kernels.values()) + externs)


def launcher_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """``call`` and, when Inductor partitioned the graph (CUDA graphs), each ``partition_N`` it calls."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    call = [n for n in functions if n.name == "call"][:1]
    partitions = sorted((n for n in functions if _PARTITION.match(n.name)),
                        key=lambda n: int(_PARTITION.match(n.name).group(1)))
    return call + partitions


def launch_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of a launch statement: ``f(...)`` alone, or ``buf = torch.ops.aten.x.default(...)``
    (fallback ops such as SDPA return their outputs)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return stmt.value
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
            and dotted_name(stmt.value.func).startswith(EXTERN_PREFIXES):
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
    call: ast.FunctionDef, lines: list[str], kernels: dict[str, ParsedKernel], externs: list[ParsedKernel]
) -> None:
    for stmt in ast.walk(call):
        call_node = launch_call(stmt)
        if call_node is None:
            continue
        func = call_node.func
        text = ast.get_source_segment("\n".join(lines), stmt) or ""
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
    """Inductor names fused kernels after their original ATen ops (``cpp_fused_add_relu_0``)."""
    match = re.match(r"^(?:cpp|triton)_(?:\w+?_)?fused_(.*?)(?:_\d+)?$", name)
    if not match:
        return []
    return [f"aten.{op}" for op in _split_op_names(match.group(1))]


_KNOWN_MULTIWORD = (
    "threshold_backward", "native_layer_norm_backward", "native_layer_norm", "native_batch_norm_backward",
    "_native_batch_norm_legit_functional", "_native_batch_norm_legit_no_training", "native_dropout_backward",
    "native_dropout", "gelu_backward", "sigmoid_backward", "tanh_backward", "silu_backward", "embedding_dense_backward",
    "_softmax_backward_data", "_log_softmax_backward_data", "_log_softmax", "_softmax", "log_softmax", "max_pool2d_with_indices",
    "avg_pool2d", "adaptive_avg_pool2d", "convolution_backward", "_to_copy", "clamp_min", "clamp_max", "index_put",
    "scatter_add", "new_zeros", "full_like", "zeros_like", "ones_like", "_unsafe_view", "native_group_norm",
    "rsqrt", "bernoulli", "masked_fill", "where", "nll_loss_forward", "nll_loss_backward", "amax", "logsumexp",
)


def _split_op_names(joined: str) -> list[str]:
    ops = []
    rest = joined
    while rest:
        for known in sorted(_KNOWN_MULTIWORD, key=len, reverse=True):
            if rest == known or rest.startswith(known + "_"):
                ops.append(known)
                rest = rest[len(known) + 1 :]
                break
        else:
            head, _, rest = rest.partition("_")
            if head:
                ops.append(head)
    return ops
