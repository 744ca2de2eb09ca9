"""Lay out the UI test's server: a fresh run store and a notebook holding the seeded runs' cells.

Runs are the synthetic ones of tests/render_fixtures.py (no torch needed), with ids and times of
their own, and two runs of one cell (``consistency_runs``: one slower than eager, one faster, each
with two compiled variants and timed kernels on cell lines) whose Python views' words are written to
``expected.json`` next to the store (headline, verdict, payback, the breakdown of a call, time per cell
line with eager's, each Dynamo graph's kinds of guards, each recompile's failed guard, max-autotune's
choices, the roofline sentences, the device peaks and memory ratio, the comparison), for consistency.spec.ts to find in the panel, and
a distributed job of two ranks where rank 1 diverges (``job_runs``: an extra Dynamo graph, a compile 3× longer;
rank 0's compiled call waits for it; both split into DDP buckets) with the job digest's words, for job.spec.ts.  ``--add ID``
later puts one more run, as a kernel would, to test that the panel picks it up without a refresh.  ``--add-markup``
puts a run with markup in every field (tests/markup_runs.py) and two rows that cannot be read (one not JSON, one
with markup where a number belongs), for xss.spec.ts, which takes them out again with ``--remove ID...``.
``--add-suite`` puts a suite over a collection of models and its runs (tests/suite_fixtures.py ui_suite), and one
that cannot be read, for suite.spec.ts, ``--remove-suite`` takes them out.  ``--add-views`` puts the runs views.spec.ts looks at (a Lines chart with two withheld passes, a card whose p90s are
50-100 times its medians, an input-signature table, and fillers enough to make the run list scroll) and a notebook
holding the long-tailed run's card.  ``--add-traces`` imports the TORCH_TRACE fixtures compiles.spec.ts opens (a script's, a training loop's with restarts,
and a 2-rank job's).  ``--add-inputs ID`` profiles a small MLP over a sequence of inputs of two shapes (``profile(fn, inputs=[...])``,
compiled here on the CPU) and puts its run, for importtrace.spec.ts's look at the Overview's input-signature table.
``verdict_runs`` seeds a run whose results differ and one whose compiled calls ran eagerly, each card in
verdict.ipynb (and after them the card of the run that failed before Dynamo, nothing timed, and one whose compiled
bar's whisker reaches well above it), with the digest's verdicts in expected.json, for verdict.spec.ts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "kernel_side"))

from compile_profile.digest import breakdown, compare, line_times, run_digest  # noqa: E402
from compile_profile.digest.format import format_ms  # noqa: E402
from compile_profile.profile_run import DistributedRank, ErrorInfo, Graph, GraphBreak, ProfileRun, Variant  # noqa: E402
from compile_profile.render.mime import MIME_TYPE, mime_bundle  # noqa: E402
from compile_profile.render.text import render_text  # noqa: E402
from compile_profile.serialize import to_dict  # noqa: E402
from compile_profile.store import RunStore  # noqa: E402
from render_fixtures import (  # noqa: E402
    CELL,
    big_run,
    cpu_run,
    cuda_run,
    failed_run,
    hostile_run,
    interrupted_run,
    long_tail_run,
    slower_and_faster_runs,
    withheld_passes_run,
)

ROOT = Path(os.environ["JUPYTERLAB_GALATA_ROOT_DIR"])
DB = Path(os.environ["COMPILE_PROFILE_DB"])
NOTEBOOK = "seeded.ipynb"
MAGIC_LINE = "%%compile_profile --label 'seeded cpu run'"

CPU_RUN_ID = "uicpu0000001"
BREAK_LINE = 5  # cell line of print(y.sum()) in render_fixtures.CELL


def minutes_ago(minutes: float) -> str:
    moment = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=minutes)
    return moment.isoformat(timespec="seconds")


def seeded_runs():
    cpu = cpu_run()
    cpu.id = CPU_RUN_ID
    cpu.label = "seeded cpu run"
    cpu.created_at = minutes_ago(1)
    cpu.notebook = str(ROOT / NOTEBOOK)
    cpu.graph_breaks = [
        GraphBreak(
            reason="builtin: print\n  Explanation: Dynamo does not know how to trace the builtin `print`.",
            line=BREAK_LINE,
            code_line="print(y.sum())",
            variant="inductor/default",
        )
    ]
    cuda = cuda_run()
    cuda.id = "uicuda000001"
    cuda.created_at = minutes_ago(30)
    hostile = hostile_run()
    hostile.id = "uihostile001"
    hostile.created_at = minutes_ago(60)
    big = big_run(1000)
    big.id = "uibig0000001"
    big.label = "a thousand kernels"
    big.created_at = minutes_ago(120)
    return [cpu, cuda, hostile, big]


# -- a run with a ResNet's kernel table, and runs that stopped before Dynamo, for detail.spec.ts ---------------

WIDE_RUN_ID = "uiwide000001"
FAILED_RUN_ID = "uifailed0001"
INTERRUPTED_RUN_ID = "uiintr000001"

# A ResNet block's fused kernels as Inductor names them, with the ATen ops each one fuses.
_WIDE_OPS = [
    "aten.convolution",
    "aten._native_batch_norm_legit_functional",
    "aten.relu",
    "aten.add",
    "aten.max_pool2d_with_indices",
    "aten.threshold_backward",
    "aten.native_batch_norm_backward",
    "aten.convolution_backward",
    "aten.mean",
    "aten.view",
]


def wide_run() -> ProfileRun:
    """33 kernels with Inductor's long fused names and up to 8 ATen ops each, as a ResNet-18 step has: the table
    whose ATen-ops column once collapsed to a letter a line (issue 23, item 5)."""
    import copy

    run = cuda_run()
    run.id = WIDE_RUN_ID
    run.label = "a wide kernel table"
    run.created_at = minutes_ago(300)
    template = run.kernels[0]
    kernels = []
    for i in range(33):
        ops = [_WIDE_OPS[(i + j) % len(_WIDE_OPS)] for j in range(1 + i % 8)]
        fused = "_".join(op.split(".", 1)[1].strip("_") for op in ops[:4])
        k = copy.deepcopy(template)
        k.name = f"triton_{'per' if i % 3 else 'poi'}_fused_{fused}_{i}"
        k.id = f"k{i}"
        k.aten_ops = ops
        k.lines = sorted({2 + i % 5, 3 + i % 4, 4})
        k.device_time_ms = 0.05 + (33 - i) * 0.013
        kernels.append(k)
    run.kernels = kernels
    return run


def stopped_runs() -> list[ProfileRun]:
    """A run that failed before Dynamo traced anything and one interrupted before it: empty Graph breaks tabs."""
    failed = failed_run()
    failed.id, failed.label, failed.created_at = FAILED_RUN_ID, "failed before Dynamo", minutes_ago(310)
    failed.graphs, failed.graph_breaks, failed.kernels = [], [], []
    # the cell's own first run raised, so nothing was compiled
    message = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1024x512 and 1024x1024)"
    failed.variants = [Variant(name="eager", error=message)]
    failed.errors = [ErrorInfo(stage="eager", message=message, type="RuntimeError", line=4, traceback="Traceback ...")]
    interrupted = interrupted_run()
    interrupted.id, interrupted.label = INTERRUPTED_RUN_ID, "interrupted before Dynamo"
    interrupted.created_at = minutes_ago(320)
    interrupted.graphs, interrupted.graph_breaks, interrupted.kernels, interrupted.recompiles = [], [], [], []
    return [failed, interrupted]


COMPILE_FAILED_RUN_ID = "uicompfail01"


def compile_failed_run() -> ProfileRun:
    """A compile that failed in Inductor's lowering, read as the engine reads one, with its reproducer."""
    run = failed_run()
    run.id, run.label, run.created_at = COMPILE_FAILED_RUN_ID, "failed in a lowering", minutes_ago(330)
    error = run.errors[0]
    error.compile_stage, error.aot_eager = "inductor_lowering", "runs"
    error.reproducer = (
        "# A reproducer written by compile-profile: the graph Inductor was given when the compile failed,\n"
        "import torch\nprint('<b>markup in a reproducer stays text</b>')\n"
    )
    return run


