"""In-process capture of PyTorch's structured trace log (the ``torch.__trace`` logger).

tlparse reads the same records from files; here a logging handler keeps them
in memory while a profile runs.  ``capture_compiles()`` installs the handler
and the Inductor config patches the profile needs, and removes both on exit,
also when the body raises or is interrupted.

Only the profiling thread's compiles are kept: a ``torch.compile`` that another thread of the process
runs meanwhile logs to the same logger, and its graphs and recompiles read as the cell's (an eager
variant "owning" two graphs).  An event that names a compile (``frame_id``) is kept when that compile
started on the thread that entered ``capture_compiles``, also where a later part of it is logged from
another thread (on CUDA, a lazily compiled backward runs in autograd's device thread); an event that
names none is kept from any thread (Inductor compiles C++ in worker threads: ``compile_file``).

A record read from a file is checked against its kind's types (``records``) as it becomes an event: one that is
not of them raises ``BadRecord`` here, before any handler reads it (a log's reader skips it and keeps its line).  The
live recorder's records come from the installed torch, which the handlers are tested against, and are not checked.

A ``chromium_event`` payload (one begin or end of a timed compile span) is parsed here, once
per event (``TraceEvent.chromium``), for all that reads it: the progress line, the compile
phases and max-autotune's results.  A payload that is not such an event reads as ``None``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..common.torch_features import provenance_outside_cache_key, provenance_patch
from .records import check_record, load_json, number

TRACE_LOGGER = "torch.__trace"

# Keys trace_structured() adds around the event's own metadata.
_CONTEXT_KEYS = frozenset(
    {"frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id", "stack", "subgraph_name"}
)


@dataclass
class TraceEvent:
    """One structured-trace record: its kind, its metadata and its payload."""

    name: str
    metadata: Any
    payload: str | None
    frame_id: int | None
    frame_compile_id: int | None
    attempt: int | None
    time: float
    context: str = ""  # what the profiler was running when it was logged (a variant's name)

    @property
    def compile_id(self) -> str:
        if self.frame_id is None:
            return ""
        return f"{self.frame_id}/{self.frame_compile_id}"

    @property
    def artifact_name(self) -> str:
        if self.name == "artifact" and isinstance(self.metadata, dict):
            return str(self.metadata.get("name", ""))
        return ""

    @property
    def kind(self) -> str:
        """What the event is: an artifact's name, else the event's name (no torch name is both,
        except ``inductor_post_grad_graph``, which is the same graph either way)."""
        return self.artifact_name if self.name == "artifact" else self.name

    @functools.cached_property
    def chromium(self) -> ChromiumEvent | None:
        """The span event of a ``chromium_event``, parsed on first use; ``None`` for any other event."""
        return parse_chromium(self.payload) if self.name == "chromium_event" else None


@dataclass(frozen=True)
class ChromiumEvent:
    """One Chrome-trace event, as Dynamo's chromium event logger writes it: ``phase`` is "B" or
    "E" for the begin or end of a timed span (others, such as "i" or "X", are not spans);
    ``ts`` is in microseconds."""

    name: str
    phase: str
    ts: float
    args: dict = field(default_factory=dict)


def parse_chromium(payload: Any) -> ChromiumEvent | None:
    """A ``chromium_event`` payload (JSON) as a ``ChromiumEvent``; ``None`` if it is not one."""
    if not isinstance(payload, str) or not payload:
        return None
    try:
        data = load_json(payload)
    except ValueError:
        return None
    ts = data.get("ts", 0.0) if isinstance(data, dict) else None
    if ts is None or number(ts):
        return None
    args = data.get("args")
    return ChromiumEvent(
        name=str(data.get("name", "")),
        phase=str(data.get("ph", "")),
        ts=float(ts),
        args=args if isinstance(args, dict) else {},
    )


class TraceRecorder(logging.Handler):
    """A logging handler that keeps structured trace records as ``TraceEvent``s."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.events: list[TraceEvent] = []
        self.strings: dict[int, str] = {}  # trace_structured interns filenames
        self._events_lock = threading.Lock()
        self.on_event: Callable[[TraceEvent], None] | None = None  # e.g. progress reporting
        self.context = ""  # stamped on each event; the profiler sets it before each variant's calls
        self.thread = threading.get_ident()  # the profiling thread (``capture_compiles`` sets it)
        self._own_compiles: set[tuple[Any, Any]] = set()  # (frame_id, frame_compile_id) it started

    def emit(self, record: logging.LogRecord) -> None:
        event = trace_event(
            getattr(record, "metadata", None),
            getattr(record, "payload", None),
            time.perf_counter(),
            self.strings,
            context=self.context,
            checked=False,
        )
        if event is None or not self._of_a_profiled_compile(event, record.thread):
            return
        with self._events_lock:
            self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _of_a_profiled_compile(self, event: TraceEvent, thread: int | None) -> bool:
        """Whether ``event`` belongs to a compile the profiling thread started, or names none."""
        if event.frame_id is None:
            return True
        compile_id = (event.frame_id, event.frame_compile_id)
        if thread == self.thread:
            self._own_compiles.add(compile_id)
            return True
        return compile_id in self._own_compiles  # else another thread's torch.compile

    def take(self) -> list[TraceEvent]:
        """Return the events so far and start a new batch."""
        with self._events_lock:
            out, self.events = self.events, []
        return out


