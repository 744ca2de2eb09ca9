"""Whether a profiler pass can be read as the timed call's (``digest.kernel_times``), and what every view
draws where it cannot: the tolerance rule on fixed figures, and the views of a withheld pass."""

from __future__ import annotations

import json

import pytest
from compile_profile.digest import summarize
from compile_profile.digest.breakdown import breakdown, verdict
from compile_profile.digest.kernel_times import (
    AGREEMENT,
    SPREAD_Z,
    KernelCells,
    kernel_cells,
    pass_judgment,
    timer_spread_ms,
    tolerance_ms,
    withheld,
)
from compile_profile.digest.lines import line_times
from compile_profile.digest.measured import roofline_rows
from compile_profile.digest.summary import run_digest
from compile_profile.profile_run import (
    CallBreakdown,
    Device,
    EagerLineTime,
    Kernel,
    KernelProfile,
    ProfileRun,
    Speedup,
    Timing,
    Variant,
)
from compile_profile.render.charts import breakdown_figure, kernels_figure, lines_figure
from compile_profile.render.html import render_html
from compile_profile.render.report import render_report_html
from compile_profile.render.text import render_text
from compile_profile.render.widget import RunExplorer
from render_fixtures import sampled_timing


def profile(method: str, *, library=0.0, generated=0.0, aten=0.0, calls=10, preempted=0, waited=None, lines=None):
    b = CallBreakdown(library_ms=library, generated_ms=generated, aten_ms=aten, copy_ms=0.0)
    return KernelProfile(
        calls=calls,
        total_ms=b.kernels_ms,
        attributed_ms=b.kernels_ms,
        method=method,
        breakdown=b,
        eager_lines=list(lines or []),
        preempted_calls=preempted,
        waited_ms=waited,
    )


# -- the tolerance rule --------------------------------------------------------------------------------


def test_the_tolerance_is_three_robust_standard_deviations_of_the_timed_samples_where_wider_than_the_floor():
    t = sampled_timing([1.0, 1.1, 1.2, 1.3, 1.4])  # median 1.2, median absolute deviation 0.1
    assert timer_spread_ms(t) == pytest.approx(1.4826 * 0.1)
    assert tolerance_ms(t, "host") == pytest.approx(SPREAD_Z * 1.4826 * 0.1)  # 0.445 ms over 0.3 x 1.2 = 0.36
    steady = sampled_timing([1.199, 1.2, 1.2, 1.2, 1.201])
    assert tolerance_ms(steady, "host") == pytest.approx(AGREEMENT["host"] * 1.2)  # the floor
    assert tolerance_ms(steady, "cupti") == pytest.approx(AGREEMENT["cupti"] * 1.2)


def test_a_few_stalled_samples_do_not_widen_the_tolerance():
    # 72.9 µs calls, a fifth of the samples stalled by a busy machine: p90 reads 15 ms, the median's noise does not
    t = sampled_timing([0.0729 + 0.0002 * (i % 5) for i in range(20)] + [15.0] * 5)
    assert t.p90_ms == 15.0
    assert tolerance_ms(t, "host") < 0.03  # 0.3 x 72.9 µs, not the stalled samples' 15 ms


def test_a_run_stored_without_samples_takes_the_spread_from_p10_and_p90():
    t = Timing(median_ms=10.0, p10_ms=9.0, p90_ms=13.0, n=50)
    assert timer_spread_ms(t) == pytest.approx(4.0 / 2.563)
    assert tolerance_ms(t, "cupti") == pytest.approx(SPREAD_Z * 4.0 / 2.563)


