"""What a profile's stages share: the ``Target`` (``cell.target``), the options and the ``ProfileRun`` being written,
in one typed ``Session``; and the ``Stage`` a table of them is made of (``run.stages.MEASURE_STAGES``).

Contract: each stage is a plain function of the session (``run.compile_stage.compile_variants``,
``timing.stage.time_variants``, ...), run in the table's order by ``run.stages.run_session``; it reads what the
stages before it left here and adds its own.  The fields say which stage fills them.  Nothing here
measures; the few methods are what every stage does the same way (name the stage running, word an
exception as an ``ErrorInfo`` at its cell line, tag the trace events of a variant's calls).
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ...profile_run import Correctness, ErrorInfo, ProfileRun
from ..cell.function import cell_line_of_exception
from ..common.errors import error_info
from ..common.stack_text import parse_frames
from ..trace.capture import TraceRecorder

if TYPE_CHECKING:
    from ..cell.calls import CellCalls
    from ..cell.mutable_state import MutableState
    from ..cell.plain_state import Before, Refusal, Snapshot
    from ..cell.random_state import RandomState
    from ..cell.target import Target
    from ..compiler.backend import RecordingBackend
    from ..compiler.kernel_builds import KernelBuilds
    from ..compiler.variants import VariantSpec
    from .options import ProfileOptions


class StageClock:
    """Where a profile's wall time goes: each stage's seconds, added into a dict (``ProfileRun.stage_s``).

    Clocks nest: a stage timed inside another (the float64 reference inside correctness, each variant's
    profiler pass inside the kernel pass) is taken out of the outer one, so the entries never overlap and
    their sum is the wall time the clocks covered.  Entries are listed in the order they first ended (an outer
    stage after the stages nested in it)."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into = into
        self._inner: list[float] = []  # per open clock, the seconds its nested clocks took

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        self._inner.append(0.0)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            took = time.perf_counter() - t0
            inner = self._inner.pop()
            if self._inner:
                self._inner[-1] += took
            self.into[name] = self.into.get(name, 0.0) + max(0.0, took - inner)


@dataclass
class MismatchCase:
    """What ``--bisect`` needs to judge a compiled run of the cell as the correctness check judged the variant whose
    results differed (``correctness.stage.check_correctness`` makes it, ``failure.bisection.bisect_mismatch`` uses it)."""

    variant: str
    # (variant's name, a counted call of it) -> that run's outputs, from the state, RNG seed and iterator items
    # the correctness runs started from
    outputs_of: Callable[[str, Callable[[], Any]], dict[str, Any]]
    judge: Callable[[dict[str, Any]], Correctness]  # the card's rule: those outputs against eager and the reference


def no_clock(name: str) -> contextlib.AbstractContextManager[None]:
    """A ``StageClock`` stand-in that times nothing (a pass run outside a session)."""
    return contextlib.nullcontext()


@dataclass
class Session:
    """One profile's shared state.  Set up by ``run.stages.new_session``; filled by the stages."""

    target: Target
    opts: ProfileOptions
    specs: list[VariantSpec]  # the variants to compile (``--sweep`` replaces them once the device is known)
    run: ProfileRun
    calls: CellCalls  # every call of the cell: counted, reset before
    progress: Callable[[str], None]
    recorder: TraceRecorder = field(default_factory=TraceRecorder)
    stdout: io.StringIO = field(default_factory=io.StringIO)  # what the cell prints while profiled
    current: str = ""  # the stage or variant running now: errors and the progress line name it
    kept_run: Literal["first", "last"] = "last"  # which eager run the namespace keeps ("first" once a stage failed)
    # the first eager run (``run.eager_runs.eager_first``)
    first_stdout: str = ""
    first_outputs: dict[str, Any] = field(default_factory=lambda: {})
    eager_error: BaseException | None = None
    mutable: MutableState | None = None  # the tensors the cell changes in place, saved to restore
    ddp_bucket_caps: list[int] = field(default_factory=lambda: [])  # of the DDP modules the code uses
    random_generators: list[Any] = field(default_factory=lambda: [])
    random_before_first: RandomState | None = None  # the generators before the first eager run
    random_after_first: RandomState | None = None  # ... and after it: where one plain run leaves them
    # what the cell changes in place, as one plain run leaves it (``cell.plain_state``): the version counters before the
    # first eager run, then the copy taken after it (put back at the end), or why there is none
    state_before: Before | None = None
    plain_state: Snapshot | None = None
    plain_state_refused: Refusal | None = None
    # the first calls (``run.compile_stage``)
    compiled: dict[str, Callable[[], Any]] = field(default_factory=lambda: {})  # variant -> counted call
    variant_ops: dict[str, list[str]] = field(default_factory=lambda: {})  # the ATen ops of its graphs
    backends: dict[str, RecordingBackend] = field(default_factory=lambda: {})
    graphs_seen: dict[str, int] = field(default_factory=lambda: {})  # graphs each backend had when last read
    kernel_builds: dict[str, KernelBuilds] = field(default_factory=lambda: {})  # kernel binaries built
    calls_at_stage_start: int = 0  # ``distributed.lockstep.stage_done``'s count
    # ``--bisect`` after results differ: how the correctness check ran and judged the compared variant
    mismatch: MismatchCase | None = None
    clock: StageClock = field(init=False)  # each stage's wall time, into ``run.stage_s``
    # which stage of how many runs now (1-based; 0 before the first), for the progress line
    stage: int = 0
    stages: int = 0

    def __post_init__(self) -> None:
        self.clock = StageClock(self.run.stage_s)

    def counted(self, report: Callable[[str], None]) -> Callable[[str], None]:
        """``report`` with each message prefixed by the stage running now: "stage 3 of 7: warming up"."""

        def say(message: str) -> None:
            report(f"stage {self.stage} of {self.stages}: {message}" if self.stage else message)

        return say

    def error(self, stage: str, exc: BaseException, *, variant: str = "") -> ErrorInfo:
        """``exc`` as the run's error of ``stage``, at the cell line it was raised from where there is one."""
        locator = self.target.locator
        line = cell_line_of_exception(exc, locator.filename)
        if line is not None:
            line += locator.line_offset
        else:  # Dynamo's errors carry the user's frames in their message ("from user code: ...")
            line = locator.innermost_cell_line(parse_frames(str(exc)))
        return error_info(stage, exc, variant=variant, line=line)

    def before(self, name: str) -> Callable[[], None]:
        """Untimed preparation of a call of variant ``name``: tag trace events with it, reset the namespace."""
        recorder, calls = self.recorder, self.calls

        def prepare() -> None:
            recorder.context = name
            calls.reset(name)

        return prepare

    def tagged(self, name: str, call: Callable[[], Any]) -> Callable[[], Any]:
        """``call`` with the trace events it causes tagged with its variant (a recompile after timing)."""
        recorder = self.recorder

        def tagged() -> Any:
            recorder.context = name
            return call()

        return tagged


@dataclass(frozen=True)
class Stage:
    """One row of the stage table (``run.stages.MEASURE_STAGES``): its name, as errors and a job's per-stage
    call counts say it, and the function that runs it; ``records_calls`` False for a stage that records its
    own parts' calls (timing records warm-up and timing)."""

    name: str
    run: Callable[[Session], None]
    records_calls: bool = True