def detail_expected(runs: list[ProfileRun]) -> dict:
    """The digest's words for the stopped runs' empty Graph breaks tab and their warnings."""
    out = {}
    for run in runs:
        summary = run_digest(run)
        out[run.id] = {"graph_break_empty_text": summary["graph_break_empty_text"], "warnings": summary["warnings"]}
    return out


# -- two runs of one cell, for the consistency test ------------------------------------------------

EXPECTED = DB.parent / "expected.json"


def consistency_runs() -> list[ProfileRun]:
    slow, fast = slower_and_faster_runs()
    slow.created_at, fast.created_at = minutes_ago(180), minutes_ago(170)
    return [slow, fast]


def line_texts(run: ProfileRun) -> list[dict]:
    """The text view's time per cell line, as it words each cell (render/text.py ``_lines_lines``): a row per
    line with kernels, for each variant its time by ``format_ms``, or nothing where it has no kernel there."""
    lt = line_times(run)
    text = render_text(run)
    rows = []
    for r in lt.rows:
        if not (r.kernels or r.eager_ops):
            continue
        times = {v: r.time_text(v) for v in lt.variants}
        # the table's row: two spaces, the line number (a guard group "    2 global state guards" is not one)
        shown = next(t for t in text.splitlines() if t.startswith(f"  {r.line} "))
        assert all(t in shown for t in times.values()), (shown, times)  # these are the text view's own words
        rows.append({"line": r.line, "times": times})
    return rows


def breakdown_texts(run: ProfileRun) -> list[dict]:
    """Where a call's time goes, as the text view words each cell (render/text.py ``_breakdown_lines``): a row per
    variant, each part and the call by ``format_ms``."""
    text = render_text(run)
    rows = []
    for r in breakdown(run):
        parts = {key: format_ms(ms) for key, ms in r.parts().items()}
        shown = next(t for t in text.splitlines() if t.startswith(f"  {r.variant}  "))
        assert shown.split()[1:] == " ".join(parts.values()).split(), (shown, parts)  # the text view's own words
        rows.append({"variant": r.variant, "parts": parts})
    return rows


