"""A run file brought in from elsewhere (``compile-profile import``, the documented way to gather a job's ranks)
runs no script in any HTML output, whatever it holds.

Every leaf of rich runs (each string, number, boolean, null and dict key) gets a payload of its own
(``markup_runs``).  The loader refuses each one that is not text where the schema wants text, naming that
leaf's field; what it accepts (every ``str`` field) is then shown in each HTML output, which Chromium opens:
the exported report (``compile-profile export --html``), a notebook's report (``compile-profile run --html``),
the job report (``compile-profile job ID --html``), the cell's static ``text/html`` and the MIME bundle.  No
payload may run; the text of many of them must be on the page, as text.  The panel and the card in
JupyterLab see the same run in ui-tests/tests/xss.spec.ts.
"""

from __future__ import annotations

import copy
import json
import pathlib

import pytest
from browser_pages import open_in_chromium
from compile_profile.cli import main
from compile_profile.cli.notebook import _notebook_report_html
from compile_profile.digest import compare, run_digest
from compile_profile.digest.job import job_digest
from compile_profile.profile_run import DistributedRank, ProfileRun
from compile_profile.render.charts import figures
from compile_profile.render.html import render_html
from compile_profile.render.mime import mime_bundle
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from compile_profile.serialize import FormatError
from compile_profile.store import RunStore
from hypothesis import event, given
from hypothesis import strategies as st
from markup_runs import get_at, leaves, marker, markup_everywhere, path_text, payload, set_at
from render_fixtures import ParsedHTML, cpu_run, cuda_run, failed_run, hostile_run, reduce_overhead_run

RICH_RUNS = {
    "cuda": cuda_run,
    "cpu": cpu_run,
    "failed": failed_run,
    "hostile": hostile_run,
    "reduce_overhead": reduce_overhead_run,
}
# The schema's enumerations: text, but only one of a few words, so markup in them is refused.
LITERAL_FIELDS = {"device.type", "status", "cache.state", "graphs[0].kind", "kernels[0].language"}


def rank_of(run: ProfileRun, rank: int) -> ProfileRun:
    """``run`` as rank ``rank`` of a two-rank job whose text fields are markup too."""
    ranked = copy.deepcopy(run)
    ranked.id = f"{run.id[:8]}rk{rank}"
    ranked.distributed = DistributedRank(
        rank=rank,
        world_size=2,
        backend=payload(9001),
        job_id=payload(9002),
        host=payload(9003 + rank),
        torchrun_id=payload(9005),
        calls_by_stage={payload(9006): 3},
    )
    return ranked


def test_each_leaf_that_is_not_text_is_refused_by_name_and_each_text_one_is_kept_as_given():
    for name, make in RICH_RUNS.items():
        original = json.loads(make().to_json())
        refused = kept = 0
        for path, value in list(leaves(original)):
            if not path or path[0] in ("id", "schema_version"):
                continue
            data = copy.deepcopy(original)
            set_at(data, path, payload(1))
            try:
                run = ProfileRun.from_dict(data)
            except FormatError as exc:
                if "names no variant" in str(exc):  # the speedup's variant renamed, or the speedup naming another
                    assert exc.where == "speedup.variant" and path_text(path) in (
                        "speedup.variant",
                        f"variants[{path[1]}].name",
                    )
                    continue
                assert exc.where == path_text(path), (name, exc.where, path)
                assert str(exc).startswith(f"{path_text(path)}: expected "), str(exc)
                refused += 1
                continue
            # Accepted: a text field, which holds the markup exactly as given (and shows it as text).
            assert isinstance(value, str) or value is None, (name, path_text(path), value)
            assert path_text(path) not in LITERAL_FIELDS
            leaf = run.to_dict()
            for segment in path:
                leaf = leaf[segment]
            assert leaf == payload(1)
            kept += 1
        numbers = sum(1 for _, v in leaves(original) if isinstance(v, (int, float)))
        assert refused >= numbers and kept > 10, (name, refused, kept)
    run = json.loads(cuda_run().to_json())
    for field in LITERAL_FIELDS:
        data = copy.deepcopy(run)
        path = tuple(int(p) if p.isdigit() else p for p in field.replace("[", ".").replace("]", "").split("."))
        set_at(data, path, "<b>x</b>")
        with pytest.raises(FormatError, match=r"expected one of"):
            ProfileRun.from_dict(data)


