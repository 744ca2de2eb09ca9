"""Where a call's time goes, per variant, and the one sentence that says why compiled is faster or slower.

A variant's ``KernelProfile.breakdown`` splits the kernel time of one call by kind of kernel (library,
generated, ATen, copies, and collectives in a distributed run; see ``CallBreakdown``).  The time outside
kernels (Python, guards, launches; on CPU the host time between ops) is not measured apart: it is the
timed median less the kernels, so the parts of a row add up to the call every view shows.  The profiler pass runs after timing and
under the profiler, so its kernels can take longer than the timed median; within the timer's noise
(``kernel_times``) the outside time is clamped to 0 and ``clamp_warning`` says so once.  Beyond it, or
where a busy machine preempted every profiled call, the pass is withheld (``kernel_times.withheld``): the
row shows each kind's share of the pass's kernel time and no time outside kernels, and the verdict does
not say where the time went.  On CPU the profiler's cost per op, which lands in each op's host time, is
calibrated and taken out by the pass (``engine.kernels.profiler_cost``); a run stored before that whose profiled
call ran much slower than a timed one is withheld the same way (``kernel_times``).  A row is either
measured (times) or withheld (shares): the verdict, the diagnosis and its heading read the same judgment.

``verdict`` compares the speedup's variant with eager part by part: whether the kernels or the time
outside them made the difference, in numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profile_run import ProfileRun, Variant
from ..serialize import ADDED_LATER
from .contention import speedup_unsettled
from .format import format_ms
from .kernel_times import pass_judgment, share_text

OVERHEAD_BOUND = 0.5  # kernels' share of a compiled call below which the call is overhead-bound
REDUCE_OVERHEAD = "mode='reduce-overhead' removes launch overhead"


@dataclass(frozen=True)
class BreakdownRow:
    """Where one call's time goes in one variant, in ms: its kinds of kernel time, the time outside kernels and the
    timed median, with each cell worded."""

    variant: str
    method: str  # "cupti" (device times) or "host" (host times of each op's call)
    median_ms: float  # the whole call
    library_ms: float
    generated_ms: float
    aten_ms: float
    copy_ms: float
    kernels_ms: float
    outside_ms: float  # median - kernels, 0 when the profiled kernels took longer than the median
    clamped: bool = field(default=False, metadata=ADDED_LATER)  # the kernels took longer: outside_ms reads 0
    collective_ms: float = field(default=0.0, metadata=ADDED_LATER)  # communication; 0 outside distributed runs
    profiled_ms: float | None = field(default=None, metadata=ADDED_LATER)  # a profiled call's wall time
    trusted: bool = field(default=True, metadata=ADDED_LATER)  # False: the pass is withheld, the parts its shares
    withheld_text: str = field(default="", metadata=ADDED_LATER)  # why the pass is withheld; "" when it is not
    texts: dict[str, str] = field(init=False, metadata=ADDED_LATER)  # column -> its cell: "1.2 ms", "40% of pass"

    def __post_init__(self) -> None:  # worded once, from the row's figures (frozen: they cannot change after)
        # every column a table may show, collectives too where this row spent none in them (a table of rows
        # of which one did shows the column)
        keys = dict.fromkeys([*self.parts(), "collectives"])
        object.__setattr__(self, "texts", {key: self.part_text(key) for key in keys})

    def parts(self) -> dict[str, float]:
        """The parts of the call in the order they add up, then the call, as every view's columns name them.

        ``collectives`` is a part only where the call spent time in them (a distributed run); a table of
        several rows takes its columns from ``columns(rows)`` and reads each with ``part``.
        """
        parts = {
            "library": self.library_ms,
            "generated": self.generated_ms,
            "aten": self.aten_ms,
            "copies": self.copy_ms,
        }
        if self.collective_ms > 0:
            parts["collectives"] = self.collective_ms
        return parts | {"outside": self.outside_ms, "call": self.median_ms}

    def part(self, key: str) -> float:
        """One column's time (0 for collectives in a row that spent none in them)."""
        return self.parts().get(key, 0.0)

    def part_text(self, key: str) -> str:
        """One column as every view words it: the time; in a withheld row a kind's share of the pass's
        kernel time (``40% of pass``), "—" outside kernels, the timed call as it is."""
        value = self.part(key)
        if self.trusted or key == "call":
            return format_ms(value)
        if key == "outside":
            return "—"
        return share_text(value / self.kernels_ms if self.kernels_ms > 0 else None)


