"""Guards as a reader asks about them: per compiled graph, what its guards check, grouped by kind and
value, each with the cell line the value comes from; and, for a recompile, which guard failed on
which value at which cell line (pytorch #114015 asks for exactly this).

Derived here once for every view (text, HTML, report, panel through the digest's JSON).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..profile_run import CELL_FILENAME_PREFIX, SETTER_FILENAME, Graph, Guard, ProfileRun, Recompile
from ..serialize import ADDED_LATER
from .breaks import short_path
from .format import CELL, line_text, lines_of, one_line

# The order kinds are listed in: what a user changes most often first.
KIND_ORDER = [
    "tensor",
    "shape",
    "dynamic-shape marks",
    "type",
    "identity",
    "length",
    "value",
    "attribute",
    "dict",
    "aliasing",
    "global state",
    "other",
]


@dataclass
class GuardGroup:
    """The guards of one kind on one value or one object's parts (``source``, in the user's words: ``x``,
    ``m's parameters``), e.g. the tensor match and its shape guards on ``x``."""

    kind: str
    # "xb" is a stack slot after a graph break; "m's parameters" a module's parameters together, one row for them all
    source: str  # the value checked, in the user's words: "x", "self.weight", "xb", "m's parameters"
    line: int | None  # the cell line the value comes from
    count: int
    codes: list[str] = field(default_factory=list)  # the checks themselves, as Dynamo prints them
    # for a value guard on a number that came from data (``value_guard_text``): "recompiles when the value changes
    # (…): s, what x.sum().item() returned at cell line 2 (compiled for 1.533); fix: …"
    warning: str = ""  # why the value recompiles and what to do, for a value guard on data; "" for any other group
    # "3 tensor guards on x (cell line 1)", with the warning after a colon (``group_text``)
    text: str = field(default="", metadata=ADDED_LATER)  # the group in words, as the text view lists it


@dataclass(frozen=True)
class GraphGuards:
    """One Dynamo graph's guards, and their kinds in words."""

    graph_id: str
    variant: str
    compile_id: str
    total: int
    by_kind: dict[str, int]  # kind -> count, in KIND_ORDER
    groups: list[GuardGroup]
    kinds_text: str = field(init=False)  # "12 tensor, 3 shape, 4 global state"
    # "graph 0/0 (inductor/default): 23 guards: 12 tensor, 3 shape, 8 global state"
    heading: str = field(init=False, metadata=ADDED_LATER)  # the graph, its guards and their kinds in words

    def __post_init__(self) -> None:  # worded once, from by_kind (frozen: it cannot change after)
        object.__setattr__(self, "kinds_text", kinds_text(self.by_kind))
        object.__setattr__(self, "heading", graph_heading(self))


@dataclass
class RecompileRow:
    """A recompile with the guard that failed: which value, at which cell line (``recompiles_digest``)."""

    variant: str
    reason: str
    during_timing: bool
    source: str
    line: int | None
    # "xb, what next(batches) returned at cell line 3, changed dim 1: 32 → 17; fix: compile with dynamic=True, or
    # torch._dynamo.mark_dynamic(xb, 1)"; "the guard on x (cell line 1) failed" where no change was read
    failed_guard: str  # the failed guard in the user's words: the value, what changed, the fix; "" when unknown
    value: str  # "xb, what next(batches) returned at cell line 3"; "x (cell line 2)"; "" when unknown
    changed: str  # "dim 1: 32 → 17", "dtype: Float → Double", "value (compiled for 56.15…)"; "" when unread
    fix: str  # "compile with dynamic=True, or torch._dynamo.mark_dynamic(xb, 1)"; "" when none is known


@dataclass
class RecompileRun:
    """Recompiles in a row of one frame whose same guard failed (``recompile_runs``), said once with a count."""

    count: int
    variant: str
    during_timing: bool
    text: str  # the last one's failed guard and Dynamo's reason (``recompile_text``): it says the limit, when hit


def _kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


