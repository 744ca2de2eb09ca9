"""The measuring core on real torch.compile runs.

Workloads are tiny and share one Inductor cache (see conftest) so the suite stays fast on two cores;
assertions are about structure and attribution, never about which variant is faster.  A test whose subject is
Inductor (its C++ kernels, its caches, its compile spans) or the profiler pass profiles under Inductor (``FAST``);
one about Dynamo's graphs, breaks and recompiles, the namespace or a failure under aot_eager with --quick
(``CHEAP``).
"""

from __future__ import annotations

import json
import logging

import fault_backends
import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.timeline import compile_rows
from compile_profile.engine.common.torch_features import logs_post_grad_graph_on_cache_hit
from compile_profile.profile_run import ProfileRun
from profile_options import CHEAP, CHEAP_VARIANT, FAST


@pytest.fixture(scope="module")
def training_result():
    torch.manual_seed(0)
    ns = {
        "torch": torch,
        "model": torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4)),
        "x": torch.randn(4, 8),
    }
    body = "y = model(x)\nloss = y.float().pow(2).mean()\nloss.backward()\nloss\n"
    return run_cell(body, ns), ns


@pytest.mark.compiles
def test_training_cell_yields_forward_and_backward_graphs_and_cpp_kernels(training_result):
    result, ns = training_result
    run = result.run
    assert run.status == "ok", run.errors
    kinds = {g.kind for g in run.graphs}
    assert {"dynamo", "aot_forward", "aot_backward"} <= kinds
    if run.cache.fx_graph_misses or logs_post_grad_graph_on_cache_hit():
        assert "post_grad" in kinds
    else:  # torch 2.6 on a cache hit: the card says why there is none
        assert any(n.kind == "no_post_grad_on_cache_hit" for n in run.notes)
    cpp = [k for k in run.kernels if k.language == "cpp"]
    assert cpp, "Inductor on CPU writes C++ kernels"
    assert all('extern "C"' in k.source for k in cpp)
    backward_ids = {g.id for g in run.graphs if g.kind == "aot_backward"}
    assert any(k.graph_id in backward_ids for k in cpp), "backward kernels belong to the backward graph"
    # every generated kernel is attributed to the cell line that produced it
    assert all(k.lines and set(k.lines) <= {2, 3} for k in cpp)
    assert all(k.aten_ops for k in run.kernels)
    assert len({k.id for k in run.kernels}) == len(run.kernels)


@pytest.mark.compiles
def test_the_compile_timeline_accounts_for_the_first_call_within_a_tenth(training_result):
    run = training_result[0].run
    compiled = run.variant("inductor/default")
    rows = [r for r in compile_rows(run) if r.variant == compiled.name and r.when == "first call"]
    assert rows and compiled.first_call_s is not None
    # the forward's frame and the backward compiled lazily at the first backward(), from Dynamo's spans
    compiling = sum(r.total_s for r in rows)
    assert compiling == pytest.approx(compiled.first_call_s, rel=0.10), (compiling, compiled.first_call_s)
    outermost = {s.name for s in compiled.compile_spans if s.depth == 0}
    assert "dynamo" in outermost
    assert any(s.depth > 0 for s in compiled.compile_spans), "the phases nest inside the frame's compile"
    # each cache lookup Dynamo's span events record is one the cache counters (its artifact events) counted
    lookups = [c for v in run.compiled_variants for c in v.cache_lookups]
    assert lookups, "a compile looks in the AOTAutograd cache, and on its miss in the FX graph cache"
    counted = {
        ("aot_autograd", "hit"): run.cache.aot_autograd_hits,
        ("aot_autograd", "miss"): run.cache.aot_autograd_misses,
        ("fx_graph", "hit"): run.cache.fx_graph_hits,
        ("fx_graph", "miss"): run.cache.fx_graph_misses,
    }
    assert {key: sum(1 for c in lookups if (c.cache, c.state) == key) for key in counted} == counted


