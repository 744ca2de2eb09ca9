"""A profile over a sequence of inputs (``profile(fn, inputs=...)``, ``%%compile_profile --inputs NAME=ITERABLE``):
the recompiles each input caused, held against plain ``torch.compile`` on the same inputs in the same process
(Dynamo's own recompile log), each signature timed apart with its interval, and eager compared with compiled on
the same input each time."""

from __future__ import annotations

import logging
import math

import pytest
import torch
from compile_profile import stats
from compile_profile.digest.format import format_ms, format_s
from compile_profile.digest.inputs import inputs_summary
from compile_profile.engine.run.api import profile
from compile_profile.engine.session.options import OptionError
from compile_profile.profile_run import ProfileRun
from compile_profile.render.text import render_text
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output
from profile_options import CHEAP_FLAGS, FAST

# two signatures share the budget: more rounds than FAST's, so each gets its interval
SEQUENCE = {**FAST, "repeat": 12, "min_samples": 4, "budget": 0.4, "quick": True}


def branch_on_item(x):
    s = x.sum().item()  # a graph break; the value is guarded on in the frame Dynamo resumes in
    if s > 0:
        return x * 2 + s
    return x - 1


def six_inputs() -> list[torch.Tensor]:
    """Two shapes, alternating, with sums of both signs (the branch goes both ways within a shape)."""
    g = torch.Generator().manual_seed(0)
    small = [torch.randn(8, 4, generator=g) for _ in range(3)]
    large = [torch.randn(16, 4, generator=g) for _ in range(3)]
    return [small[0], large[0], small[1], large[1], small[2], large[2]]


