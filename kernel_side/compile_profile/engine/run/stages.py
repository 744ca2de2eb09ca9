"""The measuring core: run a target eagerly and under each compiled variant, and
assemble a ``ProfileRun``.

The stages share one typed ``Session`` (``session``); each is a plain function of it, in this order,
chosen so each figure is measured cleanly:
  1. eager first call (``eager_first``: the cell's real output; an error here stops everything);
  2. per compiled variant, the first call under trace capture (``compile_stage.compile_variants``:
     compile latency, graphs, breaks, kernels) — never part of the steady-state samples;
  then the table ``MEASURE_STAGES``, each row guarded:
  3. warm-up, then interleaved timed rounds (capture stays on to catch recompiles);
  4. correctness (same RNG seed and same in-place state for eager and compiled);
  5. peak memory (CUDA only);
  6. a separate torch.profiler pass per variant for kernel time by kind, per kernel (compiled)
     and per cell line (eager) (``after_timing``), so its overhead never touches the timed samples;
  7. the last eager run (below).
Each stage's wall time goes into ``run.stage_s`` (``session.clock``; "other" is the rest of the profile's).
An interrupt at any point keeps what was measured and marks the run.  So does a failure in a stage
after the first calls: the cell's code raising on a later run (an iterator it reads ran out, a list
it empties) or a stage of the profiler's own failing becomes an ``ErrorInfo`` naming the stage, the
variant and which run of the cell raised, and the stages after it do not run.

The namespace and the cell's value (``Out``) come from one eager run, and so does its printed output:
after the stages, a last eager run replays the first run's random draws (``random_state``), and its
values are kept; where a stage failed or an interrupt came, the first eager run's are.  Afterwards the
random generators stand where one plain run of the cell leaves them.  In a ``torch.distributed``
job every rank runs these stages in lock-step (``distributed``): the same calls in the same order,
each decision a measurement makes shared, and a rank stops where any rank's stage failed (``lockstep``,
the one owner of those decisions).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ...profile_run import Device, ErrorInfo, Note, ProfileRun, RunSettings, Variant
from ..cell import plain_state as cell_state
from ..cell.calls import CellCalls
from ..cell.function import CellFunction, cell_to_function
from ..cell.input_feed import InputFeed
from ..cell.optimizers import OptimizerViews, lr_schedulers_in, optimizers_in
from ..cell.random_state import RandomState
from ..cell.reachable_tensors import device_types
from ..common.device import cpu_name, current_device_type, device, run_device_type
from ..common.errors import error_info, is_compile_error, let_go, one_line
from ..common.torch_features import logs_post_grad_graph_on_cache_hit, missing_features
from ..compiler.backend import register
from ..compiler.dynamo_state import DynamoCodeTracker
from ..compiler.variants import VariantSpec
from ..correctness import compare as correctness_mod
from ..correctness.stage import check_correctness, measure_kernels, measure_memory, time_variants
from ..distributed import job as distributed
from ..distributed import lockstep
from ..failure.bisection import bisect_failure, bisect_mismatch
from ..failure.changed_settings import non_default_settings
from ..kernels.kept_tensors import kept_tensors
from ..session.options import OptionError, ProfileOptions
from ..session.session import Session, Stage, Target
from ..timing.interleaved import device_sync
from ..trace.capture import TraceEvent, capture_compiles
from ..trace.model import CellLocator
from .compile_stage import compile_variants, dedupe_graphs, has_timed_variants, note_recompiles

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


def profile(fn: Callable[..., Any], *args: Any, inputs: Any = None, **options: Any) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``; or, with ``inputs``, ``fn`` over a sequence of
    inputs (a list or iterable of argument tuples, or a callable returning one; an item that is no tuple is
    the one argument of a function taking one): each input run in order, the recompiles each caused, and each
    input signature timed apart (``engine.sequence``).

    Options are ``ProfileOptions``' fields (``mode`` for ``modes``): backend, modes, dynamic, fullgraph,
    options, sweep, warmup, repeat, budget, label, check_correctness, quick (``--quick``), progress.  What the
    magic refuses is refused here with the same message (``OptionError``).
    """
    feed: InputFeed | None = None
    if inputs is not None:
        if args:
            raise OptionError(
                "profile() takes fn's arguments either positionally (one input) or as inputs= (a sequence of "
                "argument tuples), not both"
            )
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
    if inputs is not None:
        feed = InputFeed.for_function(fn, inputs, limit=opts.max_inputs)
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
    if feed is not None:
        now = feed.args
        target = Target(
            eager_call=lambda: fn(*now()),
            function=fn,
            call_compiled=lambda compiled: compiled(*now()),
            locator=locator,
            source=source,
            inputs=feed.items[0],
            globals=getattr(fn, "__globals__", {}),
            arguments=lambda: list(now()),
            call_with_arguments=lambda arguments: fn(*arguments),
            feed=feed,
        )
    else:
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
    feed = InputFeed.for_cell(opts.inputs, user_ns, limit=opts.max_inputs) if opts.inputs else None
    if feed is not None:  # the cell reads the first input by its name from the start, as a loop's first pass
        feed.bind(user_ns)
    cell = cell_to_function(body, user_ns, source=source, line_offset=line_offset, keep=opts.keep)
    locator = CellLocator(filename=cell.filename, lines=cell.source.splitlines())

    def before_each() -> None:
        cell.restore_namespace()
        if feed is not None:
            feed.bind(user_ns)

    target = Target(
        eager_call=cell,
        function=cell.fn,
        call_compiled=cell.call_with,
        before_each=before_each,
        locator=locator,
        source=cell.source,
        outputs=cell.outputs,
        namespace=user_ns,
        globals=user_ns,
        arguments=cell.arguments,
        call_with_arguments=lambda arguments: cell.call_with(lambda *_: cell.fn(*arguments)),
        cell=cell,
        feed=feed,
    )
    try:
        result = profile_target(target, opts)
    except BaseException:
        cell.restore_locals()
        raise
    finally:
        if feed is not None:  # the name holds the input the kept run read: the first
            feed.select(0)
            feed.bind(user_ns)
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
        session = new_session(target, opts, opts.variant_specs())
        session.run.distributed = rank
        return run_session(session)


