"""Run files with script-running markup in every field: what a hostile or careless ``compile-profile import`` brings in.

``markup_everywhere`` takes a run's JSON and puts a payload of its own into every leaf (every string, number,
boolean and null, and every dict key), then gives back to the loader (``ProfileRun.from_dict``) only the leaves
it refuses, one by one, each refusal naming the field.  What is left is the most markup a run file can carry
past the loader: every ``str`` field and key holds a payload.  Each payload, if a browser ever ran it, sets
``window.__xss`` to its number (and quotes first, to break out of an attribute), so a page that shows them all
as text proves that no field of a run reaches HTML unescaped.

Used by tests/test_reliability_run_files.py (the export, the job report, the static card HTML, in Chromium)
and ui-tests/seed_runs.py (the JupyterLab card and panel, ui-tests/tests/xss.spec.ts).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from compile_profile.profile_run import ProfileRun
from compile_profile.serialize import FormatError

Path = tuple[str | int, ...]


def payload(n: int) -> str:
    """Markup that sets ``window.__xss = n`` when parsed as HTML, in text or inside a quoted attribute."""
    return f'\'"><script>window.__xss={n}</script><img src=x onerror="window.__xss={n}">'


def marker(n: int) -> str:
    return f"window.__xss={n}<"  # the payload's script text, as a page's text shows it once escaped


def path_text(path: Path) -> str:
    """A leaf's path as ``FormatError.where`` writes it: ``graphs[0].guards[2].line``, ``options['mode']``."""
    return FormatError("", path).where


def leaves(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every leaf of JSON data (not the containers), with its path."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from leaves(value, (*path, index))
    else:
        yield path, data


def get_at(data: Any, path: Path) -> Any:
    for segment in path:
        data = data[segment]
    return data


def set_at(data: Any, path: Path, value: Any) -> None:
    get_at(data, path[:-1])[path[-1]] = value


def with_markup_keys(data: Any, counter: list[int]) -> Any:
    """``data`` with every dict key that is not a field name (op counts, compile phases, options) a payload."""
    if isinstance(data, dict):
        return {
            (_next(counter) if key not in _FIELD_NAMES else key): with_markup_keys(value, counter)
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [with_markup_keys(v, counter) for v in data]
    return data


def _next(counter: list[int]) -> str:
    counter[0] += 1
    return payload(counter[0])


def _field_names() -> set[str]:
    import dataclasses
    import typing

    names: set[str] = set()
    seen: set[type] = set()

    def walk(tp: Any) -> None:
        for arg in typing.get_args(tp):
            walk(arg)
        if dataclasses.is_dataclass(tp) and tp not in seen:
            seen.add(tp)
            hints = typing.get_type_hints(tp)
            for f in dataclasses.fields(tp):
                names.add(f.name)
                walk(hints[f.name])

    walk(ProfileRun)
    return names


_FIELD_NAMES = _field_names()


def markup_everywhere(
    run: ProfileRun, *, keep: tuple[str, ...] = ("id", "schema_version"), start: int = 0
) -> tuple[dict, ProfileRun, dict[Path, int]]:
    """``run``'s JSON with a payload in every leaf the loader accepts one in, and the run it loads as.

    Equal strings get the same payload, so what names something elsewhere still names it (a variant's name in
    the speedup, a kernel's variant, a graph's id), and every view has all of the run to show; the name
    ``eager`` stays, as the views look the eager variant up by it.  ``keep`` names top-level fields left as
    they were (a run id must stay a valid id for the store).  Returns the data, the loaded run and the payload
    number of each leaf that kept one.  Each leaf the loader refused went back to its own value: the refusal
    named exactly that leaf.
    """
    original = json.loads(run.to_json())
    counter = [start]
    data = with_markup_keys(copy.deepcopy(original), counter)
    originals = dict(leaves(data))
    by_string: dict[str, int] = {}
    placed: dict[Path, int] = {}
    for path, value in leaves(data):
        if (path and path[0] in keep) or value == "eager":
            continue
        if isinstance(value, str):
            if value not in by_string:
                counter[0] += 1
                by_string[value] = counter[0]
            n = by_string[value]
        else:
            counter[0] += 1
            n = counter[0]
        set_at(data, path, payload(n))
        placed[path] = n
    while True:
        try:
            loaded = ProfileRun.from_dict(data)
        except FormatError as exc:
            assert exc.path in placed, f"the loader refused {exc.where!r}, which is no leaf it was given: {exc}"
            set_at(data, exc.path, originals[exc.path])
            del placed[exc.path]
            continue
        return data, loaded, placed
