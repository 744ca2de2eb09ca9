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
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from ....plain_text import escaped
from ....profile_run import (
    CacheLookup,
    CompileRestart,
    CompileSpan,
    DdpBucket,
    DdpSplit,
    Graph,
    GraphKind,
)
from ...cell.locator import CellLocator
from ...common.stack_text import frames_of_stack
from ...common.torch_features import caller_lines_reliable
from .. import mode_events
from ..capture import TraceEvent
from ..records import MAX_DURATION_S
from . import breaks, ddp
from .compiles import DEFAULT_ARTIFACT_BYTES, collect_compiles, first_reason_line
from .graph_text import collective_ops, op_counts_from_code
from .kernels import CompileState, compile_kernels
from .state import FailedCompile, Handler, TraceState, VariantTrace, dynamo_graph_of, payload_json

if TYPE_CHECKING:  # the backend imports torch, which reading a log does not need
    from ...compiler.backend import RecordedGraph


def build_variant_trace(
    events: list[TraceEvent],
    recorded: list[RecordedGraph],
    *,
    variant: str,
    locator: CellLocator,
    unreadable: collections.Counter[str] | None = None,
    read_line: Callable[[str, int], str] | None = None,
    artifact_bytes: int = DEFAULT_ARTIFACT_BYTES,
) -> VariantTrace:
    """``unreadable``, when given, makes a handler that raises on an event skip it and count its kind there
    (a trace file from another torch release whose payload changed shape), and so a step after the events that
    raises (counted as ``placing``); without it, the error propagates.  An event reaches its handler only once
    its record was checked against its kind's types (``records``, where the event was made).
    ``read_line``: where a file's line is read (``TraceState.read_line``); ``artifact_bytes``: the cap on one
    artifact's text (``compiles``)."""
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
    for step in (_place_ddp_pieces, breaks.place_recompiles, breaks.name_stack_slot_guards):
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
    breaks.dedupe_breaks(out)
    try:
        found = collect_compiles(events, variant=variant, locator=locator, artifact_bytes=artifact_bytes)
        out.compiles, out.artifact_texts = found.records, found.texts
    except Exception:  # re-raised unless the caller counts what it cannot read, as above
        if unreadable is None:
            raise
        unreadable["compiles"] += 1
    out.compile_s = _compile_seconds(state)
    starts: dict[str, float] = {}
    for span in out.spans:
        starts[span.compile_id] = min(starts.get(span.compile_id, span.start_s), span.start_s)
    for record in out.compiles:
        record.start_s = starts.get(record.compile_id)
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
    dynamo = dynamo_graph_of(state, ev)
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
    dynamo = dynamo_graph_of(state, ev)
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
    state.compile(ev).provenance.append(payload_json(ev.payload))


def _on_provenance_stack_traces(state: TraceState, ev: TraceEvent) -> None:
    state.compile(ev).stack_traces.append(payload_json(ev.payload))


# -- caches, phases, metrics ---------------------------------------------------


def _counts(cache_field: str) -> Handler:
    """A handler counting the lookup in ``VariantTrace.cache.<cache_field>`` and keeping it, with its compile id and
    torch's finer status (``cache_status_detailed``, or why the cache was bypassed) from the artifact's payload."""
    cache: Literal["fx_graph", "aot_autograd"] = "fx_graph" if cache_field.startswith("fx_graph") else "aot_autograd"
    outcome = "hit" if cache_field.endswith("hits") else "miss"

    def count(state: TraceState, ev: TraceEvent) -> None:
        setattr(state.out.cache, cache_field, getattr(state.out.cache, cache_field) + 1)
        payload = payload_json(ev.payload)
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
        if not 0 <= span.ts - begun <= MAX_DURATION_S * 1e6:  # an end before its begin, or no compile's length
            if depths:
                depths.pop()
            return
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
                reasons=[first_reason_line(str(r)) for r in restarts],
            )
        )
    if m.get("fail_type"):
        state.out.failures.append(f"{escaped(str(m.get('fail_type')), one_line=True)}: {m.get('fail_reason')}")
        breaks.note_limit(state, ev, m)
        if not breaks.recompile_limit_hit(m):
            line = m.get("fail_user_frame_lineno")
            state.out.failed_compiles.append(
                FailedCompile(
                    compile_id=ev.compile_id or str(m.get("compile_id") or ""),
                    type=escaped(str(m.get("fail_type")), one_line=True),
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
        breaks.note_limit(state, ev, ev.metadata)
    state.metrics_s[ev.compile_id] += float(ev.metadata.get("inductor_compile_time_s") or 0.0)
    state.out.cudagraph_skips.extend(mode_events.cudagraph_skips(ev.metadata))


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
    "dynamo_graph_break_reason": breaks.on_graph_break,
    "recompile_reasons": breaks.on_recompile_reasons,
    "dynamo_cpp_guards_str": breaks.on_guard_tree,
    "dynamo_guards": breaks.on_guard_list,
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