@pytest.mark.compiles
def test_timings_are_steady_state_and_speedup_has_an_interval(training_result):
    run = training_result[0].run
    eager, compiled = run.variant("eager"), run.variant("inductor/default")
    for v in (eager, compiled):
        t = v.timing
        assert t is not None and t.n >= 3 and len(t.samples_ms) == t.n
        assert t.p10_ms <= t.median_ms <= t.p90_ms
    # the first compiled call (which compiles) is reported apart from the samples
    assert compiled.first_call_s is not None and compiled.first_call_s * 1e3 > max(compiled.timing.samples_ms)
    assert compiled.compile_s and compiled.compile_s > 0
    s = run.speedup
    assert s.variant == "inductor/default"
    assert s.value == pytest.approx(eager.timing.median_ms / compiled.timing.median_ms)
    assert s.low <= s.value <= s.high
    assert run.correctness.ok is True and "loss" in run.correctness.compared
    assert all(v.peak_memory_bytes is None for v in run.variants)
    assert run.cell_runs > eager.timing.n + compiled.timing.n


@pytest.mark.compiles
def test_each_stage_records_its_wall_time_and_the_entries_do_not_overlap(training_result):
    result, _ = training_result
    stage_s = result.run.stage_s
    assert list(stage_s)[:2] == ["eager first call", "first call: inductor/default"]
    expected = {"warm-up", "timing", "float64 reference", "correctness", "memory", "kernel pass: eager"}
    assert expected | {"kernel pass: inductor/default", "kernel pass", "last eager run", "other"} <= set(stage_s)
    assert all(s >= 0 for s in stage_s.values())
    # the compiled variant's first call holds its compile, which is most of it
    compile_s = result.run.variant("inductor/default").first_call_s
    assert stage_s["first call: inductor/default"] >= compile_s
    assert ProfileRun.from_dict(json.loads(json.dumps(result.run.to_dict()))).stage_s == stage_s


@pytest.mark.compiles
def test_assignments_land_once_and_the_run_round_trips(training_result):
    result, ns = training_result
    assert isinstance(ns["loss"], torch.Tensor) and ns["y"].shape == (4, 4)
    data = result.run.to_dict()
    again = ProfileRun.from_dict(data)
    assert again.to_dict() == data


@pytest.mark.compiles
def test_graph_breaks_are_reported_at_their_cell_lines():
    ns = {"torch": torch, "x": torch.randn(6)}
    body = (
        "a = x.sin()\n"  # line 2
        "print('side effect')\n"  # line 3: graph break
        "b = a.cos()\n"  # line 4
        "if b.sum().item() > 0:\n"  # line 5: graph break (data-dependent branch)
        "    b = b + 1\n"
        "c = b * 2\n"
    )
    result = run_cell(body, ns, **CHEAP)
    run = result.run
    assert result.stdout == "side effect\n", "the cell's output is shown once"
    assert sorted(b.line for b in run.graph_breaks) == [3, 5]
    by_line = {b.line: b for b in run.graph_breaks}
    assert by_line[3].code_line == "print('side effect')" and "print" in by_line[3].reason
    assert "item" in by_line[5].reason or "Tensor.item" in by_line[5].reason
    assert run.dynamo_graph_count >= 2
    assert ns["c"].shape == (6,)


@pytest.mark.compiles
def test_second_run_of_a_cell_hits_the_cache_and_still_has_kernels():
    body = "out = (w.relu() * 3).sum(dim=0)\n"
    first = run_cell(body, {"w": torch.randn(5, 7)}, quick=True).run
    second = run_cell(body, {"w": torch.randn(5, 7)}, quick=True).run
    assert second.cache.fx_graph_hits >= 1 and second.cache.fx_graph_misses == 0
    assert second.cache.state == "warm"
    assert [k.name for k in second.kernels] == [k.name for k in first.kernels]
    assert all(k.source for k in second.kernels) and any(k.language == "cpp" for k in second.kernels)


