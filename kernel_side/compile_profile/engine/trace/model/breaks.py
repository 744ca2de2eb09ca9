"""The trace model's handlers of graph breaks and recompiles (``events.HANDLERS`` lists them): each break at its
cell line with its reason and user frames, each recompile with the guard that failed (its line, what changed,
the older entries' failures), the recompile limit where Dynamo hit it, each Dynamo graph's guards, and guards on
a value Dynamo names by a stack slot given the name it has in the code."""

from __future__ import annotations

import re

from ....profile_run import GraphBreak, Recompile
from ...common.stack_text import frame_function, parse_frames
from .. import guards, stack_slots
from ..capture import TraceEvent
from .kernels import CompileState
from .state import TraceState, VariantTrace, dynamo_graph_of, payload_json

_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)")
# Where a backend raises an exception Dynamo may fall back from (a data-dependent op met while AOTAutograd traces,
# ``torch._dynamo.exc.exceptions_allowed_to_be_fallback``), ``unimplemented_with_warning`` first logs the exception's
# traceback under the graph-break artifact ("WON'T CONVERT fn file line N" in torch 2.13, then "==========
# TorchDynamo Stack Trace =========="), and then the break itself, which is logged as every break is.  The first is
# the second's detail, not a break: read as one, a Mixtral MoE training step on an H100 (transformers' grouped_mm
# experts, 13 frames falling back) counted 40 breaks, 13 of them with the traceback's header as their reason.
_BACKEND_TRACEBACK = "=" * 10 + " TorchDynamo Stack Trace " + "=" * 10
# Dynamo logs a break it cannot resume from twice in one compile: once where it meets it ("... cannot resume from.
# Compiling up to the previous resumable state ...") and again when it skips the frame ("Failed to handle graph
# break gracefully. Skipping the function ..."); both then say "Graph break encountered:" and the break's own text.
_ENCOUNTERED = "Graph break encountered:"


def is_backend_traceback(payload: str) -> bool:
    """The payload is the traceback Dynamo logs before a backend failure's break, not a break of its own."""
    head = payload.lstrip()[:400]
    return head.startswith("WON'T CONVERT") or head.startswith(_BACKEND_TRACEBACK)


def on_graph_break(state: TraceState, ev: TraceEvent) -> None:
    if is_backend_traceback(ev.payload or ""):
        return
    head, _, rest = (ev.payload or "").partition("\n")
    reason_text, _, user_tb = rest.partition("User code traceback:")
    user_tb = user_tb.split("\nTraceback (most recent call last)")[0]
    frames = parse_frames(user_tb)
    at = _BREAK_AT.search(head)
    filename, file_line = (at.group(1), int(at.group(2))) if at else (frames[-1][:2] if frames else ("", None))
    line = state.locator.innermost_cell_line(
        state.compile(ev).outer + frames
    )  # the cell line whose call led to the break
    file_code = next((code for f, n, code in reversed(frames) if f == filename and n == file_line), "")
    file_code = file_code or _source_line(state, filename, file_line)
    if line is None and file_line is not None:
        # a frame Dynamo skipped whole after a break it could not resume from is logged at its first line with no
        # user traceback; where that frame is the cell's own function, the break is on the cell's def line
        line = state.locator.cell_line(filename, file_line, file_code or None)
    function = frame_function(user_tb, filename, file_line) or frame_function(head, filename, file_line)
    state.out.graph_breaks.append(
        GraphBreak(
            reason=reason_text.replace("Graph Break Reason:", "", 1).strip(),
            line=line,
            code_line=state.locator.code_line(line),
            variant=state.variant,
            compile_id=ev.compile_id,
            filename=filename,
            file_line=file_line,
            file_code=file_code,
            file_function=function,
        )
    )


def _source_line(state: TraceState, filename: str, line: int | None) -> str:
    if not filename or line is None:
        return ""
    return state.read_line(filename, line).strip()


