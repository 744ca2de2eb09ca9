"""Shared test setup: one Inductor cache for the whole run, a private run store, an IPython shell, Hypothesis's
sizes, and the tiers: a test that compiles says so.

Sizes.  The property tests (the fuzzers of the magic's options, of run files, of trace files) draw as many
examples as the Hypothesis profile says: ``ci`` (100 a test) on every run, ``large`` (2,000 a test) by hand, with
``HYPOTHESIS_PROFILE=large``.  A test sets no ``max_examples`` of its own, so the profile decides.

Tiers.  A test that makes Dynamo compile a frame in this process (a profile, ``torch.compile``, the magic) is
marked ``compiles`` (``@pytest.mark.compiles``, or the module's ``pytestmark``); a test that starts processes
that compile (a notebook, a torchrun job, the CLI's ``run``) is marked ``slow``.  ``make test-fast`` runs
every other test: the digest, the views, the store, the server, the contract, the trace parsers and the
frozen runs, which compile nothing.  The mark is not taken on trust: ``pytest_runtest_setup`` and
``pytest_runtest_call`` count the frames Dynamo starts compiling (its compile-start callbacks, which every
backend goes through) and fail an unmarked test that compiled, naming the mark, so the fast tier can never
silently hold a compile, and a full run finds a missing mark the first time it runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Helper modules whose assertions are tests' own checks, moved out of the test modules: pytest rewrites their asserts
# too, so a failure shows the values compared (registered before any test module imports them)
pytest.register_assert_rewrite("notebook_runs", "server_requests")

# Cold C++ compiles take 5-20 s on a 2-core machine; a cache shared by every test
# (and kept between runs) makes the second compile of a graph a cache hit.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor"))


def _hypothesis_profiles() -> None:
    try:
        from hypothesis import settings
    except ImportError:  # make test-compat's venvs run no property test
        return
    # deadline=None: an example's time here is the shared machine's, not the code's
    settings.register_profile("ci", max_examples=100, deadline=None)
    settings.register_profile("large", max_examples=2000, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_hypothesis_profiles()  # before the test modules are imported: their @settings inherit the profile's sizes


@pytest.fixture(autouse=True)
def private_run_store(tmp_path, monkeypatch):
    """Never write to the user's real run store from a test."""
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(tmp_path / "runs.sqlite"))
    return tmp_path / "runs.sqlite"


@pytest.fixture
def store_path(private_run_store):
    """The test's run store, as a test of the server extension reads it (the one ``COMPILE_PROFILE_DB`` names)."""
    return private_run_store


@pytest.fixture
def jp_server_config():
    """pytest_jupyter's server (a module's ``pytest_plugins = ["pytest_jupyter.jupyter_server"]``) with this
    extension enabled; its requests: tests/server_requests.py."""
    return {"ServerApp": {"jpserver_extensions": {"compile_profile": True}}}


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """``executed(name)``: an example notebook run once per test module that asks for it (tests/notebook_runs.py)."""
    from notebook_runs import executor

    yield from executor(tmp_path_factory)


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
    from compile_profile.engine.compiler.dynamo_state import drop_installed_globals

    drop_installed_globals(shell.user_ns)


# -- tiers: a test that compiles is marked so (see the module's docstring) -------------------------------------


class _DynamoCompiles:
    """How many frames Dynamo has started compiling in this process: counted where Dynamo runs its compile-start
    callbacks (``CompilationCallbackHandler.run_start_callbacks``), patched on the class because
    ``torch._dynamo.reset()`` clears the registered callbacks themselves.  ``count`` stays None where this torch
    has no such handler (the check is then off)."""

    def __init__(self) -> None:
        self.count: int | None = None

    def install(self) -> None:
        try:
            from torch._dynamo.callback import CompilationCallbackHandler
        except ImportError:  # a torch without compile callbacks: nothing to count with
            return
        run_start = getattr(CompilationCallbackHandler, "run_start_callbacks", None)
        if run_start is None:
            return
        counter = self

        def counted(handler, *args, **kwargs):
            counter.count = (counter.count or 0) + 1
            return run_start(handler, *args, **kwargs)

        CompilationCallbackHandler.run_start_callbacks = counted  # pyright: ignore[reportAttributeAccessIssue]
        self.count = 0


_COMPILES = _DynamoCompiles()


def pytest_configure(config):
    # Imported here, once, so that the first compile of the run is counted too (3 s of the fast tier's time).
    _COMPILES.install()


def _module_cost(items) -> int:
    """0 for a module with a test that starts compiling processes (`slow`), 1 for one that compiles here, 2 else."""
    marks = {m for item in items for m in ("slow", "compiles") if item.get_closest_marker(m)}
    return 0 if "slow" in marks else 1 if "compiles" in marks else 2


def pytest_collection_modifyitems(config, items):
    # The longest test files first, each file's tests in their order: `make test-py` gives the two xdist workers a
    # file at a time in this order (--dist loadfile --no-loadscope-reorder; xdist's own order, most tests first,
    # put the one-test notebook and suite files last, and one worker ran them alone at the end: a cold cache's run
    # took 401 s for 730 s of tests, 36 s more than half).  Many quick files then even the two workers out.
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    ordered = sorted(modules.values(), key=_module_cost)  # sorted() is stable: files keep their order within a cost
    items[:] = [item for module in ordered for item in module]


def _compiled_unmarked(item, phase: str):
    before = _COMPILES.count
    result = yield
    if before is not None and _COMPILES.count != before and item.get_closest_marker("compiles") is None:
        compiled = (_COMPILES.count or 0) - before
        pytest.fail(
            f"{item.nodeid} compiled {compiled} frame{'s' if compiled != 1 else ''} in its {phase} but is not marked "
            "`compiles`: add @pytest.mark.compiles (or the module's pytestmark), so make test-fast leaves it out",
            pytrace=False,
        )
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _compiled_unmarked(item, "set-up (a fixture)"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _compiled_unmarked(item, "call"))


@pytest.fixture
def cli(tmp_path, capsys):
    """The ``compile-profile`` CLI on a store of the test's own: ``cli(*argv)`` returns the exit status, stdout and
    stderr; ``cli.db`` is the store's path."""
    from compile_profile.cli import main

    db = tmp_path / "runs.sqlite"

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["--db", str(db), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    run.db = db  # type: ignore[attr-defined]
    return run
