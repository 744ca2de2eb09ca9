"""Printed FX graphs (AOTAutograd's and the post-grad ones, as the trace logs them), read as text.

Contract: ``op_counts_from_code`` counts the ``torch.ops`` calls of a graph; ``graph_nodes`` is
the one parser of a graph's nodes: each node's name, the op it calls and the frame of its
``# File:`` comment; ``placeholders`` reads its inputs (name and annotation) from its ``forward``
signature, on one line or one per line as AOTAutograd prints it.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass

from ...cell.locator import GRAPH_FILE_COMMENT
from ...common.op_kinds import is_collective
from ...common.stack_text import Frame

_ATEN_OP = re.compile(r"torch\.ops\.(\w+)\.(\w+)\.\w+\(")
_ASSIGNMENT = re.compile(r'^\s*(\w+)(?:: "[^"]*")? = (.*)$')
_SIGNATURE = re.compile(r"def forward\((.*?)\):[ \t]*$", re.S | re.M)
_PLACEHOLDER = re.compile(r'(\w+): "([^"]*)"')


def op_counts_from_code(code: str) -> dict[str, int]:
    counts: collections.Counter[str] = collections.Counter(f"{ns}.{op}" for ns, op in _ATEN_OP.findall(code))
    return dict(counts)


def placeholders(code: str) -> list[tuple[str, str]]:
    """The inputs of the first ``forward`` of a printed graph, in order: ``(name, annotation)`` such as
    ``("l_self_modules_layers_modules_0_parameters_weight_", "f32[512, 64]")``; ``self`` and unannotated
    inputs are left out."""
    signature = _SIGNATURE.search(code)
    return _PLACEHOLDER.findall(signature.group(1)) if signature else []


@dataclass(frozen=True)
class GraphNode:
    name: str
    op: str  # "aten.mm": the first torch op its line calls, "" for none
    frame: Frame | None  # where it was traced from; None when neither it nor a user of it says


def graph_nodes(code: str) -> list[GraphNode]:
    """The nodes of a printed ATen graph, in order, each with its op and the frame of its ``# File:`` comment.

    A node Inductor put in by pattern replacement (``softmax(q @ k.T) @ v`` becoming one attention
    call) has no stack trace; it takes the frame of the first node that uses its result.
    """
    nodes: list[tuple[str, str, Frame | None, str]] = []
    frame: Frame | None = None
    for text in code.splitlines():
        comment = GRAPH_FILE_COMMENT.search(text)
        if comment:
            frame = (comment.group(1), int(comment.group(2)), comment.group(3).strip())
            continue
        if "No stacktrace found" in text:
            frame = None
            continue
        assignment = _ASSIGNMENT.match(text)
        if assignment:
            op = _ATEN_OP.search(assignment.group(2))
            nodes.append(
                (assignment.group(1), f"{op.group(1)}.{op.group(2)}" if op else "", frame, assignment.group(2))
            )
    out: list[GraphNode] = []
    for i, (name, op, own, _) in enumerate(nodes):
        if own is None:
            uses = re.compile(rf"\b{re.escape(name)}\b")
            own = next((f for _, _, f, rhs in nodes[i + 1 :] if f is not None and uses.search(rhs)), None)
        out.append(GraphNode(name, op, own))
    return out


def collective_ops(op_counts: dict[str, int]) -> dict[str, int]:
    """The collectives among a graph's op counts, by op name: ``torch._ops._c10d_functional.all_reduce`` and
    ``_c10d_functional.all_reduce_`` both count as ``all_reduce``."""
    counts: dict[str, int] = {}
    for name, n in op_counts.items():
        if is_collective(name):
            op = name.rsplit(".", 1)[-1].rstrip("_") or name
            counts[op] = counts.get(op, 0) + n
    return counts
