"""Runs read from ``TORCH_TRACE`` logs (``engine.trace.log_import.import_trace``) put in the store, by whoever read
them: ``compile-profile import-trace``, ``compile_profile.import_trace`` and the panel's Import TORCH_TRACE (the
server's ``runs/import-trace``).  The reader returns runs and stores nothing; here the store decides what they are:

* a log whose content a stored run was read from is that run, not a second one (``ImportedRuns.already``), unless
  this import read files the stored run could not (its script, found under a ``--source-root``): then the stored
  run is read anew with them, keeping its id, label and job (``ImportedRuns.updated``);
* a job's new ranks join its stored ranks' job.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..profile_run import ProfileRun
from .runs import RunStore


class ImportedRuns(list[ProfileRun]):
    """The runs an import gave, a job's ranks in rank order, as a list; ``already``: the ids of those that were in the
    store before (the same log imported again: ``TraceOrigin.content_sha256``).  In a notebook it shows as the
    runs' cards (``compile_profile.import_trace(...)`` as a cell's value), not as a list's repr."""

    def __init__(self, runs: Sequence[ProfileRun] = (), already: set[str] | None = None):
        super().__init__(runs)
        self.already: set[str] = set(already or ())
        # of ``already``, those read anew because this import read files the stored run could not (its script)
        self.updated: set[str] = set()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, object]:
        bundles = [run._repr_mimebundle_() for run in self]  # the run's card (its view, ``run_views``)
        if len(bundles) == 1:  # one run: its card, with the panel's own renderer
            return bundles[0]
        return {  # a job's ranks: each rank's card in turn
            "text/plain": "\n\n".join(str(b["text/plain"]) for b in bundles),
            "text/html": "".join(str(b["text/html"]) for b in bundles),
        }

    def __repr__(self) -> str:
        said = ", ".join(f"{run.id}{' (already imported)' if run.id in self.already else ''}" for run in self)
        return f"<{len(self)} run{'' if len(self) == 1 else 's'} from a TORCH_TRACE: {said}>"


def put_imported(store: RunStore, runs: Sequence[ProfileRun], *, label: str = "") -> ImportedRuns:
    """Put ``runs`` (every log of one import, read before any is stored, so a log that cannot be read stores nothing)
    in ``store``, as the module says; ``label``, the import's, kept where a stored run is read anew."""
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
            old = store.get(stored[run.id])
            if not _reads_more(run, old):
                out.append(old)
                continue
            # the same log, and this import read files the stored run could not (a --source-root that finds its
            # script): the stored run is read anew with them, keeping its id, label and job
            run.id, run.label = old.id, label or old.label
            if run.distributed is not None and old.distributed is not None:
                run.distributed.job_id = old.distributed.job_id
            out.updated.add(run.id)
            store.put(run)
            out.append(run)
            continue
        if run.distributed is not None and len(job_ids) == 1:
            run.distributed.job_id = next(iter(job_ids))
        store.put(run)
        out.append(run)
    return out


def _reads_more(new: ProfileRun, old: ProfileRun) -> bool:
    """Whether ``new``, read from the same log as the stored ``old``, read a file of this machine that ``old`` did
    not (``TraceOrigin.files_read``)."""
    if new.imported_trace is None or old.imported_trace is None:
        return False
    return bool(set(new.imported_trace.files_read) - set(old.imported_trace.files_read))
