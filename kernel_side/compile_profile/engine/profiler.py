"""The measuring core: run a target eagerly and under each compiled variant, and
assemble a ``ProfileRun``.

Order of work, chosen so each figure is measured cleanly:
  1. eager first call (the cell's real output; an error here stops everything);
  2. per compiled variant, the first call under trace capture (compile latency,
     graphs, breaks, kernels) — never part of the steady-state samples;
  3. warm-up, then interleaved timed rounds (capture stays on to catch recompiles);
  4. correctness (same RNG seed and same in-place state for eager and compiled);
  5. peak memory (CUDA only);
  6. a separate torch.profiler pass per variant for kernel time by kind, per kernel (compiled)
     and per cell line (eager) (``after_timing``), so its overhead never touches the timed samples.
An interrupt at any point keeps what was measured and marks the run.  So does a failure in a stage
after the first calls (stages 3-6, and the last eager run below): the cell's code raising on a later
run (an iterator it reads ran out, a list it empties) or a stage of the profiler's own failing becomes
an ``ErrorInfo`` naming the stage, the variant and which run of the cell raised, and the stages after
it do not run.

The namespace and the cell's value (``Out``) come from one eager run, and so does its printed output:
after the stages, a last eager run replays the first run's random draws (``random_state``), and its
values are kept; where a stage failed or an interrupt came, the first eager run's are.  Afterwards the
random generators stand where one plain run of the cell leaves them.  In a ``torch.distributed``
job every rank runs these stages in lock-step (``distributed``): the same calls in the same order,
each decision a measurement makes shared, and a rank stops where any rank's first calls failed.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ..profile_run import OTHER_RANK_FAILED, Device, ErrorInfo, Note, ProfileRun, Variant
from . import correctness as correctness_mod
from . import distributed
from .backend import RecordingBackend, register
from .cell import CellFunction, cell_line_of_exception, cell_to_function
from .cell_calls import CellCalls
from .compile_stage import Compiling, dedupe_graphs
from .device import cpu_name, current_device_type, device, run_device_type
from .dynamo_state import DynamoCodeTracker
from .failures import error_info, is_compile_error, let_go, one_line
from .kept import kept_tensors
from .kernel_cache import KernelBuilds
from .measure import Measuring
from .optimizer_state import OptimizerViews, optimizers_in
from .options import OptionError, ProfileOptions
from .random_state import RandomState
from .reachable import device_types
from .stack import parse_frames
from .timing import device_sync
from .torch_features import logs_post_grad_graph_on_cache_hit, missing_features
from .trace_capture import TraceEvent, TraceRecorder, capture_compiles
from .trace_model import CellLocator
from .variants import VariantSpec

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
_AUTOTUNE_SPAN = re.compile(r"(\w+?)_template_(autotuning|precompiling)")


def phase_text(ev: TraceEvent) -> str | None:
    """What the progress line says when a compile phase starts, from its chromium begin event."""
    span = ev.chromium
    if span is None or span.phase != "B":
        return None
    if span.name in _PHASE_TEXT:
        return _PHASE_TEXT[span.name]
    autotune = _AUTOTUNE_SPAN.match(span.name)
    if autotune:
        op, stage = autotune.groups()
        return f"max-autotune: {'benchmarking' if stage == 'autotuning' else 'compiling'} {op} candidates"
    return None


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
    # What the eager run whose values the namespace keeps returned (for a cell: its value and kept
    # names): the last run, which replayed the first one's random draws, or the first run itself when
    # a stage after the first calls failed or was interrupted
    eager_result: Any = None
    has_eager_result: bool = False
    kept_run: str = "last"  # which eager run ``eager_result`` is: "first" or "last"
    eager_error: BaseException | None = None  # what stopped the first eager run, if anything


def profile(fn: Callable[..., Any], *args: Any, **options: Any) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``.

    Options are ``ProfileOptions``' fields (``mode`` for ``modes``): backend, modes, dynamic, fullgraph,
    options, sweep, warmup, repeat, budget, label, check_correctness, progress.  What the magic refuses
    is refused here with the same message (``OptionError``).
    """
    if "mode" in options:
        options["modes"] = options.pop("mode")
    if options.get("keep") is not None:
        raise TypeError(
            "keep= applies to notebook cells (%%compile_profile --keep NAMES); a function's results are what it returns"
        )
    unknown = [name for name in options if name not in ProfileOptions.__dataclass_fields__]
    if unknown:  # Hugging Face models take keywords: profile(m, input_ids=ids) read as an unknown option
        options_list = ", ".join(["mode", *(f for f in ProfileOptions.__dataclass_fields__ if f != "modes")])
        raise TypeError(
            f"profile() got {', '.join(map(repr, unknown))}, which is no profile option: profile(fn, *args, "
            f"**options) passes its positional arguments to fn and takes keywords as its own options "
            f"({options_list}). To call fn with keyword arguments, profile a function that does: "
            f"profile(lambda: fn({unknown[0]}=...))"
        )
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
    """Profile a notebook cell and commit it: the namespace ends as after one plain run of the cell.

    That is the kept values of the eager run ``ProfileResult.eager_result`` names (its temporaries
    unbound), or, when the first eager run raised, what the cell had assigned before the error, as a
    failing plain cell leaves it.  The
    ``CellFunction`` comes back for what a frontend shows (its filename, whether it has a value).
    """
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
        result = profile_target(target, opts)
    except BaseException:
        cell.restore_locals()
        raise
    cell.restore_locals(after=result.kept_run)
    if result.has_eager_result:
        cell.commit(result.eager_result)
    elif result.eager_error is not None:
        partial = cell.values_at_failure(result.eager_error)
        if partial is not None:
            cell.commit(partial)
    return result, cell