# Dynamo's names for a value: L['x'] (a local), G['m'] (a global), then attributes and subscripts; a
# module's parts are reached through ._modules['fc'], ._parameters['weight'], ._buffers['running_mean'].
_ROOT = re.compile(r"""^[LG]\[['"]([^'"]+)['"]\]""")
_PART = re.compile(r"""\._(modules|parameters|buffers)\[['"]([^'"]*)['"]\]""")
_KEY = re.compile(r"""\[['"]([A-Za-z_]\w*)['"]\]""")
_BUILTINS = re.compile(r"""^__builtins_dict___\d+\[['"](\w+)['"]\]""")
_IMPORTED = re.compile(r"^__import_(\w+?)(?=\.|\[|$)")  # Dynamo's global for an imported module
_PARTS_ALL = re.compile(r"\._(modules|parameters|buffers)\b")
_STACK_SLOT = re.compile(r"^___stack\d+")


def friendly_source(source: str) -> str:
    """A value as the user names it: ``G['m']._modules['fc']._parameters['weight']`` -> ``m.fc.weight``,
    ``L['x']`` -> ``x``, ``G['__builtins_dict___1']['next']`` -> ``builtins.next``,
    ``G['__import_torch_dot_nn_dot_modules_dot_linear'].F`` -> ``torch.nn.modules.linear.F``."""
    out = _ROOT.sub(lambda m: m.group(1), source)
    out = _PART.sub(lambda m: "." + m.group(2) if m.group(2).isidentifier() else f"[{m.group(2)!r}]", out)
    out = _BUILTINS.sub(lambda m: f"builtins.{m.group(1)}", out)
    return _IMPORTED.sub(lambda m: m.group(1).replace("_dot_", "."), out)


def object_group(source: str) -> str:
    """The row a guard's value is listed in: a module's parameters, buffers or submodules together
    (``G['m']._modules['0']._parameters['weight']`` -> ``m's parameters``), any other value by itself."""
    kinds = _PARTS_ALL.findall(source)
    root = _ROOT.match(source)
    if not kinds or not root:
        return friendly_source(source)
    part = "parameters" if "parameters" in kinds else "buffers" if "buffers" in kinds else "submodules"
    return f"{root.group(1)}'s {part}"


def guard_value(g: Guard) -> str:
    """A guard's value in the user's words: the cell's name for a stack slot where known (``xb``), else
    the value it is (``what next(batches) returned``), else its friendly source."""
    if _STACK_SLOT.match(friendly_source(g.source)):
        return g.user_name or (f"what {g.user_expr} returned" if g.user_expr else friendly_source(g.source))
    return object_group(g.source)


def graph_guards(graph: Graph, of: str = CELL, lr_schedulers: list[str] | None = None) -> GraphGuards:
    counts = Counter(g.kind for g in graph.guards)
    groups: dict[tuple[str, str], GuardGroup] = {}
    for g in graph.guards:
        source = guard_value(g) if g.source else ""
        group = groups.setdefault((g.kind, source), GuardGroup(kind=g.kind, source=source, line=g.line, count=0))
        group.count += 1
        group.codes.append(g.code)
        if group.line is None:
            group.line = g.line
        if not group.warning and (flag := value_guard_text(g, of, lr_schedulers)):
            group.warning = flag
    ordered = sorted(groups.values(), key=lambda grp: (_kind_rank(grp.kind), grp.line or 10**9, grp.source))
    for grp in ordered:
        grp.text = group_text(grp, of)
    return GraphGuards(
        graph_id=graph.id,
        variant=graph.variant,
        compile_id=graph.compile_id,
        total=len(graph.guards),
        by_kind={k: counts[k] for k in sorted(counts, key=_kind_rank)},
        groups=ordered,
    )


def run_guards(run: ProfileRun) -> list[GraphGuards]:
    """The guards of each Dynamo graph that has any, in the run's graph order."""
    of = lines_of(run)
    return [graph_guards(g, of, run.lr_schedulers) for g in run.graphs if g.kind == "dynamo" and g.guards]


def kinds_text(by_kind: dict[str, int]) -> str:
    """``12 tensor, 3 shape, 4 global state``."""
    return ", ".join(f"{n} {kind}" for kind, n in by_kind.items())


