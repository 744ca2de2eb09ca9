"""The ``compile-profile`` command: every subcommand through ``main([...])``, on a throwaway store."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import compile_profile
import nbformat
import pytest
from compile_profile.cli import main
from compile_profile.digest import compare
from compile_profile.profile_run import Correctness
from compile_profile.render.mime import MIME_TYPE
from compile_profile.serialize import to_dict
from compile_profile.store import RunStore
from synthetic_store_runs import make_run, tamper, timestamp


@pytest.fixture
def db(tmp_path):
    return tmp_path / "runs.sqlite"


@pytest.fixture
def store(db):
    with RunStore(db) as s:
        s.put(make_run("older1", label="first try", created_at=timestamp(120), notebook="/w/a.ipynb"))
        s.put(
            make_run(
                "newer2",
                label="second try",
                created_at=timestamp(1),
                notebook="/w/b.ipynb",
                compiled_ms=0.5,
                kernel_names=("cpp_fused_relu_0", "cpp_fused_add_1"),
                graph_breaks=0,
                recompiles=2,
            )
        )
        yield s


def assert_one_line_error(err: str, *fragments: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("compile-profile: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


# -- ls ----------------------------------------------------------------------------


def test_ls_table_newest_first_with_every_column(cli, store):
    code, out, err = cli("ls")
    assert code == 0 and err == ""
    header, first, second = out.strip().splitlines()
    columns = ("ID", "CREATED", "LABEL", "FIRST LINE", "DEVICE", "STATUS", "SPEEDUP")
    assert [header.index(c) for c in columns] == sorted(header.index(c) for c in columns)  # the verdict first
    assert first.startswith("newer2") and second.startswith("older1")
    assert "second try" in first and "1 min ago" in first
    assert "y = torch.relu(x @ w)" in first  # the first code line, not the comment above it
    assert "Test CPU" in first and " ".join(first.split()).endswith("ok 4.00× faster [3.60×–4.40×] inductor")
    assert "2 h ago" in second and "2.00× faster [1.80×–2.20×]" in second


def test_ls_says_results_differ_for_a_run_whose_compiled_results_differ_from_eager(cli, store):
    # STATUS read "ok" beside a run whose card said "compiled results differ from eager in logits"
    run = make_run("mismatch", created_at=timestamp(0))
    run.correctness = Correctness(ok=False, max_abs_diff=2.73, compared=["logits"], mismatched=["logits"])
    store.put(run)
    code, out, _ = cli("ls")
    rows = {line.split()[0]: line for line in out.strip().splitlines()[1:]}
    assert code == 0
    # the verdict leads the row's figures, and the speedup after it is marked not meaningful
    rows = {key: " ".join(row.split()) for key, row in rows.items()}
    assert "results differ 2.00× faster [1.80×–2.20×] inductor (not meaningful)" in rows["mismatch"]
    assert " ok 4.00× faster" in rows["newer2"] and "differ" not in rows["newer2"]


def test_ls_json_notebook_filter_and_limit(cli, store):
    code, out, _ = cli("ls", "--json")
    assert code == 0
    assert json.loads(out) == store.list()
    code, out, _ = cli("ls", "--json", "--notebook", "/w/a.ipynb")
    assert [row["id"] for row in json.loads(out)] == ["older1"]
    code, out, _ = cli("ls", "--limit", "1")
    assert "newer2" in out and "older1" not in out
    assert "(1 of 2 runs" in out
    code, _, err = cli("ls", "--limit", "0")
    assert code == 2
    assert_one_line_error(err, "--limit")


def test_ls_on_an_empty_store(cli, db):
    code, out, _ = cli("ls")
    assert code == 0 and f"no runs in {db}" in out
    assert not db.exists()  # listing created nothing


def test_db_option_after_the_subcommand_and_environment_default(store, db, capsys, monkeypatch, tmp_path):
    assert main(["ls", "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(db))
    assert main(["ls", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert main(["ls", "--json", "--db", str(tmp_path / "other.sqlite")]) == 0
    assert json.loads(capsys.readouterr().out) == []


def _with(run, **fields) -> str:
    """The run's JSON with some fields replaced."""
    return json.dumps({**run.to_dict(), **fields})


