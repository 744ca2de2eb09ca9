"""``TORCH_TRACE`` logs of any run read as ``ProfileRun``s: ``compile-profile import-trace``.

A script, a training job or every rank of a ``torchrun`` job run with ``TORCH_TRACE=DIR`` leaves one log per
process in ``DIR`` (``dedicated_log_torch_trace[_rank_N]_*.log``, what tlparse reads).  Each log becomes one run,
read by the same handlers a live profile's capture goes through (``trace_file`` then ``trace_model``): its
graphs, graph breaks, recompiles with their failed guards, guards, compile time and phases, cache hits and
misses, and the kernels Inductor wrote with their cell lines where the log has provenance.  The "cell" is the
script: the file of the outermost user frame of the compiles, read from disk where it still is.

What a trace cannot know, a run from one does not hold: it has one variant (``TRACE_VARIANT``), never timed,
no eager variant, no speedup, no peak memory, no correctness check; ``ProfileRun.imported_trace`` says where it
came from (``TraceOrigin``), and the views word that.  The logs of one directory whose records name ranks are
one job: their runs share a ``DistributedRank.job_id`` (the job view lays them side by side).

Never fatal on what a log holds: a line that is no record is skipped and counted (``trace_file``), an event
kind the trace model does not know (a newer torch's) is skipped and counted by kind, and an event of a known
kind whose content a handler cannot read is skipped and counted by kind.  A log written by another torch
release reads as the installed release's would: the handlers read only the log.
"""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..profile_run import (
    Device,
    DistributedRank,
    ErrorInfo,
    Graph,
    Note,
    ProfileRun,
    TraceOrigin,
    Variant,
)
from .reproducer import reproducer_script
from .trace_file import TraceFile, read_trace_file
from .trace_model import HANDLERS, CellLocator, build_variant_trace
from .trace_model.events import FailedCompile
from .trace_model.torch_kinds import torch_writes

if TYPE_CHECKING:
    from ..store import RunStore

TRACE_VARIANT = "trace"

# frames of no user script: Python's own runners and libraries
_NOT_A_SCRIPT = ("/site-packages/", "/dist-packages/", "/lib/python3", "/runpy.py", "/torch/")


class NoTrace(ValueError):
    """A path with no TORCH_TRACE log in it, or one that cannot be read."""


def trace_files(path: str | Path) -> list[Path]:
    """The logs at ``path``: the file itself, or every ``*.log`` and ``*.log.gz`` in the directory and its
    subdirectories (one per process; torchrun's ranks each write one), in name order."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise NoTrace(f"{path}: no such file or directory")
    found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith((".log", ".log.gz")))
    if not found:
        raise NoTrace(f"{path} holds no TORCH_TRACE log (*.log or *.log.gz)")
    return found


def is_known_kind(kind: str) -> bool:
    """Read by a handler, or written by a supported torch release (``trace_model.torch_kinds``)."""
    return kind in HANDLERS or torch_writes(kind)


def import_trace(path: str | Path, *, label: str = "", source_roots: Sequence[str | Path] = ()) -> list[ProfileRun]:
    """One run per log at ``path``; the logs that name ranks are one job, their runs in rank order.  A script
    not at the path the trace names is looked for under ``source_roots`` (``script_candidates``)."""
    files = []
    for p in trace_files(path):
        try:
            files.append(read_trace_file(p))
        except (OSError, EOFError) as exc:
            raise NoTrace(f"cannot read {p}: {getattr(exc, 'strerror', None) or exc}") from None
    # a log with no record: another program's (torchrun's own output), or a process that compiled nothing
    files = [f for f in files if f.records]
    if not files:
        raise NoTrace(f"{path} holds no TORCH_TRACE record (is it a log TORCH_TRACE=DIR wrote?)")
    runs = [run_from_trace(f, label=label, source_roots=source_roots) for f in files]
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


class ImportedRuns(list[ProfileRun]):
    """The runs an import gave, a job's ranks in rank order, as a list; ``already``: the ids of those that were in the
    store before (the same log imported again: ``TraceOrigin.content_sha256``).  In a notebook it shows as the
    runs' cards (``compile_profile.import_trace(...)`` as a cell's value), not as a list's repr."""

    def __init__(self, runs: Sequence[ProfileRun] = (), already: set[str] | None = None):
        super().__init__(runs)
        self.already: set[str] = set(already or ())

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, object]:
        from ..render.mime import mime_bundle

        bundles = [mime_bundle(run) for run in self]
        if len(bundles) == 1:  # one run: its card, with the panel's own renderer
            return bundles[0]
        return {  # a job's ranks: each rank's card in turn
            "text/plain": "\n\n".join(str(b["text/plain"]) for b in bundles),
            "text/html": "".join(str(b["text/html"]) for b in bundles),
        }

    def __repr__(self) -> str:
        said = ", ".join(f"{run.id}{' (already imported)' if run.id in self.already else ''}" for run in self)
        return f"<{len(self)} run{'' if len(self) == 1 else 's'} from a TORCH_TRACE: {said}>"


