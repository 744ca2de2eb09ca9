"""Time per cell line (``digest.lines``): where a compiled variant's backward kernels are counted."""

from __future__ import annotations

from compile_profile.digest.lines import backward_line, line_times
from compile_profile.profile_run import Graph, Kernel
from render_fixtures import cpu_run

TRAINING_STEP = "opt.zero_grad()\nloss = model(x).pow(2).mean()\nloss.backward()  # grads\nopt.step()\n"


def _training_run(cell: str = TRAINING_STEP):
    run = cpu_run()
    run.cell_source = cell
    run.graphs = [
        Graph(id="g/fw", kind="aot_forward", code="", variant="inductor/default"),
        Graph(id="g/bw", kind="aot_backward", code="", variant="inductor/default"),
    ]
    run.kernels = [  # both came from line 2 (their provenance); the backward one runs on line 3
        Kernel(
            name="cpp_fused_pow_0",
            language="cpp",
            source="",
            graph_id="g/fw",
            lines=[2],
            device_time_ms=0.29,
            variant="inductor/default",
        ),
        Kernel(
            name="cpp_fused_pow_backward_0",
            language="cpp",
            source="",
            graph_id="g/bw",
            lines=[2],
            device_time_ms=1.27,
            variant="inductor/default",
        ),
    ]
    return run


def test_a_compiled_backwards_kernels_are_counted_on_the_line_that_runs_the_backward():
    run = _training_run()
    assert backward_line(run) == 3
    rows = {r.line: r for r in line_times(run).rows}
    assert rows[2].time_ms["inductor/default"] == 0.29 and rows[2].kernels["inductor/default"] == ["cpp_fused_pow_0"]
    assert rows[3].time_ms["inductor/default"] == 1.27
    assert rows[3].kernels["inductor/default"] == ["cpp_fused_pow_backward_0"]


def test_without_one_backward_line_the_backward_kernels_stay_on_the_lines_they_came_from():
    for cell in ("y = model(x)\n# loss.backward() in a comment\n", "a.backward()\nb.backward()\n"):
        run = _training_run(cell)
        assert backward_line(run) is None
        rows = {r.line: r for r in line_times(run).rows}
        assert rows[2].time_ms["inductor/default"] == 0.29 + 1.27


def test_a_lines_kernel_count_is_its_compiled_kernels_not_eagers_ops():
    """What the HTML view's kernels column shows: eager's names on a line are its ATen ops, not kernels."""
    from render_fixtures import slower_and_faster_runs

    lt = line_times(slower_and_faster_runs()[1])
    # a line where eager ran ops and a compiled variant ran kernels: only the kernels are counted
    assert any(r.kernel_count and r.kernels.get("eager") for r in lt.rows)
    for r in lt.rows:
        assert r.kernel_count == sum(len(names) for v, names in r.kernels.items() if v != "eager")
