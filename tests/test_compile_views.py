"""Every artifact of every compile in one place (issue 35): each compile by compile id and attempt, its metrics and
every artifact it logged, the provenance of a node across stages, the compile-site tree, the Perfetto export and the
job view's multi-rank checks, held to the recorded TORCH_TRACE logs themselves (read here by a parser of the test's
own: the glog records and their payloads), never to the importer's own output.

The logs: ``trace_fixtures/`` (torch 2.6, 2.10, 2.13), ``import_trace_fixtures/`` (``script`` with provenance,
``loop`` with restarts, ``failed``, the 2-rank ``job``, and ``collectives``: 2 gloo ranks compiling functional
collectives, rank 1 running its all_gather eagerly on a batch of other rows; ``record_collectives.py``).  Nothing
here compiles.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from compile_profile.cli import main
from compile_profile.digest.compile_detail import compile_detail
from compile_profile.digest.compiles import compile_index, compile_key, resolve_compile
from compile_profile.digest.job import job_digest
from compile_profile.digest.provenance import groups
from compile_profile.engine.trace.log_file import TraceLimits
from compile_profile.engine.trace.log_import import import_trace
from compile_profile.render.perfetto import perfetto_trace
from compile_profile.render.report import render_report_html
from compile_profile.serialize import to_dict
from compile_profile.store import RunStore, put_imported

HERE = Path(__file__).parent
RELEASES = HERE / "trace_fixtures"
FIXTURES = HERE / "import_trace_fixtures"
LOGS = [
    *(RELEASES / r / "trace.log.gz" for r in ("torch-2.6.0", "torch-2.10.0", "torch-2.13.0")),
    *(FIXTURES / f / "trace.log.gz" for f in ("script", "loop", "failed")),
]
_GLOG = re.compile(r"^[VIWEF]\d{4} [\d:.]+ +\d+ [^\]]*\] (.*)$")
CONTEXT = {"frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id", "stack"}


def records(log: Path) -> list[tuple[str, dict, str]]:
    """The log's records as (kind, metadata, payload): the test's own reading of the glog lines."""
    out: list[tuple[str, dict, list[str]]] = []
    with gzip.open(log, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("\t") and out:
                out[-1][2].append(line[1:])
                continue
            found = _GLOG.match(line)
            if not found:
                continue
            meta = json.loads(found.group(1))
            keys = [k for k in meta if k not in CONTEXT]
            if not keys:
                continue
            kind = meta["artifact"]["name"] if keys[0] == "artifact" else keys[0]
            out.append((kind, meta, []))
    return [(kind, meta, "\n".join(lines)) for kind, meta, lines in out]


def compile_of(meta: dict) -> tuple[str, int]:
    cid = f"{meta['frame_id']}/{meta['frame_compile_id']}" if meta.get("frame_id") is not None else ""
    return cid, meta.get("attempt") or 0


@pytest.fixture(scope="module")
def imported() -> dict[Path, object]:
    return {log: import_trace(log, source_roots=[FIXTURES])[0] for log in LOGS}


# -- each compile's output code, graphs and metrics ---------------------------------------------------------------


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.parent.name)
def test_each_compile_holds_every_payload_its_log_logged_for_it_in_order(log, imported):
    run = imported[log]
    logged: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
    for kind, meta, payload in records(log):
        if kind not in ("chromium_event", "str") and (payload or compile_of(meta)[0]):
            found = logged[compile_of(meta)]  # a compile that logged only metadata (its metrics) is one too
            if payload:
                found.append((kind, payload))
    kept = {(c.compile_id, c.attempt): c for c in run.compiles}
    assert set(kept) == set(logged)
    for key, payloads in logged.items():
        record = kept[key]
        assert [a.name for a in record.artifacts] == [kind for kind, _ in payloads]
        for artifact, (_, payload) in zip(record.artifacts, payloads):
            text = run.artifact_texts[artifact.sha256]
            # JSON artifacts are stored indented, one value a line: the same value
            assert json.loads(text) == json.loads(payload) if artifact.language == "json" else text == payload


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.parent.name)
def test_each_compiles_detail_has_its_whole_output_code_its_graphs_and_its_metrics(log, imported):
    run = imported[log]
    metrics = {compile_of(m): m["compilation_metrics"] for k, m, _ in records(log) if k == "compilation_metrics"}
    modules = [c for c in run.compiles if any(a.name == "inductor_output_code" for a in c.artifacts)]
    assert modules, "every fixture compiled with Inductor"
    for record in run.compiles:
        detail = compile_detail(run, compile_key(record))
        assert detail is not None
        for a in detail.artifacts:
            if a.name == "inductor_output_code":  # the whole module, with call(), not each kernel's source
                code = run.artifact_texts[a.sha256]
                assert "def call(" in code and "async_compile" in code and a.language == "Python"
        dynamo = [g for g in run.graphs if g.compile_id == record.compile_id and g.kind == "dynamo"]
        if dynamo and record.status != "dropped":  # the graph the run shows is the artifact of an attempt of it
            attempts = [r for r in run.compiles if r.compile_id == record.compile_id]
            texts = {
                run.artifact_texts[a.sha256] for r in attempts for a in r.artifacts if a.name == "dynamo_output_graph"
            }
            assert dynamo[0].code in texts
        m = metrics.get((record.compile_id, record.attempt))
        rows = {row.label: row.value for row in detail.metrics}
        if m is not None and m.get("entire_frame_compile_time_s") is not None:
            seconds = m["entire_frame_compile_time_s"]
            assert rows["entire frame"].endswith(" s") or rows["entire frame"].endswith(" ms")
            value = float(rows["entire frame"].split()[0]) * (1e-3 if rows["entire frame"].endswith("ms") else 1)
            assert value == pytest.approx(seconds, rel=0.01)
            if m.get("guard_count") is not None:
                assert rows["guards"].startswith(f"{m['guard_count']} ")
            if m.get("graph_op_count") is not None:
                assert rows["graph"].startswith(f"{m['graph_op_count']} ops, {m['graph_node_count']} nodes")


def test_a_compiles_cache_lookup_has_the_key_and_components_torch_logged(imported):
    run = imported[FIXTURES / "script" / "trace.log.gz"]
    logged = [json.loads(p) for k, _, p in records(FIXTURES / "script" / "trace.log.gz") if k == "fx_graph_cache_miss"]
    lookups = [x for c in run.compiles for x in c.cache_lookups if x.cache == "fx_graph" and x.state == "miss"]
    assert [x.key for x in lookups] == [p["key"] for p in logged]
    assert [x.components for x in lookups] == [len(p["components"]) for p in logged]
    detail = compile_detail(run, "trace:0/0:0")
    assert detail is not None
    [fx] = [c for c in detail.cache_lookups if c.text.startswith("FX graph")]
    assert (
        fx.text == "FX graph cache miss (full_miss)"
        and fx.components_text == f"{len(logged[0]['components'])} key components"
    )
    assert json.loads(run.artifact_texts[fx.sha256])["components"] == logged[0]["components"]


# -- a restart shown as an attempt ---------------------------------------------------------------------------------


def test_a_compile_dynamo_restarted_is_shown_as_its_attempts(imported):
    run = imported[FIXTURES / "loop" / "trace.log.gz"]
    attempts = sorted(c.attempt for c in run.compiles if c.compile_id == "2/1")
    assert attempts == [0, 1, 2]  # the log's envelopes: attempts 0, 1 and 2 of 2/1
    detail = compile_detail(run, "trace:2/1:2")
    assert detail is not None and detail.link.label == "[2/1_2]"  # tlparse's name
    assert [a.text.split(":")[0] for a in detail.attempts] == ["attempt 0", "attempt 1", "attempt 2"]
    assert [a.current for a in detail.attempts] == [False, False, True]
    assert [a.link.status for a in detail.attempts] == ["dropped", "dropped", "empty"]
    assert (
        detail.restarts_text
        == "Dynamo restarted its analysis 2 times: TensorifyScalarRestartAnalysis; Failed to trace builtin operator"
    )
    dropped = compile_detail(run, "trace:2/1:1")
    assert (
        dropped is not None and [a.name for a in dropped.artifacts][0] == "dynamo_output_graph"
    )  # the graph it dropped
    assert resolve_compile(run, "2/1") is resolve_compile(run, "[2/1_2]") is resolve_compile(run, "trace:2/1:2")
    index = compile_index(run)
    assert index.text.startswith("17 compiles of 11 compile ids: ")
    assert "6 attempts dropped" in index.text and "3 compiled after a restart" in index.text


# -- provenance of one node, end to end ---------------------------------------------------------------------------


def test_one_nodes_provenance_from_its_script_line_to_its_kernel_line_and_back(imported):
    run = imported[FIXTURES / "script" / "trace.log.gz"]
    record = resolve_compile(run, "0/0")
    assert record is not None and len(record.provenance) == 1
    prov = record.provenance[0]
    assert prov.mapped and prov.graph == "forward"
    post = run.artifact_texts[prov.post_grad].splitlines()
    code = run.artifact_texts[prov.output_code].splitlines()
    linear = next(
        line for line in range(1, 200) if "y = torch.relu(self.lin(x))" in run.cell_source.splitlines()[line - 1]
    )
    # the log's own node mappings: pre-grad `linear` became post-grad `addmm`, which went into extern_kernels.addmm:1
    mappings = next(
        json.loads(p)
        for k, m, p in records(FIXTURES / "script" / "trace.log.gz")
        if k == "inductor_provenance_tracking_node_mappings" and compile_of(m) == ("0/0", 0)
    )
    assert "addmm" in mappings["preToPost"]["linear"] and mappings["postToCppCode"]["addmm"] == [
        "extern_kernels.addmm:1"
    ]
    [group] = [g for g in groups(run, prov) if g.line == linear]
    addmm_node = next(i for i, text in enumerate(post, 1) if text.strip().startswith("addmm:"))
    addmm_call = next(i for i, text in enumerate(code, 1) if text.strip().startswith("extern_kernels.addmm("))
    assert addmm_node in group.post_grad and addmm_call in group.output_code
    assert code[addmm_call - 2].strip() == "# [Provenance debug handles] extern_kernels.addmm:1"
    # and back: the groups that hold the call's line are that script line's alone (the addmm computes no other line)
    assert [g.line for g in groups(run, prov) if addmm_call in g.output_code] == [linear]
    assert group.title == f"record.py line {linear}: y = torch.relu(self.lin(x))"
    assert "post-grad permute, addmm, relu, le" in group.text and "extern_kernels.addmm:1" in group.text


def test_without_node_mappings_the_output_codes_source_nodes_comments_link_a_kernel_to_its_lines(imported):
    run = imported[RELEASES / "torch-2.13.0" / "trace.log.gz"]
    views = [p for c in run.compiles for p in c.provenance]
    assert views and not any(p.mapped for p in views)
    linked = [g for p in views for g in groups(run, p) if g.output_code and g.line is not None]
    assert linked, "a kernel call whose Source Nodes name pre-grad nodes of a script line"
    for p in views:
        code = run.artifact_texts[p.output_code].splitlines()
        for g in groups(run, p):
            for line in g.output_code:
                assert 1 <= line <= len(code)


# -- where compiles started ---------------------------------------------------------------------------------------


def test_the_compile_site_tree_holds_each_kept_compile_at_the_frame_its_dynamo_start_names(imported):
    run = imported[FIXTURES / "loop" / "trace.log.gz"]
    starts = {
        compile_of(m)[0]: m["dynamo_start"]["stack"][-1]["line"]
        for k, m, _ in records(FIXTURES / "loop" / "trace.log.gz")
        if k == "dynamo_start"
    }
    rows = compile_index(run).sites
    placed = {link.label.strip("[]").split("_")[0]: row for row in rows for link in row.compiles}
    assert set(placed) == set(starts)
    for compile_id, line in starts.items():
        assert placed[compile_id].text.startswith(f"record_loop.py line {line} in ")
    statuses = {link.label: link.status for row in rows for link in row.compiles}
    assert statuses["[2/1_2]"] == "empty" and statuses["[1/0_1]"] == "restarted" and statuses["[0/0]"] == "ok"
    assert compile_index(imported[FIXTURES / "failed" / "trace.log.gz"]).rows[-1].link.status == "failed"


# -- Perfetto ------------------------------------------------------------------------------------------------------


def _spans_of_log(log: Path) -> dict[str, list[tuple[str, float, float]]]:
    """Each compile id's spans as the log's chromium events begin and end them (name, begin µs, end µs)."""
    open_: dict[tuple[str, str], list[float]] = defaultdict(list)
    out: dict[str, list[tuple[str, float, float]]] = defaultdict(list)
    for kind, meta, payload in records(log):
        if kind != "chromium_event" or not payload:
            continue
        event = json.loads(payload)
        cid = compile_of(meta)[0]
        if not cid or event.get("ph") not in ("B", "E"):
            continue
        if event["ph"] == "B":
            open_[(cid, event["name"])].append(event["ts"])
        elif open_[(cid, event["name"])]:
            out[cid].append((event["name"], open_[(cid, event["name"])].pop(), event["ts"]))
    return out


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.parent.name)
def test_the_perfetto_export_is_chrome_trace_json_with_the_spans_nested_as_dynamo_logged_them(log, imported):
    run = imported[log]
    trace = json.loads(json.dumps(perfetto_trace(run)))  # what the file holds
    events = trace["traceEvents"]
    assert isinstance(events, list) and trace["displayTimeUnit"] == "ms"
    for e in events:  # the Trace Event Format's fields, by phase
        assert e["ph"] in ("X", "M") and isinstance(e["pid"], int) and isinstance(e["name"], str)
        if e["ph"] == "X":
            assert isinstance(e["tid"], int) and e["ts"] >= 0 and e["dur"] >= 0
            assert isinstance(e["ts"], (int, float)) and isinstance(e["args"], dict)
        else:
            assert e["name"] in ("process_name", "thread_name") and isinstance(e["args"]["name"], str)
    spans = [e for e in events if e["ph"] == "X"]
    logged = _spans_of_log(log)
    assert sorted((e["args"]["compile_id"], e["name"]) for e in spans) == sorted(
        (cid, name) for cid, found in logged.items() for name, _, _ in found
    )
    # every thread's complete events nest: each one inside the one before it or after it ends
    by_thread: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for e in spans:
        by_thread[(e["pid"], e["tid"])].append(e)
    for thread in by_thread.values():
        thread.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack: list[dict] = []
        for e in thread:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
                stack.pop()
            assert not stack or e["ts"] + e["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + 1e-3
            # the depth the export nests it at is the one Dynamo's begins and ends gave it
            assert len([s for s in stack if s["args"]["compile_id"] == e["args"]["compile_id"]]) == e["args"]["depth"]
            stack.append(e)
        # and each span's time is the log's, from the first compile's start
    origin = min(b for found in logged.values() for _, b, _ in found)
    for e in spans:  # at the log's time, from the first compile's start, for as long (within a microsecond's rounding)
        begun = [(b - origin, end - b) for name, b, end in logged[e["args"]["compile_id"]] if name == e["name"]]
        start, duration = min(begun, key=lambda bd: abs(bd[0] - e["ts"]))
        assert e["ts"] == pytest.approx(start, abs=1) and e["dur"] <= duration + 1


# -- the multi-rank checks ----------------------------------------------------------------------------------------


def test_the_job_view_names_the_rank_whose_collectives_tensor_metadata_and_compiles_diverge():
    ranks = import_trace(FIXTURES / "collectives", source_roots=[FIXTURES])
    expected = {r: json.loads((FIXTURES / "collectives" / f"expected-rank{r}.json").read_text()) for r in (0, 1)}
    assert [e["graph_breaks"] for e in expected.values()] == [0, 1]  # what Dynamo counted: rank 1's break
    schedules = {
        r.distributed.rank: [
            json.loads(p)
            for log in [Path(r.imported_trace.path)]
            for k, _, p in records(log)
            if k == "inductor_collective_schedule"
        ]
        for r in ranks
    }
    assert [len(s[0]) for s in schedules.values()] == [4, 2]  # each op and its wait, as Inductor scheduled them
    job = job_digest(ranks)
    said = {d["what"]: d["text"] for d in job["divergences"] if d["rank"] == 1}
    assert not [d for d in job["divergences"] if d["rank"] == 0]
    assert said["collectives"] == (
        "its compiled graphs run all_reduce (from 0/0) where the others' run all_reduce, all_gather_into_tensor"
    )
    assert said["tensor_meta"] == (
        f"tensor metadata of 0/0 differs: op 1 is op0 -> float32[{expected[1]['rows']}, 8] where the others have "
        f"op0 -> float32[{expected[0]['rows']}, 8]"
    )
    assert said["compile_ids"].startswith(
        "2 compile ids where the others have 1: extra 1/0 (step, resumed at record_collectives.py line 72)"
    )
    assert (
        said["execution_order"]
        == "ran its graphs in another order from graph 2: 1/0, 0/0, 1/0 where the others ran 0/0"
    )
    assert said["cache"].startswith("cache lookups differ from the others': AOTAutograd miss for 0/0 of another key")
    assert job["headline"].endswith("rank 1 diverges: 2 Dynamo graphs where the others have 1 (and 6 more)")


def test_the_gloo_jobs_rank_that_printed_diverges_in_compile_ids_and_cache_lookups_not_rank_0():
    ranks = import_trace(FIXTURES / "job", source_roots=[FIXTURES])
    job = job_digest(ranks)
    said = {d["what"]: d["text"] for d in job["divergences"]}
    assert {d["rank"] for d in job["divergences"]} == {1}
    assert said["compile_ids"].startswith("14 compile ids where the others have 11: extra 6/1 (")
    assert said["cache"] == (
        "cache lookups differ from the others': extra AOTAutograd miss for 6/1 (step, resumed at record.py line 134)"
    )
    assert "collectives" not in said and "tensor_meta" not in said  # logged by neither rank: nothing said


def test_ranks_sharing_a_cache_that_hit_where_another_missed_under_one_key_do_not_diverge_but_another_key_does():
    """Ranks that share one cache directory race to it: the CI's 2-rank DDP job read "FX graph miss for 5/0 where the
    others hit" on one run and the reverse on the next.  One key is one graph, whatever the outcome."""
    ranks = import_trace(FIXTURES / "job", source_roots=[FIXTURES])
    by_rank = {r.distributed.rank: r for r in ranks}
    shared = [(c, x) for c in by_rank[0].compiles for x in c.cache_lookups if x.key and x.cache == "fx_graph"]
    assert shared, "the job fixture logs FX graph keys"
    compile_record, lookup = shared[0]
    theirs = next(x for c in by_rank[1].compiles for x in c.cache_lookups if x.key == lookup.key)
    lookup.state = "hit" if theirs.state != "hit" else "miss"  # rank 0 now lost the race where rank 1 won it
    said = [d for d in job_digest(ranks)["divergences"] if d["what"] == "cache"]
    assert [d["rank"] for d in said] == [1]  # rank 1's extra resume compile alone, as before
    assert "for " + compile_record.compile_id not in said[0]["text"]

    lookup.key = "f" + "0" * 51  # another key under the same lookup: another graph, inputs or config
    said = {d["rank"]: d["text"] for d in job_digest(ranks)["divergences"] if d["what"] == "cache"}
    assert list(said) == [1]  # held to rank 0's, the fewer lookups: its key is now the job's
    assert f"FX graph {theirs.state} for {compile_record.compile_id} of another key than the others'" in said[1]


