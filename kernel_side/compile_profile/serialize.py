"""Dataclass trees to and from plain JSON data, and their JSON Schema.

One walk over the type hints serves all three jobs, so the schema shipped in
``schema/profile_run.schema.json`` cannot drift from the classes (a test
regenerates it and compares).  Loading checks each value against its hint (``from_dict``):
run files come from other machines (``compile-profile import``) and every view trusts the
types, so a value of the wrong type is refused with the path of its field, never passed on.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import math
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Protocol, TypeGuard, Union, get_args, get_origin, get_type_hints

_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}


# What a check of a value's type established, for the type checker: isinstance narrows Any to list[Unknown].
def _is_sequence(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, (list, tuple))


def is_list(value: object) -> TypeGuard[list[Any]]:
    """A list: a JSON array before it is checked."""
    return isinstance(value, list)


def is_dict(value: object) -> TypeGuard[dict[Any, Any]]:
    """A dict (a subclass too): a run's JSON object before it is checked, a dict field of a dataclass tree."""
    return isinstance(value, dict)


class _TypedDictClass(Protocol):
    """What the schema walk reads of a ``TypedDict`` class (``typing`` declares none of it)."""

    __name__: str
    __module__: str
    __doc__: str | None
    __required_keys__: frozenset[str]


# typing.is_typeddict returns a plain bool, so the class it accepts stays Any; this is the one place that says
# what such a class carries.
def _is_typeddict(tp: object) -> TypeGuard[_TypedDictClass]:
    return typing.is_typeddict(tp)


def _is_json_array(data: Any) -> TypeGuard[list[Any]]:
    """A list itself, as json.load makes (a subclass is no JSON array)."""
    return type(data) is list


def _is_json_object(data: Any) -> TypeGuard[dict[str, Any]]:
    """A dict itself, as json.load makes: string keys."""
    return type(data) is dict


_PLAIN = (str, int, bool, type(None))
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # each dataclass's fields, read once (a 48 MB log's run: 400,000 values)


def _type_of(obj: object) -> type:
    return type(obj)


def to_dict(obj: Any) -> Any:
    cls = _type_of(obj)
    if cls in _PLAIN:
        return obj
    names = _FIELD_NAMES.get(cls)
    if names is None and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(obj))
    if names is not None:
        return {name: to_dict(getattr(obj, name)) for name in names}
    if _is_sequence(obj):
        return [to_dict(v) for v in obj]
    if is_dict(obj):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):  # NaN and infinities are not JSON (browsers refuse them)
        return None
    return obj


class FormatError(ValueError):
    """JSON data that does not fit the dataclass tree: what is wrong, and where (``graphs[0].lines[2]``)."""

    def __init__(self, problem: str, path: tuple[str | int, ...] = ()):
        super().__init__(problem)
        self.problem = problem
        self.path = path

    def inside(self, segment: str | int) -> FormatError:
        """The same error one level further out: ``segment`` is the field, list index or dict key it is in."""
        return FormatError(self.problem, (segment, *self.path))

    @property
    def where(self) -> str:
        """The path as Python over the JSON would read it: ``graphs[0].guards[2].line``, ``options['mode']``."""
        out = ""
        for segment in self.path:
            if isinstance(segment, int):
                out += f"[{segment}]"
            elif segment.isidentifier():
                out += f".{segment}" if out else segment
            else:  # a dict key
                out += f"[{_quoted(segment)}]"
        return out

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}" if self.path else self.problem


