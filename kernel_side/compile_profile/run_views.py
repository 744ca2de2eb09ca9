"""The views of a ``ProfileRun`` (``profile_run.views``), registered when ``compile_profile`` is imported: the run is
plain data, and what it shows as (its text, its notebook display, its report, its explorer), how it saves and how it
sums up are the digest's, the views' and the store's, which the run never imports.  Each is imported when first
called, so importing ``compile_profile`` loads no view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .profile_run import VIEWS, ProfileRun


def _summary(run: ProfileRun) -> dict[str, Any]:
    from .digest import summarize

    return summarize(run)


def _text(run: ProfileRun) -> str:
    from .render.text import render_text

    return render_text(run)


def _mime_bundle(run: ProfileRun) -> dict[str, Any]:
    from .render.mime import mime_bundle

    return mime_bundle(run)


def _report_html(run: ProfileRun) -> str:
    from .render.report import render_report_html

    return render_report_html(run)


def _save(run: ProfileRun, db: str | Path | None = None) -> str:
    from .store import RunStore

    with RunStore(db) as store:
        store.put(run)
    return run.id


def _explorer(run: ProfileRun, compare_with: list[ProfileRun] | None = None) -> Any:
    from .render.widget import explorer

    return explorer(run, compare_with)


def register() -> None:
    VIEWS.register(
        summary=_summary,
        text=_text,
        mime_bundle=_mime_bundle,
        report_html=_report_html,
        save=_save,
        explorer=_explorer,
    )
