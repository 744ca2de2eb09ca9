"""The MIME bundle a run displays as: plain text, static HTML, and our own JSON type for the JupyterLab renderer."""

from __future__ import annotations

from typing import Any

from ..digest.contract import RunMimeData
from ..digest.summary import summarize
from ..profile_run import ProfileRun
from .charts import variants_figure
from .html import render_html
from .text import render_text

MIME_TYPE = "application/vnd.compile-profile.run+json"
MIME_VERSION = 1


def run_payload(run: ProfileRun) -> RunMimeData:
    """What the JupyterLab renderer draws at once; it fetches the full run from the store by ``run_id``."""
    return {
        "version": MIME_VERSION,
        "run_id": run.id,
        "summary": summarize(run),
        "figures": {"variants": variants_figure(run)},
    }


def mime_bundle(run: ProfileRun) -> dict[str, Any]:
    return {
        "text/plain": render_text(run),
        "text/html": render_html(run),
        MIME_TYPE: run_payload(run),
    }
