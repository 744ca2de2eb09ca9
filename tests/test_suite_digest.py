"""The suite's records, digest, comparison, views and store, on synthetic runs and outcomes: no torch compile, no
process (tests/test_suite_run.py runs real suites)."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import zlib

import pytest
from compile_profile import stats
from compile_profile.cli import main
from compile_profile.digest.format import ratio_phrase
from compile_profile.profile_run import Artifact, CompileRecord, ErrorInfo
from compile_profile.store import SCHEMA_VERSION, RunStore
from compile_profile.suites import charts, collection
from compile_profile.suites.compare import ExportModel, compare_suites, export, read_export
from compile_profile.suites.digest import STATUSES, suite_digest
from compile_profile.suites.records import SuiteRecord
from compile_profile.suites.storage import load_suite, merge_store, save_outcome, stored_suites
from compile_profile.suites.views import comparison_text, mime_bundle, render_report_html, render_text
from suite_fixtures import _outcome, _run, _settings, _suite, store_suite
from synthetic_store_runs import back_to_schema, make_run

EXPORT_MODEL_KEYS = [
    "name",
    "status",
    "speedup",
    "speedup_low",
    "speedup_high",
    "compile_s",
    "graph_breaks",
    "recompiles",
    "peak_eager_bytes",
    "peak_compiled_bytes",
    "top_cause",
    "run_id",
]
EXPORT_SUMMARY_KEYS = ["pass_rate", "geomean_speedup", "geomean_low", "geomean_high", "median_compile_s"]


def test_each_outcome_gets_its_status_worded_from_the_card_or_the_process():
    record, runs = _suite()
    digest = suite_digest(record, runs)
    status = {r.name: r.status for r in digest.rows}
    assert status == {
        "fast": "pass",
        "ok": "pass",
        "wrong": "differs",
        "hangs": "timeout",
        "crashes": "crashed",
        "oom": "oom",
        "build": "oom",  # the CPU allocator's message is an out-of-memory, not an eager failure
        "skipped": "skipped",
    }
    rows = {r.name: r for r in digest.rows}
    assert "still running after 60 s" in rows["hangs"].status_text
    assert "SIGSEGV" in rows["crashes"].status_text and "Fatal Python error" in rows["crashes"].status_text
    assert "out-of-memory killer" in rows["oom"].status_text
    assert "not meaningful" in rows["wrong"].speedup_text and not rows["wrong"].speedup_meaningful
    assert rows["fast"].speedup_text.startswith("4.50× faster [")


def test_the_pass_rate_leaves_out_the_skipped_and_the_geomean_is_over_the_passing_only():
    record, runs = _suite()
    s = suite_digest(record, runs).summary
    assert (s.passed, s.counted, s.entries) == (2, 7, 8)
    assert s.pass_rate == pytest.approx(2 / 7)
    assert s.pass_rate_text == "2 of 7 entries pass (29%)"
    assert s.geomean_speedup == pytest.approx(math.sqrt(4.5 * 2.0))  # the differing entry's 2× is not in it
    assert s.geomean_low is not None and s.geomean_high is not None
    assert s.geomean_low < s.geomean_speedup < s.geomean_high
    assert s.median_compile_s == pytest.approx(3.5)


def test_the_dashboards_flags_name_a_slow_entry_and_nothing_else():
    record, runs = _suite()
    runs["r-ok"] = _run("r-ok", 1.8, 2.0)  # 0.9×: below 0.95×
    digest = suite_digest(record, runs)
    assert digest.flags == ["ok: 1.11× slower, below the dashboard's 0.95× (1.05× slower)"]


def test_a_suite_with_entries_not_run_yet_says_how_to_continue_it():
    record, runs = _suite()
    record.settings.entries.append("later")
    digest = suite_digest(record, runs)
    assert not digest.complete and digest.pending == ["later"]
    assert f"--suite-id {record.id}" in digest.pending_text


def test_a_run_deleted_from_the_store_is_said_so_not_counted_as_a_pass():
    record, runs = _suite()
    del runs["r-fast"]
    row = next(r for r in suite_digest(record, runs).rows if r.name == "fast")
    assert row.status == "missing" and "r-fast" in row.status_text


def test_a_compile_that_ran_out_of_memory_is_oom():
    run = _run("r-mem", 4.0, 2.0, speedup=None)
    run.variants[1].timing = None
    run.errors = [
        ErrorInfo(
            stage="compile", message="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate", variant="inductor"
        )
    ]
    run.variants[1].error = "torch.OutOfMemoryError: CUDA out of memory."
    record = SuiteRecord(
        "s2",
        "2026-12-05T01:00:00+00:00",
        _settings(["m"]),
        "2.13",
        "cuda",
        "h",
        outcomes=[_outcome("m", run_id="r-mem")],
    )
    assert suite_digest(record, {"r-mem": run}).rows[0].status == "oom"


def test_the_json_export_has_the_issues_field_names_in_its_order_and_after_them_only_the_caveat_and_the_cache():
    record, runs = _suite()
    data = json.loads(json.dumps(_export_dict(record, runs)))
    assert list(data) == ["models", "summary", "environment"]
    assert all(list(m) == [*EXPORT_MODEL_KEYS, "speedup_caveat", "compile_cache"] for m in data["models"])
    assert list(data["summary"]) == EXPORT_SUMMARY_KEYS
    assert data["environment"]["torch"] == "2.13.0+cpu" and data["environment"]["device"] == "cpu"


def _export_dict(record, runs):
    from compile_profile import serialize

    return serialize.to_dict(export(suite_digest(record, runs)))


def test_the_chart_has_a_bar_per_entry_sorted_coloured_by_status_with_the_geomean_marked():
    record, runs = _suite()
    digest = suite_digest(record, runs)
    figure = charts.speedup_figure(digest)
    bar = figure["data"][0]
    statuses = bar["meta"]["statuses"]
    assert len(bar["y"]) == 7  # every entry but the skipped one
    timed = [x for x, s in zip(bar["x"], statuses) if s in ("pass", "differs")]
    assert timed == sorted(timed)
    assert bar["marker"]["color"] == [STATUSES[s].colour for s in statuses]
    geomean = digest.summary.geomean_speedup
    assert any(shape["x0"] == geomean for shape in figure["layout"]["shapes"])
    scatter = charts.compile_figure(digest)["data"][0]
    assert len(scatter["x"]) == 3 and scatter["x"] == [3.5, 3.5, 3.5]


def test_the_chart_words_every_bar_and_the_geomean_as_the_headline_does_and_names_the_compile_points():
    record, runs = _suite()
    digest = suite_digest(record, runs)
    figure = charts.speedup_figure(digest)
    bar = figure["data"][0]
    timed = [(x, label) for x, label, s in zip(bar["x"], bar["text"], bar["meta"]["statuses"]) if s == "pass"]
    assert timed and all(label.startswith(ratio_phrase(x)) for x, label in timed)
    assert all(label.endswith(("faster", "slower")) or "(" in label for _, label in timed)
    (mark,) = figure["layout"]["annotations"]
    assert mark["text"] == f"geomean {ratio_phrase(digest.summary.geomean_speedup)}"
    compile_trace = charts.compile_figure(digest)["data"][0]
    assert compile_trace["mode"] == "markers+text"
    assert sorted(compile_trace["text"]) == sorted(
        r.name for r in digest.rows if r.compile_s is not None and r.speedup is not None
    )
    assert compile_trace["textposition"][:2] == ["top center", "bottom center"]  # neighbours alternate


def test_views_lay_out_the_digests_words():
    record, runs = _suite()
    digest = suite_digest(record, runs)
    text = render_text(digest)
    assert digest.headline in text and "timed out" in text
    page = render_report_html(digest)
    assert "Plotly.newPlot" in page and "<script src" not in page  # self-contained
    assert '"speedup"' in page and "timed out" in page
    bundle = mime_bundle(digest)
    assert bundle["application/vnd.compile-profile.suite+json"]["suite"]["headline"] == digest.headline


def test_a_name_with_markup_is_escaped_in_every_html_view():
    record, runs = _suite()
    record.outcomes[3].name = "<img src=x onerror=alert(1)>"
    record.settings.entries[3] = record.outcomes[3].name
    digest = suite_digest(record, runs)
    assert "<img" not in render_report_html(digest).split("<script")[0]
    assert "<img" not in json.dumps(charts.figures(digest))


# -- comparison ---------------------------------------------------------------------------------------------------


def _model(name: str, status: str, speedup: float | None, spread: float = 0.05) -> ExportModel:
    low = speedup * (1 - spread) if speedup else None
    high = speedup * (1 + spread) if speedup else None
    return ExportModel(name, status, speedup, low, high, 2.0, 0, 0, None, None, "", None)


def _export(*models: ExportModel):
    from compile_profile.suites.compare import ExportSummary, SuiteExport

    return SuiteExport(list(models), ExportSummary(1.0, 1.5, 1.4, 1.6, 2.0))


def test_comparison_puts_status_changes_first_and_flags_a_regression_beyond_both_intervals():
    old = _export(_model("a", "pass", 2.0), _model("b", "pass", 1.5), _model("c", "pass", 1.2))
    new = _export(_model("a", "pass", 1.5), _model("b", "compile_failed", None), _model("c", "pass", 1.19))
    c = compare_suites(old, new)
    assert [r.name for r in c.rows] == ["b", "a", "c"]
    assert c.rows[0].stopped_passing and c.rows[0].status_text == "pass → compile failed"
    differs = compare_suites(old, _export(_model("a", "differs", 2.0), _model("b", "pass", 1.5))).rows[0]
    assert differs.new_speedup_text == "2.00× faster (not meaningful: results differ)"  # as the suite's table says
    assert differs.old_speedup_text.startswith("2.00× faster [")
    assert c.rows[1].regressed and not c.rows[2].regressed  # 1.2 → 1.19 is inside both intervals
    assert c.rows[1].ratio == pytest.approx(0.75)
    assert c.rows[1].ratio_low is not None and c.rows[1].ratio_low < 0.75 < (c.rows[1].ratio_high or 0)
    assert c.failed


def test_an_equal_suite_is_no_regression():
    same = _export(_model("a", "pass", 2.0), _model("b", "crashed", None))
    c = compare_suites(same, same)
    assert not c.failed and not any(r.regressed or r.status_changed for r in c.rows)


def test_a_speedup_down_beyond_both_intervals_but_by_less_than_the_threshold_is_worded_not_gated():
    # two runs of the built-in collection minutes apart on one idle CPU: t5 2.27x [2.24x-2.31x] then 2.16x
    # [2.12x-2.19x], beyond both intervals, 0.95x (compare.REGRESSION_THRESHOLD)
    old = _export(ExportModel("t5", "pass", 2.27, 2.24, 2.31, 11.5, 0, 0, None, None, "", None))
    new = _export(ExportModel("t5", "pass", 2.16, 2.12, 2.19, 12.0, 0, 0, None, None, "", None))
    c = compare_suites(old, new)
    row = c.rows[0]
    assert not c.failed and not row.regressed and row.within_threshold
    assert "beyond both intervals but within the 10 % threshold" in row.text
    assert "by more than 10 %" in c.headline and c.threshold == pytest.approx(0.1)
    strict = compare_suites(old, new, threshold=0.0)  # the intervals alone, as before the threshold
    assert strict.failed and strict.rows[0].regressed and not strict.rows[0].within_threshold
    assert "down more than 0 %" in strict.rows[0].text


def test_a_speedup_down_by_more_than_the_threshold_beyond_both_intervals_regressed_and_up_improved():
    old = _export(_model("slower", "pass", 2.0, 0.01), _model("faster", "pass", 1.0, 0.01))
    new = _export(_model("slower", "pass", 1.78, 0.01), _model("faster", "pass", 1.12, 0.01))
    c = compare_suites(old, new)
    slower, faster = (next(r for r in c.rows if r.name == n) for n in ("slower", "faster"))
    assert slower.regressed and "down more than 10 %" in slower.text and c.failed
    assert faster.improved and not faster.regressed and "up more than 10 %" in faster.text
    assert not compare_suites(old, new, threshold=0.15).failed  # 0.89x is within 15 %


def test_a_speedup_that_is_not_meaningful_on_either_side_is_compared_but_never_judged_a_regression():
    # a second run of the same collection with a process spinning beside it: bert-tiny's card read "busy CPU"
    old = _export(ExportModel("bert-tiny", "pass", 1.37, 1.31, 1.43, 2.6, 0, 0, None, None, "", None))
    new = _export(ExportModel("bert-tiny", "pass", 0.68, 0.25, 0.84, 2.4, 0, 0, None, None, "", None, "busy CPU"))
    c = compare_suites(old, new)
    row = c.rows[0]
    assert not c.failed and not row.regressed and row.ratio == pytest.approx(0.68 / 1.37)
    assert row.unjudged == "the new suite's speedup is not meaningful (busy CPU)"
    assert c.unjudged == [row.text] and "not judged: the new suite's speedup" in row.text
    assert row.new_speedup_text == "1.47× slower (not meaningful: busy CPU)"
    assert row.text in comparison_text(c)
    assert compare_suites(
        old, _export(ExportModel("bert-tiny", "pass", 0.68, 0.6, 0.75, 2.4, 0, 0, None, None, "", None))
    ).failed


def test_two_compile_times_over_different_inductor_caches_are_shown_with_them_and_not_compared():
    def model(name: str, compile_s: float, cache: str) -> ExportModel:
        return ExportModel(name, "pass", 2.0, 1.9, 2.1, compile_s, 0, 0, None, None, "", None, "", cache)

    old = _export(model("gpt2", 14.7, "cold cache"), model("t5", 24.3, "cold cache"))
    new = _export(model("gpt2", 1.2, "warm cache"), model("t5", 30.0, "cold cache"))
    gpt2, t5 = (next(r for r in compare_suites(old, new).rows if r.name == n) for n in ("gpt2", "t5"))
    assert gpt2.compile_ratio is None
    assert (
        gpt2.compile_text == "14.7 s (cold cache) → 1.2 s (warm cache): not comparable, cold cache against warm cache"
    )
    assert t5.compile_ratio == pytest.approx(30.0 / 24.3) and t5.compile_text.endswith("(1.23×)")
    assert "30 s (cold cache)" in t5.compile_text
    # a stored suite's rows carry the cache into its --json export, where a later comparison reads it
    record, runs = _suite()
    exported = export(suite_digest(record, runs))
    assert {m.compile_cache for m in exported.models if m.compile_s} <= {"cold cache", "warm cache", "partly cached"}


def test_two_geomeans_over_different_entries_are_compared_by_the_entries_both_timed_meaningfully():
    from compile_profile.suites.compare import ExportSummary, SuiteExport

    def suite(models, geomean):
        return SuiteExport(models, ExportSummary(1.0, geomean, geomean * 0.95, geomean * 1.05, 2.0))

    same = [_model("a", "pass", 2.0, 0.01), _model("b", "pass", 1.5, 0.01)]
    busy = ExportModel("c", "pass", 8.35, 0.5, 30.0, 2.0, 0, 0, None, None, "", None, "busy CPU")
    idle_c = _model("c", "pass", 1.0, 0.01)
    c = compare_suites(suite([*same, idle_c], 1.44), suite([*same, busy], 1.73))
    assert c.geomean_ratio == pytest.approx(1.0)  # a and b alike; c not judged
    assert "over 3 → " in c.geomean_text and "over 2 entries, not the same ones" in c.geomean_text
    assert c.geomean_text.endswith("new/old 1.00× over the 2 entries both timed meaningfully")


def test_an_export_written_before_the_caveat_reads_back_with_none(tmp_path):
    from compile_profile import serialize

    data = serialize.to_dict(_export(_model("a", "pass", 2.0)))
    del data["models"][0]["speedup_caveat"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert read_export(tmp_path / "old.json").models[0].speedup_caveat == ""


@pytest.mark.parametrize("threshold", [-0.1, 1.0, float("nan"), True, "0.1"])
def test_a_threshold_that_is_no_share_from_0_to_under_1_is_refused_by_value(threshold):
    same = _export(_model("a", "pass", 2.0))
    with pytest.raises(ValueError, match="a regression threshold is a share from 0 to under 1"):
        compare_suites(same, same, threshold=threshold)


def test_suite_compare_takes_the_threshold_as_a_percentage_and_refuses_one_past_100(tmp_path, capsys):
    from compile_profile import serialize

    old = _export(ExportModel("t5", "pass", 2.27, 2.24, 2.31, 11.5, 0, 0, None, None, "", None))
    new = _export(ExportModel("t5", "pass", 2.16, 2.12, 2.19, 12.0, 0, 0, None, None, "", None))
    (tmp_path / "old.json").write_text(json.dumps(serialize.to_dict(old)))
    (tmp_path / "new.json").write_text(json.dumps(serialize.to_dict(new)))
    db = str(tmp_path / "s.sqlite")
    paths = [str(tmp_path / "old.json"), str(tmp_path / "new.json")]
    assert main(["--db", db, "suite-compare", *paths, "--fail-on-regression"]) == 0
    assert main(["--db", db, "suite-compare", *paths, "--fail-on-regression", "--regression-threshold", "3"]) == 1
    assert "t5 regressed" in capsys.readouterr().out
    assert main(["--db", db, "suite-compare", *paths, "--regression-threshold", "150"]) == 2
    assert "--regression-threshold 150: a percentage from 0 to under 100" in capsys.readouterr().err
    # a share where a percentage is asked (Python's regression_threshold=0.05 is 5 %) is taken, and said
    assert main(["--db", db, "suite-compare", *paths, "--regression-threshold", "0.05", "--fail-on-regression"]) == 1
    assert "--regression-threshold 0.05 is 0.05 %; it is a percentage (5 for 5 %)" in capsys.readouterr().err


def test_suite_compare_exits_1_on_a_doctored_baseline_and_0_on_an_equal_one(tmp_path, capsys):
    from compile_profile import serialize

    record, runs = _suite()
    real = serialize.to_dict(export(suite_digest(record, runs)))
    doctored = json.loads(json.dumps(real))
    for m in doctored["models"]:
        if m["speedup"]:
            m["speedup"], m["speedup_low"], m["speedup_high"] = (
                m["speedup"] * 3,
                m["speedup"] * 2.9,
                m["speedup"] * 3.1,
            )
    (tmp_path / "new.json").write_text(json.dumps(real))
    (tmp_path / "old.json").write_text(json.dumps(doctored))
    db = str(tmp_path / "s.sqlite")
    assert (
        main(
            [
                "--db",
                db,
                "suite-compare",
                str(tmp_path / "old.json"),
                str(tmp_path / "new.json"),
                "--fail-on-regression",
            ]
        )
        == 1
    )
    assert "regressed" in capsys.readouterr().out
    assert (
        main(
            [
                "--db",
                db,
                "suite-compare",
                str(tmp_path / "new.json"),
                str(tmp_path / "new.json"),
                "--fail-on-regression",
            ]
        )
        == 0
    )
    assert main(["--db", db, "suite-compare", str(tmp_path / "old.json"), str(tmp_path / "new.json")]) == 0
    assert read_export(tmp_path / "new.json").models[0].name == "fast"


def test_a_file_that_is_no_export_is_refused_by_name(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": [{"name": 3}]}')
    assert main(["--db", str(tmp_path / "s.sqlite"), "suite-compare", str(bad), str(bad)]) == 2
    assert "bad.json is not a suite's --json file" in capsys.readouterr().err


# -- statistics ---------------------------------------------------------------------------------------------------


def test_the_geomean_of_one_pair_is_its_ratio_interval_and_of_two_the_root_of_their_product():
    a, b = [10.0, 10.2, 9.9, 10.1], [5.0, 5.1, 4.9, 5.05]
    assert stats.geomean_ratio_interval([(a, b)]) == stats.ratio_interval(a, b)
    value, low, high = stats.geomean_ratio_interval([(a, b), (b, b)])
    assert value == pytest.approx(math.sqrt(stats.median(a) / stats.median(b)))
    assert low < value < high


def test_a_ratio_of_two_intervals_widens_in_log_space():
    value, low, high = stats.ratio_of_intervals(1.2, 1.1, 1.3, 1.5, 1.4, 1.6)
    assert value == pytest.approx(0.8)
    assert low is not None and high is not None and low < 0.8 < high
    assert stats.ratio_of_intervals(1.2, None, None, 1.5, 1.4, 1.6)[1:] == (None, None)


# -- collections ------------------------------------------------------------------------------------------------


def _collection_file(tmp_path, body: str):
    path = tmp_path / "coll.py"
    path.write_text(body)
    return collection.load(str(path))


def test_a_builder_that_takes_train_gives_an_entry_per_task_and_dtype_named_alike_in_every_suite(tmp_path):
    loaded = _collection_file(
        tmp_path,
        "from compile_profile.suites import Skip\n"
        "def both(train): return (lambda: None, ())\n"
        "def plain(): return (lambda: None, ())\n"
        "def models(): return {'both': both, 'plain': plain, 'gone': Skip('no library')}\n",
    )
    entries = loaded.entries(("inference", "training"), ("float32", "bfloat16"))
    assert [e.name for e in entries] == [
        "both",
        "both (bfloat16)",
        "both (training)",
        "both (training, bfloat16)",
        "plain",
        "plain (bfloat16)",
        "gone",
    ]
    only = loaded.entries(("training",), ("float32",))
    assert [e.name for e in only] == ["both (training)", "plain", "gone"]


def test_a_model_that_runs_in_some_dtypes_only_lists_the_others_as_skipped_naming_the_dtype_to_ask_for(tmp_path):
    loaded = _collection_file(
        tmp_path,
        "from compile_profile.suites import Model\n"
        "def flash(): return (lambda: None, ())\n"
        "def models(): return {'flash': Model(flash, dtypes=('bfloat16',)), 'any': Model(flash)}\n",
    )
    entries = {e.name: e for e in loaded.entries(("inference",), ("float32", "bfloat16"))}
    assert list(entries) == ["flash", "flash (bfloat16)", "any", "any (bfloat16)"]
    skipped = entries["flash"].spec
    assert isinstance(skipped, collection.Skip)
    assert skipped.reason == "flash runs in bfloat16 only (--dtype bfloat16)"
    assert isinstance(entries["flash (bfloat16)"].spec, collection.Model)
    assert isinstance(entries["any"].spec, collection.Model)


def test_shards_together_are_the_whole_collection_once():
    entries = [collection.Entry(f"m{i}", f"m{i}", "step", "float32", collection.Skip("x")) for i in range(7)]
    halves = collection.shard(entries, 1, 2) + collection.shard(entries, 2, 2)
    assert sorted(e.name for e in halves) == sorted(e.name for e in entries)
    assert len(halves) == len(entries)
    with pytest.raises(collection.CollectionError, match="I/N"):
        collection.parse_shard("3")


def test_a_collection_without_models_or_with_a_bad_builder_is_refused_naming_it(tmp_path):
    with pytest.raises(collection.CollectionError, match="no models"):
        _collection_file(tmp_path, "x = 1\n").models()
    with pytest.raises(collection.CollectionError, match="not a builder"):
        _collection_file(tmp_path, "def models(): return {'a': 3}\n").models()
    with pytest.raises(collection.CollectionError, match="no collection at"):
        collection.load(str(tmp_path / "missing.py"))


# -- the store -------------------------------------------------------------------------------------------------


def test_a_suite_and_its_outcomes_round_trip_through_the_store_and_merge_into_another(tmp_path):
    record, runs = _suite()
    first = RunStore(tmp_path / "a.sqlite")
    assert first.put_suite(record.id, record.created_at, json.dumps(record.to_dict()))
    assert not first.put_suite(record.id, record.created_at, "{}")  # a second shard joins, does not replace
    # a compile's output code, which the store keeps apart from the run's JSON (issue 35's artifacts table)
    code = "def call(args):\n    return args\n"
    sha = hashlib.sha256(code.encode()).hexdigest()
    with_code = runs[record.outcomes[0].run_id or ""]
    with_code.compiles = [
        CompileRecord(
            variant="compiled",
            compile_id="0/0",
            artifacts=[Artifact(name="inductor_output_code", sha256=sha, bytes=len(code), lines=2)],
        )
    ]
    with_code.artifact_texts = {sha: code}
    for outcome in record.outcomes[:3]:
        save_outcome(first, record.id, outcome)
        first.put(runs[outcome.run_id or ""])
    loaded = load_suite(first, record.id)
    assert [o.name for o in loaded.outcomes] == ["fast", "ok", "wrong"]
    assert [s.id for s in stored_suites(first)] == [record.id]
    second = RunStore(tmp_path / "b.sqlite")
    merged = merge_store(second, first.path)
    assert (merged.runs, merged.outcomes, merged.suites) == (3, 3, [record.id])
    assert [o.name for o in load_suite(second, record.id).outcomes] == ["fast", "ok", "wrong"]
    assert second.artifact(with_code.id, sha) == code  # the shard's runs come whole, their compiles' code too
    first.close()
    second.close()


def test_a_store_of_schema_5_migrates_to_hold_suites(tmp_path):
    path = tmp_path / "old.sqlite"
    store = RunStore(path)
    store.put(make_run("r1"))
    store.close()
    conn = sqlite3.connect(path)
    back_to_schema(conn, 5)  # migration 5 is the artifacts' (issue 35), 6 the suites'
    conn.commit()
    conn.close()
    reopened = RunStore(path)
    assert reopened.suites() == [] and [s["id"] for s in reopened.list()] == ["r1"]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
    conn.close()
    reopened.close()


def test_the_cli_lists_and_shows_a_stored_suite(tmp_path, capsys):
    record, runs = _suite()
    db = tmp_path / "s.sqlite"
    store_suite(db, record, runs)
    assert main(["--db", str(db), "suite", "--list"]) == 0
    assert record.id in capsys.readouterr().out
    out = tmp_path / "out.json"
    assert main(["--db", str(db), "suite", "--show", record.id, "--json", str(out)]) == 0
    assert "2 of 7 entries pass" in capsys.readouterr().out
    assert [m["name"] for m in json.loads(out.read_text())["models"]][:2] == ["fast", "ok"]


def test_the_progress_line_says_which_entry_of_how_many_and_the_time_left_in_words():
    from compile_profile.suites.runner import Progress
    from compile_profile.suites.views import progress_text

    assert (
        progress_text(Progress("start", 2, 18, "bert", left_s=1040.0)) == "[2/18] bert: profiling…; about 17 min left"
    )
    assert progress_text(Progress("start", 17, 18, "vit", left_s=41.0)) == "[17/18] vit: profiling…; about 41 s left"
    assert progress_text(Progress("start", 1, 18, "gpt2")) == "[1/18] gpt2: profiling…"  # none ended: no estimate


def test_a_refused_resume_says_each_setting_that_differs_with_its_value_then_and_now(tmp_path):
    from compile_profile.suites.runner import SuiteError, open_suite

    with RunStore(tmp_path / "s.sqlite") as store:
        first = _settings(["gpt2", "bert", "t5"], timeout_s=120.0)
        record, stored_before = open_suite(store, first, suite_id="inf2")
        assert not stored_before
        same, stored_before = open_suite(store, _settings(["gpt2", "bert", "t5"], timeout_s=120.0), suite_id="inf2")
        assert stored_before and same.id == record.id
        other = _settings(
            ["gpt2", "bert", "vit"], timeout_s=100.0, profile_options={"backend": "inductor", "quick": False}
        )
        with pytest.raises(SuiteError) as refused:
            open_suite(store, other, suite_id="inf2")
    message = str(refused.value)
    assert "--timeout 120 then, 100 now" in message
    assert "entries: 3 then, 3 now; not asked now: t5; new: vit" in message
    assert "options quick: True then, False now" in message
    assert "give another --suite-id" in message


def _environment(**changes):
    from compile_profile.suites.setup import SuiteEnvironment

    base = dict(
        torch="2.11.0+cu130",
        device="cuda",
        device_name="NVIDIA H100 80GB HBM3",
        cpu="Intel(R) Xeon(R) Processor",
        cores=16,
        host="vm",
        settings="inference, bfloat16 · backend inductor · --quick",
    )
    return SuiteEnvironment(**{**base, **changes})


def test_a_comparison_names_each_part_of_the_setup_that_differs_and_says_nothing_where_they_ran_alike():
    old, new = _export(_model("a", "pass", 2.0)), _export(_model("a", "pass", 1.2))
    old.environment = _environment()
    new.environment = _environment(torch="2.12.0+cu130", device_name="NVIDIA H200", cores=32)
    c = compare_suites(old, new)
    assert c.setup_differences == [
        "torch: 2.11.0+cu130 then, 2.12.0+cu130 now",
        "device's name: NVIDIA H100 80GB HBM3 then, NVIDIA H200 now",
        "host cores: 16 then, 32 now",
    ]
    assert c.setup_text.startswith("the suites ran on different setups (torch: 2.11.0+cu130 then")
    assert c.setup_text in comparison_text(c)
    assert c.failed  # the setup is said, the gate is the figures' own
    new.environment = _environment()
    alike = compare_suites(old, new)
    assert alike.setup_differences == [] and alike.setup_text == ""
    new.environment = None  # a file written before the setup was recorded
    assert compare_suites(old, new).setup_differences == []


def test_a_suites_setup_goes_into_its_export_and_its_where_line_and_an_old_file_without_it_still_reads(tmp_path):
    from compile_profile import serialize

    record, runs = _suite()
    record.device_name, record.cpu, record.cores = "NVIDIA H100 80GB HBM3", "Intel(R) Xeon(R) Processor", 16
    record.device = "cuda"
    digest = suite_digest(record, runs)
    assert digest.where_text == "torch 2.13.0+cpu on cuda (NVIDIA H100 80GB HBM3), host test, 16 cores"
    data = serialize.to_dict(export(digest))
    assert data["environment"]["cores"] == 16 and data["environment"]["settings"] == digest.settings_text
    path = tmp_path / "with.json"
    path.write_text(json.dumps(data))
    assert read_export(path).environment == digest.environment
    del data["environment"]
    path.write_text(json.dumps(data))
    assert read_export(path).environment is None


def test_the_suites_torch_threads_come_from_its_runs_into_the_where_line_and_a_comparison_names_their_change():
    from compile_profile.profile_run import RunSettings

    def at(threads: int) -> tuple:
        record, runs = _suite()
        for run in runs.values():
            run.settings = RunSettings(torch_threads=threads, interop_threads=2, warmup=1, repeat=10, budget_s=1.0)
        return record, runs

    two, one = (suite_digest(*at(n)) for n in (2, 1))
    assert two.where_text.endswith(", torch at 2 threads") and one.where_text.endswith(", torch at 1 thread")
    c = compare_suites(export(two), export(one))
    assert c.setup_differences == ["torch threads: 2 threads then, 1 thread now"]
    assert "torch threads: 2 threads then, 1 thread now" in comparison_text(c)
    record, runs = at(2)
    runs["r-ok"].settings.torch_threads = 4
    assert suite_digest(record, runs).environment.threads == "2-4 threads"
    record, runs = _suite()  # runs stored before their settings were recorded say nothing of threads
    assert (
        suite_digest(record, runs).environment.threads == "" and "torch at" not in suite_digest(record, runs).where_text
    )


def test_a_baseline_whose_setup_holds_a_control_character_or_a_page_of_text_is_refused_naming_the_field(tmp_path):
    from compile_profile import serialize

    record, runs = _suite()
    for field, value in (("host", "vm\x1b[2J"), ("cpu", "x" * 10_000)):
        data = serialize.to_dict(export(suite_digest(record, runs)))
        data["environment"][field] = value
        path = tmp_path / f"{field}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(ValueError, match=f"environment.*{field}|{field}.*environment"):
            read_export(path)


def test_a_baseline_whose_model_name_is_no_line_of_plain_text_is_refused_and_one_with_a_byte_order_mark_reads(
    tmp_path,
):
    from compile_profile import serialize

    record, runs = _suite()
    for i, name in enumerate(("gpt2\nFAKE ROW pass 99x", "m" * 100_000)):
        data = serialize.to_dict(export(suite_digest(record, runs)))
        data["models"][0]["name"] = name
        path = tmp_path / f"name{i}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(ValueError, match=r"models.*0.*name"):
            read_export(path)
    data = serialize.to_dict(export(suite_digest(record, runs)))
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data).encode())  # as Notepad or PowerShell write UTF-8
    assert [m.name for m in read_export(path).models] == [m["name"] for m in data["models"]]


def test_a_builder_that_raises_reads_build_failed_and_a_profile_that_raises_says_it_was_the_profile(tmp_path):
    """A builder's exception ran no step: "eager failed — building it raised" had said the model's step failed."""
    from compile_profile.suites import child

    source = tmp_path / "c.py"
    source.write_text(
        "def models():\n    def broken():\n        raise RuntimeError('builder exploded')\n\n    return {'broken': broken}\n"
    )
    spec = {"collection": str(source), "tasks": ["inference"], "dtypes": ["float32"], "size": "small"}
    spec.update(entry="broken", options={}, label="x", suite_id="s", db=str(tmp_path / "runs.sqlite"))
    answer = child.run(spec)
    assert answer["ended"] == "error" and answer["stage"] == "build"
    outcomes = [
        _outcome("broken", "error", error=answer["error"], stage=answer["stage"]),
        _outcome("profiled", "error", error="ValueError: --budget must be positive", stage="profile"),
        _outcome("older", "error", error="RuntimeError: boom"),  # stored before the stage was
    ]
    record = SuiteRecord(
        id="suite0000002",
        created_at="2026-12-06T01:00:00+00:00",
        settings=_settings([o.name for o in outcomes]),
        torch_version="2.13.0+cpu",
        device="cpu",
        host="test",
        outcomes=outcomes,
    )
    rows = {r.name: r for r in suite_digest(record, {}).rows}
    assert rows["broken"].status == "build_failed" and rows["broken"].status_label == "build failed"
    assert rows["broken"].status_text == "building it raised RuntimeError: builder exploded"
    assert rows["profiled"].status == "eager_failed" and rows["profiled"].status_text.startswith("profiling it raised")
    assert rows["older"].status == "eager_failed" and rows["older"].status_text.startswith("building or profiling it")


def test_a_merged_store_neither_replaces_nor_enrols_the_users_own_runs_and_plants_no_artifact_text(tmp_path):
    """Someone else's store: a run of the user's id with other contents, a suite whose entries name the user's runs,
    a suite whose row's id is not its record's, and an artifact text under a hash that is not its own."""
    from compile_profile import artifacts

    mine = RunStore(tmp_path / "mine.sqlite")
    mine.put(_run("own1", 4.0, 2.0, label="mine"))
    mine.put(_run("own2", 4.0, 2.0, label="mine too"))
    theirs_path = tmp_path / "theirs.sqlite"
    theirs = RunStore(theirs_path)
    theirs.put(_run("own1", 9.0, 1.0, label="theirs"))  # the user's id, other contents
    theirs.put(_run("new1", 4.0, 2.0))
    record = SuiteRecord(
        id="evilsuite001",
        created_at="2026-12-06T01:00:00+00:00",
        settings=_settings(["a", "b", "c"]),
        torch_version="2.13.0+cpu",
        device="cpu",
        host="test",
    )
    theirs.put_suite(record.id, record.created_at, json.dumps(record.to_dict()))
    for name, run_id in (("a", "own1"), ("b", "own2"), ("c", "new1")):
        save_outcome(theirs, record.id, _outcome(name, run_id=run_id))
    other = {**record.to_dict(), "id": "mysuite00001"}
    theirs.put_suite("evilsuite002", record.created_at, json.dumps(other))  # a row id not its record's
    theirs.close()

    merged = merge_store(mine, theirs_path)
    assert (merged.runs, merged.outcomes, merged.kept_runs) == (1, 1, ["own1"])
    assert mine.get("own1").label == "mine"  # the user's run stays as it was
    assert [o.name for o in load_suite(mine, record.id).outcomes] == ["c"]  # only the entry whose run came with it
    assert any("evilsuite002" in why and "mysuite00001" in why for why in merged.refused)
    assert sum("is not one the merged store brought" in why for why in merged.refused) == 2
    assert mine.delete_suite(record.id) == (True, 1)  # its own run goes with it; the user's stay
    assert {r["id"] for r in mine.list()} == {"own1", "own2"}

    planted = "print('not the code that was compiled')\n"
    true_sha = artifacts.text_sha256("def call(args):\n    return args\n")
    assert artifacts.pack({true_sha: planted}, [true_sha]) == []  # a text is stored only under its own hash
    big = zlib.compress(b"x" * (artifacts.UNPACKED_MAX + 10))
    assert artifacts.unpack(big).endswith("MiB)\n") and len(artifacts.unpack(big)) < artifacts.UNPACKED_MAX + 100
    assert artifacts.unpack(b"not zlib").startswith("(this artifact's stored text cannot be read")
    mine.close()


def test_a_suite_shows_one_outcome_per_entry_it_names_and_past_the_cap_a_geomean_without_an_interval(monkeypatch):
    """A merged store held 600 outcomes of 8 entries ("600 of 8 entries"); 1,000 passing entries' interval took
    125 s (its cost grows with the square of the count)."""
    from compile_profile.suites import digest as suite_digest_module

    record, runs = _suite()
    record.outcomes += [_outcome("fast", run_id="r-ok"), _outcome("not an entry", run_id="r-ok")]
    digest = suite_digest(record, runs)
    assert [r.name for r in digest.rows].count("fast") == 1 and "not an entry" not in [r.name for r in digest.rows]
    assert {r.name: r.run_id for r in digest.rows}["fast"] == "r-fast"  # the first stored
    assert digest.summary.geomean_low is not None
    monkeypatch.setattr(suite_digest_module, "GEOMEAN_INTERVAL_MAX", 1)
    capped = suite_digest(record, runs).summary
    assert capped.geomean_speedup == pytest.approx(digest.summary.geomean_speedup, rel=1e-9)
    assert capped.geomean_low is None and capped.geomean_high is None


def test_a_suite_of_one_entry_reads_1_entry_and_its_progress_counts_one_outcome_per_entry():
    from compile_profile.suites.digest import list_row

    record, runs = _suite()
    record.settings.entries = ["fast"]
    record.outcomes = [record.outcomes[0], _outcome("fast", run_id="r-ok"), _outcome("not an entry")]
    row = list_row(record)
    assert row.title == "c.py · 1 entry" and row.progress_text == "1 of 1 entry" and row.complete
    assert suite_digest(record, runs).title == "c.py · 1 entry"
