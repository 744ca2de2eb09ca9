"""Every call of the profiled code, and the reset before it, in one place.

Contract: each call of the cell (eager or compiled, first calls, warm-up, timed samples, CUDA
priming calls, correctness, memory and kernel-profiler runs) goes through ``eager`` or a callable
from ``compiled``, which counts it in ``ProfileRun.cell_runs`` as it starts, so the count is the
number of times the cell's code ran, also when one raised or an interrupt stopped the profile.
The float64 reference run is not counted: it runs on copies and does not advance the notebook's
own state, which is what the count tells the user about (docs/reliability.md).

A call that raises is remembered (``failure``: the exception, which run of the cell it was and of
which variant), so that a stage failing after the first calls can say on which call the cell's own
code raised rather than the profiler's.

``runs_in_state`` counts the runs whose changes the in-place state holds now: each call adds one, and a
restore of the correctness check's copy (``MutableState``) sets it back to its count when that copy was
taken (``state_saved``, ``state_restored``); where the state is not put back as one plain run leaves it
(``plain_state``), the run says this count.

``reset`` is the one namespace reset: before every call, the names the cell assigns are put back as
the cell found them and the optimizers look as the variant about to run saw them.  The counting
adds one Python call and an integer increment to each timed call, the same for every variant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...profile_run import ProfileRun
from .optimizers import OptimizerViews

if TYPE_CHECKING:
    from .target import Target


class CellCalls:
    def __init__(self, target: Target, run: ProfileRun):
        self.target = target
        self.run = run
        self.optimizers = OptimizerViews([])  # set once the first eager run shows which the cell uses
        self.first_eager: tuple[Any] | None = None  # (the value of the first eager call, once it returned,)
        self.last_eager: tuple[Any] | None = None  # (the value of the last eager call that returned,)
        self.failure: CallFailure | None = None  # the last call that raised
        self.runs_in_state = 0  # how many runs' changes the in-place state holds (see the module docstring)
        self._runs_at_save = 0

    def reset(self, variant: str = "eager") -> None:
        """Before a call of ``variant``: the namespace as the cell found it, optimizers as that variant sees them."""
        self.target.before_each()
        self.optimizers.install(OptimizerViews.EAGER if variant == "eager" else OptimizerViews.COMPILED)

    def eager(self) -> Any:
        """One eager call, counted."""
        self.run.cell_runs += 1
        self.runs_in_state += 1
        number = self.run.cell_runs
        try:
            result = self.target.eager_call()
        except BaseException as exc:
            self.failure = CallFailure(exc, number, "eager")
            raise
        self.last_eager = (result,)
        if self.first_eager is None:
            self.first_eager = self.last_eager
        return result

    def compiled(self, compiled_fn: Callable[..., Any], variant: str) -> Callable[[], Any]:
        """A call of what ``torch.compile`` made of the code (``variant``), counted each time it is called."""
        run, call_compiled = self.run, self.target.call_compiled

        def call() -> Any:
            run.cell_runs += 1
            self.runs_in_state += 1
            number = run.cell_runs
            try:
                return call_compiled(compiled_fn)
            except BaseException as exc:
                self.failure = CallFailure(exc, number, variant)
                raise

        return call

    def state_saved(self) -> None:
        """The correctness check copied the in-place state as it is now."""
        self._runs_at_save = self.runs_in_state

    def state_restored(self) -> None:
        """... and put that copy back."""
        self.runs_in_state = self._runs_at_save

    def forget(self, exc: BaseException) -> None:
        """``exc`` was handled where it was raised (a bisection's test run that failed): it is no longer the last
        call that raised, and its traceback's frames are not kept alive through it."""
        if self.failure is not None and self.failure.exception is exc:
            self.failure = None

    def failed_call(self, exc: BaseException) -> CallFailure | None:
        """The call of the cell that raised ``exc`` (or raised what ``exc`` was raised from), if one did."""
        failure = self.failure
        if failure is None:
            return None
        seen: BaseException | None = exc
        for _ in range(8):  # a stage may wrap the cell's exception in its own
            if seen is None:
                return None
            if seen is failure.exception:
                return failure
            seen = seen.__cause__ or seen.__context__
        return None


@dataclass
class CallFailure:
    exception: BaseException
    number: int  # which run of the cell, as ``ProfileRun.cell_runs`` counts them
    variant: str  # "eager", or the compiled variant's name