def profile_target(target: Target, opts: ProfileOptions) -> ProfileResult:
    register()
    with distributed.job() as rank:
        session = _Session(target, opts, opts.variant_specs())
        session.run_obj.distributed = rank
        return session.run()


class _Session(Compiling, Measuring):
    """One profile: the stages in order (``run``) and what they share; stage 2 is ``Compiling``'s,
    stages 3-6 are ``Measuring``'s."""

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
            device=Device(type="cpu", name=cpu_name()),
            torch_version=str(torch.__version__),
            notebook=opts.notebook,
        )
        self.stdout = io.StringIO()
        self.first_stdout = ""
        self.compiled: dict[str, Callable[[], Any]] = {}
        self.variant_ops: dict[str, list[str]] = {}
        self.recorder = TraceRecorder()
        self.recorder.on_event = self._on_trace_event
        self._current = ""
        self.calls = CellCalls(target, self.run_obj)  # every call of the cell: counted, reset before
        self.mutable: correctness_mod.MutableState | None = None
        self.eager_error: BaseException | None = None
        self.backends: dict[str, RecordingBackend] = {}
        self.graphs_seen: dict[str, int] = {}  # graphs each backend had recorded when last read
        self.kernel_builds: dict[str, KernelBuilds] = {}  # each variant's count of kernel binaries built
        self.ddp_bucket_caps: list[int] = []  # of the DDP modules the code uses
        self._calls_at_stage_start = 0
        self.kept_run = "last"  # which eager run the namespace keeps ("first" once a later stage failed)
        self.random_generators: list[Any] = []
        self.random_before_first: RandomState | None = None  # the generators before the first eager run
        self.random_after_first: RandomState | None = None  # ... and after it: where one plain run leaves them

    # -- driver ------------------------------------------------------------
    def run(self) -> ProfileResult:
        run = self.run_obj
        interrupted: BaseException | None = None
        tracker = DynamoCodeTracker(getattr(self.target.function, "__globals__", None))
        try:
            with capture_compiles(self.recorder), contextlib.ExitStack() as quiet:
                with contextlib.redirect_stdout(self.stdout):
                    self._eager_first()
                    if self._all_ranks_ran_eager():
                        if self.opts.quiet_display is not None:
                            quiet.enter_context(self.opts.quiet_display())
                        self._compile_variants()  # stderr stays: torch's warnings while compiling are news
                        self._keep_variants_compiled_on_every_rank()
                        self._stage_done("first calls")
                        if not distributed.ranks_where_false(self._has_timed_variants()):
                            # A tqdm bar or a print to stderr in the cell would show once per run.
                            quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
                            self._measure_stages()
        except distributed.RanksOutOfStep as exc:  # what was measured before stays, with the reason
            run.status = "failed"
            run.errors.append(error_info(self._current or "profile", exc, variant=""))
            self.kept_run = "first"
        except KeyboardInterrupt as exc:
            interrupted = exc
            run.status = "interrupted"
            self.kept_run = "first"
            # While compiling, _current is the variant's name: report it as the compile stage of that variant.
            compiling = self._current in {v.name for v in run.compiled_variants}
            stage, variant = ("compile", self._current) if compiling else (self._current or "profile", "")
            run.errors.append(
                ErrorInfo(stage=stage, variant=variant, message="interrupted by the user", type="KeyboardInterrupt")
            )
        finally:
            tracker.release_new_entries()
            if self.random_after_first is not None:  # the generators as one plain run of the cell leaves them
                self.random_after_first.restore()
        self._finish()
        kept = self.calls.first_eager if self.kept_run == "first" else self.calls.last_eager
        return ProfileResult(
            run=run,
            stdout=self.first_stdout,
            interrupted=interrupted,
            eager_result=kept[0] if kept else None,
            has_eager_result=kept is not None,
            kept_run=self.kept_run,
            eager_error=self.eager_error,
        )

    def _measure_stages(self) -> None:
        """Stages 3-6 and the last eager run, each guarded: the first to fail is recorded (``_stage_failed``)
        and the rest do not run; what the earlier ones measured stays."""
        for stage, measure in (
            (None, self._time),  # warm-up, then the timed rounds: it says when each is done
            ("correctness", self._check_correctness),
            ("memory", self._measure_memory),
            ("kernel pass", self._measure_kernels),
            ("last eager run", self._last_eager_run),
        ):
            failure: BaseException | None = None
            try:
                measure()
            except (KeyboardInterrupt, distributed.RanksOutOfStep):
                raise
            except BaseException as exc:  # noqa: BLE001 - the cell's code raised (SystemExit too), or the stage
                failure = exc
            if failure is not None:
                self._stage_failed(failure)
            else:
                # a compile these calls caused is a recompile too (the limit was hit in the correctness
                # run of a rank-dependent step)
                self._note_recompiles(self.recorder.take(), during_timing=False)
                if stage is not None:
                    self._stage_done(stage)
            if self._any_rank_failed_a_stage(failure is not None):
                return

    def _stage_failed(self, exc: BaseException) -> None:
        """Record a stage after the first calls that raised: at which stage and variant, on which run of
        the cell (when the cell's code raised), and what that says (an iterator that ran out)."""
        run = self.run_obj
        failure = self.calls.failed_call(exc)
        error = self._error(self._current or "profile", exc, variant=failure.variant if failure else "")
        if failure is not None:
            error.call = failure.number
            if isinstance(exc, StopIteration):
                error.cause = "iterator_ran_out"
            elif is_compile_error(exc):
                error.cause = "recompile_failed"
            else:
                error.cause = "later_run_failed"
        run.errors.append(error)
        run.status = "failed"
        self.kept_run = "first"
        self._note_recompiles(self.recorder.take(), during_timing=False)
        let_go(exc)

    def _any_rank_failed_a_stage(self, failed_here: bool) -> bool:
        """Whether this rank or another failed the stage just run; every rank then stops there."""
        failed = distributed.ranks_where_false(not failed_here)
        if failed and not failed_here:
            ranks = ", ".join(map(str, failed))
            self.run_obj.status = "failed"
            self.kept_run = "first"
            self.run_obj.errors.append(
                ErrorInfo(
                    stage=self._current or "profile",
                    type=OTHER_RANK_FAILED,
                    message=f"this stage failed on rank {ranks}; every rank stops there, so that none waits "
                    "in a collective for it (that rank's run has the error)",
                )
            )
        return bool(failed)

    def _last_eager_run(self) -> None:
        """One more eager run, from the random state the first one started from, whose values the namespace
        keeps: so they, ``Out`` and the printed output (the first run's) come from the same draws.  A note
        says where its draws still ended elsewhere (how many the cell draws depends on state its runs change)."""
        self._current = "last eager run"
        self.calls.reset("eager")
        if self.random_before_first is not None:
            self.random_before_first.restore()
        self.calls.eager()
        device_sync(self.run_obj.device.type)()
        after = RandomState.capture(self.random_generators)
        if self.random_after_first is not None and not after.same_as(self.random_after_first):
            self.run_obj.notes.append(Note("random_draws_differ"))

    # -- stages ------------------------------------------------------------
    def _eager_first(self) -> None:
        self._current = "eager"
        self.progress("eager: first run")
        t = self.target
        self.calls.reset("eager")
        start_len = self.stdout.tell()
        # the generators the code reads by name (a torch.Generator in the namespace) and the global ones
        self.random_generators = [*_named_values_used(t.function, {}).values(), *t.inputs]
        self.random_before_first = RandomState.capture(self.random_generators)
        t0 = time.perf_counter()
        try:
            result = self.calls.eager()
            device_sync(current_device_type())()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - the user's code raised (SystemExit too): report it with the cell line
            self.eager_error = exc
            self.run_obj.status = "failed"
            self.run_obj.errors.append(self._error("eager", exc))
            self.run_obj.variants.append(Variant(name="eager", error=one_line(exc)))
            return
        finally:  # also when the cell raised, or an interrupt landed in it: what it printed is shown
            self.first_stdout = self.stdout.getvalue()[start_len:]
            self.random_after_first = RandomState.capture(self.random_generators)
        first_s = time.perf_counter() - t0
        self.first_outputs = t.outputs(result)
        used = _named_values_used(t.function, self.first_outputs)
        tensor_devices = device_types([*used.values(), *t.inputs])
        self.run_obj.device = device(run_device_type(tensor_devices, fallback=current_device_type()))
        if t.cell is not None:
            self.run_obj.kept_names, self.run_obj.temporaries = list(t.cell.kept), list(t.cell.temporaries)
            self.run_obj.kept_tensors = kept_tensors(t.cell.intermediates, self.first_outputs, self.run_obj.device.type)
        already_compiled = _compiled_callables(used)
        if already_compiled:
            self.run_obj.notes.append(Note("already_compiled", values={"names": list(already_compiled)}))
        self.calls.reset("eager")  # the namespace as the cell found it, without what the run published
        self.calls.optimizers = OptimizerViews(optimizers_in([*used.values(), *t.inputs]))
        self.ddp_bucket_caps = distributed.ddp_bucket_caps([*used.values(), *t.inputs])
        # what the runs may change in place (an optimizer step): a cell's namespace; a function's globals,
        # closure variables and arguments, so that a training step passed to profile() is judged from
        # the same weights in both variants (without it, every such step read "mismatch")
        state = t.namespace or {
            **{name: value for name, value in used.items() if name not in self.first_outputs},
            **{f"argument {i}": value for i, value in enumerate(t.inputs)},
        }
        self.mutable = correctness_mod.MutableState(state) if state else None
        self.run_obj.variants.append(Variant(name="eager", first_call_s=first_s))

    def _all_ranks_ran_eager(self) -> bool:
        """Whether every rank's first eager call returned; a rank whose own call returned stops too when
        another's failed, so that none waits in a collective for it."""
        run = self.run_obj
        failed = distributed.ranks_where_false(run.status != "failed")
        if failed and run.status != "failed" and run.distributed is not None:
            ranks = ", ".join(map(str, failed))
            run.status = "failed"
            run.errors.append(
                ErrorInfo(
                    stage="eager",
                    type=OTHER_RANK_FAILED,
                    message=f"the first eager call failed on rank {ranks}; every rank stops there, so that none waits "
                    "in a collective for it (that rank's run has the error)",
                )
            )
        return not failed

    def _keep_variants_compiled_on_every_rank(self) -> None:
        """Drop a variant that compiled here but failed on another rank: timing it here alone would leave
        this rank waiting in the step's collectives."""
        if self.run_obj.distributed is None:
            return
        everywhere = set(self.compiled)
        for names in distributed.job_gathered(sorted(self.compiled)):
            everywhere &= set(names)
        for name in [n for n in self.compiled if n not in everywhere]:
            del self.compiled[name]
            self.run_obj.variant(name).error = "compiled here but failed on another rank; not timed"
            self.run_obj.errors.append(
                ErrorInfo(
                    stage="compile",
                    variant=name,
                    type=OTHER_RANK_FAILED,
                    message="this variant failed on another rank (its run has the error); it is not timed on any rank, "
                    "so that no rank waits in a collective for it",
                )
            )

    def _stage_done(self, stage: str) -> None:
        """Record the calls of the step the stage made (a job's ranks must all make the same)."""
        rank = self.run_obj.distributed
        if rank is not None:
            rank.calls_by_stage[stage] = self.run_obj.cell_runs - self._calls_at_stage_start
        self._calls_at_stage_start = self.run_obj.cell_runs

    def _finish(self) -> None:
        run = self.run_obj
        if self.ddp_bucket_caps and len(set(self.ddp_bucket_caps)) == 1:
            for split in run.ddp_splits:
                if split.bucket_cap_bytes is None:
                    split.bucket_cap_bytes = self.ddp_bucket_caps[0]
        if run.kernels and (missing := missing_features()):
            run.notes.append(Note("torch_lacks", values={"torch": str(torch.__version__), "features": missing}))
        if run.cache.fx_graph_hits and not logs_post_grad_graph_on_cache_hit():
            run.notes.append(Note("no_post_grad_on_cache_hit", values={"torch": str(torch.__version__)}))
        if run.status == "ok" and run.compiled_variants and not self.compiled:
            run.status = "failed"  # every compiled variant failed; eager results are still reported
        run.graphs = dedupe_graphs(run.graphs)

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
        return error_info(stage, exc, variant=variant, line=line)


