"""Hostile and odd input to the suite's doors (issue 34; docs/reliability.md, "Hostile input, 2026-12-05"): a collection
whose ``models()`` raises, returns what no builder is or names models with text no table, store or terminal can hold;
a ``--baseline`` that is JSON but nests past the recursion limit or holds figures no suite could have written; a
stored suite that cannot be read, through the CLI and the REST API; the HTML report given hostile names and causes.
Each was a traceback, a 500 or an outcome stored that made its suite unreadable; each is now a message that names
what to fix.  Every hostile file is built here, none shipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.store import RunStore
from compile_profile.suites import collection as collections
from compile_profile.suites.compare import read_export
from compile_profile.suites.storage import load_suite
from hostile_input import DEEP, HOSTILE_LABELS, Elements, _one_line_error
from server_requests import API, api_answer
from suite_fixtures import _suite, store_suite

pytest_plugins = ["pytest_jupyter.jupyter_server"]


# -- suites: the collection --------------------------------------------------------------------------------------------


def _collection(tmp_path: Path, body: str) -> str:
    path = tmp_path / "collection.py"
    path.write_text("from compile_profile.suites import Model, Skip\n\n" + body)
    return str(path)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            "def models():\n    raise RuntimeError('no models today')\n",
            ["models() raised RuntimeError: no models today"],
        ),
        (
            "class M(dict):\n    def items(self):\n        raise KeyError('gone')\n\ndef models():\n    return M(a=1)\n",
            ["models() raised KeyError"],
        ),
        ("import sys\nsys.exit(0)\n", ["importing", "called sys.exit(0)"]),
        ("import sys\n\ndef models():\n    sys.exit('bye')\n", ["models() called sys.exit('bye')"]),
        ("def models():\n    return {'a': Skip(123)}\n", ["Skip(...) of 'a'", "a string"]),
        ("def models():\n    return {'a': Model(build=5)}\n", ["Model(...) of 'a'", "build"]),
        ("def models():\n    return {'a': Model(lambda: 1, options=[1])}\n", ["Model(...) of 'a'", "options"]),
        ("def models():\n    return {'a': Model(lambda: 1, timeout_s=float('inf'))}\n", ["timeout_s", "finite"]),
        ("def models():\n    return {'a': Model(lambda: 1, timeout_s='10')}\n", ["timeout_s", "got '10'"]),
        ("def models():\n    return {'a': Model(lambda: 1, timeout_s=0)}\n", ["Model(...) of 'a'", "positive"]),
        ("def models():\n    return {'a': Model(lambda: 1, dtypes='bfloat16')}\n", ["dtypes 'bfloat16'", "tuple"]),
        ("def models():\n    return {'a': Model(lambda: 1, dtypes=('float16',))}\n", ["dtypes ('float16',)"]),
        ("def models():\n    return {'a': Model(lambda: 1, dtypes=())}\n", ["dtypes ()", "'bfloat16'"]),
        ("def models():\n    return {'a\\ud800': lambda: 1}\n", ["'a\\ud800'", "surrogate"]),
        ("def models():\n    return {'two\\nlines': lambda: 1}\n", ["'two\\nlines'", "control"]),
        ("def models():\n    return {'\\u202eevil': lambda: 1}\n", ["'\\u202eevil'", "control"]),
        ("def models():\n    return {'x' * 5000: lambda: 1}\n", ["5,000 characters", "at most 200"]),
    ],
)
def test_a_collection_that_raises_or_names_a_model_no_view_can_show_is_refused_before_any_process(
    tmp_path, cli, body, words
):
    source = _collection(tmp_path, body)
    with pytest.raises(collections.CollectionError) as refused:
        collections.load(source).entries(("inference",), ("float32",))
    for word in words:
        assert word in str(refused.value), str(refused.value)
    code, out, err = cli("suite", source, "--quick")
    _one_line_error(code, err)
    with RunStore(cli.db) as store:
        assert store.suites() == []  # refused before the suite was opened: nothing to resume


# -- suites: the baseline ------------------------------------------------------------------------------------------

_GOOD_MODEL = {
    "name": "mlp",
    "status": "pass",
    "speedup": 2.0,
    "speedup_low": 1.8,
    "speedup_high": 2.2,
    "compile_s": 3.0,
    "graph_breaks": 0,
    "recompiles": 0,
    "peak_eager_bytes": None,
    "peak_compiled_bytes": None,
    "top_cause": "",
    "run_id": None,
}
_GOOD_SUMMARY = {
    "pass_rate": 1.0,
    "geomean_speedup": 2.0,
    "geomean_low": 1.8,
    "geomean_high": 2.2,
    "median_compile_s": 3.0,
}


def _export(tmp_path: Path, name: str, models: list[dict] | None = None, summary: dict | None = None) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"models": models or [_GOOD_MODEL], "summary": summary or _GOOD_SUMMARY}))
    return path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (DEEP, ["nested deeper than"]),
        ('{"models": ' + DEEP + "}", ["nested deeper than"]),
    ],
)
def test_a_baseline_nested_past_the_recursion_limit_is_a_message(tmp_path, cli, text, words):
    bad = tmp_path / "deep.json"
    bad.write_text(text)
    good = _export(tmp_path, "good")
    code, _, err = cli("suite-compare", str(bad), str(good))
    _one_line_error(code, err, "deep.json is not a suite's --json file", *words)


@pytest.mark.parametrize(
    ("model", "summary", "words"),
    [
        ({"speedup": -2.0, "speedup_low": -3.0, "speedup_high": -1.0}, {}, ["models[0].speedup", "positive"]),
        ({"speedup": 2.0, "speedup_low": 5.0, "speedup_high": 1.0}, {}, ["models[0]", "speedup_low", "speedup_high"]),
        ({"speedup": 1e300, "speedup_low": 1e-300, "speedup_high": 1e308}, {}, ["models[0].speedup", "1e+300"]),
        ({"compile_s": -1.0}, {}, ["models[0].compile_s", "-1"]),
        ({"graph_breaks": -4}, {}, ["models[0].graph_breaks", "-4"]),
        # past a float's range: the message had raised OverflowError formatting it
        ({"graph_breaks": 10**400}, {}, ["models[0].graph_breaks", "an integer of 401 digits"]),
        ({"status": "<b>bogus</b>"}, {}, ["models[0].status", "'<b>bogus</b>'", "pass"]),
        ({}, {"pass_rate": 5.0}, ["summary.pass_rate", "0 to 1"]),
        ({"speedup_caveat": "busy " * 100_000}, {}, ["models[0].speedup_caveat", "500,000 characters", "at most 200"]),
        ({"speedup_caveat": "busy\x1b[2J CPU"}, {}, ["models[0].speedup_caveat", "U+001B", "one line of plain text"]),
    ],
)
def test_a_baseline_whose_figures_no_suite_could_have_written_is_refused_naming_the_field(
    tmp_path, cli, model, summary, words
):
    bad = _export(tmp_path, "bad", [{**_GOOD_MODEL, **model}], {**_GOOD_SUMMARY, **summary})
    good = _export(tmp_path, "good")
    with pytest.raises(ValueError) as refused:
        read_export(bad)
    for word in words:
        assert word in str(refused.value), str(refused.value)
    code, _, err = cli("suite-compare", str(bad), str(good), "--fail-on-regression")
    _one_line_error(code, err, "bad.json is not a suite's --json file")


def test_a_baseline_larger_than_its_cap_is_refused_without_reading_it(tmp_path, cli, monkeypatch):
    from compile_profile.suites import compare

    monkeypatch.setattr(compare, "EXPORT_BYTES", 1000)
    big = _export(tmp_path, "big", [{**_GOOD_MODEL, "name": f"m{i}"} for i in range(50)])
    code, _, err = cli("suite-compare", str(big), str(_export(tmp_path, "good")))
    _one_line_error(code, err, "big.json is larger than", "EXPORT_BYTES")


# -- suites: what is stored ------------------------------------------------------------------------------------------


def _store_suite(path: Path, suite_id: str | None = None) -> str:
    """The fixture's suite stored whole (under ``suite_id`` where given): one that reads."""
    record, runs = _suite()
    record.id = suite_id or record.id
    return store_suite(path, record, runs)