def test_eager_exception_reports_the_cell_line_and_does_not_compile():
    ns = {"torch": torch}
    result = run_cell("a = torch.ones(3)\nb = a + missing_name\n", ns, **CHEAP)
    run = result.run
    assert run.status == "failed"
    assert run.errors[0].stage == "eager" and run.errors[0].line == 3
    assert "missing_name" in run.errors[0].message
    assert not run.graphs and [v.name for v in run.variants] == ["eager"]
    # the engine commits as a failing plain cell leaves the namespace: what ran before the error stays
    assert torch.equal(ns["a"], torch.ones(3)) and "b" not in ns


@pytest.mark.compiles
def test_compile_failure_keeps_eager_results():
    ns = {"torch": torch, "x": torch.randn(4)}
    result = run_cell("y = x.sin()\nprint('break')\nz = y + 1\n", ns, fullgraph=True, **CHEAP)
    run = result.run
    compiled = run.variant(f"{CHEAP_VARIANT}/fullgraph")
    assert compiled.error and run.status == "failed"
    err = next(e for e in run.errors if e.variant == compiled.name)
    assert err.stage == "compile" and err.line == 3
    assert run.variant("eager").first_call_s is not None
    assert "z" in ns, "the eager results still land in the namespace"


@pytest.mark.compiles
def test_cell_without_torch_work_says_nothing_was_compiled():
    ns = {}
    run = run_cell("total = sum(range(10))\n", ns, backend="aot_eager").run
    assert run.status == "ok" and run.speedup is None
    assert [n.kind for n in run.notes] == ["nothing_compiled"]
    assert ns["total"] == 45


@pytest.mark.compiles
def test_mismatching_backend_is_reported_as_incorrect():
    run = run_cell("y = x * 2\n", {"x": torch.ones(3)}, backend=fault_backends.OFF_BY_ONE, kernel_timing=False).run
    assert run.correctness.ok is False and run.correctness.mismatched == ["y"]
    assert run.correctness.max_abs_diff == pytest.approx(1.0)


@pytest.mark.compiles
def test_random_cells_are_not_reported_as_mismatches():
    run = run_cell(
        "noise = torch.nn.functional.dropout(x, p=0.5, training=True)\n",
        {"torch": torch, "x": torch.ones(64)},
        kernel_timing=False,  # Inductor's draws are not eager's (aot_eager's are)
    ).run
    assert run.correctness.ok is not False
    if run.correctness.ok is None:
        assert run.correctness.note.kind == "random_ops"


@pytest.mark.compiles
def test_recompiles_in_the_warm_up_are_waited_out_so_no_timed_sample_holds_a_compile():
    import itertools

    sizes = itertools.cycle([3, 4, 5, 6, 7])
    ns = {"torch": torch, "next_size": lambda: next(sizes)}
    run = run_cell("n = next_size()\nv = torch.ones(n).cumsum(0)\n", ns, dynamic=False, **CHEAP).run
    assert len(run.recompiles) == 4, "sizes 4 to 7, each once; the cycle then finds its entries"
    assert not any(r.during_timing for r in run.recompiles)
    assert not any(v.recompiled_during_timing for v in run.compiled_variants)
    assert any(n.kind == "warmup_kept_compiling" and n.values["extra_calls"] > 0 for n in run.notes), run.notes


@pytest.mark.compiles
def test_a_variant_still_compiling_when_the_warm_up_gives_up_is_flagged_in_its_samples(monkeypatch):
    import itertools

    from compile_profile.engine.timing import interleaved as timing

    monkeypatch.setattr(timing, "SETTLE_S", 0.0)  # no settling calls: the samples meet the recompiles
    sizes = itertools.cycle([3, 4, 5, 6, 7])
    ns = {"torch": torch, "next_size": lambda: next(sizes)}
    run = run_cell("n = next_size()\nv = torch.ones(n).cumsum(0)\n", ns, dynamic=False, **CHEAP).run
    assert run.recompiles, "a new size under dynamic=False must recompile"
    assert any(r.during_timing for r in run.recompiles)
    assert all(v.recompiled_during_timing for v in run.compiled_variants)
    assert "[recompiled while timed]" in str(run)