# -- stored once, loaded when opened -------------------------------------------------------------------------------


def test_artifacts_are_stored_once_compressed_and_shared_by_the_ranks_that_logged_them(tmp_path):
    import sqlite3

    with RunStore(tmp_path / "runs.sqlite") as store:
        ranks = put_imported(store, import_trace(FIXTURES / "job"))
        refs = [a.sha256 for r in ranks for c in r.compiles for a in c.artifacts]
        with sqlite3.connect(tmp_path / "runs.sqlite") as conn:
            rows, raw, packed = conn.execute("SELECT count(*), sum(bytes), sum(length(body)) FROM artifacts").fetchone()
        assert rows == len(set(refs)) < len(refs)  # a graph both ranks logged is one row
        assert packed < raw / 3
        stored = store.get(ranks[1].id)
        assert stored.artifact_texts == {} and stored.compiles == ranks[1].compiles  # references, not bodies
        sha = ranks[1].compiles[-1].artifacts[0].sha256
        assert store.artifact(ranks[1].id, sha) == ranks[1].artifact_texts[sha]
        assert store.artifact("someotherrun", sha) is None
        store.delete(ranks[0].id)
        assert store.artifact(ranks[1].id, sha) == ranks[1].artifact_texts[sha]  # still the other rank's
        store.delete(ranks[1].id)
        with sqlite3.connect(tmp_path / "runs.sqlite") as conn:
            assert conn.execute("SELECT count(*) FROM artifacts").fetchone() == (0,)


