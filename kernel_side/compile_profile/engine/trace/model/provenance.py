"""Provenance across stages: how one Inductor output module came from the user's lines, node by node.

Contract: ``module_provenance(pre_grad, post_grad, output_code, mappings, locator)`` reads the texts of one output
module's pre-grad graph, post-grad graph and output code (each an ``(sha256, text)`` pair, or None where the compile
did not log it) and returns a ``Provenance``: every node of each stage with its lines in that stage's text, the cell
(script) line it came from, and the nodes of later stages it became.  It reads only those texts and the mappings.

The links come, strongest first, from

1. Inductor's own node mappings (``inductor_provenance_tracking_node_mappings``, logged with provenance tracking on,
   as a profile turns it on and ``INDUCTOR_PROVENANCE=1`` does): ``preToPost`` (a pre-grad node became these
   post-grad nodes) and ``postToCppCode`` (a post-grad node went into these kernel calls, ``name:handle``, the handle
   Inductor prints above each call as ``[Provenance debug handles] name:handle``); torch 2.6's
   ``inductor_triton_kernel_to_post_grad_nodes`` (kernel -> post-grad nodes) the same way;
2. else the output code's comments: each call's ``Source Nodes: [...]`` names the pre-grad nodes it computes.

Every graph node's own line is the ``# File: path:line`` comment above it (``graph_text.node_lines``), read as a cell
line by the ``CellLocator``; a kernel has no frame of its own, its lines are its nodes' (the digest follows the links).
Nodes are capped per module (``MAX_NODES``): a module past it keeps the first ones of each stage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ....profile_run import Provenance, ProvenanceNode, ProvenanceStage
from ...cell.locator import CellLocator
from .graph_text import node_lines

MAX_NODES = 20_000  # per stage of one module: a 16-layer step's post-grad graph has ~3,000

_AOT_ID = re.compile(r"#\s*AOT ID:\s*\['\d+_(\w+)'\]")
_DEFINITION = re.compile(r"^(\w+) = async_compile\.\w+\(")
_HANDLE = re.compile(r"\[Provenance debug handles\]\s*([\w.]+:\d+)")
_SOURCE_NODES = re.compile(r"Source Nodes: \[([^\]]*)\]")
# a call in the module's ``call``: ``kernel(...)``, ``kernel.run(...)`` (Triton), ``buf = extern_kernels.mm(...)``
_CALL = re.compile(r"^\s+(?:\w+ = )?(?:((?:extern_kernels|torch\.ops\.\w+|aten)\.[\w.]+|\w+)\((?!\))|(\w+)\.run\()")
_EXTERN = ("extern_kernels.", "torch.ops.", "aten.")


def _as_names(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _mapping(mappings: Mapping[str, Any] | None, key: str) -> dict[str, list[str]]:
    table = mappings.get(key) if mappings else None
    return {str(k): _as_names(v) for k, v in table.items()} if isinstance(table, dict) else {}


def _graph_nodes(stage: ProvenanceStage, text: str, locator: CellLocator) -> dict[str, ProvenanceNode]:
    nodes: dict[str, ProvenanceNode] = {}
    for name, line, frame in node_lines(text)[:MAX_NODES]:
        node = ProvenanceNode(stage=stage, name=name, lines=[line])
        if frame is not None:
            filename, file_line, code = frame
            node.line = locator.cell_line(filename, file_line, code)
            if node.line is None:
                node.file, node.file_line = filename, file_line
        nodes[name] = node
    return nodes


def _code_nodes(text: str) -> tuple[dict[str, ProvenanceNode], dict[str, list[str]]]:
    """The output code's kernel calls, by ``name:handle`` where Inductor printed a handle, else by name: each with the
    lines of its calls and its kernel's definition (first and last line); and the pre-grad nodes each call's
    ``Source Nodes`` comment names."""
    lines = text.splitlines()
    definitions: dict[str, list[int]] = {}
    at = 0
    while at < len(lines):
        found = _DEFINITION.match(lines[at])
        if found is None:
            at += 1
            continue
        end = at
        if not lines[at].rstrip().endswith(")"):  # its source runs to the line that closes the string
            end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("'''")), at)
        definitions[found.group(1)] = [at + 1, end + 1]
        at = end + 1
    nodes: dict[str, ProvenanceNode] = {}
    sources: dict[str, list[str]] = {}
    handle, named = "", []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            if found := _HANDLE.search(stripped):
                handle = found.group(1)
            elif found := _SOURCE_NODES.search(stripped):
                named = [n.strip() for n in found.group(1).split(",") if n.strip()]
            continue
        call = _CALL.match(line)
        kernel = (call.group(1) or call.group(2)) if call else None
        by_handle = bool(handle) and handle.split(":")[0] == kernel
        if kernel is not None and (by_handle or kernel in definitions or kernel.startswith(_EXTERN)):
            name = handle if by_handle else kernel
            node = nodes.get(name)
            if node is None:
                if len(nodes) >= MAX_NODES:
                    break
                node = nodes[name] = ProvenanceNode(stage="output_code", name=name)
            node.lines.append(number)
            if named:
                sources.setdefault(name, []).extend(n for n in named if n not in sources.get(name, []))
        if stripped:
            handle, named = "", []
    for name, node in nodes.items():
        node.definition = list(definitions.get(name.split(":")[0], []))
    return nodes, sources


def module_provenance(
    pre_grad: tuple[str, str] | None,
    post_grad: tuple[str, str] | None,
    output_code: tuple[str, str],
    mappings: Mapping[str, Any] | None,
    locator: CellLocator,
) -> Provenance:
    pre = _graph_nodes("pre_grad", pre_grad[1], locator) if pre_grad else {}
    post = _graph_nodes("post_grad", post_grad[1], locator) if post_grad else {}
    code, sources = _code_nodes(output_code[1])
    pre_to_post = _mapping(mappings, "preToPost")
    post_to_code = _mapping(mappings, "postToCppCode")
    for kernel, posts in _mapping(mappings, "cppCodeToPost").items():  # older releases wrote one direction only
        for node in posts:
            kernels = post_to_code.setdefault(node, [])
            if kernel not in kernels:
                kernels.append(kernel)
    mapped = bool(pre_to_post or post_to_code)
    for name, node in pre.items():
        node.to = [p for p in pre_to_post.get(name, []) if p in post]
    for name, node in post.items():
        node.to = [c for c in post_to_code.get(name, []) if c in code]
    if not mapped:  # the output code's comments: each call names the pre-grad nodes it computes
        for kernel, names in sources.items():
            for name in names:
                if name in pre and kernel not in pre[name].to:
                    pre[name].to.append(kernel)
    return Provenance(
        pre_grad=pre_grad[0] if pre_grad else "",
        post_grad=post_grad[0] if post_grad else "",
        output_code=output_code[0],
        mapped=mapped,
        nodes=[*pre.values(), *post.values(), *code.values()],
        graph=graph.group(1) if (graph := _AOT_ID.search(output_code[1][:500])) else "",
    )