# -- stage 1: the first eager run, and the last --------------------------------------------------------------
def eager_first(session: Session) -> None:
    session.current = "eager"
    session.progress("eager: first run")
    t = session.target
    session.calls.reset("eager")
    start_len = session.stdout.tell()
    # the generators the code reads by name (a torch.Generator in the namespace) and the global ones
    session.random_generators = [*_named_values_used(t.function, {}).values(), *t.inputs]
    session.random_before_first = RandomState.capture(session.random_generators)
    session.state_before = cell_state.take_before(t)
    t0 = time.perf_counter()
    try:
        result = session.calls.eager()
        device_sync(current_device_type())()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the user's code raised (SystemExit too): report it with the cell line
        session.eager_error = exc
        session.run.status = "failed"
        session.run.errors.append(session.error("eager", exc))
        session.run.variants.append(Variant(name="eager", error=one_line(exc)))
        return
    finally:  # also when the cell raised, or an interrupt landed in it: what it printed is shown
        session.first_stdout = session.stdout.getvalue()[start_len:]
        session.random_after_first = RandomState.capture(session.random_generators)
    first_s = time.perf_counter() - t0
    session.first_outputs = t.outputs(result)
    used = _named_values_used(t.function, session.first_outputs)
    tensor_devices = device_types([*used.values(), *t.inputs])
    session.run.device = device(run_device_type(tensor_devices, fallback=current_device_type()))
    if session.run.settings is not None:  # as the cell left them: it may set them itself
        session.run.settings.torch_threads = torch.get_num_threads()
        session.run.settings.interop_threads = torch.get_num_interop_threads()
    if t.cell is not None:
        session.run.kept_names, session.run.temporaries = list(t.cell.kept), list(t.cell.temporaries)
        session.run.kept_tensors = kept_tensors(t.cell.intermediates, session.first_outputs, session.run.device.type)
    roots, _, _ = cell_state.roots_of(t)  # what the code reads, through the notebook's functions it calls
    session.run.lr_schedulers = lr_schedulers_in(dict(roots), str(t.globals.get("__name__", "__main__")))
    already_compiled = _compiled_callables(used)
    if already_compiled:
        session.run.notes.append(Note("already_compiled", values={"names": list(already_compiled)}))
    session.calls.reset("eager")  # the namespace as the cell found it, without what the run published
    session.calls.optimizers = OptimizerViews(optimizers_in([*used.values(), *t.inputs]))
    session.ddp_bucket_caps = distributed.ddp_bucket_caps([*used.values(), *t.inputs])
    # what the runs may change in place (an optimizer step): a cell's namespace; a function's globals,
    # closure variables and arguments, so that a training step passed to profile() is judged from
    # the same weights in both variants (without it, every such step read "mismatch")
    state = t.namespace or {
        **{name: value for name, value in used.items() if name not in session.first_outputs},
        **{f"argument {i}": value for i, value in enumerate(t.inputs)},
    }
    session.mutable = correctness_mod.MutableState(state) if state else None
    session.run.variants.append(Variant(name="eager", first_call_s=first_s))


