"""Turn structured-trace events of one compiled variant into ``ProfileRun`` parts.

Each event carries its compile id (``frame/compile``); a Dynamo frame compile
yields a Dynamo graph, AOTAutograd graphs (forward/backward or inference),
post-grad graphs and one Inductor output module per compiled graph, in that
order.  The backward is compiled lazily, on the first backward call, so its
events arrive later under the same compile id.
"""

from __future__ import annotations

import collections
import json
import linecache
import os
import re
from dataclasses import dataclass, field

from ..profile_run import AutotuneResult, CacheStats, Graph, GraphBreak, Kernel, Recompile
from . import mode_events
from .backend import RecordedGraph
from .cell import CELL_FILENAME_PREFIX
from .output_code import ParsedKernel, ops_from_kernel_name, parse_output_code
from .stack import Frame, frames_of_stack, parse_frames
from .torch_features import caller_lines_reliable
from .trace_capture import TraceEvent

_GRAPH_FILE_COMMENT = re.compile(r"# File: (.+?):(\d+) in [^,\n]*, code: ([^\n]*)")
_BREAK_AT = re.compile(r"Graph break in user code at (.+):(\d+)")
_ATEN_CALL = re.compile(r"^\s*(\w+)(?:: \"[^\"]*\")? = torch\.ops\.(\w+)\.(\w+)\.(\w+)\(", re.M)
_ATEN_OP = re.compile(r"torch\.ops\.(\w+)\.(\w+)\.\w+\(")
_AOT_KIND = {"forward": "aot_forward", "backward": "aot_backward", "inference": "aot_inference"}


@dataclass
class CellLocator:
    """Maps (filename, line) pairs to 1-based cell lines."""

    filename: str
    lines: list[str]
    line_offset: int = 0  # added to code line numbers to get cell lines

    def cell_line(self, filename: str, line: int, code: str | None = None) -> int | None:
        # A cache hit carries the locations of the compile that filled the cache: another cell
        # with the same code, this file before lines above the function moved, or the same file
        # in another checkout. Where the frame names its code line, that line's text decides.
        code = code.strip() if code else ""
        if filename == self.filename:
            line += self.line_offset
            if not code or self.code_line(line) == code:
                return line if self._in_source(line) else None
            return self._nearest_line_with(code, line) or (line if self._in_source(line) else None)
        if code and filename.startswith(CELL_FILENAME_PREFIX):
            return self._nearest_line_with(code, line)
        if code and _same_file_name(filename, self.filename):
            return self._nearest_line_with(code, line + self.line_offset)
        return None

    def _in_source(self, line: int) -> bool:
        """A profiled function's file holds other code too (its callers): only its own lines count."""
        return not self.lines or 1 <= line <= len(self.lines)

    def _nearest_line_with(self, code: str, line: int) -> int | None:
        candidates = [i + 1 for i, text in enumerate(self.lines) if text.strip() == code]
        return min(candidates, key=lambda n: abs(n - line)) if candidates else None

    def code_line(self, cell_line: int | None) -> str:
        if cell_line is None or not 1 <= cell_line <= len(self.lines):
            return ""
        return self.lines[cell_line - 1].strip()

    def innermost_cell_line(self, stack: list[tuple]) -> int | None:
        """The cell line a stack passes through last (the call in the cell that led to it)."""
        for filename, line, *code in reversed(stack):
            cell_line = self.cell_line(filename, line, code[0] if code else None)
            if cell_line is not None:
                return cell_line
        return None

    def cell_lines_in(self, graph_code: str) -> list[int]:
        """Cell lines named by a printed FX graph's ``# File: path:line in fn, code: ...`` comments."""
        found = {self.cell_line(f, int(n), code) for f, n, code in _GRAPH_FILE_COMMENT.findall(graph_code)}
        return sorted(x for x in found if x is not None)


def _same_file_name(a: str, b: str) -> bool:
    return os.path.basename(a) == os.path.basename(b) and not b.startswith("<")


@dataclass
class VariantTrace:
    graphs: list[Graph] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    cache: CacheStats = field(default_factory=CacheStats)
    phases: dict[str, float] = field(default_factory=dict)
    compile_s: float = 0.0
    failures: list[str] = field(default_factory=list)
    autotune: list[AutotuneResult] = field(default_factory=list)
    cudagraph_skips: list[str] = field(default_factory=list)