@pytest.mark.compiles
def test_interrupt_keeps_partial_results_and_marks_the_run():
    calls = {"n": 0}

    def tick():
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt

    ns = {"torch": torch, "tick": tick, "x": torch.ones(4)}
    result = run_cell("tick()\ny = x.exp()\n", ns, **CHEAP)
    run = result.run
    assert result.interrupted is not None and run.status == "interrupted"
    assert run.variant("eager").first_call_s is not None
    assert any(e.type == "KeyboardInterrupt" for e in run.errors)


@pytest.mark.compiles
def test_torch_state_is_restored_after_a_profile_even_on_error():
    import torch._inductor.config as inductor_config

    trace_log = logging.getLogger("torch.__trace")
    handlers, level = list(trace_log.handlers), trace_log.level
    config = inductor_config.get_config_copy()
    run_cell("y = x.sin()\nraise ValueError('boom')\n", {"x": torch.ones(2)}, **CHEAP)
    run_cell("y = x.sin()\nprint('b')\nz = y.cos()\n", {"x": torch.ones(2)}, fullgraph=True, **CHEAP)
    assert trace_log.handlers == handlers and trace_log.level == level
    assert inductor_config.get_config_copy() == config, "the provenance patch (where torch has one) is undone"


@pytest.mark.compiles
def test_profile_leaves_no_dynamo_cache_entries_behind():
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    class Breaky(torch.nn.Module):
        def forward(self, x):
            x = x.sin()
            print("break inside forward")
            return x.cos()

    ns = {"m": Breaky(), "x": torch.ones(3)}
    for _ in range(3):
        run_cell("y = m(x)\n", ns, **CHEAP)
    assert _debug_get_cache_entry_list(Breaky.forward.__code__) == []


def _scaled_softplus(a, scale):
    b = a * scale
    return torch.nn.functional.softplus(b).sum()


@pytest.mark.compiles
def test_pure_python_api_profiles_a_function_without_ipython(capsys):
    import compile_profile

    x = torch.randn(32)
    run = compile_profile.profile(_scaled_softplus, x, 3.0, **FAST)
    assert isinstance(run, ProfileRun) and run.status == "ok", run.errors
    assert run.variant("eager").timing and run.variant("inductor/default").timing
    assert run.correctness.ok is True and run.correctness.compared == ["<result>"]
    assert run.cell_source.startswith("def _scaled_softplus")
    # lines are counted from the function's first line, as they would be in a cell
    assert any(k.language == "cpp" and set(k.lines) <= {2, 3} and k.lines for k in run.kernels)
    assert capsys.readouterr().out == "", "the profile itself prints nothing"


@pytest.mark.compiles
def test_a_quick_profile_times_and_compiles_but_runs_no_profiler_pass_and_no_float64_reference():
    import compile_profile
    from compile_profile.digest import run_digest
    from compile_profile.render.text import render_text

    x = torch.randn(32)
    run = compile_profile.profile(_scaled_softplus, x, 3.0, quick=True, **FAST)
    assert run.status == "ok", run.errors
    assert run.speedup is not None and run.variant("inductor/default").compile_s
    assert run.kernels and run.graphs  # the compile facts stay
    assert all(v.kernel_profile is None for v in run.variants)
    assert all(k.device_time_ms is None for k in run.kernels)
    # outputs compared with eager only, and the correctness sentence says so
    assert run.correctness.ok is True and run.correctness.method == "tolerance"  # no reference run
    assert run.correctness.note is not None and run.correctness.note.kind == "reference_quick"
    assert "no float64 reference (--quick): compared with eager only" in run_digest(run)["correctness"]["text"]
    assert "float64 reference" not in run.stage_s
    assert not [name for name in run.stage_s if name.startswith("kernel pass: ")]
    assert "a --quick profile: no kernel profiler pass" in render_text(run)


