"""What each structured-trace record must hold: the one table of typed records, checked where a record read from a
log becomes a ``TraceEvent`` (``capture.trace_event``), before any handler reads it.

A ``TORCH_TRACE`` log is someone else's file.  Each record's metadata (its JSON line) is checked against its kind's
fields here, the way tlparse parses each record into a typed struct: the context keys every record may carry
(``ENVELOPE``: ``frame_id``, ``rank``, ...) and, per kind, the fields the trace model reads (``RECORDS``).  A field
that is absent passes (older releases log fewer); a field of another type, a number that is not finite (``NaN``,
``1e400``) or a rank past ``MAX_RANK`` makes the whole record a ``BadRecord``: skipped and counted with its line,
never read by a handler and never fatal.  Fields no handler reads are not checked, so a newer torch that adds
some still reads.  A kind that reads a new field adds it to its row here.

``load_json`` is the one JSON reader for trace text: it refuses ``NaN`` and ``Infinity`` (which ``json.loads``
takes, and which the store would then write as JSON no browser reads).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ...serialize import parse_json

# A rank is a process of one job; torchrun's largest jobs have tens of thousands.  A record naming a rank past this
# (``"rank": 2000000000``) is refused: the job view would otherwise lay out that many ranks.
MAX_RANK = 1 << 16

# The largest magnitude of a number a record may hold: what a signed 64-bit integer holds (a time stamp in
# nanoseconds, a byte count, a size).  Past it the sums and differences the handlers take overflow a float: two span
# ends at -1e308 and 1e308 made an infinite compile phase, which the run stored and could then not read back.
MAX_MAGNITUDE = 2**63

Check = Callable[[Any], str]  # "" when the value is of its field's type, else what is wrong with it


class BadRecord(ValueError):
    """A record whose metadata is not of its kind's types: ``kind`` and what is wrong (``why``)."""

    def __init__(self, kind: str, why: str):
        super().__init__(f"{kind}: {why}")
        self.kind = kind
        self.why = why