@dataclass
class BreakdownColumn:
    """A column of the breakdown table, keyed as ``BreakdownRow.parts``, and its heading."""

    key: str
    label: str


# The columns every view shows, keyed as ``BreakdownRow.parts``: (key, heading).
COLUMNS = (
    ("library", "library"),
    ("generated", "generated"),
    ("aten", "ATen"),
    ("copies", "copies"),
    ("outside", "outside kernels"),
    ("call", "call"),
)
COLLECTIVES = ("collectives", "collectives")
TITLE = "Where a call's time goes"


def columns(rows: list[BreakdownRow]) -> tuple[tuple[str, str], ...]:
    """``COLUMNS``, with ``collectives`` after copies when any row spent time in them."""
    if not any(r.collective_ms > 0 for r in rows):
        return COLUMNS
    at = [key for key, _ in COLUMNS].index("copies") + 1
    return (*COLUMNS[:at], COLLECTIVES, *COLUMNS[at:])


def breakdown_columns(rows: list[BreakdownRow]) -> list[BreakdownColumn]:
    """``columns`` as the summary serves them, so the panel lays out the columns the text and HTML views do."""
    return [BreakdownColumn(key=key, label=label) for key, label in columns(rows)]


def breakdown_note(rows: list[BreakdownRow]) -> str:
    """What the table's figures are, said under it: device or host time, and what "outside kernels" is."""
    collectives = (
        "; collectives are the process group's communication (all-reduce, broadcast...)"
        if any(r.collective_ms > 0 for r in rows)
        else ""
    )
    if rows and all(r.method == "host" for r in rows):
        return (
            "host time of each call's ops, by kind; outside kernels is the timed call less its ops: "
            "Python, guards, dispatch" + collectives
        )
    return (
        "device time of each call's kernels, by kind; outside kernels is the timed call less its kernels: "
        "Python, guards, launches" + collectives
    )


def breakdown_row(v: Variant) -> BreakdownRow | None:
    profile = v.kernel_profile
    if profile is None or profile.breakdown is None or v.timing is None:
        return None
    b = profile.breakdown
    median, kernels = v.timing.median_ms, b.kernels_ms
    outside = median - kernels
    judged = pass_judgment(v)
    trusted = judged is None or judged.trusted
    return BreakdownRow(
        variant=v.name,
        method=profile.method,
        median_ms=median,
        library_ms=b.library_ms,
        generated_ms=b.generated_ms,
        aten_ms=b.aten_ms,
        copy_ms=b.copy_ms,
        kernels_ms=kernels,
        outside_ms=max(outside, 0.0) if trusted else 0.0,
        clamped=outside < 0 and trusted,
        collective_ms=b.collective_ms,
        profiled_ms=profile.profiled_call_ms,
        trusted=trusted,
        withheld_text="" if judged is None or judged.trusted else judged.text,  # "" where trusted
    )


@dataclass(frozen=True)
class KernelGroup:
    """One group of a compiled call's kernels beside eager's same group (``kernel_groups``)."""

    name: str  # "library kernels", "generated and ATen kernels", "copies" or "generated, ATen and copy kernels"
    ms: float
    eager_ms: float

    @property
    def grew_ms(self) -> float:
        """How much longer than eager's the group takes (< 0: shorter)."""
        return self.ms - self.eager_ms


