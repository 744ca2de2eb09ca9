"""Dataclass trees to and from plain JSON data, and their JSON Schema.

One walk over the type hints serves all three jobs, so the schemas shipped in ``schema/`` (the run's, the
digest's) cannot drift from the classes (a test regenerates each and compares).  Loading checks each value against its hint (``from_dict``):
run files come from other machines (``compile-profile import``) and every view trusts the
types, so a value of the wrong type is refused with the path of its field, never passed on.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import json
import math
import re
import sys
import types
import typing
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, TypeGuard, Union, get_args, get_origin, get_type_hints

_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}

# -- someone else's JSON -----------------------------------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # a \ud800-\udfff escape: the only way JSON text holds one
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_json(text: str | bytes, **options: Any) -> Any:
    """``json.loads`` for text from elsewhere (a TORCH_TRACE's records, a ``--json`` baseline, a request's body): a
    ``ValueError`` where ``json.loads`` would raise ``RecursionError`` (arrays nested 100,000 deep: a traceback from
    the CLI, a 500 from the server), and each lone surrogate in its strings and keys (``"\\ud800"``, which JSON
    allows and no UTF-8 text can hold: SQLite, an HTML file, a terminal refuse it) replaced by U+FFFD.  ``options``
    are ``json.loads``'."""
    try:
        data = json.loads(text, **options)
    except RecursionError:
        raise ValueError("it is nested deeper than Python's recursion limit lets JSON be read") from None
    probe = text if isinstance(text, str) else text.decode("latin-1")
    if _SURROGATE_ESCAPE.search(probe):
        data = _without_surrogates(data)
    return data


def clean_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a str JSON or Python escapes can hold, UTF-8 cannot)."""
    return _SURROGATE.sub("\ufffd", text)


def _without_surrogates(data: Any) -> Any:
    """JSON data with ``clean_text`` applied to every string and key, in place, without recursion (the data may be
    nested nearly as deep as the recursion limit)."""
    if isinstance(data, str):
        return clean_text(data)
    pending: list[Any] = [data]
    while pending:
        node: Any = pending.pop()
        if is_list(node):
            for i, value in enumerate(node):
                if isinstance(value, str):
                    node[i] = clean_text(value)
                elif isinstance(value, (list, dict)):
                    pending.append(value)
        elif is_dict(node):
            items: list[tuple[str, Any]] = [(clean_text(str(k)), v) for k, v in node.items()]
            node.clear()
            for key, value in items:
                node[key] = clean_text(value) if isinstance(value, str) else value
                if isinstance(value, (list, dict)):
                    pending.append(value)
    return data


# What a check of a value's type established, for the type checker: isinstance narrows Any to list[Unknown].
def _is_sequence(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, (list, tuple))


def is_list(value: object) -> TypeGuard[list[Any]]:
    """A list: a JSON array before it is checked."""
    return isinstance(value, list)


def is_dict(value: object) -> TypeGuard[dict[Any, Any]]:
    """A dict (a subclass too): a run's JSON object before it is checked, a dict field of a dataclass tree."""
    return isinstance(value, dict)


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
    """``obj`` as JSON data: dataclasses as objects, NaN and infinities as null, and each lone surrogate of a string
    as U+FFFD (``clean_text``: a label from argv's undecodable bytes, a ``"\\ud800"`` read from JSON), so what is
    written holds only text UTF-8 can (SQLite's columns, an HTML export, a terminal)."""
    cls = _type_of(obj)
    if cls is str:
        return obj if obj.isascii() else clean_text(obj)
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
        return {(k if type(k) is str and k.isascii() else clean_text(str(k))): to_dict(v) for k, v in obj.items()}
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


# How deep a value of ``Any`` (a run's ``options``, a suite's ``profile_options``) may nest: an option is a flat value
# or a small mapping.  One nested 950 deep loaded from the CLI's shallow stack, and a reader with a deeper one (the
# server's handlers) then met the recursion limit in ``json.loads``, reading the run back.
MAX_ANY_DEPTH = 32


def _any(data: Any) -> Any:
    level: list[Any] = [data]  # a list or object is one level deeper than the values it holds ([] is 1 deep)
    for _ in range(MAX_ANY_DEPTH):
        inner: list[Any] = []
        for node in level:
            if is_list(node):
                inner.extend(node)
            elif is_dict(node):
                inner.extend(node.values())
        if not inner:
            return data
        level = inner
    raise FormatError(f"nested deeper than {MAX_ANY_DEPTH} (MAX_ANY_DEPTH, the cap on a value of any type)")


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


