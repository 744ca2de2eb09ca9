"""Where the profile's own time went: ``ProfileRun.stage_s`` (each stage's wall seconds, recorded by the engine's
``StageClock``) as a sentence and a table's rows, for the text view, the report and the REST digest.

A run stored before the stages were timed has no ``stage_s``: ``profile_cost`` is None for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun
from .format import format_s, format_share

FIRST_CALL = "first call: "
KERNEL_PASS = "kernel pass: "
SHOWN_FROM_S = 0.0005  # stages that took less are left out of the table (a skipped stage records ~0)


@dataclass
class ProfileCostRow:
    """One stage of the profile's own wall time (``profile_cost``)."""

    stage: str  # the key of ProfileRun.stage_s ("kernel pass: eager")
    label: str  # in words ("eager profile (per cell line)")
    seconds: float
    time: str  # "1.2 s"
    share: str  # of the profile's wall time: "43%"


@dataclass
class ProfileCost:
    """Where the profile's own time went (``profile_cost``)."""

    total_s: float
    time: str
    text: str  # one sentence: first calls, timing, after timing and its largest stage
    # in the order the stages ended (an outer one after those in it), those under 0.5 ms left out
    rows: list[ProfileCostRow]


def stage_label(stage: str) -> str:
    """A stage key of ``stage_s`` in the table's words."""
    if stage.startswith(FIRST_CALL):
        return f"{stage[len(FIRST_CALL) :]}: first call (compile)"
    if stage == f"{KERNEL_PASS}eager":
        return "eager profile (per cell line)"
    if stage.startswith(KERNEL_PASS):
        return f"{stage[len(KERNEL_PASS) :]}: kernel profile"
    if stage == "kernel pass":
        return "kernel pass: the rest (roofline, clean-up)"
    if stage == "other":
        return "the rest (setup, reading traces)"
    return stage


def _after_timing(stage: str) -> bool:
    return not (stage.startswith(FIRST_CALL) or stage in ("eager first call", "warm-up", "timing", "other"))


def profile_cost(run: ProfileRun) -> ProfileCost | None:
    """The sentence and rows; None where the run has no stage times."""
    stages = {name: s for name, s in run.stage_s.items() if s >= 0}
    total = sum(stages.values())
    if not stages or total <= 0:
        return None
    rows = [
        ProfileCostRow(stage=name, label=stage_label(name), seconds=s, time=format_s(s), share=format_share(s / total))
        for name, s in stages.items()
        if s >= SHOWN_FROM_S
    ]
    first = sum(s for name, s in stages.items() if name.startswith(FIRST_CALL))
    timing = stages.get("warm-up", 0.0) + stages.get("timing", 0.0)
    after = {name: s for name, s in stages.items() if _after_timing(name)}
    parts = [f"{format_s(first)} in the first compiled calls"] if first else []
    parts.append(f"{format_s(timing)} warming up and timing")
    after_s = sum(after.values())
    if after_s >= SHOWN_FROM_S:
        largest = max(after, key=lambda name: after[name])
        parts.append(
            f"{format_s(after_s)} ({format_share(after_s / total)}) after timing, most of it the "
            f"{stage_label(largest)} ({format_s(after[largest])})"
        )
    text = f"The profile took {format_s(total)}: {', '.join(parts)}."
    return ProfileCost(total_s=total, time=format_s(total), text=text, rows=rows)
