"""A distributed job (issue 14): the job digest's figures and divergence rules, its text and HTML views, the
``Job`` object, the run store's jobs, ``ProfileRun.save`` and the CLI's ``job``, ``import`` and ``ls``.

Every view is held to the digest's words: the headline, each rank's figures and each divergence appear in
the text, the report and the CLI exactly as ``job_digest`` words them.
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3

import compile_profile
import pytest
from compile_profile.digest import breakdown, summarize
from compile_profile.digest.breakdown import COLUMNS, columns, verdict
from compile_profile.digest.distributed import ddp_split_text, distributed_text
from compile_profile.digest.format import format_ms
from compile_profile.digest.job import job_digest, job_digest_of, value_range
from compile_profile.render.html import render_html
from compile_profile.render.job_report import job_html, render_job_report_html
from compile_profile.render.job_text import render_job_text
from compile_profile.render.report import render_report_html
from compile_profile.serialize import to_dict
from compile_profile.store import SCHEMA_VERSION, RunNotFound, RunStore
from job_fixtures import (
    JOB_ID,
    add_collectives,
    add_ddp_split,
    add_graphs,
    add_print_break,
    add_recompile,
    job_runs,
    put_job,
    rank_run,
)
from render_fixtures import HOSTILE, ParsedHTML, cpu_run, failed_run
from synthetic_store_runs import back_to_schema

ROW_KEYS = {
    "rank",
    "run_id",
    "host",
    "status",
    "speedup",
    "speedup_text",
    "interval_text",
    "compile_s",
    "compile_text",
    "graphs",
    "ddp_buckets",
    "breaks",
    "recompiles",
    "cache_hits",
    "cache_misses",
    "peak_memory_bytes",
    "peak_memory_text",
    "collective_share",
    "collective_text",
    "cell_runs",
    "divergent",
    "reasons",
    "eager_text",
    "compiled_text",
    "correctness_text",
    "error_text",
    "notes",
}


def divergences(runs) -> list[tuple[int, str, str]]:
    return [(d["rank"], d["what"], d["text"]) for d in job_digest(runs)["divergences"]]


# -- the digest's shape and figures -------------------------------------------------------------


def test_a_job_digest_has_the_agreed_keys_and_survives_json():
    digest = job_digest(job_runs(2))
    assert json.loads(json.dumps(digest)) == digest
    assert set(digest) == {
        "job_id",
        "world_size",
        "backend",
        "torchrun_id",
        "ranks",
        "missing_ranks",
        "headline",
        "compile_spread",
        "rows",
        "divergences",
        "peak_memory_note",
        "ddp_note",
    }
    assert set(digest["compile_spread"]) == {"min_s", "median_s", "max_s", "text"}
    assert all(set(row) == ROW_KEYS for row in digest["rows"])
    assert (digest["job_id"], digest["world_size"], digest["backend"], digest["torchrun_id"]) == (
        JOB_ID,
        2,
        "gloo",
        "tr-42",
    )


def test_ranks_that_agree_say_so_in_the_headline():
    digest = job_digest(list(reversed(job_runs(2))))
    assert digest["ranks"] == [0, 1] and digest["missing_ranks"] == [] and digest["divergences"] == []
    assert digest["headline"] == "2 ranks (gloo): speedup 0.95×, compile 800 ms; the ranks agree"
    assert digest["compile_spread"] == {
        "min_s": 0.8,
        "median_s": 0.8,
        "max_s": 0.8,
        "text": "compile 800 ms on each of 2 ranks",
    }
    assert [row["divergent"] for row in digest["rows"]] == [False, False]


def test_each_ranks_speedup_and_compile_time_are_the_run_digests_own():
    runs = job_runs(3)
    runs[1].speedup.value, runs[1].variants[1].compile_s = 1.07, 0.95
    runs[2].speedup.value = 0.98
    digest = job_digest(runs)
    for run, row in zip(runs, digest["rows"]):
        s = summarize(run)
        assert row["speedup"] == s["speedup"]["value"] and row["speedup_text"] == s["speedup"]["text"]
        assert row["interval_text"] == s["speedup"]["interval_text"]
        assert row["compile_s"] == s["compile_s"]
        assert (row["graphs"], row["breaks"], row["recompiles"]) == (
            s["graph_count"],
            s["graph_break_count"],
            s["recompile_count"],
        )
        assert row["run_id"] == run.id and row["host"] == "node0" and row["cell_runs"] == 46
    assert digest["headline"] == "3 ranks (gloo): speedup 0.95×–1.07×, compile 800–950 ms; the ranks agree"
    assert digest["compile_spread"]["text"] == "compile 800–950 ms across 3 ranks (median 800 ms)"


def test_ranges_say_a_shared_unit_once():
    assert value_range([3.1, 3.4], lambda s: f"{s:.1f} s") == "3.1–3.4 s"
    assert value_range([0.95, 1.2], lambda s: "950 ms" if s < 1 else "1.2 s") == "950 ms–1.2 s"
    assert value_range([0.98, 1.07], lambda x: f"{x:.2f}×") == "0.98×–1.07×"


def test_the_collective_share_is_of_the_speedups_variants_kernel_time():
    runs = job_runs(2)
    add_collectives(runs[1], 1.0)
    rows = job_digest(runs)["rows"]
    compiled = breakdown(runs[1])[1]  # inductor/default: library 4.5, generated 3.25, ATen 0.75, collectives 1
    assert rows[1]["collective_share"] == pytest.approx(1.0 / compiled.kernels_ms) == pytest.approx(1 / 9.5)
    assert rows[1]["collective_text"] == "11% of kernel time (1 ms)"
    assert rows[0]["collective_share"] == 0.0 and rows[0]["collective_text"] == "0% of kernel time"
    run = failed_run()  # no compiled timing: no breakdown to divide
    assert job_digest([run])["rows"][0]["collective_text"] == "not measured"


def test_cache_and_peak_memory_per_rank():
    digest = job_digest([rank_run(0, 1)])
    (row,) = digest["rows"]
    assert (row["cache_hits"], row["cache_misses"]) == (1, 0)
    assert row["peak_memory_bytes"] is None
    # A short cell; why is said once, under the table, in the run digest's words
    assert row["peak_memory_text"] == "not measured (CPU)"
    assert digest["peak_memory_note"] == (
        "peak memory: not measured on CPU (peak memory is read from the CUDA allocator)"
    )
    runs = job_runs(2)
    for run in runs:
        run.variants[1].peak_memory_bytes = 3 * 1024**2
    digest = job_digest(runs)
    assert [r["peak_memory_text"] for r in digest["rows"]] == ["3.0 MiB"] * 2 and digest["peak_memory_note"] == ""


def test_each_ranks_eager_and_compiled_medians_are_the_run_digests_variant_rows():
    runs = job_runs(2)
    runs[1].variants[1].timing.median_ms = 20.0
    digest = job_digest(runs)
    assert [(r["eager_text"], r["compiled_text"]) for r in digest["rows"]] == [
        ("9.43 ms", "10.3 ms"),
        ("9.43 ms", "20 ms"),
    ]
    for run, row in zip(runs, digest["rows"]):
        eager, compiled = summarize(run)["variants"]
        assert row["eager_text"] == format_ms(eager["median_ms"]) and row["compiled_text"] == format_ms(
            compiled["median_ms"]
        )


def test_each_ranks_correctness_is_the_run_digests_sentence_and_another_verdict_diverges():
    runs = job_runs(3)
    digest = job_digest(runs)
    for run, row in zip(runs, digest["rows"]):
        assert row["correctness_text"] == summarize(run)["correctness"]["text"]
    assert digest["rows"][0]["correctness_text"] == (
        "compiled results differ from eager in y (max abs diff 0.031); judged by dtype tolerance only"
    )
    assert digest["divergences"] == []  # every rank differs the same way: no rank diverges
    runs[0].correctness.ok, runs[1].correctness.ok = True, True
    assert divergences(runs) == [
        (2, "correctness", "compiled results differ from eager where the others' match eager (max abs diff 0.031)")
    ]
    two = job_runs(2)
    two[0].correctness.ok = True  # no majority: the rank whose results differ diverges
    assert divergences(two) == [
        (1, "correctness", "compiled results differ from eager where the others' match eager (max abs diff 0.031)")
    ]
    two[1].correctness = None  # a rank that did not check is not compared
    assert divergences(two) == [] and job_digest(two)["rows"][1]["correctness_text"] == "not checked"


def test_a_rank_whose_first_graph_took_other_input_shapes_diverges():
    runs = job_runs(3)
    for run in runs:
        run.graphs[0].input_shapes = [[512, 128], [512], [32, 128]]
    runs[2].graphs[0].input_shapes = [[512, 128], [512], [64, 128]]
    assert divergences(runs) == [(2, "inputs", "inputs [64, 128] where the others have [32, 128]")]
    assert job_digest(runs)["headline"].endswith("rank 2 diverges: inputs [64, 128] where the others have [32, 128]")
    runs[2].graphs[0].input_shapes = [[512, 128], [512]]
    assert divergences(runs) == [(2, "inputs", "2 graph inputs where the others have 3")]
    runs[2].graphs[0].input_shapes = []  # a run that recorded no shapes is not compared
    assert divergences(runs) == []


def test_every_rank_failing_the_same_way_says_so_with_the_error():
    runs = [rank_run(r, base=failed_run()) for r in range(2)]
    digest = job_digest(runs)
    assert digest["headline"] == (
        "2 ranks (gloo): every rank failed at compile: LoweringException: NotImplementedError: aten.weird…"
    )
    assert [r["error_text"] for r in digest["rows"]] == [
        "compile: LoweringException: NotImplementedError: aten.weird…"
    ] * 2
    assert [r["compiled_text"] for r in digest["rows"]] == ["failed"] * 2
    assert digest["compile_spread"]["text"] == "no compiled variant finished"
    assert digest["divergences"] == []
    runs[1].errors[0].stage, runs[1].errors[0].message = "compiled run", "AssertionError: First bucket should be"
    assert job_digest(runs)["headline"] == (
        "2 ranks (gloo): every rank failed: rank 0 at compile: LoweringException: NotImplementedError: aten.weird…; "
        "rank 1 in the compiled run: AssertionError: First bucket should be"
    )
    assert job_digest(job_runs(2))["rows"][0]["error_text"] == ""


def test_a_rank_waiting_for_a_diverging_rank_says_so_in_a_note():
    runs = job_runs(2)
    add_recompile(runs[1])
    for run in runs:  # both calls mostly outside their kernels: rank 0 waits in the all-reduce for rank 1
        run.variants[1].timing.median_ms = 200.0
    digest = job_digest(runs)
    assert [r["notes"] for r in digest["rows"]] == [
        [
            "its compiled call (200 ms, of which kernels 8.5 ms) includes waiting for rank 1, which diverges in "
            "recompiles"
        ],
        [],
    ]
    assert [d["rank"] for d in digest["divergences"]] == [1]  # a note, not a divergence
    runs[0].variants[1].timing.median_ms = 10.0  # its kernels are most of its call: no wait to speak of
    assert [r["notes"] for r in job_digest(runs)["rows"]] == [[], []]


def test_a_ranks_verdict_counts_the_wait_for_other_ranks_outside_its_kernels():
    runs = job_runs(2)
    assert verdict(runs[0]) == (
        "compiled is about as fast as eager (the speedup's interval includes 1×): its kernels take 8.5 ms of host "
        "time (eager 8.25 ms) and each call spends 1.82 ms of host time outside them (eager 1.18 ms; Python, guards, "
        "dispatch and waiting for other ranks)"
    )
    assert verdict(rank_run(0, 1)).endswith("outside them (eager 1.18 ms)")  # a job of one rank waits for none
    assert verdict(cpu_run()).endswith("outside them (eager 1.18 ms)")


def test_ddp_buckets_order_is_said_once_where_they_are_shown():
    runs = job_runs(2)
    assert job_digest_of(runs).ddp_note == ""
    for run in runs:
        add_ddp_split(run, 2)
    digest = job_digest_of(runs)
    assert digest.ddp_note == (
        "DDP buckets: DDPOptimizer's pieces, numbered in forward order (piece 0 holds the first layers); DDP "
        "all-reduces its buckets the other way round, the last layers' first, as the backward produces their "
        "gradients"
    )
    text, page = render_job_text(digest), render_job_report_html(digest)
    assert text.count("numbered in forward order") == 1 and page.count("numbered in forward order") == 1


# -- divergence rules -------------------------------------------------------------------------


def test_a_rank_with_more_dynamo_graphs_diverges():
    runs = job_runs(2)
    add_graphs(runs[1], 2)
    assert divergences(runs) == [(1, "graphs", "3 Dynamo graphs where the others have 1")]
    digest = job_digest(runs)
    assert digest["headline"] == (
        "2 ranks (gloo): speedup 0.95×, compile 800 ms; rank 1 diverges: 3 Dynamo graphs where the others have 1"
    )
    assert digest["rows"][1]["divergent"]
    assert digest["rows"][1]["reasons"] == ["3 Dynamo graphs where the others have 1"]
    assert not digest["rows"][0]["divergent"]


def test_a_rank_is_compared_with_most_of_the_others():
    runs = job_runs(4)
    for run in runs[:3]:
        add_graphs(run, 2)  # three ranks have 3 graphs: the one with 1 diverges, though 1 is fewer
    assert divergences(runs) == [(3, "graphs", "1 Dynamo graph where the others have 3")]
    runs = job_runs(4)
    add_graphs(runs[2], 1)
    add_graphs(runs[3], 2)
    assert divergences(runs) == [
        (2, "graphs", "2 Dynamo graphs where most ranks have 1"),
        (3, "graphs", "3 Dynamo graphs where most ranks have 1"),
    ]


def test_a_rank_that_breaks_elsewhere_diverges_naming_the_break():
    runs = job_runs(2)
    add_print_break(runs[1])
    assert divergences(runs) == [
        (
            1,
            "breaks",
            "graph breaks differ from the others': extra graph break at cell line 5 (print(y.sum())): builtin: print",
        )
    ]
    runs = job_runs(3)
    add_print_break(runs[0])
    add_print_break(runs[1])
    assert divergences(runs) == [
        (
            2,
            "breaks",
            "graph breaks differ from the others': missing graph break at cell line 5 (print(y.sum())): builtin: print",
        )
    ]


def test_a_rank_that_recompiled_alone_diverges_naming_the_first_recompile():
    runs = job_runs(2)
    add_recompile(runs[0])
    assert divergences(runs) == [
        (
            0,
            "recompiles",
            "recompiled once where the others did not; the first: the guard on "
            "x (cell line 2) failed; Dynamo: tensor 'L['x']' size mismatch at "
            "index 0. expected 1024, actual 512",
        )
    ]
    runs = job_runs(3)
    for run in runs:
        add_recompile(run)
    add_recompile(runs[1])
    assert divergences(runs)[0][2].startswith("recompiled 2 times where the others recompiled once; the first: ")
    runs = job_runs(3)
    add_recompile(runs[0])
    add_recompile(runs[1])
    assert divergences(runs) == [(2, "recompiles", "did not recompile where the others recompiled once")]


def test_a_slow_compile_diverges_only_beyond_two_and_a_half_times_and_a_second():
    runs = job_runs(3)
    runs[2].variants[1].compile_s = 5.0
    assert divergences(runs) == [(2, "compile_time", "compile 5 s where the others' median is 800 ms")]
    runs = job_runs(2)
    runs[1].variants[1].compile_s = 0.9  # three times the other's, but only 0.6 s longer
    runs[0].variants[1].compile_s = 0.3
    assert divergences(runs) == []
    for run in runs:
        run.variants[1].compile_s = 10.0
    runs[0].variants[1].compile_s = 17.7  # 7.7 s longer, but only 1.77 times (a shared kernel cache does that)
    assert divergences(runs) == []
    runs[0].variants[1].compile_s = 26.0
    assert divergences(runs) == [(0, "compile_time", "compile 26 s where the other rank took 10 s")]


def test_a_cold_ranks_compile_is_held_only_to_other_cold_ranks():
    # ranks on one machine share Inductor's cache: the first fills it for the others (CI, torch 2.6: rank 0
    # cold 5.5 s against rank 1 partly cached 3.08 s read as rank 0 diverging)
    runs = job_runs(2)
    runs[0].variants[1].compile_s, runs[1].variants[1].compile_s = 26.0, 10.0
    runs[0].variants[1].cache_state, runs[1].variants[1].cache_state = "cold", "mixed"
    assert divergences(runs) == []
    runs[1].variants[1].cache_state = "cold"
    assert divergences(runs) == [(0, "compile_time", "compile 26 s where the other rank took 10 s")]


def test_a_rank_out_of_lock_step_names_the_stage():
    runs = job_runs(3)
    runs[1].distributed.calls_by_stage["timing"] = 41
    assert divergences(runs) == [
        (1, "calls", "broke the lock-step: 41 calls of the step in stage 'timing' where the others made 40")
    ]
    runs = job_runs(2)
    runs[1].distributed.calls_by_stage["warm-up"] = 2  # two ranks: rank 0's calls are the job's
    assert divergences(runs) == [
        (1, "calls", "broke the lock-step: 2 calls of the step in stage 'warm-up' where the others made 3")
    ]


def test_a_failed_rank_diverges_and_its_partial_figures_are_not_compared():
    runs = job_runs(2)
    runs[1] = rank_run(1, base=failed_run())  # no graphs, no compile time: not reported as such
    assert divergences(runs) == [
        (1, "status", "failed where the others are ok: compile: LoweringException: NotImplementedError: aten.weird…")
    ]
    assert job_digest(runs)["headline"] == (
        "2 ranks (gloo): speedup 0.95×, compile 800 ms; rank 1 diverges: failed "
        "where the others are ok: compile: LoweringException: "
        "NotImplementedError: aten.weird…"
    )


def test_a_different_ddp_bucket_count_diverges():
    runs = job_runs(3)
    for run in runs:
        add_ddp_split(run, 2)
    runs[2].ddp_splits = []
    add_ddp_split(runs[2], 3)
    assert [row["ddp_buckets"] for row in job_digest(runs)["rows"]] == [2, 2, 3]
    assert divergences(runs) == [(2, "ddp_buckets", "3 DDP buckets where the others have 2")]


def test_a_rank_with_no_run_is_missing():
    runs = [rank_run(0, 4), rank_run(1, 4), rank_run(3, 4)]
    digest = job_digest(runs)
    assert digest["ranks"] == [0, 1, 3] and digest["missing_ranks"] == [2]
    assert divergences(runs) == [
        (2, "missing", "no run (it did not finish profiling, or its run was not saved or imported)")
    ]
    assert digest["headline"] == "3 of 4 ranks (gloo): speedup 0.95×, compile 800 ms; no run from rank 2"


def test_a_job_of_one_run_has_no_divergences():
    run = rank_run(0, 1)
    add_graphs(run, 3)
    digest = job_digest([run])
    assert digest["divergences"] == [] and digest["headline"] == "1 rank (gloo): speedup 0.95×, compile 800 ms"
    assert job_digest([cpu_run()])["job_id"] == cpu_run().id  # a run outside torch.distributed is its own job


def test_every_divergence_of_a_rank_is_its_reason_and_the_headline_counts_the_rest():
    runs = job_runs(2)
    add_graphs(runs[1], 2)
    add_recompile(runs[1])
    row = job_digest(runs)["rows"][1]
    assert row["reasons"] == [t for r, _, t in divergences(runs) if r == 1] and len(row["reasons"]) == 2
    assert job_digest(runs)["headline"].endswith(
        "rank 1 diverges: 3 Dynamo graphs where the others have 1 (and 1 more)"
    )


def test_a_rank_imported_twice_keeps_its_newest_run():
    runs = job_runs(2)
    again = rank_run(1)
    again.id, again.created_at = "job0a1r1b", "2026-12-02T00:00:00+00:00"
    assert [row["run_id"] for row in job_digest([*runs, again])["rows"]] == ["job0a1r0", "job0a1r1b"]


# -- a run's own view of its place in the job ---------------------------------------------------


def test_a_distributed_runs_summary_text_and_html_name_its_rank_and_job():
    run = rank_run(1)
    assert summarize(run)["distributed"] == {
        "rank": 1,
        "world_size": 2,
        "job_id": JOB_ID,
        "backend": "gloo",
        "text": f"rank 1 of 2 (gloo), job {JOB_ID}",
    }
    assert summarize(cpu_run())["distributed"] is None and summarize(cpu_run())["ddp_splits"] == []
    assert f"rank 1 of 2 (gloo), job {JOB_ID}" in str(run).splitlines()
    assert distributed_text(run) in ParsedHTML(render_html(run)).text


def test_a_ddp_split_is_told_beside_the_graph_breaks_not_as_one():
    run = rank_run(0)
    add_ddp_split(run, 2)
    text = (
        "DDPOptimizer split graph 0/0 into 2 pieces at DDP's bucket boundaries (not graph breaks): piece 0: "
        "layers.2.weight, layers.2.bias (1.0 MiB); piece 1: layers.1.weight, layers.1.bias (1.0 MiB); "
        "bucket cap 25.0 MiB"
    )
    assert ddp_split_text(run, run.ddp_splits[0]) == text
    assert summarize(run)["ddp_splits"] == [
        {
            "variant": "inductor/default",
            "compile_id": "0/0",
            "graph_id": "g0",
            "pieces": 2,
            "bucket_cap_bytes": 25 * 1_048_576,
            "text": text,
        }
    ]
    lines = str(run).splitlines()
    assert lines[lines.index("graphs: 1 Dynamo graph, 0 graph breaks, 0 recompiles") + 1] == f"  {text}"
    assert text in ParsedHTML(render_html(run)).text
    assert text in ParsedHTML(render_report_html(run)).text
    run.ddp_splits[0].buckets[0].params = [f"layers.2.p{i}" for i in range(5)]
    assert "piece 0: layers.2.p0, layers.2.p1, layers.2.p2, … (5 parameters, 1.0 MiB)" in ddp_split_text(
        run, run.ddp_splits[0]
    )


def test_collectives_are_a_breakdown_column_only_when_a_call_spent_time_in_them():
    run = cpu_run()
    assert columns(breakdown(run)) == COLUMNS and "collectives" not in str(run)
    add_collectives(run, 1.0)
    rows = breakdown(run)
    assert [key for key, _ in columns(rows)] == [
        "library",
        "generated",
        "aten",
        "copies",
        "collectives",
        "outside",
        "call",
    ]
    assert rows[1].parts()["collectives"] == 1.0 and summarize(run)["breakdown"][1]["collective_ms"] == 1.0
    header = next(line for line in str(run).splitlines() if line.strip().startswith("variant"))
    assert header.split() == [
        "variant",
        "library",
        "generated",
        "ATen",
        "copies",
        "collectives",
        "outside",
        "kernels",
        "call",
    ]
    assert "collectives" in [c for row in ParsedHTML(render_html(run)).rows for c in row]


# -- views of the job ------------------------------------------------------------------------------


@pytest.fixture
def divergent_job():
    runs = job_runs(3)
    add_graphs(runs[1], 2)
    add_recompile(runs[1])
    runs[2].variants[1].compile_s = 5.0
    return runs


def test_the_text_view_shows_the_digests_words(divergent_job):
    digest = job_digest_of(divergent_job)
    text = render_job_text(digest)
    lines = text.splitlines()
    assert lines[:3] == [f"job {JOB_ID}, torchrun tr-42", digest.headline, digest.compile_spread.text]
    for row in digest.rows:
        line = next(line for line in lines if line.startswith(f"{row.rank}  "))
        for word in (
            row.run_id,
            row.eager_text,
            row.compiled_text,
            row.speedup_text,
            row.interval_text,
            row.compile_text,
            row.collective_text,
        ):
            assert word in line
        assert line.rstrip().endswith("DIVERGES") == row.divergent
        assert f"rank {row.rank} correctness: {row.correctness_text}" in lines
    assert digest.peak_memory_note in lines
    for d in digest.divergences:
        assert f"  rank {d.rank}: {d.text}" in lines


def test_the_html_report_highlights_divergent_ranks_with_their_reasons(divergent_job):
    digest = job_digest_of(divergent_job)
    page = render_job_report_html(digest)
    parsed = ParsedHTML(page)
    assert "<script" not in page.lower()
    assert digest.headline in parsed.text and digest.compile_spread.text in parsed.text
    divergent_rows = page.count('<tr class="cp-divergent"')
    assert divergent_rows == sum(row.divergent for row in digest.rows) == 2
    for row in digest.rows:
        (cells,) = [r for r in parsed.rows if r and r[0] == str(row.rank)]
        assert cells[1] == row.run_id and cells[6] == row.speedup_text and cells[8] == row.compile_text
        assert (cells[4], cells[5]) == (row.eager_text, row.compiled_text)
        assert row.correctness_text in cells
        for reason in row.reasons:
            assert reason in cells[-1]
    for d in digest.divergences:
        assert f"rank {d.rank}: {d.text}" in parsed.text
    assert job_html(digest) in page


def test_a_missing_rank_has_its_own_row_in_the_report():
    page = render_job_report_html(job_digest_of([rank_run(0, 3), rank_run(2, 3)]))
    assert 'class="cp-divergent cp-missing"' in page and ["1", "no run"] in ParsedHTML(page).rows


def test_hostile_text_in_a_job_stays_text():
    runs = job_runs(2)
    for run in runs:
        run.distributed.host = HOSTILE
    add_print_break(runs[1])
    runs[1].graph_breaks[0].reason = f"builtin: print {HOSTILE}"
    runs[1].distributed.backend = HOSTILE
    page = render_job_report_html(job_digest_of(runs))
    assert "<script>alert" not in page and "<img src=x" not in page
    assert HOSTILE in ParsedHTML(page).text


def test_the_job_object_sorts_by_rank_and_shows_its_digest(divergent_job):
    job = compile_profile.Job(list(reversed(divergent_job)))
    assert [r.distributed.rank for r in job.runs] == [0, 1, 2] and job.job_id == JOB_ID
    assert job.summary() == job_digest(divergent_job) == to_dict(job_digest_of(divergent_job))
    assert str(job) == render_job_text(job_digest_of(divergent_job))
    assert job._repr_html_() == job_html(job_digest_of(divergent_job))
    assert job.to_html() == render_job_report_html(job_digest_of(divergent_job))
    assert repr(job) == f"<Job {JOB_ID}: ranks [0, 1, 2]>"
    with pytest.raises(ValueError):
        compile_profile.Job([])


# -- the store -----------------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path):
    return tmp_path / "runs.sqlite"


def test_save_writes_a_run_to_the_store_and_returns_its_id(db, monkeypatch):
    run = rank_run(0)
    assert run.save(db) == run.id
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(db))
    other = rank_run(1)
    assert other.save() == other.id
    with RunStore(db) as store:
        assert store.get(run.id) == run and store.get(other.id) == other


def test_a_job_is_found_by_its_id_or_any_of_its_runs_ids_ordered_by_rank(db):
    runs = job_runs(3)
    with RunStore(db) as store:
        for run in reversed(runs):
            store.put(run)
        store.put(cpu_run())
        assert store.job(JOB_ID) == runs
        assert store.job(runs[2].id) == runs
        with pytest.raises(RunNotFound, match="no job with id 'nosuchjob'"):
            store.job("nosuchjob")
        with pytest.raises(RunNotFound):
            store.job(cpu_run().id)  # a run, but of no job
        assert {s["id"] for s in store.list(job=JOB_ID)} == {r.id for r in runs}
        assert store.count(job=JOB_ID) == 3 and store.count() == 4
        assert store.list(job=JOB_ID, notebook="elsewhere") == []
        assert compile_profile.Job.load(runs[1].id, db).runs == runs


def test_migration_3_files_existing_runs_under_their_job(db):
    runs = job_runs(2)
    with RunStore(db) as store:
        for run in runs:
            store.put(run)
    with sqlite3.connect(db) as conn:
        back_to_schema(conn, 2)
        conn.execute(
            "INSERT INTO runs (id, created_at, created_ts, status, run_json) VALUES "
            "('broken', '2026-01-01', 0, 'ok', '{not json')"
        )
    with RunStore(db) as store:
        assert store.job(JOB_ID) == runs
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        assert conn.execute("SELECT job_id FROM runs WHERE id = 'broken'").fetchone() == (None,)


def test_two_ranks_saving_into_one_store_at_once_both_land(db):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=put_job, args=(str(db), JOB_ID, [rank], 2)) for rank in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    with RunStore(db) as store:
        runs = store.job(JOB_ID)
        assert len(runs) == 40 and store.count(job=JOB_ID) == 40
        assert sorted({r.distributed.rank for r in runs}) == [0, 1]
        assert job_digest(runs)["ranks"] == [0, 1]


# -- the CLI -------------------------------------------------------------------------------------


def test_cli_job_prints_the_jobs_text_and_writes_its_report(cli, db, divergent_job, tmp_path):
    with RunStore(db) as store:
        for run in divergent_job:
            store.put(run)
    digest = job_digest_of(divergent_job)
    code, out, err = cli("job", JOB_ID)
    assert code == 0 and err == ""
    assert out == render_job_text(digest) + "\n"
    code, out, _ = cli("job", divergent_job[2].id, "--html", str(tmp_path / "job.html"))
    assert code == 0 and out.endswith(f"wrote {tmp_path / 'job.html'}\n")
    assert (tmp_path / "job.html").read_text(encoding="utf-8") == render_job_report_html(digest)
    code, out, _ = cli("job", JOB_ID, "--json")
    assert code == 0
    assert json.loads(out) == json.loads(
        json.dumps({"job": to_dict(digest), "runs": [summarize(r) for r in divergent_job]})
    )


def test_cli_job_of_an_unknown_id_exits_1_saying_what_to_do(cli, db):
    code, out, err = cli("job", "nosuchjob")
    assert code == 1 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"compile-profile: error: no job nosuchjob in {db}")
    assert "compile-profile ls" in line and "compile-profile import FILE..." in line


def test_cli_import_reads_each_ranks_json_and_names_the_jobs(cli, db, tmp_path):
    files = []
    for run in [*job_runs(2), cpu_run()]:
        path = tmp_path / f"{run.id}.json"
        path.write_text(run.to_json(), encoding="utf-8")
        files.append(str(path))
    code, out, err = cli("import", *files)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"imported run {cpu_run().id} (not part of a distributed job)",
        f"imported job {JOB_ID}: ranks 0, 1 (`compile-profile job {JOB_ID}` shows it)",
    ]
    with RunStore(db) as store:
        assert store.job(JOB_ID) == job_runs(2)


def test_cli_import_of_bad_json_names_the_file_and_imports_nothing(cli, db, tmp_path):
    good = tmp_path / "rank0.json"
    good.write_text(rank_run(0).to_json(), encoding="utf-8")
    bad = tmp_path / "rank1.json"
    bad.write_text('{"id": "x", ', encoding="utf-8")
    code, _, err = cli("import", str(good), str(bad))
    assert code == 2 and f"compile-profile: error: {bad} is not a run's JSON (run.to_json())" in err
    assert not db.exists() or RunStore(db).count() == 0
    bad.write_text('{"id": "x"}', encoding="utf-8")
    code, _, err = cli("import", str(bad))
    assert code == 2 and str(bad) in err and "Traceback" not in err
    code, _, err = cli("import", str(tmp_path / "absent.json"))
    assert code == 2 and "cannot read" in err and "absent.json" in err


def test_cli_ls_marks_the_runs_of_a_job_with_their_rank(cli, db):
    with RunStore(db) as store:
        store.put(cpu_run())
        for run in job_runs(2):
            store.put(run)
    code, out, _ = cli("ls")
    header, *rows = out.strip().splitlines()
    assert header.rstrip().endswith("RANK/JOB")
    assert next(r for r in rows if r.startswith("job0a1r1")).rstrip().endswith(f"rank 1/2 job {JOB_ID}")
    # cpu_run's compiled y differs from eager: its STATUS says so, where it said "ok"
    assert "results differ 1.05× slower" in " ".join(next(r for r in rows if r.startswith(cpu_run().id)).split())
    code, out, _ = cli("ls", "--job", JOB_ID, "--json")
    assert code == 0 and [s["id"] for s in json.loads(out)] == ["job0a1r1", "job0a1r0"]