def _store_suite_with_an_unreadable_outcome(path: Path) -> str:
    suite_id = _store_suite(path)
    with RunStore(path) as store:
        # what a Skip(123) stored before the collection was checked: an outcome whose error is no string
        outcome = {"name": "n", "model": "n", "task": "step", "dtype": "float32", "ended": "skipped", "error": 123}
        store.put_suite_model(suite_id, "n", json.dumps(outcome), None)
    return suite_id


def test_a_stored_suite_that_cannot_be_read_is_named_with_its_field_in_the_cli(tmp_path, cli):
    suite_id = _store_suite_with_an_unreadable_outcome(cli.db)
    code, _, err = cli("suite", "--show", suite_id)
    _one_line_error(code, err, f"suite {suite_id}", "cannot be read", "error: expected a string")
    with RunStore(cli.db) as store, pytest.raises(ValueError, match="cannot be read"):
        load_suite(store, suite_id)


def test_a_stored_suite_that_cannot_be_read_is_listed_naming_it_and_why_beside_the_readable_ones(tmp_path, cli):
    """``suite --list`` left an unreadable suite out without a word: the user could neither see nor remove it."""
    bad = _store_suite_with_an_unreadable_outcome(cli.db)
    good = _store_suite(cli.db, "suite0000002")
    code, out, err = cli("suite", "--list")
    assert code == 0 and "Traceback" not in err, err
    rows = out.splitlines()
    assert [line for line in rows if line.startswith(good) and "cannot be read" not in line], out
    assert [line for line in rows if line.startswith(bad) and "cannot be read" in line], out
    (warning,) = err.strip().splitlines()
    assert f"suite {bad} cannot be read (the outcome of 'n': error: expected a string" in warning, err


