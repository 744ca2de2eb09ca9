"""The summaries the store keeps beside each run, so listing never parses whole runs: the digest's
(``digest.summarize``), stamped with ``DIGEST_VERSION``; one cached by an older version, or misshapen, is derived
again; one unreadable run gets a summary that says so (``digest.summary.unreadable_summary``)."""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from ..digest.summary import DIGEST_VERSION, summarize, unreadable_summary
from ..profile_run import ProfileRun
from ..serialize import to_dict
from .errors import unreadable_reason

# A run's summary as the store keeps and lists it: JSON (``digest.summary.RunSummary``'s, ``summarize``).
SummaryJson = dict[str, Any]


def summarize_row(run_id: str, run_json: str, columns: dict[str, str]) -> SummaryJson:
    """The digest's summary of a stored run; one unreadable run gets a summary that says so, with what its row's
    own columns (``created_at``, ``notebook``, ``label``) know of it."""
    try:
        run = ProfileRun.from_dict(json.loads(run_json))
        if run.id != run_id:  # an edited row: listed under its JSON's id, it could be neither shown nor removed
            reason = f"its row's id is {run_id!r} and its run's {run.id!r}: they must be the same"
            return to_dict(unreadable_summary(run_id, reason[:300], **columns))
        return summarize(run)
    except Exception as exc:  # noqa: BLE001 - one unreadable run must not hide the others (a digest bug neither)
        return to_dict(unreadable_summary(run_id, unreadable_reason(exc), **columns))


# What the run lists read of a cached summary (the CLI's ls, the panel's list and its compare pickers), with the
# types they read them as: a summary whose fields do not have them is derived again from the run.
_LISTED_FIELDS: dict[str, type | tuple[type, ...]] = {
    "label": str,
    "created_at": str,
    "status": str,
    "notebook": str,
    "first_line": str,
    "headline": str,
    "device": dict,
    "variants": list,
    "warnings": list,
    "speedup": (dict, type(None)),
    "distributed": (dict, type(None)),
}


def _usable_summary(summary: Any, run_id: str) -> TypeGuard[SummaryJson]:
    """Whether a cached summary is this version's summary of this run, with the fields the lists read: the
    store wrote it from ``summarize`` (the digest's version says which), so it is read as one."""
    if not isinstance(summary, dict) or summary.get("digest") != DIGEST_VERSION or summary.get("id") != run_id:
        return False
    if not all(isinstance(summary.get(key), kinds) for key, kinds in _LISTED_FIELDS.items()):
        return False
    device, speedup = summary["device"], summary["speedup"]
    if not (isinstance(device.get("type"), str) and isinstance(device.get("name"), str)):
        return False
    if not all(isinstance(v, dict) and isinstance(v.get("name"), str) for v in summary["variants"]):
        return False
    return speedup is None or (type(speedup.get("value")) in (int, float) and isinstance(speedup.get("text"), str))


def cached_summary(run_id: str, summary_json: str) -> SummaryJson | None:
    """The summary cached in a row, or None when it must be derived again (stale, unparsable or misshapen)."""
    try:
        summary = json.loads(summary_json)
    except (ValueError, TypeError, RecursionError):
        return None
    return summary if _usable_summary(summary, run_id) else None
