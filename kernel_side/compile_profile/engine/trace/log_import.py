"""``TORCH_TRACE`` logs of any run read as ``ProfileRun``s: ``compile-profile import-trace``.

A script, a training job or every rank of a ``torchrun`` job run with ``TORCH_TRACE=DIR`` leaves one log per
process in ``DIR`` (``dedicated_log_torch_trace[_rank_N]_*.log``, what tlparse reads).  Each log becomes one run,
read by the same handlers a live profile's capture goes through (``log_file`` then ``model``): its
graphs, graph breaks, recompiles with their failed guards, guards, compile time and phases, cache hits and
misses, and the kernels Inductor wrote with their cell lines where the log has provenance.  The "cell" is the
script: the file of the outermost user frame of the compiles, read from disk where it still is.

What a trace cannot know, a run from one does not hold: it has one variant (``TRACE_VARIANT``), never timed,
no eager variant, no speedup, no peak memory, no correctness check; ``ProfileRun.imported_trace`` says where it
came from (``TraceOrigin``), and the views word that.  The logs of one directory whose records name ranks are
one job: their runs share a ``DistributedRank.job_id`` (the job view lays them side by side).

Never fatal on what a log holds: a line that is no record is skipped and counted (``log_file``), a record not
of its kind's types or with its payload cut short is skipped and kept with its line (``records``), an event
kind the trace model does not know (a newer torch's) is skipped and counted by kind, and an event of a known
kind whose content a handler cannot read is skipped and counted by kind.  A log written by another torch
release reads as the installed release's would: the handlers read only the log.

Safe with anyone's log: it is read streamed and within ``TraceLimits`` (``log_file``), and a file it names is
read only under the source-roots rule (``sources``); the run records which files were read.
"""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import os
import stat
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...plain_text import escaped_line, first_line
from ...profile_run import (
    Device,
    DistributedRank,
    ErrorInfo,
    Graph,
    Note,
    ProfileRun,
    SkippedRecord,
    TraceOrigin,
    Variant,
)
from ...user_input import MAX_TEXT, label_problem
from .log_file import DEFAULT_LIMITS, NoTrace, TraceFile, TraceLimitExceeded, TraceLimits, clip_kind, read_trace_file
from .records import load_json
from .sources import SourceFiles, script_candidates

__all__ = [
    "NoTrace",
    "TraceLimitExceeded",
    "TraceLimits",
    "import_trace",
    "run_from_trace",
    "script_candidates",
    "trace_files",
]

if TYPE_CHECKING:
    from ..cell.locator import CellLocator
    from .model.state import FailedCompile

# The trace model (and with it torch, 270 MB) is imported once a log has records to read: a path with none (a
# gzip of newlines) is refused by the reader alone, in a few tens of MB.

TRACE_VARIANT = "trace"
UNKNOWN_KINDS_KEPT = 50  # the unknown kinds a run names, the most frequent; the others are counted together
OTHER_KINDS = "(other kinds)"

# frames of no user script: Python's own runners and libraries
_NOT_A_SCRIPT = ("/site-packages/", "/dist-packages/", "/lib/python3", "/runpy.py", "/torch/")


class NothingToImport(NoTrace):
    """A path that holds no log to import: none there, no log in it, no record in its logs, not a regular file,
    or not readable.  The server answers each of these with one message (``server.handlers``), which says no
    more about a path than that nothing there can be imported."""