def test_an_artifact_past_the_cap_is_kept_to_its_last_whole_line_and_said_cut():
    (run,) = import_trace(FIXTURES / "script", limits=TraceLimits(artifact_bytes=1000))
    cut = [a for c in run.compiles for a in c.artifacts if a.cut]
    assert cut and all(a.bytes <= 1000 and run.artifact_texts[a.sha256].endswith("\n") for a in cut)
    detail = compile_detail(run, compile_key(next(c for c in run.compiles if any(a.cut for a in c.artifacts))))
    assert detail is not None and any("cut at the cap" in a.size_text for a in detail.artifacts)


# -- the views: text, report, CLI ---------------------------------------------------------------------------------


def test_the_cli_shows_the_compiles_one_compile_and_its_output_code_and_exports_for_perfetto(tmp_path, capsys):
    db = str(tmp_path / "runs.sqlite")
    assert main(["--db", db, "import-trace", str(FIXTURES / "loop"), "--source-root", str(FIXTURES)]) == 0
    run_id = RunStore(db).list()[0]["id"]
    capsys.readouterr()
    assert main(["--db", db, "show", run_id, "--compile"]) == 0
    index = capsys.readouterr().out
    assert "Where compiles started (the compile-site tree):" in index and "[2/1_2]0" in index
    assert main(["--db", db, "show", run_id, "--compile", "2/1_2"]) == 0
    detail = capsys.readouterr().out
    assert detail.startswith("[2/1_2] train_step, resumed at record_loop.py line 55: an empty graph")
    assert "  > attempt 2: an empty graph (no op to compile); 12 artifacts" in detail
    assert main(["--db", db, "show", run_id, "--compile", "0/0", "--artifact", "inductor_output_code"]) == 0
    code = capsys.readouterr().out
    assert code.startswith("# [0/0] output code (the whole module, with call())") and "def call(self, args):" in code
    assert main(["--db", db, "show", run_id, "--compile", "9/9"]) == 1
    assert "has no compile '9/9'; its compiles: 0/0, 0/1" in capsys.readouterr().err
    out = tmp_path / "trace.json"
    assert main(["--db", db, "export", run_id, "--perfetto", str(out)]) == 0
    assert json.loads(out.read_text())["traceEvents"]


