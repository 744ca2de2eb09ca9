"""Stage 2 of a profile: each compiled variant's first call under trace capture (compile latency,
graphs, graph breaks, kernels), never part of the steady-state samples.  The compiles seen after it
(recompiles) the later stages report through ``session.recompiles.note_recompiles``.

``compile_variants`` reads the session's target, options and counted calls, and fills its ``specs``
(``--sweep``), ``compiled`` (variant name -> counted call), ``variant_ops``, ``backends``,
``graphs_seen`` and ``kernel_builds``, and the run's variants, graphs, breaks and kernels.
"""

from __future__ import annotations

import time

import torch

from ...profile_run import Graph, Note, Variant
from ..common.device import device_sync
from ..common.errors import is_compile_error, let_go, one_line
from ..compiler.backend import RecordingBackend
from ..compiler.kernel_builds import KernelBuilds
from ..compiler.variants import VariantSpec, sweep_modes
from ..failure import compile_failure
from ..session.recompiles import note_recompile_limits
from ..session.session import Session
from ..trace.model import VariantTrace, build_variant_trace
from ..trace.reproducer import reproducer_script


def compile_variants(session: Session) -> None:
    if session.opts.sweep:  # the modes worth trying depend on the device the eager run used
        session.specs = session.opts.variant_specs(sweep_modes(session.run.device.type))
    for spec in session.specs:
        with session.clock(f"first call: {spec.name}"):
            _compile_one(session, spec)
    if session.calls.optimizers.record_compiled():
        session.run.notes.append(Note("optimizer_changed_by_compile"))


def _compile_one(session: Session, spec: VariantSpec) -> None:
    name = spec.name
    session.current = name
    session.progress(f"{name}: compiling")
    backend = RecordingBackend.for_variant(spec)
    variant = Variant(
        name=name,
        backend=spec.backend,
        mode=spec.mode or "default",
        dynamic=spec.dynamic,
        fullgraph=spec.fullgraph,
        options=dict(spec.options),
        torch_compile_call=spec.torch_compile_call(),
    )
    session.run.variants.append(variant)
    t = session.target
    session.recorder.take()
    try:
        compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
    except Exception as exc:  # noqa: BLE001 - e.g. an unknown backend name
        variant.error = one_line(exc)
        session.run.errors.append(session.error("compile", exc, variant=name))
        let_go(exc)
        return
    call = session.calls.compiled(compiled_fn, name)
    session.calls.reset(name)
    builds = KernelBuilds()
    builds.start()
    t0 = time.perf_counter()
    error: BaseException | None = None
    try:
        call()
        device_sync(session.run.device.type)()
    except Exception as exc:  # noqa: BLE001 - compile failures and compiled-only errors are results
        error = exc
    variant.first_call_s = time.perf_counter() - t0
    trace = build_variant_trace(session.recorder.take(), backend.graphs, variant=name, locator=t.locator)
    trace.cache.kernels_built = builds.built()
    trace.cache.state = trace.cache.derived_state()
    session.kernel_builds[name] = builds
    _merge_trace(session, variant, trace)
    if error is not None:
        variant.error = one_line(error)
        compile_error = is_compile_error(error)
        info = session.error("compile" if compile_error else "compiled run", error, variant=name)
        session.run.errors.append(info)
        if compile_error:
            compile_failure.describe(session, info, error)
            info.reproducer = reproducer_script(trace.runnable, info, trace.runnable_compile_id)
        let_go(error)
        if compile_error and spec.backend == "inductor" and info.compile_stage != "dynamo":
            compile_failure.try_aot_eager(session, spec, info)
        return
    session.variant_ops[name] = [
        op
        for g in trace.graphs
        if g.kind in ("aot_forward", "aot_inference", "aot_backward", "post_grad")
        for op in g.op_counts
    ]
    session.compiled[name] = call
    session.backends[name] = backend
    session.graphs_seen[name] = len(backend.graphs)


def _merge_trace(session: Session, variant: Variant, trace: VariantTrace) -> None:
    run = session.run
    run.graphs.extend(trace.graphs)
    run.graph_breaks.extend(trace.graph_breaks)
    run.recompiles.extend(trace.recompiles)
    note_recompile_limits(session, trace.recompiles)
    run.kernels.extend(trace.kernels)
    run.ddp_splits.extend(trace.ddp_splits)
    run.compiles.extend(trace.compiles)
    run.artifact_texts.update(trace.artifact_texts)
    variant.compile_s = trace.compile_s or None
    variant.compile_phases = trace.phases
    variant.compile_spans = trace.spans
    variant.cache_lookups = trace.cache_lookups
    variant.compile_restarts = trace.restarts
    variant.cache_state = trace.cache.state
    variant.autotune = trace.autotune
    variant.cudagraph_skips = list(dict.fromkeys(trace.cudagraph_skips))
    for key, value in trace.phases.items():
        run.compile_phases[key] = run.compile_phases.get(key, 0.0) + value
    run.cache.add(trace.cache)


def has_timed_variants(session: Session) -> bool:
    if not session.compiled:
        return False
    if not any(g.kind == "dynamo" for g in session.run.graphs):
        session.run.notes.append(Note("nothing_compiled"))
        return False
    return True


def dedupe_graphs(graphs: list[Graph]) -> list[Graph]:
    seen: dict[str, int] = {}
    out = []
    for g in graphs:
        n = seen.get(g.id, 0)
        seen[g.id] = n + 1
        if n:
            g.id = f"{g.id}#{n}"
        out.append(g)
    return out