def dedupe_breaks(out: VariantTrace) -> None:
    # Dynamo restarts analysis after a break and may log the same break again within one compile;
    # the same break in other compiles (a library function compiled once per caller) is another
    # occurrence, which the views group with a count.
    seen = set()
    unique = []
    for b in out.graph_breaks:
        key = (b.compile_id, b.filename, b.file_line, _break_itself(b.reason))
        if key not in seen:
            seen.add(key)
            unique.append(b)
    out.graph_breaks = unique


def _break_itself(reason: str) -> str:
    """The first line of the break's own text: after "Graph break encountered:" where Dynamo wrapped it."""
    _, found, inner = reason.partition(_ENCOUNTERED)
    text = (inner if found else reason).strip()
    return text.splitlines()[0] if text else ""


def on_recompile_reasons(state: TraceState, ev: TraceEvent) -> None:
    # One event per new compile of a frame that already has compiled entries; it lists the guard
    # failure of each entry, the most recent first (Dynamo checked them all before compiling anew),
    # so it is one recompile, whose cause is the newest entry's failure (Dynamo's own "last reason").
    data = payload_json(ev.payload)
    if isinstance(data, list):
        reasons = [str(r) for r in data]
    elif isinstance(data, str):
        reasons = [data]
    else:
        reasons = [ev.payload] if ev.payload and ev.payload.strip() else []
    reasons = [r for r in reasons if r.strip() and not _is_backend_switch(r)]
    if not reasons or ev.compile_id in state.recompiles:
        return  # the profiler compiling the same code for its next variant; or a compile's reasons again
    primary = trim_guard_comments(reasons[0])
    source = guards.failed_guard_source(primary)
    state.guard_frames[ev.compile_id] = guard_frames(reasons[0])
    recompile = Recompile(
        reason=_with_older_entries(primary, reasons[1:]), variant=state.variant, compile_id=ev.compile_id, source=source
    )
    _read_change(recompile, primary)
    state.recompiles[ev.compile_id] = recompile
    state.out.recompiles.append(recompile)


def place_recompiles(state: TraceState) -> None:
    """Each recompile's frame and cell line, once the frames' ``dynamo_start`` events are in (Dynamo logs a
    recompile's reasons before it starts that compile).  A guard in the cell's own frame is at the line of the
    guard that failed: where its reason's user stack says Dynamo installed it (``if step % 10 == 0:``), else
    where the failed entry's own guard on that value is (the line the Guards view gives it: a tensor's size
    mismatch names no stack), else the first line that reads the name — never merely the first line that names
    it (``def log_loss(step, …)``).  A guard in a library's frame names that frame's variable (``labels`` in
    transformers' ``ForCausalLMLoss``), so its line is the cell line that called into the frame, never a cell
    line that happens to read a variable of the same name."""
    for r in state.out.recompiles:
        compile_state = _compile_of(state, r.compile_id)
        frame = compile_state.frame
        filename, first_line = str(frame.get("filename") or ""), int(frame.get("line") or 0)
        if not frame or state.locator.cell_line(filename, first_line) is not None:
            resumed = stack_slots.resume_line(str(frame.get("name") or "")) if frame else None
            if resumed is not None:
                r.resumes_after = state.locator.cell_line(filename, resumed)
            at_break = _stack_slot_line(state, frame, r.source)
            if at_break is not None:  # a value on the stack at a graph break in the cell: the break's line
                r.line = at_break
                value = stack_slots.slot_value(state.locator.lines, at_break, r.source)
                r.user_name, r.user_expr = value.name, value.expr
                continue
            r.line = _guard_line(state, r, compile_state)
            continue
        r.frame, r.filename, r.file_line = str(frame.get("name") or "?"), filename, first_line or None
        r.line = state.locator.innermost_cell_line(compile_state.outer)


