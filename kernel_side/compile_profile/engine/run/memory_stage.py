"""Stage 5 of a profile: each variant's peak memory on CUDA, one call of it after ``torch.cuda.reset_peak_memory_stats``
(elsewhere nothing is measured: the digest says why, ``notes.memory_unmeasured_text``)."""

from __future__ import annotations

import torch

from ..session.session import Session


def measure_memory(session: Session) -> None:
    run = session.run
    if run.device.type != "cuda":  # the digest says why there is no peak (``notes.memory_unmeasured_text``)
        return
    session.current = "memory"
    for variant in run.variants:
        call = session.calls.eager if variant.name == "eager" else session.compiled.get(variant.name)
        if call is None:
            continue
        session.before(variant.name)()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        call()
        torch.cuda.synchronize()
        variant.peak_memory_bytes = int(torch.cuda.max_memory_allocated())