@pytest.mark.compiles
def test_pure_python_api_takes_mode_as_a_string():
    import compile_profile

    run = compile_profile.profile(_scaled_softplus, torch.randn(8), 2.0, mode="default", quick=True, **FAST)
    assert [v.name for v in run.variants] == ["eager", "inductor/default"]


@pytest.mark.compiles
def test_progress_follows_the_profile_through_its_stages():
    import compile_profile

    torch._dynamo.reset()  # so Dynamo traces again, whatever Inductor's cache holds
    said: list[str] = []
    # every stage but the memory one (CUDA's) says so: no --quick, any backend
    compile_profile.profile(_scaled_softplus, torch.randn(16), 1.5, progress=said.append, backend="aot_eager", **FAST)
    stages = [
        "stage 1 of 7: eager: first run",
        "stage 2 of 7: aot_eager: compiling",
        "stage 2 of 7: aot_eager: Dynamo: tracing bytecode",
        "stage 2 of 7: aot_eager: backend compile",
        "stage 3 of 7: warming up",
        "stage 4 of 7: checking correctness",
        "stage 6 of 7: profiling kernels",
    ]
    positions = [said.index(s) for s in stages]
    assert positions == sorted(positions), said
    timing = next(i for i, s in enumerate(said) if s.startswith("stage 3 of 7: timing 2 variants"))
    assert positions[-3] < timing < positions[-2], said


def test_autotuning_spans_name_the_op_in_the_progress_line():
    # Inductor's begin events of max-autotune, as torch 2.11 logs them on a GPU (Dynamo's chromium
    # event logger); the GPU tests parse the end events of the same spans.
    from compile_profile.engine.run.stages import phase_text
    from compile_profile.engine.trace.capture import TraceEvent

    def begin(name: str, ph: str = "B") -> TraceEvent:
        event = {
            "name": name,
            "ts": 1795965554099722.2,
            "args": {"compile_id": "0/0"},
            "ph": ph,
            "cat": "dynamo_timed",
            "tid": 0,
            "pid": 0,
        }
        return TraceEvent("chromium_event", {}, json.dumps(event, indent=0), 0, 0, 0, 0.0)

    assert phase_text(begin("mm_template_autotuning")) == "max-autotune: benchmarking mm candidates"
    assert phase_text(begin("addmm_template_precompiling")) == "max-autotune: compiling addmm candidates"
    assert phase_text(begin("mm_template_autotuning", ph="E")) is None, "only a span's start moves the line"
    assert phase_text(begin("compile_fx_inner")) == "Inductor: lowering"
    assert phase_text(begin("some_other_span")) is None


SHIFTING_MODULE = """
import torch


def shifting(a):
    b = a.cos() * 2
    return torch.relu(b).sum()
"""


@pytest.mark.compiles
def test_kernel_lines_follow_the_code_when_a_cache_hit_carries_old_line_numbers(tmp_path):
    # Inductor's caches keep the source locations of the compile that filled them. Move the function
    # down its file, and a cache hit still names the old lines: the code text of each frame decides.
    import importlib.util

    import compile_profile

    path = tmp_path / "shifting_module.py"

    def load(source: str, name: str):
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.shifting

    x = torch.randn(24)
    first = compile_profile.profile(load(SHIFTING_MODULE, "shifting_a"), x, quick=True, **FAST)
    torch._dynamo.reset()
    moved = load("# three lines\n# above it\n# now\n" + SHIFTING_MODULE, "shifting_b")
    second = compile_profile.profile(moved, x, quick=True, **FAST)
    assert second.cache.fx_graph_hits + second.cache.aot_autograd_hits >= 1, "the second compile is a cache hit"
    for run in (first, second):
        kernel_lines = {line for k in run.kernels if k.language == "cpp" for line in k.lines}
        assert kernel_lines and kernel_lines <= {2, 3}, (kernel_lines, run.cell_source)


