"""The measuring core: run a target eagerly and under each compiled variant, and
assemble a ``ProfileRun``.

Order of work, chosen so each figure is measured cleanly:
  1. eager first call (the cell's real output; an error here stops everything);
  2. per compiled variant, the first call under trace capture (compile latency,
     graphs, breaks, kernels) — never part of the steady-state samples;
  3. warm-up, then interleaved timed rounds (capture stays on to catch recompiles);
  4. correctness (same RNG seed and same in-place state for eager and compiled);
  5. peak memory (CUDA only);
  6. a separate torch.profiler pass for per-kernel time (``after_timing``), so its
     overhead never touches the timed samples.
An interrupt at any point keeps what was measured and marks the run.
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import io
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..profile_run import (
    Device,
    ErrorInfo,
    Graph,
    ProfileRun,
    Recommendation,
    Speedup,
    Variant,
)
from . import correctness as correctness_mod
from . import reference as reference_mod
from .backend import RecordingBackend, register
from .cell import CellFunction, cell_line_of_exception, cell_to_function
from .dynamo_state import DynamoCodeTracker
from .kept import kept_tensors
from .optimizer_state import OptimizerViews, optimizers_in
from .stack import parse_frames
from .torch_features import logs_post_grad_graph_on_cache_hit, missing_features_note
from .timing import (
    TimedCallable,
    TimingPlan,
    calls_per_sample_for,
    device_sync,
    priming_calls,
    run_interleaved,
    speedup_interval,
    summarize_samples,
    warm_up,
)
from .trace_capture import TraceEvent, TraceRecorder, capture_compiles
from .trace_model import CellLocator, build_variant_trace
from .variants import VariantSpec, build_variants, sweep_modes

Progress = Callable[[str], None]

_PHASE_TEXT = {
    "entire_frame_compile": "Dynamo: tracing bytecode",  # opens with tracing; torch 2.6 has no bytecode_tracing span
    "bytecode_tracing": "Dynamo: tracing bytecode",
    "backend_compile": "backend compile",
    "create_aot_dispatcher_function": "AOTAutograd: building forward/backward graphs",
    "compile_fx_inner": "Inductor: lowering",
    "GraphLowering.codegen": "Inductor: generating code",
    "async_compile.wait": "compiling kernels",
    "compile_file": "compiling C++",
}

# max-autotune's spans are named after the op they tune ("mm_template_autotuning"); on a GPU they
# can take minutes, so the progress line names them.
_AUTOTUNE_SPAN = re.compile(r'"name": "(\w+?)_template_(autotuning|precompiling)"')


def phase_text(ev: TraceEvent) -> str | None:
    """What the progress line says when a compile phase starts, from its chromium begin event."""
    if ev.name != "chromium_event" or not ev.payload or '"ph": "B"' not in ev.payload:
        return None
    for key, text in _PHASE_TEXT.items():
        if f'"name": "{key}"' in ev.payload:
            return text
    autotune = _AUTOTUNE_SPAN.search(ev.payload)
    if autotune:
        op, stage = autotune.groups()
        return f"max-autotune: {'benchmarking' if stage == 'autotuning' else 'compiling'} {op} candidates"
    return None


@dataclass
class ProfileOptions:
    backend: str = "inductor"
    modes: list[str] | None = None
    dynamic: bool | None = None
    fullgraph: bool = False
    options: dict[str, Any] | None = None
    sweep: bool = False
    warmup: int = 2
    repeat: int = 100
    min_samples: int = 5
    budget: float = 3.0
    label: str = ""
    notebook: str = ""
    check_correctness: bool = True
    keep: list[str] | None = None  # a cell's names that stay after it (default: all it assigns); the rest are temporaries
    kernel_timing: bool = True  # the torch.profiler pass after timing: per-kernel time, roofline
    progress: Progress | None = None
    # Silences what the frontend shows from a run (rich display output) after the first eager run,
    # which shows it once; the engine itself drops stdout and, from timing on, stderr of later runs.
    quiet_display: Callable[[], contextlib.AbstractContextManager] | None = None


@dataclass
class Target:
    """What to profile: an eager call, the function to compile, and how to read results."""

    eager_call: Callable[[], Any]
    function: Callable[..., Any]
    call_compiled: Callable[[Callable[..., Any]], Any]
    locator: CellLocator
    source: str
    before_each: Callable[[], None] = lambda: None
    outputs: Callable[[Any], dict[str, Any]] = lambda result: {"<result>": result}
    namespace: dict[str, Any] = field(default_factory=dict)
    inputs: tuple = ()  # the arguments of a profiled function, if any
    globals: dict[str, Any] = field(default_factory=dict)  # where the code's global names are read from
    cell: CellFunction | None = None  # a notebook cell's function, for what it keeps
    arguments: Callable[[], list[Any]] = list  # what the eager call passes to ``function``
    call_with_arguments: Callable[[list[Any]], Any] | None = None  # the eager call with other arguments


@dataclass
class ProfileResult:
    run: ProfileRun
    stdout: str = ""  # what the first eager run printed (later runs' output is dropped)
    interrupted: BaseException | None = None
    last_eager_result: Any = None  # the return value of the last eager run, if any succeeded
    has_eager_result: bool = False
    eager_error: BaseException | None = None  # what stopped the first eager run, if anything


def profile(fn: Callable[..., Any], *args: Any, **options: Any) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``.

    Options: backend, modes (or mode), dynamic, fullgraph, options, sweep,
    warmup, repeat, budget, label, check_correctness, progress.
    """
    if "mode" in options:
        options["modes"] = options.pop("mode")
    if isinstance(options.get("modes"), str):  # one mode, not its letters
        options["modes"] = [options["modes"]]
    if options.get("keep") is not None:
        raise TypeError("keep= applies to notebook cells (%%compile_profile --keep NAMES); "
                        "a function's results are what it returns")
    opts = ProfileOptions(**options)
    code = getattr(fn, "__code__", None)
    try:
        source_lines, first = inspect.getsourcelines(fn)
        source = "".join(source_lines)
    except (OSError, TypeError):
        source, first = "", 1
    locator = CellLocator(
        filename=code.co_filename if code else "",
        lines=source.splitlines(),
        line_offset=-(first - 1),
    )
    target = Target(
        eager_call=lambda: fn(*args),
        function=fn,
        call_compiled=lambda compiled: compiled(*args),
        locator=locator,
        source=source,
        inputs=args,
        globals=getattr(fn, "__globals__", {}),
        arguments=lambda: list(args),
        call_with_arguments=lambda arguments: fn(*arguments),
    )
    result = profile_target(target, opts)
    if result.stdout:
        sys.stdout.write(result.stdout)
    return result.run