def limit_text(r: Recompile) -> str:
    """``compile 1/8 hit torch._dynamo.config.recompile_limit (8): Dynamo runs this frame eagerly from now on``
    for a compile that hit Dynamo's recompile limit; "" for any other."""
    if not r.limit:
        return ""
    return f"compile {r.compile_id} hit torch._dynamo.config.{r.limit}: Dynamo runs this frame eagerly from now on"


# An optimizer's step frame guards on each group's learning rate as a Python float, so an LR scheduler
# makes it recompile every step until the recompile limit (a tensor lr: none; checked with SGD, torch 2.13).
# Every step guards so, SGD's and AdamW's alike; the guard is worth a warning only where something changes the
# rate: an LR scheduler the code reads (``ProfileRun.lr_schedulers``), or a recompile that saw it change.
_FLOAT_LR = re.compile(r"""param_groups\[\d+\]\[['"]lr['"]\]""")
_TENSOR_LR = "a tensor learning rate, e.g. SGD(params, lr=torch.tensor(0.1)), keeps one compiled optimizer step"
FLOAT_LR_HINT = f"the learning rate changed between steps; {_TENSOR_LR}"


def float_lr_hint(schedulers: list[str] | None = None) -> str:
    """What to do about a float learning rate that changes: said with its cause where the run names one
    (``the learning rate changes each step (sched, an LR scheduler); a tensor learning rate …``)."""
    if schedulers:
        return f"the learning rate changes each step ({', '.join(schedulers)}, an LR scheduler); {_TENSOR_LR}"
    return FLOAT_LR_HINT


def _number(text: str) -> str:
    """A number as a reader takes it in: ``56.15234375`` -> ``56.15…``; any other text as it is."""
    try:
        value = float(text)
    except ValueError:
        return text
    short = f"{value:.4g}"
    return text if short == text or "." not in text else (short if float(short) == value else short + "…")


_SLOT_ITEM = re.compile(r"^___stack\d+\[(\d+)\]")


def _item_of(source: str) -> str:
    """``item 0 of `` for a stack slot's item (``___stack0[0]``: ``xb`` of ``xb, yb = next(pairs)``), else ""."""
    found = _SLOT_ITEM.match(friendly_source(source))
    return f"item {found.group(1)} of " if found else ""


def value_words(name: str, expr: str, line: int | None, source: str, of: str = CELL) -> str:
    """Who the value is, as the user wrote it: ``xb, what next(batches) returned at cell line 3``; ``x (cell
    line 2)``; ``what next(batches) returned at cell line 3``; ``a value on the stack at the graph break at
    cell line 3`` for a stack slot the statement there does not name; ``train.py line 3`` for a run read from a
    trace (``of``, ``format.lines_of``)."""
    at = f" at {line_text(line, of)}" if line is not None else ""
    if _STACK_SLOT.match(friendly_source(source)):
        returned = f"{_item_of(source)}what {expr} returned" if expr else ""
        if name:
            return f"{name}, {returned or 'a value'}{at},"
        if returned:
            return f"{returned}{at}"
        return f"a value on the stack at the graph break{at}"
    return f"{friendly_source(source)}{f' ({line_text(line, of)})' if line is not None else ''}"


def change_text(r: Recompile) -> str:
    """What changed, from the recompile's facts: ``dim 1: 32 → 17``, ``dtype: Float → Double``, ``value
    (compiled for 56.15…)``; "" when the engine read none."""
    expected, actual = _number(r.expected), _number(r.actual)
    if r.change == "size" and r.dim is not None:
        return f"dim {r.dim}: {expected} → {actual}"
    if r.change == "stride" and r.dim is not None:
        return f"the stride of dim {r.dim}: {expected} → {actual}"
    if r.change == "rank":
        return f"its number of dims: {expected} → {actual}"
    if r.change in ("dtype", "requires_grad", "dispatch keys"):
        return f"{r.change}: {expected} → {actual}"
    if r.change == "device":
        return f"device index: {expected} → {actual}"
    if r.change == "type":
        return "type"
    if r.change == "identity":
        return "object (an identity guard: another object than the one compiled for)"
    if r.change in ("length", "value") and expected:
        return f"{r.change} (compiled for {expected})"
    return ""


