"""compile-profile: what torch.compile does to your code, and what it buys you."""

from __future__ import annotations

from typing import TYPE_CHECKING

try:
    from ._version import __version__
except ImportError:  # a source checkout that was never built (the version file is generated)
    __version__ = "0+unknown"
from .job import Job

# Imported here, not on first call as profile is: importing the submodule compile_profile.launch binds the
# package's name 'launch' to the module, and this import binds it to the function for good.  The module
# itself is light (it imports the run store when called).
from .launch import launch
from .profile_run import ProfileRun
from .run_views import register as _register_views

_register_views()  # a run's text, display, report, save and summary: the views', the store's and the digest's

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from .store import ImportedRuns
    from .suites.api import SuiteResult

__all__ = [
    "Job",
    "ProfileRun",
    "__version__",
    "import_trace",
    "launch",
    "profile",
    "suite",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def profile(fn, *args, **options) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``; see ``compile_profile.engine.run.stages``."""
    from .engine.run.api import profile as _profile

    return _profile(fn, *args, **options)


def suite(collection: str, **options) -> SuiteResult:
    """Profile every model of a collection, each in a process of its own; see ``compile_profile.suites.api.suite``
    (and ``docs/suite.md``).  ``collection``: a Python file whose ``models()`` returns ``{name: builder}``, or
    ``"builtin"``.  Returns a ``SuiteResult``, which shows as a card in a notebook."""
    from .suites.api import suite as _suite

    return _suite(collection, **options)


def import_trace(
    path: str | Path,
    *,
    label: str = "",
    source_roots: Sequence[str | Path] | None = None,
    db: str | Path | None = None,
) -> ImportedRuns:
    """Read the TORCH_TRACE logs at ``path`` (a directory, every log in it, or one ``.log`` / ``.log.gz``) as runs,
    store them in the run store the panel lists (``db``, default ``$COMPILE_PROFILE_DB`` or the Jupyter data
    directory's) and return them, a job's ranks in rank order: what ``compile-profile import-trace`` does
    (``docs/import-trace.md``).  A run from a trace has no timings.  A file the trace names (its script) is read only
    if it is a Python source inside the log's directory, the current directory or one of ``source_roots`` (a
    checkout of the code; a path recorded elsewhere is matched by its longest tail).  Raises
    ``compile_profile.engine.trace.log_import.NoTrace`` (a ``ValueError``) naming the path when it holds no log that
    can be read, or naming the cap a log is past (``TraceLimits``); nothing is stored then.  A log imported before is
    the run stored then, not a second one (``ImportedRuns.already``).  As a cell's value it shows the runs' cards."""
    import os

    from .engine.trace.log_import import import_trace as read_logs
    from .store import RunStore, put_imported

    roots = (
        [source_roots] if isinstance(source_roots, (str, os.PathLike)) else list(source_roots or ())
    )  # one root, or many
    runs = read_logs(path, label=label, source_roots=[os.getcwd(), *roots])  # every log read first
    with RunStore(db) as store:
        return put_imported(store, runs, label=label)


def load_ipython_extension(ipython):
    from .magic import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython):
    from .magic import unload_ipython_extension as _unload

    _unload(ipython)


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "compile-profile"}]


def _jupyter_server_extension_points():
    return [{"module": "compile_profile.server"}]