def profile_cell(
    body: str,
    user_ns: dict[str, Any],
    opts: ProfileOptions,
    *,
    source: str | None = None,
    line_offset: int = 0,
) -> tuple[ProfileResult, CellFunction]:
    """Profile a notebook cell; the caller commits ``CellFunction`` values to the namespace."""
    cell = cell_to_function(body, user_ns, source=source, line_offset=line_offset, keep=opts.keep)
    locator = CellLocator(filename=cell.filename, lines=cell.source.splitlines())
    target = Target(
        eager_call=cell,
        function=cell.fn,
        call_compiled=cell.call_with,
        before_each=cell.restore_namespace,
        locator=locator,
        source=cell.source,
        outputs=cell.outputs,
        namespace=user_ns,
        globals=user_ns,
        arguments=cell.arguments,
        call_with_arguments=lambda arguments: cell.call_with(lambda *_: cell.fn(*arguments)),
        cell=cell,
    )
    try:
        return profile_target(target, opts), cell
    finally:
        cell.restore_locals()


def profile_target(target: Target, opts: ProfileOptions) -> ProfileResult:
    register()
    specs = build_variants(
        backend=opts.backend, modes=opts.modes, dynamic=opts.dynamic, fullgraph=opts.fullgraph, options=opts.options
    )
    return _Session(target, opts, specs).run()


