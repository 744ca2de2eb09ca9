"""digest.timeline: each compile's time from Dynamo's outermost spans, its nested phases, its cache lookups, and
how much of the first call compiling took; the recorded traces' spans held against Dynamo's own metrics."""

from __future__ import annotations

import pytest
from compile_profile.digest.timeline import compile_rows, compile_timeline, family, first_call_text
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.trace.log_file import read_trace_file
from compile_profile.engine.trace.model import build_variant_trace
from compile_profile.profile_run import Recompile
from render_fixtures import cpu_run, cuda_run
from test_trace_fixtures import FIXTURES, RELEASES


def test_each_compile_is_a_row_timed_by_its_outermost_spans():
    rows = compile_rows(cuda_run())
    assert [(r.variant, r.compile_id, r.when) for r in rows] == [
        ("inductor/default", "0/0", "first call"),
        ("inductor/default", "1/0", "first call"),
    ]
    first, second = rows
    assert first.total_s == 10.0 and second.total_s == 2.1
    assert first.start_s == 0.0 and second.start_s == pytest.approx(10.2)
    # the named phases, each at least 1% of the compile (the 1 ms pass is left out), at the depth of the shown
    # phases holding them (the wrappers between backend_compile and code_gen are not shown)
    depths = {p.name: p.depth for p in first.phases}
    assert depths == {"dynamo": 0, "bytecode_tracing": 1, "backend_compile": 1, "inductor_compile": 2, "code_gen": 3}
    assert first.cache_text == "FX graph: 1 miss (full_miss); AOTAutograd: 1 miss (full_miss)"
    assert second.cache_text == "FX graph: 1 hit"


def test_the_first_call_is_accounted_for_by_its_compiles():
    run = cuda_run()
    rows = compile_rows(run)
    assert first_call_text(run.variant("inductor/default"), rows) == (
        "first call 12.9 s: 12.1 s of it (94%) compiling 2 frames (0/0 10 s, 1/0 2.1 s)"
    )


def test_a_compile_a_recompile_names_is_listed_after_the_first_call():
    run = cuda_run()
    run.recompiles.append(Recompile(reason="size mismatch", compile_id="1/0", variant="inductor/default"))
    timeline = compile_timeline(run)
    assert timeline is not None
    assert [r.when for r in timeline.rows] == ["first call", "recompile"]
    assert timeline.text == (
        "first call 12.9 s: 10 s of it (78%) compiling 1 frame (0/0 10 s); 1 recompile after it: 2.1 s"
    )


def test_a_run_without_spans_has_no_timeline():
    assert compile_timeline(cpu_run()) is None


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("dynamo", "whole compile"),
        ("compile_attempt_1", "whole compile"),
        ("bytecode_tracing", "Dynamo"),
        ("backend_compile", "AOTAutograd"),
        ("aot_trace_joint_graph", "AOTAutograd"),
        ("inductor_compile", "Inductor"),
        ("GraphLowering.run", "Inductor"),
        ("code_gen", "code generation and C++/Triton compile"),
        ("compile_file", "code generation and C++/Triton compile"),
        ("inductor_codecache_torch_key", "cache keys"),
        ("something_new", "other"),
    ],
)
def test_a_span_is_placed_in_its_part_of_the_stack(name, part):
    assert family(name) == part


@pytest.fixture(params=RELEASES, scope="module")
def recorded(request):
    trace = read_trace_file(FIXTURES / request.param / "trace.log.gz")
    return request.param, build_variant_trace(trace.events, [], variant="trace", locator=CellLocator("x", []))


def test_a_recorded_traces_compiles_add_up_to_dynamos_own_compile_time(recorded):
    _, trace = recorded
    outermost = sum(s.duration_s for s in trace.spans if s.depth == 0)
    assert trace.compile_s > 0 and outermost == pytest.approx(trace.compile_s, rel=0.05)


def test_a_recorded_traces_spans_nest_as_they_ran(recorded):
    release, trace = recorded
    spans = [s for s in trace.spans if s.compile_id == "0/0"]
    for inner in spans:
        if inner.depth == 0:
            continue
        # each span lies inside one of the compile's spans a level up
        assert any(
            outer.depth == inner.depth - 1
            and outer.start_s <= inner.start_s + 1e-6
            and inner.start_s + inner.duration_s <= outer.start_s + outer.duration_s + 1e-6
            for outer in spans
        ), (release, inner)
    assert {s.name for s in spans if s.depth == 0} >= {"dynamo"}
    assert any(s.name == "inductor_compile" and s.depth >= 2 for s in spans)


def test_a_recorded_traces_cache_lookups_are_the_ones_counted_with_their_compile_ids(recorded):
    _, trace = recorded
    counted = {
        ("aot_autograd", "hit"): trace.cache.aot_autograd_hits,
        ("aot_autograd", "miss"): trace.cache.aot_autograd_misses,
        ("fx_graph", "hit"): trace.cache.fx_graph_hits,
        ("fx_graph", "miss"): trace.cache.fx_graph_misses,
    }
    assert {key: sum(1 for c in trace.cache_lookups if (c.cache, c.state) == key) for key in counted} == counted
    assert all(c.compile_id for c in trace.cache_lookups)


def test_a_compiles_largest_phases_are_its_three_longest_inside_it_longest_first():
    """What the Compile tab and the report list per compile (the panel's largestPhases, moved here)."""
    from compile_profile.digest.timeline import TimelinePhase, largest_phases

    def phase(name: str, family: str, duration_s: float, time: str) -> TimelinePhase:
        return TimelinePhase(name=name, family=family, depth=1, start_s=0.0, duration_s=duration_s, time=time)

    phases = [
        phase("dynamo", "whole compile", 10, "10 s"),
        phase("bytecode_tracing", "Dynamo", 0.6, "600 ms"),
        phase("code_gen", "code generation and C++/Triton compile", 7.5, "7.5 s"),
        phase("backend_compile", "AOTAutograd", 9, "9 s"),
        phase("inductor_compile", "Inductor", 8.2, "8.2 s"),
    ]
    assert largest_phases(phases) == "backend_compile 9 s, inductor_compile 8.2 s, code_gen 7.5 s"
    assert phases[0].name == "dynamo"  # left in its order
    assert largest_phases(phases[:2]) == "bytecode_tracing 600 ms"
    assert largest_phases([]) == ""
    rows = compile_rows(cuda_run())
    assert any(row.largest_phases for row in rows)
    for row in rows:
        assert row.largest_phases == largest_phases(row.phases)
