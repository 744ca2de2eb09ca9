"""Provenance across stages, as the views show it: from a cell (script) line to the nodes it became in each graph and
the output-code lines they generated, and back.

Contract: ``provenance_view(run, record, i)`` reads the i-th ``Provenance`` of a compile (the engine's nodes and links)
and returns a ``ProvenanceView``: one ``ProvenanceGroup`` per source line, holding the lines of the pre-grad graph,
the post-grad graph and the output code that came from it.  A group is every node whose own frame is that line, and
every node of a later stage those became (the links, followed forward): a fused kernel that computes two lines is in
both lines' groups, so a view that highlights the groups holding a clicked line goes from code back to source.
Nodes whose frame is no cell line group by their file and line (a library's); nodes no frame names and nothing
links to are left out (a graph's inputs).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..profile_run import CompileRecord, ProfileRun, Provenance, ProvenanceNode
from .compile_shapes import ProvenanceGroup, ProvenanceView
from .format import line_text, lines_of, lines_text, outside_text

LATER = {"pre_grad": ("post_grad", "output_code"), "post_grad": ("output_code",), "output_code": ()}
NAMES_LISTED = 6
LINES_KEPT = 4000  # of one stage in one group (a fused kernel's source is most of them)
STAGE_WORDS = {"pre_grad": "pre-grad", "post_grad": "post-grad", "output_code": "kernels"}
ARTIFACT_NAMES = {"pre_grad": "pre-grad graph", "post_grad": "post-grad graph", "output_code": "output code"}
MAPPED = "linked by Inductor's own node mappings (provenance tracking)"
UNMAPPED = (
    "linked by the graphs' # File comments and the output code's Source Nodes comments: Inductor's node mappings "
    "were not logged (INDUCTOR_PROVENANCE=1 logs them)"
)


def _successors(node: ProvenanceNode, nodes: dict[tuple[str, str], ProvenanceNode]) -> Iterator[ProvenanceNode]:
    for name in node.to:
        for stage in LATER[node.stage]:
            found = nodes.get((stage, name))
            if found is not None:
                yield found
                break


def _closure(start: ProvenanceNode, nodes: dict[tuple[str, str], ProvenanceNode]) -> list[ProvenanceNode]:
    seen: dict[tuple[str, str], ProvenanceNode] = {}
    pending = [start]
    while pending:
        node = pending.pop()
        key = (node.stage, node.name)
        if key in seen:
            continue
        seen[key] = node
        pending.extend(_successors(node, nodes))
    return list(seen.values())


def _names(nodes: list[ProvenanceNode], stage: str) -> str:
    names = [n.name for n in nodes if n.stage == stage]
    more = f", … {len(names) - NAMES_LISTED} more" if len(names) > NAMES_LISTED else ""
    return f"{STAGE_WORDS[stage]} {', '.join(names[:NAMES_LISTED])}{more}" if names else ""


def _lines(nodes: list[ProvenanceNode], stage: str) -> list[int]:
    lines: set[int] = set()
    for n in nodes:
        if n.stage != stage:
            continue
        lines.update(n.lines)
        if len(n.definition) == 2:
            lines.update(range(n.definition[0], n.definition[1] + 1))
    return sorted(lines)[:LINES_KEPT]


def _title(key: tuple[int | None, str, int | None], run: ProfileRun, of: str) -> str:
    line, file, file_line = key
    if line is not None:
        code = run.cell_source.splitlines()[line - 1].strip() if 0 < line <= len(run.cell_source.splitlines()) else ""
        return f"{line_text(line, of)}: {code}" if code else line_text(line, of)
    name = file.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name}:{file_line} ({outside_text(of)})"


def groups(run: ProfileRun, prov: Provenance) -> list[ProvenanceGroup]:
    of = lines_of(run)
    nodes = {(n.stage, n.name): n for n in prov.nodes}
    found: dict[tuple[int | None, str, int | None], dict[tuple[str, str], ProvenanceNode]] = {}
    for node in prov.nodes:
        if node.stage == "output_code" or (node.line is None and not node.file):
            continue
        key = (node.line, "" if node.line is not None else node.file, None if node.line is not None else node.file_line)
        into = found.setdefault(key, {})
        for n in _closure(node, nodes):
            into[(n.stage, n.name)] = n
    ordered = sorted(found.items(), key=lambda kv: (kv[0][0] is None, kv[0][0] or 0, kv[0][1], kv[0][2] or 0))
    out = []
    order = {(n.stage, n.name): i for i, n in enumerate(prov.nodes)}
    for key, members in ordered:
        listed = sorted(members.values(), key=lambda n: order[(n.stage, n.name)])
        text = " → ".join(t for stage in LATER if (t := _names(listed, stage)))
        lines = {stage: _lines(listed, stage) for stage in LATER}
        out.append(
            ProvenanceGroup(
                line=key[0],
                title=_title(key, run, of),
                text=text,
                lines_text="; ".join(lines_text(ln, ARTIFACT_NAMES[stage]) for stage, ln in lines.items() if ln),
                pre_grad=lines["pre_grad"],
                post_grad=lines["post_grad"],
                output_code=lines["output_code"],
            )
        )
    return out


def provenance_view(run: ProfileRun, record: CompileRecord, index: int) -> ProvenanceView:
    prov = record.provenance[index]
    n = len(record.provenance)
    graph = f" ({prov.graph})" if prov.graph else ""
    return ProvenanceView(
        title=f"output module {index + 1} of {n}{graph}" if n > 1 else f"output module{graph}",
        how=MAPPED if prov.mapped else UNMAPPED,
        pre_grad=prov.pre_grad,
        post_grad=prov.post_grad,
        output_code=prov.output_code,
        groups=groups(run, prov),
    )
