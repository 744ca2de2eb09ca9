"""Stage 2 of a profile: each compiled variant's first call under trace capture (compile latency,
graphs, graph breaks, kernels), never part of the steady-state samples; and the compiles seen after
it (recompiles), which ``Measuring`` reports from warm-up and timing.

``Compiling`` is a part of the profiling session (``profiler._Session`` derives from it); it reads
the session's ``target``, ``opts``, ``run_obj``, ``calls``, ``recorder``, ``progress`` and ``_error``,
and fills ``specs``, ``compiled`` (variant name -> counted call), ``variant_ops``, ``backends``,
``graphs_seen`` and ``kernel_builds``.
"""

from __future__ import annotations

import time

import torch

from ..profile_run import Graph, Note, NoteValue, Recompile, Variant
from .backend import RecordingBackend
from .failures import is_compile_error, let_go, one_line
from .kernel_cache import KernelBuilds
from .timing import device_sync
from .trace_capture import TraceEvent
from .trace_model import build_variant_trace
from .variants import VariantSpec, sweep_modes


class Compiling:
    def _compile_variants(self) -> None:
        if self.opts.sweep:  # the modes worth trying depend on the device the eager run used
            self.specs = self.opts.variant_specs(sweep_modes(self.run_obj.device.type))
        for spec in self.specs:
            self._compile_one(spec)
        if self.calls.optimizers.record_compiled():
            self.run_obj.notes.append(Note("optimizer_changed_by_compile"))

    def _compile_one(self, spec: VariantSpec) -> None:
        name = spec.name
        self._current = name
        self.progress(f"{name}: compiling")
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
        self.run_obj.variants.append(variant)
        t = self.target
        self.recorder.take()
        try:
            compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
        except Exception as exc:  # noqa: BLE001 - e.g. an unknown backend name
            variant.error = one_line(exc)
            self.run_obj.errors.append(self._error("compile", exc, variant=name))
            let_go(exc)
            return
        call = self.calls.compiled(compiled_fn, name)
        self.calls.reset(name)
        builds = KernelBuilds()
        builds.start()
        t0 = time.perf_counter()
        error: BaseException | None = None
        try:
            call()
            device_sync(self.run_obj.device.type)()
        except Exception as exc:  # noqa: BLE001 - compile failures and compiled-only errors are results
            error = exc
        variant.first_call_s = time.perf_counter() - t0
        trace = build_variant_trace(self.recorder.take(), backend.graphs, variant=name, locator=t.locator)
        trace.cache.kernels_built = builds.built()
        trace.cache.state = trace.cache.derived_state()
        self.kernel_builds[name] = builds
        self._merge_trace(variant, trace)
        if error is not None:
            variant.error = one_line(error)
            self.run_obj.errors.append(
                self._error("compile" if is_compile_error(error) else "compiled run", error, variant=name)
            )
            let_go(error)
            return
        self.variant_ops[name] = [
            op
            for g in trace.graphs
            if g.kind in ("aot_forward", "aot_inference", "aot_backward", "post_grad")
            for op in g.op_counts
        ]
        self.compiled[name] = call
        self.backends[name] = backend
        self.graphs_seen[name] = len(backend.graphs)

    def _merge_trace(self, variant: Variant, trace) -> None:
        run = self.run_obj
        run.graphs.extend(trace.graphs)
        run.graph_breaks.extend(trace.graph_breaks)
        run.recompiles.extend(trace.recompiles)
        self._note_recompile_limits(trace.recompiles)
        run.kernels.extend(trace.kernels)
        run.ddp_splits.extend(trace.ddp_splits)
        variant.compile_s = trace.compile_s or None
        variant.compile_phases = trace.phases
        variant.cache_state = trace.cache.state
        variant.autotune = trace.autotune
        variant.cudagraph_skips = list(dict.fromkeys(trace.cudagraph_skips))
        for key, value in trace.phases.items():
            run.compile_phases[key] = run.compile_phases.get(key, 0.0) + value
        run.cache.add(trace.cache)

    def _has_timed_variants(self) -> bool:
        if not self.compiled:
            return False
        if not any(g.kind == "dynamo" for g in self.run_obj.graphs):
            self.run_obj.notes.append(Note("nothing_compiled"))
            return False
        return True

    def _note_recompiles(self, events: list[TraceEvent], *, during_timing: bool) -> None:
        """Compiles after a variant's first call: recompiles (guard failures) of that variant."""
        self.recorder.context = ""
        by_variant: dict[str, list[TraceEvent]] = {}
        for ev in events:
            by_variant.setdefault(ev.context, []).append(ev)
        for name, variant_events in by_variant.items():
            backend = self.backends.get(name)
            new_graphs = backend.graphs[self.graphs_seen[name] :] if backend else []
            if backend:
                self.graphs_seen[name] = len(backend.graphs)
            trace = build_variant_trace(variant_events, new_graphs, variant=name, locator=self.target.locator)
            if name in self.kernel_builds and (trace.recompiles or new_graphs):
                trace.cache.kernels_built = self.kernel_builds[name].built()
            self.run_obj.cache.add(trace.cache)
            for r in trace.recompiles:
                r.during_timing = during_timing
            if trace.compile_s and name in self.backends:
                v = self.run_obj.variant(name)
                v.recompile_s = (v.recompile_s or 0.0) + trace.compile_s
            self.run_obj.recompiles.extend(trace.recompiles)
            self._note_recompile_limits(trace.recompiles)
            self.run_obj.graphs.extend(trace.graphs)
            self.run_obj.kernels.extend(trace.kernels)
            self.run_obj.ddp_splits.extend(trace.ddp_splits)
            dynamo_graphs = [g for g in trace.graphs if g.kind == "dynamo"]
            if during_timing and (trace.recompiles or dynamo_graphs) and name in self.backends:
                self.run_obj.variant(name).recompiled_during_timing = True
                self.run_obj.notes.append(
                    Note("recompiled_during_timing", variant=name, values={"graphs": len(dynamo_graphs)})
                )

    def _note_recompile_limits(self, recompiles: list[Recompile]) -> None:
        for r in recompiles:
            if r.limit:
                values: dict[str, NoteValue] = {
                    "compile_id": r.compile_id,
                    "limit": r.limit,
                    "during_timing": r.during_timing,
                }
                self.run_obj.notes.append(Note("recompile_limit", variant=r.variant, values=values))


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
