"""One ``Recompile`` per recompilation (per new compile id), as ``TORCH_LOGS=recompiles`` counts them, and the
compile that hit Dynamo's recompile limit said as such.

Dynamo's ``recompile_reasons`` artifact lists, for the k-th recompile of a frame, the guard failure of each of
its k cache entries (newest first); reading one recompile per listed failure counted 1 + 2 + … + k."""

from __future__ import annotations

import json
import logging
import math
import re

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.format import format_s
from compile_profile.digest.guards import failed_guard_text, limit_text, recompile_text
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.trace.capture import TraceEvent
from compile_profile.engine.trace.model import build_variant_trace
from compile_profile.engine.trace.model.breaks import recompile_limit_hit, trim_guard_comments
from compile_profile.profile_run import Recompile
from profile_options import CHEAP, FAST

LOCATOR = CellLocator("<cell>", ["n = next(sizes)", "y = torch.ones(n) * 2"])
PAD = " " * 40


def event(name, payload=None, metadata=None, compile_id=(0, 1)) -> TraceEvent:
    return TraceEvent(name, {} if metadata is None else metadata, payload, *compile_id, 0, 0.0)


def reasons(compile_id: tuple[int, int], *failures: str) -> TraceEvent:
    payload = failures[0] if len(failures) == 1 else json.dumps(list(failures))  # as guards.py logs it
    return event("artifact", payload, {"name": "recompile_reasons", "encoding": "json"}, compile_id)


def guard(entry: int, value: int) -> str:
    # as torch 2.13 words one entry's failure: the check padded to 60 columns, its user code and place
    return (
        f"0/{entry}: G['calls'][0] == {value}{PAD}# calls[0] += 1  # rc/repro.py:5 in f\n"
        'User stack trace:\n  File "/tmp/rc/repro.py", line 5, in f\n    calls[0] += 1'
    )


def trace(events):
    return build_variant_trace(events, [], variant="v", locator=LOCATOR)


LIMIT_213 = (
    "Dynamo recompile limit exceeded\n  Explanation: Dynamo attempted to recompile the code object too many "
    "times, exceeding the recompile_limit cache size limit (currently set to 8). Excessive recompilations "
    "…\n\n  Developer debug context: Limit type: recompile_limit\n"
)


# -- the handler, fed events as torch logs them -----------------------------------------------


def test_the_kth_recompile_lists_k_entries_and_is_one_recompile_with_the_newest_entrys_failure():
    events = [reasons((0, k), *[guard(e, e + 1) for e in reversed(range(k))]) for k in range(1, 8)]
    result = trace(events)
    assert [r.compile_id for r in result.recompiles] == [f"0/{k}" for k in range(1, 8)]  # 7, not 28
    first_lines = [r.reason.splitlines()[0] for r in result.recompiles]
    assert first_lines == [f"0/{k - 1}: G['calls'][0] == {k}" for k in range(1, 8)], "the newest entry, trimmed"
    last = result.recompiles[-1].reason
    assert (
        "older entries failed too (6): 0/5: G['calls'][0] == 6; 0/4: G['calls'][0] == 5; "
        "0/3: G['calls'][0] == 4; … 3 more" in last
    )
    assert "# calls[0] += 1" not in last and "rc/repro.py:5 in f" not in last
    assert 'File "/tmp/rc/repro.py", line 5' in last, "the user stack trace stays"
    assert {r.source for r in result.recompiles} == {"G['calls'][0]"}


def test_the_profilers_backend_switch_entries_are_left_out_and_a_compile_counts_once():
    switch = "0/0: ___check_current_backend(140000)"
    result = trace(
        [
            reasons((0, 1), switch),  # the next variant's first compile: no recompile
            reasons((0, 2), "0/1: tensor 'L['x']' size mismatch at index 0. expected 3, actual 4", switch),
            reasons((0, 2), "0/1: tensor 'L['x']' size mismatch at index 0. expected 3, actual 4", switch),
        ]
    )
    (r,) = result.recompiles
    assert (r.compile_id, r.reason) == ("0/2", "0/1: tensor 'L['x']' size mismatch at index 0. expected 3, actual 4")


