"""The compile index of a run: every compile by compile id and attempt, their statuses in words, and the compile-site
tree (tlparse's stack trie) with each compile at the frame it started from.

Contract: ``compile_index(run)`` reads ``ProfileRun.compiles`` (and the variants' spans for the Perfetto line) and
returns a ``CompileIndex``; ``compile_link`` and ``find_compile`` name and find one compile by its key
(``variant:compile_id:attempt``), which every view uses to open it.  The tree holds the kept attempt of each compile
id at the innermost frame of its stack (``dynamo_start``'s; a live profile's from the cell's first frame on, not the
profiler's own), and indents only where two stacks part, as tlparse's does.  A status is tlparse's colour, worded
once here (``STATUS_WORDS``).
"""

from __future__ import annotations

import re

from ..profile_run import CELL_FUNCTION_NAME, RESUME_FUNCTION, CompileFrame, CompileRecord, CompileStatus, ProfileRun
from .compile_shapes import CompileIndex, CompileLink, CompileRow, SiteRow, StatusWord
from .format import format_bytes, format_s, lines_of, one_line

STATUS_WORDS: dict[CompileStatus, str] = {
    "ok": "compiled",
    "restarted": "compiled after Dynamo restarted its analysis (a graph break)",
    "empty": "an empty graph (no op to compile)",
    "failed": "failed",
    "missing": "no metrics logged (it did not finish)",
    "dropped": "an attempt Dynamo dropped when it restarted",
}
# a status counted in the index's sentence ("6 compiled, 3 after a restart, 6 attempts dropped")
STATUS_COUNTED: dict[CompileStatus, tuple[str, str]] = {
    "ok": ("compiled", "compiled"),
    "restarted": ("compiled after a restart", "compiled after a restart"),
    "empty": ("empty graph", "empty graphs"),
    "failed": ("failed", "failed"),
    "missing": ("without metrics", "without metrics"),
    "dropped": ("attempt dropped", "attempts dropped"),
}
CACHE_NAMES = {"fx_graph": "FX graph", "aot_autograd": "AOTAutograd"}
OUTSIDE = "outside any compile"


def compile_key(record: CompileRecord) -> str:
    return f"{record.variant}:{record.compile_id}:{record.attempt}"


def _label(record: CompileRecord, variants: int) -> str:
    if not record.compile_id:
        return f"[{OUTSIDE}]"
    attempt = f"_{record.attempt}" if record.attempt else ""
    named = f" {record.variant}" if variants > 1 else ""
    return f"[{record.compile_id}{attempt}]{named}"


def status_text(record: CompileRecord) -> str:
    """The record's status in words: ``compiled after 2 restarts``, ``failed: InductorError: …``."""
    m = record.metrics
    if record.status == "failed" and m is not None:
        return f"failed: {one_line(f'{m.fail_type}: {m.fail_reason}' if m.fail_reason else m.fail_type, 120)}"
    if record.status == "restarted" and m is not None and m.restart_reasons:
        n = len(m.restart_reasons)
        return f"compiled after {n} restart{'' if n == 1 else 's'} of Dynamo's analysis"
    if record.status == "dropped" and record.restart_reason:
        return f"{STATUS_WORDS['dropped']} ({one_line(record.restart_reason, 100)})"
    if not record.compile_id:
        return f"logged {OUTSIDE}"
    return STATUS_WORDS[record.status]


def compile_link(run: ProfileRun, record: CompileRecord) -> CompileLink:
    variants = len({r.variant for r in run.compiles})
    return CompileLink(
        key=compile_key(record), label=_label(record, variants), status=record.status, status_text=status_text(record)
    )


def find_compile(run: ProfileRun, key: str) -> CompileRecord | None:
    return next((r for r in run.compiles if compile_key(r) == key), None)


_NAMED = re.compile(r"^\[?(?:(?P<variant>[^:\[\]]+):)?(?P<id>\d+/\d+)(?:[_:](?P<attempt>\d+))?\]?$")


def resolve_compile(run: ProfileRun, name: str) -> CompileRecord | None:
    """The compile a user names: its key (``trace:0/1:2``), tlparse's name (``0/1_2``, ``[0/1_2]``) or a compile id
    alone (``0/1``: its last attempt; the first variant's where several compiled it)."""
    found = find_compile(run, name)
    if found is not None:
        return found
    named = _NAMED.match(name.strip())
    if named is None:
        return None
    matches = [
        r
        for r in run.compiles
        if r.compile_id == named["id"] and (named["variant"] is None or r.variant == named["variant"])
    ]
    if named["attempt"] is not None:
        return next((r for r in matches if r.attempt == int(named["attempt"])), None)
    first = matches[0].variant if matches else ""
    return max((r for r in matches if r.variant == first), key=lambda r: r.attempt, default=None)


def function_name(name: str) -> str:
    """A compiled frame's function as the user knows it: ``the cell`` for the tool's cell function, ``forward,
    resumed`` for Dynamo's function that resumes ``forward`` after a graph break (its line is where the frame
    stands, said beside it), the name itself otherwise (the Compiles tab had listed
    ``torch_dynamo_resume_in___compile_profile_cell___at_3``)."""
    resumed = RESUME_FUNCTION.match(name)
    if resumed:
        return f"{function_name(resumed['fn'])}, resumed"
    return "the cell" if name == CELL_FUNCTION_NAME else name