# the failed entry a recompile reason names first: "0/0: tensor 'x' size mismatch ..."
_FAILED_ENTRY = re.compile(r"^\s*(?:-\s*)?(\d+/\d+):")
# a failed check's own comment: "L['n'] == 1   # return x * n  # …/train.py:6 in f" (the path cut to a width)
_CHECK_AT = re.compile(r"  # (?P<code>.*?)  # (?P<file>[^#\n]+?):(?P<line>\d+) in [^#\n]*$")


def guard_frames(reason: str) -> list[tuple]:
    """Where Dynamo installed the guard a recompile reason says failed, outermost first: its ``User stack
    trace`` (torch 2.9 and later), else the file and line its check's comment names; [] where it names none
    (a tensor's mismatch, torch 2.6's checks)."""
    head, sep, stack = reason.partition("User stack trace:")
    if sep:
        frames = parse_frames(stack)
        if frames:
            return frames
    first = head.strip().splitlines()[0] if head.strip() else ""
    at = _CHECK_AT.search(first)
    return [(at["file"].strip(), int(at["line"]), at["code"].strip())] if at else []


def _guard_line(state: TraceState, r: Recompile, compile_state: CompileState) -> int | None:
    """The cell line of a recompile's failed guard in the cell's own frame (``_place_recompiles``)."""
    frames = state.guard_frames.get(r.compile_id) or []
    if frames:
        line = state.locator.innermost_cell_line(compile_state.outer + frames)
        if line is not None:
            return line
    if not r.source:
        return None
    root = guards.root_name(r.source)
    entry = _FAILED_ENTRY.match(r.reason)
    failed = next(
        (g for g in state.out.graphs if g.kind == "dynamo" and entry and g.compile_id == entry.group(1)), None
    )
    for g in failed.guards if failed is not None else []:
        if g.line is not None and g.source and guards.root_name(g.source) == root and g.kind in ("tensor", "value"):
            return g.line
    return state.locator.first_line_reading(root)


def _read_change(recompile: Recompile, reason: str) -> None:
    recompile.change, recompile.dim, recompile.expected, recompile.actual = guards.failure_change(reason)


def _stack_slot_line(state: TraceState, frame: dict, source: str) -> int | None:
    """The cell line of the graph break whose resume function ``frame`` is, where ``source`` is one of its
    stack slots (``___stack0``); else None."""
    if stack_slots.slot_of(source) is None:
        return None
    file_line = stack_slots.resume_line(str(frame.get("name") or ""))
    return state.locator.cell_line(str(frame.get("filename") or ""), file_line) if file_line is not None else None


def name_stack_slot_guards(state: TraceState) -> None:
    """The guards of a resume function on its stack slots, at the break's cell line with the cell's name."""
    for g in state.out.graphs:
        if g.kind != "dynamo" or not g.guards:
            continue
        frame = _compile_of(state, g.compile_id).frame
        for guard in g.guards:
            line = _stack_slot_line(state, frame, guard.source)
            if line is not None:
                value = stack_slots.slot_value(state.locator.lines, line, guard.source)
                guard.line, guard.user_name, guard.user_expr = line, value.name, value.expr


def _compile_of(state: TraceState, compile_id: str) -> CompileState:
    """The compile state of ``compile_id`` where it logged its frame, else of another compile of the same
    frame that did (a compile that hit the recompile limit starts none)."""
    own = state.compiles.get(compile_id)
    if own is not None and own.frame:
        return own
    frame_id = compile_id.split("/")[0]
    return next(
        (cs for cid, cs in state.compiles.items() if cid.split("/")[0] == frame_id and cs.frame), own or CompileState()
    )


MAX_OLDER_REASONS = 3  # the older entries' failures kept in a recompile's reason


def trim_guard_comments(reason: str) -> str:
    """A guard failure without the comment Dynamo pads each failed check with (``G['n'] == 1   # n = …  #
    file.py:4 in f``: the user code and where it is, which the recompile's line says); its ``User stack
    trace`` is kept."""
    head, sep, stack = reason.partition("User stack trace:")
    checks = [ln.split("  # ", 1)[0].rstrip() for ln in head.splitlines()]
    return "\n".join(ln for ln in checks if ln.strip()) + ("\n" + sep + stack.rstrip() if sep else "")


