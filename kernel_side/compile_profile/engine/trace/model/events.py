"""One small handler per structured-trace event, listed in ``HANDLERS``, building a ``VariantTrace``.

Each event carries its compile id (``frame/compile``); a Dynamo frame compile
yields a Dynamo graph, AOTAutograd graphs (forward/backward or inference),
post-grad graphs and one Inductor output module per compiled graph, in that
order.  The backward is compiled lazily, on the first backward call, so its
events arrive later under the same compile id.  When DDPOptimizer splits a Dynamo graph at DDP's
bucket boundaries, one compile id has one AOTAutograd (and Inductor) compile per piece, in the
pieces' order: the k-th AOT graph of a kind in a compile is ``<kind>#k`` (k > 0), the pieces'
forward graphs are the split's buckets' graphs, and our backend saw each piece as a graph of its own.

Contract: an event is dispatched on its kind (an artifact's name, else the event's name;
``TraceEvent.kind``) to one handler ``(TraceState, TraceEvent) -> None``, which only adds to the
state; an event of any other kind is ignored.  Kernels are built once all events are in
(``kernels.compile_kernels``), since a compile's provenance comes before or after its output module.
"""

from __future__ import annotations

import collections
import linecache
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from torch._dynamo import config as dynamo_config

from ....profile_run import (
    AutotuneResult,
    CacheLookup,
    CacheStats,
    CompileRestart,
    CompileSpan,
    DdpBucket,
    DdpSplit,
    Graph,
    GraphBreak,
    GraphKind,
    Kernel,
    Recompile,
)
from ...common.stack_text import frame_function, frames_of_stack, parse_frames
from ...common.torch_features import caller_lines_reliable
from ...compiler.backend import RecordedGraph
from .. import guards, mode_events, stack_slots
from ..capture import TraceEvent
from ..records import load_json
from . import ddp
from .graph_text import collective_ops, op_counts_from_code
from .kernels import CompileState, compile_kernels
from .locator import CellLocator

_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)")


@dataclass
class VariantTrace:
    graphs: list[Graph] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    cache: CacheStats = field(default_factory=CacheStats)
    phases: dict[str, float] = field(default_factory=dict)
    compile_s: float = 0.0
    failures: list[str] = field(default_factory=list)
    autotune: list[AutotuneResult] = field(default_factory=list)
    cudagraph_skips: list[str] = field(default_factory=list)
    ddp_splits: list[DdpSplit] = field(default_factory=list)
    spans: list[CompileSpan] = field(default_factory=list)  # in order of their ends
    cache_lookups: list[CacheLookup] = field(default_factory=list)
    # compiles that raised (a backend's error, fullgraph's Unsupported), a recompile limit's apart
    failed_compiles: list[FailedCompile] = field(default_factory=list)
    # the last ``fx_graph_runnable`` artifact (a standalone script of the graph Inductor was given: torch's own
    # reproducer, run through ``torch._dynamo.repro.after_aot.run_repro``) and its compile id
    runnable: str = ""
    runnable_compile_id: str = ""
    runnables: dict[str, str] = field(default_factory=dict)  # the last ``fx_graph_runnable`` of each compile id
    # each compile's restarts of its analysis (``compilation_metrics``' ``restart_reasons``), as tlparse lists them
    restarts: list[CompileRestart] = field(default_factory=list)


@dataclass
class FailedCompile:
    """A compile whose metrics name an exception (``fail_type``): what raised, and the user frame it names."""

    compile_id: str
    type: str
    reason: str
    filename: str = ""
    line: int | None = None


@dataclass
class TraceState:
    """Everything the handlers read and write while one variant's events are read."""

    variant: str
    locator: CellLocator
    recorded: Iterator[RecordedGraph]  # the Dynamo graphs our backend saw, one per dynamo_output_graph
    out: VariantTrace = field(default_factory=VariantTrace)
    compiles: dict[str, CompileState] = field(default_factory=dict)  # by compile id, in order of first event
    # begin timestamps of the open chromium spans, by (span name, compile id)
    open_spans: dict[tuple[str, str], list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    # how many spans are open per compile id: a span's depth is the number open when it began
    open_depth: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(list))
    # each DDPOptimizer split with the number of forward graphs its compile had logged before it
    ddp_forwards_before: list[tuple[DdpSplit, int]] = field(default_factory=list)
    recompiles: dict[str, Recompile] = field(default_factory=dict)  # by compile id: one recompile each
    # the frames of each recompile's failed guard, from its reason's ``User stack trace`` (by compile id)
    guard_frames: dict[str, list[tuple]] = field(default_factory=dict)
    # the compile seconds Dynamo's metrics give each compile id (the frame's, a lazy backward's added)
    metrics_s: dict[str, float] = field(default_factory=lambda: collections.defaultdict(float))
    # a line of a file the trace names (a graph break's), where no frame of the trace gives its text: linecache in
    # a live profile (the user's own files); an import reads only under the source-roots rule (trace_sources)
    read_line: Callable[[str, int], str] = field(default=lambda filename, line: linecache.getline(filename, line))

    def compile(self, ev: TraceEvent) -> CompileState:
        return self.compiles.setdefault(ev.compile_id, CompileState())

    def graph_id(self, ev: TraceEvent, kind: str) -> str:
        return f"{self.variant}/{ev.compile_id}/{kind}"


