"""A ``torch.profiler`` session started and stopped as every session of a profile is (the pass's ``record_trace``,
the calibration's ``profiler_cost``): Kineto's start and stop lines kept off the notebook, and the thread's own
profile function (a user's cProfile, ``%prun``) off meanwhile and put back after, on error too."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def profiler_session(prof: Any) -> Iterator[None]:
    """``prof`` (a ``torch.profiler.profile``) started before the block and stopped after it, on error too, as
    ``record_trace`` runs its session: Kineto's start and stop lines silenced, the thread's profile function (a
    user's cProfile) off meanwhile and put back."""
    previous_profile = sys.getprofile()
    suspend_profile_hook(previous_profile)
    try:
        with native_stderr_silenced():
            prof.start()
        try:
            yield
        finally:
            with native_stderr_silenced():
                prof.stop()
    finally:
        restore_profile_hook(previous_profile)


def suspend_profile_hook(previous: Any) -> None:
    """Take the thread's profile function off for a profiler session (``restore_profile_hook`` puts it back)."""
    if previous is None or callable(previous):
        sys.setprofile(None)
    elif callable(getattr(previous, "disable", None)):
        previous.disable()  # a cProfile.Profile: it keeps what it has counted until enable()


def restore_profile_hook(previous: Any) -> None:
    """Put back the thread's profile function as it was before a profiler session."""
    if previous is None or callable(previous):
        sys.setprofile(previous)
    elif callable(getattr(previous, "enable", None)):
        # cProfile (IPython's %prun) installs itself in C; sys.getprofile() gives its Profile object,
        # which re-installs itself, keeping what it has counted and its flags
        previous.enable()


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[None]:
    """Kineto prints a line to the process's stderr as it starts and stops ("USDT: ...
    profiler_start"), which a notebook shows under every profiled cell; these calls last
    milliseconds, so the descriptor is pointed at /dev/null just around them."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