def test_ls_lists_an_unreadable_run_with_its_id_and_says_why_on_stderr(cli, store, db):
    # issue 21: one garbage summary made ls fail with "Expecting value" and list nothing
    store.put(make_run("broken3", label="was fine", created_at=timestamp(60)))
    tamper(db, "newer2", summary_json="garbage")  # a cached summary only: derived again, no loss
    tamper(db, "broken3", run_json=_with(make_run("broken3"), variants=5), summary_json="[1]")
    code, out, err = cli("ls")
    assert code == 0 and "Traceback" not in err
    rows = {line.split()[0]: line for line in out.strip().splitlines()[1:]}
    assert set(rows) == {"newer2", "broken3", "older1"}
    rows = {key: " ".join(row.split()) for key, row in rows.items()}
    assert "ok 4.00× faster [3.60×–4.40×]" in rows["newer2"]
    assert "was fine" in rows["broken3"] and rows["broken3"].endswith("unreadable —")
    assert err.strip().splitlines() == [
        "compile-profile: warning: run broken3 cannot be read (variants: expected a list, got an integer (5)); "
        "`compile-profile rm broken3` removes it"
    ]
    code, out, _ = cli("ls", "--json")
    assert [r["status"] for r in json.loads(out)] == ["ok", "unreadable", "ok"]


@pytest.mark.parametrize(
    "argv",
    [("show", "broken3"), ("export", "broken3", "--html", "x.html"), ("compare", "older1", "broken3")],
    ids=["show", "export", "compare"],
)
@pytest.mark.parametrize(
    ("run_json", "reason"),
    [("{not json", "not JSON: "), (_with(make_run("broken3"), cell_runs="<img>"), "cell_runs: expected an integer")],
    ids=["not-json", "wrong-type"],
)
def test_an_unreadable_run_is_one_line_exit_2_naming_it_and_the_field(cli, store, db, tmp_path, argv, run_json, reason):
    store.put(make_run("broken3"))
    tamper(db, "broken3", run_json=run_json)
    argv = tuple(str(tmp_path / a) if a.endswith(".html") else a for a in argv)
    code, out, err = cli(*argv)
    assert code == 2 and not (tmp_path / "x.html").exists()
    assert_one_line_error(err, f"run broken3 in {db} cannot be read (", reason, "compile-profile rm broken3")
    assert cli("show", "older1")[0] == 0  # every other run works


def test_a_job_with_an_unreadable_rank_is_one_line_naming_that_rank(cli, store, db, tmp_path):
    from job_fixtures import job_runs

    ranks = job_runs(2)
    for run in ranks:
        store.put(run)
    tamper(db, ranks[1].id, run_json=_with(ranks[1], status="<b>done</b>"))
    code, _, err = cli("job", ranks[0].id, "--html", str(tmp_path / "job.html"))
    assert code == 2 and not (tmp_path / "job.html").exists()
    assert_one_line_error(err, f"run {ranks[1].id} in {db} cannot be read (status: expected one of 'ok'")


CONTROLS = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x00\r\x9b"  # OSC title, BEL, clear screen, colour, NUL, CR, CSI


def _no_controls(text: str) -> None:
    assert not any(ch in text for ch in "\x1b\x07\x00\r\x9b"), repr(text)


def test_ls_and_show_write_terminal_controls_as_escapes(cli, store):
    run = make_run("ctl1", label=f"lab{CONTROLS}el")
    run.cell_source = f"y = 1  # {CONTROLS}\n"
    run.graph_breaks[0].reason = f"reason {CONTROLS}"
    store.put(run)
    for argv in (("ls",), ("show", "ctl1"), ("compare", "older1", "ctl1")):
        code, out, err = cli(*argv)
        assert code == 0, err
        _no_controls(out + err)
    assert "lab\\x1b]0;owned\\x07\\x1b[2J" in cli("ls")[1]  # shown, as characters
    code, out, _ = cli("ls", "--json")
    assert json.loads(out)[0]["label"] == f"lab{CONTROLS}el"  # JSON keeps the text as it is (escaped by JSON)


# -- show ------------------------------------------------------------------------------


def test_show_prints_the_text_view(cli, store):
    code, out, _ = cli("show", "older1")
    assert code == 0
    run = store.get("older1")
    assert out == str(run) + "\n"
    assert out.splitlines()[0] == run.summary()["headline"]


