"""Every compile of a trace by compile id and attempt, with every artifact it logged, each text kept once by its hash.

Contract: ``collect_compiles(events, variant=..., locator=..., artifact_bytes=...)`` reads one variant's events (a
live capture's or a log's, in the order logged) once and returns ``Compiles``: a ``CompileRecord`` per (compile id,
attempt), in the order each began, and the artifacts' texts by SHA-256.  An artifact is every event with a payload
but a ``chromium_event`` (a timed span: ``events`` reads those into ``CompileSpan``s), as tlparse lists a compile's
output files: the graphs, the whole output code, the wrappers, ``fx_graph_runnable``, bytecode, cache lookups,
configs, and whatever a newer torch logs.  Besides the artifacts, what the records state is read here and nothing
else: ``compilation_metrics``, ``dynamo_start``'s stack, each cache lookup's key and components, symbolic-shape
decisions, the collective schedule, tensor metadata; each output module's provenance is ``provenance``'s.

A compile's status is tlparse's colour: ``failed`` (its metrics name an exception), ``empty`` (a graph of no op),
``restarted`` (Dynamo restarted its analysis and kept a later attempt: a graph break in an inlined call),
``ok``, ``missing`` (no metrics logged: a process killed mid-compile); an attempt before the one Dynamo kept is
``dropped``, with the restart's reason when the metrics name one per attempt.

Bounded: an artifact longer than ``artifact_bytes`` (``TraceLimits.artifact_bytes``) is kept up to its last whole
line within it (``Artifact.cut``).  The texts are the log's own payloads (within ``TraceLimits.log_bytes``) or a live
capture's; one text logged twice (``before_pre_grad_graph`` and ``after_pre_grad_graph`` when no pass changed it, a
rank's graph and another's) is kept once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ....plain_text import escaped
from ....profile_run import (
    Artifact,
    ArtifactLanguage,
    CacheLookup,
    CompileFrame,
    CompileMetrics,
    CompileRecord,
    CompileStatus,
    ShapeFact,
)
from ...cell.locator import CellLocator
from ..capture import TraceEvent
from ..records import load_json
from .graph_text import collective_order
from .provenance import module_provenance

DEFAULT_ARTIFACT_BYTES = 32 << 20  # one artifact (the output code of a 16-layer training step is ~2 MB)
PRETTY_JSON_BYTES = 1 << 20  # a JSON artifact at most this long is stored indented, one value a line

NOT_ARTIFACTS = frozenset({"chromium_event"})
PRE_GRAD = ("after_pre_grad_graph", "inductor_pre_grad_graph", "before_pre_grad_graph")  # preferred first
POST_GRAD = ("inductor_post_grad_graph", "after_post_grad_graph")
NODE_MAPPINGS = ("inductor_provenance_tracking_node_mappings", "inductor_triton_kernel_to_post_grad_nodes")
# a cache lookup's artifact: (cache, state)
CACHE_LOOKUPS: dict[str, tuple[Literal["fx_graph", "aot_autograd"], str]] = {
    "fx_graph_cache_hit": ("fx_graph", "hit"),
    "fx_graph_bundled_cache_hit": ("fx_graph", "hit"),
    "fx_graph_cache_miss": ("fx_graph", "miss"),
    "fx_graph_cache_bypass": ("fx_graph", "bypass"),
    "aotautograd_cache_hit": ("aot_autograd", "hit"),
    "aotautograd_cache_miss": ("aot_autograd", "miss"),
    "aotautograd_cache_bypass": ("aot_autograd", "bypass"),
}
_PYTHON = frozenset(
    {
        "inductor_output_code",
        "fx_graph_runnable",
        "runtime_wrapper_orchestration",
        "compiled_fn_wrapper",
        "subclass_wrapper",
        "compiled_function_forward",
        "compiled_function_backward",
        "backward_prologue",
        "backward_epilogue",
        "optimize_ddp_split_child",
        "aot_forward_graph_fw_metadata",
        "exported_program",
        "dump_file",
    }
)


@dataclass
class Compiles:
    """What ``collect_compiles`` found: the records in the order each began, and the artifacts' texts by SHA-256."""

    records: list[CompileRecord] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)


def language(name: str, text: str, encoding: str = "") -> ArtifactLanguage:
    """What an artifact's text is, for its highlighting: JSON where it was logged as JSON (a cache lookup's key
    components), Python for the graphs (``*_graph``), the output code and the wrappers, JSON for a text that reads as
    JSON, else plain text (bytecode, guards, a graph break's reason)."""
    looks_json = text.lstrip()[:1] in ("{", "[")  # torch logs some text as "json" (``recompile_reasons``)
    if (encoding == "json" or name in CACHE_LOOKUPS) and looks_json:
        return "json"
    if name in _PYTHON or name.endswith("_graph") or name.endswith(("_pre_grad", "_post_grad")):
        return "python"
    return "json" if looks_json else "text"


