"""What the server answers about suites (``server/handlers.py`` routes ``suites``, ``suites/<id>``,
``suites/<id>/report`` here): the same digest and figures the notebook's card and the CLI read, as JSON."""

from __future__ import annotations

from typing import Any

from .. import serialize
from ..store import RunStore
from .charts import figures
from .digest import SuitePage, SuitesPage, list_row, suite_digest
from .storage import load_suite, runs_of, stored_suites
from .views import render_report_html

LIST_LIMIT = 200


def suites_page(store: RunStore) -> dict[str, Any]:
    return serialize.to_dict(SuitesPage([list_row(record) for record in stored_suites(store, LIST_LIMIT)]))


def suite_page(store: RunStore, suite_id: str) -> dict[str, Any]:
    """``KeyError`` when there is no such suite."""
    record = load_suite(store, suite_id)
    digest = suite_digest(record, runs_of(store, record))
    return serialize.to_dict(SuitePage(digest, figures(digest)))


def suite_report(store: RunStore, suite_id: str) -> str:
    record = load_suite(store, suite_id)
    return render_report_html(suite_digest(record, runs_of(store, record)))
