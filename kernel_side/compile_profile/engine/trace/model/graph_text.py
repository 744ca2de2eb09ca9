"""Printed FX graphs (AOTAutograd's and the post-grad ones, as the trace logs them), read as text.

Contract: ``op_counts_from_code`` counts the ``torch.ops`` calls of a graph; ``graph_nodes`` is
the one parser of a graph's nodes: each node's name, the op it calls and the frame of its
``# File:`` comment (``node_lines``: where each sits in the text, for provenance); ``collective_order`` the collectives
it calls in order; ``placeholders`` reads its inputs (name and annotation) from its ``forward``
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
_IDENTIFIER = re.compile(r"\b\w+\b")


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
    # Each name's first later user that has a frame, found walking back once (a search of every later node for each
    # node without a frame took 0.32 s of a 16-layer step's import: a backward graph's nodes mostly have none).
    first_user: dict[str, Frame] = {}
    out: list[GraphNode] = []
    for name, op, own, rhs in reversed(nodes):
        out.append(GraphNode(name, op, own if own is not None else first_user.get(name)))
        if own is not None:
            for used in _IDENTIFIER.findall(rhs):
                first_user[used] = own
    out.reverse()
    return out


def node_lines(code: str) -> list[tuple[str, int, Frame | None]]:
    """Each node of a printed FX graph with its line (from 1) and the frame of the ``# File:`` comment above it (None
    where none is, or the comment says there is no stack trace), in order; a name printed twice (a subgraph's) once."""
    out: list[tuple[str, int, Frame | None]] = []
    seen: set[str] = set()
    frame: Frame | None = None
    for number, text in enumerate(code.splitlines(), start=1):
        if "# File: " in text:
            comment = GRAPH_FILE_COMMENT.search(text)
            if comment:
                frame = (comment.group(1), int(comment.group(2)), comment.group(3).strip())
                continue
        if "No stacktrace found" in text:
            frame = None
            continue
        if "def forward(" in text or text.lstrip().startswith("class "):
            frame = None
            continue
        assignment = _ASSIGNMENT.match(text)
        if assignment and assignment.group(1) not in seen:
            seen.add(assignment.group(1))
            out.append((assignment.group(1), number, frame))
    return out


def collective_order(code: str) -> list[str]:
    """The collective ops a printed ATen graph calls, in the order it calls them (``all_reduce``, ``wait_tensor`` left
    out: it is the collective's wait, not one of its own)."""
    ops = [m.group(1).rstrip("_") for m in _COLLECTIVE_CALL.finditer(code)]
    return [op for op in ops if op != "wait_tensor"]


_COLLECTIVE_CALL = re.compile(r"torch\.ops\._?c10d_functional\.(\w+)\.\w+\(")


def collective_ops(op_counts: dict[str, int]) -> dict[str, int]:
    """The collectives among a graph's op counts, by op name: ``torch._ops._c10d_functional.all_reduce`` and
    ``_c10d_functional.all_reduce_`` both count as ``all_reduce``."""
    counts: dict[str, int] = {}
    for name, n in op_counts.items():
        if is_collective(name):
            op = name.rsplit(".", 1)[-1].rstrip("_") or name
            counts[op] = counts.get(op, 0) + n
    return counts
