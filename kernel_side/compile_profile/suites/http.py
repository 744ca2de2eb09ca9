"""What the server answers about suites (``server/handlers.py`` routes ``suites``, ``suites/<id>``,
``suites/<id>/report`` here): the same digest and figures the notebook's card and the CLI read, as JSON."""

from __future__ import annotations

import json
from typing import Any

from .. import serialize
from ..digest.summary import DIGEST_VERSION
from ..store import RunStore
from ..store.runs import epoch_seconds
from ..user_input import text_problem
from .charts import figures
from .compare import compare_suites, export
from .digest import SuiteListRow, SuitePage, SuitesPage, list_row, suite_digest, unreadable_row
from .records import SuiteRecord
from .setup import created_text
from .storage import listed_suites, load_suite, runs_of
from .views import render_report_html

LIST_LIMIT = 200
# Suites whose headline one listing derives at most (each reads every run its entries stored: up to 1.2 s for a
# suite of three 24-layer training runs); the others are listed with their progress, and the next listing goes on.
HEADLINES_PER_LISTING = 20


def suite_rows(store: RunStore, limit: int = LIST_LIMIT) -> list[SuiteListRow]:
    """The newest stored suites' rows, each with its digest's headline (pass rate and geometric mean) as the store
    cached it, or derived again and cached where it is stale; one that cannot be read named with why."""
    rows: list[SuiteListRow] = []
    derived = 0
    for suite in listed_suites(store, limit):
        if not isinstance(suite, SuiteRecord):
            rows.append(unreadable_row(suite.suite_id, suite.reason))
            continue
        headline = cached_headline(store.suite_line(suite.id), len(suite.outcomes))
        if headline is None and derived < HEADLINES_PER_LISTING:
            derived += 1
            headline = suite_digest(suite, runs_of(store, suite)).headline
            line = {"digest": DIGEST_VERSION, "ended": len(suite.outcomes), "headline": headline}
            store.put_suite_line(suite.id, json.dumps(line))
        rows.append(list_row(suite, headline or ""))
    return rows


def cached_headline(line_json: str, ended: int) -> str | None:
    """The headline a suite's cached line holds, or None where it must be derived again: none yet, worded by another
    digest version, over another count of ended entries, or no one-line text (the file may be anyone's)."""
    try:
        line = json.loads(line_json)
    except (ValueError, RecursionError):
        return None
    if not isinstance(line, dict) or line.get("digest") != DIGEST_VERSION or line.get("ended") != ended:
        return None
    headline = line.get("headline")
    return headline if isinstance(headline, str) and not text_problem(headline, "a headline", 1000) else None


def suites_page(store: RunStore) -> dict[str, Any]:
    return serialize.to_dict(SuitesPage(suite_rows(store)))


def suite_page(store: RunStore, suite_id: str) -> dict[str, Any]:
    """``KeyError`` when there is no such suite."""
    record = load_suite(store, suite_id)
    digest = suite_digest(record, runs_of(store, record))
    return serialize.to_dict(SuitePage(digest, figures(digest)))


def suite_comparison(store: RunStore, old_id: str, new_id: str) -> dict[str, Any]:
    """GET suites/<id>/compare/<other>: the earlier of the two against the later, as ``suite-compare OLD NEW``
    compares them (``compare.SuiteComparison``), each side its stored digest's export and named by its id and date;
    ``KeyError`` when either is not stored."""
    records = [load_suite(store, suite_id) for suite_id in (old_id, new_id)]
    # the earlier suite is the old side, whichever the panel was opened on: a user who opened the earlier suite and
    # compared it with the later one read the later's gain as a regression, "1 thread then, 2 threads now" reversed
    records.sort(key=lambda r: epoch_seconds(r.created_at))
    old, new = (export(suite_digest(r, runs_of(store, r))) for r in records)
    names = [f"suite {r.id} ({created_text(r.created_at)})" for r in records]
    return serialize.to_dict(compare_suites(old, new, old_name=names[0], new_name=names[1]))


def suite_report(store: RunStore, suite_id: str) -> str:
    record = load_suite(store, suite_id)
    return render_report_html(suite_digest(record, runs_of(store, record)))