class _RecompileLog(logging.Handler):
    """Dynamo's own ``TORCH_LOGS=recompiles`` records, counted per call."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Recompiling function"):
            self.n += 1


def _plain_recompiles_per_input(fn, inputs) -> list[int]:
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    log = _RecompileLog()
    logger = logging.getLogger("torch._dynamo.guards.__recompiles")
    torch._logging.set_logs(recompiles=True)
    logger.addHandler(log)
    per_input = []
    try:
        for x in inputs:
            before = log.n
            compiled(x)
            per_input.append(log.n - before)
    finally:
        logger.removeHandler(log)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return per_input


@pytest.fixture(scope="module")
def sequence_run():
    xs = six_inputs()
    # Plain torch.compile first: Inductor keeps a Python float dynamic where its FX graph cache hits, and
    # specialises it (one more recompile per new value) where it compiles afresh; the profile and the plain
    # run held against it below both find the cache this one filled.
    _plain_recompiles_per_input(branch_on_item, xs)
    run = profile(branch_on_item, inputs=xs, **SEQUENCE)
    plain = _plain_recompiles_per_input(branch_on_item, xs)
    return run, plain, xs


@pytest.mark.compiles
def test_each_recompile_is_attributed_to_the_input_whose_call_made_it_as_plain_torch_compile_counts_them(
    sequence_run,
):
    run, plain, _ = sequence_run
    assert run.status == "ok", run.errors
    per_input = [sum(1 for r in run.recompiles if r.input == i) for i in range(6)]
    assert per_input == plain
    assert per_input[0] == 0 and per_input[1] == 2, "the first 16-row input recompiles the frame and its resume"
    assert len(run.recompiles) >= 3 and all(r.input is not None for r in run.recompiles)


@pytest.mark.compiles
def test_the_value_guard_of_an_item_recompiles_and_is_worded_as_the_users_value(sequence_run):
    run, _, _ = sequence_run
    value = [r for r in run.recompiles if r.user_expr == "x.sum().item()"]
    assert value, [r.reason for r in run.recompiles]
    assert all(r.input is not None and r.input >= 2 for r in value), "the shapes were both seen by then"
    rows = inputs_summary(run).recompiles
    assert any("what x.sum().item() returned" in row.text for row in rows)
    shape = next(row for row in rows if row.input == 2)
    assert "changed dim 0: 8 → 16" in shape.text and shape.signature == "x: (16, 4) float32"
    assert shape.compile_s is not None and shape.compile_s > 0
    # its two recompiles (the frame, and the function Dynamo resumes in after the break) cost one compile time
    assert [row.compile_s is None for row in rows if row.input == 2] == [False, True]
    assert shape.compile_s == pytest.approx(run.inputs.calls[1].compile_s[run.speedup.variant])


@pytest.mark.compiles
def test_the_two_shapes_are_two_signatures_each_timed_with_an_interval(sequence_run):
    run, _, _ = sequence_run
    sequence = run.inputs
    assert sequence is not None and sequence.count == 6
    assert [s.parts for s in sequence.signatures] == [["x: (8, 4) float32"], ["x: (16, 4) float32"]]
    assert [s.inputs for s in sequence.signatures] == [[0, 2, 4], [1, 3, 5]]
    for s in sequence.signatures:
        assert s.speedup is not None and s.speedup.has_interval and s.speedup.low <= s.speedup.value <= s.speedup.high
        assert s.timings["eager"].n >= SEQUENCE["min_samples"] and s.budget_s == pytest.approx(SEQUENCE["budget"] / 2)
    # the overall speedup is the sequence's eager time over its compiled time, each signature weighted by its calls
    variant = run.speedup.variant
    eager = sum(len(s.inputs) * s.timings["eager"].median_ms for s in sequence.signatures)
    compiled = sum(len(s.inputs) * s.timings[variant].median_ms for s in sequence.signatures)
    assert run.speedup.value == pytest.approx(eager / compiled)
    assert run.speedup.has_interval
    rows = inputs_summary(run).rows
    assert [r.calls for r in rows] == [3, 3] and all(r.low is not None for r in rows)
    assert rows[0].representative and run.variant(variant).timing == sequence.signatures[0].timings[variant]


@pytest.mark.compiles
def test_eager_and_compiled_are_compared_on_the_same_input_each_time_with_no_false_mismatch(sequence_run):
    run, _, _ = sequence_run
    assert [c.matches for c in run.inputs.calls] == [True] * 6
    assert run.correctness is not None and run.correctness.ok is True
    summary = inputs_summary(run)
    assert summary.mismatches == [] and "each of the 6 inputs" in summary.comparison_text
    assert run.summary()["list_status"] == "ok"


@pytest.mark.compiles
def test_the_views_say_the_sequence_and_a_stored_run_keeps_it(sequence_run):
    run, _, _ = sequence_run
    text = render_text(run)
    assert "over 6 inputs (2 signatures, weighted by calls)" in text.splitlines()[0]
    assert "inputs: 6 inputs, 2 signatures" in text and "input 2 (x: (16, 4) float32) recompiled" in text
    assert "Inputs</div>" in run.to_html()
    again = ProfileRun.from_json(run.to_json())
    assert again.inputs == run.inputs and [r.input for r in again.recompiles] == [r.input for r in run.recompiles]


@pytest.mark.compiles
def test_the_digest_words_each_signatures_times_once_and_the_views_show_its_words(sequence_run):
    run, _, _ = sequence_run
    summary = inputs_summary(run)
    text, html = render_text(run), run.to_html()
    for r in summary.rows:
        assert (r.eager_time, r.compiled_time) == (format_ms(r.eager_ms), format_ms(r.compiled_ms))
        assert r.compile_time == (format_s(r.compile_s) if r.compile_s else "—")
        assert f"{r.compile_time} compiling" in text and f">{r.compiled_time}<" in html
    for r in summary.recompiles:
        assert r.compile_time == ("" if r.compile_s is None else format_s(r.compile_s))
    said = next(r for r in summary.recompiles if r.compile_time)
    assert f"recompiled, {said.compile_time} compiling: " in text


def test_a_run_stored_before_input_sequences_loads_with_none():
    run = ProfileRun.from_dict(
        {
            "id": "x",
            "created_at": "",
            "label": "",
            "cell_source": "",
            "device": {"type": "cpu", "name": ""},
            "torch_version": "2.13",
            "recompiles": [{"reason": "r"}],
        }  # fmt: skip
    )
    assert run.inputs is None and run.recompiles[0].input is None and inputs_summary(run) is None


def test_the_weighted_speedup_of_one_signature_is_the_plain_speedup():
    a, b = [2.0, 2.1, 1.9, 2.05], [1.0, 1.1, 0.9, 1.02]
    assert stats.weighted_ratio_interval([(5.0, a, b)]) == stats.ratio_interval(a, b)
    value, low, high = stats.weighted_ratio_interval([(3.0, a, b), (1.0, [3.0, 3.1, 2.9], [3.0, 3.1, 2.9])])
    assert value == pytest.approx((3 * 2.025 + 3.0) / (3 * 1.01 + 3.0))
    assert math.isfinite(low) and low <= value <= high


# -- bad input ------------------------------------------------------------------------------------------------
def _two_args(x, y):
    return x + y


@pytest.mark.parametrize(
    ("fn", "args", "inputs", "message"),
    [
        (branch_on_item, (), [], "inputs= is empty: give at least one input"),
        (branch_on_item, (), iter(()), "inputs= is empty"),
        (_two_args, (), [torch.ones(2)], r"inputs= item 0 is a Tensor, not a tuple of arguments: _two_args takes 2"),
        (branch_on_item, (), 3, "inputs= is an int, not an iterable of inputs"),
        (branch_on_item, (), torch.ones(3), "inputs= is one tensor: give a list of inputs"),
        (branch_on_item, (torch.ones(2),), [torch.ones(2)], "either positionally .* or as inputs="),
    ],
)
def test_bad_inputs_get_a_one_line_message_naming_what_to_fix(fn, args, inputs, message):
    with pytest.raises(OptionError, match=message) as caught:
        profile(fn, *args, inputs=inputs)
    assert "\n" not in str(caught.value)


def test_a_callable_giving_the_inputs_is_called_once_and_items_may_be_bare_arguments():
    from compile_profile.engine.cell.input_feed import InputFeed

    feed = InputFeed.for_function(_two_args, lambda: ((torch.ones(2), 3) for _ in range(2)))
    assert len(feed) == 2 and feed.signatures == [["x: (2,) float32", "y = 3"]]
    single = InputFeed.for_function(branch_on_item, [torch.ones(2), torch.ones(2, dtype=torch.float64)])
    assert single.signatures == [["x: (2,) float32"], ["x: (2,) float64"]] and single.representative() == 0


# -- the magic ------------------------------------------------------------------------------------------------
@pytest.fixture
def batches_ns(ip):
    g = torch.Generator().manual_seed(1)
    model = torch.nn.Linear(4, 2)
    batches = [torch.randn(3, 4, generator=g), torch.randn(5, 4, generator=g), torch.randn(3, 4, generator=g)]
    ip.user_ns.update(torch=torch, model=model, batches=batches, n_batches=3)
    return ip.user_ns


@pytest.mark.compiles
def test_the_magic_runs_the_cell_once_per_item_with_the_name_bound_to_it(ip, batches_ns):
    with capture_output():
        result = ip.run_cell(f"%%compile_profile --inputs xb=batches {CHEAP_FLAGS} --no-store -o run\ny = model(xb)\n")
    assert result.error_in_exec is None
    run = batches_ns["run"]
    assert run.status == "ok", run.errors
    assert run.inputs.name == "xb" and run.inputs.source == "batches" and run.inputs.count == 3
    assert [s.parts for s in run.inputs.signatures] == [["xb: (3, 4) float32"], ["xb: (5, 4) float32"]]
    assert [s.inputs for s in run.inputs.signatures] == [[0, 2], [1]]
    # the 5-row batch recompiles (dim 0 then becomes dynamic: the third batch finds that entry)
    assert [r.input for r in run.recompiles] == [1]
    assert "xb" in inputs_summary(run).recompiles[0].text
    assert all(c.matches for c in run.inputs.calls)
    # the namespace is as after the first input's run: the name holds it, the cell's result is of it
    assert batches_ns["xb"] is batches_ns["batches"][0]
    assert torch.allclose(batches_ns["y"], batches_ns["model"](batches_ns["batches"][0]))


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--inputs batches", "--inputs takes NAME=ITERABLE"),
        ("--inputs 1x=batches", "'1x' is no Python name"),
        ("--inputs xb=missing", "there is no 'missing' in the namespace; define it before this cell"),
        ("--inputs xb=n_batches", "n_batches is an int, not an iterable of inputs"),
        ("--inputs xb=empty", "empty is empty: give at least one input"),
    ],
)
def test_bad_inputs_options_give_a_usage_message(ip, batches_ns, option, message):
    batches_ns["empty"] = []
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("compile_profile", f"{option} --no-store", "y = model(xb)")


@pytest.mark.compiles
def test_inputs_that_draw_random_numbers_say_that_is_why_they_were_not_compared():
    """A training step with dropout: Inductor draws its own random numbers, so eager and compiled differ by their
    draws on every input; the sentence says so rather than "nothing to compare" (a Hugging Face GPT-2 step)."""

    def noisy(x):
        return torch.nn.functional.dropout(x.sin(), 0.5, training=True)

    torch._dynamo.reset()
    run = profile(noisy, inputs=[torch.randn(64), torch.randn(64)], quick=True, **FAST)
    assert all(c.matches is None for c in run.inputs.calls)
    text = inputs_summary(run).comparison_text
    assert text.startswith("compiled was not compared with eager on the inputs: the cell draws random numbers ("), text
    assert "prims.inductor_random" in text and "fallback_random = True" in text, text
