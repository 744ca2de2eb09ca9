"""The host rule: a profiled op's host time split by kind (``common.op_kinds``), as the eager pass and the compiled
variants' passes on CPU both count it.

On CPU the times are host times, by the host rule (``host_op_parts``): each top-level op (an event
with ``::`` in its name: ATen, c10d, autograd's ``evaluate_function``, DDP's reducer ops) is split into
the own times of it and the ops under it, each going by the innermost library or copy op enclosing
it.  Eager counts every top-level op of its calls so; a compiled variant counts its C++ kernels and
extern calls inside its compiled graphs' regions by ``kernel_kind``, and every op its calls ran outside
those regions (around graph breaks, in autograd hooks, DDP's gradient copies and all-reduce, an eager
optimizer step) by the host rule, as eager counts the same op; an op that holds a region (the autograd
op that runs a compiled backward) is not counted itself, only the ops under it outside the region.

This module reads profiler events (``chrome_trace.HostEvent``); it runs nothing.
"""

from __future__ import annotations

from typing import Any

from ..common.op_kinds import ATEN, COLLECTIVE, COPY, LIBRARY, host_op_kind


def is_host_op(ev: Any) -> bool:
    """A host event the host rule counts: an ATen, c10d or autograd op (``aten::mm``, ``c10d::allreduce_``,
    ``autograd::engine::evaluate_function: MmBackward0``); the profiler's and our own ranges have no ``::``."""
    return ev.cat == "cpu_op" and "::" in ev.name


def _op_children(ev: Any) -> list[Any]:
    """The ops (``is_host_op``) directly under ``ev``, looking through events that are not ops."""
    out, stack = [], list(ev.children)
    while stack:
        child = stack.pop()
        if is_host_op(child):
            out.append(child)
        else:
            stack.extend(child.children)
    return out


def recorded_inside(ev: Any) -> int:
    """The op events recorded inside ``ev`` (ops and ranges at any depth; the Python tracer's events, which cost
    the profiler differently and which a trace keeps few of, are not counted)."""
    return sum(1 for d in ev.descendants() if d.cat != "python_function")


def host_time_us(ev: Any, event_cost_us: float = 0.0) -> float:
    """``ev``'s host time less the profiler's cost of the op events recorded inside it
    (``profiler_cost.event_cost_us``; 0: as recorded), never below 0."""
    if not event_cost_us:
        return ev.dur
    return max(0.0, ev.dur - event_cost_us * recorded_inside(ev))


def _split_host(op: Any, inherited: str | None, parts: dict[str, float], event_cost_us: float) -> None:
    kind = host_op_kind(op.name, inherited)
    children = _op_children(op)
    if kind is not None:
        own = op.dur - sum(c.dur for c in children)  # less the ops under it (looking through ranges)
        if event_cost_us:  # and less recording the events inside it that are not inside those ops
            own = max(0.0, own - event_cost_us * (recorded_inside(op) - sum(recorded_inside(c) for c in children)))
        parts[kind] += own
    for child in children:
        _split_host(child, kind, parts, event_cost_us)


def host_op_parts(op: Any, event_cost_us: float = 0.0) -> dict[str, float]:
    """A top-level op's host time (a ``chrome_trace.HostEvent``) by kind, the host rule: each op's own
    time (its time less its op children's) goes by ``host_op_kind`` of the innermost library or copy op
    enclosing it, itself included, everything a collective op runs is collective, and the rest is ATen;
    the parts add up to ``host_time_us(op, event_cost_us)``: with a calibrated ``event_cost_us``
    (``profiler_cost``), each op's own time has that cost taken out for every op event recorded directly
    inside it.  The eager pass (``eager_times``) splits its ops by the same rule, and a compiled variant
    on CPU its ops outside compiled graphs (``attribution``)."""
    parts = {LIBRARY: 0.0, COPY: 0.0, COLLECTIVE: 0.0}
    _split_host(op, None, parts, event_cost_us)
    rest = host_time_us(op, event_cost_us) - sum(parts.values())
    # the rest; a float residue of the subtractions (1e-12 µs, which a view read as "5.61e-12 ns") is 0
    parts[ATEN] = rest if rest > 1e-9 * max(1.0, op.dur) else 0.0
    return parts