def h200_attention() -> ProfileRun:
    """Issue 20's H200 case: hand-written attention, eager's profiled kernels 2.23 ms against a 2.22 ms
    timed call (0.5 % over), compiled 3.06x faster."""
    eager = Variant(
        name="eager",
        timing=sampled_timing([2.22 + 0.0004 * (i % 5 - 2) for i in range(100)], "cuda_events"),
        kernel_profile=profile("cupti", library=1.02, aten=1.21),
    )
    compiled = Variant(
        name="inductor/default",
        backend="inductor",
        mode="default",
        timing=sampled_timing([0.7255 + 0.0002 * (i % 5 - 2) for i in range(100)], "cuda_events"),
        kernel_profile=profile("cupti", library=0.51, generated=0.205),
    )
    return ProfileRun(
        id="h200attn0001",
        created_at="2026-12-02T10:00:00+00:00",
        label="",
        cell_source="s = (q @ k.transpose(-2, -1)) / 8.0\no = torch.softmax(s.float(), -1).to(q.dtype) @ v\n",
        device=Device(type="cuda", name="NVIDIA H200"),
        torch_version="2.11.0",
        variants=[eager, compiled],
        speedup=Speedup(value=3.06, low=3.05, high=3.07, variant="inductor/default"),
    )


def test_a_gpu_bound_call_whose_kernels_read_half_a_percent_over_it_keeps_its_breakdown_and_verdict():
    run = h200_attention()
    judged = pass_judgment(run.eager)
    assert judged.trusted and judged.kernels_ms == pytest.approx(2.23) and judged.call_ms == pytest.approx(2.22)
    assert judged.tolerance_ms == pytest.approx(0.05 * 2.22)  # the samples' spread is far below the floor
    rows = {r.variant: r for r in breakdown(run)}
    assert rows["eager"].trusted and rows["eager"].clamped and rows["eager"].outside_ms == 0.0
    said = verdict(run)
    assert said.startswith("compiled is faster: its kernels take 715 µs (eager 2.23 ms)"), said
    assert "cannot say where" not in said
    assert not withheld(run) and all(j["trusted"] for j in summarize(run)["kernel_times"].values())


def test_kernels_beyond_the_timers_noise_withhold_the_pass_and_the_verdict():
    run = h200_attention()
    run.eager.kernel_profile.breakdown.aten_ms += 0.2  # 2.43 ms against 2.22 ± 0.111: beyond
    judged = pass_judgment(run.eager)
    assert not judged.trusted and not judged.preempted
    # as a multiple of the timed call: a withheld pass's kernel time is shown nowhere as a time
    assert "its kernels read 1.09× the timed call, beyond the timer's noise (1.05×)" in judged.text
    assert "2.43" not in judged.text
    said = verdict(run)
    assert (
        said == "compiled is faster, but the profiler pass cannot say where (eager's kernels read 1.09× its timed call)"
    )


def test_a_pass_whose_every_call_was_preempted_is_withheld_and_one_with_calls_left_is_not():
    v = Variant(name="eager", timing=sampled_timing([1.0] * 9), kernel_profile=profile("host", aten=0.9, calls=6))
    v.kernel_profile.preempted_calls, v.kernel_profile.waited_ms = 6, 12.5
    judged = pass_judgment(v)
    assert not judged.trusted and judged.preempted
    assert "waited for a CPU in every one of its 6 calls (12.5 ms in the median call)" in judged.text
    v.kernel_profile.preempted_calls = 3  # the figures come from the other 3
    assert pass_judgment(v).trusted


# -- the views of a withheld pass ------------------------------------------------------------------------


