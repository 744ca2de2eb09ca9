"""Per-kernel times on a busy CPU (issue 20): bounded processes spin on the cores while a small model is
profiled, and each generated kernel's time from the profiler pass after timing is held to
``torch.profiler`` on plain ``torch.compile`` of the same code, measured in the same test and process
beside the same spinning processes.

The reference is independent of the tool's timing: each C++ kernel carries its own profiler range
(``torch._inductor.config.cpp.enable_kernel_profile``, a ``RECORD_FUNCTION`` inside the kernel), where
the tool times the Python binding's call; its figure is each kernel's median over the calls the test's
own reading of ``/proc/self/task/*/schedstat`` says the machine did not preempt (a busy machine stalls
whole stretches of calls: before the fix a kernel read 1,150x and 0.001x its reference in one run).

Either the digest trusts the pass and each kernel is within ``FACTOR`` of its reference, or it withholds
the pass and every view shows shares with the reason beside them.  On 2 idle cores small C++ kernels read
0.7-2.5x their reference (the binding's call and the Python tracer's cost around a 5-70 µs kernel).
"""

from __future__ import annotations

import contextlib
import os
import re
import statistics
import subprocess
import sys
import time

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest import summarize
from compile_profile.digest.kernel_times import kernel_time_text, pass_judgment, withheld
from compile_profile.digest.lines import line_times
from compile_profile.digest.measured import roofline_rows
from compile_profile.render.text import render_text

FACTOR = 4.0
MIN_REF_US = 3.0  # kernels shorter than this in the reference are left out: the binding's call is most of them
SPIN_S = 240.0  # each spinning process stops by itself after this, whatever becomes of the test
REF_CLEAN_CALLS = 15
REF_BUDGET_S = 60.0

pytestmark = [
    pytest.mark.compiles,
    pytest.mark.alone,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/task is Linux's"),
]

BODY = (
    "h = torch.nn.functional.layer_norm(x, (32,))\n"
    "a = torch.softmax(h @ h.transpose(-1, -2), -1) @ h\n"
    "y = (torch.nn.functional.gelu(a @ w) * 2 + x).sum()\n"
)


@contextlib.contextmanager
def spinning(n: int):
    """``n`` processes spinning on the CPU, each bounded by ``SPIN_S`` and killed when the block ends."""
    code = f"import time\nt = time.time()\nwhile time.time() - t < {SPIN_S}: pass"
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(n)]
    try:
        time.sleep(0.3)  # let them start
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def runqueue_wait_s() -> float:
    """This process's threads' time waiting for a CPU so far (the test's own reading of schedstat)."""
    total = 0
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
    return total / 1e9


def reference_kernel_us(fn) -> dict[str, float]:
    """Each C++ kernel's median time per call (µs) under torch.profiler on plain ``torch.compile``, over the
    calls during which this process's threads waited for a CPU under 5 % of the call."""
    from torch.autograd.profiler import record_function
    from torch.profiler import ProfilerActivity, profile

    with torch._inductor.config.patch({"cpp.enable_kernel_profile": True}):
        compiled = torch.compile(fn)
        for _ in range(3):
            compiled()
        clean: list[int] = []
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            deadline = time.perf_counter() + REF_BUDGET_S
            i = 0
            while len(clean) < REF_CLEAN_CALLS and time.perf_counter() < deadline:
                w0, t0 = runqueue_wait_s(), time.perf_counter()
                with record_function(f"reference call {i}"):
                    compiled()
                wall, waited = time.perf_counter() - t0, runqueue_wait_s() - w0
                if waited <= 0.05 * wall:
                    clean.append(i)
                i += 1
    torch._dynamo.reset()
    assert len(clean) >= 5, f"the reference got {len(clean)} calls the machine did not preempt in {REF_BUDGET_S} s"
    events = list(prof.events())
    ranges = {
        int(ev.name.rsplit(" ", 1)[1]): (ev.time_range.start, ev.time_range.end)
        for ev in events
        if ev.name.startswith("reference call ")
    }
    per_call: dict[str, dict[int, float]] = {}
    for ev in events:
        m = re.match(r"graph_\d+_(cpp_fused\w+)$", ev.name)
        if not m:
            continue
        for i, (a, b) in ranges.items():
            if a <= ev.time_range.start <= b:
                per_call.setdefault(m.group(1), {}).setdefault(i, 0.0)
                per_call[m.group(1)][i] += ev.cpu_time_total
                break
    return {name: statistics.median(calls.get(i, 0.0) for i in clean) for name, calls in per_call.items()}


def test_per_kernel_times_on_a_busy_cpu_hold_to_torch_profiler_on_plain_compile_or_every_view_withholds_them():
    torch.manual_seed(0)
    # 2 × 128 rows: at 2 × 16 the longest kernel took 2.8-3.0 µs in the reference on an idle moment, under MIN_REF_US,
    # and with nothing to compare a trusted pass failed the test (a fresh clone's CI, 2026-12-05)
    x, w = torch.randn(2, 128, 32), torch.randn(32, 32)
    ns = {"torch": torch, "x": x, "w": w}
    cores = len(os.sched_getaffinity(0))
    with spinning(max(1, cores - 1)) as spinners:
        run = run_cell(BODY, ns).run
        assert run.status == "ok" and not run.errors, run.errors
        # the machine was busy for the whole profile: the spinners outlived it. (CI's sandbox showed
        # host_load.other_processes_cores 0.0 beside them, so the tool's own reading is no precondition.)
        assert all(p.poll() is None for p in spinners)

        def reference():
            h = torch.nn.functional.layer_norm(x, (32,))
            a = torch.softmax(h @ h.transpose(-1, -2), -1) @ h
            return h, a, (torch.nn.functional.gelu(a @ w) * 2 + x).sum()

        ref = reference_kernel_us(reference)

    variant = run.variant("inductor/default")
    kp = variant.kernel_profile
    judged = pass_judgment(variant)
    kernels = [k for k in run.kernels if k.variant == variant.name and k.language == "cpp"]
    assert kernels and all(k.device_time_ms is not None for k in kernels)
    compared = {k.name: (k.device_time_ms * 1e3, ref[k.name]) for k in kernels if ref.get(k.name, 0.0) >= MIN_REF_US}
    said = f"pass {kp.calls} calls ({kp.preempted_calls} preempted), judged {judged}; tool/reference µs {compared}"
    print(said)  # shown with -rA: which way the judgment went and the figures behind it
    if judged.trusted:
        assert compared, said
        for name, (tool_us, ref_us) in compared.items():
            assert 1 / FACTOR <= tool_us / ref_us <= FACTOR, f"{name}: {said}"
        return
    # withheld: every view shows shares with the reason, never a kernel's or a line's absolute time
    left_out = withheld(run)
    assert variant.name in left_out and judged.text in summarize(run)["warnings"], said
    assert all(kernel_time_text(k, left_out).endswith("of pass") for k in kernels), said
    lines = line_times(run)
    assert lines.withheld[variant.name] == judged.text
    assert all(r.time_text(variant.name).endswith("of pass") for r in lines.rows if variant.name in r.kernels)
    assert not any(r.variant == variant.name for r in roofline_rows(run))
    text = render_text(run)
    assert judged.text in text and "of pass" in text