def guard_and_measured_texts(run: ProfileRun) -> dict:
    """Each Dynamo graph's kinds of guards, each recompile's failed guard, max-autotune's choices, the roofline
    sentences, the device peaks and the memory ratio: the digest's words (``run_digest``), each checked to be
    what the text view shows (render/text.py ``_guard_lines``, ``_graph_lines``, ``_measured_lines``)."""
    digest = run_digest(run)
    measured = digest["measured"]
    words = {
        "guards": [{"graph_id": g["graph_id"], "kinds_text": g["kinds_text"]} for g in digest["guards"]],
        "recompiles": [{"failed_guard": r["failed_guard"]} for r in digest["recompiles"]],
        "autotune": [a["text"] for a in measured["autotune"]],
        "roofline": [r["text"] for r in measured["roofline"]],
        "device_peaks": measured["device_peaks"]["text"] if measured["device_peaks"] else None,
        "memory_ratio": measured["memory_ratio"]["text"] if measured["memory_ratio"] else None,
    }
    text = render_text(run)
    shown = [g["kinds_text"] for g in words["guards"]] + [r["failed_guard"] for r in words["recompiles"]]
    shown += words["autotune"] + words["roofline"] + [t for t in (words["device_peaks"], words["memory_ratio"]) if t]
    missing = [t for t in shown if t and t not in text]
    assert not missing, missing  # these are the text view's own words
    return words


def expected_json(slow: ProfileRun, fast: ProfileRun) -> dict:
    def run_words(run: ProfileRun) -> dict:
        digest = run_digest(run)
        return {
            "id": run.id,
            "headline": digest["headline"],
            "phrase": digest["speedup"]["phrase"],
            "interval": digest["speedup"]["interval_text"],
            "verdict": digest["verdict"],
            "payback": digest["payback"]["text"] if digest["payback"] else None,
            "breakdown": breakdown_texts(run),
            "variants": digest["lines"]["variants"],
            "lines": line_texts(run),
            **guard_and_measured_texts(run),
        }

    comparison = to_dict(compare(slow, fast))
    return {
        "runs": [run_words(slow), run_words(fast)],
        "compare": {
            "a": slow.id,
            "b": fast.id,
            "deltas": [
                {k: d[k] for k in ("metric", "a_text", "b_text", "change_text", "better", "within_noise")}
                for d in comparison["deltas"]
            ],
        },
    }


# -- a run whose card answers first: five causes, one on a line whose code holds markup, and a --sweep call ------

DIAG_RUN_ID = "uidiag000001"
DIAG_NOTEBOOK = "diagnosis.ipynb"
# the cell's line 5 with markup in a comment: its cause's title quotes the line, which every view shows as text
DIAG_MARKUP = '<img src=x onerror="window.__xss=5"><b>bold</b>'


def diagnosis_run() -> ProfileRun:
    """The slower consistency run (outside kernels, slower library kernels, compiling, a recompile), its fastest
    compiled variant also running line 5 eagerly (after a graph break), and a sweep that measured
    inductor/default faster than max-autotune beyond the noise: five causes, the card shows three."""
    from compile_profile.profile_run import EagerLineTime, Recommendation

    run, _ = slower_and_faster_runs()
    run.id, run.label, run.created_at = DIAG_RUN_ID, "diagnosed run", minutes_ago(500)
    run.notebook = str(ROOT / DIAG_NOTEBOOK)
    lines = run.cell_source.splitlines()
    lines[4] = f"{lines[4]}  # {DIAG_MARKUP}"
    run.cell_source = "\n".join(lines) + "\n"
    best = next(v for v in run.variants if run.speedup is not None and v.name == run.speedup.variant)
    assert best.kernel_profile is not None
    best.kernel_profile.eager_lines = [EagerLineTime(line=5, time_ms=1.1, ops=["aten::sum", "aten::copy_"])]
    run.recommendation = Recommendation(
        variant="inductor/default",
        call="torch.compile(model)",
        runner_up="inductor/max-autotune",
        margin=8.05 / 7.2,
        margin_low=1.07,
        margin_high=1.16,
        plain_variant="inductor/default",
        plain_call="torch.compile(model)",
    )
    return run


def diagnosis_expected(run: ProfileRun) -> dict:
    """The digest's diagnosis and recommendation (``summarize``), for the card and the detail to show as they are."""
    from compile_profile.digest.summary import summarize

    summary = summarize(run)
    causes = summary["diagnosis"]
    assert len(causes) > 3 and any(DIAG_MARKUP in c["title"] for c in causes), causes
    return {
        "id": run.id,
        "heading": summary["diagnosis_heading"],
        "causes": [{k: c[k] for k in ("kind", "title", "cost_text", "action")} for c in causes],
        "cause_lines": [c["line"] for c in causes],
        "recommendation": summary["recommendation"],
    }


def diagnosis_notebook(run: ProfileRun) -> dict:
    notebook = notebook_json(run)
    notebook["cells"][2]["source"] = f"%%compile_profile --label 'diagnosed run'\n{run.cell_source.rstrip()}"
    return notebook


# -- a distributed job of two ranks, rank 1 diverging, for job.spec.ts -------------------------------

JOB_ID = "uijob0000001"
JOB_RUN_IDS = ("uijobrank000", "uijobrank001")