def trace_files(path: str | Path, limits: TraceLimits = DEFAULT_LIMITS, *, within: Path | None = None) -> list[Path]:
    """The logs at ``path``: the file itself, or every ``*.log`` and ``*.log.gz`` in the directory and its
    subdirectories (one per process; torchrun's ranks each write one), in name order.  The walk follows no
    symlinked directory and looks at most at ``limits.walk_entries`` entries; ``within``, when given, keeps only
    the logs whose real path is inside it (a symlink out of the server's root is no log of it)."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) or isinstance(exc, NotADirectoryError):
            raise NothingToImport(f"{path}: no such file or directory") from None
        raise NothingToImport(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):
        return [path]
    if not stat.S_ISDIR(mode):
        raise NothingToImport(f"{path} is neither a directory nor a log (it is a special file)")
    found: list[Path] = []
    seen = 0
    pending = [path]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # an unreadable subdirectory holds no log of ours
        for entry in entries:
            seen += 1
            if seen > limits.walk_entries:
                raise TraceLimitExceeded(
                    f"{path} holds more files and directories than {limits.describe('walk_entries')}: "
                    "give the TORCH_TRACE directory itself"
                )
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                    continue
                if not entry.name.endswith((".log", ".log.gz")) or not entry.is_file():
                    continue
            except OSError:
                continue
            log = Path(entry.path)
            if within is not None and not _inside(log, within):
                continue
            found.append(log)
            if len(found) > limits.logs:
                raise TraceLimitExceeded(f"{path} holds more logs than {limits.describe('logs')}")
    if not found:
        raise NothingToImport(f"{path} holds no TORCH_TRACE log (*.log or *.log.gz)")
    return sorted(found)


def _inside(path: Path, root: Path) -> bool:
    real, root = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    return real == root or real.is_relative_to(root)


def is_known_kind(kind: str) -> bool:
    """Read by a handler, or written by a supported torch release (``model.torch_kinds``)."""
    from .model import HANDLERS
    from .model.torch_kinds import torch_writes

    return kind in HANDLERS or torch_writes(kind)


def import_trace(
    path: str | Path,
    *,
    label: str = "",
    source_roots: Sequence[str | Path] = (),
    limits: TraceLimits = DEFAULT_LIMITS,
    within: Path | None = None,
) -> list[ProfileRun]:
    """One run per log at ``path``; the logs that name ranks are one job, their runs in rank order.  A file the
    trace names is read only under the source-roots rule (``sources``): inside the log's own directory or
    one of ``source_roots``.  ``limits`` caps what is read (``NoTrace`` naming the cap past one); ``within``
    keeps the logs of a directory to those whose real path is inside it (the server's root)."""
    _check_arguments(label, source_roots)
    deadline = time.monotonic() + limits.seconds if limits.seconds else None
    files = []
    for p in trace_files(path, limits, within=within):
        try:
            files.append(read_trace_file(p, limits, deadline=deadline))
        except NoTrace as exc:
            if isinstance(exc, TraceLimitExceeded):
                raise
            raise NothingToImport(str(exc)) from None
        except OSError as exc:
            raise NothingToImport(f"cannot read {p}: {exc.strerror or exc}") from None
    # a log with no record: another program's (torchrun's own output), or a process that compiled nothing
    files = [f for f in files if f.records]
    if not files:
        raise NothingToImport(f"{path} holds no TORCH_TRACE record (is it a log TORCH_TRACE=DIR wrote?)")
    runs = []
    for f in files:
        roots = [f.path.parent, *source_roots]
        try:
            runs.append(run_from_trace(f, label=label, sources=SourceFiles(roots, limits)))
        except Exception as exc:  # compile-profile's own fault with this log: one line naming it
            raise NoTrace(
                f"{f.path}: compile-profile could not read this log ({type(exc).__name__}: {exc}); "
                "please report it with the log"
            ) from exc
        if deadline is not None and time.monotonic() > deadline:
            raise TraceLimitExceeded(f"importing {path} took longer than {limits.describe('seconds')}")
    ranked = [r for r in runs if r.imported_trace is not None and r.imported_trace.rank is not None]
    if ranked:
        job_id = uuid.uuid4().hex[:12]
        ranks = {r.imported_trace.rank for r in ranked if r.imported_trace is not None}
        world_size = max(len(ranked), max(rank for rank in ranks if rank is not None) + 1)
        for run in ranked:
            assert run.imported_trace is not None and run.imported_trace.rank is not None
            run.distributed = DistributedRank(
                rank=run.imported_trace.rank, world_size=world_size, backend="", job_id=job_id
            )
        runs.sort(key=lambda r: (r.distributed is None, r.distributed.rank if r.distributed else 0))
    return runs


def _check_arguments(label: object, source_roots: Sequence[object]) -> None:
    """Refuse, before any log is read, what would make a run that cannot be stored or read back (a label that is no
    string: the store kept it and could then not load the run) or a root that is no path."""
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string, got {type(label).__name__}")
    if label and (problem := label_problem("--label", label)):  # one line of plain text, as a model's name
        raise ValueError(problem)
    for root in source_roots:
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"source_roots must be paths (str or pathlib.Path), got {type(root).__name__}")
        if "\x00" in os.fspath(root):
            raise ValueError(f"a source root cannot hold a NUL character: {os.fspath(root)!r}")


