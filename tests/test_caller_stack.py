"""The stack the cell's code sees while profiled is as deep as the user's own (engine/cell/caller_stack.py): torch's
lazy-init bookkeeping, which formats the whole stack at each ``torch.manual_seed`` (about 7 µs a frame, three
times), leaves the profiler's frames out, and torch's modules are as they were afterwards.  The profiles are CHEAP:
the stack is the subject, not a compiler."""

from __future__ import annotations

import traceback

import pytest
import torch
from cell_runs import run_cell
from profile_options import CHEAP

pytestmark = pytest.mark.compiles  # Dynamo traces the cell (aot_eager)

SEES_STACK = "torch.manual_seed(0)\nstack = torch.cuda.traceback.format_stack()\ny = torch.rand(3)\n"


def test_a_seeded_cell_formats_no_frame_of_the_profiler_and_torch_is_as_it_was_after():
    ns = {"torch": torch}
    run = run_cell(SEES_STACK, ns, **CHEAP).run
    assert run.status == "ok", run.errors
    stack = ns["stack"]
    assert "compile-profile-cell-" in stack[-1], stack  # the cell's own frame, innermost
    assert "cell_runs.py" in stack[-2] and "test_caller_stack.py" in "".join(stack)  # then its callers'
    assert not [line for line in stack if "/compile_profile/" in line], stack  # none of the profiler's files
    assert torch.cuda.traceback is traceback
    # outside a profile torch formats every frame, this test's callers included
    assert any("test_caller_stack.py" in line for line in torch.cuda.traceback.format_stack())


def test_a_cell_that_raises_leaves_torchs_traceback_as_it_was():
    ns = {"torch": torch}
    run = run_cell("torch.manual_seed(0)\nraise ValueError('the cell fails')\n", ns, **CHEAP).run
    assert run.status == "failed" and run.errors[0].type == "ValueError"
    assert torch.cuda.traceback is traceback
    for name in ("xpu", "mtia"):
        module = getattr(torch, name, None)
        assert module is None or getattr(module, "traceback", traceback) is traceback