def _scalar_from_item(expr: str) -> bool:
    return expr.rstrip().endswith(".item()")


def fix_text(r: Recompile, lr_schedulers: list[str] | None = None) -> str:
    """What keeps one compiled graph across the change, where there is a known way; else "".

    For a size: ``dynamic=True``, or ``torch._dynamo.mark_dynamic`` on the tensor before the compiled code
    gets it: on each new input (``mark_dynamic(x, 0)``), or where a value made at a graph break comes from
    (``next(batches)``'s batches), since a mark_dynamic inside the compiled code is refused ("Attempt to
    trace forbidden callable", torch 2.13) and a new tensor comes unmarked.  A library's own variable gets
    ``dynamic=True`` alone: it is not the user's to mark."""
    if r.change == "size" and r.dim is not None:
        mark = ""
        if r.frame:
            pass
        elif _STACK_SLOT.match(friendly_source(r.source)):
            if r.user_expr:
                mark = (
                    f", or torch._dynamo.mark_dynamic on dim {r.dim} of {_item_of(r.source)}each value {r.user_expr} returns, "
                    "where it is made (inside the compiled code mark_dynamic is refused)"
                )
        elif r.source:
            name = friendly_source(r.source)
            mark = (
                f", or torch._dynamo.mark_dynamic({name}, {r.dim}) on each new {name} before the compiled code reads it"
            )
        return f"compile with dynamic=True{mark}"
    if r.change == "value":
        return value_fix(r.source, r.user_expr, r.expected, theirs=bool(r.frame), lr_schedulers=lr_schedulers)
    if r.change == "identity" and r.source and not r.frame:
        return f"{HOIST}; {FEW_VALUES}"
    return ""


# What keeps one compiled graph across a value that is a constant to the compiled code (a str, a bool, None,
# an enum member or any other object): Dynamo specialises the code to it, so only taking the decision on it
# out of the compiled function, or letting each value keep its own compile, helps.
HOIST = (
    "the compiled code is specialised to each value of it: take the branch on it outside the compiled function "
    "(one compiled function per value)"
)
FEW_VALUES = "or, where its values are few, torch._dynamo.config.recompile_limit above their number"
_STR_LITERAL = re.compile(r"""^(?:'[^']*'|"[^"]*")$""")


def value_type(literal: str) -> str:
    """What a value guard compared with, by the literal Dynamo printed: int, float, str, bool or None; "" unknown."""
    text = literal.strip()
    if _STR_LITERAL.match(text):
        return "str"
    if text in ("True", "False"):
        return "bool"
    if text == "None":
        return "None"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    if re.fullmatch(r"-?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[-+]?\d+)?|-?inf|nan", text):
        return "float"
    return ""


def value_fix(
    source: str, expr: str, literal: str = "", *, theirs: bool = False, lr_schedulers: list[str] | None = None
) -> str:
    """The fix for a value guard, chosen by the value's type (``value_type`` of the ``literal`` compared with):
    the float learning rate's; ``capture_scalar_outputs`` for an ``.item()``; for an int or float the user passes,
    a 0-dim tensor or ``dynamic=True`` (a number made at a graph break, or a library's own variable, only the
    latter: there is nothing to pass); for a str, bool, None, taking the branch out of the compiled function or
    letting each value keep its compile; "" where the type is unknown (no advice where none is known to apply)."""
    if _FLOAT_LR.search(source):
        return float_lr_hint(lr_schedulers)
    if _scalar_from_item(expr):
        return "torch._dynamo.config.capture_scalar_outputs = True keeps the .item() in the graph as a symbolic value"
    kind = value_type(literal)
    if kind in ("str", "bool", "None"):
        return "" if theirs else f"{HOIST}; {FEW_VALUES}"
    if kind not in ("int", "float"):
        return ""
    dynamic = "compile with dynamic=True, which traces the number as a symbol instead of a constant"
    if theirs or _STACK_SLOT.match(friendly_source(source)):
        return dynamic
    return (
        f"pass it as a tensor (a 0-dim torch.tensor), which the graph reads without a guard on its value; or {dynamic}"
    )