Handler = Callable[[TraceState, TraceEvent], None]


def build_variant_trace(
    events: list[TraceEvent],
    recorded: list[RecordedGraph],
    *,
    variant: str,
    locator: CellLocator,
    unreadable: collections.Counter[str] | None = None,
    read_line: Callable[[str, int], str] | None = None,
) -> VariantTrace:
    """``unreadable``, when given, makes a handler that raises on an event skip it and count its kind there
    (a trace file from another torch release whose payload changed shape), and so a step after the events that
    raises (counted as ``placing``); without it, the error propagates.  An event reaches its handler only once
    its record was checked against its kind's types (``trace_records``, where the event was made).
    ``read_line``: where a file's line is read (``TraceState.read_line``)."""
    state = TraceState(variant=variant, locator=locator, recorded=iter(recorded))
    if read_line is not None:
        state.read_line = read_line
    for ev in events:
        state.compile(ev)  # kernels come out in order of each compile's first event
        handler = HANDLERS.get(ev.kind)
        if handler is None:
            continue
        if unreadable is None:
            handler(state, ev)
            continue
        try:
            handler(state, ev)
        except Exception:  # noqa: BLE001 - one event that cannot be read is skipped and counted, never fatal
            unreadable[ev.kind] += 1
    out = state.out
    for step in (_place_ddp_pieces, _place_recompiles, _name_stack_slot_guards):
        try:
            step(state)
        except Exception:  # re-raised unless the caller counts what it cannot read, as above
            if unreadable is None:
                raise
            unreadable["placing"] += 1
    for cid, compile_state in state.compiles.items():
        try:
            out.kernels.extend(compile_kernels(compile_state, variant=variant, cid=cid, locator=locator))
        except Exception:  # re-raised unless the caller counts what it cannot read, as above
            if unreadable is None:
                raise
            unreadable["inductor_output_code"] += 1
    _dedupe_breaks(out)
    out.compile_s = _compile_seconds(state)
    for g in out.graphs:
        g.collectives = collective_ops(g.op_counts)
    out.cache.kernels = sum(1 for k in out.kernels if k.language != "extern")
    out.cache.state = out.cache.derived_state()
    return out


# -- graphs ------------------------------------------------------------------


def _on_dynamo_start(state: TraceState, ev: TraceEvent) -> None:
    if not isinstance(ev.metadata, dict):
        return
    stack = ev.metadata.get("stack") or []
    if stack and isinstance(stack[-1], dict):
        state.compile(ev).frame = stack[-1]
    if caller_lines_reliable():
        # the last frame is the compiled code itself (at its first line); the ones before called it
        state.compile(ev).outer = frames_of_stack(stack)[:-1]


def _on_dynamo_graph(state: TraceState, ev: TraceEvent) -> None:
    if any(g.kind == "dynamo" and g.compile_id == ev.compile_id for g in state.out.graphs):
        _abandon_attempt(state, ev.compile_id)
    compile_state = state.compile(ev)
    rec = compile_state.recorded = next(state.recorded, None)
    if rec is not None and rec.caller_frames and caller_lines_reliable():
        # the frame chain as the backend saw it: with the frames running transformed code (the cell's,
        # at the line that called into a helper), which dynamo_start's stack leaves out.  torch 2.6 keeps
        # the cell's frame at its first line while it runs Dynamo's rewritten code, so there it is not read:
        # a graph started inside a library read cell line 2 where the call was on line 3
        compile_state.outer = rec.caller_frames
    code = ev.payload or (rec.code if rec else "")
    lines = _recorded_lines(state, compile_state, rec) if rec else state.locator.cell_lines_in(code)
    compile_state.dynamo_lines = lines
    state.out.graphs.append(
        Graph(
            id=state.graph_id(ev, "dynamo"),
            kind="dynamo",
            code=code,
            variant=state.variant,
            compile_id=ev.compile_id,
            op_counts=rec.op_counts if rec else {},
            lines=lines,
            input_shapes=rec.input_shapes if rec else [],
        )
    )


