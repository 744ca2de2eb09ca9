"""Hostile and odd input to the doors issue 32 hardened (docs/reliability.md, "Hostile input, 2026-12-05"): a TORCH_TRACE
whose JSON nests past Python's recursion limit, holds lone surrogates (a ``\\ud800`` escape, which JSON allows and no
UTF-8 text can hold) or numbers at the edge of a float, through the CLI, the API and ``POST runs/import-trace``.  Each
was a traceback, a 500, a log refused whole or a run stored that could not be read back; each is now a line skipped
and counted, a record skipped with its line and why, or a message.  Every hostile file is built here, none shipped.
"""

from __future__ import annotations

import json

import pytest
import tornado.httpclient
from compile_profile.cli import main
from compile_profile.engine.trace.log_import import import_trace
from compile_profile.store import RunStore
from test_trace_safety import HEAD, log_naming, record

pytest_plugins = ["pytest_jupyter.jupyter_server"]

API = "compile-profile/api"
IDS = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
DEEP = "[" * 100_000 + "]" * 100_000  # past any recursion limit: json.loads raises RecursionError on it


@pytest.fixture
def cli(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["--db", str(db), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    run.db = db  # type: ignore[attr-defined]
    return run


def _one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


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


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"compile_profile": True}}}


@pytest.fixture
def store_path(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(path))
    return path


async def _fetch(jp_fetch, *parts: str, **kwargs) -> tuple[int, dict]:
    try:
        response = await jp_fetch(API, *parts, **kwargs)
    except tornado.httpclient.HTTPClientError as exc:
        assert exc.response is not None
        return exc.code, json.loads(exc.response.body)
    return response.code, json.loads(response.body) if response.body else {}


async def test_rest_import_refuses_a_body_nested_too_deep_or_text_with_lone_surrogates_400_never_500(
    jp_fetch, jp_root_dir, store_path
):
    (jp_root_dir / "t.log").write_text(log_naming("/x/train.py"))
    bodies = {
        DEEP: "the request body must be a JSON object",
        '{"path": ' + DEEP + "}": "the request body must be a JSON object",
        '{"path": "t\\ud800.log"}': "nothing to import at t\ufffd.log",
        '{"path": "t.log", "label": "x\\ud800"}': None,  # imported, its label's surrogate replaced
    }
    for body, message in bodies.items():
        code, answer = await _fetch(jp_fetch, "runs", "import-trace", method="POST", body=body)
        if message is None:
            assert code == 201, answer
            (run_id,) = answer["ids"]
            code, run = await _fetch(jp_fetch, "runs", run_id)
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
