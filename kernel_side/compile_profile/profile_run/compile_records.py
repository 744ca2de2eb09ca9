"""Every compile of a run by compile id and attempt (``ProfileRun.compiles``), as Dynamo, AOTAutograd and Inductor
logged it: where it started, its metrics, its artifacts by reference, its cache lookups, its symbolic-shape
decisions and each output module's provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .compiles import CacheLookup

ArtifactLanguage = Literal["python", "cpp", "json", "text"]
CompileStatus = Literal["ok", "restarted", "empty", "failed", "missing", "dropped"]
ProvenanceStage = Literal["pre_grad", "post_grad", "output_code"]


@dataclass
class Artifact:
    """One intermediate product a compile logged (``TORCH_TRACE``'s payloads, what tlparse lists per compile id): a
    graph, the whole Inductor output module, the runtime wrapper, ``fx_graph_runnable``, bytecode, a cache lookup's
    key components.  A reference: its text is stored once by its SHA-256 (``ProfileRun.artifact_texts`` until the
    run is saved; then the run store's ``artifacts`` table, compressed and shared by every run and rank that logged
    the same text), so a run's JSON carries no artifact's body."""

    name: str  # torch's name for it: "dynamo_output_graph", "inductor_output_code", "before_pre_grad_graph", ...
    sha256: str
    bytes: int  # of its text as stored, UTF-8
    lines: int
    language: ArtifactLanguage = "text"
    cut: bool = False  # longer than ``TraceLimits.artifact_bytes``: stored up to the last line within it


@dataclass
class CompileMetrics:
    """What Dynamo's ``compilation_metrics`` (and a lazily compiled backward's ``bwd_compilation_metrics``) logged
    for one compile: the figures tlparse's compile page shows.  None where the release or the compile logged none."""

    entire_frame_s: float | None = None
    backend_s: float | None = None
    inductor_s: float | None = None
    code_gen_s: float | None = None
    dynamo_before_restart_s: float | None = None
    backward_inductor_s: float | None = None  # bwd_compilation_metrics: a backward compiled at its first call
    remote_cache_saved_s: float | None = None
    cache_size: int | None = None  # entries this frame's cache held before the compile
    accumulated_cache_size: int | None = None
    guard_count: int | None = None
    shape_env_guard_count: int | None = None
    graph_op_count: int | None = None
    graph_node_count: int | None = None
    graph_input_count: int | None = None
    compliant_custom_ops: list[str] = field(default_factory=list[str])
    non_compliant_ops: list[str] = field(default_factory=list[str])
    restart_reasons: list[str] = field(default_factory=list[str])  # each in its first line
    fail_type: str = ""
    fail_reason: str = ""
    fail_file: str = ""
    fail_line: int | None = None


@dataclass
class CompileFrame:
    """A frame of the stack a compile started from (``dynamo_start``), outermost first."""

    filename: str
    line: int
    name: str
    code: str = ""
    cell_line: int | None = None  # the cell (or the imported trace's script) line it is, where it is one


@dataclass
class ShapeFact:
    """A symbolic-shape decision of one compile (tlparse's compile page): a ``specialization`` (a dynamic size fixed
    to a value), a ``guard_added_fast`` (a guard on sizes) or a created ``symbol``, with the user frame behind it."""

    kind: Literal["specialization", "guard", "symbol"]
    text: str  # the symbol ("s77") or the guard's expression ("8*s77 <= 4096")
    sources: list[str] = field(default_factory=list[str])  # what the symbol stands for ("L['x'].size()[0]")
    value: str = ""  # what it was specialized to, or a created symbol's hint
    frame: CompileFrame | None = None  # the innermost user frame, where the trace names one


@dataclass
class ProvenanceNode:
    """One node of a compiled graph at one stage, where it sits in that stage's artifact and what it became."""

    stage: ProvenanceStage
    name: str  # the FX node's name; in the output code a kernel's call as Inductor names it ("cpp_fused_relu_0:2")
    lines: list[int] = field(default_factory=list[int])  # its lines in the stage's artifact, from 1 (a kernel's calls)
    definition: list[int] = field(default_factory=list[int])  # a kernel's source: its first and last line; [] else
    line: int | None = None  # the cell (script) line it came from, where its frame is one
    file: str = ""  # the frame it came from when it is not the cell's (a library's), "" when none is named
    file_line: int | None = None
    to: list[str] = field(default_factory=list[str])  # the nodes of later stages it became, by name


@dataclass
class Provenance:
    """How one Inductor output module came from the user's code: its pre-grad graph, post-grad graph and output code
    (the ``Artifact``s by SHA-256, "" where not logged) and their nodes, linked by Inductor's own node mappings
    (``mapped``: provenance tracking on, as a profile turns it on and ``INDUCTOR_PROVENANCE=1`` does), else by the
    graphs' ``# File:`` comments and the output code's ``Source Nodes`` comments."""

    pre_grad: str = ""
    post_grad: str = ""
    output_code: str = ""
    mapped: bool = False
    nodes: list[ProvenanceNode] = field(default_factory=list[ProvenanceNode])
    graph: str = ""  # what the module computes, as its ``AOT ID`` says: "forward", "backward", "inference"; "" unsaid


@dataclass
class CompileRecord:
    """One compile, by compile id and attempt (tlparse's ``[0/1_2]``), as Dynamo, AOTAutograd and Inductor logged
    it: where it started, its metrics, every artifact in the order logged, its cache lookups with their keys, its
    symbolic-shape decisions and its provenance.  A compile whose analysis Dynamo restarted has one record per
    attempt; the attempts before the last are ``dropped`` (their graphs never ran)."""

    variant: str
    compile_id: str  # "0/1"; "" for what the trace logged outside any compile
    attempt: int = 0
    status: CompileStatus = "missing"
    restart_reason: str = ""  # why Dynamo restarted this attempt (a dropped one), in its first line
    stack: list[CompileFrame] = field(default_factory=list[CompileFrame])
    metrics: CompileMetrics | None = None
    artifacts: list[Artifact] = field(default_factory=list[Artifact])
    cache_lookups: list[CacheLookup] = field(default_factory=list[CacheLookup])
    shape_facts: list[ShapeFact] = field(default_factory=list[ShapeFact])
    provenance: list[Provenance] = field(default_factory=list[Provenance])
    collectives: list[str] = field(default_factory=list[str])  # the collective ops its graphs run, in order
    # each output module's ops with their outputs' shapes and dtypes (``inductor_runtime_and_tensor_meta``, logged
    # with ``torch._inductor.config.log_tlparse``): one text per op, "aten.mm f32[4, 8]"; empty where not logged
    tensor_meta: list[str] = field(default_factory=list[str])
    # the compile ids whose graphs ran, in the order they ran (the ``graph_execution`` artifact, logged under
    # ``torch._inductor.debug.record_and_log_graph_execution_order``): on the record of no compile id; else empty
    execution_order: list[str] = field(default_factory=list[str])
    start_s: float | None = None  # its first span's start (epoch seconds, as ``CompileSpan``)