def _abandon_attempt(state: TraceState, compile_id: str) -> None:
    """A second Dynamo graph for one compile id: Dynamo restarted the frame's analysis after the first had
    been compiled (GPT-2 under dynamic=True: a 181-node graph compiled, then dropped for a 153-node one, as
    a backend wrapping Inductor sees under plain torch.compile too).  The first attempt's graphs and
    kernels never run, so they leave the run, and so do the cache lookups made for them (tlparse lists the
    attempt apart, ``[6/1_1]``: docs/import-trace.md); its compile time stays, since it was spent."""
    state.out.graphs = [g for g in state.out.graphs if g.compile_id != compile_id]
    # and its cache lookups, counted with the graphs they were for (an AOTAutograd miss for the dropped graph)
    dropped = [c for c in state.out.cache_lookups if c.compile_id == compile_id]
    state.out.cache_lookups = [c for c in state.out.cache_lookups if c.compile_id != compile_id]
    for c in dropped:
        field_name = f"{c.cache}_{'hits' if c.state == 'hit' else 'misses'}"
        setattr(state.out.cache, field_name, getattr(state.out.cache, field_name) - 1)
    old = state.compiles[compile_id]
    state.compiles[compile_id] = CompileState(outer=old.outer, frame=old.frame)


def _recorded_lines(state: TraceState, compile_state: CompileState, rec: RecordedGraph) -> list[int]:
    return sorted(
        {
            ln
            for stack in rec.node_stacks
            if (ln := state.locator.innermost_cell_line(compile_state.outer + stack)) is not None
        }
    )


_AOT_GRAPH_KINDS: dict[str, GraphKind] = {
    "aot_forward_graph": "aot_forward",
    "aot_backward_graph": "aot_backward",
    "aot_inference_graph": "aot_inference",
}


def _on_aot_graph(state: TraceState, ev: TraceEvent) -> None:
    kind = _AOT_GRAPH_KINDS[ev.name]  # the events _HANDLERS gives this handler
    compile_state = state.compile(ev)
    n = compile_state.aot_seen[kind]  # > 0 for the pieces after the first of a DDPOptimizer split
    compile_state.aot_seen[kind] += 1
    id_kind = f"{kind}#{n}" if n else kind
    compile_state.aot_graph_ids[kind] = state.graph_id(ev, id_kind)
    compile_state.aot_code.append(ev.payload or "")
    if kind == "aot_backward":
        compile_state.aot_backward.append((state.graph_id(ev, id_kind), ev.payload or ""))
    _add_printed_graph(state, ev, kind, id_kind)


def _on_post_grad_graph(state: TraceState, ev: TraceEvent) -> None:
    # a top-level event on a cache hit, an artifact on a fresh compile (after_post_grad_graph in 2.8)
    post_grad = state.compile(ev).post_grad
    _add_printed_graph(state, ev, "post_grad", f"post_grad_{len(post_grad)}")
    post_grad.append(ev.payload or "")


def _add_printed_graph(state: TraceState, ev: TraceEvent, kind: GraphKind, id_kind: str) -> None:
    code = ev.payload or ""
    state.out.graphs.append(
        Graph(
            id=state.graph_id(ev, id_kind),
            kind=kind,
            code=code,
            variant=state.variant,
            compile_id=ev.compile_id,
            op_counts=op_counts_from_code(code),
            lines=state.locator.cell_lines_in(code),
        )
    )


# -- DDPOptimizer's splits ------------------------------------------------------


def _on_ddp_split_graph(state: TraceState, ev: TraceEvent) -> None:
    dynamo = _dynamo_graph_of(state, ev)
    split = DdpSplit(
        variant=state.variant, compile_id=ev.compile_id, graph_id=dynamo.id if dynamo else state.graph_id(ev, "dynamo")
    )
    forwards = sum(state.compile(ev).aot_seen[k] for k in ("aot_forward", "aot_inference"))
    state.out.ddp_splits.append(split)
    state.ddp_forwards_before.append((split, forwards))
    if dynamo is not None:  # the graph the pieces come from: their inputs, not the first piece's
        dynamo.input_shapes = ddp.input_shapes(ev.payload or "") or []


