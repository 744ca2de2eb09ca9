"""The stage table a profile runs (``MEASURE_STAGES``) and the session that runs it (``run_session``).

The stages share one typed ``Session`` (``session.session``); each is a plain function of it, in this order,
chosen so each figure is measured cleanly:
  1. eager first call (``eager_runs.eager_first``: the cell's real output; an error here stops everything);
  2. per compiled variant, the first call under trace capture (``compile_stage.compile_variants``:
     compile latency, graphs, breaks, kernels) — never part of the steady-state samples;
  then the table ``MEASURE_STAGES``, each row guarded:
  3. warm-up, then interleaved timed rounds, on each input of a sequence (``timing.stage``; capture stays on to
     catch recompiles);
  4. correctness (``correctness.stage``: same RNG seed and same in-place state for eager and compiled);
  5. peak memory (``memory_stage``, CUDA only);
  6. a separate torch.profiler pass per variant for kernel time by kind, per kernel (compiled)
     and per cell line (eager) (``kernels.stage``), so its overhead never touches the timed samples;
  7. the last eager run (``eager_runs.last_eager_run``);
  and, with ``--bisect`` after a failure or a difference, the bisection (``failure.bisection``).
Each stage's wall time goes into ``run.stage_s`` (``session.clock``; "other" is the rest of the profile's).
An interrupt at any point keeps what was measured and marks the run.  So does a failure in a stage
after the first calls: the cell's code raising on a later run (an iterator it reads ran out, a list
it empties) or a stage of the profiler's own failing becomes an ``ErrorInfo`` naming the stage, the
variant and which run of the cell raised, and the stages after it do not run.

The namespace and the cell's value (``Out``) come from one eager run, and so does its printed output
(``eager_runs``).  In a ``torch.distributed`` job every rank runs these stages in lock-step
(``distributed.job``): the same calls in the same order, each decision a measurement makes shared, and a rank
stops where any rank's stage failed (``distributed.lockstep``, the one owner of those decisions).
"""

from __future__ import annotations

import contextlib
import io
import re
import time
from dataclasses import dataclass
from typing import Any

import torch

from ...profile_run import Device, ErrorInfo, Note, ProfileRun, RunSettings
from ..cell.caller_stack import frames_of_the_profiler_hidden
from ..cell.calls import CellCalls
from ..cell.target import Target
from ..common.device import cpu_name
from ..common.errors import error_info, is_compile_error, let_go
from ..common.torch_features import logs_post_grad_graph_on_cache_hit, missing_features
from ..compiler.dynamo_state import DynamoCodeTracker
from ..compiler.variants import VariantSpec
from ..correctness.stage import check_correctness
from ..distributed import job as distributed
from ..distributed import lockstep
from ..failure.bisection import bisect_failure, bisect_mismatch
from ..failure.changed_settings import non_default_settings
from ..kernels.stage import measure_kernels
from ..session.options import ProfileOptions
from ..session.recompiles import note_recompiles
from ..session.session import Session, Stage
from ..timing.stage import time_variants
from ..trace.capture import TraceEvent, capture_compiles
from .compile_stage import compile_variants, dedupe_graphs, has_timed_variants
from .eager_runs import eager_first, keep_plain_state, last_eager_run, put_back_plain_state
from .memory_stage import measure_memory

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
        # a torch.manual_seed in the cell formats the stack three times: at the user's depth, not the profiler's
        with capture_compiles(session.recorder), frames_of_the_profiler_hidden(), contextlib.ExitStack() as quiet:
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
