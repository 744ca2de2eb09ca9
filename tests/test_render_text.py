"""render_text: the digest's headline first, the %timeit-like timing line second, then what compiling did."""

from __future__ import annotations

import json
import math
import re

import pytest
from compile_profile.digest import headline
from compile_profile.profile_run import GraphBreak, Timing, Variant
from compile_profile.render.text import render_text
from render_fixtures import ALL_RUNS, big_run, cpu_run, cuda_run, failed_run, interrupted_run

_UNIT_MS = {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1000.0}
_SEGMENT = re.compile(
    r"(?P<name>\S+) (?P<median>[\d.]+) (?P<mu>\S+) \(p10 (?P<p10>[\d.]+) (?P<pu>\S+) / "
    r"p90 (?P<p90>[\d.]+) (?P<qu>\S+), n=(?P<n>\d+)\)"
)


def _ms(value: str, unit: str) -> float:
    return float(value) * _UNIT_MS[unit]


def _parse_first_line(line: str) -> dict[str, tuple[float, float, float, int]]:
    out = {}
    for segment in line.split(" | "):
        m = _SEGMENT.match(segment)
        if m:
            out[m["name"]] = (_ms(m["median"], m["mu"]), _ms(m["p10"], m["pu"]), _ms(m["p90"], m["qu"]), int(m["n"]))
    return out


@pytest.mark.parametrize("make", list(ALL_RUNS.values()))
def test_first_line_is_the_cards_headline(make):
    run = make()
    assert render_text(run).splitlines()[0] == headline(run)


@pytest.mark.parametrize("make", [cuda_run, cpu_run])
def test_second_line_gives_each_variant_median_spread_and_n(make):
    run = make()
    parsed = _parse_first_line(render_text(run).splitlines()[1])
    assert set(parsed) == {v.name for v in run.variants}
    for v in run.variants:
        median, p10, p90, n = parsed[v.name]
        # Three significant figures are printed.
        assert math.isclose(median, v.timing.median_ms, rel_tol=5e-3)
        assert math.isclose(p10, v.timing.p10_ms, rel_tol=5e-3)
        assert math.isclose(p90, v.timing.p90_ms, rel_tol=5e-3)
        assert n == v.timing.n


def test_timing_line_ends_with_speedup_and_its_interval():
    first = render_text(cuda_run()).splitlines()[1]
    assert first.endswith("speedup (inductor/max-autotune) 2.71× faster [2.60×–2.83×] 95% CI")
    assert "inductor/max-autotune 1.53 ms" in first and "[recompiled while timed]" in first


def test_interval_including_one_says_no_measurable_difference():
    run = cpu_run()
    run.correctness.ok, run.correctness.mismatched = True, []
    first = render_text(run).splitlines()[1]
    assert first.endswith("speedup 1.05× slower [0.97×–1.14×] 95% CI: no measurable difference")


def test_the_timing_line_marks_a_speedup_beneath_results_that_differ_not_meaningful():
    text = render_text(cpu_run())  # its compiled y differs from eager
    assert text.startswith("results differ: compiled differs from eager in y (max abs diff 0.031); ")
    assert text.splitlines()[1].endswith(
        "speedup 1.05× slower [0.97×–1.14×] 95% CI: no measurable difference; not meaningful: compiled results differ"
    )


def test_units_follow_the_magnitude():
    run = cpu_run()
    run.variants[1].timing = Timing(median_ms=0.0421, p10_ms=0.0398, p90_ms=1.2, n=7)
    first = render_text(run).splitlines()[1]
    assert "inductor/default 42.1 µs (p10 39.8 µs / p90 1.2 ms, n=7)" in first


def test_compile_time_names_the_cache_state_and_a_variant_state_wins():
    run = cuda_run()
    run.variants[2].cache_state = "warm"
    lines = render_text(run).splitlines()
    assert "compile inductor/default: 12.3 s (cold cache); first call 12.9 s" in lines
    assert "compile inductor/max-autotune: 40.2 s (warm cache); first call 41 s" in lines
    assert "compile cache: FX graph 0 hits, 2 missed" in lines
    run.cache.aot_autograd_hits = 1
    assert "compile cache: FX graph 0 hits, 2 missed; AOTAutograd 1 hit, 0 missed" in render_text(run).splitlines()


def test_the_compile_timeline_says_how_much_of_the_first_call_compiling_took():
    lines = render_text(cuda_run()).splitlines()
    assert "compile timeline: first call 12.9 s: 12.1 s of it (94%) compiling 2 frames (0/0 10 s, 1/0 2.1 s)" in lines


