"""The run's verdict: one ladder, decided here once, that every view shows first (issue 31).

A compiled program that computes the wrong thing, or whose compiled code stopped running, has no speedup
worth reading: a post-grad pass made to turn ``add`` into ``sub`` read "1.53× slower" on the badge and the
headline, with "compiled results differ" only as the first warning; a cell whose Python value changes on every
call hit Dynamo's recompile limit, ran eagerly from then on, and read "1.85× slower".  So the first rung of
``LADDER`` that holds is the verdict: its kind, its words, and its tone, which the badge, the headline, the
run list (``summary.list_status``), the text and HTML views, the CLI and the panel read, none deciding again.

  rung              holds when                                                           the speedup
  trace             the run was read from a TORCH_TRACE (no timings)                     none
  eager_failed      the eager run failed                                                 none
  compile_failed    no compiled variant was timed because a compile failed               none
  results_differ    compiled results differ from eager (on any input of a sequence)      not meaningful
  ran_eagerly       the cell's own first frame hit Dynamo's recompile limit (Dynamo      not meaningful
                    runs it eagerly from then on), or the profiled calls of the compiled
                    variant ran no compiled graph
  nothing_compiled  Dynamo captured no graph (a frame it skipped, or no torch ops)       none
  stopped           the profile stopped before a speedup (a later run failed, Ctrl-C)    none
  busy_cpu          other processes' load set the timed calls: torch ran more threads     not meaningful
                    than the free cores and eager at that many was faster by a tenth, or
                    the samples that did not wait read another speedup by a tenth
                    (``contention.speedup_unsettled``)
  partly_eager      a frame other than the cell's first hit the recompile limit (a       meaningful: the
                    library's, or the cell's code after one of its graph breaks), or      speedup leads
                    Dynamo skipped a frame (a graph break it could not resume after),
                    while the profiled calls still ran compiled graphs
  not_measurable    the speedup's interval includes 1× (or there are too few samples)   within noise
  faster / slower   otherwise                                                            the verdict

A rung that overrides the speedup keeps it on screen beneath the verdict, marked: ``1.53× slower — not
meaningful: compiled results differ`` (``speedup_text``), ``speedup_meaningful`` false.  Each fact a rung reads
is one the engine recorded: ``Correctness.ok`` and ``InputCall.matches``, ``Recompile.limit`` with
``Recompile.frame`` ("" for the cell's own code) and ``Recompile.resumes_after`` (its code after a graph break), the profiler pass's ``no_graph_region`` note, a graph break
Dynamo could not resume after (``breaks.BreakGroup.skipped_rest``), the variants' errors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..profile_run import ProfileRun, Recompile, Variant
from .breaks import at_break_place, break_groups, break_place
from .contention import speedup_unsettled
from .format import format_diff, lines_of, ratio_phrase
from .notes import COMPILE_STAGE_WORDS, error_message, variant_error
from .trace import trace_headline

OutcomeKind = Literal[
    "trace",
    "eager_failed",
    "compile_failed",
    "results_differ",
    "ran_eagerly",
    "nothing_compiled",
    "stopped",
    "busy_cpu",
    "partly_eager",
    "not_measurable",
    "faster",
    "slower",
    "unreadable",  # a stored run that cannot be read (``summary.unreadable_summary``): no rung holds
]
# What a view colours a verdict by: "wrong" (a failure, results that differ), "eager" (compiled code did not run),
# or the speedup's own: "faster", "slower", "even" (no measurable difference), "none" (no speedup)
Tone = Literal["wrong", "eager", "faster", "slower", "even", "none"]


@dataclass(frozen=True)
class Rung:
    """One rung of the ladder: the kind, when it holds (``finds``: the verdict's sentence, else None), the few words
    a badge and a list show (``label``; "" where the speedup's own words are the label), its tone (None: the
    speedup's), and, where it overrides the speedup, why the speedup is not meaningful."""

    kind: OutcomeKind
    finds: Callable[[ProfileRun], str | None]
    label: str = ""
    tone: Tone | None = None
    not_meaningful: str = ""  # "" where the speedup stays meaningful beneath this verdict


@dataclass(frozen=True)
class Verdict:
    """The verdict of one run: the rung that held and the sentence it found (``outcome``)."""

    rung: Rung
    text: str

    @property
    def kind(self) -> OutcomeKind:
        return self.rung.kind

    @property
    def overrides(self) -> bool:
        """Whether the verdict says more than the speedup can, which is then not meaningful."""
        return bool(self.rung.not_meaningful)


# -- the facts each rung reads -----------------------------------------------------------------------------------


def _speedup_variant(run: ProfileRun) -> Variant | None:
    best = run.speedup_variant
    return best if best is not None and best.timing is not None else None


def no_speedup_text(run: ProfileRun) -> str:
    """Why a run has no speedup, in the headline's words: the eager run or a compile failed (where), nothing was
    compiled, or the profile stopped on a later run of the cell or by the user."""
    eager = run.eager
    if eager is not None and variant_error(eager):
        return f"eager run failed: {variant_error(eager)}"
    failed = [v for v in run.compiled_variants if variant_error(v)]
    if failed:
        error = next((e for e in run.errors if e.variant == failed[0].name and e.stage == "compile"), None)
        where = COMPILE_STAGE_WORDS.get(error.compile_stage, "") if error is not None else ""
        return f"compile failed ({failed[0].name}){f' {where}' if where else ''}: {variant_error(failed[0])}"
    if not run.graphs and run.status == "ok":
        skipped = next((g for g in break_groups(run) if g.skipped_rest and not g.inside), None)
        if skipped is not None:  # a graph break Dynamo could not resume after: it skipped the cell's own frame
            return (
                f"nothing was compiled: Dynamo could not resume after the graph break at "
                f"{break_place(skipped, lines_of(run))} and ran the cell eagerly"
            )
        return "nothing was compiled: the cell ran no torch operations that Dynamo could capture"
    later = next((e for e in run.errors if e.call is not None), None)
    if later is not None:
        return f"profile stopped at {later.stage}: the cell's run {later.call} raised {error_message(later)}"
    return f"profile {run.status}"


def _eager_failed(run: ProfileRun) -> str | None:
    eager = run.eager
    return no_speedup_text(run) if run.speedup is None and eager is not None and variant_error(eager) else None


def _compile_failed(run: ProfileRun) -> str | None:
    if run.speedup is not None or not any(variant_error(v) for v in run.compiled_variants):
        return None
    return no_speedup_text(run)


def _results_differ(run: ProfileRun) -> str | None:
    c = run.correctness
    if c is not None and c.ok is False:
        where = f" in {', '.join(c.mismatched)}" if c.mismatched else ""
        diff = f" (max abs diff {format_diff(c.max_abs_diff)})" if c.max_abs_diff is not None else ""
        return f"results differ: compiled differs from eager{where}{diff}"
    sequence = run.inputs
    wrong = [c for c in sequence.calls if c.matches is False] if sequence is not None else []
    if sequence is not None and wrong:
        compared = sum(1 for c in sequence.calls if c.matches is not None)
        return f"results differ: compiled differs from eager on {len(wrong)} of {compared} inputs"
    return None


def _limit_words(r: Recompile) -> str:
    """``torch._dynamo.config.recompile_limit (8)``."""
    return f"torch._dynamo.config.{r.limit}"


def _limits(run: ProfileRun, variant: Variant) -> list[Recompile]:
    return [r for r in run.recompiles if r.limit and r.variant == variant.name]


def _profiled_no_graph(variant: Variant) -> bool | None:
    """Whether the variant's profiler pass saw its calls run no compiled graph (True), saw them run one (False), or
    did not look (None: no pass, a --quick profile)."""
    profile = variant.kernel_profile
    if profile is None:
        return None
    return any(n.kind == "no_graph_region" for n in profile.notes)


def _ran_eagerly(run: ProfileRun) -> str | None:
    best = _speedup_variant(run)
    if best is None:
        return None
    no_graph = _profiled_no_graph(best)
    # the cell's own first frame hit the limit; a frame that resumes after one of its graph breaks runs eagerly while
    # the graphs before the break still run compiled (a training step's `losses.append(loss.item())` hit the limit
    # on the frame after the .item() break, holding no graph, and the step read "ran eagerly" while its forward and
    # backward graph ran compiled in 20 of 20 calls): partly eager, below
    own = next((r for r in _limits(run, best) if not r.frame and r.resumes_after is None), None)
    if own is not None and no_graph is not False:
        how = (
            ", as its profiled calls show (they ran no compiled graph)"
            if no_graph
            else " (a call runs compiled only where an earlier compile's guards accept it)"
        )
        return (
            f"ran eagerly: the cell's code hit Dynamo's recompile limit, {_limit_words(own)}, at compile "
            f"{own.compile_id}, and Dynamo runs it eagerly from then on{how}"
        )
    if no_graph and any(g.variant == best.name for g in run.graphs):
        return f"ran eagerly: the profiled {best.name} calls ran no compiled graph, every op outside compiled code"
    return None


def _nothing_compiled(run: ProfileRun) -> str | None:
    return no_speedup_text(run) if run.speedup is None and not run.graphs and run.status == "ok" else None


def _stopped(run: ProfileRun) -> str | None:
    return no_speedup_text(run) if run.speedup is None else None


SKIPPED_NAMED = 2  # skipped functions a verdict names before it counts the rest


def partly_eager_text(run: ProfileRun) -> str:
    """What of the compiled variant ran eagerly while its profiled calls still ran compiled graphs: a frame that hit
    the recompile limit (a library's, or the cell's own where the pass saw graphs run), a frame Dynamo skipped after
    a graph break it could not resume from; "" where nothing did."""
    best = _speedup_variant(run)
    if best is None:
        return ""
    parts: list[str] = []
    for r in _limits(run, best):
        if r.frame:
            who = f"{r.frame} ({r.filename.replace(chr(92), '/').rsplit('/', 1)[-1]})"
        elif r.resumes_after is not None:
            frame_id = r.compile_id.split("/")[0]
            graphs = any(g.compile_id.split("/")[0] == frame_id for g in run.graphs if g.variant == best.name)
            held = "" if graphs else ", which holds no graph"
            who = f"the cell's code after its graph break at line {r.resumes_after}{held},"
        else:
            who = "the cell's code"
        parts.append(
            f"{who} hit {_limit_words(r)} at compile {r.compile_id}: calls no earlier compile's guards accept run it "
            "eagerly"
        )
    of = lines_of(run)
    skipped = [g for g in break_groups(run) if g.skipped_rest and (not g.variants or best.name in g.variants)]
    if len(skipped) > SKIPPED_NAMED:
        # a headline, not the list: a Mixtral MoE training step skipped 13 functions, and its verdict had read
        # 13 clauses; the card's graph-break list places every one
        named = "; ".join(at_break_place(g, of) for g in skipped[:SKIPPED_NAMED])
        parts.append(
            f"Dynamo could not resume after {len(skipped)} graph breaks and ran the rest of each function eagerly "
            f"({named}; and {len(skipped) - SKIPPED_NAMED} more in the graph breaks below)"
        )
    else:
        parts.extend(
            f"Dynamo could not resume after the graph break {at_break_place(g, of)} and ran the rest of that function "
            "eagerly"
            for g in skipped
        )
    return "part of it ran eagerly: " + "; ".join(parts) if parts else ""


def _partly_eager(run: ProfileRun) -> str | None:
    best = _speedup_variant(run)
    s = run.speedup
    if best is None or s is None:
        return None
    text = partly_eager_text(run)
    within = " (within noise)" if s.includes_one else ""
    return f"{best.name} {ratio_phrase(s.value)}{within}; {text}" if text else None


def _not_measurable(run: ProfileRun) -> str | None:
    s, best = run.speedup, _speedup_variant(run)
    if s is None or best is None:
        return None
    if not s.has_interval:
        return f"not measurably different: {best.name} {ratio_phrase(s.value)}, too few samples for an interval"
    return f"not measurably different: {best.name} {ratio_phrase(s.value)} within noise" if s.includes_one else None


def _faster(run: ProfileRun) -> str | None:
    s, best = run.speedup, _speedup_variant(run)
    return f"{best.name} {ratio_phrase(s.value)}" if s is not None and best is not None and s.value >= 1 else None


def _slower(run: ProfileRun) -> str | None:
    s, best = run.speedup, _speedup_variant(run)
    return f"{best.name} {ratio_phrase(s.value)}" if s is not None and best is not None else None


# The ladder, first rung first: the first that finds its sentence is the verdict.
LADDER: tuple[Rung, ...] = (
    Rung("trace", lambda run: trace_headline(run) if run.imported_trace is not None else None, tone="none"),
    Rung("eager_failed", _eager_failed, label="eager failed", tone="wrong"),
    Rung("compile_failed", _compile_failed, label="compile failed", tone="wrong"),
    Rung("results_differ", _results_differ, "results differ", "wrong", "compiled results differ"),
    Rung("ran_eagerly", _ran_eagerly, "ran eagerly", "eager", "the compiled calls ran eagerly"),
    Rung("nothing_compiled", _nothing_compiled, label="nothing compiled", tone="eager"),
    Rung("stopped", _stopped, tone="none"),
    Rung("busy_cpu", speedup_unsettled, "busy CPU", "none", "measured on a busy CPU"),
    Rung("partly_eager", _partly_eager, label="partly eager"),
    Rung("not_measurable", _not_measurable, tone="even"),
    Rung("faster", _faster, tone="faster"),
    Rung("slower", _slower, tone="slower"),
)
# Rungs whose label the run's status already says ("failed"): a list shows the label alone
_FAILURES = ("eager_failed", "compile_failed")


def outcome(run: ProfileRun) -> Verdict:
    """The first rung of ``LADDER`` that holds, with its sentence."""
    for rung in LADDER:
        text = rung.finds(run)
        if text is not None:
            return Verdict(rung, text)
    raise AssertionError("the ladder's last rung holds for every run with a speedup, and 'stopped' for the rest")


def speedup_tone(run: ProfileRun) -> Tone:
    """The speedup's own tone: faster or slower beyond its interval, even within it or without one."""
    s = run.speedup
    if s is None:
        return "none"
    low, high = s.low, s.high
    if not s.has_interval or low is None or high is None:
        return "even"
    return "faster" if low > 1 else "slower" if high < 1 else "even"


def speedup_text(run: ProfileRun, verdict: Verdict | None = None) -> str:
    """The speedup as it stands beneath the verdict: ``1.53× slower — not meaningful: compiled results differ``
    where the verdict overrides it, else its phrase (``1.30× slower (within noise)``); "" without one."""
    s = run.speedup
    if s is None:
        return ""
    verdict = verdict or outcome(run)
    phrase = ratio_phrase(s.value)
    if verdict.overrides:
        return f"{phrase} — not meaningful: {verdict.rung.not_meaningful}"
    return f"{phrase} (within noise)" if s.includes_one else phrase


def badge_text(run: ProfileRun, verdict: Verdict | None = None) -> str:
    """What a badge shows: the verdict's label, or the speedup (``1.25× faster``) where the speedup is the verdict,
    or the run's status where it has neither."""
    verdict = verdict or outcome(run)
    if verdict.rung.label and (verdict.overrides or verdict.kind in _FAILURES or run.speedup is None):
        return verdict.rung.label
    return ratio_phrase(run.speedup.value) if run.speedup is not None else run.status


def list_status(run: ProfileRun, verdict: Verdict | None = None) -> str:
    """The run's state in the words every list shows (``compile-profile ls``, the panel's run list): the verdict's
    label where it says more than the speedup (``results differ``, ``ran eagerly``, ``compile failed``), after the
    run's status where that is not "ok" and says something else (``interrupted, results differ``); else its
    status.  A list that showed "ok" hid the mismatch the card reported."""
    verdict = verdict or outcome(run)
    label = verdict.rung.label
    if not label or not (verdict.overrides or verdict.kind in (*_FAILURES, "nothing_compiled", "partly_eager")):
        return run.status
    if run.status == "ok" or (run.status == "failed" and verdict.kind in _FAILURES):
        return label
    return f"{run.status}, {label}"


def tone(run: ProfileRun, verdict: Verdict | None = None) -> Tone:
    verdict = verdict or outcome(run)
    return verdict.rung.tone or speedup_tone(run)


@dataclass
class Outcome:
    """The run's verdict as every view shows it first, coloured by ``tone``; beneath a verdict that overrides it the
    speedup is not meaningful (``outcome_digest``)."""

    kind: OutcomeKind
    label: str  # what a badge shows: "results differ", "ran eagerly", or the speedup where it is the verdict
    text: str  # the verdict's sentence, which the headline leads with
    tone: Tone
    speedup_meaningful: bool  # False beneath a verdict that overrides the speedup, and without one
    speedup_text: str  # "1.53× slower — not meaningful: compiled results differ"; the phrase where meaningful


def outcome_digest(run: ProfileRun) -> Outcome:
    """The verdict as the panel and the card read it (the summary's ``outcome``)."""
    verdict = outcome(run)
    return Outcome(
        kind=verdict.kind,
        label=badge_text(run, verdict),
        text=verdict.text,
        tone=tone(run, verdict),
        speedup_meaningful=run.speedup is not None and not verdict.overrides,
        speedup_text=speedup_text(run, verdict),
    )
