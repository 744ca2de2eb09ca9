"""The example notebooks run top to bottom on CPU, and their profiles show what each one teaches.

Each notebook is executed once, in a fresh kernel of this venv, with its own run store; the tests
then read the runs it stored (found through the run ids in its cell outputs) and the text its cells
printed.  The Inductor cache is the suite's shared one, so a second run of the suite compiles little.
08 profiles nothing in its own kernel: it launches torchrun jobs whose ranks save their runs into the
notebook's store, and its test reads the jobs from there.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from compile_profile import Job
from compile_profile.digest.diagnosis import cause_text, diagnosis, diagnosis_heading
from compile_profile.digest.recommendation import same_kernels
from compile_profile.profile_run import ProfileRun
from compile_profile.render.mime import MIME_TYPE
from compile_profile.store import RunStore

pytestmark = pytest.mark.slow

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
# 08's profiles run in the ranks of the torchrun jobs it launches; test_08_* checks them in its store; 09's in the
# processes of the suite it runs (test_09_* reads the suite from its store)
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


def _run_ids(nb: nbformat.NotebookNode) -> list[str]:
    return [
        o["data"][MIME_TYPE]["run_id"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if MIME_TYPE in o.get("data", {})
    ]


def _execute(name: str, workdir: Path) -> ExecutedNotebook:
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
        runs = [store.get(run_id) for run_id in _run_ids(nb)]
        stored = store.count()
    by_label = {r.label: r for r in runs if r.imported_trace is None}
    imported = {r.label: r for r in runs if r.imported_trace is not None}
    assert len(by_label) + len(imported) == len(runs), "every run shown has a label of its own"
    return ExecutedNotebook(path=path, nb=nb, db=db, runs=by_label, imported=imported, stored=stored, seconds=seconds)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """``executed(name)``: the notebook run once per test session, on demand."""
    done: dict[str, ExecutedNotebook] = {}
    workdir = tmp_path_factory.mktemp("notebooks")
    with pytest.MonkeyPatch.context() as mp:
        # The "python3" kernel must be this venv's, even if a user-wide kernelspec of that name exists.
        mp.setenv("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))

        def get(name: str) -> ExecutedNotebook:
            if name not in done:
                done[name] = _execute(name, workdir)
            return done[name]

        yield get


def test_notebooks_are_the_seven_of_the_issue_the_distributed_one_and_the_suite():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", SINGLE_PROCESS)
def test_notebook_runs_cleanly_and_every_profile_is_ok(executed, name):
    ran = executed(name)
    errors = [o for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
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


def test_01_quickstart_reads_the_card_and_hits_the_cache(executed):
    ran = executed("01_quickstart")
    first, again = ran.runs["quickstart: MLP"], ran.runs["quickstart: MLP, again"]
    assert first.dynamo_graph_count == 1 and not first.graph_breaks
    assert {g.kind for g in first.graphs} >= {"dynamo", "aot_inference"}
    languages = {k.language for k in first.kernels}
    assert {"cpp", "extern"} <= languages
    assert first.correctness.ok is True
    # the same cell again: Inductor's FX graph cache serves it
    assert again.cache.fx_graph_hits >= 1 and again.cache.fx_graph_misses == 0
    assert [k.name for k in again.kernels] == [k.name for k in first.kernels]
    printed = ran.stdout('eager = run.variant("eager")')
    assert f"speedup {first.speedup.value:.2f}x" in printed
    assert "warm cache" in ran.stdout("first, second =")


def test_02_graph_breaks_are_found_at_their_lines_and_fixed(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    broken, fixed = ran.runs["graph breaks: before"], ran.runs["graph breaks: after"]
    by_line = {b.line: b for b in broken.graph_breaks}
    assert sorted(by_line) == [3, 4, 6]
    assert by_line[3].code_line.startswith("print(") and "print" in by_line[3].reason
    assert by_line[4].code_line == "if h.sum() > 0:" and "data-dependent" in by_line[4].reason.lower()
    assert ".item()" in by_line[6].code_line and "item" in by_line[6].reason
    assert broken.dynamo_graph_count == len(broken.graph_breaks) + 1
    assert not fixed.graph_breaks and fixed.dynamo_graph_count == 1
    assert len(fixed.kernels) < len(broken.kernels)
    assert fixed.correctness.ok is True and broken.correctness.ok is True
    printed = ran.stdout("for b in broken.graph_breaks")
    assert "cell line 3: print(" in printed and "cell line 6: scale = h.abs().max().item()" in printed
    # what to change first: the breaks are the user's own, and the ranked list is the digest's
    diagnosed = ran.stdout("from compile_profile.digest.diagnosis import")
    assert diagnosed.startswith("3 graph breaks - line 3: yours, line 4: yours, line 6: yours\n")
    assert diagnosed.splitlines()[1] == diagnosis_heading(broken)
    assert diagnosed.splitlines()[2:] == [f" - {cause_text(c)}" for c in diagnosis(broken)]
    assert any(c.kind == "compile" for c in diagnosis(broken)), "four graphs' compile time, paid once"


def test_02_a_shape_change_recompiles_unless_shapes_are_dynamic(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    static, dynamic = ran.runs["ragged batches: static"], ran.runs["ragged batches: dynamic"]
    for run in (static, dynamic):
        assert [b.line for b in run.graph_breaks] == [2], "next() on the cycle stays in Python"
    assert static.variant("inductor/default/static").dynamic is False
    mismatch = [
        re.search(r"size mismatch at index 0\. expected (\d+), actual (\d+)", r.reason) for r in static.recompiles
    ]
    assert any(mismatch), [r.reason for r in static.recompiles]
    expected, actual = (int(n) for n in next(m for m in mismatch if m).groups())
    batch_inputs = [re.findall(r'"f32\[(\d+), ', g.code) for g in static.graphs if g.kind == "dynamo"]
    assert len(batch_inputs) == 2, "one static graph per batch size"
    assert str(expected) in batch_inputs[0] and str(actual) in batch_inputs[1]
    printed = ran.stdout("from compile_profile.digest.guards import recompile_text")
    assert f"f32[{expected}, " in printed and f"f32[{actual}, " in printed
    # the recompile in the user's words: Dynamo's stack slot named back to xb, what changed, the fix
    assert f"recompile: xb, what next(batches) returned at cell line 2, changed dim 0: {expected} → {actual}" in printed
    assert "fix: compile with dynamic=True" in printed
    assert not dynamic.recompiles
    aten = next(g for g in dynamic.graphs if g.kind == "aot_inference")
    assert "Sym(s" in aten.code
    assert "Sym(s" in ran.stdout('print(f"recompiles: static')


def test_02_over_an_epochs_batches_the_short_one_recompiles_and_each_is_compared_on_itself(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    run = ran.runs["ragged batches: over an epoch"]
    sequence = run.inputs
    assert sequence is not None and sequence.count == 4 and len(sequence.signatures) == 2
    assert [r.input for r in run.recompiles] == [3], "the fourth batch, the short one, recompiles under --static"
    assert run.correctness is not None and run.correctness.ok is True
    printed = ran.stdout("from compile_profile.digest.inputs import inputs_summary")
    assert printed.startswith("4 inputs, 2 signatures: ")
    assert "batch 4 recompiled: xb (cell line 2) changed dim 0:" in printed
    assert "compiled matches eager on each of the 4 inputs, each compared on the same input" in printed


def test_02_a_scripts_torch_trace_imports_as_a_run_with_its_breaks_recompile_and_timeline(executed):
    ran = executed("02_graph_breaks_and_recompiles")
    assert list(ran.imported) == ["TORCH_TRACE of train.py"]
    run = ran.imported["TORCH_TRACE of train.py"]
    trace = run.imported_trace
    assert trace is not None and trace.rank is None and "trace" in Path(trace.path).parts
    assert run.status == "ok" and not run.errors and run.notebook == ""
    assert run.speedup is None and [v.timing for v in run.variants] == [None], "a trace times nothing"
    script = Path(trace.path).parents[1] / "train.py"
    assert run.cell_source == script.read_text(), "the script stands for the cell"
    branch = next(i for i, line in enumerate(run.cell_source.splitlines(), 1) if line.startswith("    if loss > 1:"))
    assert {b.line for b in run.graph_breaks} == {branch} and "data-dependent" in run.graph_breaks[0].reason
    assert {"dynamo", "aot_forward", "aot_backward"} <= {g.kind for g in run.graphs}
    (recompile,) = run.recompiles
    assert "size mismatch at index 0. expected 16, actual 7" in recompile.reason
    assert any(k.language == "cpp" for k in run.kernels)
    printed = ran.stdout("from compile_profile.digest.timeline import compile_timeline")
    assert f"train.py line {branch}: if loss > 1:  # a branch on a tensor's value: a graph break (2 breaks, yours)" in (
        printed
    ), "the first compile's break and the recompile's, counted once"
    defined = next(i for i, line in enumerate(run.cell_source.splitlines(), 1) if line.startswith("def loss_of("))
    assert f"recompile: xb (cell line {defined}) changed dim 0: 16 → 7" in printed
    rows = [line for line in printed.splitlines() if line.startswith("  [")]
    assert len(rows) >= 2 and rows[-1].split("]")[1].startswith(" recompile: "), printed
    assert "4 steps, last loss" in ran.stdout("import os\nimport subprocess")


def test_03_training_step_has_forward_backward_and_optimizer_graphs(executed):
    ran = executed("03_training_step")
    step = ran.runs["training step"]
    kinds = {g.id: g.kind for g in step.graphs}
    assert {"dynamo", "aot_forward", "aot_backward", "aot_inference"} <= set(kinds.values())
    forward = next(g for g in step.graphs if g.kind == "aot_forward")
    backward = next(g for g in step.graphs if g.kind == "aot_backward")
    assert forward.lines == [3] and backward.lines == [3], "forward and loss come from cell line 3"
    assert "aten.mm" in backward.op_counts, "weight gradients are matrix products"
    by_kind = {kind: [k for k in step.kernels if kinds.get(k.graph_id) == kind] for kind in set(kinds.values())}
    assert any(k.language == "cpp" for k in by_kind["aot_forward"])
    backward_cpp = [k for k in by_kind["aot_backward"] if k.language == "cpp"]
    # Inductor names a fused kernel after the ATen ops it came from, gradient formulas included
    assert backward_cpp and any("backward" in k.name for k in backward_cpp)
    assert all(k.aten_ops for k in backward_cpp)
    assert any(k.language == "extern" for k in by_kind["aot_backward"])
    optimizer_graph = next(g for g in step.graphs if g.kind == "aot_inference")
    assert optimizer_graph.lines == [], "the optimizer's ops come from torch/optim, not the cell"
    assert by_kind["aot_inference"], "the parameter update is compiled too"
    assert {b.line for b in step.graph_breaks} <= {2, 4, 5} and 4 in {b.line for b in step.graph_breaks}
    assert step.correctness.ok is True and "loss" in step.correctness.compared
    assert any(note.kind == "state_restored" for note in step.notes)
    # the breaks are PyTorch's own by design, said so, and backward()'s names compiled autograd
    owners = ran.stdout("from compile_profile.digest.breaks import break_count_text")
    assert owners.splitlines()[0].endswith("all PyTorch's own by design"), owners
    assert "compiled_autograd" in owners and "[yours]" not in owners
    diagnosed = ran.stdout("from compile_profile.digest.diagnosis import")
    assert diagnosed.splitlines() == [diagnosis_heading(step)] + [f" - {cause_text(c)}" for c in diagnosis(step)]


def test_04_ops_decompose_and_fuse_into_one_kernel(executed):
    ran = executed("04_decomposition_and_fusion")
    run, split = ran.runs["decomposition and fusion"], ran.runs["fusion split by a graph break"]
    assert run.dynamo_graph_count == 1 and not run.graph_breaks
    dynamo = next(g for g in run.graphs if g.kind == "dynamo")
    aten = next(g for g in run.graphs if g.kind == "aot_inference")
    assert "torch.nn.functional.layer_norm" in dynamo.op_counts
    # decomposition: the composite ops are gone, their primitive pieces are there
    assert not {"aten.native_layer_norm", "aten.gelu", "aten._softmax"} & set(aten.op_counts)
    assert {"aten.rsqrt", "aten.erf", "aten.amax", "aten.exp"} <= set(aten.op_counts)
    assert sum(aten.op_counts.values()) > 2 * sum(dynamo.op_counts.values())
    generated = [k for k in run.kernels if k.language == "cpp"]
    assert len(generated) == 1 and len(generated[0].aten_ops) >= 4 and generated[0].lines == [3, 4, 5]
    externs = [k for k in run.kernels if k.language == "extern"]
    assert [k.lines for k in externs] == [[2]], "the matrix product is a library call of its own"
    # a graph break splits the fused kernel in two
    assert [b.line for b in split.graph_breaks] == [4]
    split_generated = [k for k in split.kernels if k.language == "cpp"]
    assert len(split_generated) == 2
    assert sorted(k.lines for k in split_generated) == [[3], [5, 6]]
    printed = ran.stdout("for name, r in")
    assert "one graph  : 1 graph(s), 1 generated kernel(s)" in printed
    assert "graph break: 2 graph(s), 2 generated kernel(s)" in printed


def test_05_attention_variants_and_the_sdpa_backend(executed):
    ran = executed("05_attention")
    manual, sdpa = ran.runs["attention: hand-written"], ran.runs["attention: sdpa"]
    assert [k.name for k in manual.kernels if k.language == "extern"] == ["extern_kernels.bmm"] * 2
    softmax_kernel = next(k for k in manual.kernels if k.language == "cpp")
    assert softmax_kernel.lines == [2, 3], "scaling and softmax fuse between the two products"
    sdpa_aten = next(g for g in sdpa.graphs if g.kind == "aot_inference")
    assert "aten._scaled_dot_product_flash_attention_for_cpu" in sdpa_aten.op_counts
    assert not any("scaled_dot_product" in op for g in manual.graphs for op in g.op_counts)
    assert manual.correctness.ok is True and sdpa.correctness.ok is True
    backends = ran.stdout("import contextlib")
    assert "default choice on cpu: ['aten::_scaled_dot_product_flash_attention_for_cpu']" in backends
    assert re.search(r"EFFICIENT_ATTENTION\s+-> not available here", backends)
    assert re.search(r"MATH\s+-> \[.*'aten::_scaled_dot_product_attention_math'", backends)
    table = ran.stdout("def median(")
    for row in ("hand-written, eager", "hand-written, compiled", "SDPA, eager", "SDPA, compiled"):
        assert row in table


def test_06_sweeps_compare_modes_and_recommend_one(executed):
    ran = executed("06_modes")
    for label in ("modes: CNN", "modes: transformer block"):
        run = ran.runs[label]
        compiled = [v.name for v in run.compiled_variants]
        assert compiled == ["inductor/default", "inductor/max-autotune-no-cudagraphs"], "the CPU sweep's modes"
        assert all(v.compile_s and v.compile_s > 0 for v in run.compiled_variants)
        assert {k.variant for k in run.kernels} == set(compiled), "each mode generated its own kernels"
        r = run.recommendation
        assert r is not None and r.variant == run.speedup.variant and r.call.startswith("torch.compile(model")
        assert r.runner_up in compiled and r.runner_up != r.variant and r.margin >= 1
        advice = run.summary()["recommendation"]
        # a mode is recommended only beyond the noise; otherwise the plain call
        assert advice["measurable"] == (r.margin_low > 1 and not same_kernels(run, r.variant, r.runner_up))
        assert advice["call"] == (r.call if advice["measurable"] else "torch.compile(model)")
        assert f"recommended: {advice['call']}\n  {advice['text']}" in ran.stdout(
            "def mode_table(" if label == "modes: CNN" else "mode_table(block_sweep)"
        )
        assert run.correctness.ok is True


def test_07_says_why_triton_is_skipped_and_profiles_inductor(executed):
    ran = executed("07_custom_triton_kernel")
    assert "Hand-written Triton kernel skipped: no CUDA device" in ran.stdout("import importlib.util")
    assert "skipped" in ran.stdout("handwritten = None")
    assert set(ran.runs) == {"softmax: Inductor"}, "no hand-written profile without a GPU"
    generated = ran.runs["softmax: Inductor"]
    cpp = [k for k in generated.kernels if k.language == "cpp"]
    assert len(cpp) == 1 and "#pragma omp" in cpp[0].source
    assert any("softmax" in op or op in ("aten.amax", "aten.exp") for op in cpp[0].aten_ops)
    assert "torch.softmax, Inductor (cpp)" in ran.stdout("rows = []")
    assert cpp[0].source[:200] in ran.stdout("import inspect")


def test_08_launches_a_ddp_job_and_flags_the_rank_that_diverges(executed):
    ran = executed("08_distributed")
    errors = [o for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    with RunStore(ran.db) as store:
        summaries = store.list(limit=None)[::-1]
        job_ids = list(dict.fromkeys(s["distributed"]["job_id"] for s in summaries))
        same, diverged = (Job(store.job(job_id)) for job_id in job_ids)
    assert len(summaries) == 4, "two jobs of two ranks, and nothing else"
    for job, label in ((same, "DDP step"), (diverged, "DDP step, rank 0 logs")):
        assert [(r.distributed.rank, r.distributed.world_size, r.distributed.backend) for r in job.runs] == [
            (0, 2, "gloo"),
            (1, 2, "gloo"),
        ]
        assert {r.label for r in job.runs} == {label}
        assert all(r.status == "ok" and not r.errors for r in job.runs), [r.errors for r in job.runs]
        assert job.runs[0].distributed.calls_by_stage == job.runs[1].distributed.calls_by_stage
        for run in job.runs:
            (split,) = run.ddp_splits  # bucket_cap_mb=1: the first layer, one 512x512 layer, the rest
            assert [b.params[0] for b in split.buckets] == ["layers.0.weight", "layers.1.weight", "layers.2.weight"]
            assert not any(b.compile_id == split.compile_id for b in run.graph_breaks)
            assert any("distributed.py" in b.filename for b in run.graph_breaks), "DDP's wrapper runs eagerly"
    assert same.summary()["divergences"] == []
    digest = diverged.summary()
    assert "rank 0 diverges" in digest["headline"]
    rows = {row["rank"]: row for row in digest["rows"]}
    assert rows[0]["divergent"] and not rows[1]["divergent"]
    assert any("print" in reason for reason in rows[0]["reasons"])
    # what the notebook shows: the ranks' streamed output, the job views, the divergence it prints
    assert "[default0]:" in ran.stdout("jobs = compile_profile.launch(")
    views = [
        o["data"]["text/html"]
        for c in ran.nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "execute_result" and "text/html" in o.get("data", {})
    ]
    assert len(views) == 2 and "cp-divergent" not in views[0] and "cp-divergent" in views[1]
    printed = ran.stdout("summary = diverged.summary()")
    assert "rank 0 diverges" in printed and "rank 0 (breaks)" in printed
    assert "rank 0 of 2 (gloo)" in ran.stdout("for run in job.runs:\n    d = run.distributed")
    assert "piece 2: layers.2.weight, layers.2.bias, head.weight, head.bias" in ran.stdout("run = job.runs[0]")
    assert ran.stdout("print((WORKDIR").startswith("loss tensor(")


def test_09_runs_the_builtin_collection_and_draws_the_how_fast_charts(executed):
    from compile_profile.suites.builtin import cpu_sample
    from compile_profile.suites.storage import load_suite, stored_suites
    from compile_profile.suites.views import MIME_TYPE as SUITE_MIME_TYPE

    ran = executed("09_how_fast")
    errors = [o for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    with RunStore(ran.db) as store:
        (record,) = stored_suites(store)
        record = load_suite(store, record.id)
        assert store.count() == len(record.outcomes)  # each entry stored its run, in the notebook's store
    names = [o.name for o in record.outcomes]
    sample = cpu_sample("small")  # GPT-2 and Llama where transformers imports, else two plain models
    assert names == sample and sum(n.startswith("attention ") for n in names) == 6
    assert all(o.ended == "finished" for o in record.outcomes)
    datas = [o["data"] for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if "data" in o]
    (card,) = [d[SUITE_MIME_TYPE] for d in datas if SUITE_MIME_TYPE in d]
    assert card["suite"]["id"] == record.id and set(card["figures"]) == {"speedup", "compile"}
    assert len(card["figures"]["speedup"]["data"][0]["x"]) == 8
    assert any("application/vnd.plotly.v1+json" in d for d in datas)  # the attention chart
    assert "no regression" in ran.stdout("from compile_profile.suites.compare import")
    assert ran.seconds < 240
