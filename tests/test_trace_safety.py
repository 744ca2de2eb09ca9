"""Safe with anyone's TORCH_TRACE (issue 32, items 1-3): an import reads only the files it was asked to, in bounded
memory and time, and no record of any type is fatal; through the three doors where each applies (the CLI's
``compile-profile import-trace``, ``compile_profile.import_trace``, the server's ``POST runs/import-trace``).

Every hostile file is built here, in the test's own directory: a log naming a file outside the source roots, a FIFO,
a symlink out, a gzip of newlines, records of the wrong types, a payload cut short.  None is shipped as a fixture.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from compile_profile.digest.job import job_digest
from compile_profile.engine.trace import log_file as trace_file
from compile_profile.engine.trace import log_import as trace_import
from compile_profile.engine.trace.log_file import TraceLimits, read_trace_file
from compile_profile.engine.trace.log_import import NoTrace, import_trace
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text, terminal_safe
from compile_profile.store import RunStore
from hypothesis import given
from hypothesis import strategies as st
from server_requests import API, api_answer

pytest_plugins = ["pytest_jupyter.jupyter_server"]

HERE = Path(__file__).parent
REPO = HERE.parent
RELEASE = HERE / "trace_fixtures" / "torch-2.13.0" / "trace.log.gz"
JOB = HERE / "import_trace_fixtures" / "job"
HEAD = "V1202 12:21:23.116000 15730 torch/_dynamo/convert_frame.py:1]"
SECRET = "the text of a file nobody asked to import"


def record(metadata: dict, payload: str | None = None) -> str:
    """One record as torch writes it: the glog line, then its payload's lines each after a tab, with its MD5."""
    if payload is not None:
        metadata = {**metadata, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    lines = [f"{HEAD} {json.dumps(metadata)}"]
    if payload is not None:
        lines += [f"\t{line}" for line in payload.split("\n")]
    return "\n".join(lines)


def log_naming(script: str, *, extra: tuple[str, ...] = ()) -> str:
    """A log whose string table names ``script`` as the file of its compiled frame (the run's "script")."""
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    return (
        "\n".join(
            [
                record({"str": [script, 0]}),
                record({"dynamo_start": {"stack": [{"line": 2, "name": "step", "filename": 0}]}, **ids}),
                record({"compilation_metrics": {"co_filename": script, "entire_frame_compile_time_s": 0.5}, **ids}),
                *extra,
            ]
        )
        + "\n"
    )


@pytest.fixture
def place(tmp_path, monkeypatch):
    """``secret/`` beside the import's roots, ``traces/`` (the logs) and ``work/`` (the current directory)."""
    for name in ("secret", "traces", "work"):
        (tmp_path / name).mkdir()
    (tmp_path / "secret" / "creds.txt").write_text(f"{SECRET}\n")
    (tmp_path / "secret" / "creds.py").write_text(f"# {SECRET}\n")
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


def _ran_id(out: str) -> str:
    return out.split("imported run ")[1].split()[0]


def _nothing_of_the_secret_anywhere(cli, run_id: str) -> None:
    """The run, its JSON export, its HTML report, the run list and the text view hold nothing of the secret."""
    with RunStore(cli.db) as store:
        assert SECRET not in json.dumps(store.get_dict(run_id))
        run = store.get(run_id)
        assert SECRET not in render_report_html(run)
        assert run.cell_source == "" and run.imported_trace is not None and not run.imported_trace.script_found
        assert run.imported_trace.files_read == []
    for argv in (("ls",), ("show", run_id), ("show", run_id, "--json")):
        code, out, err = cli(*argv)
        assert code == 0 and SECRET not in out + err, argv


# -- 1. read only what was asked for ------------------------------------------------------------------------------


def _hostile_scripts(place: Path) -> dict[str, str]:
    """What a log may name as its script, none of which may be read: outside the roots, not Python, a symlink out,
    a FIFO, a device."""
    traces = place / "traces"
    (traces / "link.py").symlink_to(place / "secret" / "creds.py")
    (traces / "notes.txt").write_text(f"{SECRET}\n")
    (traces / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(traces / "fifo.py")
    return {
        "absolute, outside": str(place / "secret" / "creds.txt"),
        "a Python file outside": str(place / "secret" / "creds.py"),
        "relative, up and out": "../secret/creds.py",
        "relative, far up": "../../../../../../../../root/.bashrc",
        "a symlink out": str(traces / "link.py"),
        "not Python, inside": str(traces / "notes.txt"),
        "a device": "/dev/zero",
        "a symlink to a device": str(traces / "zero.py"),
        "a FIFO inside": str(traces / "fifo.py"),
    }


@pytest.mark.timeout(60)
def test_a_trace_naming_a_file_outside_the_source_roots_or_no_regular_python_file_reads_nothing_cli(place, cli):
    for case, script in _hostile_scripts(place).items():
        log = place / "traces" / f"{abs(hash(case))}.log"
        log.write_text(log_naming(script))
        code, out, err = cli("import-trace", str(log))  # a FIFO is never opened to wait on (the timeout says)
        assert code == 0, (case, err)
        assert "no timings" in out
        _nothing_of_the_secret_anywhere(cli, _ran_id(out))
        code, out, _ = cli("show", _ran_id(out))
        assert "not found here (no code beside them)" in out and "read here:" not in out, case


@pytest.mark.timeout(60)
def test_a_trace_naming_a_file_outside_the_source_roots_reads_nothing_through_the_python_api(place, tmp_path):
    import compile_profile

    db = tmp_path / "api.sqlite"
    for case, script in _hostile_scripts(place).items():
        log = place / "traces" / f"{abs(hash(case))}.log"
        log.write_text(log_naming(script))
        (run,) = compile_profile.import_trace(log, db=db, source_roots=[place / "work"])
        assert run.cell_source == "" and run.imported_trace is not None, case
        assert not run.imported_trace.script_found and run.imported_trace.files_read == [], case
        assert SECRET not in run.to_json() and SECRET not in render_text(run), case


def test_a_python_file_inside_the_roots_is_read_and_the_run_names_it(place, cli):
    (place / "work" / "repo" / "train").mkdir(parents=True)
    script = place / "work" / "repo" / "train" / "step.py"
    script.write_text("import torch\nx = step(1)\n")
    (place / "traces" / "t.log").write_text(log_naming("/cluster/home/me/repo/train/step.py"))
    code, out, err = cli("import-trace", str(place / "traces"))  # the current directory is a root by default
    assert code == 0, err
    run_id = _ran_id(out)
    with RunStore(cli.db) as store:
        run = store.get(run_id)
    assert run.cell_source == script.read_text()
    assert run.imported_trace is not None and run.imported_trace.files_read == [str(script)]
    assert f"read here: {script}" in cli("show", run_id)[1]
    assert f"read here: {script}" in render_report_html(run)
    # the same log again is that run, not a second one
    code, out, _ = cli("import-trace", str(place / "traces"))
    assert code == 0 and f"run {run_id} was already imported" in out
    # --source-root adds a root: imported first from where the script cannot be found, then with a root that holds
    # it, the log is the one run, read anew with the script
    assert cli("rm", run_id)[0] == 0
    os.chdir(place / "secret")
    code, out, _ = cli("import-trace", str(place / "traces"))
    first = _ran_id(out)
    with RunStore(cli.db) as store:
        assert store.get(first).imported_trace.files_read == []  # type: ignore[union-attr]
    code, out, _ = cli("import-trace", str(place / "traces"), "--source-root", str(place / "work" / "repo"))
    assert code == 0 and f"run {first} was imported before" in out and str(script) in out
    with RunStore(cli.db) as store:
        assert [r["id"] for r in store.list()] == [first]
        assert store.get(first).imported_trace.files_read == [str(script)]  # type: ignore[union-attr]


def test_a_source_file_over_its_cap_is_not_read(place):
    big = place / "traces" / "big.py"
    big.write_text("x = 1\n" * 100)
    (place / "traces" / "t.log").write_text(log_naming(str(big)))
    (run,) = import_trace(place / "traces" / "t.log", limits=TraceLimits(source_bytes=599))
    assert run.imported_trace is not None and not run.imported_trace.script_found and run.cell_source == ""
    (run,) = import_trace(place / "traces" / "t.log", limits=TraceLimits(source_bytes=600))
    assert run.cell_source == big.read_text()


def test_a_graph_breaks_file_is_read_only_under_the_roots(place):
    """A break's own line is read from its file where the trace's traceback does not give it: only inside roots."""
    (place / "secret" / "keys.py").write_text(f"x = 1\ny = '{SECRET}'\n")
    inside = place / "traces" / "lib.py"
    inside.write_text("x = 1\ny = print(x)\n")
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    breaks = [
        record({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, **ids}, payload)
        for payload in (
            f"Graph break in user code at {place / 'secret' / 'keys.py'}:2\nGraph Break Reason: outside",
            f"Graph break in user code at {inside}:2\nGraph Break Reason: inside",
        )
    ]
    (place / "traces" / "t.log").write_text(log_naming(str(inside), extra=tuple(breaks)))
    (run,) = import_trace(place / "traces" / "t.log")
    assert SECRET not in run.to_json()
    assert {b.reason: b.file_code for b in run.graph_breaks} == {"outside": "", "inside": "y = print(x)"}


@pytest.mark.timeout(60)
def test_a_fifo_or_a_device_named_as_the_log_is_refused_at_once(place, cli):
    fifo = place / "traces" / "rank0.log"
    os.mkfifo(fifo)
    (place / "traces" / "zero.log").symlink_to("/dev/zero")
    for path in (fifo, place / "traces" / "zero.log", Path("/dev/zero")):
        started = time.monotonic()
        code, _, err = cli("import-trace", str(path))
        assert code == 2 and len(err.strip().splitlines()) == 1 and "special file" in err, err
        with pytest.raises(NoTrace):
            import_trace(path)
        assert time.monotonic() - started < 10
    # in a directory they are no logs; the FIFO is never opened
    code, _, err = cli("import-trace", str(place / "traces"))
    assert code == 2 and "holds no TORCH_TRACE log" in err
    with pytest.raises(NoTrace, match="is not a regular file"):
        read_trace_file(fifo)


# -- 2. bounded ------------------------------------------------------------------------------------------------------


def newline_bomb(path: Path, mib: int) -> Path:
    """A gzip of ``mib`` MiB of newlines, about a KiB a MiB: a member of 1 MiB written ``mib`` times."""
    member = gzip.compress(b"\n" * (1 << 20), compresslevel=9)
    with path.open("wb") as f:
        for _ in range(mib):
            f.write(member)
    return path


# The child's own peak, VmHWM: its ru_maxrss (getrusage) would start from the pytest process's resident size, which
# Linux carries over a fork and an exec into the child's figure (355 MB here, torch being loaded in pytest).
_PEAK = """
import re, sys
from compile_profile.cli import main
code = main(sys.argv[1:])
with open("/proc/self/status") as f:
    peak_kib = int(re.search(r"VmHWM:\\s+(\\d+) kB", f.read()).group(1))
print("peak_kib", peak_kib, "exit", code)
"""


def _cli_in_a_child(*argv: str) -> tuple[int, int, str]:
    """The CLI run in a process of its own: (its peak resident memory in MiB, its exit code, stderr)."""
    done = subprocess.run([sys.executable, "-c", _PEAK, *argv], capture_output=True, text=True, timeout=300)
    words = done.stdout.split()
    return int(words[words.index("peak_kib") + 1]) // 1024, int(words[words.index("exit") + 1]), done.stderr


def test_a_gigabyte_newline_bomb_imports_in_bounded_memory_and_one_past_the_cap_is_refused_naming_it(tmp_path):
    bomb = newline_bomb(tmp_path / "bomb.log.gz", 1000)  # 1.05 GB decompressed from 1 MB
    assert bomb.stat().st_size < 2 << 20
    db = str(tmp_path / "runs.sqlite")
    peak_mib, code, err = _cli_in_a_child("--db", db, "import-trace", str(bomb))
    assert code == 2 and "holds no TORCH_TRACE record" in err
    assert peak_mib < 300, peak_mib  # 1.18 GB before the reader streamed; 47 MB here
    over = newline_bomb(tmp_path / "over.log.gz", 1025)
    peak_mib, code, err = _cli_in_a_child("--db", db, "import-trace", str(over))
    assert code == 2 and "larger than 1 GiB (TraceLimits.log_bytes, the cap on a log's decompressed size)" in err
    assert peak_mib < 300, peak_mib


def test_each_cap_refuses_a_log_past_it_naming_the_cap(tmp_path):
    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py", extra=tuple(record({"noise": i}) for i in range(20))))
    with pytest.raises(NoTrace, match=r"more records than 10 \(TraceLimits.records, the cap on a log's records\)"):
        import_trace(log, limits=TraceLimits(records=10))
    with pytest.raises(NoTrace, match=r"larger than 1,000 bytes \(TraceLimits.log_bytes"):
        import_trace(log, limits=TraceLimits(log_bytes=1000))
    for i in range(5):
        (tmp_path / "many" / str(i)).mkdir(parents=True)
        (tmp_path / "many" / str(i) / f"rank{i}.log").write_text(log.read_text())
    with pytest.raises(NoTrace, match=r"more logs than 4 \(TraceLimits.logs"):
        import_trace(tmp_path / "many", limits=TraceLimits(logs=4))
    with pytest.raises(NoTrace, match=r"more files and directories than 6 \(TraceLimits.walk_entries"):
        import_trace(tmp_path / "many", limits=TraceLimits(walk_entries=6))
    assert len(import_trace(tmp_path / "many")) == 5


def test_a_line_past_the_line_cap_is_skipped_and_counted_and_a_payload_it_cuts_is_reported(tmp_path):
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    graph = record({"dynamo_output_graph": {}, **ids}, "def forward(self, x):\n    " + "y = x\n    " * 3 + "return x")
    long_line = "x" * 5000
    text = log_naming("/x/train.py", extra=(long_line, graph, record({"dynamo_output_graph": {}, **ids}, "z" * 3000)))
    (tmp_path / "t.log").write_text(text)
    (run,) = import_trace(tmp_path / "t.log", limits=TraceLimits(line_bytes=2000))
    origin = run.imported_trace
    assert origin is not None and origin.skipped_lines == 2  # the stray line, and the payload's line
    assert [g.code.count("y = x") for g in run.graphs if g.kind == "dynamo"] == [3]
    assert [(r.kind, "cut short" in r.why) for r in origin.bad_record_lines] == [("dynamo_output_graph", True)]


def test_a_record_naming_a_rank_past_the_cap_is_skipped_and_a_job_of_two_billion_ranks_lists_its_missing_few(
    tmp_path, cli
):
    log = tmp_path / "t.log"
    log.write_text(log_naming("/x/train.py", extra=(record({"noise": 1, "rank": 2_000_000_000}),)))
    (run,) = import_trace(log)
    assert run.distributed is None and run.imported_trace is not None and run.imported_trace.bad_records == 1
    assert "rank 2000000000 is outside 0 to 65535 (MAX_RANK, the cap on ranks)" in render_text(run)
    # a run file (compile-profile import, the way a job's ranks are gathered) may say any world size
    from job_fixtures import rank_run

    ranks = [rank_run(0, 2_000_000_000), rank_run(1, 2_000_000_000)]
    started = time.monotonic()
    digest = job_digest(ranks)
    assert time.monotonic() - started < 2
    assert digest["missing_ranks"] == list(range(2, 34))
    assert digest["headline"].endswith(
        "no run from ranks 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, "
        "18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 and "
        "1,999,999,966 more"
    )
    files = []
    for run in ranks:
        files.append(tmp_path / f"{run.id}.json")
        files[-1].write_text(run.to_json())
    code, out, err = cli("import", *map(str, files))
    assert code == 0, err
    code, out, err = cli("job", ranks[0].distributed.job_id)  # type: ignore[union-attr]
    assert code == 0 and "1,999,999,966 more" in out, err


# -- 3. never fatal per record -----------------------------------------------------------------------------------


def _with_bad_records(dest: Path) -> tuple[Path, list[str]]:
    """The 2.13 fixture's log with records of the wrong types put between two of its records."""
    ids = '"frame_id": 0, "frame_compile_id": 0, "attempt": 0'
    bad = [
        f'{HEAD} {{"str": true}}',
        f'{HEAD} {{"dynamo_start": {{"stack": 1.5}}, {ids}}}',
        f'{HEAD} {{"dynamo_start": {{"stack": [{{"line": NaN, "name": "f", "filename": "/x.py"}}]}}, {ids}}}',
        f'{HEAD} {{"compilation_metrics": {{"entire_frame_compile_time_s": 1e400}}, {ids}}}',
        f'{HEAD} {{"dynamo_output_graph": {{}}, "frame_id": "zero", "frame_compile_id": [], "attempt": 0}}',
        f'{HEAD} {{"artifact": {{"name": 7, "encoding": "string"}}, {ids}}}',
    ]
    with gzip.open(RELEASE, "rt") as f:
        lines = f.read().splitlines()
    at = len(lines) // 2
    while lines[at].startswith("\t"):
        at += 1
    dest.write_text("\n".join(lines[:at] + bad + lines[at:]) + "\n")
    return dest, bad


def _bad_lines(log: Path, bad: list[str]) -> list[int]:
    lines = log.read_text().splitlines()
    return [lines.index(b) + 1 for b in bad]


def test_records_of_the_wrong_types_are_skipped_with_their_lines_and_the_rest_reads_cli_and_api(tmp_path, cli):
    import compile_profile

    log, bad = _with_bad_records(tmp_path / "bad.log")
    (clean,) = import_trace(RELEASE)
    code, out, err = cli("import-trace", str(log))
    assert code == 0, err
    assert "skipped 6 records not of their kind's types or cut short (line " in out
    (run,) = compile_profile.import_trace(log, db=tmp_path / "api.sqlite")
    origin = run.imported_trace
    assert origin is not None and origin.bad_records == 6
    assert [r.line for r in origin.bad_record_lines] == _bad_lines(log, bad)
    assert [r.why for r in origin.bad_record_lines] == [
        "expected [text, index], got a boolean",
        "stack: expected a list, got a number",
        "stack: [0]: line: expected an integer, got the number nan",
        "entire_frame_compile_time_s: expected a finite number, got the number inf",
        "frame_id: expected an integer, got a string",
        "name: expected a string, got an integer",
    ]
    assert [r.kind for r in origin.bad_record_lines] == ["str", "dynamo_start", "dynamo_start"] + [
        "compilation_metrics",
        "dynamo_output_graph",
        "artifact",
    ]
    # what the other records hold is read as from the log without them
    assert len(run.recompiles) == len(clean.recompiles) and len(run.graph_breaks) == len(clean.graph_breaks)
    assert run.variants[0].compile_s == clean.variants[0].compile_s
    assert json.loads(run.to_json())  # no NaN or Infinity reached the run: a browser reads its JSON


def test_a_bad_record_in_one_ranks_log_refuses_no_rank(tmp_path):
    shutil.copytree(JOB, tmp_path / "job")
    rank1 = next((tmp_path / "job").glob("*rank_1*"))
    with gzip.open(rank1, "rt") as f:
        text = f.read()
    with gzip.open(rank1, "wt") as f:
        f.write(f'{HEAD} {{"str": true, "rank": 1}}\n{HEAD} {{"dynamo_start": {{"stack": 1.5}}, "rank": 1}}\n' + text)
    runs = import_trace(tmp_path / "job")
    assert [r.distributed.rank for r in runs if r.distributed] == [0, 1]
    assert [r.imported_trace.bad_records for r in runs if r.imported_trace] == [0, 2]


def _cut_in_a_payload(dest: Path) -> tuple[Path, str]:
    """The fixture's log cut in the middle of its first payload of more than ten lines (a job killed while writing):
    the kind of the record cut."""
    with gzip.open(RELEASE, "rt") as f:
        lines = f.read().splitlines()
    at = next(i for i in range(len(lines) - 10) if not lines[i].startswith("\t") and lines[i + 10].startswith("\t"))
    dest.write_text("\n".join(lines[: at + 5]) + "\n")
    metadata = json.loads(lines[at].split("] ", 1)[1])
    kind = next(k for k in metadata if k not in ("frame_id", "frame_compile_id", "attempt", "has_payload"))
    return dest, metadata[kind]["name"] if kind == "artifact" else kind


def test_a_log_cut_in_the_middle_of_a_payload_says_so_cli_and_api(tmp_path, cli):
    import compile_profile

    log, kind = _cut_in_a_payload(tmp_path / "cut.log")
    (run,) = compile_profile.import_trace(log, db=tmp_path / "api.sqlite")
    origin = run.imported_trace
    assert origin is not None and origin.bad_records == 1
    (cut,) = origin.bad_record_lines
    assert cut.kind == kind and cut.line == len(log.read_text().splitlines()) - 4
    assert cut.why == "its payload is cut short or changed (its MD5 is not the one logged: fail_payload_md5)"
    code, out, err = cli("import-trace", str(log))
    assert code == 0 and f"(line {cut.line}: {kind}: its payload is cut short" in out, err


def test_a_payload_of_many_short_lines_holds_no_more_than_the_artifact_cap_and_its_md5_is_still_checked(tmp_path):
    """A 200 KB gzip of 200 MiB of 4-byte payload lines took the import to 4.0 GB (each line its own str until the
    record ended); a 1 MB one ran out of memory past 8 GB.  Held as bytes up to ``artifact_bytes``, the payload costs
    the cap, and a payload past it is still checked whole against its logged MD5 and kept cut, said to be."""
    import tracemalloc

    body = "\n".join(["xy"] * 150_000)  # 450 KB of text, 150,000 lines
    good = record({"artifact": {"name": "big", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0}, body)
    bad = good.replace("\txy", "\txz", 1)  # one line changed: its MD5 is not the one logged
    limits = TraceLimits(artifact_bytes=64 << 10)
    for text, ok in ((good, True), (bad, False)):
        log = tmp_path / "lines.log"
        log.write_text(text + "\n")
        tracemalloc.start()
        try:
            read = read_trace_file(log, limits)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 4 << 20, f"{peak / 2**20:.1f} MiB held"  # a str a line: ~9 MiB
        assert (read.bad_record_count == 0) is ok, read.bad_record_lines
        if ok:
            (event,) = [e for e in read.events if e.payload]
            assert (64 << 10) < len(event.payload) < (64 << 10) + 10  # up to the first line past the cap
            assert event.payload.startswith("xy\nxy\n")


@given(
    data=st.binary(max_size=300).map(lambda b: b.replace(b"\x01", b"\n")),
    chunk=st.integers(1, 40),
    cap=st.integers(1, 50),
)
def test_the_streamed_lines_are_the_files_lines_at_any_chunk_size(data, chunk, cap):
    import io

    old = trace_file._CHUNK
    trace_file._CHUNK = chunk
    try:
        lines = list(trace_file._Lines(io.BytesIO(data), Path("x.log"), TraceLimits(line_bytes=cap), None))
    finally:
        trace_file._CHUNK = old
    expected = [(n, line if len(line) <= cap else None) for n, line in enumerate(data.split(b"\n"), 1) if line]
    assert lines == expected


@given(data=st.binary(max_size=3000), members=st.integers(1, 3), chunk=st.integers(1, 500), cut=st.integers(0, 100))
def test_a_gzip_streams_as_gzip_reads_it_and_a_cut_one_keeps_what_came_before_the_cut(data, members, chunk, cut):
    import io

    parts = [data[i * len(data) // members : (i + 1) * len(data) // members] for i in range(members)]
    whole = b"".join(gzip.compress(p) for p in parts)
    old = trace_file._CHUNK
    trace_file._CHUNK = chunk
    try:
        reader = trace_file._Lines(io.BytesIO(whole), Path("x.gz"), TraceLimits(), None)
        assert b"".join(reader._gunzip()) == data and not reader.cut_short
        short = whole[: len(whole) * cut // 100]
        reader = trace_file._Lines(io.BytesIO(short), Path("x.gz"), TraceLimits(), None)
        got = b"".join(reader._gunzip())
    finally:
        trace_file._CHUNK = old
    assert data.startswith(got)
    if not reader.cut_short:  # cut between two members (or before the first): what the whole members hold
        assert got == (gzip.decompress(short) if short else b"")


# -- the REST door ---------------------------------------------------------------------------------------------------


async def post(jp_fetch, body: dict) -> tuple[int, dict]:
    return await api_answer(jp_fetch, "runs", "import-trace", method="POST", body=json.dumps(body))


def nothing_at(raw: str) -> str:
    return (
        f"nothing to import at {raw}: give a TORCH_TRACE directory or log (*.log, *.log.gz) under the server's root "
        "directory, as a path relative to it"
    )


async def test_rest_reads_no_file_a_trace_names_outside_the_servers_root(jp_fetch, jp_root_dir, store_path, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "creds.py").write_text(f"# {SECRET}\n")
    (jp_root_dir / "traces").mkdir()
    (jp_root_dir / "traces" / "link.py").symlink_to(outside / "creds.py")
    os.mkfifo(jp_root_dir / "traces" / "fifo.py")
    for i, script in enumerate([str(outside / "creds.py"), "../../outside/creds.py", "link.py", "fifo.py"]):
        (jp_root_dir / "traces" / f"{i}.log").write_text(log_naming(script))
        code, body = await post(jp_fetch, {"path": f"traces/{i}.log"})
        assert code == 201, body
        (run_id,) = body["ids"]
        run = json.loads((await jp_fetch(API, "runs", run_id)).body)
        assert SECRET not in json.dumps(run) and run["cell_source"] == "" and run["imported_trace"]["files_read"] == []
        listing = (await jp_fetch(API, "runs")).body.decode()
        assert SECRET not in listing
        report = (await jp_fetch(API, "runs", run_id, "report")).body.decode()
        assert SECRET not in report
    (jp_root_dir / "train.py").write_text("x = 1\ny = 2\n")
    (jp_root_dir / "traces" / "mine.log").write_text(log_naming("/elsewhere/train.py"))
    code, body = await post(jp_fetch, {"path": "traces/mine.log"})
    run = json.loads((await jp_fetch(API, "runs", body["ids"][0])).body)
    assert run["cell_source"] == "x = 1\ny = 2\n" and run["imported_trace"]["files_read"] == [
        str(Path(os.path.realpath(jp_root_dir / "train.py")))
    ]


async def test_rest_paths_resolve_inside_the_root_with_one_message_for_nothing_to_import(
    jp_fetch, jp_root_dir, store_path, tmp_path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.log").write_text(log_naming("/x/train.py"))
    (jp_root_dir / "out").symlink_to(outside)
    (jp_root_dir / "logs").mkdir()
    (jp_root_dir / "logs" / "escape.log").symlink_to(outside / "t.log")
    (jp_root_dir / "empty").mkdir()
    (jp_root_dir / "notes.txt").write_text("not a trace\n")
    os.mkfifo(jp_root_dir / "fifo.log")
    paths = [
        "../outside/t.log",  # up and out
        "logs/../../outside/t.log",
        str(outside / "t.log"),  # absolute, outside
        "out/t.log",  # a symlink out
        "out",
        "logs",  # a directory whose one log is a symlink out
        "/usr",  # not walked
        "/",
        "nowhere",  # missing
        "empty",  # no log
        "notes.txt",  # no record
        "fifo.log",  # not a regular file
    ]
    for raw in paths:
        started = time.monotonic()
        code, body = await post(jp_fetch, {"path": raw})
        assert (code, body["message"]) == (400, nothing_at(raw)), raw
        assert time.monotonic() - started < 5, raw
    assert not store_path.exists() or RunStore(store_path).count() == 0


async def test_rest_answers_while_fifo_imports_are_posted_and_a_real_import_then_succeeds(
    jp_fetch, jp_root_dir, store_path
):
    os.mkfifo(jp_root_dir / "pipe.log")
    (jp_root_dir / "dir").mkdir()
    os.mkfifo(jp_root_dir / "dir" / "rank0.log")
    started = time.monotonic()
    answers = await asyncio.gather(*(post(jp_fetch, {"path": p}) for p in ["pipe.log", "dir"] * 4))
    assert [code for code, _ in answers] == [400] * 8
    listed = await jp_fetch(API, "runs")
    assert listed.code == 200 and time.monotonic() - started < 5
    shutil.copy(RELEASE, jp_root_dir / "trace.log.gz")
    code, body = await post(jp_fetch, {"path": "trace.log.gz"})
    assert code == 201 and len(body["ids"]) == 1


async def test_rest_answers_within_five_seconds_while_an_import_is_pending_and_bounds_its_time(
    jp_fetch, jp_root_dir, store_path, monkeypatch
):
    from compile_profile.server import handlers

    release = threading.Event()

    def stuck(*args, **kwargs):  # a read the reader cannot stop itself: a hung network mount
        release.wait(30)
        raise NoTrace("released")

    monkeypatch.setattr(trace_import, "import_trace", stuck)
    monkeypatch.setattr(handlers, "IMPORT_SECONDS", 2.0)
    monkeypatch.setattr(handlers, "IMPORT_GRACE_S", 0.5)
    (jp_root_dir / "t.log").write_text(log_naming("/x/train.py"))
    try:
        pending = asyncio.ensure_future(post(jp_fetch, {"path": "t.log"}))
        await asyncio.sleep(0.3)
        assert not pending.done()
        started = time.monotonic()
        for _ in range(3):
            assert (await jp_fetch(API, "runs")).code == 200
            assert (await jp_fetch(API, "changes")).code == 200
        assert time.monotonic() - started < 5
        code, body = await pending
        assert code == 503 and body["message"] == "importing t.log took longer than 2 s, the server's bound"
    finally:
        release.set()


async def test_rest_refuses_a_log_past_a_cap_naming_it_and_skips_bad_records(jp_fetch, jp_root_dir, store_path):
    newline_bomb(jp_root_dir / "bomb.log.gz", 1025)
    code, body = await post(jp_fetch, {"path": "bomb.log.gz"})
    assert code == 400 and "TraceLimits.log_bytes, the cap on a log's decompressed size" in body["message"]
    log, _ = _with_bad_records(jp_root_dir / "bad.log")
    code, body = await post(jp_fetch, {"path": "bad.log"})
    assert code == 201, body
    run = json.loads((await jp_fetch(API, "runs", body["ids"][0])).body)
    assert run["imported_trace"]["bad_records"] == 6
    assert "skipped 6 records not of their kind's types" in run["summary"]["trace"]["skipped_text"]
    cut, kind = _cut_in_a_payload(jp_root_dir / "cut.log")
    code, body = await post(jp_fetch, {"path": "cut.log"})
    run = json.loads((await jp_fetch(API, "runs", body["ids"][0])).body)
    assert f"{kind}: its payload is cut short" in run["summary"]["trace"]["skipped_text"]


# -- the terminal ----------------------------------------------------------------------------------------------------


def test_terminal_safe_escapes_controls_and_format_characters_by_their_unicode_category():
    hostile = "a\u202eb\u2066c\u200bd\u0085e\u2028f\ufeffg\x1b[2Jh\ud800i\U000e0001"
    assert terminal_safe(hostile) == ("a\\u202eb\\u2066c\\u200bd\\x85e\\u2028f\\ufeffg\\x1b[2Jh\\ud800i\\U000e0001")
    kept = "tab\tnewline\né 中 😀 ß ñ — “quotes”"
    assert terminal_safe(kept) == kept


def test_ls_and_show_write_a_right_to_left_override_as_an_escape(cli):
    from synthetic_store_runs import make_run

    with RunStore(cli.db) as store:
        run = make_run("rtl000000001", label="evil\u202etxt.py")
        run.cell_source = "x = 1  # \u202e\u2066 hidden\n"
        store.put(run)
    for argv in (("ls",), ("show", "rtl000000001")):
        code, out, _ = cli(*argv)
        assert code == 0 and "\u202e" not in out and "\u2066" not in out
        assert "evil\\u202etxt.py" in out


def test_repro_writes_an_imported_scripts_controls_as_escapes_to_a_terminal_and_as_they_are_to_a_file(
    cli, monkeypatch, tmp_path
):
    from render_fixtures import failed_run

    run = failed_run()
    script = "import torch\nprint('\x1b]0;owned\x07\x1b[2J \u202e')\n"
    run.errors[0].reproducer = script
    with RunStore(cli.db) as store:
        store.put(run)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = cli("repro", run.id)
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b]0;owned\\x07" in out and "-o FILE` writes the script as it is" in err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    code, out, _ = cli("repro", run.id)
    assert out == script  # a pipe or a redirect: the script as it is
    code, _, _ = cli("repro", run.id, "-o", str(tmp_path / "r.py"))
    assert (tmp_path / "r.py").read_text() == script
