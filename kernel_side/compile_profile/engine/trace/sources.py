"""Which files a ``TORCH_TRACE`` may make an import read: the source-roots rule.

A trace names files (the script whose lines are the run's "cell" lines, a graph break's file); the log is someone
else's, so a name in it is no reason to read a file.  A file it names is read only when it is

- a regular file (never a FIFO or a device: opened without blocking, ``log_file.open_regular``),
- a Python source (``.py``, by its name and, through any symlink, by its real name),
- at most ``TraceLimits.source_bytes``,
- inside one of the source roots once every symlink is resolved (no ``..`` and no symlink leads out).

The roots are the log's own directory and the current directory for the CLI and ``compile_profile.import_trace``,
with each ``--source-root`` (``source_roots``) added; the server's root directory for ``POST runs/import-trace``.
A recorded path outside them (a trace from another machine: ``/cluster/home/me/repo/train/step.py``) is matched by
its longest tail inside them (``repo/train/step.py`` under the root ``~``, ..., ``step.py``); a relative one is
taken under each root.  Every file read is recorded (``files_read``) and the run's views name them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .log_file import DEFAULT_LIMITS, NoTrace, TraceLimits, open_regular


def script_candidates(script: str, source_roots: Sequence[str | Path]) -> list[Path]:
    """Where to look for a file a trace names, in order: its recorded path (when absolute), then under each source
    root the longest tail of that path first (``/cluster/home/me/repo/train/step.py`` under ``~/repo``:
    ``~/repo/cluster/home/me/repo/train/step.py``, ..., ``~/repo/train/step.py``, ``~/repo/step.py``) — a trace
    from another machine names files where they were there.  ``SourceFiles`` reads only those inside the roots."""
    recorded = Path(script)
    parts = recorded.parts[1:] if recorded.is_absolute() else recorded.parts
    tails = [Path(*parts[k:]) for k in range(len(parts))]
    first = [recorded] if recorded.is_absolute() else []
    return [*first, *(Path(root) / tail for root in source_roots for tail in tails)]


class SourceFiles:
    """The source files of one import, read under the source-roots rule (the module's docstring), each once."""

    def __init__(self, roots: Sequence[str | Path], limits: TraceLimits = DEFAULT_LIMITS):
        real = [Path(os.path.realpath(Path(r).expanduser())) for r in roots]
        self.roots = list(dict.fromkeys(r for r in real if r.is_dir()))
        self.limits = limits
        self.files_read: list[str] = []  # the real paths read, in order
        self._found: dict[str, tuple[str, str] | None] = {}  # recorded name -> (text, real path read)
        self._lines: dict[str, list[str]] = {}  # recorded name -> its lines, for line()

    def inside(self, path: Path) -> bool:
        return any(path == root or path.is_relative_to(root) for root in self.roots)

    def find(self, recorded: str) -> tuple[str, str] | None:
        """The text of the file a trace names and the real path it was read from; None where no candidate is
        readable under the rule."""
        if recorded in self._found:
            return self._found[recorded]
        found = None
        if recorded and not recorded.startswith("<") and "\x00" not in recorded:
            for candidate in script_candidates(recorded, self.roots):
                text = self._read(candidate)
                if text is not None:
                    found = (text, str(Path(os.path.realpath(candidate))))
                    break
        self._found[recorded] = found
        if found is not None and found[1] not in self.files_read:
            self.files_read.append(found[1])
        return found

    def line(self, recorded: str, line: int | None) -> str:
        """Line ``line`` (from 1) of the file a trace names, stripped; "" where it is not read under the rule."""
        found = self.find(recorded) if line is not None and line > 0 else None
        if found is None or line is None:
            return ""
        lines = self._lines.setdefault(recorded, found[0].splitlines())
        return lines[line - 1].strip() if line <= len(lines) else ""

    def _read(self, candidate: Path) -> str | None:
        real = Path(os.path.realpath(candidate))
        if candidate.suffix != ".py" or real.suffix != ".py" or not self.inside(real):
            return None
        try:
            with open_regular(real) as f:
                data = f.read(self.limits.source_bytes + 1)
        except (OSError, NoTrace):
            return None
        if len(data) > self.limits.source_bytes:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None
