"""A compile that fails reads as where it failed (issue 26, item 1): the compiler stage, the cell line and the
library frame the failing operation came from, the exception's own message, and whether the same code compiles
and runs under backend="aot_eager" (then the failure is Inductor's, not the code's).

Each failure is made deterministic: a lowering that raises (patched into Inductor's table), a C++ compiler that
does not exist, a graph break under fullgraph.  Inductor's caches are off, so no cached graph skips the failing
step."""

from __future__ import annotations

import contextlib
import gc
import inspect
import io
import os
import subprocess
import sys
import typing

import compile_failure_lib
import pytest
import torch
from compile_profile import profile
from compile_profile.digest import summarize
from compile_profile.engine.failure.compile_failure import CompileStage
from compile_profile.profile_run import ErrorInfo
from profile_options import FAST
from torch._inductor import config as inductor_config
from torch._inductor import lowering


def _line_of(fn, text: str) -> int:
    """The line of ``fn``'s source holding ``text``, counted as profile() counts: the def line is 1."""
    return next(i for i, line in enumerate(inspect.getsource(fn).splitlines(), 1) if text in line)


@contextlib.contextmanager
def _tanh_lowering_raises():
    def refuse(*args, **kwargs):
        raise RuntimeError("tanh made to fail in its lowering")

    saved = lowering.lowerings[torch.ops.aten.tanh.default]
    lowering.lowerings[torch.ops.aten.tanh.default] = refuse
    try:
        with inductor_config.patch(force_disable_caches=True):
            yield
    finally:
        lowering.lowerings[torch.ops.aten.tanh.default] = saved


def _quiet_profile(fn, *args, **options):
    # Inductor's failures are the subject: no profiler pass or float64 reference is needed to show them
    with contextlib.redirect_stderr(io.StringIO()):
        return profile(fn, *args, **{**FAST, "quick": True, **options})


def in_the_cell(x):
    y = x * 2
    return torch.tanh(y) + 1


def through_a_library(x):
    y = x + 1
    return compile_failure_lib.squash(y)


@pytest.mark.compiles
def test_a_lowering_that_fails_is_reported_at_its_stage_and_line_and_inductors_own():
    torch._dynamo.reset()
    with _tanh_lowering_raises():
        run = _quiet_profile(in_the_cell, torch.randn(8))
    assert run.status == "failed"
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "inductor_lowering"
    assert error.line == _line_of(in_the_cell, "torch.tanh(y)")
    assert "tanh made to fail in its lowering" in error.message
    assert error.aot_eager == "runs" and error.frame_file == ""  # the op is the cell's own
    summary = summarize(run)
    assert summary["headline"].startswith("compile failed (inductor/default) in Inductor's lowering")
    said = summary["warnings"][0]
    assert f"at cell line {error.line} (return torch.tanh(y) + 1)" in said
    assert "so the failure is Inductor's, not your code's" in said


@pytest.mark.compiles
def test_a_failing_operation_in_a_library_names_the_librarys_frame_and_the_cell_line_that_called_it():
    torch._dynamo.reset()
    with _tanh_lowering_raises():
        run = _quiet_profile(through_a_library, torch.randn(8))
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "inductor_lowering"
    assert error.line == _line_of(through_a_library, "compile_failure_lib.squash(y)")
    assert error.frame_file.endswith("compile_failure_lib.py")
    assert error.frame_line == _line_of(compile_failure_lib.squash, "torch.tanh(x)") + 5  # the def is the file's line 6
    assert error.frame_code == "return torch.tanh(x) * 0.5"
    assert "inside " in summarize(run)["warnings"][0] and "compile_failure_lib.py" in summarize(run)["warnings"][0]


@pytest.mark.compiles
def test_a_kernel_that_does_not_compile_is_reported_as_the_kernel_compile():
    torch._dynamo.reset()
    with inductor_config.patch({"force_disable_caches": True, "cpp.cxx": (None, "/nonexistent/c++")}):
        run = _quiet_profile(in_the_cell, torch.randn(8))
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "kernel_compile", (error.compile_stage, error.message)
    assert error.aot_eager == "runs"