def test_the_report_embeds_each_artifact_once_escaped_within_its_budget(imported):
    run = imported[FIXTURES / "script" / "trace.log.gz"]
    page = render_report_html(run)
    assert '<section id="compiles">' in page and 'href="#compiles">Compiles (6)' in page
    module = next(
        run.artifact_texts[a.sha256] for c in run.compiles for a in c.artifacts if a.name == "inductor_output_code"
    )
    from html import escape

    assert escape(module, quote=False) in page
    # before_pre_grad_graph and after_pre_grad_graph logged the same text: it is in the page once
    same = [a for c in run.compiles[1:2] for a in c.artifacts if a.name.endswith("pre_grad_graph")]
    assert len({a.sha256 for a in same}) == 1 and "the same text as" in page


def test_the_compile_views_json_fits_the_digests_schema(imported):
    import jsonschema
    from compile_profile.digest.contract import json_schema

    schema = json_schema()
    for log in LOGS:
        run = imported[log]
        index = to_dict(compile_index(run))
        jsonschema.validate(index, {**schema, "$ref": "#/$defs/CompileIndex"})
        for row in index["rows"]:
            detail = to_dict(compile_detail(run, row["link"]["key"]))
            jsonschema.validate(detail, {**schema, "$ref": "#/$defs/CompileDetail"})