def _on_ddp_split_child(state: TraceState, ev: TraceEvent) -> None:
    split = next((s for s in reversed(state.out.ddp_splits) if s.compile_id == ev.compile_id), None)
    if split is None:
        return
    params = ddp.piece_params(ev.payload or "")
    split.buckets.append(
        DdpBucket(index=len(split.buckets), params=[name for name, _ in params], bytes=sum(size for _, size in params))
    )
    if len(split.buckets) > 1:
        # our backend saw each piece as a graph: the first went with the Dynamo graph, the others join it
        _join_recorded_piece(state, ev)


def _join_recorded_piece(state: TraceState, ev: TraceEvent) -> None:
    rec = next(state.recorded, None)
    dynamo = _dynamo_graph_of(state, ev)
    if rec is None or dynamo is None:
        return
    compile_state = state.compile(ev)
    counts = dict(dynamo.op_counts)  # a copy: the first piece's counts are its recorded graph's own dict
    for op, n in rec.op_counts.items():
        counts[op] = counts.get(op, 0) + n
    dynamo.op_counts = counts
    dynamo.lines = sorted(set(dynamo.lines) | set(_recorded_lines(state, compile_state, rec)))
    compile_state.dynamo_lines = dynamo.lines


def _place_ddp_pieces(state: TraceState) -> None:
    """Piece k of a split is the k-th forward (or inference) graph its compile logged after the split;
    when their number is not the pieces' (an AOTAutograd cache hit logs no graph) none is named."""
    for split, before in state.ddp_forwards_before:
        forwards = [
            g.id
            for g in state.out.graphs
            if g.compile_id == split.compile_id and g.kind in ("aot_forward", "aot_inference")
        ][before:]
        if len(forwards) == len(split.buckets):
            for bucket, graph_id in zip(split.buckets, forwards):
                bucket.graph_id = graph_id


# -- what kernels are built from, once all events are in -----------------------


def _on_output_code(state: TraceState, ev: TraceEvent) -> None:
    compile_state = state.compile(ev)
    compile_state.output_code.append((ev, dict(compile_state.aot_graph_ids), len(compile_state.post_grad) - 1))


def _on_provenance_node_mappings(state: TraceState, ev: TraceEvent) -> None:
    state.compile(ev).provenance.append(_json(ev.payload))


def _on_provenance_stack_traces(state: TraceState, ev: TraceEvent) -> None:
    state.compile(ev).stack_traces.append(_json(ev.payload))


# -- graph breaks and recompiles ---------------------------------------------


def _on_graph_break(state: TraceState, ev: TraceEvent) -> None:
    head, _, rest = (ev.payload or "").partition("\n")
    reason_text, _, user_tb = rest.partition("User code traceback:")
    user_tb = user_tb.split("\nTraceback (most recent call last)")[0]
    frames = parse_frames(user_tb)
    at = _BREAK_AT.search(head)
    filename, file_line = (at.group(1), int(at.group(2))) if at else (frames[-1][:2] if frames else ("", None))
    line = state.locator.innermost_cell_line(
        state.compile(ev).outer + frames
    )  # the cell line whose call led to the break
    file_code = next((code for f, n, code in reversed(frames) if f == filename and n == file_line), "")
    function = frame_function(user_tb, filename, file_line) or frame_function(head, filename, file_line)
    state.out.graph_breaks.append(
        GraphBreak(
            reason=reason_text.replace("Graph Break Reason:", "", 1).strip(),
            line=line,
            code_line=state.locator.code_line(line),
            variant=state.variant,
            compile_id=ev.compile_id,
            filename=filename,
            file_line=file_line,
            file_code=file_code or _source_line(state, filename, file_line),
            file_function=function,
        )
    )


def _source_line(state: TraceState, filename: str, line: int | None) -> str:
    if not filename or line is None:
        return ""
    return state.read_line(filename, line).strip()


def _dedupe_breaks(out: VariantTrace) -> None:
    # Dynamo restarts analysis after a break and may log the same break again within one compile;
    # the same break in other compiles (a library function compiled once per caller) is another
    # occurrence, which the views group with a count.
    seen = set()
    unique = []
    for b in out.graph_breaks:
        key = (b.compile_id, b.filename, b.file_line, b.reason.splitlines()[0] if b.reason else "")
        if key not in seen:
            seen.add(key)
            unique.append(b)
    out.graph_breaks = unique