@pytest.mark.compiles
def test_a_graph_break_under_fullgraph_is_dynamos_and_not_tried_under_aot_eager():
    def breaks(x):
        y = x.sin()
        print("a side effect")
        return y.cos()

    torch._dynamo.reset()
    run = _quiet_profile(breaks, torch.randn(8), fullgraph=True)
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "dynamo" and error.aot_eager == ""
    assert error.line == _line_of(breaks, 'print("a side effect")')
    assert "while Dynamo traced the code" in summarize(run)["headline"]


# every stage the engine can read off a traceback (its own Literal), each with the ErrorInfo field that carries it
STAGES = [s for s in typing.get_args(CompileStage) if s]


def test_the_run_file_carries_every_stage_the_engine_reads():
    assert typing.get_args(typing.get_type_hints(ErrorInfo)["compile_stage"]) == typing.get_args(CompileStage)


@pytest.mark.parametrize("stage", STAGES)
def test_a_compile_failure_says_the_words_of_its_stage_and_no_others(stage):
    from compile_profile.digest.notes import COMPILE_STAGE_WORDS, compile_failure_text

    error = ErrorInfo(stage="compile", message="it broke", type="RuntimeError", variant="inductor/default")
    error.compile_stage = stage
    words = COMPILE_STAGE_WORDS[stage]
    assert words and len(set(COMPILE_STAGE_WORDS.values())) == len(COMPILE_STAGE_WORDS)
    assert compile_failure_text(error).startswith(f"compile failed (inductor/default) {words}: it broke")
    said = compile_failure_text(error)
    assert [s for s, w in COMPILE_STAGE_WORDS.items() if w in said] == [stage]


def test_a_compile_failure_of_no_known_stage_says_no_stage():
    from compile_profile.digest.notes import COMPILE_STAGE_WORDS, compile_failure_text

    error = ErrorInfo(stage="compile", message="it broke", type="RuntimeError", frame_file="lib/x.py", frame_line=3)
    said = compile_failure_text(error)
    assert said.startswith("compile failed, inside lib/x.py:3: ")
    assert not any(w in said for w in COMPILE_STAGE_WORDS.values())


@pytest.mark.compiles
def test_bisect_finds_the_lowering_that_was_made_to_fail_and_says_so(capsys):
    torch._dynamo.reset()
    with _tanh_lowering_raises():
        run = _quiet_profile(in_the_cell, torch.randn(8), bisect=True)
    gc.collect()
    # the bisector's own prints ("Bisection status deleted.") go nowhere, also when it cleans up
    assert "isection" not in capsys.readouterr().out
    b = run.bisection
    assert b is not None and b.variant == "inductor/default", b
    assert (b.outcome, b.backend, b.subsystem) == ("found", "inductor", "lowerings"), b
    assert "tanh" in b.debug_info and b.runs >= 3
    said = summarize(run)["warnings"]
    assert any(w.startswith("bisected (") and "Inductor's lowering of ATen ops" in w for w in said), said
    assert run.stage_s.get("bisect", 0) > 0


@pytest.mark.compiles
def test_a_cell_that_fails_in_dynamo_on_its_own_code_is_not_bisected():
    def breaks(x):
        print("a side effect")
        return x.cos()

    torch._dynamo.reset()
    run = _quiet_profile(breaks, torch.randn(8), fullgraph=True, bisect=True)
    assert run.status == "failed" and run.bisection is None


def relu_then_add(x):
    y = torch.relu(x)
    return y + 1


