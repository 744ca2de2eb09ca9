"""Dataclass trees to and from plain JSON data, and their JSON Schema.

One walk over the type hints serves all three jobs, so the schema shipped in
``schema/profile_run.schema.json`` cannot drift from the classes (a test
regenerates it and compares).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Union, get_args, get_origin, get_type_hints

_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def to_dict(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:  # NaN is not JSON
        return None
    return obj


@functools.cache
def _init_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's init fields with their resolved type hints, read once per class: resolving the
    hints for every object made loading a 1,000-kernel run take 246 ms, nearly all of the REST API's
    time to serve it (the panel's open of such a run missed its 0.5 s budget)."""
    hints = get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init)


def from_dict(cls: Any, data: Any) -> Any:
    """Build ``cls`` from JSON data; unknown keys are ignored so newer files still load."""
    origin = get_origin(cls)
    if origin in (Union, types.UnionType):
        if data is None:
            return None
        inner = [a for a in get_args(cls) if a is not type(None)]
        return from_dict(inner[0], data)
    if origin is list:
        (item,) = get_args(cls) or (Any,)
        return [from_dict(item, v) for v in data or []]
    if origin is dict:
        _, value = get_args(cls) or (str, Any)
        return {k: from_dict(value, v) for k, v in (data or {}).items()}
    if origin is typing.Literal:
        return data
    if dataclasses.is_dataclass(cls):
        kwargs = {name: from_dict(hint, data[name]) for name, hint in _init_fields(cls) if name in data}
        return cls(**kwargs)
    if cls is float and isinstance(data, int):
        return float(data)
    return data


def json_schema(root: type, *, title: str, schema_id: str) -> dict:
    definitions: dict[str, dict] = {}

    def walk(tp: Any) -> dict:
        origin = get_origin(tp)
        if origin in (Union, types.UnionType):
            options = [walk(a) for a in get_args(tp)]
            return {"anyOf": options}
        if tp is type(None):
            return {"type": "null"}
        if origin is list:
            (item,) = get_args(tp) or (Any,)
            return {"type": "array", "items": walk(item)}
        if origin is dict:
            _, value = get_args(tp) or (str, Any)
            return {"type": "object", "additionalProperties": walk(value)}
        if origin is typing.Literal:
            return {"enum": list(get_args(tp))}
        if tp in _PRIMITIVES:
            if tp is float:
                return {"type": "number"}
            return {"type": _PRIMITIVES[tp]}
        if tp is Any:
            return {}
        if dataclasses.is_dataclass(tp):
            name = tp.__name__
            if name not in definitions:
                definitions[name] = {}  # placeholder breaks recursion
                hints = get_type_hints(tp)
                props = {}
                required = []
                for f in dataclasses.fields(tp):
                    props[f.name] = walk(hints[f.name])
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                        required.append(f.name)
                definitions[name] = {
                    "type": "object",
                    "description": (tp.__doc__ or "").strip().splitlines()[0] if tp.__doc__ else "",
                    "properties": props,
                    "required": required,
                }
            return {"$ref": f"#/$defs/{name}"}
        raise TypeError(f"no JSON Schema mapping for {tp!r}")

    top = walk(root)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **top,
        "$defs": definitions,
    }