def test_a_comment_is_trimmed_from_each_failed_check_not_from_the_stack():
    text = (
        f"0/0: L['n'] == 1{PAD}# x * n  # f.py:2 in f\nL['m'] == 2{PAD}# m  # f.py:3 in f\n"
        "User stack trace:\n    y = x * n  # keep me"
    )
    assert trim_guard_comments(text) == "0/0: L['n'] == 1\nL['m'] == 2\nUser stack trace:\n    y = x * n  # keep me"
    assert trim_guard_comments("0/0: G['calls'][0] == 1" + PAD) == "0/0: G['calls'][0] == 1"  # torch 2.6 pads only


def test_the_compile_that_hit_the_recompile_limit_is_marked_on_torch_2_13_and_2_6():
    metrics_213 = {
        "compile_id": "0/8",
        "fail_type": "Unsupported",
        "fail_reason": LIMIT_213,
        "recompile_reason": guard(7, 8),
    }
    result = trace(
        [
            reasons((0, 8), *[guard(e, e + 1) for e in reversed(range(8))]),
            event("compilation_metrics", metadata=metrics_213, compile_id=(0, 8)),
        ]
    )
    (r,) = result.recompiles
    assert (r.compile_id, r.limit) == ("0/8", "recompile_limit (8)")
    # torch 2.6: bwd_compilation_metrics, RecompileLimitExceeded, "cache_size_limit reached", no value given
    metrics_26 = {"compile_id": "0/8", "fail_type": "RecompileLimitExceeded", "fail_reason": "cache_size_limit reached"}
    result = trace(
        [
            reasons((0, 8), guard(7, 8), guard(6, 7)),
            event("bwd_compilation_metrics", metadata=metrics_26, compile_id=(0, 8)),
        ]
    )
    (r,) = result.recompiles
    assert r.limit.startswith("cache_size_limit")  # its value read from torch's config where the text has none
    # a limit with no reasons logged for it still makes one recompile, from the metrics' own reason
    result = trace([event("compilation_metrics", metadata=metrics_213, compile_id=(0, 8))])
    (r,) = result.recompiles
    assert (r.limit, r.reason.splitlines()[0], r.source) == (
        "recompile_limit (8)",
        "0/7: G['calls'][0] == 8",
        "G['calls'][0]",
    )


def test_other_compile_failures_are_no_limit():
    assert recompile_limit_hit({"fail_type": "Unsupported", "fail_reason": "call_function UserDefinedObject"}) == ""
    assert recompile_limit_hit({"fail_type": "Unsupported", "fail_reason": LIMIT_213}) == "recompile_limit (8)"
    assert recompile_limit_hit(
        {"fail_type": "RecompileLimitExceeded", "fail_reason": "accumulated_cache_size_limit reached"}
    ).startswith("accumulated_cache_size_limit")
    assert (
        trace([event("compilation_metrics", metadata={"fail_type": "Unsupported", "fail_reason": "x"})]).recompiles
        == []
    )


def test_the_digest_words_the_limit_where_recompiles_are_shown():
    r = Recompile(
        reason="0/7: G['calls'][0] == 8", compile_id="0/8", source="G['calls'][0]", line=1, limit="recompile_limit (8)"
    )
    said = "compile 0/8 hit torch._dynamo.config.recompile_limit (8): Dynamo runs this frame eagerly from now on"
    assert limit_text(r) == said
    assert failed_guard_text(r) == f"{said}; the guard on calls[0] (cell line 1) failed"
    assert recompile_text(r).startswith(said)
    assert limit_text(Recompile(reason="x")) == ""


# -- real compiles: the count agrees with TORCH_LOGS=recompiles --------------------------------


