"""Hostile and odd input to the doors issue 32 hardened (docs/reliability.md, "Hostile input, 2026-12-05"): a TORCH_TRACE
whose JSON nests past Python's recursion limit, holds lone surrogates (a ``\\ud800`` escape, which JSON allows and no
UTF-8 text can hold) or numbers at the edge of a float, through the CLI, the API and ``POST runs/import-trace``.  Each
was a traceback, a 500, a log refused whole or a run stored that could not be read back; each is now a line skipped
and counted, a record skipped with its line and why, or a message.  Every hostile file is built here, none shipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.engine.trace.log_import import import_trace
from compile_profile.store import RunStore
from hostile_input import DEEP, HOSTILE_LABELS, Elements, _one_line_error
from server_requests import api_answer
from test_trace_safety import HEAD, log_naming, record

pytest_plugins = ["pytest_jupyter.jupyter_server"]

IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


# -- TORCH_TRACE -----------------------------------------------------------------------------------------------------


def test_a_record_nested_past_the_recursion_limit_is_a_skipped_line_not_a_traceback(tmp_path, cli):
    log = tmp_path / "deep.log"
    log.write_text(log_naming("/x/train.py", extra=(f'{HEAD} {{"dynamo_output_graph": {DEEP}}}',)))
    (run,) = import_trace(log)
    assert run.imported_trace is not None and run.imported_trace.skipped_lines == 1
    assert run.variants[0].compile_s == 0.5  # the records around it read as without it
    code, out, err = cli("import-trace", str(log))
    assert code == 0 and "Traceback" not in err, err


def test_a_payload_nested_past_the_recursion_limit_is_counted_and_refuses_no_log(tmp_path):
    for kind in ("torch_version", "fx_graph_cache_hit", "inductor_provenance_tracking_node_mappings"):
        log = tmp_path / f"{kind}.log"
        artifact = record({"artifact": {"name": kind, "encoding": "json"}, **IDS}, DEEP)
        log.write_text(log_naming("/x/train.py", extra=(artifact,)))
        (run,) = import_trace(log)  # torch_version's refused the whole log: "could not read this log (RecursionError"
        assert run.torch_version == "" and run.variants[0].compile_s == 0.5, kind


def test_lone_surrogates_in_a_trace_become_replacement_characters_and_every_view_writes(tmp_path, cli):
    """JSON's ``\\ud800`` is a str no UTF-8 file can hold: as the script's path it made the import refuse the log
    (realpath raised UnicodeEncodeError), as a kind or artifact name it made ``export --html`` fail."""
    log = tmp_path / "surrogates.log"
    extra = (
        record({"kind\udfff": {}, **IDS}),
        record({"artifact": {"name": "art\ud800", "encoding": "string"}, **IDS}, "text"),
    )
    log.write_text(log_naming("/x/tr\ud800ain.py", extra=extra), encoding="utf-8")
    assert "\\ud800" in log.read_text()  # json.dumps wrote the escape, as torch's json.dumps would
    code, out, err = cli("import-trace", str(log))
    assert code == 0, err
    with RunStore(cli.db) as store:
        (summary,) = store.list()
        run = store.get(summary["id"])
    assert "\ufffd" in run.label and run.imported_trace is not None
    assert "kind\ufffd" in run.imported_trace.unknown_events
    for argv in (
        ("export", run.id, "--html", str(tmp_path / "r.html")),
        ("export", run.id, "--json", str(tmp_path / "r.json")),
    ):
        code, _, err = cli(*argv)
        assert code == 0, (argv, err)
    (tmp_path / "r.html").read_text(encoding="utf-8")


def test_numbers_at_the_edge_of_a_float_are_refused_so_no_run_is_stored_that_cannot_be_read(tmp_path, cli):
    """Two span ends 2e308 apart made an infinite compile phase: the run was stored and then every view of it said
    "cannot be read (compile_phases.dynamo: expected a finite number, got null)"."""
    spans = (
        record({"chromium_event": {}, **IDS}, json.dumps({"name": "dynamo", "ph": "B", "ts": -1e308})),
        record({"chromium_event": {}, **IDS}, json.dumps({"name": "dynamo", "ph": "E", "ts": 1e308})),
        record({"compilation_metrics": {"entire_frame_compile_time_s": 1e308}, "frame_id": 1, "frame_compile_id": 0}),
        record({"compilation_metrics": {"entire_frame_compile_time_s": 1e308}, "frame_id": 2, "frame_compile_id": 0}),
    )
    log = tmp_path / "edge.log"
    log.write_text(log_naming("/x/train.py", extra=spans))
    code, out, err = cli("import-trace", str(log))
    assert code == 0, err
    run_id = out.split("imported run ")[1].split()[0]
    for argv in (
        ("show", run_id),
        ("show", run_id, "--compile"),
        ("export", run_id, "--html", str(tmp_path / "e.html")),
    ):
        code, _, err = cli(*argv)
        assert code == 0, (argv, err)
    with RunStore(cli.db) as store:
        run = store.get(run_id)
    origin = run.imported_trace
    assert origin is not None and origin.bad_records == 2
    assert all("outside" in r.why for r in origin.bad_record_lines), origin.bad_record_lines


# -- the REST doors --------------------------------------------------------------------------------------------------


async def test_rest_import_refuses_a_body_nested_too_deep_or_text_with_lone_surrogates_400_never_500(
    jp_fetch, jp_root_dir, store_path
):
    (jp_root_dir / "t.log").write_text(log_naming("/x/train.py"))
    bodies = {
        DEEP: "the request body must be a JSON object",
        '{"path": ' + DEEP + "}": "the request body must be a JSON object",
        '{"path": "t\\ud800.log"}': "nothing to import at t\ufffd.log",
        '{"path": "t.log", "label": "x\\ud800"}': None,  # imported, its label's surrogate replaced
        # a label is one line of plain text of at most 200 characters (user_input.text_problem): it was stored
        '{"path": "t.log", "label": "two\\nlines"}': "label 'two\\nlines': it holds the control character U+000A",
        json.dumps({"path": "t.log", "label": "x" * 201}): "label 'xxx",
    }
    for body, message in bodies.items():
        code, answer = await api_answer(jp_fetch, "runs", "import-trace", method="POST", body=body)
        if message is None:
            assert code == 201, answer
            (run_id,) = answer["ids"]
            code, run = await api_answer(jp_fetch, "runs", run_id)
            assert code == 200 and run["label"] == "x\ufffd", run
        else:
            assert code == 400 and answer["message"].startswith(message), (body[:40], code, answer)


def test_a_label_holding_a_lone_surrogate_is_stored_with_a_replacement_character_cli_and_api(tmp_path, cli):
    """A label from argv holds a lone surrogate where its bytes are no UTF-8 (Python's surrogateescape: ``--label``
    given ``$'\\xff'``); from the API, any str may.  SQLite refused it ('utf-8' codec can't encode character
    '\\udcff': the import stored nothing); now the run stores with U+FFFD in its place, in its JSON too."""
    import compile_profile

    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py"))
    label = b"lab\xffel".decode("utf-8", "surrogateescape")
    code, out, err = cli("import-trace", "--label", label, str(log))
    assert code == 0, err
    (run,) = compile_profile.import_trace(log, label="api\ud800", db=tmp_path / "api.sqlite")
    with RunStore(cli.db) as store:
        (summary,) = store.list()
        assert summary["label"] == "lab\ufffdel" and store.get(summary["id"]).label == "lab\ufffdel"
    with RunStore(tmp_path / "api.sqlite") as store:
        assert store.get(run.id).label == "api\ufffd"
        assert json.loads(json.dumps(store.get_dict(run.id)))["label"] == "api\ufffd"


@pytest.mark.parametrize(("label", "words"), HOSTILE_LABELS)
def test_a_label_no_table_can_show_is_refused_before_any_log_is_read_cli_and_api(tmp_path, cli, label, words):
    """A label had no cap and could hold a line break or ESC: the run list's row split at it, and the terminal took
    its escapes.  It now keeps to a suite's model name's rule (``user_input.text_problem``); nothing is stored."""
    import compile_profile

    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py"))
    code, _, err = cli("import-trace", "--label", label, str(log))
    _one_line_error(code, err, *words)
    with pytest.raises(ValueError) as refused:
        compile_profile.import_trace(log, label=label, db=cli.db)
    for word in words:
        assert word in str(refused.value), str(refused.value)
    with RunStore(cli.db) as store:
        assert store.list() == []


def _from_the_data(page: str) -> list:
    parser = Elements()
    parser.feed(page)
    return [(t, a) for t, a in parser.found if t in ("xq1", "svg") or any(k in ("data-xq", "onload") for k, _ in a)]


def test_markup_in_every_string_of_a_trace_makes_no_element_in_the_report_the_card_or_the_job_report(tmp_path):
    from compile_profile.digest.job import job_digest_of
    from compile_profile.render.job_report import render_job_report_html
    from compile_profile.render.report import render_report_html

    m = '<xq1 data-xq="1"></script><svg onload=alert(1)>'
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0, "rank": 0}
    failed = {**ids, "frame_compile_id": 2}
    artifact = lambda name, encoding="string": {"artifact": {"name": name, "encoding": encoding}}
    graph = f"def forward(self, x):\n    # File: /x/{m}.py:2 in step, code: {m}\n    add = x + 1\n    return (add,)"
    guards = f"TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- GuardManager: source=L['{m}']\n| | +- TENSOR_MATCH: {m}"
    metrics = {"fail_type": m, "fail_reason": m, "fail_user_frame_filename": f"/x/{m}.py", "fail_user_frame_lineno": 2}
    records = (
        record({m: {}, **ids}),
        record({**artifact("k" + m), **ids}, m),
        record({"dynamo_output_graph": {}, **ids}, graph),
        record({**artifact("dynamo_graph_break_reason"), **ids}, f'Graph break: {m}\n  File "/x/{m}.py", line 2'),
        record({**artifact("recompile_reasons", "json"), **ids, "frame_compile_id": 1}, json.dumps([m])),
        record({**artifact("dynamo_cpp_guards_str"), **ids}, guards),
        record({"compilation_metrics": {**metrics, "restart_reasons": [m], "co_filename": f"/x/{m}.py"}, **failed}),
        record({**artifact("fx_graph_runnable"), **failed}, f"# {m}\nimport torch\n"),
        record({"chromium_event": {}, **ids}, json.dumps({"name": m, "ph": "B", "ts": 1})),
        record({"chromium_event": {}, **ids}, json.dumps({"name": m, "ph": "E", "ts": 100})),
        record({**artifact("fx_graph_cache_miss", "json"), **ids}, json.dumps({"cache_bypass_reason": m})),
    )
    log = tmp_path / "markup.log"
    log.write_text(log_naming(f"/x/{m}.py", extra=records))
    runs = import_trace(log, label=m)
    (run,) = runs
    assert run.graph_breaks and run.recompiles and run.errors and m in run.imported_trace.unknown_events  # type: ignore[union-attr]
    report = render_report_html(run)
    assert m.replace("<", "&lt;") in report or "&lt;xq1" in report  # the text is there, as text
    assert _from_the_data(report) == []
    assert _from_the_data(str(run._repr_mimebundle_()["text/html"])) == []
    assert _from_the_data(render_job_report_html(job_digest_of(runs))) == []


def test_the_api_refuses_a_label_or_source_root_of_the_wrong_kind_before_storing_anything(tmp_path):
    """``label=5`` stored a run that could then not be read ("label: expected a string, got an integer (5)"); a root
    holding a NUL blamed the log ("compile-profile could not read this log (ValueError: embedded null byte); please
    report it with the log"); a root given as one string was split into its characters."""
    import compile_profile

    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py"))
    db = tmp_path / "api.sqlite"
    with pytest.raises(TypeError, match="label must be a string, got int"):
        compile_profile.import_trace(log, label=5, db=db)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="source_roots must be paths"):
        compile_profile.import_trace(log, source_roots=[5], db=db)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="a source root cannot hold a NUL character"):
        compile_profile.import_trace(log, source_roots=["a\x00b"], db=db)
    with RunStore(db) as store:
        assert store.list() == []
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text("x = 1\n")
    (run,) = compile_profile.import_trace(log, source_roots=str(tmp_path / "src"), db=db)  # one root, as a string
    assert run.imported_trace is not None and run.imported_trace.files_read == [
        str((tmp_path / "src" / "train.py").resolve())
    ]