def job_runs() -> list[ProfileRun]:
    """One profile call on both ranks of a gloo job, built from the CPU fixture run: rank 1 compiled one more
    Dynamo graph and took three times as long to compile, and both ranks' compiled calls take 25 ms, mostly
    outside their kernels (rank 0 waits for rank 1 in the all-reduce); DDPOptimizer split each rank's graph into
    two pieces.  Older than every other seeded run, so they list last."""
    from job_fixtures import add_ddp_split

    runs = []
    for rank, run_id in enumerate(JOB_RUN_IDS):
        run = cpu_run()
        run.id = run_id
        run.label = "seeded job step"
        run.created_at = minutes_ago(240 - rank)
        run.cell_runs = 40  # the calls of the step each stage made, as calls_by_stage counts them
        run.distributed = DistributedRank(
            rank=rank,
            world_size=2,
            backend="gloo",
            job_id=JOB_ID,
            local_rank=rank,
            host="uinode0",
            calls_by_stage={"eager": 20, "inductor/default": 20},
        )
        compiled = run.compiled_variants[0]
        compiled.timing.median_ms = 25.0
        value = run.eager.timing.median_ms / compiled.timing.median_ms
        run.speedup.value, run.speedup.low, run.speedup.high = value, value * 0.95, value * 1.05
        add_ddp_split(run, 2)
        runs.append(run)
    diverging = runs[1]
    extra = Graph(id="g1", kind="dynamo", code=diverging.graphs[0].code, variant="inductor/default", lines=[5, 6])
    diverging.graphs.append(extra)
    for variant in diverging.compiled_variants:
        variant.compile_s = variant.compile_s * 3 if variant.compile_s is not None else None
        variant.first_call_s = variant.first_call_s * 3 if variant.first_call_s is not None else None
    diverging.compile_phases = {k: v * 3 for k, v in diverging.compile_phases.items()}
    return runs


def job_expected(runs: list[ProfileRun]) -> dict | None:
    """The job digest's words (digest/job.py), for job.spec.ts to find in the job's tab; None before it exists."""
    try:
        from compile_profile.digest.job import job_digest
    except ImportError:
        return None
    job = job_digest(runs)
    return {
        "job_id": job["job_id"],
        "headline": job["headline"],
        "compile_spread": job["compile_spread"]["text"],
        "missing_ranks": job["missing_ranks"],
        "rows": [
            {
                k: r.get(k)
                for k in (
                    "rank",
                    "run_id",
                    "host",
                    "speedup_text",
                    "interval_text",
                    "compile_text",
                    "graphs",
                    "cell_runs",
                    "divergent",
                    "reasons",
                    "eager_text",
                    "compiled_text",
                    "correctness_text",
                    "error_text",
                    "notes",
                )
            }
            for r in job["rows"]
        ],
        "divergences": [d["text"] for d in job["divergences"]],
        "peak_memory_note": job.get("peak_memory_note", ""),
        "ddp_note": job.get("ddp_note", ""),
    }


# What a profile logs to stderr after the first eager run, as the magic folds it into the card (magic.py
# _StderrLogs): the profiler's C++ lines, a Dynamo warning repeated by the timed runs, and markup, shown as text.
SEEDED_LOGS = [
    "STAGE:2026-12-03 11:02:13 8812:8812 ActivityProfilerController.cpp:314] Completed Stage: Warm Up",
    "[W1203 11:02:14.118000 8812 torch/autograd/profiler.py:253] Profiler record function cell will be ignored  (×12)",
    "W1203 11:02:15.001000 8812 torch/_dynamo/variables/tensor.py:869] Graph break from `Tensor.item()` <b>logged</b>",
]
SEEDED_LOG_COUNT = 14


