"""What every command of ``compile-profile`` prints with, and the one error a command raises (``CliError``: one line
on stderr, with its exit code): a line made terminal-safe, a cell clipped, a run's speedup, medians and device
in a table's words, a file written or the error that says why not."""

from __future__ import annotations

import argparse
import pathlib
import sys
from collections.abc import Mapping
from typing import Any

from ..digest.format import format_ms, format_speedup_interval
from ..render.text import terminal_safe

PROG = "compile-profile"


class CliError(Exception):
    """A failure reported as one line on stderr, with the exit code it deserves."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print the usage block and exit by itself
        raise CliError(f"{message} (see {self.prog} --help)")


def say(text: str = "", *, err: bool = False) -> None:
    """Print a line (or lines) for the terminal, its control characters escaped (``terminal_safe``)."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# A summary here is JSON (``digest.summary.RunSummary``'s): the store's cached one, or a notebook output's, which an
# older release may have written without the keys added since; {} where the cell's output had none.
def speedup_text(speedup: Mapping[str, Any] | None, outcome: Mapping[str, Any] | None = None) -> str:
    """The speedup with its interval and variant, ``(not meaningful)`` beneath a verdict that overrides it."""
    if not speedup:
        return "—"
    interval = format_speedup_interval(speedup["value"], speedup.get("low"), speedup.get("high"))
    meaningless = " (not meaningful)" if outcome is not None and not outcome.get("speedup_meaningful", True) else ""
    return f"{interval} {speedup.get('variant', '')}".rstrip() + meaningless


def medians_text(summary: Mapping[str, Any]) -> str:
    return ", ".join(f"{v['name']} {format_ms(v.get('median_ms'))}" for v in summary.get("variants", []))


def device_text(summary: Mapping[str, Any]) -> str:
    device = summary.get("device") or {}
    return device.get("name") or device.get("type") or "—"


def write_file(path: str, text: str) -> None:
    try:
        pathlib.Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