# An object a compile was made for was freed between calls, so the next call's is another (an optimizer or a model the
# cell builds each run: an AdamW step that built its optimizer in the cell recompiled 15 times, its guards "the guard on
# args[0] in wrapper (torch/optim/optimizer.py:509) failed", and ran eagerly past the recompile limit).
FREED = "got deallocated"
FREED_FIX = "make it once, in an earlier cell (an optimizer or a model the cell builds), and use it here"


def failed_guard_text(r: Recompile, of: str = CELL, lr_schedulers: list[str] | None = None) -> str:
    """A recompile in the user's words: which value, where, what changed and the fix, e.g. ``xb, what
    next(batches) returned at cell line 3, changed dim 1: 32 → 17; fix: compile with dynamic=True, or
    torch._dynamo.mark_dynamic(xb, 1)``; ``the guard on x (cell line 2) failed`` where the engine read no
    change; after the recompile limit it hit (``limit_text``) if any; "" when nothing is known."""
    if r.frame:  # a library's frame: its variable, reached from the cell line that called into it
        at = f"{short_path(r.filename)}:{r.file_line}" if r.file_line is not None else short_path(r.filename)
        where = f" in {r.frame} ({at}{f', called from {line_text(r.line, of)}' if r.line is not None else ''})"
        who = f"{friendly_source(r.source)}{where}" if r.source else ""
        unknown = f"the guard on {who} failed" if r.source else f"a guard{where} failed"
    else:
        who = value_words(r.user_name, r.user_expr, r.line, r.source, of) if r.source else ""
        unknown = f"the guard on {who.rstrip(',')} failed" if r.source else ""
    changed = change_text(r)
    guard = f"{who} changed {changed}" if who and changed else unknown
    fix = fix_text(r, lr_schedulers) if guard else ""
    if who and FREED in r.reason:  # Dynamo's "Cache line invalidated because L['self'] got deallocated"
        guard = f"{who.rstrip(',')} was freed: each run of the code makes it anew, and Dynamo compiles for each new one"
        fix = FREED_FIX
    if guard and not fix and _FLOAT_LR.search(r.source):
        fix = float_lr_hint(lr_schedulers)
    if fix:
        guard += f": {fix}" if _FLOAT_LR.search(r.source) and fix == float_lr_hint(lr_schedulers) else f"; fix: {fix}"
    return "; ".join(t for t in (limit_text(r), guard) if t)


# A guard on a number's value (``L['___stack0'] == 56.15234375``): Dynamo compiled for that value and
# compiles anew for each other one.  Flagged where the number is data, not a setting: any number that came
# off the stack at a graph break (an .item(), a call's result), a float local of the frame (a value computed
# before a break, a float argument) and an optimizer's learning rate; not a module's float attribute (a
# LayerNorm's eps) nor a notebook global (a setting the user changes by hand).
# Checked with torch 2.13 over five values of an .item() result: 6 graphs under dynamic=False, 3 by default.
VALUE_GUARD_LEAD = (
    "recompiles when the value changes (each new value under dynamic=False; by default the first change, "
    "after which Dynamo makes it dynamic)"
)
_LOCAL_NAME = re.compile(r"""^L\[['"][^'"]+['"]\]$""")
_VALUE_GUARD = re.compile(r"^(?P<source>\S.*?) == (?P<value>-?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[-+]?\d+)?|-?inf|nan)$")