def notebook_json(cpu) -> dict:
    bundle = mime_bundle(cpu, logs=SEEDED_LOGS, log_count=SEEDED_LOG_COUNT)
    code = lambda source, outputs=(): {
        "cell_type": "code",
        "execution_count": None,
        "id": f"cell{abs(hash(source)) % 10**8}",
        "metadata": {},
        "outputs": list(outputs),
        "source": source,
    }
    return {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": "# Seeded runs"},
            code("%load_ext compile_profile\ndevice = 'cpu'"),
            code(
                f"{MAGIC_LINE}\n{CELL.rstrip()}",
                [{"output_type": "display_data", "data": bundle, "metadata": {}}],
            ),
            code("x = 1"),
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


# -- a run with markup in every field, and rows that cannot be read, for xss.spec.ts ----------------------------

MARKUP_RUN_ID = "uimarkup0001"
UNREADABLE_RUN_IDS = ("uiunread0001", "uiunread0002")


def add_markup_runs() -> None:
    """The markup run and the two unreadable rows; prints the payload numbers the markup run holds, as JSON."""
    from markup_runs import markup_everywhere

    data, run, placed = markup_everywhere(cuda_run())
    data["id"] = run.id = MARKUP_RUN_ID
    unreadable = []
    for run_id in UNREADABLE_RUN_IDS:
        row = cpu_run()
        row.id, row.label, row.created_at = run_id, f"unreadable {run_id}", minutes_ago(2)
        unreadable.append(row)
    with RunStore(DB) as store:
        store.put(run)
        for row in unreadable:
            store.put(row)
    wrong = json.loads(unreadable[1].to_json())
    wrong["cell_runs"] = '<img src=x onerror="window.__xss=-1">'
    conn = sqlite3.connect(DB)
    try:
        with conn:  # as a broken copy or a hand edit leaves them: the store's summaries are gone too
            for run_id, run_json in zip(UNREADABLE_RUN_IDS, ("{not json", json.dumps(wrong))):
                conn.execute("UPDATE runs SET run_json = ?, summary_json = '{}' WHERE id = ?", (run_json, run_id))
            conn.execute("UPDATE store_state SET value = value + 1 WHERE key = 'changes'")
    finally:
        conn.close()
    print(json.dumps(sorted(set(placed.values()))))


# -- the runs views.spec.ts looks at (issue 31's view defects) ------------------------------------------------

VIEWS_NOTEBOOK = "views.ipynb"
VIEWS_WITHHELD_ID = "uiwithheld01"
VIEWS_LONG_TAIL_ID = "uilongtail01"
VIEWS_INPUTS_ID = "uiinputs0001"
VIEWS_FILLER_IDS = [f"uifill{i:06d}" for i in range(14)]


def views_runs() -> list[ProfileRun]:
    """Two passes withheld (the Lines chart's two notes), p90s 100 and 40 times the medians (the card's axis),
    an input-signature table (seven headers in a narrow table), and fourteen fillers, older than every other
    seeded run, so the run list is longer than the panel at 1600×1000."""
    from compile_profile.profile_run import InputCall, InputSequence, InputSignature, Speedup

    withheld_run = withheld_passes_run()
    withheld_run.id, withheld_run.created_at = VIEWS_WITHHELD_ID, minutes_ago(600)
    tail = long_tail_run()
    tail.id, tail.created_at, tail.notebook = VIEWS_LONG_TAIL_ID, minutes_ago(601), str(ROOT / VIEWS_NOTEBOOK)
    inputs = cpu_run()
    inputs.id, inputs.label, inputs.created_at = VIEWS_INPUTS_ID, "over two input shapes", minutes_ago(602)
    best = inputs.speedup.variant
    inputs.inputs = InputSequence(
        count=3,
        signatures=[
            InputSignature(
                parts=["x: (8, 4) float32"], inputs=[0, 2], speedup=Speedup(value=1.3, low=1.2, high=1.4, variant=best)
            ),
            InputSignature(
                parts=["x: (16, 4) float32"], inputs=[1], speedup=Speedup(value=0.5, low=0.4, high=0.6, variant=best)
            ),
        ],
        calls=[
            InputCall(index=0, signature=0, compile_s={best: 0.8}),
            InputCall(index=1, signature=1, compile_s={best: 0.6}),
            InputCall(index=2, signature=0),
        ],
    )
    fillers = []
    for i, run_id in enumerate(VIEWS_FILLER_IDS):
        filler = cuda_run()
        filler.id, filler.label, filler.created_at = run_id, f"filler run {i + 1}", minutes_ago(700 + i)
        fillers.append(filler)
    return [withheld_run, tail, inputs, *fillers]


def add_views_runs() -> None:
    runs = views_runs()
    with RunStore(DB) as store:
        for run in runs:
            store.put(run)
    notebook = notebook_json(runs[1])
    notebook["cells"][2]["source"] = f"%%compile_profile --label '{runs[1].label}'\n{runs[1].cell_source.rstrip()}"
    (ROOT / VIEWS_NOTEBOOK).write_text(json.dumps(notebook, indent=1))


def remove_views_runs() -> None:
    with RunStore(DB) as store:
        for run_id in [VIEWS_WITHHELD_ID, VIEWS_LONG_TAIL_ID, VIEWS_INPUTS_ID, *VIEWS_FILLER_IDS]:
            store.delete(run_id)
    (ROOT / VIEWS_NOTEBOOK).unlink(missing_ok=True)


def add_inputs_run(run_id: str) -> None:
    """A real profile over three full batches and a short one: two input signatures, one recompile."""
    import torch
    from compile_profile import profile

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    model.requires_grad_(False)

    def step(xb):
        return model(xb).relu().sum(dim=1)

    batches = [(torch.randn(16, 32),) for _ in range(3)] + [(torch.randn(7, 32),)]
    # the Overview's input-signature table is the subject: aot_eager compiles and recompiles as Inductor does
    run = profile(
        step,
        inputs=batches,
        backend="aot_eager",
        dynamic=False,
        quick=True,
        budget=0.5,
        label="MLP over an epoch's batches",
    )
    run.id = run_id
    with RunStore(DB) as store:
        store.put(run)


UNREADABLE_SUITE = "uisuite00009"
UNREADABLE_NAME = '<img src=x onerror="window.cpXss=1">n'
OLDER_SUITE = "uisuite00002"


def _older_suite(record):
    """The same collection a day earlier, under another torch, over the same runs (no run is added to the run list
    the other specs count) but two entries: "miscompiled" passed then (gpt2's run) and "crashes" ran (llama's): the
    suite's tab compares the two, status changes first."""
    import copy

    older = copy.deepcopy(record)
    older.id, older.created_at = OLDER_SUITE, "2026-12-04T22:10:00+00:00"
    older.label, older.torch_version = "with torch 2.12", "2.12.0+cpu"
    for outcome in older.outcomes:
        if outcome.name == "miscompiled":
            outcome.run_id = "uisuite00000"
        elif outcome.name == "crashes":
            outcome.ended, outcome.run_id, outcome.signal, outcome.exit_code = "finished", "uisuite00003", "", 0
            outcome.stderr_tail = []
    return older


def add_suite(db: Path) -> None:
    """The suite suite.spec.ts opens (tests/suite_fixtures.py ui_suite) and its runs; its digest's words beside the
    store (expected-suite.json) for the spec to find in the panel."""
    from compile_profile.suites.digest import suite_digest
    from compile_profile.suites.http import suite_comparison
    from compile_profile.suites.storage import save_outcome
    from suite_fixtures import store_suite, ui_suite

    record, runs = ui_suite()
    store_suite(db, record, runs)
    older = _older_suite(record)
    with RunStore(db) as store:
        store.put_suite(older.id, older.created_at, json.dumps({**older.to_dict(), "outcomes": []}))
        for outcome in older.outcomes:
            save_outcome(store, older.id, outcome)
        comparison = suite_comparison(store, older.id, record.id)
        # beside it, a suite that cannot be read (an outcome whose error is no string), its outcome named with markup:
        # the Suites view lists it as text, its id and why
        unreadable = {**record.to_dict(), "id": UNREADABLE_SUITE, "outcomes": []}
        store.put_suite(UNREADABLE_SUITE, record.created_at, json.dumps(unreadable))
        bad = {
            "name": UNREADABLE_NAME,
            "model": "n",
            "task": "step",
            "dtype": "float32",
            "ended": "skipped",
            "error": 1,
        }
        store.put_suite_model(UNREADABLE_SUITE, UNREADABLE_NAME, json.dumps(bad), None)
    digest = suite_digest(record, runs)
    expected = {
        "id": record.id,
        "headline": digest.headline,
        "rows": [[r.name, r.status_label, r.speedup_text] for r in digest.rows],
        "run_ids": list(runs),
        "older": older.id,
        "comparison": {
            "headline": comparison["headline"],
            "rows": [[r["name"], r["status_text"], r["ratio_text"]] for r in comparison["rows"][:3]],
            "regressions": comparison["regressions"],
        },
    }
    (db.parent / "expected-suite.json").write_text(json.dumps(expected, indent=2), encoding="utf-8")


def remove_suite(db: Path) -> None:
    from suite_fixtures import ui_suite

    record, runs = ui_suite()
    with RunStore(db) as store:
        for suite_id in (record.id, OLDER_SUITE, UNREADABLE_SUITE):  # the spec may have deleted the unreadable one
            store.delete_suite(suite_id)
        for run_id in runs:  # the wrong run is no entry's (a suite stores what its entries ran)
            store.delete(run_id)


# -- a run whose results differ and one that ran eagerly, for verdict.spec.ts ------------------------------------

VERDICT_NOTEBOOK = "verdict.ipynb"
VERDICT_RUN_IDS = ("uiverdict001", "uiverdict002", "uiverdict003")


def verdict_runs() -> list[ProfileRun]:
    """The verdict ladder's three overriding rungs (digest/outcome.py), each with a speedup the verdict marks not
    meaningful: compiled results that differ (1.53× slower, as a post-grad pass made to turn add into sub read), the
    cell's frame at Dynamo's recompile limit (the compiled calls ran eagerly: 1.85× slower), and a busy CPU (4.03×
    faster at 2 threads beside a process holding one of 2 cores, while eager took 494 µs at 1 thread)."""
    from compile_profile.profile_run import Correctness, HostLoad, Note, Recompile, RunSettings, Speedup, ThreadsTrial

    differ, eager, busy = cpu_run(), cpu_run(), cpu_run()
    # older than the other seeded runs, so they list after them (compile_profile.spec.ts counts the list by place)
    for run, run_id, ratio, minutes in (
        (differ, VERDICT_RUN_IDS[0], 1.53, 600),
        (eager, VERDICT_RUN_IDS[1], 1.85, 601),
        (busy, VERDICT_RUN_IDS[2], 1 / 4.03, 602),
    ):
        run.id, run.created_at = run_id, minutes_ago(minutes)
        run.notebook = str(ROOT / VERDICT_NOTEBOOK)
        compiled = run.compiled_variants[0]
        assert run.eager is not None and run.eager.timing is not None and compiled.timing is not None
        compiled.timing.median_ms = run.eager.timing.median_ms * ratio
        run.speedup = Speedup(value=1 / ratio, low=0.95 / ratio, high=1.05 / ratio, variant=compiled.name)
    # what Compare shows first where the two differ: torch's threads, other processes' load, the profile's options
    differ.settings = RunSettings(torch_threads=8, interop_threads=8, warmup=2, repeat=100, budget_s=3.0)
    differ.host_load = HostLoad(other_processes_cores=1.6, cores=2, threads=8)
    eager.settings = RunSettings(torch_threads=1, interop_threads=8, warmup=2, repeat=100, budget_s=3.0, quick=True)
    differ.label = "add became sub"
    differ.correctness = Correctness(ok=False, max_abs_diff=8.82, max_rel_diff=3.1, compared=["y"], mismatched=["y"])
    eager.label = "a value that changes every call"
    eager.correctness = Correctness(ok=True, max_abs_diff=1e-7, compared=["y"])
    profile = eager.compiled_variants[0].kernel_profile
    assert profile is not None
    profile.notes = [Note("no_graph_region", variant=eager.compiled_variants[0].name)]  # as its profiler pass saw
    eager.recompiles = [
        Recompile(
            reason="G['k'] == 7.0",
            variant=eager.compiled_variants[0].name,
            compile_id=f"0/{i}",
            source="G['k']",
            line=2,
            change="value",
            limit="recompile_limit (8)" if i == 8 else "",
        )
        for i in range(1, 9)
    ]
    busy.label = "two threads on one free core"
    # a cell that draws random numbers: not compared, which its card says (a card silent on it read as a match)
    busy.correctness = Correctness(
        ok=None, max_abs_diff=0.9, compared=["y"], note=Note("random_ops", values={"ops": ["aten.native_dropout"]})
    )
    busy.settings = RunSettings(torch_threads=2, interop_threads=2, warmup=2, repeat=100, budget_s=3.0)
    busy.host_load = HostLoad(other_processes_cores=1.0, cores=2, threads=2)
    busy.threads_trial = ThreadsTrial(threads=1, user_threads=2, eager_ms=0.494, samples=5)
    return [differ, eager, busy]


WHISKER_RUN_ID = "uiwhisker001"


def whisker_run() -> ProfileRun:
    """A compiled bar whose p10-p90 whisker reaches well above it: 1.42× faster [1.39×–1.44×], its p90 1.2 times its
    median, as a 2-layer BERT cell read on the 2-core machine; the card's speedup label once lay across that whisker.
    Only its card is seeded (verdict.ipynb), not the run: the run list keeps its count."""
    from compile_profile.profile_run import Correctness, Speedup

    run = cpu_run()
    run.id, run.label, run.created_at = WHISKER_RUN_ID, "a whisker above the bar", minutes_ago(603)
    run.correctness = Correctness(ok=True, max_abs_diff=1e-6, compared=["y"])
    compiled = run.compiled_variants[0]
    assert run.eager is not None and run.eager.timing is not None and compiled.timing is not None
    t = compiled.timing
    scale = run.eager.timing.median_ms / 1.42 / t.median_ms
    t.median_ms, t.p10_ms, t.samples_ms = t.median_ms * scale, t.p10_ms * scale, [x * scale for x in t.samples_ms]
    t.p90_ms = 1.2 * t.median_ms
    run.speedup = Speedup(value=1.42, low=1.39, high=1.44, variant=compiled.name)
    return run


def verdict_notebook(runs: list[ProfileRun], untimed: ProfileRun) -> dict:
    """The verdict runs' cards, then the card of ``untimed``, a run whose eager variant failed, so no variant was
    timed: it draws no chart (it drew 220 px of an empty one, "no variant was timed"); then ``whisker_run``'s."""
    notebook = notebook_json(runs[0])
    card = notebook["cells"][2]
    card["source"] = f"%%compile_profile --label 'add became sub'\n{runs[0].cell_source.rstrip()}"
    second = json.loads(json.dumps(card))
    second["id"] = "verdict-eager"
    second["source"] = f"%%compile_profile --label 'a value that changes'\n{runs[1].cell_source.rstrip()}"
    second["outputs"] = [{"output_type": "display_data", "data": mime_bundle(runs[1]), "metadata": {}}]
    third = json.loads(json.dumps(card))
    third["id"] = "verdict-busy"
    third["source"] = f"%%compile_profile --label 'two threads on one free core'\n{runs[2].cell_source.rstrip()}"
    third["outputs"] = [{"output_type": "display_data", "data": mime_bundle(runs[2]), "metadata": {}}]
    fourth = json.loads(json.dumps(card))
    fourth["id"] = "verdict-untimed"
    fourth["source"] = f"%%compile_profile --label '{untimed.label}'\n{untimed.cell_source.rstrip()}"
    fourth["outputs"] = [{"output_type": "display_data", "data": mime_bundle(untimed), "metadata": {}}]
    whisker = whisker_run()
    fifth = json.loads(json.dumps(card))
    fifth["id"] = "verdict-whisker"
    fifth["source"] = f"%%compile_profile --label '{whisker.label}'\n{whisker.cell_source.rstrip()}"
    fifth["outputs"] = [{"output_type": "display_data", "data": mime_bundle(whisker), "metadata": {}}]
    notebook["cells"][2:3] = [card, second, third, fourth, fifth]
    return notebook


def verdict_compare(runs: list[ProfileRun]) -> list[dict]:
    """What the two verdict runs ran with, as Compare lists it (``compare.context``): the rows that differ first."""
    return [dict(r) for r in to_dict(compare(runs[0], runs[1])).get("context", [])]  # the first two


def verdict_expected(runs: list[ProfileRun]) -> list[dict]:
    """Each run's verdict as the digest words it (``summarize``'s outcome), with its headline and list status."""
    from compile_profile.digest.summary import summarize

    out = []
    for run in runs:
        s = summarize(run)
        assert s["speedup"] is not None and not s["outcome"]["speedup_meaningful"], s["outcome"]
        out.append(
            {
                "id": run.id,
                "headline": s["headline"],
                "list_status": s["list_status"],
                "speedup": s["speedup"]["text"],
                "outcome": s["outcome"],
                "correctness": s["correctness"]["text"] if s["correctness"] else "",
            }
        )
    return out


TRACE_RUNS = {"script": "uitracescr01", "loop": "uitraceloop1"}
TRACE_JOB = ("uitracejob00", "uitracejob01")


def add_trace_runs() -> None:
    """The compiles views' runs (compiles.spec.ts): the script and loop TORCH_TRACE fixtures and the 2-rank job,
    imported as ``compile-profile import-trace`` reads them, each under a fixed id."""
    from compile_profile.engine.trace.log_import import import_trace

    fixtures = HERE.parent / "tests" / "import_trace_fixtures"
    with RunStore(DB) as store:
        for name, run_id in TRACE_RUNS.items():
            (run,) = import_trace(fixtures / name, source_roots=[fixtures])
            run.id, run.created_at = run_id, minutes_ago(0.5)
            store.put(run)
        ranks = import_trace(fixtures / "job", source_roots=[fixtures])
        for run, run_id in zip(ranks, TRACE_JOB):
            run.id, run.created_at = run_id, minutes_ago(0.4)
            store.put(run)
        store.put(hostile_trace_run(fixtures))


HOSTILE_TRACE_RUN = "uitracehost1"
HOSTILE_MARKUP = '<img src=x onerror="window.__cpCompileXss=1">'


def hostile_trace_run(fixtures: Path) -> ProfileRun:
    """The script's trace with markup where a trace may put text: its first compile's first artifact, a frame's name
    and code, a cache key (compiles.spec.ts looks for it as text)."""
    import hashlib

    from compile_profile.engine.trace.log_import import import_trace

    (run,) = import_trace(fixtures / "script", source_roots=[fixtures])
    run.id, run.created_at, run.label = HOSTILE_TRACE_RUN, minutes_ago(0.3), "a trace with markup"
    record = next(c for c in run.compiles if c.compile_id == "0/0")
    text = f"{HOSTILE_MARKUP}\n<script>window.__cpCompileXss=2</script>\n"
    sha = hashlib.sha256(text.encode()).hexdigest()
    run.artifact_texts[sha] = text
    record.artifacts[0].sha256, record.artifacts[0].bytes = sha, len(text)
    record.stack[-1].name, record.stack[-1].code = HOSTILE_MARKUP, HOSTILE_MARKUP
    record.cache_lookups[0].key = HOSTILE_MARKUP
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--add", metavar="ID", help="put one more run with this id into the existing store")
    parser.add_argument("--add-markup", action="store_true", help="put the markup run and two unreadable rows")
    parser.add_argument("--add-inputs", metavar="ID", help="profile a function over inputs of two shapes, put its run")
    parser.add_argument("--remove", nargs="+", metavar="ID", help="delete these runs from the existing store")
    parser.add_argument("--add-views", action="store_true", help="put the runs views.spec.ts looks at")
    parser.add_argument("--add-suite", action="store_true", help="put the suite suite.spec.ts looks at, and its runs")
    parser.add_argument("--remove-suite", action="store_true", help="take it out again")
    parser.add_argument("--remove-views", action="store_true", help="take them out again")
    parser.add_argument("--add-traces", action="store_true", help="put the runs compiles.spec.ts looks at")
    args = parser.parse_args()
    if args.add_suite:
        add_suite(DB)
        return
    if args.remove_suite:
        remove_suite(DB)
        return
    if args.add_traces:
        add_trace_runs()
        return
    if args.add_views:
        add_views_runs()
        return
    if args.remove_views:
        remove_views_runs()
        return
    if args.add_markup:
        add_markup_runs()
        return
    if args.add_inputs:
        add_inputs_run(args.add_inputs)
        return
    if args.remove:
        with RunStore(DB) as store:
            for run_id in args.remove:
                store.delete(run_id)
        return
    if args.add:
        run = cuda_run()
        run.id = args.add
        run.label = f"added {args.add}"
        run.created_at = minutes_ago(0)
        with RunStore(DB) as store:
            store.put(run)
        return
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(DB) + suffix).unlink(missing_ok=True)
    runs = seeded_runs()
    slow, fast = consistency_runs()
    job = job_runs()
    stopped = stopped_runs()
    diagnosed = diagnosis_run()
    verdicts = verdict_runs()
    with RunStore(DB) as store:
        compile_failed = compile_failed_run()
        for run in [*runs, slow, fast, *job, wide_run(), *stopped, diagnosed, compile_failed, *verdicts]:
            store.put(run)
    (ROOT / NOTEBOOK).write_text(json.dumps(notebook_json(runs[0]), indent=1))
    (ROOT / DIAG_NOTEBOOK).write_text(json.dumps(diagnosis_notebook(diagnosed), indent=1))
    (ROOT / VERDICT_NOTEBOOK).write_text(json.dumps(verdict_notebook(verdicts, stopped[0]), indent=1))
    expected = {
        **expected_json(slow, fast),
        "job": job_expected(job),
        "stopped": detail_expected(stopped),
        "diagnosis": diagnosis_expected(diagnosed),
        "verdict": verdict_expected(verdicts),
        "verdict_compare": verdict_compare(verdicts),
        "compile_failed": {
            "id": COMPILE_FAILED_RUN_ID,
            "reproducer": compile_failed.errors[0].reproducer,
            "warning": run_digest(compile_failed)["warnings"][0],
            "bisect_offer": run_digest(compile_failed)["bisect_offer"],
        },
        "logs": {
            "lines": SEEDED_LOGS,
            "text": mime_bundle(runs[0], SEEDED_LOGS, SEEDED_LOG_COUNT)[MIME_TYPE]["logs_text"],
        },
    }
    EXPECTED.write_text(json.dumps(expected, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