def test_a_run_file_whose_options_nest_deep_is_refused_so_no_reader_meets_a_recursion_limit(tmp_path, cli):
    """A variant's ``options`` hold any JSON (``dict[str, Any]``): a run file whose option nested 950 deep imported from the CLI's
    shallow stack, and a reader with a deeper one (the server's handlers, pytest's) then hit the recursion limit in
    ``json.loads`` reading it back.  A value of ``Any`` may nest at most ``serialize.MAX_ANY_DEPTH`` deep."""
    import sys

    from compile_profile.serialize import MAX_ANY_DEPTH

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic_store_runs import make_run

    data = make_run("deepoptions1", eager_ms=2.0, compiled_ms=1.0, graph_breaks=0).to_dict()

    def nest(depth: int) -> list:  # [] is 1 deep, [[]] 2
        return [] if depth == 1 else [nest(depth - 1)]

    def with_option(value: list) -> str:
        variants = [{**data["variants"][0], "options": {"x": value}}, *data["variants"][1:]]
        return json.dumps({**data, "variants": variants})

    path = tmp_path / "deep.json"
    path.write_text(with_option(nest(MAX_ANY_DEPTH + 1)))
    code, _, err = cli("import", str(path))
    assert code == 2 and "variants[0].options.x: " in err and f"nested deeper than {MAX_ANY_DEPTH}" in err, err
    path.write_text(with_option(nest(MAX_ANY_DEPTH)))  # at the cap: taken
    code, _, err = cli("import", str(path))
    assert code == 0, err


