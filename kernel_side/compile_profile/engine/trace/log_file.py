"""Read a structured trace from a file (``TORCH_TRACE``'s per-rank logs, what tlparse reads) as ``TraceEvent``s,
streamed and bounded: the log is someone else's file.

A record is one glog line, ``V1202 12:21:23.116000 15730 torch/_dynamo/utils.py:2350] {json metadata}``,
followed by its payload, if it has one, as lines that each start with a tab.  Each record becomes the same
``TraceEvent`` the in-process recorder makes (``capture.trace_event``), so the trace model's handlers
read a file as they read a live capture.  A file's interned filenames (``{"str": [path, index]}``) resolve
its own stacks.  A file may be gzipped (``.gz``).  A rank's file names its rank in each record.

Never fatal per line or record: a line that is no record (a truncated tail, another program's output) or is
longer than the line cap is skipped and counted; a record whose metadata is not of its kind's types
(``records``), or whose payload is not the one torch logged (its MD5, ``has_payload``, differs: a log cut
in the middle of a payload; tlparse's ``fail_payload_md5``), is skipped and kept with its line number and why.

Bounded (``TraceLimits``, each cap named in its refusal, ``docs/import-trace.md``): the file is read in chunks,
holding one line at a time, never the whole text; only a regular file is opened (a FIFO or a device named as a
log is refused without blocking); the decompressed bytes, the records and the time spent are capped.  A cap
exceeded refuses the log (``TraceLimitExceeded``), so an import stores nothing rather than part of a log.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from ...serialize import parse_json
from .capture import TraceEvent, trace_event
from .records import BadRecord

# glog's prefix: level, month and day, time, thread id, file:line, "] "
_HEADER = re.compile(r"^[VIWEF](\d{4}) (\d\d):(\d\d):(\d\d(?:\.\d+)?) +\d+ [^\]]*\] (.*)$")
_NEWLINES = re.compile(rb"\n*")  # a run of blank lines, skipped at C speed (0.6 ms a MiB here; a gzip bomb's are)
_MD5 = re.compile(r"[0-9a-f]{32}")
_CHUNK = 1 << 20
BAD_RECORDS_KEPT = 20  # the bad records kept with their line and why; the others are counted


class NoTrace(ValueError):
    """A path with no TORCH_TRACE log in it, or one that cannot be read."""


class TraceLimitExceeded(NoTrace):
    """A log (or an import) past one of ``TraceLimits``' caps; the message names the cap."""


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


@dataclass(frozen=True)
class TraceLimits:
    """The caps on what one import reads (``docs/import-trace.md``).  The defaults take the largest logs seen (a
    16-layer training step's 44.6 MB) twenty times over: torch's logs hold a record every 2.7 KB (the fixtures:
    631 records in 1.7 MB), so a 1 GiB log of them has 400,000.  Memory follows what is read: the text of the
    payloads, and about 0.5 KB a record (200,000 records of a few bytes took 104 MB); a log of nothing but blank
    lines or skipped lines holds one line at a time."""

    log_bytes: int = 1 << 30  # decompressed bytes of one log (a gzip of newlines 1000x smaller would be 1 GiB)
    line_bytes: int = 64 << 20  # one line (a payload's line; Inductor's output code is many short ones)
    records: int = 1_000_000  # records of one log
    logs: int = 4096  # logs in the directory imported (one per process)
    walk_entries: int = 100_000  # files and directories looked at to find the logs
    source_bytes: int = 4 << 20  # a source file the trace names (the script), read for its lines
    # one artifact's text kept (a graph, the output code): one past it is kept up to its last line within the cap
    artifact_bytes: int = 32 << 20
    seconds: float | None = None  # the whole import (the server sets one; the CLI and the API wait)

    def describe(self, cap: str) -> str:
        """``1 GiB (TraceLimits.log_bytes, the cap on a log's decompressed size)``."""
        what = {
            "log_bytes": "a log's decompressed size",
            "line_bytes": "a line's length",
            "records": "a log's records",
            "logs": "the logs of one import",
            "walk_entries": "the files and directories looked at for logs",
            "source_bytes": "a source file's size",
            "artifact_bytes": "an artifact's text kept",
            "seconds": "an import's time",
        }[cap]
        value = getattr(self, cap)
        shown = _size(value) if cap.endswith("bytes") else f"{value:,} s" if cap == "seconds" else f"{value:,}"
        return f"{shown} (TraceLimits.{cap}, the cap on {what})"


DEFAULT_LIMITS = TraceLimits()


