"""What a user gives as a short text or a number of seconds, checked by one rule at every door that takes it: the
magic, the CLI, ``compile_profile.profile``/``suite``/``import_trace`` and the REST API.

How text from a run or a trace is shown is ``plain_text``'s job.

Contract: each checking function returns what is wrong ("" when nothing is), worded to name the option as the user gave it;
the caller raises its own error with it (``OptionError``, ``SuiteError``, ``ValueError``, a 400).  Nothing here
imports torch or any other module of the package but ``serialize`` and ``plain_text``.
"""

from __future__ import annotations

import math
import unicodedata

from .plain_text import clipped
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
    """``text`` as a message quotes it: its ``repr`` (a control character as its escape), clipped to 80 characters
    (a 5,000-character run id had come back whole in a 400's message)."""
    return clipped(repr(text), 80)


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
