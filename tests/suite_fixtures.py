"""A synthetic suite (no torch, no process) for the suite's digest, server and browser tests: its records and the
runs its entries stored, built from the dataclasses (tests/synthetic_store_runs.py makes the runs)."""

from __future__ import annotations

import json
from pathlib import Path

from compile_profile.profile_run import Correctness, ProfileRun, SuiteEntryRef
from compile_profile.store import RunStore
from compile_profile.suites.records import ModelOutcome, SuiteRecord, SuiteSettings
from compile_profile.suites.storage import save_outcome
from synthetic_store_runs import make_run


def _run(run_id: str, eager_ms: float, compiled_ms: float, **changes):
    run = make_run(run_id, eager_ms=eager_ms, compiled_ms=compiled_ms, graph_breaks=0)
    eager, compiled = run.variants
    assert eager.timing is not None and compiled.timing is not None
    eager.timing.samples_ms = [eager_ms * f for f in (0.97, 0.99, 1.0, 1.0, 1.01, 1.03)]
    compiled.timing.samples_ms = [compiled_ms * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)]
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def _settings(entries: list[str], **changes) -> SuiteSettings:
    base = dict(
        collection="c.py",
        collection_name="c.py",
        collection_sha256="ab" * 32,
        entries=entries,
        tasks=["inference"],
        dtypes=["float32"],
        profile_options={"backend": "inductor", "quick": True},
        timeout_s=60.0,
    )
    base.update(changes)
    return SuiteSettings(**base)  # type: ignore[arg-type]


def _outcome(name: str, ended: str = "finished", run_id: str | None = None, **more) -> ModelOutcome:
    return ModelOutcome(name=name, model=name, task="step", dtype="float32", ended=ended, run_id=run_id, **more)  # type: ignore[arg-type]


def _suite() -> tuple[SuiteRecord, dict]:
    """Two passing entries (2× and 4.5×), one whose results differ, and one of each process failure, one skipped."""
    runs = {
        "r-fast": _run("r-fast", 9.0, 2.0),
        "r-ok": _run("r-ok", 4.0, 2.0),
        "r-wrong": _run("r-wrong", 4.0, 2.0, correctness=Correctness(ok=False, max_abs_diff=3.0)),
    }
    names = ["fast", "ok", "wrong", "hangs", "crashes", "oom", "build", "skipped"]
    record = SuiteRecord(
        id="suite0000001",
        created_at="2026-12-05T01:00:00+00:00",
        settings=_settings(names),
        torch_version="2.13.0+cpu",
        device="cpu",
        host="test",
        outcomes=[
            _outcome("fast", run_id="r-fast"),
            _outcome("ok", run_id="r-ok"),
            _outcome("wrong", run_id="r-wrong"),
            _outcome("hangs", "timeout", wall_s=60.0),
            _outcome(
                "crashes",
                "crashed",
                signal="SIGSEGV",
                exit_code=-11,
                stderr_tail=["Fatal Python error: Segmentation fault", "Extension modules: torch._C"],
            ),
            _outcome("oom", "oom", signal="SIGKILL", exit_code=-9),
            _outcome("build", "error", error="RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried"),
            _outcome("skipped", "skipped", error="torchvision does not import here"),
        ],
    )
    return record, runs


def ui_suite() -> tuple[SuiteRecord, dict]:
    """A suite as a user's collection gives one, for the browser's look at the Suite view: eleven entries that pass at
    speedups from 0.8× to 3.4×, one whose results differ, one that timed out, one that crashed, one skipped."""
    passing = {
        "gpt2": (9.1, 3.0, 29.6),
        "bert": (3.9, 3.0, 9.7),
        "t5": (12.4, 3.0, 21.1),
        "llama": (5.1, 3.0, 6.1),
        "llama (training)": (14.0, 10.0, 18.2),
        "mistral": (5.9, 3.0, 6.2),
        "mixtral-moe": (4.2, 3.0, 9.8),
        "qwen2": (6.0, 3.0, 4.8),
        "vit": (3.4, 3.0, 9.4),
        "attention hand-written L=512": (5.1, 3.0, 1.2),
        "attention sdpa-flash L=512": (2.4, 3.0, 1.1),
    }
    runs = {}
    outcomes = []
    for i, (name, (eager, compiled, compile_s)) in enumerate(passing.items()):
        run_id = f"uisuite{i:05d}"
        run = _run(run_id, eager, compiled, label=f"{name} · suite uisuite00001")
        run.suite_entry = SuiteEntryRef(suite_id="uisuite00001", entry=name)  # as a suite's child records it
        run.variants[1].compile_s = compile_s
        runs[run_id] = run
        outcomes.append(_outcome(name, run_id=run_id, wall_s=compile_s + 8))
    runs["uisuitewrong"] = _run(
        "uisuitewrong", 4.0, 2.0, correctness=Correctness(ok=False, max_abs_diff=8.82), label="miscompiled"
    )
    outcomes += [
        _outcome("miscompiled", run_id="uisuitewrong", wall_s=9.0),
        _outcome("hangs", "timeout", wall_s=600.0, stderr_tail=["compiling graph 3 of 7"]),
        _outcome(
            "crashes",
            "crashed",
            signal="SIGSEGV",
            exit_code=-11,
            wall_s=4.2,
            stderr_tail=["Fatal Python error: Segmentation fault", "Extension modules: torch._C"],
        ),
        _outcome("timm:resnet18", "skipped", error="timm does not import here (ModuleNotFoundError: torchvision)"),
    ]
    record = SuiteRecord(
        id="uisuite00001",
        created_at="2026-12-05T01:25:00+00:00",
        settings=_settings([o.name for o in outcomes], collection="builtin", collection_name="builtin"),
        torch_version="2.13.0+cpu",
        device="cpu",
        host="ui-test",
        label="before the torch upgrade",
        outcomes=outcomes,
        device_name="AMD EPYC 7B13 64-Core Processor",  # the where line at its length on a real host
        cpu="AMD EPYC 7B13 64-Core Processor",
        cores=2,
    )
    return record, runs


def store_suite(path: str | Path, record: SuiteRecord, runs: dict[str, ProfileRun]) -> str:
    """``record`` and its entries' runs put in the run store at ``path`` as a suite stores them (its record, then
    each outcome and each run); its id."""
    with RunStore(path) as store:
        store.put_suite(record.id, record.created_at, json.dumps({**record.to_dict(), "outcomes": []}))
        for outcome in record.outcomes:
            save_outcome(store, record.id, outcome)
        for run in runs.values():
            store.put(run)
    return record.id