def test_graph_breaks_give_cell_line_code_and_one_line_reason():
    text = render_text(cuda_run())
    assert "graphs: 2 Dynamo graphs, 1 graph break, 1 recompile" in text
    lines = text.splitlines()
    i = lines.index("  graph break at cell line 5 (print(y.sum()))")
    # Of Dynamo's many-line reason, the one line shown is its explanation, cut at 160 characters.
    assert lines[i + 1] == (
        "    reason: Dynamo does not know how to trace builtin operator `print` with argument types ['Tensor'] (has_kwargs False)"
    )
    assert (
        "  recompile (inductor/max-autotune) [during timing]: x (cell line 2) changed dim 0: 1024 → 2048; "
        "fix: compile with dynamic=True, or torch._dynamo.mark_dynamic(x, 0) on each new x before the compiled code reads it; Dynamo: tensor 'L['x']' size mismatch"
    ) in text


@pytest.mark.parametrize(
    ("reason", "shown"),
    [
        (
            "Encountered graph break when attempting to trace CALL: a function call:\n\nUnsupported context manager\n"
            "  Hint: remove it",
            "Unsupported context manager",
        ),
        (
            "call_function BuiltinVariable(open) [ConstantVariable(str)] {}",
            "call_function BuiltinVariable(open) [ConstantVariable(str)] {}",
        ),
        (
            "data dependent operator: aten._local_scalar_dense.default\nsee more",
            "data dependent operator: aten._local_scalar_dense.default",
        ),
        ("x" * 300, "x" * 159 + "…"),
    ],
)
def test_break_reason_line_picks_the_telling_line(reason, shown):
    run = cpu_run()
    run.graph_breaks = [GraphBreak(reason=reason, line=2)]
    assert f"    reason: {shown}" in render_text(run).splitlines()


def test_graph_break_without_code_line_reads_it_from_the_cell():
    run = cpu_run()
    run.graph_breaks = [GraphBreak(reason="call_function UserDefinedObjectVariable", line=6)]
    assert "  graph break at cell line 6 (z = (y * 2).softmax(-1))" in render_text(run)


def test_long_lists_are_cut_and_counted():
    run = cpu_run()
    run.graph_breaks = [GraphBreak(reason=f"reason {i}", line=1) for i in range(25)]
    text = render_text(run)
    assert text.count("  graph break at cell line 1") == 10
    assert "  … and 15 more graph breaks" in text


def test_memory_on_cpu_is_the_note_never_a_number():
    run = cpu_run()
    text = render_text(run)
    assert "peak memory: not measured on CPU (peak memory is read from the CUDA allocator)" in text.splitlines()
    assert not re.search(r"\d (B|KiB|MiB|GiB)\b", text)


def test_memory_on_cuda_per_variant():
    assert (
        "peak memory: eager 24.0 MiB | inductor/default 16.0 MiB | inductor/max-autotune 18.0 MiB"
        in render_text(cuda_run()).splitlines()
    )


def test_correctness_kernels_and_recommendation_lines():
    cuda = render_text(cuda_run()).splitlines()
    assert "correctness: ok: compiled results match eager within dtype tolerance (max abs diff 1.9e-06)" in cuda
    assert "max rel diff" not in " ".join(cuda), "a relative difference only beside a mismatch"
    assert "kernels: 2 generated kernels (triton), 1 library call" in cuda
    assert cuda[-2] == (
        'recommendation (--sweep): torch.compile(fn, mode="max-autotune") — inductor/max-autotune, the fastest '
        "compiled variant (2.71× faster [2.60×–2.83×] than eager)"
    )
    cpu = render_text(cpu_run()).splitlines()
    assert (
        "correctness: MISMATCH: compiled results differ from eager in y (max abs diff 0.031); judged by dtype "
        "tolerance only; max rel diff 0.002"
    ) in cpu
    assert "kernels: 1 generated kernel (cpp), 1 library call" in cpu


def test_failed_run_says_where_it_failed():
    lines = render_text(failed_run()).splitlines()
    assert lines[0] == headline(failed_run())
    assert lines[1].endswith("| inductor/default failed")
    assert (
        "error [compile, inductor/default, cell line 4]: InductorError: LoweringException: NotImplementedError: aten.weird…"
        in lines
    )
    assert "status: failed" in lines
    # The variant's own error string is not repeated when an ErrorInfo already reports it.
    assert sum("error [" in line for line in lines) == 1


def test_interrupted_run_is_marked_partial():
    lines = render_text(interrupted_run()).splitlines()
    assert lines[1].endswith("| inductor/default not timed")
    # what an interrupted run holds, not a promise of "partial results" (issue 23): the eager run was timed
    assert "status: interrupted (interrupted: what was measured before it is shown (timed: eager))" in lines
    assert "error [timing, inductor/default]: KeyboardInterrupt" in lines


def test_untimed_runs_still_say_what_happened():
    run = failed_run()
    run.variants = [Variant(name="eager", error="NameError: name 'device' is not defined")]
    run.errors = []
    lines = render_text(run).splitlines()
    assert lines[:2] == ["eager run failed: NameError: name 'device' is not defined", "eager failed"]
    assert "error [eager]: NameError: name 'device' is not defined" in lines
    # Without any variant there is no timing line: the headline alone opens the text.
    run.variants = []
    assert render_text(run).splitlines()[:2] == [
        "profile failed",
        "graphs: 0 Dynamo graphs, 0 graph breaks, 0 recompiles",
    ]