def _on_recompile_reasons(state: TraceState, ev: TraceEvent) -> None:
    # One event per new compile of a frame that already has compiled entries; it lists the guard
    # failure of each entry, the most recent first (Dynamo checked them all before compiling anew),
    # so it is one recompile, whose cause is the newest entry's failure (Dynamo's own "last reason").
    data = _json(ev.payload)
    if isinstance(data, list):
        reasons = [str(r) for r in data]
    elif isinstance(data, str):
        reasons = [data]
    else:
        reasons = [ev.payload] if ev.payload and ev.payload.strip() else []
    reasons = [r for r in reasons if r.strip() and not _is_backend_switch(r)]
    if not reasons or ev.compile_id in state.recompiles:
        return  # the profiler compiling the same code for its next variant; or a compile's reasons again
    primary = trim_guard_comments(reasons[0])
    source = guards.failed_guard_source(primary)
    state.guard_frames[ev.compile_id] = guard_frames(reasons[0])
    recompile = Recompile(
        reason=_with_older_entries(primary, reasons[1:]), variant=state.variant, compile_id=ev.compile_id, source=source
    )
    _read_change(recompile, primary)
    state.recompiles[ev.compile_id] = recompile
    state.out.recompiles.append(recompile)


def _place_recompiles(state: TraceState) -> None:
    """Each recompile's frame and cell line, once the frames' ``dynamo_start`` events are in (Dynamo logs a
    recompile's reasons before it starts that compile).  A guard in the cell's own frame is at the line of the
    guard that failed: where its reason's user stack says Dynamo installed it (``if step % 10 == 0:``), else
    where the failed entry's own guard on that value is (the line the Guards view gives it: a tensor's size
    mismatch names no stack), else the first line that reads the name — never merely the first line that names
    it (``def log_loss(step, …)``).  A guard in a library's frame names that frame's variable (``labels`` in
    transformers' ``ForCausalLMLoss``), so its line is the cell line that called into the frame, never a cell
    line that happens to read a variable of the same name."""
    for r in state.out.recompiles:
        compile_state = _compile_of(state, r.compile_id)
        frame = compile_state.frame
        filename, first_line = str(frame.get("filename") or ""), int(frame.get("line") or 0)
        if not frame or state.locator.cell_line(filename, first_line) is not None:
            at_break = _stack_slot_line(state, frame, r.source)
            if at_break is not None:  # a value on the stack at a graph break in the cell: the break's line
                r.line = at_break
                value = stack_slots.slot_value(state.locator.lines, at_break, r.source)
                r.user_name, r.user_expr = value.name, value.expr
                continue
            r.line = _guard_line(state, r, compile_state)
            continue
        r.frame, r.filename, r.file_line = str(frame.get("name") or "?"), filename, first_line or None
        r.line = state.locator.innermost_cell_line(compile_state.outer)


# the failed entry a recompile reason names first: "0/0: tensor 'x' size mismatch ..."
_FAILED_ENTRY = re.compile(r"^\s*(?:-\s*)?(\d+/\d+):")
# a failed check's own comment: "L['n'] == 1   # return x * n  # …/train.py:6 in f" (the path cut to a width)
_CHECK_AT = re.compile(r"  # (?P<code>.*?)  # (?P<file>[^#\n]+?):(?P<line>\d+) in [^#\n]*$")


def guard_frames(reason: str) -> list[tuple]:
    """Where Dynamo installed the guard a recompile reason says failed, outermost first: its ``User stack
    trace`` (torch 2.9 and later), else the file and line its check's comment names; [] where it names none
    (a tensor's mismatch, torch 2.6's checks)."""
    head, sep, stack = reason.partition("User stack trace:")
    if sep:
        frames = parse_frames(stack)
        if frames:
            return frames
    first = head.strip().splitlines()[0] if head.strip() else ""
    at = _CHECK_AT.search(first)
    return [(at["file"].strip(), int(at["line"]), at["code"].strip())] if at else []


def _guard_line(state: TraceState, r: Recompile, compile_state: CompileState) -> int | None:
    """The cell line of a recompile's failed guard in the cell's own frame (``_place_recompiles``)."""
    frames = state.guard_frames.get(r.compile_id) or []
    if frames:
        line = state.locator.innermost_cell_line(compile_state.outer + frames)
        if line is not None:
            return line
    if not r.source:
        return None
    root = guards.root_name(r.source)
    entry = _FAILED_ENTRY.match(r.reason)
    failed = next(
        (g for g in state.out.graphs if g.kind == "dynamo" and entry and g.compile_id == entry.group(1)), None
    )
    for g in failed.guards if failed is not None else []:
        if g.line is not None and g.source and guards.root_name(g.source) == root and g.kind in ("tensor", "value"):
            return g.line
    return state.locator.first_line_reading(root)