def _what(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return f"the number {value}"
    names = {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object"}
    return names.get(type(value), "null" if value is None else type(value).__name__)


def _outside(value: float) -> str:
    shown = f"{value:.4g}" if isinstance(value, float) else f"an integer of {len(str(abs(value)))} digits"
    return f"{shown} is outside ±2**63 (MAX_MAGNITUDE, the cap on a number)"


def integer(value: Any) -> str:
    if type(value) is not int:
        return f"expected an integer, got {_what(value)}"
    return "" if -MAX_MAGNITUDE < value < MAX_MAGNITUDE else _outside(value)


def number(value: Any) -> str:
    if not (type(value) in (int, float) and math.isfinite(value)):
        return f"expected a finite number, got {_what(value)}"
    return "" if -MAX_MAGNITUDE < value < MAX_MAGNITUDE else _outside(value)


# The longest time a compile's figure may read: a week.  A number within a float's range but no duration (-1e18 s,
# 9.2e18 s) had been shown as "entire frame -1e+27 ns"; a record holding one is skipped with its line, as NaN is.
MAX_DURATION_S = 7 * 24 * 3600.0


def duration(value: Any) -> str:
    """A number of seconds a compile could have taken: 0 to ``MAX_DURATION_S``."""
    if problem := number(value):
        return problem
    return "" if 0 <= value <= MAX_DURATION_S else f"expected seconds from 0 to a week, got {value:g}"


def text(value: Any) -> str:
    return "" if isinstance(value, str) else f"expected a string, got {_what(value)}"


def boolean(value: Any) -> str:
    return "" if isinstance(value, bool) else f"expected a boolean, got {_what(value)}"


def obj(value: Any) -> str:
    return "" if isinstance(value, dict) else f"expected an object, got {_what(value)}"


def optional(check: Check) -> Check:
    """``check``, or null."""
    return lambda value: "" if value is None else check(value)


def one_of(*checks: Check) -> Check:
    def check(value: Any) -> str:
        problems = [c(value) for c in checks]
        return "" if "" in problems else " or ".join(p.split(", got ")[0] for p in problems) + f", got {_what(value)}"

    return check


def list_of(item: Check) -> Check:
    def check(value: Any) -> str:
        if not isinstance(value, list):
            return f"expected a list, got {_what(value)}"
        for i, x in enumerate(value):
            problem = item(x)
            if problem:
                return f"[{i}]: {problem}"
        return ""

    return check


def fields(spec: Mapping[str, Check], *, required: tuple[str, ...] = ()) -> Check:
    """An object whose listed fields, where present, pass their checks (others are not read, so not checked)."""

    def check(value: Any) -> str:
        if not isinstance(value, dict):
            return f"expected an object, got {_what(value)}"
        for name in required:
            if name not in value:
                return f"no {name}"
        for name, field_check in spec.items():
            if name in value:
                problem = field_check(value[name])
                if problem:
                    return f"{name}: {problem}"
        return ""

    return check


def rank(value: Any) -> str:
    problem = integer(value)
    if problem:
        return problem
    return "" if 0 <= value < MAX_RANK else f"rank {value} is outside 0 to {MAX_RANK - 1} (MAX_RANK, the cap on ranks)"


def _interned(value: Any) -> str:
    """``{"str": [path, index]}``: torch interning a filename its stacks name by index."""
    ok = isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and type(value[1]) is int
    return "" if ok else f"expected [text, index], got {_what(value)}"


# A frame of a stack (``dynamo_start``'s, a guard's ``user_stack``): its file by path or by interned index.
FRAME = fields({"filename": one_of(text, integer), "line": integer, "name": text, "loc": text})
STACK = list_of(FRAME)

# The context ``trace_structured`` adds around every record's own metadata.
ENVELOPE: dict[str, Check] = {
    "frame_id": optional(integer),
    "frame_compile_id": optional(integer),
    "attempt": optional(integer),
    "compiled_autograd_id": optional(integer),
    "has_payload": one_of(text, boolean),  # the payload's md5, which log_file checks
    "rank": optional(rank),
    "stack": optional(STACK),
    "subgraph_name": optional(text),
}

_METRICS = {
    "compile_id": optional(text),
    "co_filename": optional(text),
    "pytorch_version": optional(text),
    "entire_frame_compile_time_s": optional(duration),
    "inductor_compile_time_s": optional(duration),
    "fail_type": optional(text),
    "fail_reason": optional(text),
    "fail_user_frame_filename": optional(text),
    "fail_user_frame_lineno": optional(integer),
    "recompile_reason": optional(text),
    "cudagraph_skip_reason": optional(text),
    "restart_reasons": optional(one_of(list_of(text), text)),
    # the compile page's figures (``model.compiles``)
    "backend_compile_time_s": optional(duration),
    "code_gen_time_s": optional(duration),
    "dynamo_time_before_restart_s": optional(duration),
    "remote_cache_time_saved_s": optional(duration),
    "cache_size": optional(integer),
    "accumulated_cache_size": optional(integer),
    "guard_count": optional(integer),
    "shape_env_guard_count": optional(integer),
    "graph_op_count": optional(integer),
    "graph_node_count": optional(integer),
    "graph_input_count": optional(integer),
    "compliant_custom_ops": optional(one_of(list_of(text), text)),
    "non_compliant_ops": optional(one_of(list_of(text), text)),
}
# a symbolic-shape decision's own fields (``model.compiles``): a value may be logged as a number or its text
_SHAPE_VALUE = optional(one_of(text, number, boolean))

# Each kind whose own metadata a handler or the importer reads, and what it must hold.  Kinds not listed carry
# nothing read but their payload (``dynamo_output_graph``'s sizes, ``describe_tensor``'s fields) and pass as
# they are; a kind's payload is its handler's to read (a payload that cannot be read is counted by kind).
RECORDS: dict[str, Check] = {
    "str": _interned,
    "artifact": fields({"name": text, "encoding": text}, required=("name",)),
    "dynamo_start": fields({"stack": STACK}),
    "compilation_metrics": fields(_METRICS),
    "bwd_compilation_metrics": fields(_METRICS),
    "inductor_output_code": fields({"filename": optional(text), "file_path": optional(text)}),
    "guard_added_fast": fields({"expr": optional(text), "user_stack": optional(STACK)}),
    "guard_added": fields({"expr": optional(text), "user_stack": optional(STACK)}),
    "symbolic_shape_specialization": fields(
        {
            "symbol": optional(text),
            "sources": optional(list_of(text)),
            "value": _SHAPE_VALUE,
            "user_stack": optional(STACK),
        }
    ),
    "create_symbol": fields(
        {"symbol": optional(text), "val": _SHAPE_VALUE, "source": optional(text), "user_stack": optional(STACK)}
    ),
    "create_unbacked_symbol": fields({"symbol": optional(text), "user_stack": optional(STACK)}),
}


def check_record(metadata: dict[str, Any], name: str) -> None:
    """Raise ``BadRecord`` when ``metadata`` (a record of kind ``name``) is not of its types."""
    for key, check in ENVELOPE.items():
        if key in metadata:
            problem = check(metadata[key])
            if problem:
                raise BadRecord(name, f"{key}: {problem}")
    check = RECORDS.get(name)
    if check is not None:
        problem = check(metadata[name])
        if problem:
            raise BadRecord(name, problem)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"{literal} is not a finite number")
    return value


def load_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity``, numbers too large for a float and JSON nested past the
    recursion limit (ValueError), with lone surrogates as U+FFFD (``serialize.parse_json``)."""
    return parse_json(text, parse_constant=_no_constant, parse_float=_finite)
