"""The trace model's handlers on structured traces recorded by each supported torch release.

``trace_fixtures/torch-<version>/trace.log.gz`` is a TORCH_TRACE log of ``trace_fixtures/record.py``'s
workload recorded with that release (re-record with the compat venvs when the workload changes), and
``expected.json`` what Dynamo itself counted while it ran: its recompile log and its graph-break counter.
Read back through ``trace_file`` and ``build_variant_trace`` with the workload as the "cell", each release's
log must give Dynamo's recompiles, breaks at the workload's own line, and compiled kernels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.trace.log_file import read_trace_file
from compile_profile.engine.trace.model import build_variant_trace

FIXTURES = Path(__file__).parent / "trace_fixtures"
RELEASES = sorted(p.name for p in FIXTURES.glob("torch-*"))
WORKLOAD = (FIXTURES / "record.py").read_text().splitlines()
PRINT_LINE = next(i for i, line in enumerate(WORKLOAD, 1) if 'print("loss", y.item())' in line)
BACKWARD_LINE = next(i for i, line in enumerate(WORKLOAD, 1) if line.strip() == "y.backward()")


def test_there_are_fixtures_of_the_oldest_and_newest_supported_releases():
    assert {"torch-2.6.0", "torch-2.13.0"} <= set(RELEASES)


@pytest.fixture(params=RELEASES, scope="module")
def release(request):
    trace = read_trace_file(FIXTURES / request.param / "trace.log.gz")
    expected = json.loads((FIXTURES / request.param / "expected.json").read_text())
    recorded_as = next(path for path in trace.strings.values() if path.endswith("trace_fixtures/record.py"))
    locator = CellLocator(filename=recorded_as, lines=WORKLOAD)
    return trace, expected, build_variant_trace(trace.events, [], variant="trace", locator=locator)


def test_every_line_of_a_recorded_trace_is_read(release):
    trace, _, _ = release
    assert trace.skipped_lines == 0
    assert {"dynamo_start", "dynamo_output_graph", "inductor_output_code", "recompile_reasons"} <= {
        e.kind for e in trace.events
    }


def test_a_recorded_trace_has_the_recompiles_dynamo_logged_with_their_frames(release):
    _, expected, trace = release
    assert len(trace.recompiles) == expected["recompiles"] == 3
    assert {r.compile_id for r in trace.recompiles} == {"0/1", "1/1", "1/2"}
    # the step recompiled on its input's shape; the frame resumed after the break on the .item() value
    shape = next(r for r in trace.recompiles if r.compile_id == "0/1")
    assert "size mismatch at index 0. expected 4, actual 6" in shape.reason
    value = next(r for r in trace.recompiles if r.compile_id == "1/1")
    assert "___stack" in value.reason and "==" in value.reason


def test_a_recorded_trace_places_its_graph_breaks_on_the_workloads_line(release):
    _, _, trace = release
    # the print of .item() breaks the step and the frame resumed after it; the backward breaks the latter
    assert {b.line for b in trace.graph_breaks} == {PRINT_LINE, BACKWARD_LINE}
    assert {b.compile_id for b in trace.graph_breaks if b.line == PRINT_LINE} >= {"0/0", "0/1", "1/0"}


def test_a_recorded_trace_has_its_graphs_and_generated_kernels(release):
    _, _, trace = release
    dynamo = [g for g in trace.graphs if g.kind == "dynamo"]
    assert {g.compile_id for g in dynamo} >= {"0/0", "0/1"}  # the step and its recompile (the rest breaks at once)
    assert any(k.language == "cpp" for k in trace.kernels)
    assert any(g.kind == "aot_backward" for g in trace.graphs)


def test_the_recording_set_up_gives_a_fresh_trace_a_cold_cache_and_the_counts_every_fixture_holds():
    """trace_recording.py, what both recording scripts share: what it counts is what each fixture holds."""
    from trace_recording import Recompiles, dynamo_counts, start_trace

    env: dict[str, str] = {}
    trace_dir = start_trace(env)
    assert env["TORCH_TRACE"] == trace_dir and Path(trace_dir).is_dir()
    assert Path(env["TORCHINDUCTOR_CACHE_DIR"]).is_dir() and env["TORCHINDUCTOR_CACHE_DIR"] != trace_dir
    given = {"TORCHINDUCTOR_CACHE_DIR": "/a/cache"}
    assert start_trace(given) != trace_dir and given["TORCHINDUCTOR_CACHE_DIR"] == "/a/cache"  # a given one is kept
    recompiles = Recompiles()
    recompiles.messages = [f"Recompiling function {name} in record.py:33\n    triggered by ..." for name in "bab"]
    counted = dynamo_counts(recompiles)
    assert counted["recompiles"] == 3 and counted["recompiled_frames"] == ["a", "b"]
    for release in RELEASES:
        assert set(counted) == set(json.loads((FIXTURES / release / "expected.json").read_text()))
    imported = Path(__file__).parent / "import_trace_fixtures"
    for expected in imported.glob("*/expected*.json"):
        assert set(counted) <= set(json.loads(expected.read_text()))
