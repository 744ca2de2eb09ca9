"""One compile's detail, worded: tlparse's compile page, for a live profile and an imported trace alike.

Contract: ``compile_detail(run, key)`` reads one ``CompileRecord`` (``compiles.find_compile``) and returns a
``CompileDetail``: where it started, its compilation metrics (each figure worded), its failure and restarts, the
other attempts of its compile id, every artifact in the order logged with what it is (``ARTIFACT_WORDS``), its cache
lookups with their keys, its symbolic-shape decisions, each output module's provenance (``provenance``), its
collectives and tensor metadata.  None for a key the run has no compile of.  Texts stay behind their hashes.
"""

from __future__ import annotations

import re

from ..profile_run import CompileMetrics, CompileRecord, ProfileRun, ShapeFact
from .compile_shapes import (
    ArtifactRow,
    AttemptRow,
    CacheLookupRow,
    CompileDetail,
    MetricRow,
    ShapeFactRow,
)
from .compiles import (
    CACHE_NAMES,
    artifacts_text,
    compile_link,
    compiled_frame,
    find_compile,
    frame_text,
    status_text,
)
from .format import format_bytes, format_s, lines_of, one_line
from .provenance import provenance_view

# What each artifact torch logs is, by its name: (stage, words).  Names made at run time are matched by pattern.
ARTIFACT_WORDS: dict[str, tuple[str, str]] = {
    "dynamo_output_graph": ("Dynamo", "Dynamo output graph"),
    "dynamo_cpp_guards_str": ("Dynamo", "guards (the guard tree)"),
    "dynamo_guards": ("Dynamo", "guards"),
    "dynamo_graph_break_reason": ("Dynamo", "graph break reason"),
    "recompile_reasons": ("Dynamo", "recompile reasons (the failed guards)"),
    "dynamo_side_effects": ("Dynamo", "side effects"),
    "dynamo_error": ("Dynamo", "error"),
    "optimize_ddp_split_graph": ("DDPOptimizer", "split graph"),
    "optimize_ddp_split_child": ("DDPOptimizer", "piece of the split graph"),
    "aot_joint_graph": ("AOTAutograd", "joint graph"),
    "aot_forward_graph": ("AOTAutograd", "forward graph"),
    "aot_backward_graph": ("AOTAutograd", "backward graph"),
    "aot_inference_graph": ("AOTAutograd", "inference graph"),
    "aot_forward_graph_fw_metadata": ("AOTAutograd", "forward metadata (views and mutations)"),
    "runtime_wrapper_orchestration": ("AOTAutograd", "runtime wrapper"),
    "compiled_fn_wrapper": ("AOTAutograd", "compiled function's wrapper"),
    "subclass_wrapper": ("AOTAutograd", "tensor-subclass wrapper"),
    "compiled_function_forward": ("AOTAutograd", "compiled autograd function: forward"),
    "compiled_function_backward": ("AOTAutograd", "compiled autograd function: backward"),
    "backward_prologue": ("AOTAutograd", "backward prologue"),
    "backward_epilogue": ("AOTAutograd", "backward epilogue"),
    "before_pre_grad_graph": ("Inductor", "pre-grad graph, before its passes"),
    "after_pre_grad_graph": ("Inductor", "pre-grad graph"),
    "inductor_pre_grad_graph": ("Inductor", "pre-grad graph"),
    "before_joint_graph": ("Inductor", "joint graph, before its passes"),
    "after_joint_graph": ("Inductor", "joint graph, after its passes"),
    "before_post_grad_graph": ("Inductor", "post-grad graph, before its passes"),
    "inductor_post_grad_graph": ("Inductor", "post-grad graph"),
    "after_post_grad_graph": ("Inductor", "post-grad graph"),
    "inductor_output_code": ("Inductor", "output code (the whole module, with call())"),
    "fx_graph_runnable": ("Inductor", "fx_graph_runnable (torch's standalone reproducer)"),
    "inductor_provenance_tracking_node_mappings": ("Inductor", "provenance: node mappings"),
    "inductor_provenance_tracking_kernel_stack_traces": ("Inductor", "provenance: kernels' stack traces"),
    "inductor_triton_kernel_to_post_grad_nodes": ("Inductor", "provenance: kernels' post-grad nodes"),
    "inductor_collective_schedule": ("Inductor", "collective schedule"),
    "inductor_runtime_and_tensor_meta": ("Inductor", "ops' runtime estimates and tensor metadata"),
    "triton_kernel_info": ("Inductor", "Triton kernel info"),
    "autotuning_results": ("Inductor", "autotuning results"),
    "fx_graph_cache_hit": ("cache", "FX graph cache hit (key components)"),
    "fx_graph_bundled_cache_hit": ("cache", "FX graph cache hit, bundled (key components)"),
    "fx_graph_cache_miss": ("cache", "FX graph cache miss (key components)"),
    "fx_graph_cache_bypass": ("cache", "FX graph cache bypassed"),
    "aotautograd_cache_hit": ("cache", "AOTAutograd cache hit"),
    "aotautograd_cache_miss": ("cache", "AOTAutograd cache miss"),
    "aotautograd_cache_bypass": ("cache", "AOTAutograd cache bypassed"),
    "torch._dynamo.config": ("config", "Dynamo config"),
    "torch._functorch.config": ("config", "functorch config"),
    "torch._inductor.config": ("config", "Inductor config"),
    "torch_version": ("config", "torch version"),
    "graph_execution": ("run", "graphs in the order they ran"),
}
_BYTECODE = re.compile(r"^(.*)_(ORIGINAL|MODIFIED)_BYTECODE$")
LANGUAGES = {"python": "Python", "json": "JSON", "cpp": "C++", "text": ""}
CUT = ", cut at the cap on an artifact's text (TraceLimits.artifact_bytes)"


