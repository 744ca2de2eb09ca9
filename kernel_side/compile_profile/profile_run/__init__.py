"""``ProfileRun``: everything one profile measured, as a serializable dataclass tree.

This is the contract between the measuring core and every consumer (the digest, the views, the run store, the
server, the JupyterLab extension).  Field names are part of the public JSON shape documented by
``schema/profile_run.schema.json`` (generated from these dataclasses by ``serialize``); add fields freely, rename
none.  Plain data: nothing here imports the engine, the digest, a view or the store; a run's display, report,
save and summary are views the adapters register (``views``).  Every name is imported from this package:

  run.py          ``ProfileRun`` and its own parts: device, variants, timings, speedup, inputs,
                  distributed rank, where an imported run came from, settings; ``json_schema``
  compiles.py     graphs, guards, graph breaks, recompiles, kernels, caches, compile spans, DDP's splits
  compile_records.py  every compile by compile id and attempt: its metrics, artifacts, shapes, provenance
  correctness.py  each output's check and the verdict
  kernel_profile.py  what the profiler pass measured of a variant: kernel times, breakdown, eager lines, events
  errors.py       errors, the settings not at their defaults, ``--bisect``'s result
  notes.py        ``Note``: a fact as a kind and its values, worded by the digest
  upgrades.py     older runs' JSON upgraded on load, step by step (``SCHEMA_VERSION``)
  views.py        the views the adapters register (``VIEWS``)
"""

from .compile_records import (
    Artifact,
    ArtifactLanguage,
    CompileFrame,
    CompileMetrics,
    CompileRecord,
    CompileStatus,
    Provenance,
    ProvenanceNode,
    ProvenanceStage,
    ShapeFact,
)
from .compiles import (
    RECORDING_BACKEND,
    AutotuneResult,
    CacheLookup,
    CacheStats,
    CompileRestart,
    CompileSpan,
    DdpBucket,
    DdpSplit,
    Graph,
    GraphBreak,
    GraphKind,
    Guard,
    Kernel,
    Recompile,
)
from .correctness import Correctness, OutputCheck
from .errors import Bisection, ConfigSetting, ErrorInfo
from .kernel_profile import (
    CallBreakdown,
    EagerLineTime,
    KernelProfile,
    ProfiledEvent,
    TimingMethod,
    UnmatchedKernel,
)
from .notes import Note, NoteKind, NoteValue
from .run import (
    CELL_FILENAME_PREFIX,
    CELL_FUNCTION_NAME,
    OTHER_RANK_FAILED,
    RESUME_FUNCTION,
    SCHEMA_PATH,
    SETTER_FILENAME,
    Device,
    DevicePeaks,
    DistributedRank,
    HostLoad,
    InputCall,
    InputSequence,
    InputSignature,
    KeptTensor,
    ProfileRun,
    Recommendation,
    RunSettings,
    RunStatus,
    SkippedRecord,
    Speedup,
    SuiteEntryRef,
    ThreadsTrial,
    Timing,
    TraceOrigin,
    Variant,
    json_schema,
)
from .upgrades import SCHEMA_VERSION, UPGRADES
from .views import VIEWS, RunViews

__all__ = [
    "CELL_FILENAME_PREFIX",
    "CELL_FUNCTION_NAME",
    "RESUME_FUNCTION",
    "SETTER_FILENAME",
    "OTHER_RANK_FAILED",
    "SCHEMA_PATH",
    "SCHEMA_VERSION",
    "UPGRADES",
    "VIEWS",
    "Artifact",
    "ArtifactLanguage",
    "AutotuneResult",
    "Bisection",
    "CacheLookup",
    "CacheStats",
    "CallBreakdown",
    "CompileFrame",
    "CompileMetrics",
    "CompileRecord",
    "CompileRestart",
    "CompileSpan",
    "CompileStatus",
    "ConfigSetting",
    "Correctness",
    "DdpBucket",
    "DdpSplit",
    "Device",
    "DevicePeaks",
    "DistributedRank",
    "EagerLineTime",
    "ErrorInfo",
    "Graph",
    "GraphBreak",
    "GraphKind",
    "Guard",
    "HostLoad",
    "InputCall",
    "InputSequence",
    "InputSignature",
    "KeptTensor",
    "Kernel",
    "KernelProfile",
    "Note",
    "NoteKind",
    "NoteValue",
    "OutputCheck",
    "ProfileRun",
    "ProfiledEvent",
    "Provenance",
    "ProvenanceNode",
    "ProvenanceStage",
    "Recommendation",
    "RECORDING_BACKEND",
    "Recompile",
    "RunSettings",
    "RunStatus",
    "RunViews",
    "ShapeFact",
    "SkippedRecord",
    "Speedup",
    "ThreadsTrial",
    "Timing",
    "TimingMethod",
    "SuiteEntryRef",
    "TraceOrigin",
    "UnmatchedKernel",
    "Variant",
    "json_schema",
]
