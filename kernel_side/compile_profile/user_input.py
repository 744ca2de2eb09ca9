"""What a user gives as a short text or a number of seconds, checked by one rule at every door that takes it: the
magic, the CLI, ``compile_profile.profile``/``suite``/``import_trace`` and the REST API.

How text from a run or a trace is shown on one line is here too (``escaped``, ``first_line``): the engine, the digest
and the views say it alike.

Contract: each checking function returns what is wrong ("" when nothing is), worded to name the option as the user gave it;
the caller raises its own error with it (``OptionError``, ``SuiteError``, ``ValueError``, a 400).  Nothing here
imports torch or any other module of the package but ``serialize``.
"""

from __future__ import annotations

import math
import re
import unicodedata

from .serialize import clean_text

# A model's name or a label is shown in a table, a chart's axis, the progress line, the store and the panel: one line
# of text, short enough for a table's column to clip rather than a screen to fill.
MAX_TEXT = 200
# Bidirectional controls, which reorder the text around them in a terminal or a page ("U+202E" makes "evil.py"
# read backwards): a name or a label holds none, as it holds no control character.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def text_problem(text: str, noun: str = "a name", limit: int = MAX_TEXT) -> str:
    """What makes ``text`` no one-line plain text ("" when it is one): over ``limit`` characters (``MAX_TEXT`` unless
    the caller's text is a longer line, as a suite's settings line is), a control character or a line break (it would
    split a table's row), a bidirectional control, or a lone surrogate (a str that no UTF-8 text holds: the store
    refuses it)."""
    if len(text) > limit:
        name = " (MAX_TEXT)" if limit == MAX_TEXT else ""
        return f"it is {len(text):,} characters long, at most {limit}{name} are shown"
    for char in text:
        category = unicodedata.category(char)
        if category == "Cs":
            return "it holds a lone surrogate, which no UTF-8 text can hold"
        if category == "Cc" or category in ("Zl", "Zp") or char in _BIDI:
            return f"it holds the control character U+{ord(char):04X}; {noun} is one line of plain text"
    return ""


def shown(text: str) -> str:
    """``text`` as a message quotes it: its ``repr`` (a control character as its escape), clipped to 80 characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= 80 else quoted[:79] + "…"


def label_problem(option: str, label: str) -> str:
    """What makes ``label`` (given as ``option``: ``--label``, ``label=``) no label, by the rule of a model's name
    (``text_problem``); a lone surrogate is let through, each written as U+FFFD where the label is stored (argv's
    bytes that are no UTF-8 come as surrogates, and a label of them names the run all the same)."""
    problem = text_problem(clean_text(label), "a label")
    return f"{option} {shown(label)}: {problem}" if problem else ""


def seconds_problem(option: str, value: object) -> str:
    """What makes ``value`` no number of seconds for ``option`` (``--budget``, ``--timeout``): it must be a positive,
    finite number (``inf`` was taken and stored as null, JSON having no infinity, and what held it could then not be
    read back; ``nan`` and zero or less cap nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        return f"{option} must be a positive, finite number of seconds, got {value!r}"
    return ""


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
    and the cause had been cut off in every view of an imported trace."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    return f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]