def value_guard_text(g: Guard, of: str = CELL, lr_schedulers: list[str] | None = None) -> str:
    """``recompiles when the value changes (…): s, what x.sum().item() returned at cell line 2 (compiled for
    1.533); fix: …`` for a value guard on a number that came from data, and on a float learning rate where an LR
    scheduler (``lr_schedulers``) changes it; "" for any other guard."""
    found = _VALUE_GUARD.match(g.code.strip()) if g.kind == "value" and g.source else None
    if not found or found["source"] != g.source:
        return ""
    value = found["value"]
    is_float = any(c in value for c in ".en")
    from_stack = bool(_STACK_SLOT.match(friendly_source(g.source)))
    learning_rate = bool(_FLOAT_LR.search(g.source))
    if learning_rate and not lr_schedulers:  # nothing changes it: the guard holds at every step
        return ""
    if not (from_stack or (is_float and (_LOCAL_NAME.match(g.source) or learning_rate))):
        return ""
    who = value_words(g.user_name, g.user_expr, g.line, g.source, of).rstrip(",")
    fix = value_fix(g.source, g.user_expr, value, lr_schedulers=lr_schedulers)
    return f"{VALUE_GUARD_LEAD}: {who} (compiled for {_number(value)}); fix: {fix}"


def value_guard_warnings(run: ProfileRun) -> list[str]:
    """One warning per value guard on data (``value_guard_text``) whose value caused no recompile in this run
    (a recompile says it, with its fix, itself), each value once."""
    recompiled = {_value_key(r.source, r.line) for r in run.recompiles if r.source}
    of = lines_of(run)
    out: list[str] = []
    for graph in run.graphs:
        if graph.kind != "dynamo":
            continue
        for g in graph.guards:
            text = value_guard_text(g, of, run.lr_schedulers)
            if text and text not in out and _value_key(g.source, g.line) not in recompiled:
                out.append(text)
    return out


def _value_key(source: str, line: int | None) -> tuple[str, int | None]:
    """A value across a recompile and a guard: its friendly name, and for a stack slot (named alike in every
    resume function) the break's line too."""
    name = friendly_source(source)
    return (name, line) if _STACK_SLOT.match(name) else (name, None)


def recompile_text(r: Recompile, of: str = CELL, lr_schedulers: list[str] | None = None) -> str:
    """The user's words, then Dynamo's own reason to check them by: ``x (cell line 1) changed dim 0: 8 → 16;
    fix: …; Dynamo: tensor 'G['x']' size mismatch at index 0…``; the reason alone where nothing else is known."""
    failed = failed_guard_text(r, of, lr_schedulers)
    reason = one_line(r.reason)
    return f"{failed}; Dynamo: {reason}" if failed else reason


def recompile_runs(run: ProfileRun) -> list[list[Recompile]]:
    """The recompiles in order, consecutive ones of one frame whose same guard failed (a float learning
    rate: one per step up to the recompile limit) together, so a view can say them once with a count."""
    out: list[list[Recompile]] = []
    for r in run.recompiles:
        last = out[-1][-1] if out else None
        if (
            last is not None
            and r.source
            and (r.variant, r.source, r.during_timing) == (last.variant, last.source, last.during_timing)
            and r.compile_id.split("/")[0] == last.compile_id.split("/")[0]
        ):
            out[-1].append(r)
        else:
            out.append([r])
    return out


BRIEF_GROUPS = 3  # the kinds of recompile a card's line words, the most frequent first


def recompiles_brief(recompiles: list[Recompile], of: str = CELL, lr_schedulers: list[str] | None = None) -> str:
    """Each kind of recompile in the run worded once, with its count, the most frequent first: ``2× step
    (train.py line 23) changed value (compiled for 0); fix: …; x (train.py line 6) changed dim 0: 16 → 32; fix:
    …`` — never one recompile's words for all of them.  A kind is one value whose one kind of change failed a
    guard (``_brief_key``); where the engine read no guard, the reason's first line."""
    groups: dict[tuple, list[Recompile]] = {}
    for r in recompiles:
        groups.setdefault(_brief_key(r), []).append(r)
    ordered = sorted(groups.values(), key=lambda g: -len(g))  # stable: the first seen first among equals
    parts = []
    for group in ordered[:BRIEF_GROUPS]:
        first = group[0]
        text = failed_guard_text(first, of, lr_schedulers) or one_line(first.reason)
        parts.append(f"{len(group)}× {text}" if len(group) > 1 else text)
    rest = sum(len(g) for g in ordered[BRIEF_GROUPS:])
    if rest:
        parts.append(f"… {rest} more (see the Compile tab)")
    return "; ".join(p for p in parts if p)