def test_repr_is_the_text_view():
    for make in ALL_RUNS.values():
        run = make()
        assert str(run) == render_text(run)


def test_thousand_kernels_keep_the_text_short():
    run = big_run(1000)
    text = render_text(run)
    assert "kernels: 750 generated kernels (triton), 250 library calls" in text
    assert len(text) < 5000  # the guards, device peaks and autotune lines are bounded on their own
    assert run.kernels[0].name not in text


def test_noisy_timings_and_overhead_bound_calls_are_called_out():
    import dataclasses

    from compile_profile.digest.summary import warnings
    from compile_profile.profile_run import KernelProfile, Speedup, Timing, Variant

    run = cpu_run()
    steady = Timing(median_ms=1.0, p10_ms=0.95, p90_ms=1.1, n=20)
    noisy = Timing(median_ms=14.6, p10_ms=0.306, p90_ms=15.9, n=8)
    run.variants = [
        Variant(name="eager", timing=noisy),
        Variant(
            name="inductor/default",
            backend="inductor",
            mode="default",
            timing=steady,
            kernel_profile=KernelProfile(calls=10, total_ms=0.1, attributed_ms=0.1, method="host"),
        ),
    ]
    run.speedup = Speedup(value=14.6, low=10.0, high=20.0, variant="inductor/default")
    found = warnings(run)
    (noise,) = [w for w in found if w.startswith("timings are unreliable: ")]
    assert "eager's samples spread from 306 µs (p10) to 15.9 ms (p90)" in noise
    assert "inductor/default's samples" not in noise and noise.endswith("re-run, or time for longer (--budget 10)")
    assert any("kernels take 100 µs of each 1 ms call (10%)" in w for w in found)
    text = render_text(run)
    assert "warning: timings are unreliable: eager's samples spread" in text
    # a steady, kernel-bound run says neither
    run.variants[0] = dataclasses.replace(run.variants[0], timing=steady)
    run.variants[1].kernel_profile.total_ms = 0.9
    assert not [w for w in warnings(run) if "samples spread" in w or "kernels take" in w]


def test_a_speedup_without_an_interval_says_so_fresh_and_read_back():
    from compile_profile.profile_run import ProfileRun
    from compile_profile.render.html import render_html

    run = cpu_run()
    run.speedup.low = run.speedup.high = float("nan")  # fewer than 3 samples a variant: no bootstrap
    read_back = ProfileRun.from_json(run.to_json())
    assert read_back.speedup.low is None, "JSON has no NaN"
    for r in (run, read_back):
        text = render_text(r)
        assert "too few samples for an interval" in text and "nan" not in text.lower()
        assert "no measurable difference" not in text
        assert "too few samples for an interval" in render_html(r)
        assert "includes 1×" not in json.dumps(r.summary(), ensure_ascii=False)


def test_a_run_whose_stages_all_took_too_little_to_list_still_renders():
    # an interrupt in the first eager run left stage times under the table's threshold: the text view raised
    # TypeError (max() of one int) and the magic turned the user's Ctrl-C into it (a fresh-clone CI check)
    from compile_profile.render.text import text_table

    assert text_table(["stage", "time"], []) == "stage  time"
    run = cpu_run()
    run.stage_s = {"eager first call": 0.001}
    text = render_text(run)
    assert "The profile took" in text and "stage  time" not in text


def test_a_wide_interval_of_a_slower_run_is_worded_as_the_headline_words_the_speedup():
    from compile_profile.digest.noise import noise_text
    from compile_profile.digest.summary import headline
    from compile_profile.profile_run import Speedup

    run = cpu_run()
    run.speedup = Speedup(value=0.535, low=0.50, high=0.58, variant="inductor/default")
    noise = noise_text(run)
    assert "1.87× slower" in headline(run)
    assert "the speedup's 95% interval [1.72×–2.00×] (1.87× slower) spans 15% of it" in noise
    assert "0.50×" not in noise and "0.58×" not in noise
    run.speedup = Speedup(value=4.0, low=3.5, high=4.5, variant="inductor/default")
    assert "the speedup's 95% interval [3.50×–4.50×] (4.00× faster) spans 25% of it" in noise_text(run)
    # a slowdown whose interval reaches 0× (a sample that took no time) has no width: said, not divided by zero
    run.speedup = Speedup(value=0.5, low=0.0, high=0.9, variant="inductor/default")
    assert "reaches 0×: it bounds nothing" in noise_text(run)


def test_a_speedup_that_moved_while_timing_is_worded_as_the_headline_words_it():
    from compile_profile.digest.noise import noise_text
    from render_fixtures import drifting_run

    noise = noise_text(drifting_run(eager_late=5.9, compiled_late=9.0))  # compiled fell behind eager
    assert "so the speedup went 1.96× faster → 1.53× slower" in noise, noise