@pytest.mark.compiles
def test_a_cell_that_calls_compiled_code_is_told_its_eager_variant_is_not_eager():
    layer = torch.nn.Linear(8, 8)
    ns = {"torch": torch, "layer": layer, "inp": torch.randn(4, 8)}
    result = run_cell("wrapped = torch.compile(layer, backend='aot_eager')\nout = wrapped(inp)\n", ns, **CHEAP)
    assert any(n.kind == "already_compiled" and n.values["names"] == ["wrapped"] for n in result.run.notes), (
        result.run.notes
    )
    plain = run_cell("out = layer(inp)\n", ns, **CHEAP)
    assert not any(n.kind == "already_compiled" for n in plain.run.notes)


def test_the_run_is_on_the_device_of_the_tensors_the_cell_used():
    # On a GPU machine where CUDA is already in use, a cell of CPU tensors is still a CPU run:
    # host timers, no CUDA memory figures (seen on the H200, where it was reported as a CUDA run).
    from compile_profile.engine.cell.reachable_tensors import device_types
    from compile_profile.engine.common.device import run_device_type

    module = torch.nn.Linear(2, 2).to("meta")
    assert device_types([torch.ones(1), {"m": module}, [3, "text"]]) == {"cpu", "meta"}
    assert run_device_type({"cpu"}, fallback="cuda") == "cpu"
    assert run_device_type({"cpu", "cuda"}, fallback="cpu") == "cuda"
    assert run_device_type(set(), fallback="cuda") == "cuda", "no tensors: where torch was working"


@pytest.mark.compiles
def test_a_keyword_meant_for_the_model_is_refused_with_how_to_pass_it_and_the_lambda_that_does_works():
    import compile_profile

    lin = torch.nn.Linear(4, 4)
    x = torch.randn(2, 4)
    with pytest.raises(TypeError, match=r"'input'.*no profile option.*profile\(lambda: fn\(input=\.\.\.\)\)"):
        compile_profile.profile(lin, input=x)
    run = compile_profile.profile(lambda: lin(input=x), **CHEAP)
    assert run.status == "ok" and run.speedup is not None and run.correctness.ok is True


def test_the_fastest_variant_is_the_one_with_the_lowest_median_the_speedup_uses():
    from compile_profile.engine.timing.interleaved import TimedCallable, fastest
    from compile_profile.stats import ratio_interval

    # medians 2.5 and 2.6; the upper-middle samples (the rule before) 3.0 and 2.7 picked the other one
    a = TimedCallable(name="a", call=lambda: None, samples_s=[1.0, 2.0, 3.0, 4.0])
    b = TimedCallable(name="b", call=lambda: None, samples_s=[2.4, 2.5, 2.7, 2.8])
    assert fastest([a, b]) is a
    eager = [5.0, 5.0, 5.0, 5.0]
    assert ratio_interval(eager, a.samples_s)[0] > ratio_interval(eager, b.samples_s)[0]


def test_the_time_left_in_timing_is_the_rounds_to_come_at_the_rounds_pace_until_the_loop_would_stop():
    from compile_profile.engine.timing.interleaved import TimingPlan, timing_left_s

    plan = TimingPlan(repeat=100, min_samples=5, budget_s=3.0)
    assert timing_left_s(0, 0.0, plan) is None, "no round ended: nothing honest to say"
    assert timing_left_s(10, 1.0, plan) == pytest.approx(2.0), "the budget ends it before 100 samples"
    assert timing_left_s(90, 1.0, plan) == pytest.approx(10 / 90), "100 samples end it before the budget"
    # slow rounds: past the budget, the loop still takes min_samples
    assert timing_left_s(2, 4.0, plan) == pytest.approx(6.0)
    assert timing_left_s(5, 4.0, plan) == 0.0