def kernel_groups(row: BreakdownRow, eager: BreakdownRow, *, copies_apart: bool) -> list[KernelGroup]:
    """The call's kernel time against eager's, group by group: library kernels (matmul, convolution, attention),
    then the generated and ATen ones, with the copies among them or (``copies_apart``) a group of their own.  The
    verdict names the group that grew most; the diagnosis ranks each that grew."""
    groups = [KernelGroup("library kernels", row.library_ms, eager.library_ms)]
    if copies_apart:
        return groups + [
            KernelGroup(
                "generated and ATen kernels", row.generated_ms + row.aten_ms, eager.generated_ms + eager.aten_ms
            ),
            KernelGroup("copies", row.copy_ms, eager.copy_ms),
        ]
    return groups + [
        KernelGroup(
            "generated, ATen and copy kernels",
            row.generated_ms + row.aten_ms + row.copy_ms,
            eager.generated_ms + eager.aten_ms + eager.copy_ms,
        )
    ]


def breakdown(run: ProfileRun) -> list[BreakdownRow]:
    """A row per timed variant with a breakdown, in the run's order of variants."""
    return [row for v in run.variants if (row := breakdown_row(v)) is not None]


def clamp_warning(run: ProfileRun) -> str | None:
    """One warning for every variant whose profiled kernels took longer than its timed call (within the
    timer's noise: a withheld pass says so itself, ``kernel_times``)."""
    clamped = [r for r in breakdown(run) if r.trusted and r.clamped]
    if not clamped:
        return None
    which = ", ".join(f"{r.variant} {format_ms(r.kernels_ms)} against {format_ms(r.median_ms)}" for r in clamped)
    return (
        f"the profiled calls ran slower than the timed ones (kernels {which}), so the time outside kernels reads 0 "
        "there"
    )


def _withheld_why(run: ProfileRun, variant: str) -> str:
    """Why a variant's pass is withheld, in the verdict's few words (``kernel_times`` says it in full)."""
    j = pass_judgment(run.variant(variant))
    assert j is not None  # only a withheld row's variant is asked about, and a withheld pass was judged
    return j.why


def _subject(run: ProfileRun, variant: str) -> str:
    """``compiled`` when the run has one compiled variant, else the variant's name."""
    return "compiled" if len(run.compiled_variants) <= 1 else variant


def reduce_overhead_advice(run: ProfileRun, best: Variant) -> str:
    """CUDA graphs remove launch overhead: said on CUDA, unless the variant already uses them."""
    if run.device.type != "cuda" or "reduce-overhead" in (best.mode or "") or "reduce-overhead" in best.name:
        return ""
    return f"; {REDUCE_OVERHEAD}"


def _waits_for_ranks(run: ProfileRun) -> bool:
    """A rank of a job of several: its time outside kernels includes waiting in collectives for slower ranks."""
    return run.distributed is not None and run.distributed.world_size > 1