def op_counts_from_code(code: str) -> dict[str, int]:
    counts: collections.Counter[str] = collections.Counter(
        f"{ns}.{op}" for ns, op in _ATEN_OP.findall(code)
    )
    return dict(counts)


def _node_ops(post_grad_code: str) -> dict[str, str]:
    return {m.group(1): f"{m.group(2)}.{m.group(3)}" for m in _ATEN_CALL.finditer(post_grad_code)}


@dataclass
class _CompileState:
    """What one compile (one compile id) logged, gathered for pairing once its events are all in."""

    outer: list[Frame] = field(default_factory=list)  # the frames that called the compiled one (dynamo_start)
    recorded: RecordedGraph | None = None  # the Dynamo graph our backend saw: fresh, never from a cache
    dynamo_lines: list[int] = field(default_factory=list)
    post_grad: list[str] = field(default_factory=list)
    aot_code: list[str] = field(default_factory=list)  # AOTAutograd's graphs: fresh unless its own cache hit
    provenance: list[dict] = field(default_factory=list)
    stack_traces: list[dict] = field(default_factory=list)
    aot_graph_ids: dict[str, str] = field(default_factory=dict)
    output_code: list[tuple[TraceEvent, dict[str, str], int]] = field(default_factory=list)


def build_variant_trace(
    events: list[TraceEvent],
    recorded: list[RecordedGraph],
    *,
    variant: str,
    locator: CellLocator,
) -> VariantTrace:
    out = VariantTrace()
    recorded_iter = iter(recorded)
    by_compile: dict[str, _CompileState] = collections.defaultdict(_CompileState)
    open_phases: dict[tuple[str, str], list[float]] = collections.defaultdict(list)

    for ev in events:
        cid = ev.compile_id
        state = by_compile[cid]
        if ev.name == "dynamo_start" and isinstance(ev.metadata, dict) and caller_lines_reliable():
            # the last frame is the compiled code itself (at its first line); the ones before called it
            state.outer = frames_of_stack(ev.metadata.get("stack") or [])[:-1]
        elif ev.name == "dynamo_output_graph":
            rec = state.recorded = next(recorded_iter, None)
            graph_id = f"{variant}/{cid}/dynamo"
            code = ev.payload or (rec.code if rec else "")
            lines = (
                sorted({ln for stack in rec.node_stacks
                        if (ln := locator.innermost_cell_line(state.outer + stack)) is not None})
                if rec
                else locator.cell_lines_in(code)
            )
            state.dynamo_lines = lines
            out.graphs.append(
                Graph(
                    id=graph_id,
                    kind="dynamo",
                    code=code,
                    variant=variant,
                    compile_id=cid,
                    op_counts=rec.op_counts if rec else {},
                    lines=lines,
                    input_shapes=rec.input_shapes if rec else [],
                )
            )
        elif ev.name in ("aot_forward_graph", "aot_backward_graph", "aot_inference_graph"):
            kind = "aot_" + ev.name.split("_")[1]
            graph_id = f"{variant}/{cid}/{kind}"
            state.aot_graph_ids[kind] = graph_id
            state.aot_code.append(ev.payload or "")
            out.graphs.append(_graph_from_code(graph_id, kind, ev.payload or "", variant, cid, locator))
        elif "inductor_post_grad_graph" in (ev.name, ev.artifact_name) or ev.artifact_name == "after_post_grad_graph":
            # a top-level event on a cache hit, an artifact on a fresh compile (after_post_grad_graph in 2.8)
            index = len(state.post_grad)
            graph_id = f"{variant}/{cid}/post_grad_{index}"
            state.post_grad.append(ev.payload or "")
            out.graphs.append(_graph_from_code(graph_id, "post_grad", ev.payload or "", variant, cid, locator))
        elif ev.name == "inductor_output_code":
            state.output_code.append((ev, dict(state.aot_graph_ids), len(state.post_grad) - 1))
        elif ev.artifact_name == "inductor_provenance_tracking_node_mappings":
            state.provenance.append(_json(ev.payload))
        elif ev.artifact_name == "inductor_provenance_tracking_kernel_stack_traces":
            state.stack_traces.append(_json(ev.payload))
        elif ev.artifact_name == "dynamo_graph_break_reason":
            out.graph_breaks.append(_graph_break(ev.payload or "", variant, cid, locator, state.outer))
        elif ev.artifact_name == "recompile_reasons":
            for reason in _recompile_reasons(ev.payload):
                if _is_backend_switch(reason):
                    continue  # the profiler compiling the same code for its next variant
                out.recompiles.append(Recompile(reason=reason, variant=variant, compile_id=cid))
        elif ev.artifact_name in ("fx_graph_cache_hit", "fx_graph_bundled_cache_hit"):
            out.cache.fx_graph_hits += 1
        elif ev.artifact_name == "fx_graph_cache_miss":
            out.cache.fx_graph_misses += 1
        elif ev.artifact_name == "aotautograd_cache_hit":
            out.cache.aot_autograd_hits += 1
        elif ev.artifact_name == "aotautograd_cache_miss":
            out.cache.aot_autograd_misses += 1
        elif ev.name == "chromium_event":
            if mode_events.AUTOTUNE_SUFFIX in (ev.payload or ""):  # before _phase pops the span's start
                out.autotune.extend(mode_events.autotune_results(ev, open_phases))
            _phase(ev, open_phases, out.phases)
        elif ev.name == "compilation_metrics" and isinstance(ev.metadata, dict):
            m = ev.metadata
            out.compile_s += float(m.get("entire_frame_compile_time_s") or 0.0)
            if m.get("fail_type"):
                out.failures.append(f"{m.get('fail_type')}: {m.get('fail_reason')}")
            out.cudagraph_skips.extend(mode_events.cudagraph_skips(m))
        elif ev.name == "bwd_compilation_metrics" and isinstance(ev.metadata, dict):
            out.compile_s += float(ev.metadata.get("inductor_compile_time_s") or 0.0)
            out.cudagraph_skips.extend(mode_events.cudagraph_skips(ev.metadata))

    # Provenance artifacts come before an output module on a fresh compile and after
    # it on a cache hit, but always one pair per module: pair them by position.
    for cid, state in by_compile.items():
        for i, (ev, aot_ids, post_grad_index) in enumerate(state.output_code):
            _add_kernels(
                out, ev, variant=variant, cid=cid, locator=locator, aot_graph_ids=aot_ids, state=state,
                provenance=_nth(state.provenance, i) or {},
                stack_traces=_nth(state.stack_traces, i) or {},
                post_grad=_nth(state.post_grad, post_grad_index) or "",
            )
    _dedupe_breaks(out)
    out.cache.state = out.cache.derived_state()
    return out


