"""The profile's decisions that every rank of a ``torch.distributed`` job takes together, in one place.

Contract: the stages call these at their boundaries (``run.stages.run_session``); each asks every rank
(``distributed.ranks_where_false``, ``distributed.job_gathered``) and answers the same on all of them, so
a rank whose own work went well still stops where another's failed, and none waits in a collective for
a partner that is not coming.  Outside a job each is a local check.  The primitives (the control group,
``shared``, the timeout) are ``job``'s.
"""

from __future__ import annotations

from ...profile_run import OTHER_RANK_FAILED, ErrorInfo, Note
from ..session.session import Session
from . import job as distributed


def all_ranks_ran_eager(session: Session) -> bool:
    """Whether every rank's first eager call returned; a rank whose own call returned stops too when
    another's failed, so that none waits in a collective for it."""
    run = session.run
    failed = distributed.ranks_where_false(run.status != "failed")
    if failed and run.status != "failed" and run.distributed is not None:
        run.status = "failed"
        run.errors.append(
            ErrorInfo(stage="eager", type=OTHER_RANK_FAILED, message="", why=_other_ranks(failed, "eager"))
        )
    return not failed


def keep_variants_compiled_on_every_rank(session: Session) -> None:
    """Drop a variant that compiled here but failed on another rank: timing it here alone would leave
    this rank waiting in the step's collectives."""
    run = session.run
    if run.distributed is None:
        return
    everywhere = set(session.compiled)
    for names in distributed.job_gathered(sorted(session.compiled)):
        everywhere &= set(names)
    for name in [n for n in session.compiled if n not in everywhere]:
        del session.compiled[name]
        variant = run.variant(name)
        variant.error, variant.error_note = "", _other_ranks([], "variant_not_timed")
        run.errors.append(
            ErrorInfo(
                stage="compile", variant=name, type=OTHER_RANK_FAILED, message="", why=_other_ranks([], "variant")
            )
        )


def every_rank_has_timed_variants(has_them: bool) -> bool:
    """Whether every rank has compiled variants to time (a rank without stops the others)."""
    return not distributed.ranks_where_false(has_them)


def every_rank_keeps_its_state(kept_here: bool) -> bool:
    """Whether every rank took its copy of the in-place state (``cell.plain_state``): where one could not, none puts
    its own back, so every rank makes the same calls (the last eager run) to the end."""
    return not distributed.ranks_where_false(kept_here)


def any_rank_failed_a_stage(session: Session, failed_here: bool) -> bool:
    """Whether this rank or another failed the stage just run; every rank then stops there."""
    failed = distributed.ranks_where_false(not failed_here)
    if failed and not failed_here:
        session.run.status = "failed"
        session.kept_run = "first"
        why = _other_ranks(failed, "stage")
        session.run.errors.append(
            ErrorInfo(stage=session.current or "profile", type=OTHER_RANK_FAILED, message="", why=why)
        )
    return bool(failed)


def _other_ranks(ranks: list[int], scope: str) -> Note:
    """The fact that another rank's work failed (``ranks``, where known) and this one stopped at ``scope``."""
    return Note("other_rank_failed", values={"ranks": [str(r) for r in ranks], "scope": scope})


def stage_done(session: Session, stage: str) -> None:
    """Record the calls of the step the stage made (a job's ranks must all make the same)."""
    rank = session.run.distributed
    if rank is not None:
        rank.calls_by_stage[stage] = session.run.cell_runs - session.calls_at_stage_start
    session.calls_at_stage_start = session.run.cell_runs
