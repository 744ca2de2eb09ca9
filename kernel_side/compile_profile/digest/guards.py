"""Guards as a reader asks about them: per compiled graph, what its guards check, grouped by kind and
value, each with the cell line the value comes from; and, for a recompile, which guard failed on
which value at which cell line (pytorch #114015 asks for exactly this).

Derived here once for every view (text, HTML, report, panel through the digest's JSON).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import cast

from ..profile_run import Graph, ProfileRun, Recompile
from . import contract
from .facts import short_path
from .format import one_line

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
    """The guards of one kind on one value (``source``), e.g. the tensor match and its shape guards on ``x``."""

    kind: str
    source: str
    line: int | None
    count: int
    codes: list[str] = field(default_factory=list)  # the checks themselves, as Dynamo prints them


@dataclass
class GraphGuards:
    graph_id: str
    variant: str
    compile_id: str
    total: int
    by_kind: dict[str, int]  # kind -> count, in KIND_ORDER
    groups: list[GuardGroup]

    def as_dict(self) -> dict:
        return asdict(self)


def _kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def graph_guards(graph: Graph) -> GraphGuards:
    counts = Counter(g.kind for g in graph.guards)
    groups: dict[tuple[str, str], GuardGroup] = {}
    for g in graph.guards:
        group = groups.setdefault((g.kind, g.source), GuardGroup(kind=g.kind, source=g.source, line=g.line, count=0))
        group.count += 1
        group.codes.append(g.code)
        if group.line is None:
            group.line = g.line
    ordered = sorted(groups.values(), key=lambda grp: (_kind_rank(grp.kind), grp.line or 10**9, grp.source))
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
    return [graph_guards(g) for g in run.graphs if g.kind == "dynamo" and g.guards]


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
_FLOAT_LR = re.compile(r"""param_groups\[\d+\]\[['"]lr['"]\]""")
FLOAT_LR_HINT = (
    "the learning rate changes each step (an LR scheduler); a tensor learning rate, e.g. "
    "SGD(params, lr=torch.tensor(0.1)), keeps one compiled optimizer step"
)


def failed_guard_text(r: Recompile) -> str:
    """What a recompile's failed guard was on, e.g. ``the guard on x (cell line 2) failed``, after the
    recompile limit it hit (``limit_text``) if any, then what to do where the value says it
    (``FLOAT_LR_HINT``); "" when none is known."""
    where = f" (cell line {r.line})" if r.line is not None else ""
    if r.frame:  # a library's frame: its variable, reached from the cell line that called into it
        at = f"{short_path(r.filename)}:{r.file_line}" if r.file_line is not None else short_path(r.filename)
        where = f" in {r.frame} ({at}{f', called from cell line {r.line}' if r.line is not None else ''})"
    guard = f"the guard on {r.source}{where} failed" if r.source else (f"a guard{where} failed" if r.frame else "")
    if guard and _FLOAT_LR.search(r.source):
        guard += f": {FLOAT_LR_HINT}"
    return "; ".join(t for t in (limit_text(r), guard) if t)


def recompile_text(r: Recompile) -> str:
    """``the guard on G['x'] (cell line 1) failed: tensor 'G['x']' size mismatch at index 0…``, or the reason alone."""
    failed = failed_guard_text(r)
    reason = one_line(r.reason)
    return f"{failed}: {reason}" if failed else reason


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


def graph_heading(gg: GraphGuards) -> str:
    """``graph 0/0 (inductor/default): 23 guards: 12 tensor, 3 shape, 8 global state``."""
    name = gg.compile_id or gg.graph_id
    variant = f" ({gg.variant})" if gg.variant else ""
    return f"graph {name}{variant}: {gg.total} guard{'' if gg.total == 1 else 's'}: {kinds_text(gg.by_kind)}"


def group_text(group: GuardGroup) -> str:
    """``3 tensor guards on G['x'] (cell line 1)``; ``2 global state guards`` for the ambient ones."""
    what = f"{group.count} {group.kind} guard{'' if group.count == 1 else 's'}"
    if group.source:
        what += f" on {group.source}"
    if group.line is not None:
        what += f" (cell line {group.line})"
    return what


def guards_digest(run: ProfileRun) -> list[contract.GraphGuards]:
    """What the REST API serves per Dynamo graph: ``GraphGuards.as_dict()`` and its ``kinds_text``."""
    return [
        cast(contract.GraphGuards, {**gg.as_dict(), "kinds_text": kinds_text(gg.by_kind)}) for gg in run_guards(run)
    ]


def recompiles_digest(run: ProfileRun) -> list[contract.RecompileRow]:
    """Each recompile with the guard that failed (``failed_guard``, "" when unknown; it starts with the
    recompile limit the compile hit, ``limit_text``, if any)."""
    return [
        {
            "variant": r.variant,
            "reason": r.reason,
            "during_timing": r.during_timing,
            "source": r.source,
            "line": r.line,
            "failed_guard": failed_guard_text(r),
        }
        for r in run.recompiles
    ]