def frame_text(frame: CompileFrame, of: str) -> str:
    """``record.py:110 in <module>``; a frame of the cell (or of a trace's script) by its line: ``cell line 3``."""
    if frame.cell_line is not None:
        return f"{of} line {frame.cell_line} in {function_name(frame.name)}"
    name = frame.filename.replace("\\", "/").rsplit("/", 1)[-1] or "?"
    return f"{name}:{frame.line} in {function_name(frame.name)}"


def compiled_frame(record: CompileRecord, of: str) -> str:
    """The frame a compile compiled (its stack's innermost): ``forward at record.py:82``."""
    if not record.stack:
        return "—"
    frame = record.stack[-1]
    at = frame_text(frame, of).rsplit(" in ", 1)[0]
    return f"{function_name(frame.name)} at {at}"  # "step, resumed at record.py line 134"


def _site_stack(run: ProfileRun, record: CompileRecord) -> list[CompileFrame]:
    """The frames the tree shows for a compile: a live profile's from the cell's first frame on (the frames above are
    the profiler's own), a trace's whole."""
    stack = record.stack
    if run.imported_trace is None:
        first = next((i for i, f in enumerate(stack) if f.cell_line is not None), 0)
        return stack[first:]
    return stack


class _Node:
    def __init__(self) -> None:
        self.children: dict[tuple[str, int, str], tuple[CompileFrame, _Node]] = {}
        self.compiles: list[CompileLink] = []


def site_rows(run: ProfileRun) -> list[SiteRow]:
    """The compile-site tree, in pre-order: each kept attempt at its stack's last frame."""
    root = _Node()
    of = lines_of(run)
    for record in run.compiles:
        if record.status == "dropped" or not record.compile_id or not record.stack:
            continue
        node = root
        for frame in _site_stack(run, record):
            key = (frame.filename, frame.line, frame.name)
            if key not in node.children:
                node.children[key] = (frame, _Node())
            node = node.children[key][1]
        node.compiles.append(compile_link(run, record))
    rows: list[SiteRow] = []

    def walk(node: _Node, depth: int) -> None:
        branching = len(node.children) > 1
        for frame, child in node.children.values():
            rows.append(SiteRow(depth=depth, text=frame_text(frame, of), code=frame.code, compiles=child.compiles))
            walk(child, depth + 1 if branching or len(child.children) > 1 else depth)

    walk(root, 0)
    return rows


def _size(n: int) -> str:
    return format_bytes(n).replace("iB", "B") if n >= 1024 else f"{n} bytes"


def artifacts_text(record: CompileRecord) -> str:
    n = len(record.artifacts)
    return f"{n} artifact{'' if n == 1 else 's'}, {_size(sum(a.bytes for a in record.artifacts))}" if n else "none"


def cache_text(record: CompileRecord) -> str:
    """``FX graph miss; AOTAutograd hit``: each lookup's cache and outcome, in the order made."""
    return "; ".join(f"{CACHE_NAMES.get(c.cache, c.cache)} {c.state}" for c in record.cache_lookups)


def _time(record: CompileRecord) -> str:
    m = record.metrics
    return format_s(m.entire_frame_s) if m is not None and m.entire_frame_s is not None else "—"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def index_text(run: ProfileRun) -> str:
    """``7 compiles of 6 compile ids: 5 compiled, 1 compiled after a restart, 1 attempt dropped; 101 artifacts, 761 KB``."""
    records = [r for r in run.compiles if r.compile_id]
    if not records:
        return "no compile recorded (a run stored before compiles were kept, or one that compiled nothing)"
    ids = {(r.variant, r.compile_id) for r in records}
    counts: dict[CompileStatus, int] = {}
    for r in records:
        counts[r.status] = counts.get(r.status, 0) + 1
    said = ", ".join(f"{n} {STATUS_COUNTED[s][n != 1]}" for s, n in counts.items())
    texts = {a.sha256: a.bytes for r in run.compiles for a in r.artifacts}
    return (
        f"{_count(len(records), 'compile')} of {_count(len(ids), 'compile id')}: {said}; "
        f"{_count(sum(len(r.artifacts) for r in run.compiles), 'artifact')} "
        f"({_count(len(texts), 'distinct text')}, {_size(sum(texts.values()))})"
    )


def perfetto_text(run: ProfileRun) -> str:
    """What ``export --perfetto`` holds for this run, counted."""
    spans = sum(len(v.compile_spans) for v in run.variants)
    ids = len({(v.name, s.compile_id) for v in run.variants for s in v.compile_spans})
    events = sum(len(v.kernel_profile.events) for v in run.variants if v.kernel_profile is not None)
    kernels = f"{_count(events, 'kernel event')} of one profiled call" if events else "no kernel events"
    return f"{_count(spans, 'compile span')} of {_count(ids, 'compile')}; {kernels}"


def compile_index(run: ProfileRun) -> CompileIndex:
    of = lines_of(run)
    rows = [
        CompileRow(
            link=compile_link(run, r),
            variant=r.variant,
            compile_id=r.compile_id,
            attempt=r.attempt,
            frame=compiled_frame(r, of),
            time=_time(r),
            artifacts_text=artifacts_text(r),
            cache_text=cache_text(r),
        )
        for r in run.compiles
    ]
    legend = [StatusWord(status=s, text=t) for s, t in STATUS_WORDS.items()]
    return CompileIndex(
        run_id=run.id,
        text=index_text(run),
        rows=rows,
        sites=site_rows(run),
        legend=legend,
        perfetto_text=perfetto_text(run),
    )
