"""A run read from a ``TORCH_TRACE`` log (``ProfileRun.imported_trace``), in words: where it came from,
what of the log was skipped, and its headline, which says there are no timings instead of a speedup.

The engine records the facts (``TraceOrigin``: the file, the rank, the torch that wrote it, the counts of
what was skipped); every view says them through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profile_run import ProfileRun, TraceOrigin
from .breaks import break_count_text
from .facts import cache_words
from .format import format_s
from .notes import variant_error

NO_TIMINGS = "from a TORCH_TRACE: no timings"
KINDS_LISTED = 5
RECORDS_LISTED = 3  # the skipped records named with their line
FILES_LISTED = 3


@dataclass
class TraceSummary:
    """Where a run read from a TORCH_TRACE log came from (``trace_summary``)."""

    path: str
    rank: int | None
    torch_version: str  # "" where the trace does not say
    script: str  # the file whose lines are the run's lines
    compile_ids: int  # how many compile ids the trace names
    text: str  # "from the TORCH_TRACE /tmp/t/x.log (rank 1), written by torch 2.13.0+cpu; lines are those of …"
    skipped_text: str  # what of the log was skipped, counted; "" when everything was read
    no_timings: str  # what the views show where a profiled run's timings are: "from a TORCH_TRACE: no timings"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _kinds(counts: dict[str, int]) -> str:
    named = [f"{kind} ×{n}" if n > 1 else kind for kind, n in list(counts.items())[:KINDS_LISTED]]
    more = f", … {len(counts) - KINDS_LISTED} more" if len(counts) > KINDS_LISTED else ""
    return ", ".join(named) + more


def origin_text(t: TraceOrigin) -> str:
    """``from the TORCH_TRACE /tmp/t/dedicated_log_torch_trace_rank_1_x.log (rank 1), written by torch 2.13.0+cpu;
    lines are those of /cluster/me/train.py; read here: /home/me/repo/train.py``: the files of this machine the
    import read (only Python sources under its source roots are)."""
    rank = f" (rank {t.rank})" if t.rank is not None else ""
    torch = f"written by torch {t.torch_version}" if t.torch_version else "the trace does not say which torch wrote it"
    if not t.script:
        script = "no user frame named"
    elif t.script_found:
        script = f"lines are those of {t.script}"
    else:
        script = f"lines are those of {t.script}, not found here (no code beside them)"
    # runs imported before files_read was recorded read the script only
    files = t.files_read or ([t.script_read_from or t.script] if t.script_found else [])
    more = f", … {len(files) - FILES_LISTED} more" if len(files) > FILES_LISTED else ""
    read = f"; read here: {', '.join(files[:FILES_LISTED])}{more}" if files else ""
    return f"from the TORCH_TRACE {t.path}{rank}, {torch}; {script}{read}"


def skipped_text(t: TraceOrigin) -> str:
    """What of the log was not read, counted: ``skipped 3 events of kinds this version does not know
    (new_event ×2, other); 1 line that was no record``; "" when everything was read."""
    parts = []
    unknown = sum(t.unknown_events.values())
    if unknown:
        parts.append(
            f"skipped {_plural(unknown, 'event')} of kinds compile-profile does not know ({_kinds(t.unknown_events)})"
        )
    unreadable = sum(t.unreadable_events.values())
    if unreadable:
        parts.append(f"skipped {_plural(unreadable, 'event')} it could not read ({_kinds(t.unreadable_events)})")
    if t.bad_records:
        listed = [f"line {r.line}: {r.kind}: {r.why}" for r in t.bad_record_lines[:RECORDS_LISTED]]
        more = f"; … {t.bad_records - len(listed)} more" if t.bad_records > len(listed) else ""
        parts.append(
            f"skipped {_plural(t.bad_records, 'record')} not of {'its' if t.bad_records == 1 else 'their'} kind's "
            f"types or cut short ({'; '.join(listed)}{more})"
        )
    if t.skipped_lines:
        parts.append(
            f"skipped {_plural(t.skipped_lines, 'line')} that {'was' if t.skipped_lines == 1 else 'were'} no record"
        )
    return "; ".join(parts)


def trace_summary(run: ProfileRun) -> TraceSummary | None:
    """The summary's ``trace``: where a run read from a trace came from; None for a profiled run."""
    t = run.imported_trace
    if t is None:
        return None
    return TraceSummary(
        path=t.path,
        rank=t.rank,
        torch_version=t.torch_version,
        script=t.script,
        compile_ids=len(t.compile_ids),
        text=origin_text(t),
        skipped_text=skipped_text(t),
        no_timings=NO_TIMINGS,
    )


def trace_headline(run: ProfileRun) -> str:
    """``from a TORCH_TRACE: no timings; compile 41.3 s, cold cache; 2 Dynamo graphs; 6 graph breaks; 3 recompiles``,
    with a failed compile first."""
    variant = run.variants[0] if run.variants else None
    parts = [NO_TIMINGS]
    error = variant_error(variant) if variant is not None else None
    if error:
        parts.append(f"compile failed: {error}")
    if variant is not None and variant.compile_s is not None:
        cache = cache_words(run)
        parts.append(f"compile {format_s(variant.compile_s)}" + (f", {cache}" if cache else ""))
    parts.append(_plural(run.dynamo_graph_count, "Dynamo graph"))
    if run.graph_breaks:
        parts.append(break_count_text(run))
    if run.recompiles:
        parts.append(_plural(len(run.recompiles), "recompile"))
    return "; ".join(parts)