# -- the REST doors --------------------------------------------------------------------------------------------------


async def test_rest_answers_a_suite_that_cannot_be_read_422_naming_it_never_500(jp_fetch, store_path):
    suite_id = _store_suite_with_an_unreadable_outcome(store_path)
    for parts in (("suites", suite_id), ("suites", suite_id, "report")):
        code, body = await api_answer(jp_fetch, *parts)
        assert code == 422, (parts, code, body)
        assert f"suite {suite_id}" in body["message"] and "cannot be read" in body["message"], body


async def test_rest_lists_a_suite_that_cannot_be_read_naming_it_and_why_beside_the_readable_ones(jp_fetch, store_path):
    """``GET suites`` left an unreadable suite out: the panel's Suites view could not show it."""
    bad = _store_suite_with_an_unreadable_outcome(store_path)
    good = _store_suite(store_path, "suite0000002")
    code, body = await api_answer(jp_fetch, "suites")
    assert code == 200, body
    rows = {row["id"]: row for row in body["suites"]}
    assert set(rows) == {bad, good}, rows
    assert rows[good]["unreadable"] == "" and rows[good]["progress_text"] == "8 of 8 entries", rows[good]
    assert rows[bad]["unreadable"].startswith("the outcome of 'n': error: expected a string"), rows[bad]
    assert rows[bad]["title"] == "cannot be read", rows[bad]


# -- the HTML a hostile name reaches -------------------------------------------------------------------------------


def test_the_suites_html_report_makes_no_element_of_a_hostile_name_or_cause(tmp_path):
    from compile_profile.suites.api import SuiteResult

    marker = '<xq1 data-xq="1">'
    record, runs = _suite()
    record.outcomes[0].name = f"</script><script>alert(1)</script>{marker}"
    record.outcomes[-1].error = f"<img src=x onerror=alert(2)>{marker}\x1b[2J"
    record.settings.entries = [o.name for o in record.outcomes]
    db = tmp_path / "h.sqlite"
    store_suite(db, record, runs)
    page = SuiteResult.load(record.id, str(db)).to_html()
    parser = Elements()
    parser.feed(page)
    assert not [(tag, attrs) for tag, attrs in parser.found if tag in ("xq1", "img")]
    assert not [attrs for _, attrs in parser.found if any(name in ("data-xq", "onerror") for name, _ in attrs)]
    assert sum(1 for tag, _ in parser.found if tag == "script") == page.count("<script")