def verdict(run: ProfileRun) -> str | None:
    """Why the speedup's variant is faster or slower than eager, in one sentence with numbers.

    None when the run has no speedup, either side has no breakdown, or the verdict says other processes' load set
    the timed calls (``outcome``'s busy_cpu): "compiled is faster, but ..." beneath "busy CPU: ..." read as the
    finding the verdict had just withdrawn.  Beneath results that differ, or an eager fallback, the times stand as
    measured and the sentence says where they went.
    """
    s = run.speedup
    eager = run.eager
    if s is None or eager is None or speedup_unsettled(run) is not None:
        return None
    best = next((v for v in run.variants if v.name == s.variant), None)
    if best is None:
        return None
    e = breakdown_row(eager)
    c = breakdown_row(best)
    if e is None or c is None:
        return None
    who = _subject(run, c.variant)
    host = c.method == "host"
    kernels = f"its kernels take {format_ms(c.kernels_ms)}" + (" of host time" if host else "")
    kernels += f" (eager {format_ms(e.kernels_ms)})"
    # A rank's wait for a slower rank (one that recompiled, say) shows as time outside its own kernels
    waiting = (
        f"; {'Python, guards, dispatch' if host else 'Python, guards, launches'} and waiting for other ranks"
        if _waits_for_ranks(run)
        else ""
    )

    def spends(outside_what: str) -> str:
        return (
            f"each call spends {format_ms(c.outside_ms)}"
            + (" of host time" if host else "")
            + f" outside {outside_what} (eager {format_ms(e.outside_ms)}{waiting})"
        )

    outside = spends("them")  # after "its kernels take …"
    # where the time outside leads the sentence, "them" had no kernels before it to mean (a BERT cell: "compiled is
    # faster: each call spends 206 µs of host time outside them")
    outside_first = spends("its kernels")
    overhead_bound = c.median_ms > 0 and c.kernels_ms < OVERHEAD_BOUND * c.median_ms
    kernel_change = c.kernels_ms - e.kernels_ms  # > 0: compiled's kernels take longer
    outside_change = c.outside_ms - e.outside_ms

    pace = "about as fast as eager" if s.includes_one else ("faster" if s.value >= 1 else "slower")
    if not e.trusted or not c.trusted:
        # The pass is withheld (``kernel_times``): a busy machine preempted every profiled call, its
        # kernels took longer than the timed call beyond the timer's noise, or (a run stored before the
        # profiler's cost was calibrated) its profiled call ran far slower than the timed one: a BERT cell
        # read "faster: 0 ns outside kernels (eager 0 ns); its kernels take 108 ms (eager 48 ms)".  Kernels
        # within that noise are this call's (an H200 attention's 2.23 ms of eager kernels against a 2.22 ms
        # call): clamped.
        why = "; ".join(_withheld_why(run, r.variant) for r in (e, c) if not r.trusted)
        return f"{who} is {pace}, but the profiler pass cannot say where ({why})"
    if s.includes_one:
        return f"{who} is about as fast as eager (the speedup's interval includes 1×): {kernels} and {outside}"
    if s.value < 1:
        if outside_change >= kernel_change:
            return f"{who} is slower: {kernels} but {outside}{reduce_overhead_advice(run, best)}"
        grown = max(kernel_groups(c, e, copies_apart=True), key=lambda g: g.grew_ms)
        grew = f"{grown.name} {format_ms(grown.ms)} (eager {format_ms(grown.eager_ms)})"
        return (
            f"{who} is slower: {kernels}, {grew}; outside kernels {format_ms(c.outside_ms)} "
            f"(eager {format_ms(e.outside_ms)}{waiting})"
        )
    advice = reduce_overhead_advice(run, best) if overhead_bound else ""
    if -outside_change > -kernel_change:  # the saving is mostly outside the kernels (CUDA graphs, fewer launches)
        return f"{who} is faster: {outside_first}; {kernels}{advice}"
    replaced = ""
    if c.generated_ms > 0 and e.aten_ms > 0 and c.aten_ms > 0:
        # ATen kernels left in the compiled variant (code Dynamo left eager, around graph breaks): the
        # generated ones replaced only part of eager's (an H200 training step: 220 µs generated and
        # 1.27 ms ATen against eager's 900 µs ATen, whose forward and backward Dynamo did not compile)
        replaced = (
            f", generated kernels ({format_ms(c.generated_ms)}) and ATen kernels ({format_ms(c.aten_ms)}) "
            f"where eager ran {format_ms(e.aten_ms)} of ATen kernels"
        )
    elif c.generated_ms > 0 and e.aten_ms > 0:
        replaced = (
            f", generated kernels ({format_ms(c.generated_ms)}) replacing {format_ms(e.aten_ms)} of eager ATen kernels"
        )
    return (
        f"{who} is faster: {kernels}{replaced}; outside kernels {format_ms(c.outside_ms)} "
        f"(eager {format_ms(e.outside_ms)}{waiting}){advice}"
    )
