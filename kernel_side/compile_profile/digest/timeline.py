"""The compile timeline (issue 25, item 2): each compile (a compile id, "frame/compile") with its nested phases
and their times, from Dynamo's own timed spans (``Variant.compile_spans``), its cache lookups, and how much of
the first call compiling took.

Contract: read off the spans the engine recorded, never estimated.  A compile's time is the sum of its depth-0
spans (``dynamo`` around the frame's compile, ``entire_backward_compile`` for a backward compiled lazily at the
first ``backward()``), which is what Dynamo's own ``compilation_metrics`` add up to (85.4 s of spans against
84.9 s of metrics for the recorded torch 2.13 training-step fixture).  Its phases are the spans named in
``SHOWN_PHASES`` (a compile nests ~10 wrappers deep before ``code_gen``: ``backend_compile`` >
``create_aot_dispatcher_function`` > ``fw_compiler_base`` > ``inductor_compile`` > ``fx_codegen_and_compile`` > ...,
most of them the same bar again) and any autotuning, each at least ``SHOWN_SHARE`` of the compile; a phase's
``depth`` is how many shown phases hold it.  The figure draws the same rows, nested as they ran.  A compile whose id a recompile names was made after the first
call; the others made the first call's wall time, which ``first_call_text`` accounts for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..profile_run import CompileSpan, ProfileRun, Variant
from ..serialize import ADDED_LATER
from .compiles import compile_key
from .format import format_s, format_share

SHOWN_PHASES = frozenset(
    {
        "dynamo",
        "entire_backward_compile",
        "bytecode_tracing",
        "build_guards",
        "backend_compile",
        "inductor_codecache_torch_key",
        "aot_collect_metadata",
        "aot_trace_joint_graph",
        "min_cut_rematerialization_partition",
        "inductor_compile",
        "_recursive_pre_grad_passes",
        "_recursive_joint_graph_passes",
        "_recursive_post_grad_passes",
        "GraphLowering.run",
        "code_gen",
        "Scheduler.__init__",
        "Scheduler.codegen",
        "async_compile.wait",
        "compile_file",
    }
)
SHOWN_SHARE = 0.01  # of the compile's time

# What part of the stack a span belongs to, by its name (Dynamo's span names, torch 2.6 to 2.13); first match.
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("whole compile", re.compile(r"^(dynamo|entire_frame_compile|entire_backward_compile|compile_attempt_\d+)$")),
    ("cache keys", re.compile(r"codecache|^CacheBase|cache_key|_key$")),
    (
        "code generation and C++/Triton compile",
        re.compile(r"^(code_gen|compile_file|async_compile|PyCodeCache|Scheduler|PythonWrapperCodegen|TritonBundler)"),
    ),
    (
        "Inductor",
        re.compile(r"^(inductor_compile|fx_codegen_and_compile|compile_fx|GraphLowering|_recursive_post_grad)"),
    ),
    (
        "AOTAutograd",
        re.compile(r"^(backend_compile|create_aot_dispatcher_function|aot_|_recursive_(joint|pre)_grad|min_cut)"),
    ),
    ("Dynamo", re.compile(r"^(bytecode_tracing|build_guards|insert_deferred_runtime_asserts|gc)$")),
)
OTHER = "other"


def family(name: str) -> str:
    """The part of the compiler stack a span of this name belongs to."""
    return next((label for label, pattern in FAMILIES if pattern.search(name)), OTHER)


def _recompiled_ids(run: ProfileRun, variant: Variant) -> set[str]:
    return {r.compile_id for r in run.recompiles if r.variant == variant.name}


def _cache_text(variant: Variant, compile_id: str) -> str:
    """``FX graph: 2 misses (full_miss); AOTAutograd: 1 hit``."""
    lookups = [c for c in variant.cache_lookups if c.compile_id == compile_id]
    parts: list[str] = []
    for cache, label in (("fx_graph", "FX graph"), ("aot_autograd", "AOTAutograd")):
        mine = [c for c in lookups if c.cache == cache]
        if not mine:
            continue
        counts: dict[str, int] = {}
        for c in mine:
            counts[c.state] = counts.get(c.state, 0) + 1
        details = sorted({c.detail for c in mine if c.detail})
        said = ", ".join(
            f"{n} {state if n == 1 else state + ('es' if state.endswith('s') else 's')}" for state, n in counts.items()
        )
        parts.append(f"{label}: {said}" + (f" ({', '.join(details)})" if details else ""))
    return "; ".join(parts)


def restart_text(variant: Variant, compile_id: str) -> str:
    """A compile whose analysis Dynamo restarted, as tlparse lists it: ``[6/1_2] after 2 restarts: Failed to trace
    builtin operator; TensorifyScalarRestartAnalysis`` (the attempt kept, then each restart's reason); "" for
    one that kept its first attempt."""
    restarts = [r for r in variant.compile_restarts if r.compile_id == compile_id]
    if not restarts:
        return ""
    last = restarts[-1]
    reasons = [reason for r in restarts for reason in r.reasons]
    n = len(reasons)
    return f"[{compile_id}_{last.attempt}] after {n} restart{'' if n == 1 else 's'}: " + "; ".join(reasons)


def kept_key(run: ProfileRun, variant: str, compile_id: str) -> str:
    """The key of a compile's last attempt (the one Dynamo kept), as the Compiles tab opens it; "" where none."""
    attempts = [r for r in run.compiles if r.variant == variant and r.compile_id == compile_id]
    return compile_key(max(attempts, key=lambda r: r.attempt)) if attempts else ""


def _shown(span: CompileSpan, total: float) -> bool:
    named = span.depth == 0 or span.name in SHOWN_PHASES or "autotun" in span.name
    return named and span.duration_s >= SHOWN_SHARE * total


def _holds(outer: CompileSpan, inner: CompileSpan) -> bool:
    end, inner_end = outer.start_s + outer.duration_s, inner.start_s + inner.duration_s
    return outer.depth < inner.depth and outer.start_s <= inner.start_s and inner_end <= end


@dataclass
class TimelinePhase:
    """One timed span of a compile (``compile_rows``), nested by depth."""

    name: str  # Dynamo's span name: "backend_compile", "inductor_compile", "compile_file"
    family: str  # the part of the stack: "Dynamo", "AOTAutograd", "Inductor", "code generation and C++/Triton compile"
    depth: int  # how many of the compile's shown phases hold it: 0 for its outermost spans
    start_s: float  # from the variant's first compile's start
    duration_s: float
    time: str


@dataclass
class CompileTimelineRow:
    """One compile (a compile id) of a compiled variant, its time and nested phases (``compile_rows``)."""

    variant: str
    compile_id: str  # "0/0"
    when: Literal["first call", "recompile"]
    start_s: float  # from the variant's first compile's start
    total_s: float  # its outermost spans' sum
    time: str
    cache_text: str  # "FX graph: 2 misses (full_miss); AOTAutograd: 1 miss (full_miss)"; "" with no lookup
    restart_text: str  # "[6/1_2] after 2 restarts: Failed to trace builtin operator; …" (tlparse's); "" with none
    phases: list[TimelinePhase]  # SHOWN_PHASES, each at least 1% of the compile
    compile_key: str  # the compile's kept attempt in the Compiles tab (``compiles.compile_key``); "" where not recorded
    # "backend_compile 9 s, inductor_compile 8.2 s, code_gen 7.5 s" (``largest_phases``)
    largest_phases: str = field(metadata=ADDED_LATER)  # its three longest phases inside it, longest first


@dataclass
class CompileTimeline:
    """Where the compiles' time went, compile by compile (``compile_timeline``)."""

    text: str  # "first call 12.3 s: 11.9 s of it (97%) compiling 3 frames (0/0 9.1 s, ...)"
    rows: list[CompileTimelineRow]


LARGEST_PHASES = 3


def largest_phases(phases: list[TimelinePhase]) -> str:
    """A compile's three longest phases inside it ("whole compile" spans hold them all), longest first, as the
    Compile tab and the report list them."""
    inner = sorted((p for p in phases if p.family != "whole compile"), key=lambda p: -p.duration_s)
    return ", ".join(f"{p.name} {p.time}" for p in inner[:LARGEST_PHASES])


def _phase(span: CompileSpan, start: float, shown: list[CompileSpan]) -> TimelinePhase:
    return TimelinePhase(
        name=span.name,
        family=family(span.name),
        depth=sum(1 for outer in shown if _holds(outer, span)),
        start_s=span.start_s - start,
        duration_s=span.duration_s,
        time=format_s(span.duration_s),
    )


def compile_rows(run: ProfileRun) -> list[CompileTimelineRow]:
    """One row per compile of each compiled variant, in the order they began, starts from the variant's first."""
    rows: list[CompileTimelineRow] = []
    for v in run.compiled_variants:
        spans = [s for s in v.compile_spans if s.compile_id]
        if not spans:
            continue
        origin = min(s.start_s for s in spans)
        recompiled = _recompiled_ids(run, v)
        by_id: dict[str, list[CompileSpan]] = {}
        for s in sorted(spans, key=lambda s: (s.start_s, s.depth)):
            by_id.setdefault(s.compile_id, []).append(s)
        for compile_id, mine in by_id.items():
            total = sum(s.duration_s for s in mine if s.depth == 0)
            shown = [s for s in mine if _shown(s, total)]
            phases = [_phase(s, origin, shown) for s in shown]
            rows.append(
                CompileTimelineRow(
                    variant=v.name,
                    compile_id=compile_id,
                    when="recompile" if compile_id in recompiled else "first call",
                    start_s=mine[0].start_s - origin,
                    total_s=total,
                    time=format_s(total),
                    cache_text=_cache_text(v, compile_id),
                    restart_text=restart_text(v, compile_id),
                    phases=phases,
                    compile_key=kept_key(run, v.name, compile_id),
                    largest_phases=largest_phases(phases),
                )
            )
    return rows


def first_call_text(v: Variant, rows: list[CompileTimelineRow]) -> str:
    """``first call 12.3 s: 11.9 s of it (97%) compiling 3 frames (0/0 9.1 s, 1/0 2.0 s, 2/0 0.8 s)``;
    ``compiling 3 frames (...): 11.9 s`` for a run with no first call timed (read from a TORCH_TRACE); "" when the
    variant has no spans."""
    mine = [r for r in rows if r.variant == v.name and r.when == "first call"]
    if not mine:
        return ""
    compiling = sum(r.total_s for r in mine)
    listed = sorted(mine, key=lambda r: -r.total_s)
    shown = ", ".join(f"{r.compile_id} {r.time}" for r in listed[:4]) + (", …" if len(listed) > 4 else "")
    n = len(mine)
    frames = f"{n} frame{'' if n == 1 else 's'} ({shown})"
    if v.first_call_s is None:  # a run read from a TORCH_TRACE: its compiles, no call around them
        return f"compiling {frames}: {format_s(compiling)}"
    share = format_share(min(1.0, compiling / v.first_call_s)) if v.first_call_s > 0 else "?"
    return f"first call {format_s(v.first_call_s)}: {format_s(compiling)} of it ({share}) compiling {frames}"


def compile_timeline(run: ProfileRun) -> CompileTimeline | None:
    """The rows and one sentence per compiled variant's first call; None where no spans were recorded (a run
    stored before they were, or one that compiled nothing)."""
    rows = compile_rows(run)
    if not rows:
        return None
    texts = [t for v in run.compiled_variants if (t := first_call_text(v, rows))]
    recompiles = [r for r in rows if r.when == "recompile"]
    if recompiles:
        seconds = sum(r.total_s for r in recompiles)
        n = len(recompiles)
        texts.append(f"{n} recompile{'' if n == 1 else 's'} after it: {format_s(seconds)}")
    restarted = [r for r in rows if r.restart_text]
    if restarted:
        n = len(restarted)
        texts.append(
            f"{n} compile{'' if n == 1 else 's'} restarted Dynamo's analysis (a graph break restarts it; each row says why)"
        )
    return CompileTimeline(text="; ".join(texts), rows=rows)
