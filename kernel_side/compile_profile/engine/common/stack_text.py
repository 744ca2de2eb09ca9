"""Stack traces as torch formats them (``node.meta["stack_trace"]``, graph-break and provenance
artifacts): ``  File "path", line N, in fn`` lines, each followed by its code line when the source
was available."""

from __future__ import annotations

import re

Frame = tuple[str, int, str]  # (filename, line, code; "" when the trace had no code line)

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*(?:\n(?![ \t]*File ")[ \t]+([^\n]*))?')


def parse_frames(text: str) -> list[Frame]:
    """The frames of a formatted stack trace, outermost first."""
    return [(filename, int(line), code.strip()) for filename, line, code in _FRAME.findall(text or "")]


def frames_of_stack(stack: list[dict]) -> list[Frame]:
    """Frames from a structured-trace stack (``dynamo_start``): dicts of filename, line and loc."""
    return [
        (str(f.get("filename", "")), int(f.get("line") or 0), str(f.get("loc") or "").strip())
        for f in stack
        if isinstance(f, dict)
    ]


_FRAME_FUNCTION = re.compile(r'File "([^"]+)", line (\d+), in ([^\n]*)')


def frame_function(text: str, filename: str, line: int | None) -> str:
    """The function of the innermost frame of ``text`` at ``filename``:``line`` (``scale_by_max``), "" if none."""
    found = [fn.strip() for f, n, fn in _FRAME_FUNCTION.findall(text or "") if f == filename and int(n) == line]
    return found[-1] if found else ""