def import_and_store(
    path: str | Path, store: RunStore, *, label: str = "", source_roots: Sequence[str | Path] = ()
) -> ImportedRuns:
    """``import_trace`` then each run put in ``store``: every log is read before any run is stored, so a log that
    cannot be read stores nothing.  A log whose content a stored run was read from is that run, not a second one
    (``ImportedRuns.already``); a job's new ranks join its stored ranks' job.  What ``compile-profile
    import-trace``, ``compile_profile.import_trace`` and the panel's Import TORCH_TRACE (the server's
    ``runs/import-trace``) do."""
    runs = import_trace(path, label=label, source_roots=source_roots)
    stored = {
        run.id: found
        for run in runs
        if run.imported_trace is not None
        and (found := store.run_of_trace(run.imported_trace.content_sha256)) is not None
    }
    out = ImportedRuns(already=set(stored.values()))
    kept = [store.get(stored[run.id]) for run in runs if run.id in stored]
    job_ids = {r.distributed.job_id for r in kept if r.distributed is not None}
    for run in runs:
        if run.id in stored:
            out.append(store.get(stored[run.id]))
            continue
        if run.distributed is not None and len(job_ids) == 1:
            run.distributed.job_id = next(iter(job_ids))
        store.put(run)
        out.append(run)
    return out


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


def run_from_trace(trace: TraceFile, *, label: str = "", source_roots: Sequence[str | Path] = ()) -> ProfileRun:
    """The run one log holds (``import_trace`` adds a job's ranks)."""
    unknown: collections.Counter[str] = collections.Counter()
    for ev in trace.events:
        if not is_known_kind(ev.kind):
            unknown[ev.kind] += 1
    script = _script_of(trace)
    source, found, read_from = _read_script(script, source_roots)
    locator = CellLocator(filename=script, lines=source.splitlines())
    unreadable: collections.Counter[str] = collections.Counter()
    vt = build_variant_trace(trace.events, [], variant=TRACE_VARIANT, locator=locator, unreadable=unreadable)
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
            message=_first_line(f.reason) if f.reason else f.type,
            type=f.type,
            variant=TRACE_VARIANT,
            line=_failure_line(f, vt.graphs, locator),
            traceback=f"compile {f.compile_id}: {f.type}: {f.reason}",
        )
        for f in vt.failed_compiles
    ]
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


def _first_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[0].strip() if lines else ""


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


def script_candidates(script: str, source_roots: Sequence[str | Path]) -> list[Path]:
    """Where to look for the script: its recorded path, then under each source root the longest tail of that
    path first (``/cluster/home/me/repo/train/step.py`` under ``~/repo``: ``~/repo/cluster/home/me/repo/train/
    step.py``, ..., ``~/repo/train/step.py``, ``~/repo/step.py``) — a trace from another machine names files
    where they were there."""
    recorded = Path(script)
    parts = recorded.parts[1:] if recorded.is_absolute() else recorded.parts
    tails = [Path(*parts[k:]) for k in range(len(parts))]
    return [recorded, *(Path(root) / tail for root in source_roots for tail in tails)]


def _read_script(script: str, source_roots: Sequence[str | Path] = ()) -> tuple[str, bool, str]:
    """The script's text, whether it was found, and where, when not at its recorded path."""
    if not script:
        return "", False, ""
    for candidate in script_candidates(script, source_roots):
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        return text, True, "" if str(candidate) == script else str(candidate.resolve())
    return "", False, ""


def _torch_version(trace: TraceFile) -> str:
    """The torch that wrote the trace: its ``torch_version`` artifact (torch 2.13), else a compile's metrics'
    ``pytorch_version`` (2.10); "" where neither is logged (2.6)."""
    for ev in trace.events:
        if ev.kind == "torch_version" and ev.payload:
            try:
                data = json.loads(ev.payload)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("pytorch_version"):
                return str(data["pytorch_version"])
    for ev in trace.events:
        if ev.kind == "compilation_metrics" and isinstance(ev.metadata, dict) and ev.metadata.get("pytorch_version"):
            return str(ev.metadata["pytorch_version"])
    return ""


def _written_at(path: Path) -> str:
    try:
        moment = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
    except OSError:
        return ProfileRun.now()
    return moment.isoformat(timespec="seconds")


def _default_label(trace: TraceFile, script: str) -> str:
    rank = f" rank {trace.rank}" if trace.rank is not None else ""
    return f"TORCH_TRACE of {Path(script).name or trace.path.name}{rank}"