class _Session:
    def __init__(self, target: Target, opts: ProfileOptions, specs: list[VariantSpec]):
        self.target = target
        self.opts = opts
        self.specs = specs
        self.progress = opts.progress or (lambda message: None)
        self.run_obj = ProfileRun(
            id=ProfileRun.new_id(),
            created_at=ProfileRun.now(),
            label=opts.label,
            cell_source=target.source,
            device=Device(type="cpu", name=_cpu_name()),
            torch_version=torch.__version__,
            notebook=opts.notebook,
        )
        self.stdout = io.StringIO()
        self.first_stdout = ""
        self.compiled: dict[str, Callable[[], Any]] = {}
        self.variant_ops: dict[str, list[str]] = {}
        self.recorder = TraceRecorder()
        self.recorder.on_event = self._on_trace_event
        self._current = ""
        self._last_eager: tuple[Any] | None = None
        self.eager_error: BaseException | None = None
        self.backends: dict[str, RecordingBackend] = {}
        self.graphs_seen: dict[str, int] = {}  # graphs each backend had recorded when last read
        self.optimizers = OptimizerViews([])

    def _eager(self) -> Any:
        result = self.target.eager_call()
        self._last_eager = (result,)
        return result

    # -- driver ------------------------------------------------------------
    def run(self) -> ProfileResult:
        run = self.run_obj
        interrupted: BaseException | None = None
        tracker = DynamoCodeTracker(getattr(self.target.function, "__globals__", None))
        try:
            with capture_compiles(self.recorder), contextlib.ExitStack() as quiet:
                with contextlib.redirect_stdout(self.stdout):
                    self._eager_first()
                    if run.status != "failed":
                        if self.opts.quiet_display is not None:
                            quiet.enter_context(self.opts.quiet_display())
                        self._compile_variants()  # stderr stays: torch's warnings while compiling are news
                        if self._has_timed_variants():
                            # A tqdm bar or a print to stderr in the cell would show once per run.
                            quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
                            self._time()
                            self._check_correctness()
                            self._measure_memory()
                            self._measure_kernels()
        except KeyboardInterrupt as exc:
            interrupted = exc
            run.status = "interrupted"
            # While compiling, _current is the variant's name: report it as the compile stage of that variant.
            compiling = self._current in {v.name for v in run.compiled_variants}
            stage, variant = ("compile", self._current) if compiling else (self._current or "profile", "")
            run.errors.append(ErrorInfo(stage=stage, variant=variant, message="interrupted by the user",
                                        type="KeyboardInterrupt"))
        finally:
            tracker.release_new_entries()
        self._finish()
        return ProfileResult(
            run=run,
            stdout=self.first_stdout,
            interrupted=interrupted,
            last_eager_result=self._last_eager[0] if self._last_eager else None,
            has_eager_result=self._last_eager is not None,
            eager_error=self.eager_error,
        )

    # -- stages ------------------------------------------------------------
    def _eager_first(self) -> None:
        self._current = "eager"
        self.progress("eager: first run")
        t = self.target
        t.before_each()
        start_len = self.stdout.tell()
        t0 = time.perf_counter()
        try:
            result = self._eager()
            device_sync(_device_type())()
        except Exception as exc:  # noqa: BLE001 - the user's code raised: report it with the cell line
            self.eager_error = exc
            self.run_obj.status = "failed"
            self.run_obj.errors.append(self._error("eager", exc))
            self.run_obj.variants.append(Variant(name="eager", error=_one_line(exc)))
            self.first_stdout = self.stdout.getvalue()[start_len:]
            return
        first_s = time.perf_counter() - t0
        self.run_obj.cell_runs += 1
        self.first_stdout = self.stdout.getvalue()[start_len:]
        self.first_outputs = t.outputs(result)
        used = _named_values_used(t.function, self.first_outputs)
        tensor_devices = _tensor_device_types([*used.values(), *t.inputs])
        self.run_obj.device = _device(run_device_type(tensor_devices, fallback=_device_type()))
        if t.cell is not None:
            self.run_obj.kept_names, self.run_obj.temporaries = list(t.cell.kept), list(t.cell.temporaries)
            self.run_obj.kept_tensors = kept_tensors(t.cell.intermediates, self.first_outputs,
                                                     self.run_obj.device.type)
        already_compiled = _compiled_callables(used)
        if already_compiled:
            names = ", ".join(already_compiled)
            self.run_obj.notes.append(
                f"the cell calls {names}, already wrapped by torch.compile: the eager variant runs compiled code, "
                "so the speedup compares compiled with compiled; profile the uncompiled module or function "
                "(an OptimizedModule's _orig_mod) to see what compiling buys"
            )
        t.before_each()  # the namespace as the cell found it, without what the run published
        self.optimizers = OptimizerViews(optimizers_in([*used.values(), *t.inputs]))
        self.mutable = correctness_mod.MutableState(t.namespace) if t.namespace else None
        self.run_obj.variants.append(Variant(name="eager", first_call_s=first_s))

    def _compile_variants(self) -> None:
        if self.opts.sweep:  # the modes worth trying depend on the device the eager run used
            self.specs = build_variants(backend=self.opts.backend, modes=sweep_modes(self.run_obj.device.type),
                                        dynamic=self.opts.dynamic, fullgraph=self.opts.fullgraph,
                                        options=self.opts.options)
        for spec in self.specs:
            self._compile_one(spec)
        if self.optimizers.record_compiled():
            self.run_obj.notes.append(
                "compiling changed the optimizer, as torch.compile does in any notebook (Dynamo moves its step "
                "counters to the device, and may set capturable=True): eager calls ran with the optimizer as the "
                "eager run left it, compiled calls as Dynamo made it, and it is left as after an eager run"
            )

    def _compile_one(self, spec: VariantSpec) -> None:
        name = spec.name
        self._current = name
        self.progress(f"{name}: compiling")
        backend = RecordingBackend(inner=spec.backend, mode=spec.mode, options=dict(spec.options) or None,
                                   dynamic=spec.dynamic)
        variant = Variant(
            name=name, backend=spec.backend, mode=spec.mode or "default", dynamic=spec.dynamic,
            fullgraph=spec.fullgraph, options=dict(spec.options), torch_compile_call=spec.torch_compile_call(),
        )
        self.run_obj.variants.append(variant)
        t = self.target
        self.recorder.take()
        try:
            compiled_fn = torch.compile(t.function, backend=backend, dynamic=spec.dynamic, fullgraph=spec.fullgraph)
        except Exception as exc:  # noqa: BLE001 - e.g. an unknown backend name
            variant.error = _one_line(exc)
            self.run_obj.errors.append(self._error("compile", exc, variant=name))
            _let_go(exc)
            return
        self._prepare(name)
        t0 = time.perf_counter()
        error: BaseException | None = None
        try:
            t.call_compiled(compiled_fn)
            device_sync(self.run_obj.device.type)()
        except Exception as exc:  # noqa: BLE001 - compile failures and compiled-only errors are results
            error = exc
        variant.first_call_s = time.perf_counter() - t0
        self.run_obj.cell_runs += 1
        trace = build_variant_trace(self.recorder.take(), backend.graphs, variant=name, locator=t.locator)
        self._merge_trace(variant, trace)
        if error is not None:
            variant.error = _one_line(error)
            self.run_obj.errors.append(self._error("compile" if _is_compile_error(error) else "compiled run",
                                                   error, variant=name))
            _let_go(error)
            return
        self.variant_ops[name] = [op for g in trace.graphs if g.kind in ("aot_forward", "aot_inference",
                                                                         "aot_backward", "post_grad")
                                  for op in g.op_counts]
        self.compiled[name] = lambda fn=compiled_fn: t.call_compiled(fn)
        self.backends[name] = backend
        self.graphs_seen[name] = len(backend.graphs)

    def _merge_trace(self, variant: Variant, trace) -> None:
        run = self.run_obj
        run.graphs.extend(trace.graphs)
        run.graph_breaks.extend(trace.graph_breaks)
        run.recompiles.extend(trace.recompiles)
        run.kernels.extend(trace.kernels)
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
            self.run_obj.notes.append(
                "nothing was compiled: the cell ran no torch operations that Dynamo could capture, "
                "so compiled and eager run the same code"
            )
            return False
        return True

    def _time(self) -> None:
        self._current = "timing"
        device_type = self.run_obj.device.type
        plan = TimingPlan(warmup=self.opts.warmup, repeat=self.opts.repeat, min_samples=self.opts.min_samples,
                          budget_s=self.opts.budget)
        timed = [TimedCallable("eager", self._eager, self._before("eager"))]
        timed += [TimedCallable(name, call, self._before(name)) for name, call in self.compiled.items()]
        self.progress("warming up")
        self.recorder.take()
        fastest = warm_up(timed, plan, device_sync(device_type))
        self._note_recompiles(self.recorder.take(), during_timing=False)
        number = calls_per_sample_for(min(fastest.values()), device_type)
        self.progress(f"timing {len(timed)} variants, {number} call(s) per sample")
        last_report = [time.perf_counter()]

        def on_round(i: int) -> None:
            now = time.perf_counter()
            if now - last_report[0] > 0.5:
                last_report[0] = now
                self.progress(f"timing: round {i}")

        try:
            run_interleaved(timed, plan, device_type=device_type, calls_per_sample=number, on_round=on_round)
        finally:
            per_sample = number + priming_calls(device_type)
            runs = sum(len(v.samples_s) for v in timed) * per_sample + max(1, plan.warmup) * len(timed)
            self.run_obj.cell_runs += runs
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
        best = min(candidates, key=lambda v: sorted(v.samples_s)[len(v.samples_s) // 2])
        value, low, high = speedup_interval(eager.samples_s, best.samples_s)
        self.run_obj.speedup = Speedup(value=value, low=low, high=high, variant=best.name)
        if self.opts.sweep:
            spec = next(s for s in self.specs if s.name == best.name)
            self.run_obj.recommendation = Recommendation(
                variant=best.name,
                call=spec.torch_compile_call("model"),
                reason=f"fastest compiled variant: {value:.2f}× eager (95% CI {low:.2f}–{high:.2f})",
            )

    def _before(self, name: str) -> Callable[[], None]:
        """Untimed preparation of a sample: tag trace events with the variant about to run."""
        recorder = self.recorder

        def prepare() -> None:
            recorder.context = name
            self._prepare(name)

        return prepare

    def _prepare(self, name: str) -> None:
        """Before a call of variant ``name``: the namespace as the cell found it, optimizers as that variant sees them."""
        self.target.before_each()
        self.optimizers.install(OptimizerViews.EAGER if name == "eager" else OptimizerViews.COMPILED)

    def _note_recompiles(self, events: list[TraceEvent], *, during_timing: bool) -> None:
        """Compiles after a variant's first call: recompiles (guard failures) of that variant."""
        self.recorder.context = ""
        by_variant: dict[str, list[TraceEvent]] = {}
        for ev in events:
            by_variant.setdefault(ev.context, []).append(ev)
        for name, variant_events in by_variant.items():
            backend = self.backends.get(name)
            new_graphs = backend.graphs[self.graphs_seen[name]:] if backend else []
            if backend:
                self.graphs_seen[name] = len(backend.graphs)
            trace = build_variant_trace(variant_events, new_graphs, variant=name, locator=self.target.locator)
            for r in trace.recompiles:
                r.during_timing = during_timing
            self.run_obj.recompiles.extend(trace.recompiles)
            self.run_obj.graphs.extend(trace.graphs)
            self.run_obj.kernels.extend(trace.kernels)
            dynamo_graphs = [g for g in trace.graphs if g.kind == "dynamo"]
            if during_timing and (trace.recompiles or dynamo_graphs) and name in self.backends:
                self.run_obj.variant(name).recompiled_during_timing = True
                self.run_obj.notes.append(
                    f"{name}: Dynamo compiled again during the timed runs ({len(dynamo_graphs)} graph(s)); "
                    "those samples include compile time"
                )

    def _check_correctness(self) -> None:
        if not self.opts.check_correctness:
            return
        self._current = "correctness"
        self.progress("checking correctness")
        t = self.target
        mutated = self.mutable.save_mutated_since_creation() if self.mutable else 0
        if mutated:
            self.run_obj.notes.append(
                f"the cell changes {mutated} tensor(s) in place (e.g. an optimizer step); they were restored "
                "before each correctness run, and the namespace ends as after the last run"
            )
        best = self.run_obj.speedup.variant if self.run_obj.speedup else next(iter(self.compiled))
        self._restore_state()
        reference, reference_note = self._float64_reference()
        results = []
        for name, call in ((best, self.compiled[best]), ("eager", self._eager)):
            self._restore_state()
            self._prepare(name)
            with correctness_mod.same_rng(0):
                result = call()
            self.run_obj.cell_runs += 1
            results.append(correctness_mod.snapshot(t.outputs(result)))
        compiled_out, eager_out = results
        random_ops = correctness_mod.random_ops_in(self.variant_ops.get(best, []))
        self.run_obj.correctness = correctness_mod.compare_outputs(
            eager_out, compiled_out, random_ops=random_ops, reference=reference, reference_note=reference_note)

    def _restore_state(self) -> None:
        """Tensors the runs changed in place back as before the first compiled call (eager optimizer view)."""
        if self.mutable:
            self.optimizers.install(OptimizerViews.EAGER)  # the view whose tensors MutableState saved
            self.mutable.restore()

    def _float64_reference(self) -> tuple[dict[str, Any] | None, str]:
        """The outputs of one eager run on float64 copies of what the code reads, or why there are none."""
        t = self.target
        if t.call_with_arguments is None:
            return None, ""
        self._prepare("eager")
        names = reference_mod.names_read(t.function, t.globals)
        originals = {name: t.globals[name] for name in names}
        arguments = t.arguments()
        argument_keys = [f"argument {i}" for i in range(len(arguments))]
        recorded = reference_mod.versions([*originals.values(), *arguments])
        try:
            copies = reference_mod.float64_copies({**originals, **dict(zip(argument_keys, arguments))})
            swapped = {name: copies[name] for name in names if copies[name] is not originals[name]}
            # not counted in cell_runs, which count the runs that advance the notebook's own state
            with reference_mod.substituted(t.globals, swapped), correctness_mod.same_rng(0):
                result = t.call_with_arguments([copies[key] for key in argument_keys])
                outputs = correctness_mod.snapshot(t.outputs(result))
        except reference_mod.ReferenceUnavailable as exc:
            return None, f"no float64 reference: {exc}"
        except Exception as exc:  # noqa: BLE001 - the code may not run in float64 (e.g. it makes bf16 tensors)
            _let_go(exc)
            return None, f"no float64 reference: the code failed on float64 copies ({_one_line(exc)})"
        if reference_mod.changed(recorded):
            return None, ("no float64 reference: the float64 run changed the notebook's own tensors (the code "
                          "reaches them through an object that was not copied)")
        return outputs, ""

    def _measure_kernels(self) -> None:
        if not self.opts.kernel_timing:
            return
        self._current = "kernel timing"
        self.progress("profiling kernels")
        from .after_timing import measure_after_timing

        try:
            self.run_obj.errors.extend(measure_after_timing(self.run_obj, self.compiled,
                                                            lambda: self._prepare("compiled")))
        except Exception as exc:  # noqa: BLE001 - a failed profiler pass loses its figures, never the run
            self.run_obj.errors.append(self._error("kernel timing", exc))
        # as after _measure_memory, the namespace ends as after an eager run
        self._prepare("eager")
        self._eager()
        self.run_obj.cell_runs += 1

    def _measure_memory(self) -> None:
        run = self.run_obj
        if run.device.type != "cuda":
            run.memory_note = "peak memory is measured on CUDA devices only; this run was on CPU"
            return
        self._current = "memory"
        for variant in run.variants:
            call = self._eager if variant.name == "eager" else self.compiled.get(variant.name)
            if call is None:
                continue
            self._prepare(variant.name)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            call()
            torch.cuda.synchronize()
            run.cell_runs += 1
            variant.peak_memory_bytes = int(torch.cuda.max_memory_allocated())
        # the namespace ends as after an eager run
        self._prepare("eager")
        self._eager()
        run.cell_runs += 1

    def _finish(self) -> None:
        run = self.run_obj
        if run.kernels and (missing := missing_features_note()):
            run.notes.append(missing)
        if run.cache.fx_graph_hits and not logs_post_grad_graph_on_cache_hit():
            run.notes.append(f"torch {torch.__version__} does not log the post-grad graph it loads from Inductor's "
                             "cache, so cache hits show no post-grad graph; torch 2.8 and later do")
        if run.status == "ok" and run.compiled_variants and not self.compiled:
            run.status = "failed"  # every compiled variant failed; eager results are still reported
        run.graphs = _dedupe_graphs(run.graphs)

    # -- helpers -------------------------------------------------------------
    def _on_trace_event(self, ev: TraceEvent) -> None:
        text = phase_text(ev)
        if text:
            self.progress(f"{self._current}: {text}")

    def _error(self, stage: str, exc: BaseException, *, variant: str = "") -> ErrorInfo:
        locator = self.target.locator
        line = cell_line_of_exception(exc, locator.filename)
        if line is not None:
            line += locator.line_offset
        else:  # Dynamo's errors carry the user's frames in their message ("from user code: ...")
            line = locator.innermost_cell_line(parse_frames(str(exc)))
        return ErrorInfo(
            stage=stage,
            message=_one_line(exc),
            type=type(exc).__name__,
            variant=variant,
            line=line,
            traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        )


def _dedupe_graphs(graphs: list[Graph]) -> list[Graph]:
    seen: dict[str, int] = {}
    out = []
    for g in graphs:
        n = seen.get(g.id, 0)
        seen[g.id] = n + 1
        if n:
            g.id = f"{g.id}#{n}"
        out.append(g)
    return out


def _one_line(exc: BaseException) -> str:
    inner = getattr(exc, "inner_exception", None)
    if isinstance(inner, BaseException):
        # BackendCompilerFailed's first line only names our wrapper ("backend='compile_profile' raised:");
        # the backend's own exception says what went wrong.
        return _one_line(inner)
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _named_values_used(fn: Callable[..., Any], outputs: dict[str, Any]) -> dict[str, Any]:
    """The values of the names the profiled code reads or assigns (its globals and what it returned)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return dict(outputs)
    values = {**getattr(fn, "__globals__", {}), **outputs}
    return {name: values[name] for name in set(code.co_names) | set(code.co_varnames) if name in values} | outputs


def _tensor_device_types(values: list[Any]) -> set[str]:
    """Device types of the tensors among ``values``: tensors, modules' parameters and buffers,
    and tensors one container deep."""
    found: set[str] = set()
    for value in values:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, torch.Tensor):
                found.add(item.device.type)
            elif isinstance(item, torch.nn.Module):
                found.update(t.device.type for t in [*item.parameters(), *item.buffers()])
    return found


def run_device_type(tensor_devices: set[str], *, fallback: str) -> str:
    """Where the profiled code ran: CUDA if it used a CUDA tensor, CPU if it used only CPU tensors
    (also on a machine with a GPU in use elsewhere), else the fallback."""
    if "cuda" in tensor_devices:
        return "cuda"
    if "cpu" in tensor_devices:
        return "cpu"
    return fallback


def _compiled_callables(named_values: dict[str, Any]) -> list[str]:
    """The names that hold something torch.compile already wrapped."""
    return sorted(
        name for name, value in named_values.items()
        if isinstance(value, torch._dynamo.eval_frame.OptimizedModule) or hasattr(value, "_torchdynamo_orig_callable")
    )


def _let_go(exc: BaseException) -> None:
    """Free what a failed compiled call allocated, now rather than at some later garbage collection.

    The traceback's frames keep the failed call's locals alive (after an out-of-memory error, the
    very tensors that filled the device), and the frame that caught the exception closes a
    reference cycle through it that only the cycle collector breaks. After an out-of-memory
    error the allocator's cached blocks also go back to the driver, so the user's next cell and
    other processes on the GPU can have them.
    """
    traceback.clear_frames(exc.__traceback__)
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        gc.collect()
        torch.cuda.empty_cache()


def _is_compile_error(exc: BaseException) -> bool:
    from torch._dynamo.exc import BackendCompilerFailed, TorchDynamoException

    return isinstance(exc, (BackendCompilerFailed, TorchDynamoException))


def _device_type() -> str:
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        return "cuda"
    return "cpu"


def _device(device_type: str) -> Device:
    if device_type == "cuda":
        return Device(type="cuda", name=torch.cuda.get_device_name(), count=torch.cuda.device_count())
    return Device(type="cpu", name=_cpu_name(), count=torch.get_num_threads())


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "cpu"


__all__ = ["ProfileOptions", "ProfileResult", "Target", "profile", "profile_cell", "profile_target"]