def test_the_fields_the_probe_named_are_refused_with_their_path():
    # issue 21: each of these, imported, ran script in the HTML outputs
    hostile = "<img src=x onerror=alert(1)>"
    cases = {
        "cell_runs": lambda d: d.__setitem__("cell_runs", hostile),
        "cache.state": lambda d: d["cache"].__setitem__("state", hostile),
        "cache.fx_graph_hits": lambda d: d["cache"].__setitem__("fx_graph_hits", hostile),
        "cache.aot_autograd_misses": lambda d: d["cache"].__setitem__("aot_autograd_misses", hostile),
        "errors[0].line": lambda d: d["errors"][0].__setitem__("line", hostile),
        "graphs[0].guards[0].line": lambda d: d["graphs"][0]["guards"][0].__setitem__("line", hostile),
        "graphs[0].lines[0]": lambda d: d["graphs"][0]["lines"].__setitem__(0, hostile),
        "variants[2].autotune[0].choices": lambda d: d["variants"][2]["autotune"][0].__setitem__("choices", hostile),
    }
    base = json.loads(cuda_run().to_json())
    base["errors"] = [{"stage": "timing", "message": "m", "line": 3}]
    assert ProfileRun.from_dict(base).errors[0].line == 3
    for where, mutate in cases.items():
        data = copy.deepcopy(base)
        mutate(data)
        with pytest.raises(FormatError) as info:
            ProfileRun.from_dict(data)
        assert info.value.where == where and "'<img src=x onerror=alert(1)>'" in str(info.value)


def test_a_run_built_in_python_with_markup_in_its_numbers_still_shows_it_as_text():
    # The loader keeps imported files typed; the views escape those fields as well, for a run built in Python.
    hostile = payload(7)
    run = cuda_run()
    run.cell_runs = hostile
    run.cache.state = hostile
    run.graphs[0].lines = [hostile]
    run.graphs[0].guards[0].line = hostile
    run.variants[2].autotune[0].choices = hostile
    run.errors = [failed_run().errors[0]]
    run.errors[0].line = hostile
    for html in (render_html(run), render_report_html(run), mime_bundle(run)["text/html"]):
        parsed = ParsedHTML(html)
        assert parsed.named("img") == [] and parsed.event_handler_attributes() == []
        assert len(parsed.named("script")) in (0, 2)  # the report's own two, none in the card's HTML
        assert parsed.text.count(marker(7)) >= 3


