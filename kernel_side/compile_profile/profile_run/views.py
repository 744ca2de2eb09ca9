"""How a ``ProfileRun`` shows itself, saves itself and sums itself up: the views the adapters register, so that the
run stays plain data and imports no view, digest or store (as pyinstrument's session keeps its renderers behind one
interface).  ``compile_profile`` registers them when it is imported (``compile_profile.run_views``); a view called
before that says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any


@dataclass
class RunViews:
    """The view behind each of ``ProfileRun``'s display methods, each taking the run (and the method's arguments)."""

    summary: Callable[..., Any] | None = None  # ``run.summary()``: the digest's summary
    text: Callable[..., str] | None = None  # ``str(run)``
    mime_bundle: Callable[..., dict[str, Any]] | None = None  # a notebook's display
    report_html: Callable[..., str] | None = None  # ``run.to_html()``: the self-contained report
    save: Callable[..., str] | None = None  # ``run.save(db)``: into the run store
    explorer: Callable[..., Any] | None = None  # ``run.show(compare_with)``: the ipywidgets explorer

    def register(self, **views: Callable[..., Any]) -> None:
        names = {f.name for f in fields(self)}
        unknown = sorted(set(views) - names)
        if unknown:
            raise TypeError(f"no view named {', '.join(unknown)} (a run has {', '.join(sorted(names))})")
        for name, view in views.items():
            setattr(self, name, view)

    def get(self, name: str) -> Callable[..., Any]:
        view = getattr(self, name)
        if view is None:
            raise RuntimeError(f"no {name} view is registered: import compile_profile, which registers them")
        return view


VIEWS = RunViews()
