"""What the run store raises: ``StoreError`` (the store cannot be used: which file, and what to do), ``RunNotFound``
and ``UnreadableRun`` (a stored run that cannot be read, named, with what to do), and why a stored run's JSON could
not be read, in one line."""

from __future__ import annotations

import json
import pathlib

from ..digest.format import one_line


class StoreError(Exception):
    """The run store cannot be used; the message names the file and what to do about it."""


class UnreadableRun(ValueError):
    """A stored run that cannot be read: its JSON is not a run's, or a field has the wrong type."""

    def __init__(self, run_id: str, path: pathlib.Path, reason: str):
        super().__init__(
            f"run {run_id} in {path} cannot be read ({reason}); it was left as stored: delete it "
            f"(compile-profile rm {run_id}) or import a good copy (compile-profile import FILE)"
        )
        self.run_id = run_id
        self.reason = reason


def unreadable_reason(exc: BaseException) -> str:
    """Why a stored run's JSON could not be read, in one line (a JSON error, a field's path and type)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc}"
    if isinstance(exc, RecursionError):
        return "nested too deeply to be a run"
    if isinstance(exc, TypeError):  # json.loads of a value SQLite holds that is not text (a number, NULL)
        return "its JSON is not text"
    if isinstance(exc, UnreadableRun):
        return exc.reason
    return one_line(str(exc), 300)


class RunNotFound(KeyError):
    """No run with that id."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else "run not found"