class _Count(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.n = 0

    def emit(self, record):
        if record.getMessage().startswith("Recompiling function"):
            self.n += 1


def _profile_counting_recompile_logs(body: str, ns: dict, **options):
    torch._logging.set_logs(recompiles=True)
    logger = logging.getLogger("torch._dynamo.guards.__recompiles")
    counter = _Count()
    logger.addHandler(counter)
    try:
        run = run_cell(body, ns, **options).run
    finally:
        logger.removeHandler(counter)
        torch._logging.set_logs()
    return run, counter.n


@pytest.mark.compiles
def test_a_cell_cycling_three_sizes_recompiles_twice_as_dynamo_logs():
    import itertools

    ns = {"torch": torch, "sizes": itertools.cycle([3, 4, 5])}
    run, logged = _profile_counting_recompile_logs(
        "n = next(sizes)\ny = torch.ones(n) * 2\n", ns, dynamic=False, **CHEAP
    )
    assert logged == 2, "sizes 4 and 5; later calls find their entries"
    assert len(run.recompiles) == logged, [r.reason for r in run.recompiles]  # the old count was 1 + 2 = 3
    assert not any(r.limit for r in run.recompiles)
    assert all("#" not in r.reason.splitlines()[0] for r in run.recompiles), "Dynamo's padded comment is trimmed"


@pytest.mark.compiles
def test_a_frame_past_the_recompile_limit_counts_as_dynamo_logs_and_the_limit_is_said():
    calls = [0]

    def bump():
        calls[0] += 1
        return calls[0]

    ns = {"torch": torch, "bump": bump, "state": {"k": 0}}
    # a Python int read in the cell and guarded on: each call a new value, each call a recompile
    body = "state['k'] += 1\ny = torch.ones(3) * state['k']\n"
    with torch._dynamo.config.patch(recompile_limit=3):
        run, logged = _profile_counting_recompile_logs(body, ns, **{**CHEAP, "repeat": 4})
    assert logged == 3, "compiles 1 and 2, and the third that hit the limit"
    assert len(run.recompiles) == logged, [r.compile_id for r in run.recompiles]  # the old count was 1 + 2 + 3 = 6
    limited = [r for r in run.recompiles if r.limit]
    assert [r.limit for r in limited] == ["recompile_limit (3)"]
    assert limited[0] is run.recompiles[-1] and limited[0].compile_id.endswith("/3")
    assert any(
        n.kind == "recompile_limit"
        and n.values["compile_id"] == limited[0].compile_id
        and n.values["limit"] == "recompile_limit (3)"
        for n in run.notes
    ), run.notes
    assert "recompile_limit (3): Dynamo runs this frame eagerly from now on" in str(run)
    assert all("  # " not in r.reason.splitlines()[0] for r in run.recompiles)


@pytest.mark.compiles
def test_compiles_after_timing_count_too_as_dynamo_logs_them():
    # every call recompiles; the correctness run and the profiler pass call the compiled code after the
    # timed rounds, and their compiles were dropped (a rank-dependent step hit the limit there, unsaid).
    # Dozens of compiles: under aot_eager (Inductor is not the subject), with the profiler pass (not --quick).
    ns = {"torch": torch, "state": {"k": 0}}
    body = "state['k'] += 1\ny = torch.ones(3) * state['k']\n"
    with torch._dynamo.config.patch(recompile_limit=64):
        run, logged = _profile_counting_recompile_logs(body, ns, **{**FAST, "repeat": 3, "backend": "aot_eager"})
    assert len(run.recompiles) == logged, [r.compile_id for r in run.recompiles]
    after_timing = [r for r in run.recompiles if not r.during_timing]
    assert len(after_timing) > 2, "warm-up's, the correctness run's and the profiler pass's"
    assert all(r.variant == "aot_eager" for r in run.recompiles)


@pytest.mark.compiles
def test_a_scheduled_learning_rate_recompiles_in_the_warm_up_not_in_the_samples_and_the_fix_is_named():
    # SGD's step frame guards on the float lr; ExponentialLR changes it each call, so the frame recompiles
    # on each of the next calls until the recompile limit sends it to eager (a Llama step read 386x
    # slower when its samples held those compiles; steady state 1.57x faster)
    import compile_profile
    from compile_profile.digest.guards import float_lr_hint

    FLOAT_LR_HINT = float_lr_hint(["sched"])
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)

    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        sched.step()
        return loss

    with torch._dynamo.config.patch(recompile_limit=4):
        run = compile_profile.profile(step, torch.randn(4, 8), backend="aot_eager", **FAST)
    assert run.lr_schedulers == ["sched"], "the step closes over it"
    lr_recompiles = [r for r in run.recompiles if r.source == "self.param_groups[0]['lr']"]
    assert len(lr_recompiles) == 4 and lr_recompiles[-1].limit == "recompile_limit (4)", run.recompiles
    assert not any(r.during_timing for r in run.recompiles), "the warm-up waited them out"
    assert not run.variant("aot_eager").recompiled_during_timing
    assert any(n.kind == "warmup_kept_compiling" and n.values["extra_calls"] > 0 for n in run.notes), run.notes
    text = str(run)
    assert "recompile ×4 (aot_eager): compile" in text and FLOAT_LR_HINT in text
    causes = [line for line in text.splitlines() if re.match(r"  \d+\. ", line)]  # the diagnosis, at the top
    details = [line for line in text.splitlines() if line not in causes]
    assert "\n".join(details).count(FLOAT_LR_HINT) == 1, "said once for the four recompiles together"
    assert [c for c in causes if "4 recompiles" in c and FLOAT_LR_HINT in c], causes
    assert any(FLOAT_LR_HINT in w for w in run.summary()["warnings"]), "and on the card"


