"""A graph break inside a helper another notebook cell defines is placed by the helper's name and that cell's number,
as the notebook shows it: ``inside scale_by_max, cell [3] line 2``, not at the kernel's file for the cell
(``2868138915.py:2``, ``<ipython-input-3-…>``) or the profile's (``<compile-profile-cell-…>``).

IPython names each cell's code by a file and maps the file to the cell's number (``Cell In[3]`` in its
tracebacks); the magic reads that map, and its own for the cells it profiled.
"""

from __future__ import annotations

import pytest
import torch
from IPython.utils.capture import capture_output

pytestmark = pytest.mark.compiles
QUICK = "--quick --backend aot_eager --warmup 1 --repeat 3 --budget 0.1"


def run_cell(ip, source: str):
    with capture_output() as out:
        result = ip.run_cell(source, store_history=True)
    assert result.error_in_exec is None and result.error_before_exec is None, out.stderr
    return result, out


def shown(out) -> str:
    texts = [o.data.get("text/plain", "") for o in out.outputs if "application/vnd.compile-profile.run+json" in o.data]
    return texts[0]


def test_a_break_in_a_helper_of_a_plain_cell_names_the_helper_and_the_cells_number(ip):
    ip.user_ns.update(torch=torch, x=torch.randn(8))
    defined, _ = run_cell(
        ip, "def scale_by_max(t):\n    print('max', float(t.abs().max()))\n    return t / t.abs().max()\n"
    )
    _, out = run_cell(ip, f"%%compile_profile {QUICK} -o prof\ny = scale_by_max(x * 2) + 1\n")
    run = ip.user_ns["prof"]
    inside = [b for b in run.graph_breaks if b.file_function == "scale_by_max"]
    assert inside and all(b.file_cell == defined.execution_count and b.file_line == 2 for b in inside)
    place = (
        f"at cell line 2 (y = scale_by_max(x * 2) + 1), inside scale_by_max, cell [{defined.execution_count}] line 2"
    )
    assert place in shown(out)
    assert "ipython-input" not in shown(out) and "ipykernel" not in shown(out)


def test_a_break_in_a_helper_of_a_profiled_cell_names_the_helper_and_that_cells_number(ip):
    ip.user_ns.update(torch=torch, x=torch.randn(8))
    defined, _ = run_cell(
        ip,
        f"%%compile_profile {QUICK} -o prof\ndef cosine_of(t):\n    print('cos')\n    return t.cos()\nz = cosine_of(x)\n",
    )
    _, out = run_cell(ip, f"%%compile_profile {QUICK} -o prof\nw = cosine_of(x) * 3\n")
    run = ip.user_ns["prof"]
    assert any(b.file_function == "cosine_of" and b.file_cell == defined.execution_count for b in run.graph_breaks)
    # line 3 of that cell as the notebook shows it, its %%compile_profile line first
    place = f"inside cosine_of, cell [{defined.execution_count}] line 3 (print('cos'))"
    assert place in shown(out) and "<compile-profile-cell-" not in shown(out)
