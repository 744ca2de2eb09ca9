"""What a user gives as a short text or a number of seconds, checked by one rule at every door that takes it: the
magic, the CLI, ``compile_profile.profile``/``suite``/``import_trace`` and the REST API.

Contract: each function returns what is wrong ("" when nothing is), worded to name the option as the user gave it;
the caller raises its own error with it (``OptionError``, ``SuiteError``, ``ValueError``, a 400).  Nothing here
imports torch or any other module of the package but ``serialize``.
"""

from __future__ import annotations

import math


def seconds_problem(option: str, value: object) -> str:
    """What makes ``value`` no number of seconds for ``option`` (``--budget``, ``--timeout``): it must be a positive,
    finite number (``inf`` was taken and stored as null, JSON having no infinity, and what held it could then not be
    read back; ``nan`` and zero or less cap nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        return f"{option} must be a positive, finite number of seconds, got {value!r}"
    return ""