def _read_change(recompile: Recompile, reason: str) -> None:
    recompile.change, recompile.dim, recompile.expected, recompile.actual = guards.failure_change(reason)


def _stack_slot_line(state: TraceState, frame: dict, source: str) -> int | None:
    """The cell line of the graph break whose resume function ``frame`` is, where ``source`` is one of its
    stack slots (``___stack0``); else None."""
    if stack_slots.slot_of(source) is None:
        return None
    file_line = stack_slots.resume_line(str(frame.get("name") or ""))
    return state.locator.cell_line(str(frame.get("filename") or ""), file_line) if file_line is not None else None


def _name_stack_slot_guards(state: TraceState) -> None:
    """The guards of a resume function on its stack slots, at the break's cell line with the cell's name."""
    for g in state.out.graphs:
        if g.kind != "dynamo" or not g.guards:
            continue
        frame = _compile_of(state, g.compile_id).frame
        for guard in g.guards:
            line = _stack_slot_line(state, frame, guard.source)
            if line is not None:
                value = stack_slots.slot_value(state.locator.lines, line, guard.source)
                guard.line, guard.user_name, guard.user_expr = line, value.name, value.expr


def _compile_of(state: TraceState, compile_id: str) -> CompileState:
    """The compile state of ``compile_id`` where it logged its frame, else of another compile of the same
    frame that did (a compile that hit the recompile limit starts none)."""
    own = state.compiles.get(compile_id)
    if own is not None and own.frame:
        return own
    frame_id = compile_id.split("/")[0]
    return next(
        (cs for cid, cs in state.compiles.items() if cid.split("/")[0] == frame_id and cs.frame), own or CompileState()
    )


MAX_OLDER_REASONS = 3  # the older entries' failures kept in a recompile's reason


def trim_guard_comments(reason: str) -> str:
    """A guard failure without the comment Dynamo pads each failed check with (``G['n'] == 1   # n = …  #
    file.py:4 in f``: the user code and where it is, which the recompile's line says); its ``User stack
    trace`` is kept."""
    head, sep, stack = reason.partition("User stack trace:")
    checks = [ln.split("  # ", 1)[0].rstrip() for ln in head.splitlines()]
    return "\n".join(ln for ln in checks if ln.strip()) + ("\n" + sep + stack.rstrip() if sep else "")


def _with_older_entries(primary: str, older: list[str]) -> str:
    if not older:
        return primary
    firsts = [trim_guard_comments(r).splitlines()[0] for r in older[:MAX_OLDER_REASONS]]
    more = f"; … {len(older) - MAX_OLDER_REASONS} more" if len(older) > MAX_OLDER_REASONS else ""
    return f"{primary}\nolder entries failed too ({len(older)}): " + "; ".join(firsts) + more


# How Dynamo says a compile hit its recompile limit: torch 2.13 fails the compile with Unsupported
# ("Dynamo recompile limit exceeded … Limit type: recompile_limit", "currently set to 8"); torch 2.6
# with RecompileLimitExceeded ("cache_size_limit reached", logged as bwd_compilation_metrics), or
# Unsupported with the same text where recursive skipping is off.
_LIMIT_TYPE = re.compile(r"Limit type: (\w+)|\b(\w*(?:recompile|cache_size)_limit) reached")
_LIMIT_VALUE = re.compile(r"currently set to (\d+)")


def recompile_limit_hit(metrics: dict) -> str:
    """``recompile_limit (8)`` when a compile's metrics say it hit a Dynamo recompile limit, else ""."""
    fail_type, fail_reason = str(metrics.get("fail_type") or ""), str(metrics.get("fail_reason") or "")
    found = _LIMIT_TYPE.search(fail_reason)
    if not found and not (
        fail_type in ("RecompileLimitExceeded", "CacheLimitExceeded")
        or "recompile limit exceeded" in fail_reason.lower()
    ):
        return ""
    limit_type = (found.group(1) or found.group(2)) if found else "recompile_limit"
    value = _LIMIT_VALUE.search(fail_reason)
    limit = value.group(1) if value else getattr(dynamo_config, limit_type, None)
    return f"{limit_type} ({limit})" if limit is not None else limit_type


def _note_limit(state: TraceState, ev: TraceEvent, metrics: dict) -> None:
    limit = recompile_limit_hit(metrics)
    if not limit:
        return
    compile_id = ev.compile_id or str(metrics.get("compile_id") or "")
    recompile = state.recompiles.get(compile_id)
    if recompile is None:  # no reasons logged for it (or only the profiler's backend switch)
        reason = trim_guard_comments(str(metrics.get("recompile_reason") or ""))
        source = guards.failed_guard_source(reason) if reason else ""
        recompile = state.recompiles[compile_id] = Recompile(
            reason=reason, variant=state.variant, compile_id=compile_id, source=source
        )
        _read_change(recompile, reason)
        state.out.recompiles.append(recompile)
    recompile.limit = limit