def trace_event(
    metadata: Any,
    payload: str | None,
    at: float,
    strings: dict[int, str],
    *,
    context: str = "",
    paths: dict[int, str] | None = None,
    checked: bool = True,
) -> TraceEvent | None:
    """One structured-trace record (``trace_structured``'s metadata dict and payload) as a ``TraceEvent``;
    ``None`` for a record that is no event: torch's interning of a filename (kept in ``strings``), or
    metadata with nothing but context keys.  ``paths`` resolves ``dynamo_start``'s interned filenames
    (default: the running process's own table, ``intern_paths``; a trace read from a file has its own).
    Raises ``BadRecord`` for a record not of its kind's types (``records.check_record``), unless ``checked``
    is False (the live recorder's own torch)."""
    if not isinstance(metadata, dict):
        return None
    keys = [k for k in metadata if k not in _CONTEXT_KEYS]
    if not keys:
        return None
    name = keys[0]
    if checked:
        check_record(metadata, name)
    if name == "str":
        text, index = metadata["str"]
        strings[index] = text
        return None
    return TraceEvent(
        name=name,
        metadata=_resolve_stack(metadata[name], paths) if name in STACK_KINDS else metadata[name],
        payload=payload,
        frame_id=metadata.get("frame_id"),
        frame_compile_id=metadata.get("frame_compile_id"),
        attempt=metadata.get("attempt"),
        time=at,
        context=context,
    )


# Events whose stacks (``stack``, ``user_stack``) name files by their index in torch's intern table
STACK_KINDS = frozenset(
    {"dynamo_start", "guard_added_fast", "symbolic_shape_specialization", "create_symbol", "create_unbacked_symbol"}
)


def _resolve_stack(metadata: Any, paths: dict[int, str] | None = None) -> Any:
    """A stack of ``STACK_KINDS``' names files by their index in torch's intern table; name them by path.

    The table is process-wide and each string is logged once, when first interned, which may be
    before this recorder was listening, so the table itself is read (unless ``paths`` is given).
    """
    if not isinstance(metadata, dict):
        return metadata
    stacks = [key for key in ("stack", "user_stack") if isinstance(metadata.get(key), list) and metadata[key]]
    if not stacks:
        return metadata
    paths = intern_paths() if paths is None else paths
    return {**metadata, **{key: resolve_stack(metadata[key], paths) for key in stacks}}


def intern_paths() -> dict[int, str]:
    """Torch's filename intern table, index -> path (inverted once per batch of stacks: it holds every file
    torch has logged a frame of)."""
    from torch._logging import structured

    return {index: text for text, index in structured.INTERN_TABLE.items()}


def resolve_stack(stack: list[Any], paths: dict[int, str] | None = None) -> list[dict]:
    """A structured-trace stack (``dynamo_start``'s, a guard's ``user_stack``) with each frame's
    interned filename index replaced by its path (``paths``: ``intern_paths()``, when resolving many)."""
    paths = intern_paths() if paths is None else paths
    return [
        {**frame, "filename": paths.get(name, name) if isinstance(name := frame.get("filename"), int) else name}
        for frame in stack
        if isinstance(frame, dict)
    ]


@contextlib.contextmanager
def capture_compiles(recorder: TraceRecorder | None = None) -> Iterator[TraceRecorder]:
    import torch._inductor.config as inductor_config

    recorder = recorder or TraceRecorder()
    trace_log = logging.getLogger(TRACE_LOGGER)
    previous_level, previous_propagate = trace_log.level, trace_log.propagate
    # Kernel-to-source provenance only adds comments to the generated code (the kernels are the
    # same), but it is what maps each kernel to ATen ops and cell lines; older torch has none.
    # It stays out of Inductor's cache keys, so the compile timed is the one the user's caches give.
    recorder.thread = threading.get_ident()
    trace_log.addHandler(recorder)
    try:
        # DEBUG records must reach our handler only, never the root logger's handlers
        # (in a notebook those would print every trace record into the cell).
        trace_log.propagate = False
        trace_log.setLevel(logging.DEBUG)
        with provenance_outside_cache_key(), inductor_config.patch(provenance_patch()):
            yield recorder
    finally:
        trace_log.removeHandler(recorder)
        trace_log.setLevel(previous_level)
        trace_log.propagate = previous_propagate