def test_a_guard_compared_by_its_name_in_the_frame_is_the_failed_guards_source():
    from compile_profile.engine.trace.guards import failed_guard_source

    assert failed_guard_source("4/0: self.param_groups[0]['lr'] == 0.09000000000000001") == "self.param_groups[0]['lr']"
    assert failed_guard_source("0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16") == "x"
    r = Recompile(reason="4/0: self.param_groups[0]['lr'] == 0.09", source="self.param_groups[0]['lr']")
    assert failed_guard_text(r).startswith(
        "the guard on self.param_groups[0]['lr'] failed: the learning rate changed between steps"
    )
    assert "learning rate" not in failed_guard_text(Recompile(reason="", source="L['x']"))


def test_a_guard_in_a_librarys_frame_is_placed_on_the_cell_line_that_called_into_it_and_names_that_frame():
    # GPT-2 over two sequence lengths: transformers' ForCausalLMLoss recompiled on its own parameter `labels`,
    # and the cell line that merely read a variable of that name was blamed (review)
    from compile_profile.engine.common.torch_features import caller_lines_reliable

    lib = "/venv/lib/python3.11/site-packages/transformers/loss/loss_utils.py"
    stack = [
        {"filename": "<cell>", "line": 2, "name": "<module>", "loc": "y = torch.ones(n) * 2"},
        {"filename": lib, "line": 51, "name": "ForCausalLMLoss"},
    ]
    start = event("dynamo_start", None, {"stack": stack}, (5, 1))
    result = trace([reasons((5, 1), "5/0: tensor 'n' size mismatch at index 1. expected 8, actual 16"), start])
    (r,) = result.recompiles
    assert (r.source, r.frame, r.filename, r.file_line) == ("n", "ForCausalLMLoss", lib, 51)
    assert r.line == (2 if caller_lines_reliable() else None), "not cell line 1, which reads another n"
    assert failed_guard_text(r).startswith("n in ForCausalLMLoss (transformers/loss/loss_utils.py:51")
    # what changed, and a fix that is the user's to make: not a mark on the library's own variable
    assert failed_guard_text(r).endswith(" changed dim 1: 8 → 16; fix: compile with dynamic=True")
    unnamed = Recompile(reason="5/0: len(args[0]) == 2", frame="wrapper", filename=lib, file_line=9, line=2)
    assert failed_guard_text(unnamed) == (
        "a guard in wrapper (transformers/loss/loss_utils.py:9, called from cell line 2) failed"
    )
    # the cell's own frame: its variable, on the first line that reads it
    own = event("dynamo_start", None, {"stack": [stack[0]]}, (0, 1))
    (r,) = trace([reasons((0, 1), "0/0: tensor 'n' size mismatch at index 0. expected 3, actual 4"), own]).recompiles
    assert (r.frame, r.line) == ("", 1)


def test_recompiling_is_compile_time_the_headline_and_the_pay_back_count():
    from compile_profile.digest import headline, payback
    from render_fixtures import cpu_run

    run = cpu_run()
    best = run.speedup_variant
    run.speedup.value, run.speedup.low, run.speedup.high = 2.0, 1.9, 2.1  # faster: a pay-back to count
    run.eager.timing.median_ms = 2 * best.timing.median_ms
    saving_ms = run.eager.timing.median_ms - best.timing.median_ms
    before = payback(run).calls
    best.recompile_s = 3 * best.compile_s
    assert f"(+{format_s(best.recompile_s)} recompiling)" in headline(run)
    pays = payback(run)
    assert pays.calls == math.ceil(round((best.compile_s + best.recompile_s) * 1000 / saving_ms, 9))
    assert pays.calls > 3 * before and f"and {format_s(best.recompile_s)} more recompiling" in pays.text