def _quoted(value: Any) -> str:
    """A value as an error message quotes it: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


_JSON_NAMES: dict[type, str] = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    list: "a list",
    dict: "an object",
}


def json_kind(data: object) -> str:
    """What JSON value ``data`` is, in words: ``a string``, ``an integer``, ``null``."""
    return "null" if data is None else _JSON_NAMES.get(type(data), f"a {type(data).__name__}")


def _wrong(expected: str, data: Any) -> FormatError:
    if data is None:
        return FormatError(f"expected {expected}, got null")
    got = json_kind(data)
    shown = f" ({_quoted(data)})" if not isinstance(data, (list, dict)) else ""
    return FormatError(f"expected {expected}, got {got}{shown}")


def from_dict(cls: Any, data: Any) -> Any:
    """Build ``cls`` from JSON data, checking every value against the type hints on the way in.

    Each value must have its annotated type: a string a ``str`` (``Literal`` fields one of their
    values), an integer an ``int`` (an integral float such as ``3.0`` is taken as ``3``; ``true`` is
    not an integer), a finite number a ``float`` (``to_dict`` writes NaN and infinities as ``null``,
    so a field that may hold one is ``float | None``), ``true`` or ``false`` a ``bool``, a list or
    object the containers, ``null`` only where the hint allows ``None`` (a list or dict read as
    ``null`` is empty).  Anything else raises ``FormatError``
    naming the field's path, so nothing of the wrong type reaches a view (a string in ``cell_runs``
    would be inserted into HTML as it is).  Unknown keys are ignored so newer files still load.
    """
    return _converter(cls)(data)


@functools.cache
def _converter(tp: Any) -> Callable[[Any], Any]:
    """A function that checks and converts JSON data to ``tp``, built once per type from its hints: resolving
    hints for every object made loading a 1,000-kernel run take 246 ms, nearly all of the REST API's time
    to serve it (the panel's open of such a run missed its 0.5 s budget)."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union(tp)
    if origin is list:
        (item,) = get_args(tp) or (Any,)
        return _list(_converter(item))
    if origin is dict:
        key, value = get_args(tp) or (str, Any)
        if key is not str:
            raise TypeError(f"JSON objects have string keys, not {key!r}")
        return _dict(_converter(value))
    if origin is typing.Literal:
        return _literal(get_args(tp))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    if tp is Any:
        return _any
    primitive = _PRIMITIVE_CONVERTERS.get(tp)
    if primitive is None:
        raise TypeError(f"no JSON mapping for {tp!r}")
    return primitive


def _any(data: Any) -> Any:
    return data


def _str(data: Any) -> str:
    # a str subclass (torch's TorchVersion in a run made in process) is kept as the plain string JSON holds
    if not isinstance(data, str):
        raise _wrong("a string", data)
    return str(data)


def _bool(data: Any) -> bool:
    if type(data) is not bool:
        raise _wrong("true or false", data)
    return data


def _int(data: Any) -> int:
    if type(data) is int:
        return data
    if type(data) is float and data.is_integer():
        return int(data)
    raise _wrong("an integer", data)


def _float(data: Any) -> float:
    if type(data) is float and math.isfinite(data):  # NaN and infinities never come from to_dict, which writes null
        return data
    if type(data) is int:
        return float(data)
    raise _wrong("a finite number", data)


_PRIMITIVE_CONVERTERS: dict[Any, Callable[[Any], Any]] = {str: _str, bool: _bool, int: _int, float: _float}


def _union(tp: Any) -> Callable[[Any], Any]:
    options = [a for a in get_args(tp) if a is not type(None)]
    nullable = len(options) < len(get_args(tp))
    converters = [_converter(a) for a in options]
    if len(converters) == 1:
        (only,) = converters

        def optional(data: Any) -> Any:
            return None if data is None and nullable else only(data)

        return optional

    def either(data: Any) -> Any:
        if data is None and nullable:
            return None
        problems: list[FormatError] = []
        for convert in converters:
            try:
                return convert(data)
            except FormatError as exc:
                problems.append(exc)
        raise max(problems, key=lambda e: len(e.path))  # the option that fit furthest says what is wrong

    return either


def _list(item: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def convert(data: Any) -> list[Any]:
        if data is None:
            return []
        if not _is_json_array(data):
            raise _wrong("a list", data)
        out: list[Any] = []
        for index, value in enumerate(data):
            try:
                out.append(item(value))
            except FormatError as exc:
                raise exc.inside(index) from None
        return out

    return convert


def _dict(value: Callable[[Any], Any]) -> Callable[[Any], dict[str, Any]]:
    def convert(data: Any) -> dict[str, Any]:
        if data is None:
            return {}
        if not _is_json_object(data):
            raise _wrong("an object", data)
        out: dict[str, Any] = {}
        for key, v in data.items():
            try:
                out[key] = value(v)
            except FormatError as exc:
                raise exc.inside(key) from None
        return out

    return convert


def _literal(allowed: tuple[Any, ...]) -> Callable[[Any], Any]:
    words = ", ".join(map(repr, allowed))

    def convert(data: Any) -> Any:
        # type() as well: True == 1, so 1 must not pass as a Literal[True]
        if data in allowed and any(type(data) is type(a) for a in allowed):
            return data
        raise FormatError(f"expected one of {words}, got {_quoted(data)}")

    return convert


def _dataclass(cls: type) -> Callable[[Any], Any]:
    hints = get_type_hints(cls)
    fields = [
        (
            f.name,
            _converter(hints[f.name]),
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
        if f.init
    ]
    what = f"an object ({cls.__name__})"

    def convert(data: Any) -> Any:
        if not _is_json_object(data):
            raise _wrong(what, data)
        kwargs: dict[str, Any] = {}
        for name, field_converter, required in fields:
            if name in data:
                try:
                    kwargs[name] = field_converter(data[name])
                except FormatError as exc:
                    raise exc.inside(name) from None
            elif required:
                raise FormatError(f"missing (a {cls.__name__} needs it)", (name,))
        return cls(**kwargs)

    return convert


def json_schema(root: type | tuple[type, ...], *, title: str, schema_id: str) -> dict[str, Any]:
    """The JSON Schema of ``root``'s tree, each class a ``$defs`` entry; of any one of ``root``'s classes when it
    is a tuple.  Dataclasses (the run) leave unknown keys allowed, so a newer file still validates, and a field
    with a default is not required, since an older file may lack it.  ``TypedDict`` classes (the digest's JSON,
    ``digest.contract``) require their required keys and allow no other: what one describes is all its
    function writes."""
    definitions: dict[str, dict[str, Any]] = {}

    def walk(tp: Any) -> dict[str, Any]:
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
        # before the dataclass test, whose narrowing leaves tp partly Unknown; no class is both
        if _is_typeddict(tp):
            name = tp.__name__
            if name not in definitions:
                definitions[name] = {}  # placeholder breaks recursion
                hints = get_type_hints(tp)
                comments = _key_comments(tp)
                definitions[name] = {
                    "type": "object",
                    "description": (tp.__doc__ or "").strip().splitlines()[0] if tp.__doc__ else "",
                    "properties": {key: _described(walk(hint), comments.get(key)) for key, hint in hints.items()},
                    "required": [key for key in hints if key in tp.__required_keys__],
                    "additionalProperties": False,
                }
            return {"$ref": f"#/$defs/{name}"}
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            name = tp.__name__
            if name not in definitions:
                definitions[name] = {}  # placeholder breaks recursion
                hints = get_type_hints(tp)
                props: dict[str, Any] = {}
                required: list[str] = []
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

    top = {"anyOf": [walk(r) for r in root]} if isinstance(root, tuple) else walk(root)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **top,
        "$defs": definitions,
    }


def _described(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return {**schema, "description": description} if description else schema


def _key_comments(tp: _TypedDictClass) -> dict[str, str]:
    """Each key's comment in a TypedDict's source (the one after it on its line), its bases' keys' too, so the
    schema, and the TypeScript generated from it, say what the source says about each key.  The bases are read
    from the module's source, not the class: Python before 3.12 keeps no record of a TypedDict's bases."""
    return _module_key_comments(tp.__module__).get(tp.__name__, {})


@functools.cache
def _module_key_comments(module: str) -> dict[str, dict[str, str]]:
    """Class name -> key -> comment, for every class of ``module``, bases' keys included; {} without source."""
    try:
        source = inspect.getsource(sys.modules[module])
    except (OSError, TypeError, KeyError):  # no source (a module made at run time): no comments
        return {}
    lines = source.splitlines()
    classes = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)}

    def comments(name: str) -> dict[str, str]:
        node = classes.get(name)
        if node is None:
            return {}
        out: dict[str, str] = {}
        for base in node.bases:
            if isinstance(base, ast.Name):
                out |= comments(base.id)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.end_lineno:
                after = lines[stmt.end_lineno - 1][stmt.end_col_offset :].strip()
                if after.startswith("#"):
                    out[stmt.target.id] = after[1:].strip()
        return out

    return {name: comments(name) for name in classes}