def _dynamo_graph_of(state: TraceState, ev: TraceEvent) -> Graph | None:
    # Guards are logged after the frame's graph; a frame that produced no graph has no Dynamo
    # graph to hold its guards, and they are dropped.
    return next((g for g in reversed(state.out.graphs) if g.kind == "dynamo" and g.compile_id == ev.compile_id), None)


def _on_guard_tree(state: TraceState, ev: TraceEvent) -> None:
    dynamo = _dynamo_graph_of(state, ev)
    if dynamo is not None:
        dynamo.guards = guards.guards_of_tree(ev.payload or "", state.locator)


def _on_guard_list(state: TraceState, ev: TraceEvent) -> None:
    dynamo = _dynamo_graph_of(state, ev)
    if dynamo is not None and not dynamo.guards:  # the tree, where logged too, says the same with kinds
        dynamo.guards = guards.guards_of_compile(_json(ev.payload), state.locator, state.compile(ev).outer)


def _is_backend_switch(reason: str) -> bool:
    lines = [ln for ln in reason.splitlines() if ln.strip()]
    return bool(lines) and all("BACKEND_MATCH" in ln or "___check_current_backend" in ln for ln in lines)


# -- caches, phases, metrics ---------------------------------------------------


def _counts(cache_field: str) -> Handler:
    """A handler counting the lookup in ``VariantTrace.cache.<cache_field>`` and keeping it, with its compile id and
    torch's finer status (``cache_status_detailed``, or why the cache was bypassed) from the artifact's payload."""
    cache: Literal["fx_graph", "aot_autograd"] = "fx_graph" if cache_field.startswith("fx_graph") else "aot_autograd"
    outcome = "hit" if cache_field.endswith("hits") else "miss"

    def count(state: TraceState, ev: TraceEvent) -> None:
        setattr(state.out.cache, cache_field, getattr(state.out.cache, cache_field) + 1)
        payload = _json(ev.payload)
        detail = ""
        if isinstance(payload, dict):
            detail = str(payload.get("cache_bypass_reason") or payload.get("cache_status_detailed") or "")
        state.out.cache_lookups.append(CacheLookup(ev.compile_id, cache, outcome, detail))

    return count


def _on_chromium_event(state: TraceState, ev: TraceEvent) -> None:
    span = ev.chromium
    if span is None or span.phase not in ("B", "E"):
        return
    starts = state.open_spans[(span.name, ev.compile_id)]
    # Spans without a compile id are Inductor's worker threads' (compile_file), overlapping one another
    # inside the compile's own async_compile.wait: left out of the nesting.
    depths = state.open_depth[ev.compile_id] if ev.compile_id else None
    if span.phase == "B":
        starts.append(span.ts)
        if depths is not None:
            depths.append(len(depths))
        return
    autotune = mode_events.autotune_result(span, ev.compile_id, starts[-1] if starts else None)
    if autotune is not None:
        state.out.autotune.append(autotune)
    if starts:
        begun = starts.pop()
        phases = state.out.phases
        phases[span.name] = phases.get(span.name, 0.0) + (span.ts - begun) / 1e6
        if depths:
            depth = depths.pop()
            state.out.spans.append(CompileSpan(ev.compile_id, span.name, begun / 1e6, (span.ts - begun) / 1e6, depth))


def _on_graph_runnable(state: TraceState, ev: TraceEvent) -> None:
    if ev.payload:
        state.out.runnable, state.out.runnable_compile_id = ev.payload, ev.compile_id
        state.out.runnables[ev.compile_id] = ev.payload


