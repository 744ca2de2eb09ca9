"""The shapes of the compile views' digest, declared once as dataclasses: the compile index with the compile-site
tree (``compiles.compile_index``) and one compile's detail (``compile_detail.compile_detail``).

They generate their part of ``schema/digest.schema.json`` and of the panel's TypeScript (``contract.ROOTS``, ``make
contract``), and travel as JSON through ``serialize.to_dict``: no TypedDict repeats them.  Every figure in them is
words already (sizes, times, counts): a view lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profile_run import CompileStatus


@dataclass
class CompileLink:
    """A compile as every view names and opens it."""

    key: str  # "trace:0/1:2": variant, compile id and attempt (what ``GET runs/<id>/compiles/<key>`` takes)
    label: str  # tlparse's name: "[0/1_2]"; another variant's compiles with its name after it
    status: CompileStatus  # tlparse's colour: compiled, restarted, empty graph, failed, no metrics, dropped
    status_text: str  # "compiled after 2 restarts", "failed: InductorError: ...", "attempt Dynamo dropped"


@dataclass
class StatusWord:
    """One status of the legend, in the words the tree's colours stand for."""

    status: CompileStatus
    text: str


@dataclass
class SiteRow:
    """One frame of the compile-site tree (tlparse's stack trie), in pre-order: ``depth`` grows where stacks part."""

    depth: int
    text: str  # "record.py:110 in <module>", "cell line 3 in <cell>"
    code: str  # the frame's code
    compiles: list[CompileLink] = field(default_factory=list[CompileLink])  # the compiles that started at it


@dataclass
class CompileRow:
    """One compile (an attempt) in the index."""

    link: CompileLink
    variant: str
    compile_id: str
    attempt: int
    frame: str  # "forward at record.py:82"
    time: str  # its compile time, "28.2 s"; "—" where not logged
    artifacts_text: str  # "24 artifacts, 312 KB"
    cache_text: str  # "FX graph miss; AOTAutograd miss"


@dataclass
class CompileIndex:
    """Every compile of a run, and where they started (``GET runs/<id>/compiles``)."""

    run_id: str
    text: str  # "7 compiles of 6 compile ids: 6 compiled, 1 restarted; 101 artifacts, 761 KB"
    rows: list[CompileRow] = field(default_factory=list[CompileRow])
    sites: list[SiteRow] = field(default_factory=list[SiteRow])
    legend: list[StatusWord] = field(default_factory=list[StatusWord])
    perfetto_text: str = ""  # what the Perfetto export holds: "18 compile spans of 7 compiles; no kernel events"


@dataclass
class MetricRow:
    """One of the compile's metrics, worded."""

    label: str  # "entire frame", "guards"
    value: str  # "28.2 s", "10 (shape env 0)"


@dataclass
class ArtifactRow:
    """One artifact of the compile, in the order logged, viewable by its hash (``GET runs/<id>/artifacts/<sha256>``)."""

    name: str  # torch's name: "inductor_output_code"
    label: str  # "output code (the module with call())"
    stage: str  # "Dynamo", "AOTAutograd", "Inductor", "cache", "config", "other"
    sha256: str
    language: str  # CodeMirror's language name: "Python", "JSON", "" (plain text)
    size_text: str  # "12.3 KB, 140 lines"; "…, cut at 32 MiB" where longer than the cap


@dataclass
class AttemptRow:
    """One attempt of the compile id, the one shown among them."""

    link: CompileLink
    text: str  # "attempt 1: dropped, Dynamo restarted it (TensorifyScalarRestartAnalysis); 7 artifacts"
    current: bool


@dataclass
class CacheLookupRow:
    """One cache lookup with the key it looked up."""

    text: str  # "FX graph cache miss (full_miss)"
    key: str  # the whole key
    components_text: str  # "637 key components", "" where none logged
    sha256: str  # its artifact: the key components with their values


@dataclass
class ShapeFactRow:
    """A symbolic-shape decision of the compile."""

    kind: str  # "specialization", "guard added", "symbol created"
    text: str  # "s77 = L['x'].size()[0] (hint 6)", "8*s77 <= 4096"
    where: str  # "record.py:85 (line 85): y = y * 2"; "" where the trace names no user frame


@dataclass
class ProvenanceGroup:
    """One source line and what it became: the lines of each stage's artifact that came from it."""

    line: int | None  # the cell (script) line; None for a library's frame or nodes no frame names
    title: str  # "line 83: y = torch.relu(self.lin(x))"
    text: str  # "pre-grad linear, y → post-grad permute, addmm, relu, le → kernels extern_kernels.addmm:1, ..."
    lines_text: str  # "pre-grad graph lines 8–9; post-grad graph lines 4–6, 13; output code lines 33–79, 104"
    pre_grad: list[int] = field(default_factory=list[int])  # lines in the pre-grad graph
    post_grad: list[int] = field(default_factory=list[int])
    output_code: list[int] = field(default_factory=list[int])


@dataclass
class ProvenanceView:
    """One output module's linked view: source, pre-grad graph, post-grad graph and output code."""

    title: str  # "output module 1 of 2 (forward)"
    how: str  # "linked by Inductor's node mappings" or by the graphs' comments, and what that means
    pre_grad: str  # the artifacts' hashes, "" where not logged
    post_grad: str
    output_code: str
    groups: list[ProvenanceGroup] = field(default_factory=list[ProvenanceGroup])


@dataclass
class CompileDetail:
    """One compile by compile id and attempt (``GET runs/<id>/compiles/<key>``): tlparse's compile page."""

    run_id: str
    link: CompileLink
    title: str  # "[0/1] forward at record.py:82"
    stack: list[str] = field(default_factory=list[str])  # where it started, outermost first
    metrics: list[MetricRow] = field(default_factory=list[MetricRow])
    failure_text: str = ""
    restarts_text: str = ""  # "Dynamo restarted its analysis 2 times: ..."
    attempts: list[AttemptRow] = field(default_factory=list[AttemptRow])
    artifacts: list[ArtifactRow] = field(default_factory=list[ArtifactRow])
    artifacts_text: str = ""
    cache_lookups: list[CacheLookupRow] = field(default_factory=list[CacheLookupRow])
    shape_facts: list[ShapeFactRow] = field(default_factory=list[ShapeFactRow])
    provenance: list[ProvenanceView] = field(default_factory=list[ProvenanceView])
    collectives_text: str = ""
    tensor_meta: list[str] = field(default_factory=list[str])