def _graph_from_code(graph_id: str, kind: str, code: str, variant: str, cid: str, locator: CellLocator) -> Graph:
    return Graph(
        id=graph_id,
        kind=kind,  # type: ignore[arg-type]
        code=code,
        variant=variant,
        compile_id=cid,
        op_counts=op_counts_from_code(code),
        lines=locator.cell_lines_in(code),
    )


def _nth(items: list, index: int):
    return items[index] if 0 <= index < len(items) else None


def _add_kernels(
    out: VariantTrace,
    ev: TraceEvent,
    *,
    variant: str,
    cid: str,
    locator: CellLocator,
    aot_graph_ids: dict[str, str],
    state: _CompileState,
    provenance: dict,
    stack_traces: dict,
    post_grad: str,
) -> None:
    parsed = parse_output_code(ev.payload or "")
    aot_kind = _AOT_KIND.get(parsed.graph_kind, "")
    graph_id = aot_graph_ids.get(aot_kind) or f"{variant}/{cid}/{aot_kind or 'output'}"
    node_ops = _node_ops(post_grad)
    mappings = provenance if isinstance(provenance, dict) else {}
    code_to_post = mappings.get("cppCodeToPost", {})
    stack_traces = stack_traces if isinstance(stack_traces, dict) else {}
    seen: collections.Counter[str] = collections.Counter()
    for k in parsed.kernels:
        keys = [f"{k.name}:{h}" for h in k.handles] or [key for key in stack_traces if key.split(":")[0] == k.name]
        ops: list[str] = []
        for key in keys:
            for node in code_to_post.get(key, []):
                op = node_ops.get(node)
                if op and op not in ops:
                    ops.append(op)
        aten_ops = ops or k.aten_ops or ops_from_kernel_name(k.name)
        # an extern call (cuBLAS, SDPA) repeats within a graph: its provenance handle, else its
        # position, tells the calls apart (torch 2.6 has no handles)
        seen[k.name] += 1
        suffix = f":{k.handles[0]}" if k.language == "extern" and k.handles else (
            f"#{seen[k.name]}" if seen[k.name] > 1 else "")
        out.kernels.append(
            Kernel(
                id=f"{graph_id}/{k.name}{suffix}",
                name=k.name,
                language=k.language,  # type: ignore[arg-type]
                source=k.source,
                graph_id=graph_id,
                aten_ops=sorted(set(aten_ops), key=aten_ops.index),
                lines=sorted(_kernel_lines(k, keys, state, locator, stack_traces, mappings, post_grad)),
                variant=variant,
                launches=k.launches,
            )
        )