def _on_compilation_metrics(state: TraceState, ev: TraceEvent) -> None:
    m = ev.metadata
    if not isinstance(m, dict):
        return
    state.metrics_s[ev.compile_id or str(m.get("compile_id") or "")] += float(
        m.get("entire_frame_compile_time_s") or 0.0
    )
    restarts = m.get("restart_reasons")
    if isinstance(restarts, list) and restarts:
        state.out.restarts.append(
            CompileRestart(
                compile_id=ev.compile_id or str(m.get("compile_id") or ""),
                attempt=ev.attempt if isinstance(ev.attempt, int) else len(restarts),
                reasons=[_first_reason_line(str(r)) for r in restarts],
            )
        )
    if m.get("fail_type"):
        state.out.failures.append(f"{m.get('fail_type')}: {m.get('fail_reason')}")
        _note_limit(state, ev, m)
        if not recompile_limit_hit(m):
            line = m.get("fail_user_frame_lineno")
            state.out.failed_compiles.append(
                FailedCompile(
                    compile_id=ev.compile_id or str(m.get("compile_id") or ""),
                    type=str(m.get("fail_type")),
                    reason=str(m.get("fail_reason") or ""),
                    filename=str(m.get("fail_user_frame_filename") or ""),
                    line=line if isinstance(line, int) else None,
                )
            )
    state.out.cudagraph_skips.extend(mode_events.cudagraph_skips(m))


def _on_bwd_compilation_metrics(state: TraceState, ev: TraceEvent) -> None:
    if not isinstance(ev.metadata, dict):
        return
    if ev.metadata.get("fail_type"):  # torch 2.6 logs a frame's recompile-limit failure as this event
        _note_limit(state, ev, ev.metadata)
    state.metrics_s[ev.compile_id] += float(ev.metadata.get("inductor_compile_time_s") or 0.0)
    state.out.cudagraph_skips.extend(mode_events.cudagraph_skips(ev.metadata))


_CLASS_REPR = re.compile(r"^<class '(?:[\w.]+\.)?(\w+)'>$")


def _first_reason_line(reason: str) -> str:
    """A restart reason as tlparse lists it: its first line (``Failed to trace builtin operator``), an exception
    class by its name (``<class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>``: ``TensorifyScalarRestartAnalysis``)."""
    first = next((ln.strip() for ln in reason.splitlines() if ln.strip()), "")
    named = _CLASS_REPR.match(first)
    return named.group(1) if named else first


def _compile_seconds(state: TraceState) -> float:
    """The seconds all compiles took, one figure per compile id: the sum of its outermost timed spans (``dynamo``
    around the frame, ``entire_backward_compile`` around a lazy backward), which the compile timeline draws, else
    (no spans logged for it) what Dynamo's metrics give it.  Summing the metrics instead read 4.91 s where the
    timeline drew 4.94 s, and a lazy backward's 0.300 s of Inductor time where its span took 0.371 s."""
    spans: dict[str, float] = collections.defaultdict(float)
    for span in state.out.spans:
        if span.depth == 0 and span.compile_id:
            spans[span.compile_id] += span.duration_s
    ids = list(dict.fromkeys([*spans, *state.metrics_s]))
    return sum(spans[cid] if cid in spans else state.metrics_s[cid] for cid in ids)


def _json(payload: str | None):
    if not payload:
        return None
    try:
        return load_json(payload)  # NaN and Infinity refused: nothing the store writes may hold them
    except ValueError:
        return None


# The one list of what is read from the trace, by event kind (an artifact's name, else the event's name).
HANDLERS: dict[str, Handler] = {
    "dynamo_start": _on_dynamo_start,
    "dynamo_output_graph": _on_dynamo_graph,
    "aot_forward_graph": _on_aot_graph,
    "aot_backward_graph": _on_aot_graph,
    "aot_inference_graph": _on_aot_graph,
    "optimize_ddp_split_graph": _on_ddp_split_graph,
    "optimize_ddp_split_child": _on_ddp_split_child,
    "inductor_post_grad_graph": _on_post_grad_graph,
    "after_post_grad_graph": _on_post_grad_graph,
    "inductor_output_code": _on_output_code,
    "inductor_provenance_tracking_node_mappings": _on_provenance_node_mappings,
    "inductor_provenance_tracking_kernel_stack_traces": _on_provenance_stack_traces,
    "dynamo_graph_break_reason": _on_graph_break,
    "recompile_reasons": _on_recompile_reasons,
    "dynamo_cpp_guards_str": _on_guard_tree,
    "dynamo_guards": _on_guard_list,
    "fx_graph_cache_hit": _counts("fx_graph_hits"),
    "fx_graph_bundled_cache_hit": _counts("fx_graph_hits"),
    "fx_graph_cache_miss": _counts("fx_graph_misses"),
    "aotautograd_cache_hit": _counts("aot_autograd_hits"),
    "aotautograd_cache_miss": _counts("aot_autograd_misses"),
    "chromium_event": _on_chromium_event,
    "fx_graph_runnable": _on_graph_runnable,
    "compilation_metrics": _on_compilation_metrics,
    "bwd_compilation_metrics": _on_bwd_compilation_metrics,
}
