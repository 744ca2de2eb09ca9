"""What the trace model's handlers share while one variant's events are read: the ``VariantTrace`` they build,
the ``TraceState`` each handler adds to, and the readers every handler uses (an event's JSON payload, the Dynamo
graph of its compile).  Plain data; the handlers are ``events``' and ``breaks``'."""

from __future__ import annotations

import collections
import linecache
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ....profile_run import (
    AutotuneResult,
    CacheLookup,
    CacheStats,
    CompileRecord,
    CompileRestart,
    CompileSpan,
    DdpSplit,
    Graph,
    GraphBreak,
    Kernel,
    Recompile,
)
from ...cell.locator import CellLocator
from ..capture import TraceEvent
from ..records import load_json
from .kernels import CompileState

if TYPE_CHECKING:  # the backend imports torch, which reading a log does not need
    from ...compiler.backend import RecordedGraph


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
    ddp_splits: list[DdpSplit] = field(default_factory=list)
    spans: list[CompileSpan] = field(default_factory=list)  # in order of their ends
    cache_lookups: list[CacheLookup] = field(default_factory=list)
    # compiles that raised (a backend's error, fullgraph's Unsupported), a recompile limit's apart
    failed_compiles: list[FailedCompile] = field(default_factory=list)
    # the last ``fx_graph_runnable`` artifact (a standalone script of the graph Inductor was given: torch's own
    # reproducer, run through ``torch._dynamo.repro.after_aot.run_repro``) and its compile id
    runnable: str = ""
    runnable_compile_id: str = ""
    runnables: dict[str, str] = field(default_factory=dict)  # the last ``fx_graph_runnable`` of each compile id
    # each compile's restarts of its analysis (``compilation_metrics``' ``restart_reasons``), as tlparse lists them
    restarts: list[CompileRestart] = field(default_factory=list)
    # every compile by id and attempt with its artifacts (``compiles``), and the artifacts' texts by SHA-256
    compiles: list[CompileRecord] = field(default_factory=list)
    artifact_texts: dict[str, str] = field(default_factory=dict)


@dataclass
class FailedCompile:
    """A compile whose metrics name an exception (``fail_type``): what raised, and the user frame it names."""

    compile_id: str
    type: str
    reason: str
    filename: str = ""
    line: int | None = None


@dataclass
class TraceState:
    """Everything the handlers read and write while one variant's events are read."""

    variant: str
    locator: CellLocator
    recorded: Iterator[RecordedGraph]  # the Dynamo graphs our backend saw, one per dynamo_output_graph
    out: VariantTrace = field(default_factory=VariantTrace)
    compiles: dict[str, CompileState] = field(default_factory=dict)  # by compile id, in order of first event
    # begin timestamps of the open chromium spans, by (span name, compile id)
    open_spans: dict[tuple[str, str], list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    # how many spans are open per compile id: a span's depth is the number open when it began
    open_depth: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(list))
    # each DDPOptimizer split with the number of forward graphs its compile had logged before it
    ddp_forwards_before: list[tuple[DdpSplit, int]] = field(default_factory=list)
    recompiles: dict[str, Recompile] = field(default_factory=dict)  # by compile id: one recompile each
    # the frames of each recompile's failed guard, from its reason's ``User stack trace`` (by compile id)
    guard_frames: dict[str, list[tuple]] = field(default_factory=dict)
    # the compile seconds Dynamo's metrics give each compile id (the frame's, a lazy backward's added)
    metrics_s: dict[str, float] = field(default_factory=lambda: collections.defaultdict(float))
    # a line of a file the trace names (a graph break's), where no frame of the trace gives its text: linecache in
    # a live profile (the user's own files); an import reads only under the source-roots rule (trace_sources)
    read_line: Callable[[str, int], str] = field(default=lambda filename, line: linecache.getline(filename, line))

    def compile(self, ev: TraceEvent) -> CompileState:
        return self.compiles.setdefault(ev.compile_id, CompileState())

    def graph_id(self, ev: TraceEvent, kind: str) -> str:
        return f"{self.variant}/{ev.compile_id}/{kind}"


Handler = Callable[[TraceState, TraceEvent], None]


def dynamo_graph_of(state: TraceState, ev: TraceEvent) -> Graph | None:
    # Guards are logged after the frame's graph; a frame that produced no graph has no Dynamo
    # graph to hold its guards, and they are dropped.
    return next((g for g in reversed(state.out.graphs) if g.kind == "dynamo" and g.compile_id == ev.compile_id), None)


def payload_json(payload: str | None):
    if not payload:
        return None
    try:
        return load_json(payload)  # NaN and Infinity refused: nothing the store writes may hold them
    except ValueError:
        return None