def _brief_key(r: Recompile) -> tuple:
    if not r.source and not r.change:
        return ("reason", one_line(r.reason).split(":", 1)[-1].strip())
    return (r.frame, friendly_source(r.source), r.line, r.change, r.dim, bool(r.limit))


def graph_heading(gg: GraphGuards) -> str:
    """``graph 0/0 (inductor/default): 23 guards: 12 tensor, 3 shape, 8 global state``."""
    name = gg.compile_id or gg.graph_id
    variant = f" ({gg.variant})" if gg.variant else ""
    return f"graph {name}{variant}: {gg.total} guard{'' if gg.total == 1 else 's'}: {kinds_text(gg.by_kind)}"


def group_text(group: GuardGroup, of: str = CELL) -> str:
    """``3 tensor guards on x (cell line 1)``; ``293 tensor guards on m's parameters``; ``2 global state
    guards`` for the ambient ones; a value guard on data with its warning after a colon."""
    what = f"{group.count} {group.kind} guard{'' if group.count == 1 else 's'}"
    if group.source:
        what += f" on {group.source}"
    if group.line is not None:
        what += f" ({line_text(group.line, of)})"
    return f"{what}: {group.warning}" if group.warning else what


def guards_digest(run: ProfileRun) -> list[GraphGuards]:
    """What the REST API serves per Dynamo graph with guards (``run_guards``)."""
    return run_guards(run)


_CELL_FRAME = re.compile(r'File "' + re.escape(CELL_FILENAME_PREFIX) + r'[^"]*", line (\d+), in \S+')
_SETTER_FRAME = 'File "' + SETTER_FILENAME + '"'


def reason_shown(reason: str) -> str:
    """Dynamo's reason for a recompile as the Guards tab shows it: a frame of the cell's code named by its cell line
    (``cell line 4``, not ``File "<compile-profile-cell-c35b4cbc883f>", line 4, in __compile_profile_cell__``), and
    the tool's own publish setters' frames left out (``File "<compile-profile-publish>", line 3, in publish`` had
    closed a user's stack trace)."""
    out: list[str] = []
    dropping = False
    for line in reason.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("File "):
            dropping = stripped.startswith(_SETTER_FRAME)
        elif not (dropping and line != stripped):  # a dropped frame's source line is indented beneath it
            dropping = False
        if not dropping:
            out.append(_CELL_FRAME.sub(lambda m: f"cell line {m.group(1)}", line))
    return "\n".join(out)


def recompiles_digest(run: ProfileRun) -> list[RecompileRow]:
    """Each recompile with the guard that failed in the user's words (``failed_guard``, "" when unknown; it
    starts with the recompile limit the compile hit, ``limit_text``, if any), and its parts: the value
    (``value_words``), what changed (``change_text``) and the fix (``fix_text``)."""
    of = lines_of(run)
    return [
        RecompileRow(
            variant=r.variant,
            reason=reason_shown(r.reason),
            during_timing=r.during_timing,
            source=r.source,
            line=r.line,
            failed_guard=failed_guard_text(r, of, run.lr_schedulers),
            value=value_words(r.user_name, r.user_expr, r.line, r.source, of).rstrip(",") if r.source else "",
            changed=change_text(r),
            fix=fix_text(r, run.lr_schedulers),
        )
        for r in run.recompiles
    ]


def recompile_runs_digest(run: ProfileRun) -> list[RecompileRun]:
    """``recompile_runs``, each run worded by its last recompile (the one that says the limit, when one was hit)."""
    of = lines_of(run)
    return [
        RecompileRun(
            count=len(same),
            variant=same[-1].variant,
            during_timing=same[-1].during_timing,
            text=recompile_text(same[-1], of, run.lr_schedulers),
        )
        for same in recompile_runs(run)
    ]