@pytest.mark.compiles
def test_the_reproducer_runs_on_its_own_and_fails_the_same_way(tmp_path):
    # torch's own testing hook: Inductor's C++ code for relu does not compile
    torch._dynamo.reset()
    with inductor_config.patch({"force_disable_caches": True, "cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}):
        run = _quiet_profile(relu_then_add, torch.randn(4, 8))
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "kernel_compile" and error.aot_eager == "runs"
    # no operation was being lowered: the lines are the graph's it was compiling
    assert error.graph_lines == [_line_of(relu_then_add, "torch.relu(x)"), _line_of(relu_then_add, "return y + 1")]
    assert error.line == error.graph_lines[0]
    said = summarize(run)["warnings"][0]
    assert "for the graph of cell lines 2–3:" in said, said
    # the testing switch that made it fail is not at its default: named, and no PyTorch issue suggested
    assert "torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = 'compile_error' (default None)" in said
    assert "PyTorch issue" not in said
    script = error.reproducer
    assert script.startswith("# A reproducer written by compile-profile")
    assert f"#   torch {torch.__version__}" in script and "run_repro(" in script
    assert "inject_relu_bug_TESTING_ONLY = 'compile_error'" in script  # the config that made it fail travels
    path = tmp_path / "repro.py"
    path.write_text(script)
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode != 0
    assert error.type in done.stderr or "CppCompileError" in done.stderr, done.stderr[-2000:]


@pytest.mark.compiles
def test_the_cli_writes_a_runs_reproducer_or_says_why_there_is_none(tmp_path, capsys):
    from compile_profile.cli import main
    from compile_profile.store import RunStore

    torch._dynamo.reset()
    with inductor_config.patch({"force_disable_caches": True, "cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}):
        failed = _quiet_profile(relu_then_add, torch.randn(4, 8))
    fine = _quiet_profile(relu_then_add, torch.randn(4, 8))
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        store.put(failed)
        store.put(fine)
    out = tmp_path / "repro.py"
    assert main(["--db", str(db), "repro", failed.id, "-o", str(out)]) == 0
    assert out.read_text() == failed.errors[0].reproducer
    capsys.readouterr()
    assert main(["--db", str(db), "repro", fine.id]) == 2
    assert "no compile of it failed" in capsys.readouterr().err


@contextlib.contextmanager
def _a_post_grad_pass_turns_add_into_sub():
    """A miscompile made in one of Inductor's post-grad passes: ``reorder_for_locality`` (run on every inference
    graph, through the bisector's post_grad_passes subsystem) also rewrites each ``aten.add.Tensor`` as ``sub``."""
    from torch._inductor.fx_passes import post_grad

    reorder = post_grad.reorder_for_locality

    def reorder_and_miscompile(graph):
        for node in graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor):
            node.target = torch.ops.aten.sub.Tensor
        return reorder(graph)

    post_grad.reorder_for_locality = reorder_and_miscompile
    try:
        with inductor_config.patch(force_disable_caches=True):
            yield
    finally:
        post_grad.reorder_for_locality = reorder


def sine_plus(x):
    y = torch.sin(x)
    return y + x


@pytest.mark.compiles
def test_a_miscompile_made_in_one_post_grad_pass_is_bisected_to_that_pass_by_the_cards_rule():
    torch._dynamo.reset()
    with _a_post_grad_pass_turns_add_into_sub():
        run = _quiet_profile(sine_plus, torch.randn(64), bisect=True)
    assert run.correctness is not None and run.correctness.ok is False, run.correctness
    b = run.bisection
    assert b is not None and b.kind == "mismatch" and b.variant == "inductor/default", b
    assert (b.outcome, b.backend, b.subsystem) == ("found", "inductor", "post_grad_passes"), b
    assert b.debug_info == "reorder_for_locality" and b.runs >= 4
    said = summarize(run)["warnings"]
    differ = next(i for i, w in enumerate(said) if w.startswith("compiled results differ"))
    assert said[differ + 1].startswith("bisected (") and "starts differing" in said[differ + 1], said
    # the bisector counts from 0: the pass's first application, as the card counts
    assert (
        b.bisect_number == 0 and "post-grad graph passes, at application #1 (reorder_for_locality)" in said[differ + 1]
    )


@pytest.mark.compiles
def test_results_that_match_eager_are_not_bisected():
    torch._dynamo.reset()
    with inductor_config.patch(force_disable_caches=True):
        run = _quiet_profile(sine_plus, torch.randn(64), bisect=True)
    assert run.correctness is not None and run.correctness.ok is True
    assert run.bisection is None and "bisect" not in run.stage_s


counted = torch.zeros(16)  # a global the step changes in place, as a training step its weights


def counting_step(x):
    counted.add_(1.0)
    return torch.sin(x) * counted


@pytest.mark.compiles
def test_a_mismatch_in_a_step_that_changes_a_tensor_in_place_is_bisected_and_leaves_it_as_before_the_bisection(
    monkeypatch,
):
    """The step adds to a global tensor in place: every bisection run starts from the value the correctness check
    started from (else each run would read another and differ by that alone), and the bisection leaves the tensor
    as the profile's last eager run left it, though each of its runs changed it.  (Compared around the bisection
    itself: how many calls the timing made, and so the value a whole profile ends with, varies from run to run.)"""
    from compile_profile.engine.run import stages as profiler

    bisect_mismatch = profiler.bisect_mismatch
    seen: dict[str, torch.Tensor] = {}

    def around(session):
        seen["before"] = counted.clone()
        bisect_mismatch(session)
        seen["after"] = counted.clone()

    monkeypatch.setattr(profiler, "bisect_mismatch", around)
    torch.manual_seed(0)
    counted.copy_(torch.randn(16))
    torch._dynamo.reset()
    with _a_post_grad_pass_turns_add_into_sub():
        run = _quiet_profile(counting_step, torch.randn(16), bisect=True)
    assert run.correctness is not None and run.correctness.ok is False, run.correctness
    b = run.bisection
    assert b is not None and (b.outcome, b.subsystem) == ("found", "post_grad_passes") and b.runs >= 4, b
    assert torch.equal(seen["after"], seen["before"])


@pytest.mark.compiles
def test_a_mismatch_in_a_cell_that_draws_from_a_list_iterator_is_bisected_on_the_items_the_check_compared():
    """The bisection runs after the profile has moved the iterator on, as a plain run would: each of its runs is
    given the items the correctness check's runs were, or every backend would differ by the batch alone."""
    from cell_runs import run_cell

    torch.manual_seed(0)
    items = list(torch.randn(5000, 4, 8))  # the timing draws one per call
    ns = {"torch": torch, "batches": iter(items)}
    torch._dynamo.reset()
    with _a_post_grad_pass_turns_add_into_sub(), contextlib.redirect_stderr(io.StringIO()):
        run = run_cell("xb = next(batches)\nyb = torch.sin(xb) + xb\n", ns, bisect=True, quick=True).run
    assert run.correctness is not None and run.correctness.ok is False and run.correctness.replayed == ["batches"]
    b = run.bisection
    assert b is not None and (b.outcome, b.backend, b.subsystem) == ("found", "inductor", "post_grad_passes"), b


def test_a_library_installed_in_a_venv_under_a_folder_named_torch_is_not_taken_for_pytorchs_own_code():
    """The H200's venv is /opt/torch/.venv: timm's frame (the library frame a ConvNeXt's failed compile came from)
    read as PyTorch's, and the card named no library frame."""
    from compile_profile.engine.failure.compile_failure import in_torch

    assert not in_torch("/opt/torch/.venv/lib/python3.12/site-packages/timm/layers/mlp.py")
    assert in_torch("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/linear.py")
    assert in_torch(torch.nn.functional.__file__) and in_torch("<eval_with_key>.12")
    assert not in_torch(compile_failure_lib.__file__)


@pytest.mark.compiles
def test_a_bisection_that_leaves_the_python_dispatcher_on_says_so_and_to_restart_the_kernel(monkeypatch):
    """On an H200 (torch 2.11) --bisect of a timm ConvNeXt's failing compile under inference_mode left torch's Python
    dispatcher switched on, and the next eager call failed ("Hit PythonDispatcher dispatch key but
    PythonDispatcherTLS was not set").  Setting the key back by hand made it worse there, so the run says it: the
    bisector here is made to leave the key on."""
    from torch._inductor.compiler_bisector import CompilerBisector

    key = torch._C.DispatchKey.PythonDispatcher

    def leaves_it_on(test):
        torch._C._dispatch_tls_set_dispatch_key_included(key, True)

    monkeypatch.setattr(CompilerBisector, "do_bisect", leaves_it_on)
    torch._dynamo.reset()
    try:
        with _tanh_lowering_raises():
            run = _quiet_profile(in_the_cell, torch.randn(8), bisect=True)
        left_on = torch._C._dispatch_tls_is_dispatch_key_included(key)
    finally:
        torch._C._dispatch_tls_set_dispatch_key_included(key, False)
    assert left_on and run.bisection is not None
    said = summarize(run)["notes"]
    assert any("left torch's Python dispatcher switched on" in n and "restart the kernel" in n for n in said), said


@pytest.mark.compiles
def test_a_missing_cpp_compiler_under_bisect_is_the_setup_naming_cpp_cxx_and_no_lowering_nor_a_pytorch_issue():
    """With cpp.cxx pointing at no compiler the bisection read "starts failing … in Inductor's lowering of ATen ops, at
    application #2 (neg)" and the card suggested a PyTorch issue: no kernel compiles, whichever lowering."""
    torch._dynamo.reset()
    with inductor_config.patch({"force_disable_caches": True, "cpp.cxx": (None, "/nonexistent/c++")}):
        run = _quiet_profile(in_the_cell, torch.randn(8), bisect=True)
    assert inductor_config.cpp.cxx == (None, "g++")  # the test's setting is undone
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "kernel_compile" and error.toolchain == "broken"
    assert run.bisection is not None and run.bisection.outcome == "setup", run.bisection
    assert run.configs_changed is not None
    assert [s.name for s in run.configs_changed] == [
        "torch._inductor.config.cpp.cxx",
        "torch.compiler.config.force_disable_caches",
    ]
    said = summarize(run)["warnings"]
    failure, bisection = said[0], said[1]
    assert failure.startswith("compile failed (inductor/default) compiling Inductor's kernels") and "setup" in failure
    assert f"for the graph of cell lines {_line_of(in_the_cell, 'y = x * 2')}–" in failure
    assert bisection.startswith("not bisected: no kernel compiles here") and "setup" in bisection
    for text in (failure, bisection):
        assert "torch._inductor.config.cpp.cxx = (None, '/nonexistent/c++') (default (None, 'g++'))" in text, text
        assert "lowering of ATen ops" not in text and "application #" not in text
        assert "force_disable_caches" not in text  # it changes no compiled code
    assert not any("PyTorch issue" in w for w in said), said


@pytest.mark.compiles
def test_a_kernel_that_fails_to_compile_in_one_lowering_is_not_taken_for_the_setup():
    """The one-op kernel compiles, so a C++ compile error of relu's code alone is bisected (here stopped at once)."""
    torch._dynamo.reset()
    with inductor_config.patch({"force_disable_caches": True, "cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}):
        run = _quiet_profile(relu_then_add, torch.randn(4, 8), bisect=True, bisect_timeout_s=0.0)
    (error,) = [e for e in run.errors if e.stage == "compile"]
    assert error.compile_stage == "kernel_compile" and error.toolchain == "works", error.toolchain_error
    assert run.bisection is not None and run.bisection.outcome == "timed_out"


def _interrupt_at_bisection_run(n: int, raised: list[BaseException]):
    """A progress callback that raises KeyboardInterrupt as the bisection's run ``n`` starts, as Ctrl-C would, and
    keeps it in ``raised``, as IPython keeps the last traceback (``sys.last_traceback``) until the next error."""

    def progress(message: str) -> None:
        if f"bisecting inductor/default: run {n}," in message:
            raised.append(KeyboardInterrupt())
            raise raised[-1]

    return progress


@pytest.mark.compiles
def test_an_interrupt_during_bisect_leaves_the_bisector_off_and_torch_compile_counting_frames_with_inductor(capsys):
    """Ctrl-C in a bisection left CompilerBisector on: every later torch.compile got the bisector's backend
    (CompileCounterWithBackend('inductor') counted 0 frames) and "Bisection status deleted." printed in a later cell."""
    from torch._dynamo.testing import CompileCounterWithBackend
    from torch._inductor.compiler_bisector import BACKENDS, CompilerBisector

    subsystems = {name: list(table) for name, table in BACKENDS.items()}
    raised: list[BaseException] = []
    torch._dynamo.reset()
    with _tanh_lowering_raises():
        run = _quiet_profile(in_the_cell, torch.randn(8), bisect=True, progress=_interrupt_at_bisection_run(2, raised))
    assert run.status == "interrupted" and run.bisection is None
    assert len(raised) == 1 and raised[0].__traceback__ is not None  # the interrupt, with its traceback, is kept
    gc.collect()
    assert not CompilerBisector.bisection_enabled and CompilerBisector.in_process_cache is None
    assert CompilerBisector.get_backend() is None and BACKENDS == subsystems
    counter = CompileCounterWithBackend("inductor")

    def fresh(x):
        return torch.cos(x) * 3

    torch._dynamo.reset()
    assert torch.allclose(torch.compile(fresh, backend=counter)(torch.ones(4)), torch.cos(torch.ones(4)) * 3)
    assert counter.frame_count > 0
    raised.clear()  # the next error replaces IPython's last traceback
    gc.collect()
    assert capsys.readouterr().out == ""  # the bisector's cleanup printed nothing later


def noisy_sine(x):
    n = torch.randn(64)
    return torch.sin(x) + n


@pytest.mark.compiles
def test_with_fallback_random_on_a_miscompile_in_a_cell_that_draws_random_numbers_is_compared_and_bisected():
    """With fallback_random = True set, compiled code draws eager's numbers: a post-grad pass that turns add into sub
    was reported "not compared: the cell draws random numbers … set fallback_random = True" and not bisected."""
    torch._dynamo.reset()
    with inductor_config.patch(fallback_random=True), _a_post_grad_pass_turns_add_into_sub():
        # the float64 reference's rule for random draws is the subject too: not --quick
        run = _quiet_profile(noisy_sine, torch.randn(64), bisect=True, quick=False)
    c = run.correctness
    assert c is not None and c.ok is False and c.mismatched == ["<result>"], c
    assert c.note is not None and c.note.kind == "reference_random"
    b = run.bisection
    assert b is not None and b.kind == "mismatch", b
    assert (b.outcome, b.backend, b.subsystem, b.debug_info) == (
        "found",
        "inductor",
        "post_grad_passes",
        "reorder_for_locality",
    )
    said = summarize(run)["warnings"]
    differ = next(w for w in said if w.startswith("compiled results differ"))
    assert "fallback_random is on), so compared with eager only" in differ
    assert "set torch._inductor.config.fallback_random" not in " ".join(said)
    assert "which may be the cause" not in differ  # fallback_random brings compiled code nearer eager


def test_the_settings_not_at_their_defaults_are_read_from_torchs_config_modules():
    from compile_profile.engine.failure.changed_settings import non_default_settings

    assert non_default_settings() == []
    with inductor_config.patch({"cpp.cxx": (None, "/nowhere/c++"), "fallback_random": False}):
        (setting,) = non_default_settings()  # fallback_random set to its own default does not count
    assert (setting.name, setting.value, setting.default) == (
        "torch._inductor.config.cpp.cxx",
        "(None, '/nowhere/c++')",
        "(None, 'g++')",
    )
    with torch._dynamo.config.patch(recompile_limit=2):
        assert [s.name for s in non_default_settings()] == ["torch._dynamo.config.recompile_limit"]


def _failed_in_inductor(**fields) -> ErrorInfo:
    error = ErrorInfo(stage="compile", message="it broke", type="RuntimeError", variant="inductor/default", **fields)
    error.compile_stage, error.aot_eager = "inductor_lowering", "runs"
    return error


def test_a_pytorch_issue_is_suggested_only_where_every_setting_that_changes_code_is_at_its_default():
    from compile_profile.digest.notes import compile_failure_text
    from compile_profile.profile_run import ConfigSetting

    caches_off = ConfigSetting("torch.compiler.config.force_disable_caches", "True", "False")
    unsafe = ConfigSetting("torch._inductor.config.freezing", "True", "False")
    error = _failed_in_inductor()
    assert "it is worth a PyTorch issue" in compile_failure_text(error, settings=[caches_off])
    said = compile_failure_text(error, settings=[caches_off, unsafe])
    assert "PyTorch issue" not in said
    assert "not at its default: torch._inductor.config.freezing = True (default False), which may be the cause" in said
    # a run that recorded no settings (stored before they were) keeps the hedged wording
    assert "unless a setting of yours caused it" in compile_failure_text(error)


def test_a_setup_failure_names_the_toolchain_where_no_setting_is_off_its_default():
    from compile_profile.digest.notes import bisection_text, compile_failure_text
    from compile_profile.profile_run import Bisection

    error = _failed_in_inductor(toolchain="broken", toolchain_error="CppCompileError: omp.h not found")
    error.compile_stage = "kernel_compile"
    cpu = compile_failure_text(error, settings=[])
    assert "a one-op kernel failed too: CppCompileError: omp.h not found" in cpu and "C++ compiler" in cpu
    assert "PyTorch issue" not in cpu and "Inductor's, not your code's" not in cpu
    cuda = bisection_text(Bisection(variant="inductor/default", outcome="setup", runs=1, seconds=2.0), [], "cuda")
    assert cuda.startswith("not bisected (1 run, 2 s): no kernel compiles here") and "Triton" in cuda


def test_several_lines_are_named_as_spans():
    from compile_profile.digest.format import lines_text

    assert lines_text([3]) == "cell line 3"
    assert lines_text([4, 2, 3, 7]) == "cell lines 2–4, 7"
    assert lines_text([5, 9], "train.py") == "train.py lines 5, 9"
