"""The built-in collection at real sizes on a CUDA device (issue 34's H200 part): training and inference in
bfloat16, each model in its own process, every transformers model passing, memory compression measured, the chart
and the --json export written to test-artifacts/ for docs/benchmarks.md.  Not run on the CPU machine.

    pytest -m gpu tests/test_gpu_suite.py        # about 20-40 min on one H200 (cold Inductor cache)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
TRANSFORMERS = ["gpt2", "bert", "t5", "llama", "mistral", "mixtral-moe", "qwen2", "vit"]


def test_the_builtin_collection_at_real_sizes_trains_and_infers_in_bfloat16(tmp_path):
    pytest.importorskip("transformers")
    import compile_profile

    result = compile_profile.suite(
        "builtin",
        tasks=["inference", "training"],
        dtypes=["bfloat16"],
        size="real",
        timeout=1800,
        db=str(tmp_path / "gpu.sqlite"),
        label="H200, real sizes, bf16",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "suite-h200.json").write_text(json.dumps(result.to_json(), indent=2))
    (ARTIFACTS / "suite-h200.html").write_text(result.to_html())
    (ARTIFACTS / "suite-h200.txt").write_text(str(result))
    rows = {r.name: r for r in result.digest.rows}
    for model in TRANSFORMERS:
        for name in (f"{model} (bfloat16)", f"{model} (training, bfloat16)"):
            assert rows[name].status == "pass", (name, rows[name].status_text)
            assert rows[name].peak_eager_bytes and rows[name].peak_compiled_bytes  # measured on CUDA
    assert result.digest.summary.compression is not None
    assert result.digest.summary.geomean_speedup and result.digest.summary.geomean_speedup > 1