# -- suites: the options ---------------------------------------------------------------------------------------------


def _skips(tmp_path: Path) -> str:
    """A collection of skipped models only: a suite of it starts no process."""
    return _collection(tmp_path, "def models():\n    return {'a': Skip('no library'), 'b': Skip('no GPU')}\n")


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [("--timeout", "inf", "inf"), ("--budget", "inf", "inf"), ("--budget", "nan", "nan"), ("--budget", "0", "0.0")],
)
def test_an_infinite_timeout_is_refused_before_the_suite_is_stored(tmp_path, cli, option, value, shown):
    """``--timeout inf`` was taken, stored as null (JSON has no infinity) and the suite it started could then not be
    read: "suite ... cannot be read (its record: settings.timeout_s: expected a finite number, got null)";
    ``--budget inf`` likewise (``settings.profile_options.budget``), and each model's run with it."""
    code, _, err = cli("suite", _skips(tmp_path), option, value)
    _one_line_error(code, err, f"{option} must be a positive, finite number of seconds, got {shown}")
    with RunStore(cli.db) as store:
        assert store.suites() == []


@pytest.mark.parametrize(("label", "words"), HOSTILE_LABELS)
def test_a_label_no_table_can_show_is_refused_before_the_suite_is_stored(tmp_path, cli, label, words):
    """A suite's label had no cap and could hold a line break or ESC, which split its table's title and moved the
    terminal's cursor; it now keeps to a model name's rule (``user_input.text_problem``)."""
    import compile_profile
    from compile_profile.suites.runner import SuiteError

    code, _, err = cli("suite", _skips(tmp_path), "--label", label)
    _one_line_error(code, err, *words)
    with pytest.raises(SuiteError) as refused:
        compile_profile.suite(_skips(tmp_path), label=label, db=str(cli.db), progress=False)
    for word in words:
        assert word in str(refused.value), str(refused.value)
    with RunStore(cli.db) as store:
        assert store.suites() == []


def test_an_output_file_that_cannot_be_written_is_refused_before_any_model_runs(tmp_path, cli):
    for option in ("--json", "--html"):
        target = tmp_path / "no such directory" / "out.file"
        code, _, err = cli("suite", _skips(tmp_path), option, str(target))
        _one_line_error(code, err, f"cannot write {target}", "no such directory")
    with RunStore(cli.db) as store:
        assert store.suites() == []


def test_an_output_file_that_fails_at_the_end_names_the_stored_suite_to_write_it_from(tmp_path, cli, monkeypatch):
    from compile_profile.suites import cli as suite_cli

    monkeypatch.setattr(suite_cli, "_check_writable", lambda path: None)  # the directory goes after the check
    target = tmp_path / "gone" / "out.json"
    code, _, err = cli("suite", _skips(tmp_path), "--json", str(target))
    with RunStore(cli.db) as store:
        ((suite_id, _, _),) = store.suites()
    last = err.strip().splitlines()[-1]  # after the progress lines
    _one_line_error(code, last, f"cannot write {target}", f"compile-profile suite --show {suite_id} --json")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("side", "words"),
    [
        (".", ["is no --json file (a directory)"]),
        ("/dev/null", ["is no --json file (a character device)"]),
        ("no such/file.json", ["no file 'no such/file.json'", "no suite id"]),
    ],
)
def test_a_baseline_that_is_no_file_and_no_suite_id_says_which(tmp_path, cli, side, words):
    good = _export(tmp_path, "good")
    code, _, err = cli("suite-compare", side, str(good))
    _one_line_error(code, err, *words)


