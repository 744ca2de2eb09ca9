"""A backend that fails on a graph with an exception Dynamo falls back from (a data-dependent op AOTAutograd meets,
as transformers' grouped_mm MoE experts on CUDA do) reads as one graph break per function that ran eagerly, owned by
where it is, with a note that the compiler failed and not Dynamo, and a verdict that counts such functions rather
than listing them.  On an H100 a Mixtral MoE training step had read as 40 graph breaks, 13 of them titled with the
traceback's header, one marked as the .backward() Dynamo does not trace, and a verdict of 14 clauses.

The failing backend (``data_dependent_on_cumsum_TESTING_ONLY``) raises where the graph holds ``torch.cumsum`` and
runs ``aot_eager`` otherwise: one Dynamo trace per frame, no Inductor compile."""

from __future__ import annotations

import contextlib
import io

import pytest
import torch
from compile_profile import profile
from compile_profile.digest.breaks import break_groups, break_summary
from compile_profile.digest.outcome import partly_eager_text
from fault_backends import DATA_DEPENDENT_ON_CUMSUM
from profile_options import FAST

pytestmark = pytest.mark.compiles


def running_sum(x):
    return torch.cumsum(x, 0) * 2


def step(x):
    y = x.sin()
    z = running_sum(y)
    return z + 1


def sum_of_sines(x):
    return torch.cumsum(x.sin(), 0)


def sum_of_cosines(x):
    return torch.cumsum(x.cos(), 0)


def three_sums(x):
    a = running_sum(x)
    b = sum_of_sines(x)
    c = sum_of_cosines(x)
    return a + b + c


def _profiled(fn):
    torch._dynamo.reset()  # each function's frames compiled anew, not met in an earlier test's cache
    with contextlib.redirect_stderr(io.StringIO()):  # Dynamo warns of each fallback with its traceback
        return profile(fn, torch.randn(64), backend=DATA_DEPENDENT_ON_CUMSUM, **{**FAST, "quick": True})


def test_each_function_the_failing_backend_left_to_eager_is_one_break_and_no_traceback_is_a_break():
    run = _profiled(step)
    # step's frame (the graph that holds the inlined cumsum) and then running_sum's own frame, once each; Dynamo
    # logs each three times (the traceback, "cannot resume from", "Failed to handle graph break gracefully")
    assert len(run.graph_breaks) == 2, [b.reason[:80] for b in run.graph_breaks]
    assert not any("TorchDynamo Stack Trace" in b.reason.splitlines()[0] for b in run.graph_breaks)
    assert sorted(b.compile_id for b in run.graph_breaks) == ["0/0", "1/0"]
    # step's own frame, skipped whole, is logged at its first line with no user traceback: the cell's def line, not
    # "outside the cell"; running_sum's is reached from cell line 3
    assert sorted((b.line, b.file_code) for b in run.graph_breaks) == [(1, "def step(x):"), (3, "def running_sum(x):")]


def test_the_break_says_the_compiler_failed_on_a_data_dependent_op_not_dynamo_and_whose_code_it_is():
    groups = break_groups(_profiled(step))
    assert len(groups) == 2
    for g in groups:
        assert g.owner == "yours"  # the functions are the test's, not a library's, and not PyTorch's by design
        assert g.skipped_rest
        assert f"the compiler ({DATA_DEPENDENT_ON_CUMSUM}), not Dynamo, failed" in g.note
        assert "aten._local_scalar_dense.default, a data-dependent op" in g.note
        assert ".backward()" not in g.note
        assert "Dynamo could not resume there" in break_summary(g)


def test_a_verdict_over_many_functions_run_eagerly_counts_them_and_names_the_first_two():
    run = _profiled(three_sums)
    text = partly_eager_text(run)
    skipped = [g for g in break_groups(run) if g.skipped_rest]
    assert len(skipped) == 4  # three_sums's own frame, then each of the three functions it calls
    assert f"Dynamo could not resume after {len(skipped)} graph breaks" in text
    assert f"and {len(skipped) - 2} more in the graph breaks below" in text
    assert text.count("inside ") <= 2
