"""``Job``: the runs of one distributed job (one ``profile`` call on every rank), as plain data.

``Job(runs)`` holds the ranks' ``ProfileRun``s sorted by rank; ``summary()`` is the job's digest as JSON
(``digest.job.job_digest``), ``str(job)`` its text and ``to_html()`` its self-contained report.  Like
``ProfileRun`` it derives no figure (the digest does) and imports its views lazily.  ``Job.load`` reads
a job from the run store, by its id or the id of any of its runs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .profile_run import ProfileRun

if TYPE_CHECKING:
    from .digest.job import JobDigest


def _rank(run: ProfileRun) -> int:
    return run.distributed.rank if run.distributed is not None else 0


class Job:
    """The runs of one distributed job, sorted by rank."""

    def __init__(self, runs: list[ProfileRun]):
        if not runs:
            raise ValueError("a job needs at least one run")
        self.runs: list[ProfileRun] = sorted(runs, key=_rank)

    @property
    def job_id(self) -> str:
        d = self.runs[0].distributed
        return d.job_id if d is not None else self.runs[0].id

    @classmethod
    def load(cls, job_id: str, db: str | os.PathLike[str] | None = None) -> Job:
        """The job ``job_id`` (or the job of the run ``job_id``) from the run store at ``db`` or the default."""
        from .store import RunStore

        with RunStore(db) as store:
            return cls(store.job(job_id))

    def summary(self) -> dict[str, Any]:
        """The job's digest as JSON (``digest.job.JobDigest``)."""
        from .digest.job import job_digest

        return job_digest(self.runs)

    def _digest(self) -> JobDigest:
        from .digest.job import job_digest_of

        return job_digest_of(self.runs)

    def __repr__(self) -> str:
        return f"<Job {self.job_id}: ranks {[_rank(r) for r in self.runs]}>"

    def __str__(self) -> str:
        from .render.job_text import render_job_text

        return render_job_text(self._digest())

    def _repr_html_(self) -> str:
        from .render.job_report import job_html

        return job_html(self._digest())

    def to_html(self) -> str:
        """A self-contained HTML report of the job (opens offline; see ``render.job_report``)."""
        from .render.job_report import render_job_report_html

        return render_job_report_html(self._digest())
