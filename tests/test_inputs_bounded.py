"""A sequence of inputs is bounded (issue 32, item 5): at most ``--max-inputs`` items are read, so an endless
iterator is refused rather than read until memory runs out; an iterator that raises is refused naming ``--inputs``
and the item; each item's arity is checked before the first call; and a summary lists a few signatures and
words input numbers as runs.  The profiles that run use ``aot_eager``."""

from __future__ import annotations

import itertools

import pytest
import torch
from compile_profile.digest.inputs import SIGNATURES_LISTED, inputs_summary, inputs_text
from compile_profile.engine.cell.input_feed import MAX_INPUTS, InputFeed
from compile_profile.engine.run.api import profile
from compile_profile.engine.session.options import OptionError, ProfileOptions
from compile_profile.profile_run import (
    Device,
    InputCall,
    InputSequence,
    InputSignature,
    ProfileRun,
    Speedup,
    Timing,
    Variant,
)
from compile_profile.render.text import render_text
from IPython.core.error import UsageError


def one(x):
    return x * 2


def two(x, y):
    return x + y


@pytest.mark.parametrize(
    "endless",
    [
        lambda t: itertools.count(),
        lambda t: itertools.repeat(t),
        lambda t: itertools.cycle([t, t * 2]),  # a cycle over a loader
    ],
    ids=["count", "repeat", "cycle"],
)
def test_an_endless_iterator_is_refused_after_the_cap_not_read_until_memory_runs_out(endless):
    source = endless(torch.ones(2))
    with pytest.raises(OptionError, match=r"more than 1,000 items \(an endless iterator\?\).*--max-inputs N"):
        InputFeed.for_cell("xb=batches", {"batches": source})
    assert next(source) is not None  # read only the cap and one more: the iterator goes on
    with pytest.raises(OptionError, match=r"inputs= has more than 5 items.*max_inputs= N"):
        profile(one, inputs=endless(torch.ones(2)), max_inputs=5, backend="aot_eager")


def test_a_sized_iterable_longer_than_the_cap_is_refused_before_any_item_is_read():
    class Loader:
        def __len__(self):
            return 20_000

        def __iter__(self):
            raise AssertionError("read")

    with pytest.raises(OptionError, match=r"has 20,000 items, more than the 1,000 a profile reads"):
        InputFeed.for_cell("xb=loader", {"loader": Loader()})
    assert len(InputFeed.for_cell("xb=batches", {"batches": [torch.ones(1)] * 30}, limit=30)) == 30
    assert MAX_INPUTS == ProfileOptions().max_inputs == 1000
    with pytest.raises(OptionError, match="--max-inputs must be positive"):
        ProfileOptions(max_inputs=0)


def test_an_iterator_that_raises_is_refused_naming_inputs_and_the_item(ip):
    def batches():
        yield torch.ones(2)
        yield torch.ones(2)
        raise RuntimeError("the loader's worker died")

    with pytest.raises(OptionError) as caught:
        InputFeed.for_cell("xb=batches", {"batches": batches()})
    message = str(caught.value)
    assert message.startswith("--inputs xb=batches: batches: reading item 2 (counting from 0) raised RuntimeError")
    assert "the loader's worker died" in message and "2 items read before it" in message
    ip.user_ns["failing"] = batches()
    with pytest.raises(UsageError, match=r"--inputs xb=failing: failing: reading item 2"):
        ip.run_cell_magic("compile_profile", "--inputs xb=failing --no-store", "y = xb * 2")


def test_an_items_arity_is_checked_before_the_first_call(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILE_PROFILE_DB", str(tmp_path / "runs.sqlite"))
    calls = []

    def counted(x, y):
        calls.append(1)
        return x + y

    t = torch.ones(2)
    with pytest.raises(OptionError, match=r"inputs= item 1 gives counted 1 argument, but it takes 2 \(x, y\)"):
        profile(counted, inputs=[(t, t), (t,)], backend="aot_eager")
    with pytest.raises(OptionError, match=r"inputs= item 0 gives one 2 arguments, but it takes 1 \(x\)"):
        profile(one, inputs=[(t, t)], backend="aot_eager")
    assert calls == [] and not (tmp_path / "runs.sqlite").exists()  # refused up front: nothing ran, nothing stored
    feed = InputFeed.for_function(lambda x, y=1: x, [(t,), (t, 2)])  # a default may be left out
    assert len(feed) == 2


def _sequence_run(n_inputs: int, n_signatures: int) -> ProfileRun:
    timing = Timing(median_ms=1.0, p10_ms=0.9, p90_ms=1.1, n=5)
    signatures = [
        InputSignature(
            parts=[f"x: ({k + 1}, 4) float32"],
            inputs=list(range(k, n_inputs, n_signatures)),
            timings={"eager": timing, "default": timing},
            speedup=Speedup(value=1.0, low=0.9, high=1.1, variant="default"),
        )
        for k in range(n_signatures)
    ]
    calls = [InputCall(index=i, signature=i % n_signatures) for i in range(n_inputs)]
    return ProfileRun(
        id="seq",
        created_at="2025-01-01T00:00:00+00:00",
        label="",
        cell_source="y = model(xb)",
        device=Device(type="cpu", name=""),
        torch_version="2.13",
        variants=[Variant(name="eager", timing=timing), Variant(name="default", backend="inductor", timing=timing)],
        inputs=InputSequence(count=n_inputs, signatures=signatures, calls=calls, name="xb", source="batches"),
    )


def test_twenty_thousand_inputs_are_summarised_in_a_few_short_lines():
    run = _sequence_run(20_000, 300)
    summary = inputs_summary(run)
    assert summary is not None
    assert len(summary.rows) == SIGNATURES_LISTED
    rest = 20_000 - sum(r.calls for r in summary.rows)
    assert summary.more_signatures_text == f"… 290 more signatures, {rest:,} inputs, each timed apart"
    assert all(len(r.inputs) <= 100 and len(r.inputs_text) < 80 for r in summary.rows)
    text = render_text(run)
    assert max(len(line) for line in text.splitlines()) < 400, max(text.splitlines(), key=len)[:200]
    assert "… 290 more signatures" in text


def test_input_numbers_are_worded_as_runs():
    assert inputs_text([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8"
    assert inputs_text(list(range(1, 20_001))) == "1–20000"
    assert inputs_text(list(range(1, 40, 2))).endswith("… (20 inputs)")