def keep_plain_state(session: Session) -> None:
    """Copy what the first eager run changed in place, to put back at the end (``cell_state``), where it fits
    (on every rank of a job); else say why not."""
    before, session.state_before = session.state_before, None
    restore = session.opts.restore
    if before is None:
        return
    taken = before.snapshot(force=restore is True, copy=restore is not False)
    if session.mutable is not None:  # what their versions do not say changed (a fused optimizer's weights)
        session.mutable.include(before.changed)
    snapshot = taken if isinstance(taken, cell_state.Snapshot) else None
    if not lockstep.every_rank_keeps_its_state(snapshot is not None or restore is False) and snapshot is not None:
        snapshot, taken = None, cell_state.Refusal("other_rank")
    session.plain_state = snapshot
    session.plain_state_refused = taken if isinstance(taken, cell_state.Refusal) else None


def put_back_plain_state(session: Session) -> None:
    """At the end: the in-place state as the first eager run left it, and the namespace that run's (its values,
    its printed output); or the fact that the state advanced with the runs, and by how many."""
    if session.plain_state is not None:
        snapshot, session.plain_state = session.plain_state, None
        try:
            session.calls.optimizers.install(OptimizerViews.EAGER)  # the view the copy was taken of
            restored = snapshot.restore()
        except Exception as exc:  # noqa: BLE001 - torch left unusable (a bisection's dispatcher): said, not raised
            let_go(exc)
            refusal = cell_state.Refusal("restore_failed", needed=snapshot.bytes, error=one_line(exc))
            session.run.notes.append(refusal.note(session.calls.runs_in_state))
            return
        note = snapshot.note(restored)
        if any(note.values.get(k) for k in ("tensors", "grads", "containers", "not_restored")):
            session.run.notes.append(note)
        session.kept_run = "first"
    elif session.plain_state_refused is not None:
        session.run.notes.append(session.plain_state_refused.note(session.calls.runs_in_state))


def last_eager_run(session: Session) -> None:
    """One more eager run, from the random state the first one started from, whose values the namespace
    keeps: so they, ``Out`` and the printed output (the first run's) come from the same draws.  A note
    says where its draws still ended elsewhere (how many the cell draws depends on state its runs change).
    Where the in-place state is put back as the first run left it (``cell_state``), the namespace keeps that
    run's values instead, and this one is not needed."""
    session.current = "last eager run"
    if session.plain_state is not None:
        return
    if session.target.feed is not None:  # the first input, as the first run (whose output was shown) read
        session.target.feed.select(0)
    session.calls.reset("eager")
    if session.random_before_first is not None:
        session.random_before_first.restore()
    session.calls.eager()
    device_sync(session.run.device.type)()
    after = RandomState.capture(session.random_generators)
    if session.random_after_first is not None and not after.same_as(session.random_after_first):
        session.run.notes.append(Note("random_draws_differ"))


