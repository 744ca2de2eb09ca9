"""Renderers: each takes a ``ProfileRun`` and returns one representation of it.

``render(run, "text")`` and friends pick one by name for adapters that take the
format as an option (the CLI, the server's export); the modules can also be
imported directly.  Imports are lazy so the text view never loads plotly.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..profile_run import ProfileRun

RENDERERS: dict[str, tuple[str, str]] = {
    "text": ("text", "render_text"),
    "html": ("html", "render_html"),
    "report": ("report", "render_report_html"),
    "mime": ("mime", "mime_bundle"),
    "figures": ("charts", "figures"),
    "summary": ("summary", "summarize"),
    "widget": ("widget", "explorer"),
}


def render(run: ProfileRun, fmt: str = "text") -> Any:
    try:
        module, function = RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; one of {sorted(RENDERERS)}") from None
    return getattr(import_module(f".{module}", __name__), function)(run)