def test_reading_a_log_and_listing_and_showing_runs_import_no_torch(tmp_path):
    code = (
        "import sys\n"
        "from compile_profile.cli import main\n"
        f"assert main(['--db', {str(tmp_path / 'r.sqlite')!r}, 'import-trace', {str(FIXTURES / 'script')!r}]) == 0\n"
        f"assert main(['--db', {str(tmp_path / 'r.sqlite')!r}, 'ls']) == 0\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_a_jobs_ranks_export_to_one_perfetto_trace_on_one_clock(tmp_path, capsys):
    db = str(tmp_path / "runs.sqlite")
    assert main(["--db", db, "import-trace", str(FIXTURES / "job")]) == 0
    run_id = RunStore(db).list()[0]["id"]
    out = tmp_path / "job.json"
    assert main(["--db", db, "job", run_id, "--perfetto", str(out)]) == 0
    events = json.loads(out.read_text())["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert sorted(names) == [1, 3] and names[1].endswith("(rank 0)") and names[3].endswith("(rank 1)")
    starts = {pid: min(e["ts"] for e in events if e["ph"] == "X" and e["pid"] == pid) for pid in names}
    assert min(starts.values()) == 0  # one clock: the earliest rank's first compile
    logged = {
        r: min(json.loads(p)["ts"] for k, _, p in records(log) if k == "chromium_event" and p)
        for r, log in enumerate(sorted((FIXTURES / "job").glob("*.gz")))
    }
    assert starts[3] - starts[1] == pytest.approx(logged[1] - logged[0], abs=2000)  # as the ranks' logs have it


def test_a_traces_text_is_text_in_the_report_and_the_terminal(tmp_path, capsys):
    import hashlib

    (run,) = import_trace(FIXTURES / "script")
    record = resolve_compile(run, "0/0")
    assert record is not None
    text = "<script>alert(1)</script>\x1b]0;pwned\x07\x1b[31m red\u202e"
    sha = hashlib.sha256(text.encode()).hexdigest()
    run.artifact_texts[sha] = text
    record.artifacts[0].sha256 = sha
    record.stack[-1].name = "<img src=x onerror=alert(1)>"
    page = render_report_html(run)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page
    db = str(tmp_path / "runs.sqlite")
    RunStore(db).put(run)
    capsys.readouterr()
    assert main(["--db", db, "show", run.id, "--compile", "0/0", "--artifact", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\\x1b]0;pwned" in out
    assert main(["--db", db, "show", run.id, "--compile", "0/0"]) == 0
    assert "<img src=x onerror=alert(1)>" in capsys.readouterr().out  # text, for a terminal


def test_a_compiled_frames_function_is_named_as_the_user_knows_it_the_cell_and_dynamos_resume_functions():
    from compile_profile.digest.compiles import function_name

    assert function_name("__compile_profile_cell__") == "the cell"
    assert function_name("torch_dynamo_resume_in___compile_profile_cell___at_3") == "the cell, resumed"
    assert function_name("torch_dynamo_resume_in_forward_at_12") == "forward, resumed"
    assert function_name("<module>") == "<module>" and function_name("forward") == "forward"
