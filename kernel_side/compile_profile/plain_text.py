"""How text from a run, a trace or a user is shown as plain text, in every view alike: its control and format
characters as escapes (``escaped``), on one line and clipped (``escaped_line``), a message's first line
(``first_line``).  Text from the user's code or someone else's trace never moves a terminal's cursor, retitles a
window, reorders a line or starts another.

Contract: pure functions of ``str``; nothing here imports torch or any module of the package.
"""

from __future__ import annotations

import re
import unicodedata

# Every character but newline, tab and printable ASCII may be one a terminal acts on instead of showing; those whose
# Unicode category is a control (Cc: C0 and C1, DEL; 0x9b alone starts a CSI sequence in some terminals), a format
# character (Cf: the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069, which reorder what a line
# shows, zero-width characters), a line or paragraph separator (Zl, Zp) or a lone surrogate (Cs: no terminal
# encoding can write it) are written as escapes.  The category decides, not a list, so a character a later Unicode
# adds to these classes is escaped too.
_MAYBE_CONTROL = re.compile(r"[^\t\n\x20-\x7e]")
_MAYBE_CONTROL_OR_BREAK = re.compile(r"[^\x20-\x7e]")
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escaped(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control and format character written as its escape (ESC as ``\\x1b``, a right-to-left
    override as ``\\u202e``; with ``one_line`` newline and tab too, ``\\n`` as ``\\x0a``), so text from a run or a
    trace (a label, the cell's source, a compiler message, a torch version) shows as characters in the order it is
    stored: it never moves a terminal's cursor, retitles a window, reorders a line, or, one line, starts another
    (a comment line of a script, a row of a table)."""
    pattern = _MAYBE_CONTROL_OR_BREAK if one_line else _MAYBE_CONTROL
    return pattern.sub(lambda m: _escape(m.group()), text)


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, stripped; a first line that ends in ":" introduces the next, which is
    said with it: Dynamo words a backend's exception "backend='boom' raised:" and the exception on the line after,
    and the cause had been cut off in every view of an imported trace.  A message of Dynamo's that explains its
    title on an "Explanation:" line is said with it: a --fullgraph failure had read "Unsupported: Failed to trace
    builtin operator", without naming ``print``."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    explained = next((line for line in lines[1:] if line.startswith("Explanation:")), "")
    if explained:
        return f"{lines[0].rstrip('.')}: {explained.removeprefix('Explanation:').strip()}"
    return lines[0]


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, its last "…" where more was left out."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escaped_line(text: str, limit: int) -> str:
    """``text`` as one line of plain text (``escaped`` with ``one_line``) of at most ``limit`` characters: a trace's
    script name or torch version as a label, a refused path in a message (an 800 KB path had come back whole)."""
    return clipped(escaped(text, one_line=True), limit)