def _content_sha256(path: Path) -> str:
    """The SHA-256 of a log file's bytes, read in chunks."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return ""
    return digest.hexdigest()


def run_from_trace(trace: TraceFile, *, label: str = "", sources: SourceFiles | None = None) -> ProfileRun:
    """The run one log holds (``import_trace`` adds a job's ranks); the files it names are read from ``sources``
    (default: the log's own directory only)."""
    from ..cell.locator import CellLocator
    from .model import build_variant_trace

    sources = sources if sources is not None else SourceFiles([trace.path.parent])
    unknown: collections.Counter[str] = collections.Counter()
    for ev in trace.events:
        if not is_known_kind(ev.kind):
            unknown[clip_kind(ev.kind)] += 1
    if len(unknown) > UNKNOWN_KINDS_KEPT:  # a log of a million made-up kinds is not a million keys in the run
        kept = collections.Counter(dict(unknown.most_common(UNKNOWN_KINDS_KEPT)))
        kept[OTHER_KINDS] += sum(unknown.values()) - sum(kept.values())
        unknown = kept
    script = _script_of(trace)
    source, found, read_from = _read_script(script, sources)
    locator = CellLocator(filename=script, lines=source.splitlines())
    unreadable: collections.Counter[str] = collections.Counter()
    vt = build_variant_trace(
        trace.events,
        [],
        variant=TRACE_VARIANT,
        locator=locator,
        unreadable=unreadable,
        read_line=sources.line,
        artifact_bytes=sources.limits.artifact_bytes,
    )
    version = _torch_version(trace)
    origin = TraceOrigin(
        path=str(trace.path.resolve()),
        rank=trace.rank,
        torch_version=version,
        script=script,
        script_found=found,
        script_read_from=read_from,
        records=trace.records,
        skipped_lines=trace.skipped_lines,
        bad_records=trace.bad_record_count,
        bad_record_lines=[SkippedRecord(line=n, kind=kind, why=why) for n, kind, why in trace.bad_records],
        files_read=list(sources.files_read),
        unknown_events=dict(sorted(unknown.items())),
        unreadable_events=dict(sorted(unreadable.items())),
        compile_ids=list(dict.fromkeys(ev.compile_id for ev in trace.events if ev.compile_id)),
        content_sha256=_content_sha256(trace.path),
    )
    variant = Variant(
        name=TRACE_VARIANT,
        backend="inductor" if any(ev.kind == "inductor_output_code" for ev in trace.events) else None,
        compile_s=vt.compile_s or None,
        compile_phases=vt.phases,
        compile_spans=vt.spans,
        cache_lookups=vt.cache_lookups,
        compile_restarts=vt.restarts,
        cache_state=vt.cache.state,
        autotune=vt.autotune,
        cudagraph_skips=list(dict.fromkeys(vt.cudagraph_skips)),
    )
    errors = [
        ErrorInfo(
            stage="compile",
            message=first_line(f.reason) if f.reason else f.type,
            type=f.type,
            variant=TRACE_VARIANT,
            line=_failure_line(f, vt.graphs, locator),
            traceback=f"compile {f.compile_id}: {f.type}: {f.reason}",
        )
        for f in vt.failed_compiles
    ]
    from .reproducer import reproducer_script

    for error, failed in zip(errors, vt.failed_compiles):  # torch's own script of the graph Inductor failed on
        error.reproducer = reproducer_script(
            vt.runnables.get(failed.compile_id, ""),
            error,
            failed.compile_id,
            from_trace=str(trace.path.resolve()),
            trace_torch=version,
        )
    if errors:
        variant.error = f"{errors[0].type}: {errors[0].message}" if errors[0].type else errors[0].message
    notes = [
        Note(
            "recompile_limit",
            variant=TRACE_VARIANT,
            values={"compile_id": r.compile_id, "limit": r.limit, "during_timing": False},
        )
        for r in vt.recompiles
        if r.limit
    ]
    run = ProfileRun(
        id=ProfileRun.new_id(),
        created_at=_written_at(trace.path),
        label=label or _default_label(trace, script),
        cell_source=source,
        device=Device(type="cuda" if any(k.language == "triton" for k in vt.kernels) else "cpu", name=""),
        torch_version=version,
        variants=[variant],
        graphs=vt.graphs,
        graph_breaks=vt.graph_breaks,
        recompiles=vt.recompiles,
        kernels=vt.kernels,
        compile_phases=dict(vt.phases),
        cache=vt.cache,
        errors=errors,
        status="failed" if errors else "ok",
        notes=notes,
        ddp_splits=vt.ddp_splits,
        imported_trace=origin,
        compiles=vt.compiles,
        artifact_texts=vt.artifact_texts,
    )
    return run


def _failure_line(failed: FailedCompile, graphs: list[Graph], locator: CellLocator) -> int | None:
    """The script line a failed compile names (its metrics' user frame), else the first line of the graph it
    was compiling (Inductor's failures name no user frame)."""
    if failed.filename and failed.line is not None:
        line = locator.cell_line(failed.filename, failed.line)
        if line is not None:
            return line
    lines = [ln for g in graphs if g.kind == "dynamo" and g.compile_id == failed.compile_id for ln in g.lines]
    return min(lines) if lines else None


def _script_of(trace: TraceFile) -> str:
    """The file of the outermost user frame of the trace's compiles (the script that ran them), the one most
    compiles name; else the file of the first compiled frame."""
    votes: collections.Counter[str] = collections.Counter()
    first_frame = ""
    for ev in trace.events:
        if ev.kind != "dynamo_start" or not isinstance(ev.metadata, dict):
            continue
        stack = ev.metadata.get("stack") or []
        files = [str(f.get("filename") or "") for f in stack if isinstance(f, dict)]
        user = [f for f in files if f and not f.startswith("<") and not any(s in f for s in _NOT_A_SCRIPT)]
        if user:
            votes[user[0]] += 1
        elif files and not first_frame:
            first_frame = files[-1]
    if votes:
        return votes.most_common(1)[0][0]
    for ev in trace.events:  # no stacks (a trace cut short): the compiled frames' own files
        if ev.kind == "compilation_metrics" and isinstance(ev.metadata, dict) and ev.metadata.get("co_filename"):
            return str(ev.metadata["co_filename"])
    return first_frame


def _read_script(script: str, sources: SourceFiles) -> tuple[str, bool, str]:
    """The script's text, whether it was found, and where, when not at its recorded path (``sources``)."""
    found = sources.find(script)
    if found is None:
        return "", False, ""
    text, real = found
    return text, True, "" if real == script else real


def _torch_version(trace: TraceFile) -> str:
    """The torch that wrote the trace: its ``torch_version`` artifact (torch 2.13), else a compile's metrics'
    ``pytorch_version`` (2.10); "" where neither is logged (2.6)."""
    for ev in trace.events:
        if ev.kind == "torch_version" and ev.payload:
            try:
                data = load_json(ev.payload)
            except ValueError:  # not JSON, NaN, or nested past the recursion limit: no version
                continue
            if isinstance(data, dict) and data.get("pytorch_version"):
                return escaped_line(str(data["pytorch_version"]), MAX_TEXT)
    for ev in trace.events:
        if ev.kind == "compilation_metrics" and isinstance(ev.metadata, dict) and ev.metadata.get("pytorch_version"):
            return escaped_line(str(ev.metadata["pytorch_version"]), MAX_TEXT)
    return ""


def _written_at(path: Path) -> str:
    try:
        moment = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
    except OSError:
        return ProfileRun.now()
    return moment.isoformat(timespec="seconds")


def _default_label(trace: TraceFile, script: str) -> str:
    """``TORCH_TRACE of train.py rank 1``: the script's name as the trace logged it, one line of plain text (a name
    holding U+202E had read backwards in the panel, the tab's title and the report's <title>)."""
    rank = f" rank {trace.rank}" if trace.rank is not None else ""
    return f"TORCH_TRACE of {escaped_line(Path(script).name or trace.path.name, MAX_TEXT)}{rank}"