def _named_values_used(fn: Callable[..., Any], outputs: dict[str, Any]) -> dict[str, Any]:
    """The values of the names the profiled code reads or assigns (its globals, the variables it closes
    over, as a training step defined in ``main()`` reads its model and optimizer, and what it returned)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return dict(outputs)
    values = {**getattr(fn, "__globals__", {}), **_closure_values(fn), **outputs}
    names = set(code.co_names) | set(code.co_varnames) | set(code.co_freevars)
    return {name: values[name] for name in names if name in values} | outputs


def _closure_values(fn: Callable[..., Any]) -> dict[str, Any]:
    values = {}
    for name, cell in zip(fn.__code__.co_freevars, getattr(fn, "__closure__", None) or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # a cell not yet bound
            pass
    return values


def _compiled_callables(named_values: dict[str, Any]) -> list[str]:
    """The names that hold something torch.compile already wrapped."""
    return sorted(
        name
        for name, value in named_values.items()
        if isinstance(value, torch._dynamo.eval_frame.OptimizedModule) or hasattr(value, "_torchdynamo_orig_callable")
    )


__all__ = [
    "OptionError",
    "ProfileOptions",
    "ProfileResult",
    "Target",
    "profile",
    "profile_cell",
    "profile_target",
    "run_device_type",
]