def _kernel_lines(
    k: ParsedKernel, keys: list[str], state: _CompileState, locator: CellLocator, stack_traces: dict, mappings: dict,
    post_grad: str,
) -> set[int]:
    """The cell lines a kernel came from, by the first of these that gives any:

    1. Inductor's provenance stack traces of the kernel, after the frames that called the compiled
       one (a graph Dynamo started inside a library, after a graph break there, is still called from
       a cell line);
    2. the kernel's source nodes (its provenance node mapping and the "Source Nodes" comments of
       the output code) looked up by name in the Dynamo graph of this compile, which is traced
       afresh every time: a cache hit brings the provenance of the compile that filled the cache,
       none at all when that compile did not track it (plain ``torch.compile`` earlier in the
       notebook);
    3. the post-grad graph's nodes of the kernel's ATen ops (its name lists them: ``cpp_fused_mul_relu_0``),
       whose ``# File:`` frames name the code they came from; after a cache hit those are the frames
       the filling compile traced (another cell with the same ops, say), so the same node of
       AOTAutograd's graph, traced afresh, is preferred; a frame outside the cell (a function the
       cell called) is looked up in the fresh Dynamo graph; and when both AOTAutograd and Inductor
       hit their caches with frames of other code, the graph is the same computation, so its
       source lines, in order, are this cell's lines in the Dynamo graph's order;
    4. the Dynamo graph's cell lines: the kernel came from that graph, and nothing says from which
       of its lines (a call Inductor's pattern matcher put in for several lines, such as one
       attention kernel for ``softmax(q @ k.T) @ v``, carries no stack trace on torch 2.11).
    """
    lines: set[int] = set()
    for key in keys:
        for frame_text in stack_traces.get(key, []):
            line = locator.innermost_cell_line(state.outer + parse_frames(frame_text))
            if line is not None:
                lines.add(line)
    if lines:
        return lines
    rec = state.recorded
    if rec is not None:
        post_to_pre = mappings.get("postToPre", {})
        names = set(k.source_nodes)
        for key in keys:
            for post in mappings.get("cppCodeToPost", {}).get(key, []):
                names.add(post)
                names.update(post_to_pre.get(post, []))
        for name, stack in zip(rec.node_names, rec.node_stacks):
            if name in names and (line := locator.innermost_cell_line(state.outer + stack)) is not None:
                lines.add(line)
    if not lines and post_grad and rec is not None:
        ops = set(k.aten_ops) or set(ops_from_kernel_name(k.name))
        traced = _lines_by_innermost_frame(rec, state.outer, locator)
        fresh = {name: frame for code in state.aot_code for name, _, frame in _node_frames(code)}
        nodes = [(name, op, fresh.get(name, frame)) for name, op, frame in _node_frames(post_grad)]
        in_order = _lines_in_order(nodes, rec, state.outer, locator)
        for name, op, frame in nodes:
            if op in ops:
                line = locator.innermost_cell_line(state.outer + [frame])
                if line is None:
                    line = traced.get(frame[:2]) or traced.get(frame[2]) or in_order.get(frame[:2])
                if line is not None:
                    lines.add(line)
    if not lines:
        lines.update(state.dynamo_lines)
    return lines


def _lines_by_innermost_frame(rec: RecordedGraph, outer: list[Frame], locator: CellLocator) -> dict:
    """Cell lines of the Dynamo graph's nodes, by their innermost frame's (file, line) and by its code."""
    out: dict = {}
    for stack in rec.node_stacks:
        line = locator.innermost_cell_line(outer + stack)
        if stack and line is not None:
            filename, number, code = stack[-1]
            out.setdefault((filename, number), line)
            if code:
                out.setdefault(code, line)
    return out


def _lines_in_order(nodes: list[tuple[str, str, Frame]], rec: RecordedGraph, outer: list[Frame],
                    locator: CellLocator) -> dict:
    """The ATen graph's source lines, in order of first use, paired with the Dynamo graph's cell lines in
    the same order, when there are as many of each."""
    sources = list(dict.fromkeys(frame[:2] for _, _, frame in nodes))
    cell_lines = list(dict.fromkeys(line for stack in rec.node_stacks
                                    if (line := locator.innermost_cell_line(outer + stack)) is not None))
    return dict(zip(sources, cell_lines)) if len(sources) == len(cell_lines) else {}


