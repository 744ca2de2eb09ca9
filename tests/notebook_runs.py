"""Running the example notebooks for the tests (tests/test_notebook*.py): each is executed once per test module that
reads it, in a fresh kernel of this venv, with its own run store; the tests read the runs it stored (found through
the run ids in its cell outputs) and the text its cells printed.  The Inductor cache is the suite's shared one, so a
second run of the suite compiles little.

The notebooks' tests are split over four modules (01 and 03-07, 02, 08, 09) of about a minute each (one process,
2026-12-05): pytest-xdist gives a module to a worker, and one module of all nine held one worker for 750 s of the
1,248 s its two workers took (a fresh clone's run beside other sessions' load, 2026-12-05).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from compile_profile.profile_run import ProfileRun
from compile_profile.render.mime import MIME_TYPE
from compile_profile.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
# Notebooks whose profiles run in the notebook's own kernel, one card per profiled cell
SINGLE_PROCESS = [
    "01_quickstart",
    "02_graph_breaks_and_recompiles",
    "03_training_step",
    "04_decomposition_and_fusion",
    "05_attention",
    "06_modes",
    "07_custom_triton_kernel",
]
# 08's profiles run in the ranks of the torchrun jobs it launches; test_notebook_08 checks them in its store; 09's in
# the processes of the suite it runs (test_notebook_09 reads the suite from its store)
NAMES = SINGLE_PROCESS + ["08_distributed", "09_how_fast"]


@dataclass
class ExecutedNotebook:
    path: Path
    nb: nbformat.NotebookNode
    db: Path  # the notebook's run store
    runs: dict[str, ProfileRun]  # the profiled cells' runs, by label
    imported: dict[
        str, ProfileRun
    ]  # the runs its cells read from a TORCH_TRACE (compile_profile.import_trace), by label
    stored: int  # runs in the notebook's store
    seconds: float

    def stdout(self, source_start: str) -> str:
        """What the one code cell whose source starts with ``source_start`` printed to stdout."""
        cells = [c for c in self.nb.cells if c.cell_type == "code" and c.source.startswith(source_start)]
        assert len(cells) == 1, f"{len(cells)} cells start with {source_start!r}"
        return "".join(o.text for o in cells[0].outputs if o.output_type == "stream" and o.name == "stdout")


def run_ids(nb: nbformat.NotebookNode) -> list[str]:
    return [
        o["data"][MIME_TYPE]["run_id"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if MIME_TYPE in o.get("data", {})
    ]


def execute(name: str, workdir: Path) -> ExecutedNotebook:
    from nbclient import NotebookClient

    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{name} is committed with outputs"
    db = workdir / f"{name}.sqlite"
    env = {
        **os.environ,
        "COMPILE_PROFILE_DB": str(db),
        "COMPILE_PROFILE_NOTEBOOK": str(path),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "kernel_side"), os.environ.get("PYTHONPATH")])),
        # The assertions are about the CPU path (C++ kernels, the CPU SDPA backend, the CPU sweep);
        # on a GPU machine the notebooks would switch to their CUDA sizes and cells.
        "CUDA_VISIBLE_DEVICES": "",
    }
    client = NotebookClient(nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(NOTEBOOKS)}})
    started = time.perf_counter()
    client.execute(env=env)  # raises CellExecutionError on the first cell that raises
    seconds = time.perf_counter() - started
    print(f"\n{name}: executed in {seconds:.1f} s")
    with RunStore(db) as store:
        runs = [store.get(run_id) for run_id in run_ids(nb)]
        stored = store.count()
    by_label = {r.label: r for r in runs if r.imported_trace is None}
    imported = {r.label: r for r in runs if r.imported_trace is not None}
    assert len(by_label) + len(imported) == len(runs), "every run shown has a label of its own"
    return ExecutedNotebook(path=path, nb=nb, db=db, runs=by_label, imported=imported, stored=stored, seconds=seconds)


def ran_without_errors(ran: ExecutedNotebook) -> None:
    """No code cell of the notebook ended in an error output."""
    errors = [o for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors


def check_runs_cleanly_and_every_profile_is_ok(ran: ExecutedNotebook) -> None:
    """A single-process notebook's clean run: no cell raised, it profiled at least one cell, its store holds the
    runs its cards show and nothing else, and each profiled cell's run is ok, on CPU, timed with a speedup inside its
    own interval."""
    ran_without_errors(ran)
    assert ran.runs, "the notebook profiles at least one cell"
    # each profiled cell stored its run, each imported trace its run (shown as its card), and nothing else
    assert ran.stored == len(ran.runs) + len(ran.imported)
    for label, run in ran.runs.items():
        assert run.status == "ok" and not run.errors, (label, run.errors)
        assert run.notebook == str(ran.path)
        assert run.device.type == "cpu"
        assert run.speedup is not None and run.speedup.low <= run.speedup.value <= run.speedup.high
        for v in run.variants:
            assert v.timing is not None and v.timing.n >= 1, (label, v.name)


def executor(tmp_path_factory) -> Iterator[Callable[[str], ExecutedNotebook]]:
    """``get(name)``: the notebook run once per test module that asks for it (the module-scoped ``executed`` fixture
    of tests/conftest.py yields from this), on demand."""
    done: dict[str, ExecutedNotebook] = {}
    workdir = tmp_path_factory.mktemp("notebooks")
    with pytest.MonkeyPatch.context() as mp:
        # The "python3" kernel must be this venv's, even if a user-wide kernelspec of that name exists.
        mp.setenv("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))

        def get(name: str) -> ExecutedNotebook:
            if name not in done:
                done[name] = execute(name, workdir)
            return done[name]

        yield get
