"""The MIME bundle a run displays as: plain text, static HTML, and our own JSON type for the JupyterLab renderer."""

from __future__ import annotations

from html import escape
from typing import Any

from ..digest.summary import digest_of, summarize
from ..profile_run import ProfileRun
from .charts import variants_figure
from .html import digest_html
from .text import digest_text

MIME_TYPE = "application/vnd.compile-profile.run+json"
MIME_VERSION = 1


def run_payload(run: ProfileRun, logs: list[str] | None = None, log_count: int | None = None) -> dict[str, Any]:
    """What the JupyterLab renderer draws at once (``digest.contract.RunMimeData``); it fetches the full run from the
    store by ``run_id``.  ``logs``: the lines the profile wrote to stderr (the magic's, a repeated line once), which
    the card shows folded; ``log_count``: how many lines came (``len(logs)`` by default)."""
    payload: dict[str, Any] = {
        "version": MIME_VERSION,
        "run_id": run.id,
        "summary": summarize(run),
        "figures": {"variants": variants_figure(run)},
    }
    if logs:
        payload["logs"] = list(logs)
        payload["logs_text"] = logs_text(logs, log_count)
    return payload


def logs_text(logs: list[str], count: int | None = None) -> str:
    """The fold's heading: how many lines the profile logged (and how many differ, where some repeat)."""
    n = len(logs) if count is None else count
    distinct = f", {len(logs)} different" if n > len(logs) else ""
    return f"{n} line{'' if n == 1 else 's'} logged to stderr while profiling{distinct} (Dynamo, Inductor, the profiler, the cell's later runs)"


def mime_bundle(run: ProfileRun, logs: list[str] | None = None, log_count: int | None = None) -> dict[str, Any]:
    """The run's bundle; with ``logs``, each view carries them folded (HTML's ``<details>``), or after it (text)."""
    d = digest_of(run)  # one digest, laid out twice
    text, page = digest_text(d), digest_html(d)
    if logs:
        heading = logs_text(logs, log_count)
        text += f"\n{heading}:\n" + "\n".join(f"  {line}" for line in logs)
        page += (
            f'<details class="cp-logs"><summary>{escape(heading)}</summary>'
            f"<pre>{escape(chr(10).join(logs))}</pre></details>"
        )
    return {
        "text/plain": text,
        "text/html": page,
        MIME_TYPE: run_payload(run, logs, log_count),
    }
