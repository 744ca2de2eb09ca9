"""Large tensors a cell keeps that later lines of the cell also read.

By default a cell keeps every name it assigns, as a plain cell would, so each of those
tensors is an output of the compiled graph and must be written out in full.  Inductor
would fuse a temporary away instead: a hand-written attention cell that keeps its
16x16x1024x1024 bf16 score matrix ran at 0.73 ms compiled on an H200, the same code
returning only the result at 0.16 ms (it became one fused attention kernel).  This
module finds such tensors after the first eager run and prices the least they cost:
one write and one read at the device's copy bandwidth.  Whether that is material is
for the views to judge against the compiled call.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import torch

from ...profile_run import KeptTensor

MIN_BYTES = 1 << 20  # smaller tensors cost too little to mention


def kept_tensors(
    intermediates: dict[str, tuple[int, list[int]]], values: dict[str, Any], device_type: str
) -> list[KeptTensor]:
    """The kept intermediates among ``values`` (a run's kept names) that are tensors of at least ``MIN_BYTES``."""
    found = []
    for name, (line, used_at) in intermediates.items():
        value = values.get(name)
        if isinstance(value, torch.Tensor) and value.numel() * value.element_size() >= MIN_BYTES:
            found.append(
                KeptTensor(
                    name=name,
                    line=line,
                    used_at=list(used_at),
                    shape=list(value.shape),
                    dtype=str(value.dtype).removeprefix("torch."),
                    bytes=value.numel() * value.element_size(),
                )
            )
    if found:
        gbps = copy_bandwidth_gbps(device_type)
        for t in found:
            t.bandwidth_gbps = gbps
            t.traffic_ms = 2 * t.bytes / (gbps * 1e9) * 1e3 if gbps else None
    return found


def copy_bandwidth_gbps(device_type: str) -> float | None:
    """Bytes read plus written per second by a large copy on the device (measured once per process)."""
    try:
        if device_type == "cuda":
            from .roofline import measure_peaks

            return measure_peaks(torch.cuda.current_device()).copy_gbps
        return _host_copy_gbps()
    except Exception:  # noqa: BLE001 - no estimate is better than a failed profile
        return None


@functools.cache
def _host_copy_gbps() -> float:
    src = torch.ones(1 << 24)  # 64 MiB of float32, past any cache
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        dst.copy_(src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.numel() * src.element_size() / best / 1e9