def _stage_failed(session: Session, exc: BaseException) -> None:
    """Record a stage after the first calls that raised: at which stage and variant, on which run of
    the cell (when the cell's code raised), and what that says (an iterator that ran out)."""
    run = session.run
    failure = session.calls.failed_call(exc)
    error = session.error(session.current or "profile", exc, variant=failure.variant if failure else "")
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
    session.kept_run = "first"
    note_recompiles(session, session.recorder.take(), during_timing=False)
    let_go(exc)


def _finish(session: Session) -> None:
    run = session.run
    if session.ddp_bucket_caps and len(set(session.ddp_bucket_caps)) == 1:
        for split in run.ddp_splits:
            if split.bucket_cap_bytes is None:
                split.bucket_cap_bytes = session.ddp_bucket_caps[0]
    if run.kernels and (missing := missing_features()):
        run.notes.append(Note("torch_lacks", values={"torch": str(torch.__version__), "features": missing}))
    if run.cache.fx_graph_hits and not logs_post_grad_graph_on_cache_hit():
        run.notes.append(Note("no_post_grad_on_cache_hit", values={"torch": str(torch.__version__)}))
    if run.status == "ok" and run.compiled_variants and not session.compiled:
        run.status = "failed"  # every compiled variant failed; eager results are still reported
    if _compiled_went_wrong(run):  # a setting not at its default may be the cause: the digest says which
        run.configs_changed = non_default_settings()
    run.graphs = dedupe_graphs(run.graphs)
    cells = session.opts.source_cells
    if cells is not None:  # a helper another notebook cell defines: that cell's number
        own = session.target.locator.filename
        for b in run.graph_breaks:
            if b.filename and b.filename != own and b.file_cell is None:
                b.file_cell = cells(b.filename)


def _compiled_went_wrong(run: ProfileRun) -> bool:
    """A compile failed, a compiled run raised, or compiled results differed from eager."""
    differed = run.correctness is not None and run.correctness.ok is False
    differed_on_an_input = run.inputs is not None and any(c.matches is False for c in run.inputs.calls)
    return differed or differed_on_an_input or any(e.stage in ("compile", "compiled run") for e in run.errors)


# -- the stages, in order ----------------------------------------------------------------------------------------
# Stage 1 (the first eager run) and stage 2 (the compiled variants' first calls) run unguarded: an error in the
# first eager run is the cell's and ends the profile (``eager_first`` records it), a variant's compile error is
# that variant's.  The rest are guarded: the first to fail is recorded (``_stage_failed``) and the others do not
# run; what the earlier ones measured stays.  A test replaces a row of this table to make a stage fail.
MEASURE_STAGES: tuple[Stage, ...] = (
    Stage("timing", time_variants, records_calls=False),  # warm-up, then the timed rounds: it records each
    Stage("correctness", check_correctness),
    Stage("memory", measure_memory),
    Stage("kernel pass", measure_kernels),
    Stage("last eager run", last_eager_run),
)
FIRST_STAGES = 2  # the first eager run and the compiled variants' first calls, before the table; the progress
# line counts them with it ("stage 3 of 7: warming up")


def new_session(target: Target, opts: ProfileOptions, specs: list[VariantSpec]) -> Session:
    run = ProfileRun(
        id=ProfileRun.new_id(),
        created_at=ProfileRun.now(),
        label=opts.label,
        cell_source=target.source,
        device=Device(type="cpu", name=cpu_name()),
        torch_version=str(torch.__version__),
        notebook=opts.notebook,
    )
    if opts.quick:
        run.notes.append(Note("quick_profile"))
    run.settings = RunSettings(
        torch_threads=torch.get_num_threads(),
        interop_threads=torch.get_num_interop_threads(),
        warmup=opts.warmup,
        repeat=opts.repeat,
        budget_s=float(opts.budget),
        quick=opts.quick,
        check_correctness=opts.check_correctness,
        inputs=opts.inputs or "",
    )
    session = Session(
        target=target,
        opts=opts,
        specs=specs,
        run=run,
        calls=CellCalls(target, run),
        progress=opts.progress or (lambda message: None),
        stages=FIRST_STAGES + len(MEASURE_STAGES),
    )
    session.progress = session.counted(session.progress)

    def on_trace_event(ev: TraceEvent) -> None:
        text = phase_text(ev)
        if text:
            session.progress(f"{session.current}: {text}")

    session.recorder.on_event = on_trace_event
    return session