def test_the_suite_api_refuses_arguments_that_would_store_a_suite_it_cannot_read(tmp_path):
    """``label=5`` was stored and the suite could then not be read ("its record: label: expected a string, got an
    integer (5)"); a task, dtype or model given as one string was split into its characters ("--task 'i': choose
    from ..."); ``size`` took any text."""
    import compile_profile
    from compile_profile.suites.runner import SuiteError

    source, db = _skips(tmp_path), tmp_path / "api.sqlite"
    with pytest.raises(SuiteError, match="label must be a string, got int"):
        compile_profile.suite(source, label=5, db=str(db), progress=False)  # type: ignore[arg-type]
    with pytest.raises(SuiteError, match="--size '<b>': choose from auto, small, real"):
        compile_profile.suite(source, size="<b>", db=str(db), progress=False)
    with RunStore(db) as store:
        assert store.suites() == []
    result = compile_profile.suite(
        source, tasks="inference", dtypes="float32", only="a", db=str(db), progress=False
    )  # one of each, as a string
    assert [o.name for o in result.record.outcomes] == ["a"]


def test_a_name_with_a_line_break_is_refused_from_a_baseline_and_kept_to_its_tables_row_from_another_store(
    tmp_path, cli
):
    """Names are checked where a collection is read, but a ``--json`` file or another store's suite (``compile-profile
    import OTHER.sqlite``) brings its own: a newline in one split the comparison's and the suite's table rows.  A
    ``--json`` file is held to the collection's rule (naming the field); a stored suite's name is shown escaped."""
    from compile_profile.suites.digest import suite_digest
    from compile_profile.suites.views import render_text

    name = "two\nlines\r\x1b[2J"
    old = _export(tmp_path, "old", [{**_GOOD_MODEL, "name": name}])
    new = _export(tmp_path, "new", [{**_GOOD_MODEL, "name": name, "speedup": 2.1}])
    code, out, err = cli("suite-compare", str(old), str(new))
    assert code == 2 and "models[0].name: it holds the control character U+000A" in err, err
    assert "\x1b" not in err and out == ""
    record, runs = _suite()
    record.outcomes[0].name = name
    record.settings.entries[0] = name
    text = render_text(suite_digest(record, runs))
    assert "two\\nlines\\r\\x1b[2J" in text and not any(line.startswith("lines") for line in text.splitlines()), text


async def test_the_suite_and_import_doors_refuse_another_sites_use_of_the_users_session(
    http_server_client, jp_base_url, jp_auth_header, jp_root_dir, store_path
):
    """The session cookie alone (a form post from another page) imports nothing and reads no suite for another site;
    with the lab's XSRF token the same import goes through."""
    from test_reliability_access import EVIL, cookie_header, log_in
    from test_trace_safety import log_naming

    async def request_raw(path: str, *, method: str = "GET", headers: dict | None = None, body: str | None = None):
        response = await http_server_client.fetch(
            jp_base_url.rstrip("/") + "/" + path,
            method=method,
            headers=headers or {},
            body=body,
            raise_error=False,
            follow_redirects=False,
            allow_nonstandard_methods=True,
        )
        return response.code, response.body.decode("utf-8", "replace"), response

    suite_id = _store_suite_with_an_unreadable_outcome(store_path)
    with RunStore(store_path) as store:
        before = store.count()
    (jp_root_dir / "t.log").write_text(log_naming("/x/train.py"))
    cookies = await log_in(request_raw, jp_auth_header)
    cookie = cookie_header(cookies)
    body = json.dumps({"path": "t.log"})
    for headers in ({"Cookie": cookie}, {"Cookie": cookie, "Origin": EVIL}):
        status, _, _ = await request_raw(f"{API}/runs/import-trace", method="POST", headers=headers, body=body)
        assert status in (403, 404), (headers, status)  # jupyter_server answers another origin 404
    for path in ("suites", f"suites/{suite_id}", f"suites/{suite_id}/report"):
        status, text, _ = await request_raw(f"{API}/{path}", headers={"Cookie": cookie, "Origin": EVIL})
        assert status in (403, 404) and suite_id not in text, (path, status)
    with RunStore(store_path) as store:
        assert store.count() == before  # nothing imported
    headers = {"Cookie": cookie, "X-XSRFToken": cookies["_xsrf"]}
    status, text, _ = await request_raw(f"{API}/runs/import-trace", method="POST", headers=headers, body=body)
    assert status == 201, text