@dataclass
class TraceFile:
    """The events of one trace file, and what of it could not be read."""

    path: Path
    events: list[TraceEvent] = field(default_factory=list)
    strings: dict[int, str] = field(default_factory=dict)  # the file's interned filenames
    skipped_lines: int = 0  # lines that were no record, or longer than the line cap
    rank: int | None = None  # the rank named in its records (``trace_structured`` adds it under torch.distributed)
    records: int = 0  # the records read, the filename interning ones included
    # records skipped as not of their kind's types or with a payload cut short: (line, kind, why), the first
    # BAD_RECORDS_KEPT of them; bad_record_count counts them all
    bad_records: list[tuple[int, str, str]] = field(default_factory=list)
    bad_record_count: int = 0

    def skip_record(self, line: int, kind: str, why: str) -> None:
        self.bad_record_count += 1
        if len(self.bad_records) < BAD_RECORDS_KEPT:
            self.bad_records.append((line, clip_kind(kind), why))


KIND_CHARS = 100  # a kind is named in the run up to this many characters (a log's own text, of any length)


def clip_kind(kind: str) -> str:
    return kind if len(kind) <= KIND_CHARS else kind[: KIND_CHARS - 1] + "…"


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file; ``NoTrace`` if it is a FIFO, a device, a directory or
    a socket.  Opened without blocking (``O_NONBLOCK``), so a FIFO with no writer is refused, not waited on, and
    checked after opening (``fstat``), so a file swapped for a FIFO in between is refused too."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NoTrace(f"{path} is not a regular file ({_file_kind(mode)})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_kind(mode: int) -> str:
    kinds = [
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a file")


class _Reader(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _Lines:
    """The non-blank lines of a file (gunzipped when its name ends in ``.gz``), numbered from 1, read a chunk at a
    time: ``None`` in place of a line longer than ``limits.line_bytes`` (never held whole).  ``cut_short`` is set
    when a gzip ends mid-stream."""

    def __init__(self, stream: _Reader, path: Path, limits: TraceLimits, deadline: float | None):
        self.stream, self.path, self.limits, self.deadline = stream, path, limits, deadline
        self.gzipped = path.suffix == ".gz"
        self.cut_short = False

    def _gunzip(self) -> Iterator[bytes]:
        """The decompressed bytes of a gzip, a chunk at a time (never more than ``_CHUNK`` from one chunk of input:
        a bomb is decompressed only as far as it is read); members one after another, as ``gzip`` reads them.  What
        was decompressed before a gzip cut short, or before bytes that are no gzip, is kept (``cut_short``)."""
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        started = False
        while True:
            data = self.stream.read(_CHUNK)
            if not data:
                self.cut_short = started and not member.eof
                return
            while True:
                try:
                    out = member.decompress(data, _CHUNK)
                except zlib.error:  # not a gzip, or garbled; trailing bytes after the last member
                    self.cut_short = True
                    return
                started = True
                if out:
                    yield out
                data = member.unconsumed_tail
                if member.eof:
                    data = member.unused_data + data
                    member, started = zlib.decompressobj(16 + zlib.MAX_WBITS), False
                    if not data:
                        break
                    continue
                if not data and len(out) < _CHUNK:
                    break

    def _raw(self) -> Iterator[bytes]:
        while chunk := self.stream.read(_CHUNK):
            yield chunk

    def _chunks(self) -> Iterator[bytes]:
        total = 0
        for chunk in self._gunzip() if self.gzipped else self._raw():
            total += len(chunk)
            if total > self.limits.log_bytes:
                raise TraceLimitExceeded(
                    f"{self.path} is larger than {self.limits.describe('log_bytes')} once decompressed"
                )
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise TraceLimitExceeded(f"reading {self.path} took longer than {self.limits.describe('seconds')}")
            yield chunk

    def __iter__(self) -> Iterator[tuple[int, bytes | None]]:
        cap = self.limits.line_bytes
        number = 1  # the number of the line that starts where the pending bytes start
        pending: list[bytes] = []
        pending_len = 0
        skipping = False  # inside a line over the cap, until its newline
        for chunk in self._chunks():
            first = chunk.find(b"\n")
            if first < 0:
                if not skipping:
                    pending.append(chunk)
                    pending_len += len(chunk)
                    if pending_len > cap:
                        yield number, None
                        skipping, pending, pending_len = True, [], 0
                continue
            if not skipping and (pending or first):  # the pending line ends here
                line = b"".join([*pending, chunk[:first]])
                yield number, (line if len(line) <= cap else None)
            skipping, pending, pending_len = False, [], 0
            number += 1
            last = chunk.rfind(b"\n")
            at = first + 1  # the start of line ``number``
            while True:
                blank = _NEWLINES.match(chunk, at, last + 1)  # always matches, if only nothing
                start = blank.end() if blank else at
                number += start - at
                if start > last:
                    break
                end = chunk.find(b"\n", start, last + 1)
                yield number, (chunk[start:end] if end - start <= cap else None)
                number += 1
                at = end + 1
            tail = chunk[last + 1 :]
            if len(tail) > cap:
                yield number, None
                skipping = True
            elif tail:
                pending, pending_len = [tail], len(tail)
        if pending and not skipping:
            yield number, b"".join(pending)


def read_trace_file(
    path: str | Path, limits: TraceLimits = DEFAULT_LIMITS, *, deadline: float | None = None
) -> TraceFile:
    """The events of the log at ``path``; ``deadline`` (``time.monotonic()``) bounds the time spent.  Raises
    ``NoTrace`` for a path that is no regular file, ``TraceLimitExceeded`` past a cap, ``OSError`` when it cannot
    be read."""
    path = Path(path)
    out = TraceFile(path=path)
    with open_regular(path) as raw:
        lines = _Lines(raw, path, limits, deadline)
        _read_records(lines, out, limits)
        if lines.cut_short:
            out.skipped_lines += 1  # its unreadable tail
    return out


def _read_records(lines: _Lines, out: TraceFile, limits: TraceLimits) -> None:
    header: tuple[int, float, dict] | None = None  # the open record: its line, its time, its metadata
    # Its payload's bytes, its lines joined by newlines, held up to the first line past ``artifact_bytes`` (what
    # is kept of an artifact is cut there later, and said to be), with the MD5 of all of them.  Held as a list of
    # each line's str, a 200 KB gzip of 200 MiB of 4-byte payload lines took the import to 4.0 GB, and a 1 MB one
    # past 8 GB; held as bytes up to the cap, they take its 32 MiB.
    payload = bytearray()
    payload_md5 = hashlib.md5()
    payload_lines = 0
    damaged = False  # a line of its payload was over the line cap

    def flush() -> None:
        if header is None:
            return
        line, at, metadata = header
        text = payload.decode("utf-8", "replace") if payload_lines else None
        try:
            digest = metadata.get("has_payload")
            if isinstance(digest, str) and _MD5.fullmatch(digest):
                written = payload_md5.hexdigest()
                if damaged or written != digest:
                    name = next((k for k in metadata if k != "has_payload"), "?")
                    raise BadRecord(
                        name, "its payload is cut short or changed (its MD5 is not the one logged: fail_payload_md5)"
                    )
            event = trace_event(metadata, text, at, out.strings, paths=out.strings)
        except BadRecord as bad:
            kind = bad.kind
            name = metadata["artifact"].get("name") if isinstance(metadata.get("artifact"), dict) else None
            if kind == "artifact" and isinstance(name, str) and name:
                kind = name
            out.skip_record(line, kind, bad.why)
            return
        if out.rank is None and isinstance(metadata.get("rank"), int):
            out.rank = metadata["rank"]
        if event is not None:
            out.events.append(event)

    for number, raw in lines:
        if raw is None:  # a line over the cap: counted, and the record it belongs to is damaged
            out.skipped_lines += 1
            damaged = header is not None
            continue
        if raw[:1] == b"\t" and header is not None:
            body = raw[1:]
            if payload_lines:
                payload_md5.update(b"\n")
            payload_md5.update(body)
            if len(payload) <= limits.artifact_bytes:
                payload.extend(b"\n" + body if payload_lines else body)
            payload_lines += 1
            continue
        flush()
        header, damaged = None, False
        payload, payload_md5, payload_lines = bytearray(), hashlib.md5(), 0
        text = raw.decode("utf-8", "replace")
        match = _HEADER.match(text)
        if match is None:
            out.skipped_lines += bool(text.strip())
            continue
        try:  # NaN and Infinity are read here, so that a record holding one is named (``records``' checks); JSON
            # nested past the recursion limit is a line that is no record, and a lone surrogate is U+FFFD
            metadata = parse_json(match.group(5))
        except ValueError:
            out.skipped_lines += 1
            continue
        if not isinstance(metadata, dict):
            out.skipped_lines += 1
            continue
        out.records += 1
        if out.records > limits.records:
            raise TraceLimitExceeded(f"{lines.path} holds more records than {limits.describe('records')}")
        hours, minutes, seconds = int(match.group(2)), int(match.group(3)), float(match.group(4))
        header = (number, hours * 3600 + minutes * 60 + seconds, metadata)
    flush()