# A field's metadata (``field(metadata=ADDED_LATER)``) in a tree written whole (``json_schema(..., whole=True)``):
# its key may be absent from JSON an older release wrote (a card's summary saved in a notebook), so the schema
# does not require it and the TypeScript marks it optional; this release writes it like every other.
ADDED_LATER = MappingProxyType({"added_later": True})


def json_schema(root: type | tuple[type, ...], *, title: str, schema_id: str, whole: bool = False) -> dict[str, Any]:
    """The JSON Schema of ``root``'s tree, each class a ``$defs`` entry; of any one of ``root``'s classes when it
    is a tuple.  A class's docstring's first line describes it and the comment after a field on its line
    describes that field; a class that extends another dataclass says so (``extends``, which the TypeScript
    generator reads) and lists the inherited fields too, so each entry validates alone.

    Two kinds of tree: the run's (``whole`` false) is read back from files other releases wrote, so unknown
    keys are allowed (a newer file still validates) and a field with a default is not required (an older file
    may lack it).  The digest's (``whole``) is written whole by ``to_dict`` and read by the panel: every field
    is required except those marked ``ADDED_LATER``, and no other key is allowed, so a field added to a class
    reaches the schema and the TypeScript or fails the tests that validate real digests."""
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
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            name = tp.__name__
            if name not in definitions:
                definitions[name] = {}  # placeholder breaks recursion
                definitions[name] = describe(tp)
            return {"$ref": f"#/$defs/{name}"}
        raise TypeError(f"no JSON Schema mapping for {tp!r}")

    def describe(cls: type) -> dict[str, Any]:
        hints = get_type_hints(cls)
        comments = _field_comments(cls)
        props: dict[str, Any] = {}
        required: list[str] = []
        for f in dataclasses.fields(cls):
            props[f.name] = _described(walk(hints[f.name]), comments.get(f.name))
            if whole:
                optional = bool(f.metadata.get("added_later"))
            else:
                optional = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if not optional:
                required.append(f.name)
        out: dict[str, Any] = {"type": "object", "description": _doc_line(cls)}
        base = next((b for b in cls.__bases__ if dataclasses.is_dataclass(b)), None)
        if base is not None:
            out["extends"] = walk(base)
        out |= {"properties": props, "required": required}
        if whole:
            out["additionalProperties"] = False
        return out

    top = {"anyOf": [walk(r) for r in root]} if isinstance(root, tuple) else walk(root)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **top,
        "$defs": definitions,
    }


def _doc_line(cls: type) -> str:
    """The first paragraph of the class's own docstring, on one line; "" where it has none (a dataclass without
    one is given its signature as ``__doc__``, which describes nothing)."""
    doc = cls.__dict__.get("__doc__") or ""
    if not doc or doc.startswith(f"{cls.__name__}("):
        return ""
    return " ".join(line.strip() for line in doc.strip().split("\n\n")[0].splitlines())


def _described(schema: dict[str, Any], description: str | None) -> dict[str, Any]:
    return {**schema, "description": description} if description else schema


def _field_comments(cls: type) -> dict[str, str]:
    """Each field's comment in its class's source (the one after it on its line), inherited fields' from the
    class that declares them, so the schema, and the TypeScript generated from it, say what the source says."""
    out: dict[str, str] = {}
    for c in reversed(cls.__mro__):
        if dataclasses.is_dataclass(c):
            out |= _module_field_comments(c.__module__).get(c.__qualname__, {})
    return out


@functools.cache
def _module_field_comments(module: str) -> dict[str, dict[str, str]]:
    """Class name -> field -> comment, for every top-level class of ``module``; {} without source."""
    try:
        source = inspect.getsource(sys.modules[module])
    except (OSError, TypeError, KeyError):  # no source (a module made at run time): no comments
        return {}
    lines = source.splitlines()
    out: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        comments: dict[str, str] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.end_lineno:
                after = lines[stmt.end_lineno - 1][stmt.end_col_offset :].strip()
                if after.startswith("#"):
                    comments[stmt.target.id] = after[1:].strip()
        out[node.name] = comments
    return out