def test_import_refuses_a_file_with_markup_in_a_number_in_one_line_and_stores_nothing(tmp_path, capsys):
    data = json.loads(cuda_run().to_json())
    data["graphs"][0]["guards"][1]["line"] = "<img src=x onerror=alert(1)>"
    bad = tmp_path / "rank1.json"
    bad.write_text(json.dumps(data))
    db = tmp_path / "runs.sqlite"
    assert main(["--db", str(db), "import", str(bad)]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "rank1.json is not a run's JSON" in err and "graphs[0].guards[1].line: expected an integer" in err
    assert RunStore(db).list() == []


@pytest.mark.browser
def test_markup_in_every_field_runs_nowhere_in_chromium(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    files, shown = [], {}
    runs = []
    for index, (name, make) in enumerate(RICH_RUNS.items()):
        data, run, placed = markup_everywhere(make(), start=index * 1000)
        assert len(placed) > 20, name
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        files.append(path)
        runs.append(run)
        shown[name] = placed
    job = [rank_of(runs[1], 0), rank_of(runs[1], 1)]
    for rank in job:
        path = tmp_path / f"{rank.id}.json"
        path.write_text(rank.to_json())
        files.append(path)

    # Brought in as a user would, then written out by the CLI.
    assert main(["--db", str(db), "import", *map(str, files)]) == 0, capsys.readouterr().err
    pages = []
    for run in runs:
        out = tmp_path / f"export-{run.id}.html"
        assert main(["--db", str(db), "export", run.id, "--html", str(out)]) == 0, capsys.readouterr().err
        pages.append(out)
    job_page = tmp_path / "job.html"
    assert main(["--db", str(db), "job", job[0].id, "--html", str(job_page)]) == 0, capsys.readouterr().err
    notebook_page = tmp_path / "notebook.html"
    stored = [RunStore(db).get(run.id) for run in runs]
    notebook_page.write_text(_notebook_report_html(pathlib.Path(payload(9100)), list(enumerate(stored[:2], 1))))
    # The cell's static HTML of every run (as the MIME bundle carries it, and as render_html gives it), one page.
    fragments = [html for run in stored for html in (mime_bundle(run)["text/html"], render_html(run))]
    static = [tmp_path / "static.html"]
    static[0].write_text(f"<!doctype html><html><body>{''.join(fragments)}</body></html>", encoding="utf-8")
    control = tmp_path / "control.html"
    control.write_text(f"<!doctype html><html><body>{payload(4242)}</body></html>", encoding="utf-8")

    seen = open_in_chromium([*pages, job_page, notebook_page, *static, control], tmp_path)
    assert seen[str(control)]["xss"] == 4242  # the check sees a payload that does run
    for page in [*pages, job_page, notebook_page, *static]:
        record = seen[str(page)]
        assert record["xss"] is None and not any(record["frames_xss"]), (page.name, record["xss"])
        assert record["dialogs"] == [] and record["imgs"] == 0, page.name
    for page in pages:
        assert seen[str(page)]["scripts"] == 2  # plotly.js and the report's own
    fits = seen[str(notebook_page)]["frames_fit"]
    assert len(fits) == 2 and all(frame >= page_height > 0 for frame, page_height in fits), fits  # no inner scroll
    for page in [job_page, *static]:
        assert seen[str(page)]["scripts"] == 0
    # The markup reached each page, as text: the label, the cell, reasons, kernel and graph names.
    for page, (name, placed) in zip(pages, shown.items()):
        text = seen[str(page)]["text"]
        distinct = set(placed.values())
        on_page = {n for n in distinct if marker(n) in text}
        assert len(on_page) >= len(distinct) // 2, (name, len(on_page), len(distinct))
        assert marker(placed[("label",)]) in text and marker(placed[("cell_source",)]) in text
    job_text = seen[str(job_page)]["text"]
    assert all(marker(n) in job_text for n in (9002, 9003, 9004)), "the job id and both hosts, as text"


_BASES = {name: json.loads(make().to_json()) for name, make in RICH_RUNS.items()}
odd_values = st.one_of(
    st.integers(min_value=-2, max_value=2),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(["eager", "inductor/default", "dynamo", "cpu", "ok", "failed", "0"]),
    st.booleans(),
    st.none(),
    st.just([]),
    st.just({}),
)


def _like(value) -> st.SearchStrategy:
    """Odd values of the same JSON type as ``value``."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.one_of(st.integers(min_value=-2, max_value=2), st.integers(min_value=-(10**9), max_value=10**9))
    if isinstance(value, float):
        return st.one_of(st.sampled_from([0.0, -1.0, 1e-9]), st.floats(min_value=-1e6, max_value=1e6))
    if isinstance(value, str):
        return st.one_of(st.text(max_size=4), st.sampled_from(["eager", "inductor/default", "dynamo", "cpu", "ok"]))
    return odd_values


@given(data=st.data())  # its size: the Hypothesis profile's (conftest)
def test_any_run_file_is_refused_naming_a_field_or_shown_by_every_view(data):
    # The loader's checks are what keeps a view from raising (a 500, a CLI traceback): values of the right types
    # but odd (zero, negative, huge, empty, names that match nothing) must still render in every view.
    name = data.draw(st.sampled_from(sorted(_BASES)))
    run_data = copy.deepcopy(_BASES[name])
    paths = [path for path, _ in leaves(run_data) if path and path[0] not in ("id", "schema_version")]
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=8)):
        old = get_at(run_data, path)
        same_type = data.draw(st.integers(0, 9)) > 0  # mostly a value of the leaf's own type, to get past the loader
        set_at(run_data, path, data.draw(_like(old) if same_type else odd_values))
    try:
        run = ProfileRun.from_dict(run_data)
    except FormatError as exc:
        assert exc.path and str(exc).startswith(exc.where + ": "), str(exc)
        event("refused")
        return
    event("loaded")
    digest = run_digest(run)
    json.dumps(digest, allow_nan=False)  # what the REST API serves: no NaN or Infinity, which browsers refuse
    json.dumps(figures(run), allow_nan=False)
    render_text(run)
    render_html(run)
    compare(run, run)
    job_digest([run])