def run_session(session: Session) -> ProfileResult:
    """Run the stages in order and return what they measured; an interrupt or a job's ranks falling out of
    step keep what was measured before, with the reason."""
    run = session.run
    interrupted: BaseException | None = None
    tracker = DynamoCodeTracker(getattr(session.target.function, "__globals__", None))
    started = time.perf_counter()
    try:
        with capture_compiles(session.recorder), contextlib.ExitStack() as quiet:
            with contextlib.redirect_stdout(session.stdout):
                session.stage = 1
                with session.clock("eager first call"):
                    eager_first(session)
                if lockstep.all_ranks_ran_eager(session):
                    keep_plain_state(session)
                    if session.opts.quiet_display is not None:
                        quiet.enter_context(session.opts.quiet_display())
                    session.stage = 2
                    compile_variants(session)  # stderr stays: torch's warnings while compiling are news
                    lockstep.keep_variants_compiled_on_every_rank(session)
                    lockstep.stage_done(session, "first calls")
                    if lockstep.every_rank_has_timed_variants(has_timed_variants(session)):
                        # A tqdm bar or a print to stderr in the cell would show once per run.
                        quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
                        _measure_stages(session)
                    if session.opts.bisect and run.distributed is None and (run.errors or session.mismatch):
                        runs_in_state = session.calls.runs_in_state  # the bisection puts back what it changes
                        with session.clock("bisect"), contextlib.redirect_stderr(io.StringIO()):
                            bisect_failure(session)
                            if run.bisection is None:
                                bisect_mismatch(session)
                        session.calls.runs_in_state = runs_in_state
    except distributed.RanksOutOfStep as exc:  # what was measured before stays, with the reason
        run.status = "failed"
        run.errors.append(error_info(session.current or "profile", exc, variant=""))
        session.kept_run = "first"
    except KeyboardInterrupt as exc:
        interrupted = exc
        run.status = "interrupted"
        session.kept_run = "first"
        # While compiling, current is the variant's name: report it as the compile stage of that variant.
        compiling = session.current in {v.name for v in run.compiled_variants}
        stage, variant = ("compile", session.current) if compiling else (session.current or "profile", "")
        run.errors.append(
            ErrorInfo(stage=stage, variant=variant, message="", type="KeyboardInterrupt", why=Note("interrupted"))
        )
    finally:
        tracker.release_new_entries()
        if session.random_after_first is not None:  # the generators as one plain run of the cell leaves them
            session.random_after_first.restore()
        put_back_plain_state(session)
    _finish(session)
    run.stage_s["other"] = max(0.0, time.perf_counter() - started - sum(run.stage_s.values()))
    kept = session.calls.first_eager if session.kept_run == "first" else session.calls.last_eager
    return ProfileResult(
        run=run,
        stdout=session.first_stdout,
        interrupted=interrupted,
        eager_result=kept[0] if kept else None,
        has_eager_result=kept is not None,
        kept_run=session.kept_run,
        eager_error=session.eager_error,
    )


def _measure_stages(session: Session) -> None:
    """``MEASURE_STAGES`` in order, each guarded: the first to fail is recorded (``_stage_failed``) and the
    rest do not run; what the earlier ones measured stays."""
    for number, stage in enumerate(MEASURE_STAGES, start=FIRST_STAGES + 1):
        failure: BaseException | None = None
        session.stage = number
        try:
            with session.clock(stage.name):
                stage.run(session)
        except (KeyboardInterrupt, distributed.RanksOutOfStep):
            raise
        except BaseException as exc:  # noqa: BLE001 - the cell's code raised (SystemExit too), or the stage
            failure = exc
        if failure is not None:
            _stage_failed(session, failure)
        else:
            # a compile these calls caused is a recompile too (the limit was hit in the correctness
            # run of a rank-dependent step)
            note_recompiles(session, session.recorder.take(), during_timing=False)
            if stage.records_calls:
                lockstep.stage_done(session, stage.name)
        if lockstep.any_rank_failed_a_stage(session, failure is not None):
            return


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