_ASSIGNMENT = re.compile(r'^\s*(\w+)(?:: "[^"]*")? = (.*)$')


def _node_frames(code: str) -> list[tuple[str, str, Frame]]:
    """(node name, ATen op or "", frame of its ``# File:`` comment) of each node of a printed ATen graph.

    A node Inductor put in by pattern replacement (``softmax(q @ k.T) @ v`` becoming one attention
    call) has no stack trace; it takes the frame of the first node that uses its result.
    """
    nodes: list[tuple[str, str, Frame | None, str]] = []
    frame: Frame | None = None
    for text in code.splitlines():
        comment = _GRAPH_FILE_COMMENT.search(text)
        if comment:
            frame = (comment.group(1), int(comment.group(2)), comment.group(3).strip())
            continue
        if "No stacktrace found" in text:
            frame = None
            continue
        assignment = _ASSIGNMENT.match(text)
        if assignment:
            op = _ATEN_OP.search(assignment.group(2))
            nodes.append((assignment.group(1), f"{op.group(1)}.{op.group(2)}" if op else "", frame,
                          assignment.group(2)))
    out: list[tuple[str, str, Frame]] = []
    for i, (name, op, own, _) in enumerate(nodes):
        if own is None:
            uses = re.compile(rf"\b{re.escape(name)}\b")
            own = next((f for _, _, f, rhs in nodes[i + 1:] if f is not None and uses.search(rhs)), None)
        if own is not None:
            out.append((name, op, own))
    return out


def _graph_break(payload: str, variant: str, cid: str, locator: CellLocator, outer: list[Frame]) -> GraphBreak:
    head, _, rest = payload.partition("\n")
    reason_text, _, user_tb = rest.partition("User code traceback:")
    user_tb = user_tb.split("\nTraceback (most recent call last)")[0]
    reason = reason_text.replace("Graph Break Reason:", "", 1).strip()
    frames = parse_frames(user_tb)
    at = _BREAK_AT.search(head)
    filename, file_line = (at.group(1), int(at.group(2))) if at else (frames[-1][:2] if frames else ("", None))
    line = locator.innermost_cell_line(outer + frames)  # the cell line whose call led to the break
    file_code = next((code for f, n, code in reversed(frames) if f == filename and n == file_line), "")
    return GraphBreak(
        reason=reason,
        line=line,
        code_line=locator.code_line(line),
        variant=variant,
        compile_id=cid,
        filename=filename,
        file_line=file_line,
        file_code=file_code or _source_line(filename, file_line),
    )


def _source_line(filename: str, line: int | None) -> str:
    if not filename or line is None:
        return ""
    return linecache.getline(filename, line).strip()


def _dedupe_breaks(out: VariantTrace) -> None:
    # Dynamo restarts analysis after a break and may log the same break again within one compile;
    # the same break in other compiles (a library function compiled once per caller) is another
    # occurrence, which the views group with a count.
    seen = set()
    unique = []
    for b in out.graph_breaks:
        key = (b.compile_id, b.filename, b.file_line, b.reason.splitlines()[0] if b.reason else "")
        if key not in seen:
            seen.add(key)
            unique.append(b)
    out.graph_breaks = unique


def _is_backend_switch(reason: str) -> bool:
    lines = [ln for ln in reason.splitlines() if ln.strip()]
    return bool(lines) and all("BACKEND_MATCH" in ln or "___check_current_backend" in ln for ln in lines)


def _recompile_reasons(payload: str | None) -> list[str]:
    data = _json(payload)
    if isinstance(data, list):
        return [str(r) for r in data]
    return [payload.strip()] if payload else []


def _phase(ev: TraceEvent, open_phases: dict, phases: dict[str, float]) -> None:
    data = _json(ev.payload)
    if not isinstance(data, dict) or data.get("ph") not in ("B", "E"):
        return
    key = (data.get("name", ""), ev.compile_id)
    if data["ph"] == "B":
        open_phases[key].append(float(data.get("ts", 0.0)))
    elif open_phases[key]:
        start = open_phases[key].pop()
        phases[key[0]] = phases.get(key[0], 0.0) + (float(data.get("ts", 0.0)) - start) / 1e6


def _json(payload: str | None):
    if not payload:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return None