def _cut(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    head = data[:limit].decode("utf-8", "ignore")
    return head[: head.rfind("\n") + 1] or head, True


def _pretty(text: str) -> str:
    if len(text) > PRETTY_JSON_BYTES:
        return text
    try:
        return json.dumps(load_json(text), indent=1, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _frame(raw: Any, locator: CellLocator) -> CompileFrame | None:
    if not isinstance(raw, dict):
        return None
    filename, line = str(raw.get("filename") or ""), raw.get("line")
    line = line if type(line) is int else 0
    code = str(raw.get("loc") or "").strip()
    return CompileFrame(
        filename=filename,
        line=line,
        name=str(raw.get("name") or ""),
        code=code,
        cell_line=locator.cell_line(filename, line, code or None) if filename and line else None,
    )


def _frames(stack: Any, locator: CellLocator) -> list[CompileFrame]:
    return [f for raw in (stack if isinstance(stack, list) else []) if (f := _frame(raw, locator)) is not None]


def _seconds(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) else None


def _count(value: Any) -> int | None:
    return value if type(value) is int else None


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list) else []


_CLASS_REPR = re.compile(r"^<class '(?:[\w.]+\.)?(\w+)'>$")


def first_reason_line(reason: str) -> str:
    """A restart reason as tlparse lists it: its first line (``Failed to trace builtin operator``), an exception
    class by its name (``<class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>``: ``TensorifyScalarRestartAnalysis``)."""
    first = next((ln.strip() for ln in reason.splitlines() if ln.strip()), "")
    named = _CLASS_REPR.match(first)
    return named.group(1) if named else first


def _metrics(m: dict[str, Any], into: CompileMetrics | None) -> CompileMetrics:
    out = into or CompileMetrics()
    out.entire_frame_s = _seconds(m.get("entire_frame_compile_time_s"))
    out.backend_s = _seconds(m.get("backend_compile_time_s"))
    out.inductor_s = _seconds(m.get("inductor_compile_time_s"))
    out.code_gen_s = _seconds(m.get("code_gen_time_s"))
    out.dynamo_before_restart_s = _seconds(m.get("dynamo_time_before_restart_s"))
    out.remote_cache_saved_s = _seconds(m.get("remote_cache_time_saved_s"))
    for name in (
        "cache_size",
        "accumulated_cache_size",
        "guard_count",
        "shape_env_guard_count",
        "graph_op_count",
        "graph_node_count",
        "graph_input_count",
    ):
        setattr(out, name, _count(m.get(name)))
    out.compliant_custom_ops = _texts(m.get("compliant_custom_ops"))
    out.non_compliant_ops = _texts(m.get("non_compliant_ops"))
    out.restart_reasons = [first_reason_line(r) for r in _texts(m.get("restart_reasons"))]
    out.fail_type = escaped(str(m.get("fail_type") or ""), one_line=True)  # an exception's name: one line
    out.fail_reason = str(m.get("fail_reason") or "")
    out.fail_file = str(m.get("fail_user_frame_filename") or "")
    out.fail_line = _count(m.get("fail_user_frame_lineno"))
    return out


def _shape_fact(kind: str, m: dict[str, Any], locator: CellLocator) -> ShapeFact | None:
    user = _frames(m.get("user_stack"), locator)
    frame = next((f for f in reversed(user) if f.cell_line is not None), user[-1] if user else None)
    if kind == "symbolic_shape_specialization":
        return ShapeFact(
            "specialization",
            str(m.get("symbol") or ""),
            sources=_texts(m.get("sources")),
            value=str(m.get("value") if m.get("value") is not None else ""),
            frame=frame,
        )
    if kind in ("guard_added_fast", "guard_added"):
        return ShapeFact("guard", str(m.get("expr") or ""), frame=frame)
    if kind in ("create_symbol", "create_unbacked_symbol"):
        source = m.get("source")
        return ShapeFact(
            "symbol",
            str(m.get("symbol") or ""),
            sources=[str(source)] if source else [],
            value=str(m.get("val") if m.get("val") is not None else ""),
            frame=frame,
        )
    return None


SHAPE_KINDS = frozenset(
    {"symbolic_shape_specialization", "guard_added_fast", "guard_added", "create_symbol", "create_unbacked_symbol"}
)


_FUNCTIONAL = re.compile(r"_?c10d_functional\.(\w+)")


def collective_name(kernel: str) -> str:
    """``torch.ops._c10d_functional.all_reduce_.default`` as ``all_reduce``; "" for the wait on one (``wait_tensor``)."""
    found = _FUNCTIONAL.search(kernel)
    name = found.group(1).rstrip("_") if found else kernel
    return "" if name == "wait_tensor" else name


def _op_name(name: str) -> str:
    return name.removeprefix("torch.ops.").removesuffix(".default")


def _tensor_meta(payload: Any) -> list[str]:
    """``inductor_runtime_and_tensor_meta``'s ops as one text each: ``extern_kernels.mm -> float32[4, 8]``."""
    ops = payload.get("ops") if isinstance(payload, dict) else None
    out = []
    for op in ops if isinstance(ops, list) else []:
        if not isinstance(op, dict):
            continue
        outputs = op.get("outputs")
        shown = [
            f"{o.get('dtype') or '?'}[{', '.join(str(d) for d in (o.get('shape') or []))}]"
            for o in (outputs if isinstance(outputs, list) else [])
            if isinstance(o, dict) and (o.get("dtype") or o.get("shape"))  # a collective's handles have neither
        ]
        out.append(f"{_op_name(str(op.get('name') or '?'))} -> {', '.join(shown) or 'no tensor'}")
    return out


class _Collector:
    def __init__(self, variant: str, locator: CellLocator, artifact_bytes: int):
        self.variant, self.locator, self.artifact_bytes = variant, locator, artifact_bytes
        self.out = Compiles()
        self.records: dict[tuple[str, int], CompileRecord] = {}
        self.stacks: dict[str, list[CompileFrame]] = {}  # by compile id: dynamo_start's, for every attempt
        self.graph_texts: dict[tuple[str, int], list[tuple[str, str, str]]] = {}  # (kind, sha, text) in order
        self.mappings: dict[tuple[str, int], list[Any]] = {}

    def record(self, ev: TraceEvent) -> CompileRecord:
        attempt = ev.attempt if isinstance(ev.attempt, int) else 0
        key = (ev.compile_id, attempt)
        found = self.records.get(key)
        if found is None:
            found = self.records[key] = CompileRecord(variant=self.variant, compile_id=ev.compile_id, attempt=attempt)
            self.out.records.append(found)
        return found

    def artifact(self, name: str, text: str, encoding: str) -> Artifact:
        kind = language(name, text, encoding)
        if kind == "json":
            text = _pretty(text)
        text, cut = _cut(text, self.artifact_bytes)
        data = text.encode("utf-8", "surrogatepass")
        sha = hashlib.sha256(data).hexdigest()
        self.out.texts.setdefault(sha, text)
        return Artifact(name=name, sha256=sha, bytes=len(data), lines=text.count("\n") + 1, language=kind, cut=cut)

    def add(self, ev: TraceEvent) -> None:
        kind = ev.kind
        if kind in NOT_ARTIFACTS or kind == "str":
            return
        rec = self.record(ev)
        meta = ev.metadata if isinstance(ev.metadata, dict) else {}
        if kind == "dynamo_start":
            self.stacks.setdefault(ev.compile_id, _frames(meta.get("stack"), self.locator))
        elif kind == "compilation_metrics":
            rec.metrics = _metrics(meta, rec.metrics)
        elif kind == "bwd_compilation_metrics":
            rec.metrics = rec.metrics or CompileMetrics()
            rec.metrics.backward_inductor_s = _seconds(meta.get("inductor_compile_time_s"))
        elif kind in SHAPE_KINDS:
            fact = _shape_fact(kind, meta, self.locator)
            if fact is not None:
                rec.shape_facts.append(fact)
        if not ev.payload:
            return
        encoding = str(meta.get("encoding") or "") if ev.name == "artifact" else ""
        art = self.artifact(kind, ev.payload, encoding)
        rec.artifacts.append(art)
        key = (rec.compile_id, rec.attempt)
        if kind in CACHE_LOOKUPS:
            rec.cache_lookups.append(self.lookup(kind, ev, art, rec.compile_id))
        elif kind in PRE_GRAD or kind in POST_GRAD or kind == "inductor_output_code":
            self.graph_texts.setdefault(key, []).append((kind, art.sha256, self.out.texts[art.sha256]))
        elif kind in NODE_MAPPINGS:
            payload = _json(ev.payload)
            if kind == NODE_MAPPINGS[1] and isinstance(payload, dict):
                payload = {"cppCodeToPost": payload}
            self.mappings.setdefault(key, []).append(payload if isinstance(payload, dict) else None)
        elif kind == "inductor_collective_schedule":
            schedule = _json(ev.payload)
            if isinstance(schedule, list):
                rec.collectives.extend(op for name in schedule if name and (op := collective_name(str(name))))
        elif kind == "inductor_runtime_and_tensor_meta":
            rec.tensor_meta.extend(_tensor_meta(_json(ev.payload)))
        elif kind == "graph_execution":
            order = _json(ev.payload)
            ran = order.get("graph_execution_order") if isinstance(order, dict) else None
            rec.execution_order.extend(
                str(g.get("compile_id")) for g in (ran if isinstance(ran, list) else []) if isinstance(g, dict)
            )

    @staticmethod
    def lookup(kind: str, ev: TraceEvent, art: Artifact, compile_id: str) -> CacheLookup:
        cache, state = CACHE_LOOKUPS[kind]
        payload = _json(ev.payload)
        payload = payload if isinstance(payload, dict) else {}
        detail = str(payload.get("cache_bypass_reason") or payload.get("cache_status_detailed") or "")
        components = payload.get("components")
        return CacheLookup(
            compile_id=compile_id,
            cache=cache,
            state=state,
            detail=detail,
            key=str(payload.get("key") or ""),
            components=len(components) if isinstance(components, list) else 0,
            artifact=art.sha256,
        )

    def finish(self) -> Compiles:
        # what was logged outside any compile is a record only where it holds an artifact (``torch_version``)
        self.out.records = [r for r in self.out.records if r.compile_id or r.artifacts]
        by_id: dict[str, list[CompileRecord]] = {}
        for rec in self.out.records:
            by_id.setdefault(rec.compile_id, []).append(rec)
            rec.stack = self.stacks.get(rec.compile_id, [])
            key = (rec.compile_id, rec.attempt)
            self._provenance(rec, self.graph_texts.get(key, []), self.mappings.get(key, []))
            if not rec.collectives:
                rec.collectives = _graph_collectives(self.graph_texts.get(key, []))
        for attempts in by_id.values():
            attempts.sort(key=lambda r: r.attempt)
            last = attempts[-1]
            metrics = next((r.metrics for r in reversed(attempts) if r.metrics is not None), None)
            last.status = _status(metrics) if last.compile_id else "ok"
            reasons = metrics.restart_reasons if metrics is not None else []
            dropped = attempts[:-1]
            for rec in dropped:
                rec.status = "dropped"
            # torch keeps the reasons as a set: which attempt each ended is known only where there is one of each
            if len(reasons) == len(dropped) == 1:
                dropped[0].restart_reason = reasons[0]
        return self.out

    def _provenance(self, rec: CompileRecord, texts: list[tuple[str, str, str]], mappings: list[Any]) -> None:
        """Each output module with the pre-grad graph of its compile (``after_pre_grad_graph`` where both it and the
        graph before the passes were logged), its post-grad graph (the one logged before it; a cache hit logs it
        after) and its node mappings (paired by position: one per module)."""
        pre: tuple[str, str] | None = None
        pre_rank = len(PRE_GRAD)
        post: tuple[str, str] | None = None
        modules = 0
        for i, (kind, sha, text) in enumerate(texts):
            if kind in PRE_GRAD:
                rank = PRE_GRAD.index(kind)
                if rank <= pre_rank:
                    pre, pre_rank = (sha, text), rank
            elif kind in POST_GRAD:
                post = (sha, text)
            else:
                if post is None:
                    post = next(((s, t) for k, s, t in texts[i + 1 :] if k in POST_GRAD), None)
                mapping = mappings[modules] if modules < len(mappings) else None
                rec.provenance.append(module_provenance(pre, post, (sha, text), mapping, self.locator))
                modules += 1
                post, pre_rank = None, len(PRE_GRAD)


def _graph_collectives(texts: list[tuple[str, str, str]]) -> list[str]:
    return [op for kind, _, text in texts if kind in POST_GRAD for op in collective_order(text)]


def _status(metrics: CompileMetrics | None) -> CompileStatus:
    if metrics is None:
        return "missing"
    if metrics.fail_type:
        return "failed"
    if metrics.graph_op_count == 0:
        return "empty"
    if metrics.restart_reasons:
        return "restarted"
    return "ok"


def _json(payload: str | None) -> Any:
    try:
        return load_json(payload) if payload else None
    except (ValueError, RecursionError):
        return None


def collect_compiles(
    events: Iterable[TraceEvent],
    *,
    variant: str,
    locator: CellLocator,
    artifact_bytes: int = DEFAULT_ARTIFACT_BYTES,
) -> Compiles:
    collector = _Collector(variant, locator, artifact_bytes)
    for ev in events:
        collector.add(ev)
    return collector.finish()