def busy_cpu_run() -> ProfileRun:
    """Issue 20's busy-CPU case: a kernel at 1.17 ms a call (96.6 %) in a call timed at 72.9 µs."""
    eager = Variant(
        name="eager",
        timing=sampled_timing([0.0912 + 0.0003 * (i % 7) for i in range(40)]),
        kernel_profile=profile(
            "host",
            aten=0.0801,
            lines=[EagerLineTime(line=1, time_ms=0.05, ops=["aten::mul"]), EagerLineTime(line=2, time_ms=0.0301)],
        ),
    )
    compiled = Variant(
        name="inductor/default",
        backend="inductor",
        mode="default",
        timing=sampled_timing([0.0729 + 0.0002 * (i % 7) for i in range(40)]),
        kernel_profile=profile("host", library=0.0412, generated=1.17, preempted=0),
    )
    kernels = [
        Kernel(
            name="cpp_fused_add_mul_0",
            language="cpp",
            source="// kernel",
            graph_id="g0",
            lines=[1],
            variant="inductor/default",
            id="g0/cpp_fused_add_mul_0",
            device_time_ms=1.17,
            share=0.966,
            achieved_gbps=0.0327,
            bytes=38,
        ),
        Kernel(
            name="extern_kernels.mm",
            language="extern",
            source="extern_kernels.mm(a, b, out=buf0)",
            graph_id="g0",
            lines=[2],
            variant="inductor/default",
            id="g0/extern_kernels.mm:1",
            device_time_ms=0.0412,
            share=0.034,
            achieved_tflops=0.0000327,
            flops=1347,
        ),
    ]
    return ProfileRun(
        id="busycpu00001",
        created_at="2026-12-02T11:00:00+00:00",
        label="",
        cell_source="y = x * 2 + 1\nz = y @ w\n",
        device=Device(type="cpu", name="x86_64"),
        torch_version="2.13.0",
        variants=[eager, compiled],
        speedup=Speedup(value=1.25, low=1.2, high=1.3, variant="inductor/default"),
        kernels=kernels,
    )


# the kernel's and the extern call's time per call, and the pass's kernels per call: no view shows a withheld
# pass's figure as a time, its reason included (it says the kernels read 16.48× the timed call)
ABSOLUTE = ("1.17 ms", "41.2 µs", "1.21 ms")


def test_a_withheld_pass_is_judged_once_in_the_digest_and_said_in_its_warnings():
    run = busy_cpu_run()
    judged = pass_judgment(run.variant("inductor/default"))
    assert not judged.trusted and judged.kernels_ms == pytest.approx(1.2112)
    digest = summarize(run)
    assert digest["kernel_times"]["inductor/default"]["trusted"] is False
    assert digest["kernel_times"]["eager"]["trusted"] is True
    assert judged.text in digest["warnings"]
    assert digest["verdict"].startswith("compiled is faster, but the profiler pass cannot say where")
    row = next(r for r in digest["breakdown"] if r["variant"] == "inductor/default")
    assert row["trusted"] is False and row["texts"]["outside"] == "—" and row["texts"]["call"] == "73.5 µs"
    assert row["texts"]["generated"] == "97% of pass" and row["texts"]["library"] == "3% of pass"


def test_a_withheld_pass_shows_shares_in_every_view_and_no_time_that_contradicts_the_headline():
    run = busy_cpu_run()
    note = withheld(run)["inductor/default"].text
    views = {
        "text": render_text(run),
        "html": render_html(run),
        "report": render_report_html(run),
    }
    views["digest"] = json.dumps(summarize(run), ensure_ascii=False)  # card, panel: warnings, verdict, heading
    for name, shown in views.items():
        for figure in ABSOLUTE:
            assert figure not in shown, (name, figure)
        assert "97% of pass" in shown, name  # the kernel's and its line's share
        assert note in shown or note.replace("'", "&#x27;") in shown, name  # said in place
    # the widget's kernel picker and its Kernels tab
    explorer = RunExplorer(run)
    labels = [label for label, _ in explorer.kernel_picker.options]
    assert labels[0].endswith("· 97% of pass") and not any(f in label for label in labels for f in ABSOLUTE)
    # lines: shares, no time, and the eager column untouched
    lt = line_times(run)
    assert lt.withheld == {"inductor/default": note}
    first = next(r for r in lt.rows if r.line == 1)
    assert first.time_ms["inductor/default"] is None and first.time_text("inductor/default") == "97% of pass"
    assert first.time_text("eager") == "50 µs"
    assert run_digest(run)["lines"]["rows"][0]["texts"]["inductor/default"] == "97% of pass"
    # the roofline has no rate for a withheld pass
    assert roofline_rows(run) == []
    # charts: the kernel bars are shares, the lines chart leaves the variant out, the breakdown draws the call alone
    kf = kernels_figure(run)
    assert kf["data"][0]["x"] == pytest.approx([3.4, 96.6]) and "%" in kf["layout"]["xaxis"]["title"]["text"]
    lf = lines_figure(run)
    assert [t["name"] for t in lf["data"]] == ["eager"] and lf["layout"]["annotations"]
    bf = breakdown_figure(run)
    parts = {t["meta"]["part"]: t["x"] for t in bf["data"]}
    assert parts["withheld"] == [pytest.approx(0.0735), 0.0]  # rows drawn bottom-up: compiled first
    assert all(x[0] == 0.0 for part, x in parts.items() if part != "withheld")
    for fig in (kf, lf, bf):
        assert not any(f in json.dumps(fig) for f in ABSOLUTE)


