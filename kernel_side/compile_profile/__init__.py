"""compile-profile: what torch.compile does to your code, and what it buys you."""

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

__all__ = [
    "Job",
    "ProfileRun",
    "__version__",
    "launch",
    "profile",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def profile(fn, *args, **options) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``; see ``compile_profile.engine.profiler``."""
    from .engine.profiler import profile as _profile

    return _profile(fn, *args, **options)


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
