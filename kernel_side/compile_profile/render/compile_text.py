"""The compile views as text (``compile-profile show ID --compile [NAME] [--artifact N]``): the compile index with the
compile-site tree, one compile's detail, one artifact's text.

Contract: each function lays out the digest's ``CompileIndex`` or ``CompileDetail`` (``digest.compiles``,
``digest.compile_detail``) and words nothing itself; an artifact's text comes from an ``ArtifactSource`` (the store's,
or the run's own).  Text from a trace is the caller's to make terminal-safe (the CLI prints through
``terminal_safe``).
"""

from __future__ import annotations

from ..artifacts import ArtifactSource
from ..digest.compile_shapes import ArtifactRow, CompileDetail, CompileIndex
from .text import text_table

MARKS = {"ok": " ", "restarted": "~", "empty": "0", "failed": "!", "missing": "?", "dropped": "x"}


def compile_index_text(index: CompileIndex) -> str:
    lines = [index.text, ""]
    if index.sites:
        lines.append("Where compiles started (the compile-site tree):")
        for row in index.sites:
            compiles = " ".join(f"{c.label}{MARKS[c.status].strip()}" for c in row.compiles)
            code = f"  {row.code}" if row.code else ""
            lines.append(f"  {'  ' * row.depth}{row.text}{code}" + (f"   <- {compiles}" if compiles else ""))
        lines.append("  " + ", ".join(f"{MARKS[w.status].strip() or '(none)'}: {w.text}" for w in index.legend))
        lines.append("")
    table = [
        [r.link.label, r.link.status_text, r.frame, r.time, r.artifacts_text, r.cache_text or "—"] for r in index.rows
    ]
    lines.append(text_table(["COMPILE", "STATUS", "FRAME", "TIME", "ARTIFACTS", "CACHE"], table))
    lines.append("")
    lines.append(f"Perfetto export (--perfetto OUT.json): {index.perfetto_text}")
    return "\n".join(lines)


def _artifact_line(i: int, a: ArtifactRow) -> list[str]:
    return [str(i), a.stage, a.label, a.size_text, a.sha256[:12]]


def compile_detail_text(detail: CompileDetail) -> str:
    lines = [f"{detail.title}: {detail.link.status_text}"]
    if detail.failure_text:
        lines.append(f"  failed: {detail.failure_text}")
    if detail.restarts_text:
        lines.append(f"  {detail.restarts_text}")
    if detail.stack:
        lines.append("Started from (outermost first):")
        lines += [f"  {frame}" for frame in detail.stack]
    if detail.metrics:
        lines.append("Compilation metrics:")
        lines += [
            "  " + row for row in text_table(["", ""], [[m.label, m.value] for m in detail.metrics]).splitlines()[1:]
        ]
    if detail.attempts:
        lines.append("Attempts of this compile id:")
        lines += [f"  {'>' if a.current else ' '} {a.text}" for a in detail.attempts]
    if detail.cache_lookups:
        lines.append("Cache lookups:")
        for c in detail.cache_lookups:
            key = f", key {c.key}" if c.key else ""
            components = f", {c.components_text}" if c.components_text else ""
            lines.append(f"  {c.text}{key}{components}")
    if detail.shape_facts:
        lines.append("Symbolic shapes:")
        lines += [f"  {f.kind}: {f.text}" + (f"  ({f.where})" if f.where else "") for f in detail.shape_facts]
    if detail.collectives_text:
        lines.append(f"Collectives: {detail.collectives_text}")
    if detail.tensor_meta:
        lines.append("Tensor metadata (ops and their outputs):")
        lines += [f"  {t}" for t in detail.tensor_meta]
    lines.append(f"Artifacts ({detail.artifacts_text}; --artifact N prints one):")
    rows = [_artifact_line(i, a) for i, a in enumerate(detail.artifacts, start=1)]
    lines += ["  " + ln for ln in text_table(["#", "STAGE", "WHAT", "SIZE", "SHA-256"], rows).splitlines()]
    for view in detail.provenance:
        lines.append(f"Provenance, {view.title}: {view.how}")
        for group in view.groups:
            lines.append(f"  {group.title}")
            lines.append(f"    {group.text}")
            if group.lines_text:
                lines.append(f"    {group.lines_text}")
    return "\n".join(lines)


def artifact_text(detail: CompileDetail, which: str, source: ArtifactSource) -> tuple[str, str]:
    """(heading, text) of the artifact ``which`` names: its number in the detail's list (from 1) or torch's name (the
    first of that name).  Raises ``LookupError`` naming what there is when none matches or its text is not held."""
    rows = detail.artifacts
    chosen: ArtifactRow | None = None
    if which.isdigit() and 1 <= int(which) <= len(rows):
        chosen = rows[int(which) - 1]
    else:
        chosen = next((a for a in rows if a.name == which), None)
    if chosen is None:
        names = ", ".join(f"{i} {a.name}" for i, a in enumerate(rows, start=1)) or "none"
        raise LookupError(f"{detail.link.label} has no artifact {which!r}; it has: {names}")
    text = source(chosen.sha256)
    if text is None:
        raise LookupError(f"the text of {chosen.name} ({chosen.sha256[:12]}) is not in this run store")
    return f"{detail.link.label} {chosen.label} ({chosen.size_text})", text