def test_a_trusted_pass_keeps_its_times_in_every_view():
    run = busy_cpu_run()
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.breakdown.generated_ms = 0.02  # kernels 61 µs in a 72.9 µs call
    run.kernels[0].device_time_ms, run.kernels[0].share = 0.02, 0.327
    assert not withheld(run)
    assert "20 µs" in render_html(run) and "of pass" not in render_text(run)
    assert roofline_rows(run) and sorted(kernels_figure(run)["data"][0]["x"]) == pytest.approx([0.02, 0.0412])


def test_each_kernel_is_worded_in_the_digest_in_the_runs_order_the_panel_shows_the_words():
    """The Kernels tab sorts the run's kernels by their figures and shows ``RunDigest.kernel_cells``: a withheld
    pass's kernels read their share of the pass and no rate; a trusted pass's their time, rates and peak shares."""
    run = busy_cpu_run()
    unrated = {"bandwidth": "—", "bandwidth_share": "—", "compute": "—", "compute_share": "—"}
    cells = run_digest(run)["kernel_cells"]
    assert cells == [{"time": "97% of pass", **unrated}, {"time": "3% of pass", **unrated}]
    compiled = run.variant("inductor/default")
    compiled.kernel_profile.breakdown.generated_ms = 0.02  # kernels 61 µs in a 72.9 µs call: trusted
    first, second = run.kernels
    first.device_time_ms, first.share = 0.02, 0.327
    first.achieved_gbps, first.bandwidth_share, first.achieved_tflops, first.compute_share = 120.4, 0.036, 2.5, 0.0033
    second.achieved_gbps, second.bandwidth_share, second.achieved_tflops = 2810.6, 0.84, None
    assert kernel_cells(run) == [
        KernelCells(
            time="20 µs", bandwidth="120 GB/s", bandwidth_share="4%", compute="2.5 TFLOP/s", compute_share="0.3%"
        ),
        KernelCells(time="41.2 µs", bandwidth="2.81 TB/s", bandwidth_share="84%", compute="—", compute_share="—"),
    ]
    first.device_time_ms, first.achieved_gbps = None, float("nan")  # untimed; a rate that is no number
    assert kernel_cells(run)[0].time == "—" and kernel_cells(run)[0].bandwidth == "—"


def test_kernels_on_concurrent_streams_are_held_against_the_call_once():
    """A DDP step's all-reduce runs on NCCL's stream beside the backward: the kernels' sum exceeds the call,
    the time a device event ran does not (``KernelProfile.device_busy_ms``)."""
    run = h200_attention()
    eager = run.eager.kernel_profile
    eager.breakdown.aten_ms += 0.6  # 2.83 ms of kernels in a 2.22 ms call: beyond the timer's noise
    assert not pass_judgment(run.eager).trusted
    eager.device_busy_ms = 2.21  # the overlapping 0.6 ms ran beside the others
    judged = pass_judgment(run.eager)
    assert judged.trusted and judged.kernels_ms == pytest.approx(2.21)
