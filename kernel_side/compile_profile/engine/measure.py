"""The stages after compiling: interleaved timing, correctness against eager and a float64 reference,
peak memory, and the torch.profiler pass for per-kernel time (stages 3-6 of ``profiler``'s order).

``Measuring`` is a part of the profiling session (``profiler._Session`` derives from it); it reads
the session's ``target``, ``opts``, ``run_obj``, ``calls`` (every call of the cell, counted, and the
reset before it), ``compiled`` (variant name -> counted call), ``variant_ops``, ``mutable``,
``recorder``, ``specs``, ``progress`` and ``_current``, and its ``_note_recompiles`` and ``_error``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import torch

from ..profile_run import Note, NoteValue, Recommendation, Speedup
from . import correctness as correctness_mod
from . import distributed, host_load
from . import reference as reference_mod
from .failures import let_go, one_line
from .op_fallback import HighestPrecision
from .optimizer_state import OptimizerViews
from .reachable import named_tensors
from .replay import IteratorReplay, is_iterator
from .timing import (
    SETTLED_CALLS,
    TimedCallable,
    TimingPlan,
    calls_per_sample_for,
    device_sync,
    fastest,
    run_interleaved,
    speedup_interval,
    summarize_samples,
    warm_up,
)
from .torch_features import recompile_limit


class Measuring:
    def _time(self) -> None:
        self._current = "warm-up"
        device_type = self.run_obj.device.type
        plan = TimingPlan(
            warmup=self.opts.warmup,
            repeat=self.opts.repeat,
            min_samples=self.opts.min_samples,
            budget_s=self.opts.budget,
        )
        timed = [TimedCallable("eager", self.calls.eager, self._before("eager"))]
        timed += [TimedCallable(name, call, self._before(name)) for name, call in self.compiled.items()]
        self.progress("warming up")
        self.recorder.take()
        backends = self.backends
        settled = warm_up(
            timed,
            plan,
            device_sync(device_type),
            compiles=lambda name: len(backends[name].graphs) if name in backends else 0,
            # a frame recompiling on each call stops at the limit; calls without a compile come between
            settling_calls=(recompile_limit() + 1) * SETTLED_CALLS,
            decide=lambda more: bool(distributed.ranks_where_false(not more)),  # any rank compiled
        )
        self._note_recompiles(self.recorder.take(), during_timing=False)
        for name, extra in settled.items():
            if extra:
                values: dict[str, NoteValue] = {"extra_calls": extra, "settled_calls": SETTLED_CALLS}
                self.run_obj.notes.append(Note("warmup_kept_compiling", variant=name, values=values))
        self._stage_done("warm-up")
        self._current = "timing"
        number = distributed.shared(calls_per_sample_for(min(v.fastest_s for v in timed), device_type))
        self.progress(f"timing {len(timed)} variants, {number} call(s) per sample")
        last_report = [time.perf_counter()]

        def on_round(i: int) -> None:
            now = time.perf_counter()
            if now - last_report[0] > 0.5:
                last_report[0] = now
                self.progress(f"timing: round {i}")

        load = host_load.measure(threads=torch.get_num_threads() if device_type == "cpu" else 1)
        try:
            run_interleaved(
                timed,
                plan,
                device_type=device_type,
                calls_per_sample=number,
                on_round=on_round,
                decide=distributed.shared,
            )
            self._stage_done("timing")
        finally:
            self.run_obj.host_load = load()
            self._record_timings(timed, device_type)
            self._note_recompiles(self.recorder.take(), during_timing=True)

    def _record_timings(self, timed: list[TimedCallable], device_type: str) -> None:
        method = "cuda_events" if device_type == "cuda" else "host"
        by_name = {v.name: v for v in timed}
        for variant in self.run_obj.variants:
            tc = by_name.get(variant.name)
            if tc is not None and tc.samples_s:
                variant.timing = summarize_samples(tc.samples_s, method=method)
        eager = by_name["eager"]
        candidates = [by_name[n] for n in self.compiled if by_name[n].samples_s]
        if not eager.samples_s or not candidates:
            return
        best = fastest(candidates)
        value, low, high = speedup_interval(eager.samples_s, best.samples_s)
        self.run_obj.speedup = Speedup(value=value, low=low, high=high, variant=best.name)
        if self.opts.sweep:
            spec = next(s for s in self.specs if s.name == best.name)
            self.run_obj.recommendation = Recommendation(variant=best.name, call=spec.torch_compile_call("model"))

    def _before(self, name: str) -> Callable[[], None]:
        """Untimed preparation of a sample: tag trace events with the variant about to run."""
        recorder = self.recorder

        def prepare() -> None:
            recorder.context = name
            self.calls.reset(name)

        return prepare

    def _tagged(self, name: str, call: Callable[[], Any]) -> Callable[[], Any]:
        """``call`` with the trace events it causes tagged with its variant (a recompile after timing)."""
        recorder = self.recorder

        def tagged() -> Any:
            recorder.context = name
            return call()

        return tagged

    def _check_correctness(self) -> None:
        if not self.opts.check_correctness:
            return
        self._current = "correctness"
        self.progress("checking correctness")
        t = self.target
        mutated = self.mutable.save_mutated_since_creation() if self.mutable else 0
        if mutated:
            self.run_obj.notes.append(Note("state_restored", values={"tensors": mutated}))
        best = self.run_obj.speedup.variant if self.run_obj.speedup else next(iter(self.compiled))
        best = distributed.shared(best)  # each rank timed its own; rank 0's choice runs on all of them
        # What a step changes in place (weights, optimizer state) is compared as its outputs are: a compiled
        # step that returned the right loss and left the weights where they were read "ok" (review).
        state_compared = bool(mutated) and self.mutable.mutated_bytes <= correctness_mod.STATE_COMPARED_BYTES
        if mutated and not state_compared:
            values: dict[str, NoteValue] = {"tensors": mutated, "bytes": self.mutable.mutated_bytes}
            self.run_obj.notes.append(Note("state_not_compared", values=values))
        # The iterators the code draws from give every run below the same items (replay.py); where the code
        # cannot run on a replay, the runs draw as they would, and the second eager run tells what changed.
        names = reference_mod.names_read(t.function, t.globals)
        replay = IteratorReplay({name: t.globals[name] for name in names})
        not_replayed = [f"argument {i}" for i, a in enumerate(t.arguments()) if is_iterator(a)]
        not_replayed += replay.not_replayed
        replay_error = ""
        try:
            reference, results = self._correctness_runs(best, state_compared, replay)
        except Exception as exc:  # the code cannot run on a replay: again without one
            if not replay.names:
                raise
            let_go(exc)
            not_replayed += replay.names
            replay_error = one_line(exc)
            replay = IteratorReplay({})
            reference, results = self._correctness_runs(best, state_compared, replay)
        compiled_out, eager_out, rerun_out = results
        random_ops = correctness_mod.random_ops_in(self.variant_ops.get(best, []))
        correctness = correctness_mod.compare_outputs(
            eager_out,
            compiled_out,
            random_ops=random_ops,
            reference=reference.outputs,
            reference_note=reference.note,
            reference_method=reference.method,
            reference_float32_ops=reference.float32_ops,
            reference_fallback=reference.fallback,
            eager_rerun=rerun_out,
            inputs_may_change=bool(not_replayed),
        )
        correctness.replayed = [name for name, n in replay.drawn.items() if n]
        replay.finish()
        correctness.not_replayed, correctness.not_replayed_reason = not_replayed, replay_error
        self.run_obj.correctness = correctness

    def _correctness_runs(
        self, best: str, state_compared: bool, replay: IteratorReplay
    ) -> tuple[reference_mod.ReferenceRun, list[dict[str, Any]]]:
        """The reference run, then the compiled variant ``best``, eager, and eager again (which tells
        nondeterministic outputs and inputs that changed between runs), each from the same state, RNG seed
        and iterator items."""
        t = self.target
        self._restore_state()
        reference = self._float64_reference(state_compared, replay)
        results = []
        for name, call in ((best, self.compiled[best]), ("eager", self.calls.eager), ("eager", self.calls.eager)):
            self._restore_state()
            self._before(name)()
            with replay.run(t.globals), correctness_mod.same_rng(0):
                result = call()
            outputs = correctness_mod.snapshot(t.outputs(result))
            if state_compared:
                outputs.update(correctness_mod.in_place_outputs(self.mutable.after_run()))
            results.append(outputs)
        return reference, results

    def _restore_state(self) -> None:
        """Tensors the runs changed in place back as before the first compiled call (eager optimizer view)."""
        if self.mutable:
            self.calls.optimizers.install(OptimizerViews.EAGER)  # the view whose tensors MutableState saved
            self.mutable.restore()

    def _float64_reference(
        self, state_compared: bool = False, replay: IteratorReplay | None = None
    ) -> reference_mod.ReferenceRun:
        """The outputs of one eager run on float64 copies of what the code reads, at the highest precision
        that runs (float64; float64 with the ops that fail there in float32; float32 for float16/bfloat16
        code), or why there are none; with ``state_compared``, the copies of what it changes in place too,
        named as ``MutableState`` names them."""
        t = self.target
        if t.call_with_arguments is None:
            return reference_mod.ReferenceRun(None)
        if self.run_obj.distributed is not None:
            return reference_mod.ReferenceRun(None, note=Note("reference_distributed"))
        replay = replay if replay is not None else IteratorReplay({})
        names = reference_mod.names_read(t.function, t.globals)
        originals = {name: t.globals[name] for name in names}
        arguments = t.arguments()
        argument_keys = [f"argument {i}" for i in range(len(arguments))]
        recorded = reference_mod.versions([*originals.values(), *arguments])

        def run_at(precision: torch.dtype, mode: HighestPrecision | None) -> dict[str, Any]:
            self.calls.reset("eager")
            copies = reference_mod.float64_copies({**originals, **dict(zip(argument_keys, arguments))}, precision)
            swapped = {name: copies[name] for name in names if copies[name] is not originals[name]}
            # not through self.calls: not counted in cell_runs, which count the runs that advance the
            # notebook's own state
            with (
                reference_mod.substituted(t.globals, swapped),
                replay.run(t.globals, lambda item: reference_mod.copy_at(item, precision)),
                correctness_mod.same_rng(0),
                mode if mode is not None else contextlib.nullcontext(),
            ):
                result = t.call_with_arguments([copies[key] for key in argument_keys])
                outputs = correctness_mod.snapshot(t.outputs(result))
                if state_compared:
                    changed = set(self.mutable.compared_names)
                    outputs.update(
                        correctness_mod.in_place_outputs(
                            {
                                name: tensor.detach().clone()
                                for name, tensor in named_tensors(copies, container_depth=0).items()
                                if name in changed
                            }
                        )
                    )
            return outputs

        # float64 as it is; then with a dispatch mode that runs each op failing in float64 in float32
        # (torch._grouped_mm has no float64 kernel: a Mixtral-style MoE); then float32 copies, worth it only
        # for float16/bfloat16 code (a float32 copy of float32 code is eager again)
        failures: dict[str, str] = {}  # method -> the error the code met on its copies
        unavailable = ""  # why copies could not be made (memory, an object that cannot be copied)
        for method in ("float64", "mixed", "float32"):
            if method == "mixed" and "float64" not in failures:
                continue  # float64 copies could not be made: an op fallback cannot help
            if method == "float32" and not reference_mod.lower_than(torch.float32, [*originals.values(), *arguments]):
                break
            mode = HighestPrecision() if method == "mixed" else None
            outputs = None
            try:
                outputs = run_at(torch.float32 if method == "float32" else torch.float64, mode)
            except reference_mod.ReferenceUnavailable as exc:
                unavailable = unavailable or str(exc)
            except Exception as exc:  # noqa: BLE001 - the code may not run in float64 (e.g. it makes bf16 tensors)
                let_go(exc)
                failures[method] = one_line(exc)
            if reference_mod.changed(recorded):
                return reference_mod.ReferenceRun(None, note=Note("reference_changed_state"))
            if outputs is not None:
                float32_ops = list(mode.float32_ops) if mode is not None else []
                if method == "mixed" and not float32_ops:  # every op ran in float64 once the others were cast up
                    method = "float64"
                return reference_mod.ReferenceRun(
                    outputs,
                    method=method,
                    float32_ops=float32_ops,
                    fallback="" if method == "float64" else failures.get("float64") or unavailable,
                )
        values: dict[str, NoteValue] = {**failures, "unavailable": unavailable}
        return reference_mod.ReferenceRun(None, note=Note("reference_failed", values=values))

    def _measure_kernels(self) -> None:
        if not self.opts.kernel_timing:
            return
        self._current = "kernel timing"
        self.progress("profiling kernels")
        from .after_timing import measure_after_timing
        from .eager_profile import EagerCall

        t = self.target
        eager = EagerCall(
            call=self.calls.eager,
            before_each=lambda: self.calls.reset("eager"),
            code=getattr(t.function, "__code__", None),
            line_offset=t.locator.line_offset,
        )

        # the cell's own code raising in the pass (an iterator that ran out) stops the stages, as in the
        # timed runs (``profiler._Session._measure_stages``); the pass failing otherwise loses its figures only
        def cell_raised(exc: BaseException) -> bool:
            return self.calls.failed_call(exc) is not None

        try:
            tagged = {name: self._tagged(name, call) for name, call in self.compiled.items()}
            self.run_obj.errors.extend(
                measure_after_timing(
                    self.run_obj, tagged, lambda: self.calls.reset("compiled"), eager, cell_raised=cell_raised
                )
            )
        except Exception as exc:  # a failed profiler pass loses its figures, never the run
            if cell_raised(exc):
                raise
            self.run_obj.errors.append(self._error("kernel timing", exc))

    def _measure_memory(self) -> None:
        run = self.run_obj
        if run.device.type != "cuda":  # the digest says why there is no peak (``notes.memory_unmeasured_text``)
            return
        self._current = "memory"
        for variant in run.variants:
            call = self.calls.eager if variant.name == "eager" else self.compiled.get(variant.name)
            if call is None:
                continue
            self._before(variant.name)()
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            call()
            torch.cuda.synchronize()
            variant.peak_memory_bytes = int(torch.cuda.max_memory_allocated())
