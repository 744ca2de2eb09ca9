"""Read a structured trace from a file (``TORCH_TRACE``'s per-rank logs, what tlparse reads) as ``TraceEvent``s.

A record is one glog line, ``V1202 12:21:23.116000 15730 torch/_dynamo/utils.py:2350] {json metadata}``,
followed by its payload, if it has one, as lines that each start with a tab.  Each record becomes the same
``TraceEvent`` the in-process recorder makes (``trace_capture.trace_event``), so the trace model's handlers
read a file as they read a live capture.  A file's interned filenames (``{"str": [path, index]}``) resolve
its own stacks.  A line that is no record (a truncated tail, another program's output) is skipped and
counted, never fatal.  A file may be gzipped (``.gz``).  A rank's file names its rank in each record.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from .trace_capture import TraceEvent, trace_event

# glog's prefix: level, month and day, time, thread id, file:line, "] "
_HEADER = re.compile(r"^[VIWEF](\d{4}) (\d\d):(\d\d):(\d\d(?:\.\d+)?) +\d+ [^\]]*\] (.*)$")


@dataclass
class TraceFile:
    """The events of one trace file, and what of it could not be read."""

    path: Path
    events: list[TraceEvent] = field(default_factory=list)
    strings: dict[int, str] = field(default_factory=dict)  # the file's interned filenames
    skipped_lines: int = 0
    rank: int | None = None  # the rank named in its records (``trace_structured`` adds it under torch.distributed)
    records: int = 0  # the records read, the filename interning ones included


def read_trace_file(path: str | Path) -> TraceFile:
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    out = TraceFile(path=path)
    lines: list[str] = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        try:
            lines.extend(f)
        except (EOFError, zlib.error, gzip.BadGzipFile):  # a gzip cut short (a job killed while copying it)
            out.skipped_lines += 1  # its unreadable tail
    text = "".join(lines)
    header: tuple[float, dict] | None = None
    payload: list[str] = []

    def flush() -> None:
        if header is None:
            return
        at, metadata = header
        out.records += 1
        if out.rank is None and isinstance(metadata.get("rank"), int):
            out.rank = metadata["rank"]
        event = trace_event(metadata, "\n".join(payload) if payload else None, at, out.strings, paths=out.strings)
        if event is not None:
            out.events.append(event)

    for line in text.splitlines():
        if line.startswith("\t") and header is not None:
            payload.append(line[1:])
            continue
        flush()
        header, payload = None, []
        match = _HEADER.match(line)
        if match is None:
            out.skipped_lines += bool(line.strip())
            continue
        try:
            metadata = json.loads(match.group(5))
        except ValueError:
            out.skipped_lines += 1
            continue
        if not isinstance(metadata, dict):
            out.skipped_lines += 1
            continue
        hours, minutes, seconds = int(match.group(2)), int(match.group(3)), float(match.group(4))
        header = (hours * 3600 + minutes * 60 + seconds, metadata)
    flush()
    return out