def _with_older_entries(primary: str, older: list[str]) -> str:
    if not older:
        return primary
    firsts = [trim_guard_comments(r).splitlines()[0] for r in older[:MAX_OLDER_REASONS]]
    more = f"; … {len(older) - MAX_OLDER_REASONS} more" if len(older) > MAX_OLDER_REASONS else ""
    return f"{primary}\nolder entries failed too ({len(older)}): " + "; ".join(firsts) + more


# How Dynamo says a compile hit its recompile limit: torch 2.13 fails the compile with Unsupported
# ("Dynamo recompile limit exceeded … Limit type: recompile_limit", "currently set to 8"); torch 2.6
# with RecompileLimitExceeded ("cache_size_limit reached", logged as bwd_compilation_metrics), or
# Unsupported with the same text where recursive skipping is off.
_LIMIT_TYPE = re.compile(r"Limit type: (\w+)|\b(\w*(?:recompile|cache_size)_limit) reached")
_LIMIT_VALUE = re.compile(r"currently set to (\d+)")


def recompile_limit_hit(metrics: dict) -> str:
    """``recompile_limit (8)`` when a compile's metrics say it hit a Dynamo recompile limit, else ""."""
    fail_type, fail_reason = str(metrics.get("fail_type") or ""), str(metrics.get("fail_reason") or "")
    found = _LIMIT_TYPE.search(fail_reason)
    if not found and not (
        fail_type in ("RecompileLimitExceeded", "CacheLimitExceeded")
        or "recompile limit exceeded" in fail_reason.lower()
    ):
        return ""
    limit_type = (found.group(1) or found.group(2)) if found else "recompile_limit"
    value = _LIMIT_VALUE.search(fail_reason)
    limit = value.group(1) if value else _dynamo_setting(limit_type)
    return f"{limit_type} ({limit})" if limit is not None else limit_type


def _dynamo_setting(name: str) -> object:
    """The installed Dynamo's setting ``name`` (torch is imported only here, for a limit a reason does not state: an
    import of a log otherwise reads it without torch)."""
    from torch._dynamo import config as dynamo_config

    return getattr(dynamo_config, name, None)


def note_limit(state: TraceState, ev: TraceEvent, metrics: dict) -> None:
    limit = recompile_limit_hit(metrics)
    if not limit:
        return
    compile_id = ev.compile_id or str(metrics.get("compile_id") or "")
    recompile = state.recompiles.get(compile_id)
    if recompile is None:  # no reasons logged for it (or only the profiler's backend switch)
        reason = trim_guard_comments(str(metrics.get("recompile_reason") or ""))
        source = guards.failed_guard_source(reason) if reason else ""
        recompile = state.recompiles[compile_id] = Recompile(
            reason=reason, variant=state.variant, compile_id=compile_id, source=source
        )
        _read_change(recompile, reason)
        state.out.recompiles.append(recompile)
    recompile.limit = limit


def on_guard_tree(state: TraceState, ev: TraceEvent) -> None:
    dynamo = dynamo_graph_of(state, ev)
    if dynamo is not None:
        dynamo.guards = guards.guards_of_tree(ev.payload or "", state.locator)


def on_guard_list(state: TraceState, ev: TraceEvent) -> None:
    dynamo = dynamo_graph_of(state, ev)
    if dynamo is not None and not dynamo.guards:  # the tree, where logged too, says the same with kinds
        dynamo.guards = guards.guards_of_compile(payload_json(ev.payload), state.locator, state.compile(ev).outer)


def _is_backend_switch(reason: str) -> bool:
    lines = [ln for ln in reason.splitlines() if ln.strip()]
    return bool(lines) and all("BACKEND_MATCH" in ln or "___check_current_backend" in ln for ln in lines)