def test_show_json_is_the_stored_run(cli, store):
    code, out, _ = cli("show", "newer2", "--json")
    assert code == 0
    assert json.loads(out) == store.get_dict("newer2")


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["show", "missing"], ["no run with id 'missing'"]),
        (["show", "../x"], ["invalid run id '../x'"]),
        (["show", "1; DROP TABLE runs"], ["invalid run id"]),
        (["compare", "older1", "missing"], ["missing"]),
        (["export", "missing", "--json", "x.json"], ["missing"]),
        (["export", "older1"], ["--html OUT, --json OUT and/or --perfetto OUT"]),
        (["frobnicate"], ["invalid choice", "--help"]),
        (["show"], ["required", "id"]),
        (["ls", "--limit", "many"], ["invalid int value"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, store, argv, fragments):
    code, out, err = cli(*argv)
    assert code == 2
    assert_one_line_error(err, *fragments)
    assert store.count() == 2


def test_unusable_store_is_one_line_and_exit_2(tmp_path, capsys):
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("just text\n" * 50)
    assert main(["--db", str(not_a_db), "ls"]) == 2
    assert_one_line_error(capsys.readouterr().err, str(not_a_db), "left untouched")
    assert not_a_db.read_text() == "just text\n" * 50


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("ls", "show", "rm", "compare", "export", "run"):
        assert command in out


@pytest.mark.slow
def test_runs_as_a_module_with_exit_codes(store, db):
    listed = _cli_process(db, "ls", "--json", timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == ["newer2", "older1"]
    missing = _cli_process(db, "show", "nope", timeout=60)
    assert missing.returncode == 2
    assert_one_line_error(missing.stderr, "nope")


# -- rm -------------------------------------------------------------------------------------


def test_rm_removes_runs(cli, store):
    code, out, _ = cli("rm", "older1", "newer2")
    assert code == 0
    assert out.splitlines() == ["removed older1", "removed newer2"]
    assert store.count() == 0


def test_rm_reports_unknown_ids_after_removing_the_known_ones(cli, store):
    code, out, err = cli("rm", "older1", "ghost")
    assert code == 2
    assert out == "removed older1\n"
    assert_one_line_error(err, "ghost")
    assert [r["id"] for r in store.list()] == ["newer2"]


def test_rm_with_an_invalid_id_removes_nothing(cli, store):
    code, _, err = cli("rm", "older1", "../etc")
    assert code == 2
    assert_one_line_error(err, "invalid run id")
    assert store.count() == 2


# -- compare -----------------------------------------------------------------------------------


def test_compare_side_by_side(cli, store):
    code, out, _ = cli("compare", "older1", "newer2")
    assert code == 0
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    assert "A older1" in out and "B newer2" in out
    assert "1 ms" in rows["inductor median"] and "500 µs" in rows["inductor median"]
    assert rows["inductor median"].rstrip().endswith("-50.0%")
    assert rows["eager median"].rstrip().endswith("within noise (+0.0%)")  # one spread in both
    assert "2.00×" in rows["speedup"] and "4.00×" in rows["speedup"] and rows["speedup"].endswith("+100.0%")
    assert rows["graph breaks"].split()[-3:] == ["1", "0", "-1"]
    assert rows["recompiles"].split()[-3:] == ["0", "2", "+2"]
    assert rows["kernels"].split()[-3:] == ["2", "2", "+0"]
    assert "kernels added in B: cpp_fused_add\n" in out  # matched without Inductor's trailing counter
    assert "kernels removed in B: extern_mm\n" in out
    assert "kernels in both: 1" in out


def test_compare_matches_a_renumbered_kernel_as_the_same_kernel(store):
    a = make_run("a1", kernel_names=("cpp_fused_relu_0", "cpp_fused_relu_1", "cpp_fused_add_2"))
    b = make_run("b1", kernel_names=("cpp_fused_add_0", "cpp_fused_relu_3"))
    c = compare(a, b)
    assert c.kernels_added == []
    assert [(k.name, k.count) for k in c.kernels_removed] == [("cpp_fused_relu", 1)]
    assert c.kernels_kept == 2


def test_compare_json_is_the_digest_comparison(cli, store):
    code, out, _ = cli("compare", "newer2", "older1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == json.loads(json.dumps(to_dict(compare(store.get("newer2"), store.get("older1")))))
    assert data["kernels_added"] == [{"name": "extern_mm", "count": 1}]
    assert data["kernels_removed"] == [{"name": "cpp_fused_add", "count": 1}]
    inductor = next(d for d in data["deltas"] if d["metric"] == "inductor median")
    assert (inductor["a"], inductor["b"], inductor["change"]) == (0.5, 1.0, pytest.approx(1.0))
    assert inductor["better"] == "a"


def test_compare_lists_variants_of_either_run(store):
    a = make_run("a1")
    b = make_run("b1")
    b.variants[1].name = "max-autotune"
    b.speedup.variant = "max-autotune"
    medians = {d.metric: (d.a, d.b, d.change) for d in compare(a, b).deltas if d.metric.endswith(" median")}
    assert medians == {
        "eager median": (2.0, 2.0, 0.0),
        "inductor median": (1.0, None, None),
        "max-autotune median": (None, 1.0, None),
    }


def test_compare_says_a_cold_and_a_warm_compile_are_not_comparable_and_words_each_cache(store):
    a, b = make_run("a1"), make_run("b1")
    a.variants[1].compile_s, b.variants[1].compile_s = 8.39, 4.83
    a.variants[1].cache_state, b.variants[1].cache_state = "cold", "warm"
    (d,) = [d for d in compare(a, b).deltas if d.metric == "inductor compile"]
    assert (d.a_text, d.b_text) == ("8.39 s (cold cache)", "4.83 s (warm cache)")
    assert d.change is None and d.better == "" and d.change_text == "not comparable: cold cache vs warm cache"
    b.variants[1].cache_state = "cold"  # the same cache state: a change the code made
    (d,) = [d for d in compare(a, b).deltas if d.metric == "inductor compile"]
    assert d.change == pytest.approx(4.83 / 8.39 - 1) and d.better == "b"


# -- export ------------------------------------------------------------------------------------------


def test_export_json_and_html(cli, store, tmp_path, monkeypatch):
    monkeypatch.setattr(
        "compile_profile.cli.runs.render_report_html",
        lambda run, artifacts: f"<!DOCTYPE html><p>report {run.id}</p>\n",
    )
    code, out, _ = cli("export", "older1", "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"))
    assert code == 0
    assert json.loads((tmp_path / "r.json").read_text()) == store.get_dict("older1")
    assert (tmp_path / "r.html").read_text() == "<!DOCTYPE html><p>report older1</p>\n"
    assert f"wrote {tmp_path / 'r.html'}" in out


def test_export_html_with_the_real_report_renderer(cli, store, tmp_path):
    code, _, _ = cli("export", "newer2", "--html", str(tmp_path / "r.html"))
    assert code == 0
    page = (tmp_path / "r.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "newer2" in page


def test_export_to_a_missing_folder_is_one_line_exit_2(cli, store, tmp_path):
    code, _, err = cli("export", "older1", "--json", str(tmp_path / "no" / "such" / "r.json"))
    assert code == 2
    assert_one_line_error(err, "cannot write")


# -- run a notebook ------------------------------------------------------------------------------------------


def display_cell(payload: dict) -> nbformat.NotebookNode:
    """A cell that displays a compile-profile output exactly as the magic's MIME bundle would arrive."""
    return nbformat.v4.new_code_cell(
        "from IPython.display import display\n"
        f"display({{{MIME_TYPE!r}: {payload!r}, 'text/plain': 'profiled'}}, raw=True)"
    )


def write_notebook(path: pathlib.Path, cells: list) -> pathlib.Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = cells
    nbformat.write(nb, path)
    return path


def payload_for(run) -> dict:
    return {"version": 1, "run_id": run.id, "summary": run.summary()}


@pytest.mark.slow
def test_run_executes_the_notebook_and_tabulates_profiled_cells(cli, store, db, tmp_path, monkeypatch):
    hostile = make_run("hostile3", label="<script>alert(1)</script>")
    store.put(hostile)
    monkeypatch.setattr(
        "compile_profile.cli.notebook.render_report_html",
        lambda run, plotly_from_parent=False: f'<!DOCTYPE html><p>report "{run.id}" {plotly_from_parent}</p>',
    )
    notebook = tmp_path / "work" / "profiled.ipynb"
    notebook.parent.mkdir()
    write_notebook(
        notebook,
        [
            nbformat.v4.new_markdown_cell("# a notebook"),
            nbformat.v4.new_code_cell(
                "import os, pathlib\n"
                f"assert os.environ['COMPILE_PROFILE_NOTEBOOK'] == {str(notebook)!r}\n"
                f"assert os.environ['COMPILE_PROFILE_DB'] == {str(db)!r}\n"
                f"assert pathlib.Path.cwd() == pathlib.Path({str(notebook.parent)!r})"
            ),
            display_cell(payload_for(store.get("older1"))),
            nbformat.v4.new_code_cell("x = 1  # not profiled"),
            display_cell(payload_for(hostile)),
            display_cell({"version": 1, "run_id": "notstored", "summary": payload_for(store.get("newer2"))["summary"]}),
        ],
    )
    out_json, out_html = tmp_path / "out.json", tmp_path / "out.html"
    code, out, err = cli("run", str(notebook), "--json", str(out_json), "--html", str(out_html), "--timeout", "60")
    assert code == 0, err

    table = out.splitlines()
    assert table[0].split() == [
        "CELL",
        "RUN",
        "LABEL",
        "VARIANTS",
        "MEDIANS",
        "STATUS",
        "SPEEDUP",
        "(INTERVAL)",
        "GRAPHS",
        "BREAKS",
    ]
    rows = {line.split()[1]: line for line in table[1:4]}
    assert rows["older1"].startswith("3 ") and "first try" in rows["older1"]
    assert "eager, inductor" in rows["older1"] and "eager 2 ms, inductor 1 ms" in rows["older1"]
    assert "2.00× faster [1.80×–2.20×]" in rows["older1"]
    assert rows["older1"].split()[-2:] == ["1", "1"]  # graphs, breaks
    assert rows["hostile3"].startswith("5 ")
    assert rows["notstored"].startswith("6 ") and rows["notstored"].split()[-2:] == ["1", "0"]
    assert "run notstored (cell 6) is not in" in err
    assert "profiled.ipynb" in err and "5/5" in err  # the progress bar reached every code cell

    exported = json.loads(out_json.read_text())
    assert exported["notebook"] == str(notebook)
    assert [(r["cell"], r["run_id"]) for r in exported["runs"]] == [(3, "older1"), (5, "hostile3"), (6, "notstored")]
    assert exported["runs"][0]["run"] == store.get_dict("older1")
    assert exported["runs"][2]["run"] is None

    page = out_html.read_text()
    assert page.count("<iframe") == 2  # the two stored runs, each report framed
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    # each framed report runs the one plotly.js the page holds (six reports had made a 35.5 MB page)
    assert 'srcdoc="&lt;!DOCTYPE html&gt;&lt;p&gt;report &quot;older1&quot; True&lt;/p&gt;"' in page
    assert page.count('id="cp-plotly-js"') == 1 and page.index('id="cp-plotly-js"') < page.index("<iframe")


@pytest.mark.slow
def test_run_stops_at_a_failing_cell_and_exits_1(cli, store, tmp_path):
    marker = tmp_path / "after-the-failure"
    notebook = write_notebook(
        tmp_path / "failing.ipynb",
        [
            display_cell(payload_for(store.get("older1"))),
            nbformat.v4.new_code_cell("values = {}\nvalues['missing']"),
            nbformat.v4.new_code_cell(f"open({str(marker)!r}, 'w').close()"),
        ],
    )
    code, out, err = cli("run", str(notebook), "--json", str(tmp_path / "partial.json"))
    assert code == 1
    error = err.strip().splitlines()[-1]
    assert error == "compile-profile: error: cell 2 failed: KeyError: 'missing'"
    assert "Traceback" not in err
    assert "older1" in out  # what was profiled before the failure is still reported
    assert [r["run_id"] for r in json.loads((tmp_path / "partial.json").read_text())["runs"]] == ["older1"]
    assert not marker.exists()  # nothing ran after the failing cell


@pytest.mark.slow
def test_run_fails_a_cell_that_exceeds_the_timeout(cli, store, tmp_path):
    notebook = write_notebook(tmp_path / "slow.ipynb", [nbformat.v4.new_code_cell("import time\ntime.sleep(30)")])
    code, _, err = cli("run", str(notebook), "--timeout", "1")
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("compile-profile: error: cell 1 timed out after 1 s")


def test_run_bad_inputs(cli, store, tmp_path):
    code, _, err = cli("run", str(tmp_path / "absent.ipynb"))
    assert code == 2
    assert_one_line_error(err, "no notebook at", "absent.ipynb")
    not_json = tmp_path / "broken.ipynb"
    not_json.write_text("{ this is not json")
    code, _, err = cli("run", str(not_json))
    assert code == 2
    assert_one_line_error(err, "not a readable notebook")
    fine = write_notebook(tmp_path / "fine.ipynb", [])
    code, _, err = cli("run", str(fine), "--timeout", "0")
    assert code == 2
    assert_one_line_error(err, "--timeout")
    code, _, err = cli("run", str(fine), "--kernel", "no-such-kernel")
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        "compile-profile: error: no Jupyter kernel named 'no-such-kernel' (choose one with --kernel)"
    )


@pytest.mark.slow
def test_run_table_and_progress_write_terminal_controls_as_escapes(cli, store, tmp_path):
    run = make_run("ctl2", label=f"lab{CONTROLS}")
    store.put(run)
    notebook = write_notebook(
        tmp_path / "controls.ipynb",
        [
            # the progress bar shows the running cell's first line (where Python takes no NUL, and CR ends a line)
            nbformat.v4.new_code_cell(f"x = 1  # {CONTROLS.replace(chr(0), '').replace(chr(13), '')}"),
            display_cell(payload_for(run)),
            display_cell({"version": 1, "run_id": f"gone{CONTROLS}", "summary": {"label": CONTROLS}}),
        ],
    )
    code, out, err = cli("run", str(notebook), "--timeout", "60")
    assert code == 0, err
    _no_controls(out)
    assert not any(ch in err for ch in "\x1b\x07\x00\x9b"), repr(err)  # tqdm's own \r redraws the bar
    assert "lab\\x1b]0;owned" in out and "x = 1  # \\x1b]0;owned" in err
    assert "warning: run gone\\x1b]0;owned" in err


def _cli_process(db, *argv: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, so what the kernel writes to the terminal's stderr is seen too."""
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(compile_profile.__file__).parents[1])}
    return subprocess.run(
        [sys.executable, "-m", "compile_profile.cli", "--db", str(db), *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.mark.slow
def test_run_timeout_keeps_the_kernels_log_off_the_terminal(store, db, tmp_path):
    # issue 21: the interrupted kernel's ZMQ traceback (and its TCP warning) reached the terminal
    notebook = write_notebook(tmp_path / "slow.ipynb", [nbformat.v4.new_code_cell("import time\ntime.sleep(30)")])
    done = _cli_process(db, "run", str(notebook), "--timeout", "2")
    assert done.returncode == 1
    for noise in ("Traceback", "ZMQError", "IPKernelApp", "WARNING"):
        assert noise not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("compile-profile: error: cell 1 timed out after 2 s")


@pytest.mark.slow
def test_run_says_what_a_dying_kernel_last_wrote(store, db, tmp_path):
    cell = "import os, sys\nprint('out of memory, probably', file=sys.__stderr__, flush=True)\nos._exit(3)"
    notebook = write_notebook(tmp_path / "dies.ipynb", [nbformat.v4.new_code_cell(cell)])
    done = _cli_process(db, "run", str(notebook))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("compile-profile: error: cell 1: the kernel died") and last.endswith(
        ": out of memory, probably"
    )


def test_import_refuses_a_pipe_or_a_link_to_a_device_in_one_line_without_waiting_or_reading_it(db, tmp_path, capsys):
    """A named pipe had held ``import`` forever (opening it to read waits for a writer), and a link to /dev/zero read
    until memory ran out."""
    import os

    pipe = tmp_path / "run.json"
    os.mkfifo(pipe)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (pipe, zero):
        assert main(["--db", str(db), "import", str(path)]) == 2
        assert f"cannot read {path}: it is not a regular file" in capsys.readouterr().err