def artifact_words(name: str) -> tuple[str, str]:
    """(stage, words) for an artifact's name: ``("Dynamo", "bytecode as Dynamo rewrote it: forward")``."""
    if name in ARTIFACT_WORDS:
        return ARTIFACT_WORDS[name]
    bytecode = _BYTECODE.match(name)
    if bytecode:
        frame = bytecode.group(1)
        how = "original bytecode" if bytecode.group(2) == "ORIGINAL" else "bytecode as Dynamo rewrote it"
        return "Dynamo", f"{how}: {frame}"
    if name.endswith(("_pre_grad", "_post_grad")):
        return "Inductor", f"graph after the pass {name}"
    return "other", name


def _size(n: int) -> str:
    return format_bytes(n).replace("iB", "B") if n >= 1024 else f"{n} bytes"


def _number(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def metric_rows(m: CompileMetrics | None) -> list[MetricRow]:
    """The compile page's figures: times, cache size, guards, graph size, custom ops, each worded; [] without metrics."""
    if m is None:
        return []
    rows = [
        MetricRow(label, format_s(value))
        for label, value in (
            ("entire frame", m.entire_frame_s),
            ("backend", m.backend_s),
            ("Inductor", m.inductor_s),
            ("code generation", m.code_gen_s),
            ("backward's Inductor (compiled at its first call)", m.backward_inductor_s),
            ("Dynamo before a restart", m.dynamo_before_restart_s if m.dynamo_before_restart_s else None),
            ("saved by the remote cache", m.remote_cache_saved_s),
        )
        if value is not None
    ]
    if m.cache_size is not None:
        rows.append(MetricRow("cache size", f"{m.cache_size} (accumulated {_number(m.accumulated_cache_size)})"))
    if m.guard_count is not None:
        rows.append(MetricRow("guards", f"{m.guard_count} (shape env {_number(m.shape_env_guard_count)})"))
    if m.graph_op_count is not None:
        rows.append(
            MetricRow(
                "graph",
                f"{_number(m.graph_op_count)} ops, {_number(m.graph_node_count)} nodes, "
                f"{_number(m.graph_input_count)} inputs",
            )
        )
    for label, ops in (("custom ops", m.compliant_custom_ops), ("non-compliant custom ops", m.non_compliant_ops)):
        if ops:
            rows.append(MetricRow(label, ", ".join(ops)))
    return rows


def failure_text(record: CompileRecord) -> str:
    m = record.metrics
    if m is None or not m.fail_type:
        return ""
    where = f" at {m.fail_file.rsplit('/', 1)[-1]}:{m.fail_line}" if m.fail_file and m.fail_line else ""
    return f"{m.fail_type}{where}: {one_line(m.fail_reason, 600)}" if m.fail_reason else f"{m.fail_type}{where}"


def restarts_text(record: CompileRecord) -> str:
    m = record.metrics
    reasons = m.restart_reasons if m is not None else []
    if not reasons:
        return ""
    n = len(reasons)
    return f"Dynamo restarted its analysis {n} time{'' if n == 1 else 's'}: " + "; ".join(reasons)


def attempt_rows(run: ProfileRun, record: CompileRecord) -> list[AttemptRow]:
    attempts = [r for r in run.compiles if r.variant == record.variant and r.compile_id == record.compile_id]
    if len(attempts) < 2:
        return []
    return [
        AttemptRow(
            link=compile_link(run, r),
            text=f"attempt {r.attempt}: {status_text(r)}; {artifacts_text(r)}",
            current=r is record,
        )
        for r in sorted(attempts, key=lambda r: r.attempt)
    ]


def artifact_rows(record: CompileRecord) -> list[ArtifactRow]:
    rows = []
    for a in record.artifacts:
        stage, label = artifact_words(a.name)
        cut = CUT if a.cut else ""
        rows.append(
            ArtifactRow(
                name=a.name,
                label=label,
                stage=stage,
                sha256=a.sha256,
                language=LANGUAGES.get(a.language, ""),
                size_text=f"{_size(a.bytes)}, {a.lines:,} line{'' if a.lines == 1 else 's'}{cut}",
            )
        )
    return rows


def lookup_rows(record: CompileRecord) -> list[CacheLookupRow]:
    return [
        CacheLookupRow(
            text=f"{CACHE_NAMES.get(c.cache, c.cache)} cache {c.state}" + (f" ({c.detail})" if c.detail else ""),
            key=c.key,
            components_text=f"{c.components:,} key component{'' if c.components == 1 else 's'}" if c.components else "",
            sha256=c.artifact,
        )
        for c in record.cache_lookups
    ]


SHAPE_KIND_WORDS = {"specialization": "specialization", "guard": "guard added", "symbol": "symbol created"}


def shape_fact_row(fact: ShapeFact, of: str) -> ShapeFactRow:
    if fact.kind == "guard":
        text = fact.text
    else:
        sources = f" = {', '.join(fact.sources)}" if fact.sources else ""
        value = f" ({'hint' if fact.kind == 'symbol' else 'to'} {fact.value})" if fact.value else ""
        text = f"{fact.text}{sources}{value}"
    where = ""
    if fact.frame is not None:
        where = frame_text(fact.frame, of) + (f": {fact.frame.code}" if fact.frame.code else "")
    return ShapeFactRow(kind=SHAPE_KIND_WORDS[fact.kind], text=text, where=where)


def collectives_text(record: CompileRecord) -> str:
    if not record.collectives:
        return ""
    return f"{len(record.collectives)} collective{'' if len(record.collectives) == 1 else 's'}, in order: " + ", ".join(
        record.collectives
    )


def compile_detail(run: ProfileRun, key: str) -> CompileDetail | None:
    record = find_compile(run, key)
    if record is None:
        return None
    of = lines_of(run)
    link = compile_link(run, record)
    return CompileDetail(
        run_id=run.id,
        link=link,
        title=f"{link.label} {compiled_frame(record, of)}" if record.stack else link.label,
        stack=[frame_text(f, of) + (f": {f.code}" if f.code else "") for f in record.stack],
        metrics=metric_rows(record.metrics),
        failure_text=failure_text(record),
        restarts_text=restarts_text(record),
        attempts=attempt_rows(run, record),
        artifacts=artifact_rows(record),
        artifacts_text=artifacts_text(record),
        cache_lookups=lookup_rows(record),
        shape_facts=[shape_fact_row(f, of) for f in record.shape_facts],
        provenance=[provenance_view(run, record, i) for i in range(len(record.provenance))],
        collectives_text=collectives_text(record),
        tensor_meta=list(record.tensor_meta),
    )