# -- one-line text from a trace (helper probe, 2026-12-06) -------------------------------------------------------------


def test_a_traces_torch_version_and_failure_cannot_start_a_line_of_the_reproducers_header():
    """A line break in the trace's torch version ended the header's comment: ``python repro.py`` ran the line after
    it.  Each line of the header is a comment, whatever the trace holds."""
    from compile_profile.engine.trace.reproducer import reproducer_script
    from compile_profile.profile_run import ErrorInfo

    evil = "\nimport os; os.system('touch PWNED')\n#\x1b]0;t\x07\u202e"
    error = ErrorInfo(stage="compile", message=f"boom{evil}", type=f"X{evil}", compile_stage=f"inductor{evil}")
    script = reproducer_script(
        "import torch\n", error, f"0/0{evil}", from_trace=f"/t/trace{evil}.log", trace_torch=f"2.13{evil}"
    )
    header, body = script.split("import torch\n")
    assert body == "" and header.endswith("\n")
    lines = header.splitlines()
    assert all(line.startswith("#") or line == "" for line in lines), lines
    assert not any(char in header for char in "\x1b\x07\u202e") and "touch PWNED" in header  # said, as text
    assert "2.13\\x0aimport os" in header


def test_a_traces_script_name_torch_version_and_failure_type_are_one_line_of_plain_text_in_every_view(tmp_path, cli):
    from compile_profile.user_input import text_problem

    script = "/x/\u202eyp.\x1b]0;pwned\x07live.py"
    metrics = {
        "co_filename": script,
        "pytorch_version": "2.13.0\nimport os",
        "fail_type": "BackendCompilerFailed\nFAKE: line",
        "fail_reason": "backend='boom' raised:\nRuntimeError: the backend ran out of widgets",
    }
    log = tmp_path / "t.log"
    log.write_text(log_naming(script, extra=(record({"compilation_metrics": metrics, **IDS}),)))
    code, out, err = cli("import-trace", str(log))
    assert code == 0, err
    with RunStore(cli.db) as store:
        (summary,) = store.list()
        run = store.get(summary["id"])
    assert text_problem(run.label, limit=10_000) == "" and "\\u202e" in run.label, run.label
    assert text_problem(run.torch_version, limit=10_000) == "", run.torch_version
    (error,) = run.errors
    assert text_problem(error.type, limit=10_000) == "", error.type
    # the line after Dynamo's "raised:" is the cause: it had been cut off in every view
    assert error.message == "backend='boom' raised: RuntimeError: the backend ran out of widgets"
    code, shown, err = cli("show", run.id)
    assert code == 0, err
    assert "ran out of widgets" in shown and "ran out of widgets" in out
    for text in (out, shown):
        starts = [line.split(" ")[0] for line in text.splitlines()]
        assert "import" not in starts and "FAKE:" not in starts, text


@pytest.mark.parametrize("seconds", [-1e18, 9.2e18], ids=["negative", "past-a-week"])
def test_a_compile_time_no_compile_could_take_is_a_record_skipped_with_its_line_not_a_figure(tmp_path, seconds):
    """Inside a float's range but no duration: shown as "entire frame -1e+27 ns" and "9.2e+18 s"."""
    metrics = {"co_filename": "/x/train.py", "entire_frame_compile_time_s": seconds}
    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py", extra=(record({"compilation_metrics": metrics, **IDS}),)))
    (run,) = import_trace(log)
    origin = run.imported_trace
    assert origin is not None and origin.bad_records == 1, origin
    (bad,) = origin.bad_record_lines
    assert bad.kind == "compilation_metrics" and "expected seconds from 0 to a week" in bad.why
    assert all(0 <= (v.compile_s or 0) < 3600 for v in run.variants)
