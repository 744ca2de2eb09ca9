"""Notebook 08 launches torchrun jobs on CPU whose ranks save their runs into the notebook's store; its test reads the jobs
from there (tests/notebook_runs.py runs it)."""

from __future__ import annotations

import pytest
from compile_profile import Job
from compile_profile.store import RunStore
from notebook_runs import ran_without_errors

pytestmark = pytest.mark.slow


def test_08_launches_a_ddp_job_and_flags_the_rank_that_diverges(executed):
    ran = executed("08_distributed")
    ran_without_errors(ran)
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
