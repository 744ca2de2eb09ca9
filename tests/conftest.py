"""Shared test setup: one Inductor cache for the whole run, a private run store, an IPython shell."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Cold C++ compiles take 5-20 s on a 2-core machine; a cache shared by every test
# (and kept between runs) makes the second compile of a graph a cache hit.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))


@pytest.fixture(autouse=True)
def private_run_store(tmp_path, monkeypatch):
    """Never write to the user's real run store from a test."""
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(tmp_path / "runs.sqlite"))
    return tmp_path / "runs.sqlite"


@pytest.fixture(scope="session")
def ip():
    """A real IPython shell with the extension loaded."""
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    shell.run_line_magic("load_ext", "compile_profile")
    yield shell
    # Dynamo deletes each global it installed in the namespace (``__builtins_dict___3``) when the code that
    # reads it dies.  At exit IPython clears the namespace first, so every deletion printed "Exception
    # ignored ... KeyError: '__builtins_dict___3'" after the suite (the tests' own torch.compile calls in the
    # shell, as in any notebook's kernel at shutdown).  Their hooks run now, while the names are there.
    from compile_profile.engine.dynamo_state import drop_installed_globals

    drop_installed_globals(shell.user_ns)
