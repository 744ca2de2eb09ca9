"""The compiles a variant's calls caused after its first call: recompiles, recorded into the run by every stage the
same way (the warm-up, the timed rounds, the sequence pass, a stage that failed; the first calls' own compiles are
``run.compile_stage``'s).

Contract: ``note_recompiles`` reads the trace events the calls' capture took (``session.recorder.take()``, tagged
with their variant by ``Session.before``/``Session.tagged``) and the graphs each variant's backend recorded since it
was last read (``Session.graphs_seen``), builds them into the run's recompiles, graphs, kernels and compile spans
(``trace.model.build_variant_trace``), and notes a recompile limit hit and a recompile during timing.
"""

from __future__ import annotations

from ...profile_run import Note, NoteValue, Recompile
from ..trace.capture import TraceEvent
from ..trace.model import build_variant_trace
from .session import Session


def note_recompiles(
    session: Session, events: list[TraceEvent], *, during_timing: bool, input: int | None = None
) -> dict[str, float]:
    """Compiles after a variant's first call: recompiles (guard failures) of that variant; ``input``, the input
    of a sequence whose call made them.  Returns the seconds each variant spent compiling in ``events``."""
    session.recorder.context = ""
    compile_s: dict[str, float] = {}
    by_variant: dict[str, list[TraceEvent]] = {}
    for ev in events:
        by_variant.setdefault(ev.context, []).append(ev)
    for name, variant_events in by_variant.items():
        backend = session.backends.get(name)
        new_graphs = backend.graphs[session.graphs_seen[name] :] if backend else []
        if backend:
            session.graphs_seen[name] = len(backend.graphs)
        trace = build_variant_trace(variant_events, new_graphs, variant=name, locator=session.target.locator)
        if name in session.kernel_builds and (trace.recompiles or new_graphs):
            trace.cache.kernels_built = session.kernel_builds[name].built()
        session.run.cache.add(trace.cache)
        for r in trace.recompiles:
            r.during_timing = during_timing
            r.input = input
        if name in session.backends:
            v = session.run.variant(name)
            compile_s[name] = trace.compile_s
            if trace.compile_s:
                v.recompile_s = (v.recompile_s or 0.0) + trace.compile_s
            v.compile_spans.extend(trace.spans)
            v.cache_lookups.extend(trace.cache_lookups)
            v.compile_restarts.extend(trace.restarts)
        session.run.recompiles.extend(trace.recompiles)
        note_recompile_limits(session, trace.recompiles)
        session.run.graphs.extend(trace.graphs)
        session.run.kernels.extend(trace.kernels)
        session.run.ddp_splits.extend(trace.ddp_splits)
        session.run.compiles.extend(trace.compiles)
        session.run.artifact_texts.update(trace.artifact_texts)
        dynamo_graphs = [g for g in trace.graphs if g.kind == "dynamo"]
        if during_timing and (trace.recompiles or dynamo_graphs) and name in session.backends:
            session.run.variant(name).recompiled_during_timing = True
            session.run.notes.append(
                Note("recompiled_during_timing", variant=name, values={"graphs": len(dynamo_graphs)})
            )
    return compile_s


def note_recompile_limits(session: Session, recompiles: list[Recompile]) -> None:
    for r in recompiles:
        if r.limit:
            values: dict[str, NoteValue] = {
                "compile_id": r.compile_id,
                "limit": r.limit,
                "during_timing": r.during_timing,
            }
            session.run.notes.append(Note("recompile_limit", variant=r.variant, values=values))
