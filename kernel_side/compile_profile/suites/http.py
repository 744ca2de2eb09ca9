"""What the server answers about suites (``server/handlers.py`` routes ``suites``, ``suites/<id>``,
``suites/<id>/report`` here): the same digest and figures the notebook's card and the CLI read, as JSON."""

from __future__ import annotations

from typing import Any

from .. import serialize
from ..store import RunStore
from .charts import figures
from .digest import SuiteListRow, SuitePage, SuitesPage, list_row, suite_digest, unreadable_row
from .records import SuiteRecord
from .storage import listed_suites, load_suite, runs_of
from .views import render_report_html

LIST_LIMIT = 200


def suite_rows(store: RunStore, limit: int = LIST_LIMIT) -> list[SuiteListRow]:
    """The newest stored suites' rows, one that cannot be read named with why (``digest.unreadable_row``)."""
    return [
        list_row(suite) if isinstance(suite, SuiteRecord) else unreadable_row(suite.suite_id, suite.reason)
        for suite in listed_suites(store, limit)
    ]


def suites_page(store: RunStore) -> dict[str, Any]:
    return serialize.to_dict(SuitesPage(suite_rows(store)))


def suite_page(store: RunStore, suite_id: str) -> dict[str, Any]:
    """``KeyError`` when there is no such suite."""
    record = load_suite(store, suite_id)
    digest = suite_digest(record, runs_of(store, record))
    return serialize.to_dict(SuitePage(digest, figures(digest)))


def suite_report(store: RunStore, suite_id: str) -> str:
    record = load_suite(store, suite_id)
    return render_report_html(suite_digest(record, runs_of(store, record)))
