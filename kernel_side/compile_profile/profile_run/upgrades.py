"""Older runs' JSON upgraded on load, step by step, to the shape this release reads (``ProfileRun.from_dict``);
never rewritten in the store.  Each step moves a run's JSON one schema version up, in order; a released step does
the same thing forever.

  2: notes became facts (``Note``: a kind and its values, worded by ``digest.notes``); ``memory_note`` and
     ``Recommendation.reason`` went (the digest words both from the run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import serialize

SCHEMA_VERSION = 2  # the shape this release writes


def upgraded(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a run's JSON object) in the shape of ``SCHEMA_VERSION``; a newer schema is refused with the upgrade
    to make (``ValueError``), a ``schema_version`` of another type named (``serialize.FormatError``)."""
    try:
        version = serialize.from_dict(int, data.get("schema_version", SCHEMA_VERSION))
    except serialize.FormatError as exc:
        raise exc.inside("schema_version") from None
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"this run was written by a newer compile-profile (schema {version}); "
            f"this one reads schema {SCHEMA_VERSION} or older: upgrade compile-profile"
        )
    for to_version, upgrade in UPGRADES:
        if version < to_version:
            data = {**upgrade(data), "schema_version": to_version}  # its shape is that version's now
    return data


def _notes_as_facts(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 to 2: each note in words becomes a ``text`` note holding them; ``memory_note`` and the
    recommendation's reason go (the digest words both from the run)."""

    def as_note(text: Any) -> Any:
        return {"kind": "text", "values": {"text": text}} if isinstance(text, str) else text

    data = dict(data)
    data.pop("memory_note", None)
    if isinstance(data.get("notes"), list):
        data["notes"] = [as_note(n) for n in data["notes"]]
    correctness = data.get("correctness")
    if serialize.is_dict(correctness):
        note = correctness.get("note")
        checks = correctness.get("checks")
        correctness = {**correctness, "note": as_note(note) if note else None}
        if serialize.is_list(checks):
            correctness["checks"] = [_check_notes_as_facts(c, as_note) for c in checks]
        data["correctness"] = correctness
    if isinstance(data.get("variants"), list):
        data["variants"] = [_variant_notes_as_facts(v, as_note) for v in data["variants"]]
    return data


def _check_notes_as_facts(check: Any, as_note: Callable[[Any], Any]) -> Any:
    if not serialize.is_dict(check):
        return check
    out = {k: v for k, v in check.items() if k not in ("reason", "changed_between_runs")}
    if check.get("reason"):
        out["why"] = as_note(check["reason"])
    if check.get("changed_between_runs"):
        out["changed"] = as_note(check["changed_between_runs"])
    return out


def _variant_notes_as_facts(variant: Any, as_note: Callable[[Any], Any]) -> Any:
    profile = variant.get("kernel_profile") if serialize.is_dict(variant) else None
    if not serialize.is_dict(profile) or "note" not in profile:
        return variant
    profile = {k: v for k, v in profile.items() if k != "note"}
    profile["notes"] = [as_note(variant["kernel_profile"]["note"])] if variant["kernel_profile"]["note"] else []
    return {**variant, "kernel_profile": profile}


# Each step moves a run's JSON one schema version up, in order; a released step does the same thing forever.
UPGRADES: list[tuple[int, Callable[[dict[str, Any]], dict[str, Any]]]] = [(2, _notes_as_facts)]
