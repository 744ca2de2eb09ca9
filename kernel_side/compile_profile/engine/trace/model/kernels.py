"""The kernels of one compile's Inductor output modules, each with its ATen ops and cell lines.

Contract: ``compile_kernels`` runs once a compile's events are all in (``CompileState`` holds
what they said) and returns its ``Kernel``s in output-code order; ``_kernel_lines`` is the chain
of evidence for a kernel's cell lines, strongest first, and never returns an empty set when the
Dynamo graph named any cell line.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ....profile_run import Kernel
from ...cell.locator import CellLocator
from ...common.op_kinds import kernel_kind
from ...common.stack_text import Frame, parse_frames
from ..capture import TraceEvent
from ..output_code import ParsedKernel, ops_from_kernel_name, parse_output_code
from .graph_text import GraphNode, graph_nodes, placeholders

if TYPE_CHECKING:  # the backend imports torch, which reading a log does not need
    from ...compiler.backend import RecordedGraph

_AOT_KIND = {"forward": "aot_forward", "backward": "aot_backward", "inference": "aot_inference"}


@dataclass
class CompileState:
    """What one compile (one compile id) logged, gathered for pairing once its events are all in."""

    # the frames that called the compiled one: dynamo_start's stack, or the backend's frame chain (``caller_frames``)
    outer: list[Frame] = field(default_factory=list)
    frame: dict = field(default_factory=dict)  # the compiled frame itself (dynamo_start): name, filename, line
    recorded: RecordedGraph | None = None  # the Dynamo graph our backend saw: fresh, never from a cache
    dynamo_lines: list[int] = field(default_factory=list)
    post_grad: list[str] = field(default_factory=list)
    aot_code: list[str] = field(default_factory=list)  # AOTAutograd's graphs: fresh unless its own cache hit
    provenance: list = field(default_factory=list)  # parsed node mappings (a dict, or None if unreadable)
    stack_traces: list = field(default_factory=list)  # parsed kernel stack traces (likewise)
    aot_graph_ids: dict[str, str] = field(default_factory=dict)  # the latest AOT graph id of each kind
    aot_seen: collections.Counter = field(default_factory=collections.Counter)  # AOT graphs so far, by kind
    # (id, code) of each backward graph: a compile DDPOptimizer split has one per piece, compiled lazily
    aot_backward: list[tuple[str, str]] = field(default_factory=list)
    # each output module with the AOTAutograd graph ids and the post-grad graph index current when it came
    output_code: list[tuple[TraceEvent, dict[str, str], int]] = field(default_factory=list)


def compile_kernels(state: CompileState, *, variant: str, cid: str, locator: CellLocator) -> list[Kernel]:
    # Provenance artifacts come before an output module on a fresh compile and after
    # it on a cache hit, but always one pair per module: pair them by position.
    kernels: list[Kernel] = []
    for i, (ev, aot_ids, post_grad_index) in enumerate(state.output_code):
        kernels += _module_kernels(
            ev.payload or "",
            variant=variant,
            cid=cid,
            locator=locator,
            aot_graph_ids=aot_ids,
            state=state,
            provenance=_nth(state.provenance, i) or {},
            stack_traces=_nth(state.stack_traces, i) or {},
            post_grad=_nth(state.post_grad, post_grad_index) or "",
        )
    return kernels


def _nth(items: list, index: int):
    return items[index] if 0 <= index < len(items) else None


def _module_kernels(
    output_code: str,
    *,
    variant: str,
    cid: str,
    locator: CellLocator,
    aot_graph_ids: dict[str, str],
    state: CompileState,
    provenance: dict,
    stack_traces: dict,
    post_grad: str,
) -> list[Kernel]:
    parsed = parse_output_code(output_code)
    aot_kind = _AOT_KIND.get(parsed.graph_kind, "")
    graph_id = (
        (_backward_graph_id(state, post_grad) if aot_kind == "aot_backward" else None)
        or aot_graph_ids.get(aot_kind)
        or f"{variant}/{cid}/{aot_kind or 'output'}"
    )
    post_grad_nodes = graph_nodes(post_grad)
    node_ops = {node.name: node.op for node in post_grad_nodes if node.op}
    mappings = provenance if isinstance(provenance, dict) else {}
    code_to_post = mappings.get("cppCodeToPost", {})
    stack_traces = stack_traces if isinstance(stack_traces, dict) else {}
    seen: collections.Counter[str] = collections.Counter()
    kernels: list[Kernel] = []
    for k in parsed.kernels:
        keys = [f"{k.name}:{h}" for h in k.handles] or [key for key in stack_traces if key.split(":")[0] == k.name]
        ops: list[str] = []
        for key in keys:
            for node in code_to_post.get(key, []):
                op = node_ops.get(node)
                if op and op not in ops:
                    ops.append(op)
        aten_ops = ops or k.aten_ops or ops_from_kernel_name(k.name)
        # an extern call (cuBLAS, SDPA) repeats within a graph: its provenance handle, else its
        # position, tells the calls apart (torch 2.6 has no handles)
        seen[k.name] += 1
        suffix = (
            f":{k.handles[0]}"
            if k.language == "extern" and k.handles
            else (f"#{seen[k.name]}" if seen[k.name] > 1 else "")
        )
        kernels.append(
            Kernel(
                id=f"{graph_id}/{k.name}{suffix}",
                name=k.name,
                language=k.language,
                source=k.source,
                graph_id=graph_id,
                aten_ops=sorted(set(aten_ops), key=aten_ops.index),
                lines=sorted(_kernel_lines(k, keys, state, locator, stack_traces, mappings, post_grad_nodes)),
                variant=variant,
                launches=k.launches,
                kind=kernel_kind(k.language, k.name),
            )
        )
    return kernels


def _backward_graph_id(state: CompileState, post_grad: str) -> str | None:
    """Of a compile with several backward graphs (DDPOptimizer's pieces, whose backwards compile
    lazily in the order they run, the last piece's first), the one whose inputs the module's
    post-grad graph takes; None when there is one backward graph or no single match."""
    if len(state.aot_backward) < 2 or not post_grad:
        return None
    inputs = placeholders(post_grad)
    matches = [graph_id for graph_id, code in state.aot_backward if placeholders(code) == inputs]
    return matches[0] if len(matches) == 1 else None


def _kernel_lines(
    k: ParsedKernel,
    keys: list[str],
    state: CompileState,
    locator: CellLocator,
    stack_traces: dict,
    mappings: dict,
    post_grad_nodes: list[GraphNode],
) -> set[int]:
    """The cell lines a kernel came from, by the first of these that gives any:

    1. Inductor's provenance stack traces of the kernel, after the frames that called the compiled
       one (a graph Dynamo started inside a library, after a graph break there, is still called from
       a cell line);
    2. the kernel's source nodes (its provenance node mapping and the "Source Nodes" comments of
       the output code) looked up by name in the Dynamo graph of this compile, which is traced
       afresh every time: a cache hit brings the provenance of the compile that filled the cache,
       none at all when that compile did not track it (plain ``torch.compile`` earlier in the
       notebook);
    3. the post-grad graph's nodes of the kernel's ATen ops (its name lists them: ``cpp_fused_mul_relu_0``),
       whose ``# File:`` frames name the code they came from; after a cache hit those are the frames
       the filling compile traced (another cell with the same ops, say), so the same node of
       AOTAutograd's graph, traced afresh, is preferred; a frame outside the cell (a function the
       cell called) is looked up in the fresh Dynamo graph; and when both AOTAutograd and Inductor
       hit their caches with frames of other code, the graph is the same computation, so its
       source lines, in order, are this cell's lines in the Dynamo graph's order;
    4. the Dynamo graph's cell lines: the kernel came from that graph, and nothing says from which
       of its lines (a call Inductor's pattern matcher put in for several lines, such as one
       attention kernel for ``softmax(q @ k.T) @ v``, carries no stack trace on torch 2.11).
    """
    lines: set[int] = set()
    for key in keys:
        for frame_text in stack_traces.get(key, []):
            line = locator.innermost_cell_line(state.outer + parse_frames(frame_text))
            if line is not None:
                lines.add(line)
    if lines and state.recorded is None and state.dynamo_lines and not lines & set(state.dynamo_lines):
        # a trace read from a file (no graph recorded here): a cache hit's stack traces are those of the compile
        # that filled the cache (another function of the same code), and the Dynamo graph this compile traced
        # afresh says which lines it is (4. below)
        lines = set()
    if lines:
        return lines
    rec = state.recorded
    if rec is not None:
        post_to_pre = mappings.get("postToPre", {})
        names = set(k.source_nodes)
        for key in keys:
            for post in mappings.get("cppCodeToPost", {}).get(key, []):
                names.add(post)
                names.update(post_to_pre.get(post, []))
        for name, stack in zip(rec.node_names, rec.node_stacks):
            if name in names and (line := locator.innermost_cell_line(state.outer + stack)) is not None:
                lines.add(line)
    if not lines and post_grad_nodes and rec is not None:
        ops = set(k.aten_ops) or set(ops_from_kernel_name(k.name))
        traced = _lines_by_innermost_frame(rec, state.outer, locator)
        fresh = {
            node.name: node.frame for code in state.aot_code for node in graph_nodes(code) if node.frame is not None
        }
        nodes = [
            (node.name, node.op, fresh.get(node.name, node.frame)) for node in post_grad_nodes if node.frame is not None
        ]
        in_order = _lines_in_order(nodes, rec, state.outer, locator)
        for _name, op, frame in nodes:
            if op in ops:
                line = locator.innermost_cell_line(state.outer + [frame])
                if line is None:
                    line = traced.get(frame[:2]) or traced.get(frame[2]) or in_order.get(frame[:2])
                if line is not None:
                    lines.add(line)
    if not lines:
        lines.update(state.dynamo_lines)
    return lines


def _lines_by_innermost_frame(rec: RecordedGraph, outer: list[Frame], locator: CellLocator) -> dict:
    """Cell lines of the Dynamo graph's nodes, by their innermost frame's (file, line) and by its code."""
    out: dict = {}
    for stack in rec.node_stacks:
        line = locator.innermost_cell_line(outer + stack)
        if stack and line is not None:
            filename, number, code = stack[-1]
            out.setdefault((filename, number), line)
            if code:
                out.setdefault(code, line)
    return out


def _lines_in_order(
    nodes: list[tuple[str, str, Frame]], rec: RecordedGraph, outer: list[Frame], locator: CellLocator
) -> dict:
    """The ATen graph's source lines, in order of first use, paired with the Dynamo graph's cell lines in
    the same order, when there are as many of each."""
    sources = list(dict.fromkeys(frame[:2] for _, _, frame in nodes))
    cell_lines = list(
        dict.fromkeys(
            line for stack in rec.node_stacks if (line := locator.innermost_cell_line(outer + stack)) is not None
        )
    )
    return dict(zip(sources, cell_lines)) if len(sources) == len(cell_lines) else {}
