"""%%compile_profile on faulty and stateful cells, in a real IPython kernel.

Each case checks the promises of docs/reliability.md:

* the user sees a clear message, naming the cell line where there is one;
* the kernel keeps working: the next ordinary cell, a plain ``torch.compile``
  included, behaves as if the magic had never run (``assert_kernel_unharmed``:
  same torch state, one compile, no cache entries of ours left);
* the run store holds the run whole, marked failed or interrupted, or nothing
  when the cell was refused before running.

Interrupts are raised deterministically where a Ctrl-C would land: inside the
first eager run, inside Inductor's compile, between timing rounds, and inside
the torch.profiler pass.  Workloads are tiny and reuse one Inductor cache.
"""

from __future__ import annotations

import gc
import logging

import fault_backends
import pytest
import torch
import torch._dynamo.config as dynamo_config
import torch._inductor.config as inductor_config
import torch.nn.modules.module as module_globals
from compile_profile.engine.common.torch_features import _version as torch_version
from compile_profile.engine.common.torch_features import cache_entry_backend
from compile_profile.engine.compiler.dynamo_state import _is_profile_backend
from compile_profile.engine.timing import stage as timing_stage
from compile_profile.magic import CellFailed
from compile_profile.store import RunStore
from IPython.utils.capture import capture_output
from profile_options import CHEAP, CHEAP_FLAGS, CHEAP_VARIANT, FAST_FLAGS
from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list, get_eval_frame_callback
from torch._dynamo import convert_frame
from torch._dynamo.backends import registry
from torch._dynamo.callback import callback_handler

# -- torch state -----------------------------------------------------------------------


def _loggers() -> dict[str, tuple]:
    return {
        name: (logger.level, logger.propagate, logger.disabled, tuple(logger.handlers))
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger) and name.startswith("torch")
    }


def _cache_entries() -> dict[object, int]:
    out = {}
    for ref in list(convert_frame.input_codes.seen):
        code = ref()
        if code is not None:
            out[code] = len(_debug_get_cache_entry_list(code))
    return out


def torch_state() -> dict[str, object]:
    """Everything a profile could leave changed in torch, as comparable values."""
    root = logging.getLogger()
    return {
        "dynamo config": dynamo_config.get_config_copy(),
        "inductor config": inductor_config.get_config_copy(),
        "torch loggers": _loggers(),
        "root logger": (root.level, tuple(root.handlers)),
        "global module hooks": {
            name: tuple(getattr(module_globals, name).items())
            for name in dir(module_globals)
            if name.startswith("_global_") and name.endswith("hooks")
        },
        "dynamo callbacks": (tuple(callback_handler.start_callbacks), tuple(callback_handler.end_callbacks)),
        "dynamo bytecode hooks": tuple(convert_frame._bytecode_hooks.items()),
        "eval frame callback": get_eval_frame_callback(),
        "compile stance": torch._dynamo.eval_frame._stance,
        "tracing context": torch._guards.TracingContext.try_get(),
        "registered backends": sorted(registry._BACKENDS),
        "grad mode": (torch.is_grad_enabled(), torch.is_inference_mode_enabled()),
        "autograd profiler on": torch._C._autograd._profiler_enabled(),
        "default dtype": torch.get_default_dtype(),
        "dynamo cache entries": _cache_entries(),
    }


def _differences(before: dict, after: dict) -> dict[str, object]:
    diffs: dict[str, object] = {}
    for key, old in before.items():
        new = after[key]
        if key == "torch loggers":
            # Modules imported by a first compile add loggers; those must carry no handler of ours.
            changed = {n: (old[n], new.get(n)) for n in old if new.get(n) != old[n]}
            changed |= {n: new[n] for n in new.keys() - old.keys() if new[n][3]}
        elif key == "dynamo cache entries":
            # Codes that existed keep their entries; new codes (the cell's) may have entries, never ours.
            changed = {c.co_name: (n, new.get(c)) for c, n in old.items() if new.get(c, 0) != n}
        elif isinstance(old, dict):
            changed = {k: (old.get(k), new.get(k)) for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        else:
            changed = {} if old == new else {"value": (old, new)}
        if changed:
            diffs[key] = changed
    ours = [
        code.co_name
        for ref in list(convert_frame.input_codes.seen)
        if (code := ref()) is not None
        and any(_is_profile_backend(cache_entry_backend(e)) for e in _debug_get_cache_entry_list(code))
    ]
    if ours:
        diffs["cache entries of the profile's backends"] = ours
    return diffs


def assert_kernel_unharmed(ip, before: dict) -> None:
    """Torch is as before the magic ran, and the next ordinary cell compiles as if it never had."""
    assert _differences(before, torch_state()) == {}
    ip.user_ns["probe"] = torch.arange(6.0).reshape(2, 3)
    graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    with capture_output() as out:
        result = ip.run_cell(
            "def plain_fn(a):\n    return (a.cos() * 3).sum(0)\n"
            "plain = torch.compile(plain_fn)\nfirst, second = plain(probe), plain(probe)\n"
        )
    assert result.error_in_exec is None and result.error_before_exec is None, out.stderr
    ns = ip.user_ns
    expected = (ns["probe"].cos() * 3).sum(0)
    assert torch.allclose(ns["first"], expected) and torch.allclose(ns["second"], expected)
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == graphs + 1, "compiled exactly once"
    entries = _debug_get_cache_entry_list(ns["plain_fn"].__code__)
    assert len(entries) == 1 and not _is_profile_backend(cache_entry_backend(entries[0]))


# -- fixtures and helpers ------------------------------------------------------------------


pytestmark = pytest.mark.compiles  # every test profiles a cell, and warm_torch compiles for all of them


@pytest.fixture(scope="module", autouse=True)
def warm_torch():
    """Import what a first compile imports, so the state snapshots compare like with like."""
    torch.compile(lambda a: a + 1)(torch.ones(2))


@pytest.fixture
def shell(ip):
    ip.user_ns.update(torch=torch, x=torch.ones(4))
    for name in ("prof", "y", "z", "early", "defined", "Defined"):
        ip.user_ns.pop(name, None)
    return ip


def profile(ip, options: str, body: str, flags: str = CHEAP_FLAGS):
    """Run a %%compile_profile cell; return IPython's result, the captured output and the bound run.  The
    cell's state and failures are the subject here, so it profiles under aot_eager with --quick unless
    ``flags`` says otherwise (a test of Inductor's compile or of the profiler pass)."""
    ip.user_ns.pop("prof", None)
    with capture_output() as out:
        result = ip.run_cell(f"%%compile_profile {flags} -o prof {options}\n{body}")
    return result, out, ip.user_ns.get("prof")


def shown_text(out) -> str:
    """The run as the cell shows it (its text/plain), plus what went to stderr."""
    texts = [o.data.get("text/plain", "") for o in out.outputs if "application/vnd.compile-profile.run+json" in o.data]
    assert len(texts) == 1, "the run is displayed once"
    return texts[0] + "\n" + out.stderr


def assert_stored_whole(store_path, run, status: str) -> None:
    stored = RunStore(store_path).get(run.id, with_artifacts=True)
    assert stored.status == status
    assert stored.to_dict() == run.to_dict(), "the store holds the whole run, as displayed"


# -- cells refused before they run -------------------------------------------------------------


@pytest.mark.parametrize(
    "body, line, words",
    [
        ("untouched = 2\nbad = (1,\n", 3, "never closed"),
        ("untouched = 2\nyield untouched\n", 3, "cannot be a generator"),
        ("import asyncio\nawait asyncio.sleep(0)\n", 3, "top-level 'await'"),
        ("untouched = 2\nreturn untouched\n", 3, "'return' outside a function"),
    ],
    ids=["syntax-error", "generator", "await", "return"],
)
def test_cells_refused_before_running_change_nothing(shell, private_run_store, body, line, words):
    # test_magic covers the syntax error's message; here: generators, await, the store and torch state too.
    before = torch_state()
    shell.user_ns["untouched"] = 1
    result, out, run = profile(shell, "", body)
    failure = result.error_in_exec
    assert run is None and isinstance(failure, CellFailed), "refused like a failing cell: Run All stops"
    assert f"cell line {line}" in failure.report and words in failure.report
    assert shell.user_ns["untouched"] == 1
    assert RunStore(private_run_store).count() == 0
    assert_kernel_unharmed(shell, before)


# -- failures -----------------------------------------------------------------------------------


def test_exception_in_eager_is_a_failed_run_and_compiles_nothing(shell, private_run_store):
    # test_magic covers the traceback text; here: the store, the namespace and torch state.
    before = torch_state()
    result, out, run = profile(shell, "", "early = x * 2\nraise ValueError('the cell fails here')\n")
    failure = result.error_in_exec
    assert isinstance(failure, CellFailed), "raised after the card, so Run All stops as for a failing cell"
    assert "the cell fails here" in failure.report and "line 3" in failure.report
    assert "magic.py" not in failure.report, "the traceback is the cell's, not the profiler's"
    text = shown_text(out)
    assert "error [eager, cell line 3]: ValueError: the cell fails here" in text and "status: failed" in text
    assert [line for line in text.splitlines() if line.startswith("error [")] == [
        "error [eager, cell line 3]: ValueError: the cell fails here"
    ], "the card says it once"
    assert run.graphs == [] and [v.name for v in run.variants] == ["eager"]
    # As after a plain failing cell, what the cell assigned before the error lands.
    assert torch.equal(shell.user_ns["early"], shell.user_ns["x"] * 2)
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def test_exception_only_in_the_compiled_variant_keeps_the_eager_results(shell, private_run_store):
    before = torch_state()
    result, out, run = profile(shell, f"--backend {fault_backends.FAILS_WHEN_RUN}", "y = x.sin()\nz = y + 1\n")
    assert result.error_in_exec is None
    assert (
        f"error [compiled run, {fault_backends.FAILS_WHEN_RUN}, cell line 2]: RuntimeError: compiled-only failure"
        in shown_text(out)
    )
    assert run.status == "failed" and run.speedup is None
    assert torch.equal(shell.user_ns["z"], torch.ones(4).sin() + 1), "the eager results land"
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def test_backend_that_fails_to_compile_says_why(shell, private_run_store):
    before = torch_state()
    result, out, run = profile(shell, f"--backend {fault_backends.FAILS_TO_COMPILE}", "y = x.sin()\nz = y + 1\n")
    assert result.error_in_exec is None
    error = run.errors[0]
    assert (error.stage, error.variant) == ("compile", fault_backends.FAILS_TO_COMPILE)
    # The backend's own message, not Dynamo's wrapper header ("backend='compile_profile' raised:").
    assert "this backend cannot compile anything" in error.message
    assert "this backend cannot compile anything" in shown_text(out)
    assert torch.equal(shell.user_ns["z"], torch.ones(4).sin() + 1)
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def test_fullgraph_with_a_graph_break_names_the_line(shell, private_run_store):
    # test_engine_profile.test_compile_failure_keeps_eager_results covers the engine; this is the magic's view.
    before = torch_state()
    result, out, run = profile(shell, "--fullgraph", "y = x.sin()\nprint('breaks the graph')\nz = y + 1\n")
    assert result.error_in_exec is None
    assert f"error [compile, {CHEAP_VARIANT}/fullgraph, cell line 3]" in shown_text(out)
    assert out.stdout.count("breaks the graph") == 1
    assert "z" in shell.user_ns
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


@pytest.mark.parametrize(
    "body",
    [
        "total = sum(range(10))\n",
        "def defined(a):\n    return a * 2\nclass Defined:\n    scale = 3\n",
    ],
    ids=["no-torch-work", "only-definitions"],
)
def test_cells_with_nothing_to_compile_say_so(shell, private_run_store, body):
    before = torch_state()
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None and run.status == "ok" and run.errors == []
    assert "nothing was compiled" in shown_text(out) and run.speedup is None
    ns = shell.user_ns
    if "defined" in body:
        assert ns["defined"](2) == 4 and ns["Defined"].scale == 3, "definitions land and work"
    else:
        assert ns["total"] == 45
    assert_stored_whole(private_run_store, run, "ok")
    assert_kernel_unharmed(shell, before)


# -- interrupts ---------------------------------------------------------------------------------


def _interrupt_on_call(n: int):
    calls = {"count": 0}

    def maybe_interrupt():
        calls["count"] += 1
        if calls["count"] == n:
            raise KeyboardInterrupt

    return maybe_interrupt


def assert_interrupted(result, out, run, store_path, stage: str) -> None:
    assert isinstance(result.error_in_exec, KeyboardInterrupt), "Ctrl-C still stops the notebook"
    text = shown_text(out)
    assert "status: interrupted (interrupted" in text  # and what it holds (digest.facts.interrupted_text)
    assert any(e.type == "KeyboardInterrupt" and stage in (e.stage, e.variant) for e in run.errors), run.errors
    assert run.status == "interrupted"
    assert_stored_whole(store_path, run, "interrupted")


def test_interrupt_in_the_first_eager_run(shell, private_run_store):
    shell.user_ns["tick"] = _interrupt_on_call(1)
    before = torch_state()
    result, out, run = profile(shell, "", "y = x.sin()\ntick()\nz = y + 1\n")
    assert_interrupted(result, out, run, private_run_store, "eager")
    assert "y" not in shell.user_ns and run.graphs == []
    assert_kernel_unharmed(shell, before)


def test_interrupt_inside_inductors_compile(shell, private_run_store, monkeypatch):
    import torch._inductor.compile_fx as compile_fx_module

    real_compile_fx = compile_fx_module.compile_fx

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    def compile_fx_interrupted_in_lowering(model, inputs, **kwargs):
        # AOTAutograd has traced and Inductor's config patches are active when the interrupt lands.
        return real_compile_fx(model, inputs, **{**kwargs, "inner_compile": interrupt})

    import torch._functorch.config as functorch_config

    before = torch_state()
    # A cache hit would skip Inductor's compile, and the interrupt with it.
    with (
        monkeypatch.context() as patched,
        inductor_config.patch(fx_graph_cache=False),
        functorch_config.patch(enable_autograd_cache=False),
    ):
        patched.setattr(compile_fx_module, "compile_fx", compile_fx_interrupted_in_lowering)
        result, out, run = profile(shell, "", "y = x.sin()\nz = y + 1\n", flags=f"{FAST_FLAGS} --quick")
    assert_interrupted(result, out, run, private_run_store, "compile")
    assert "error [compile, inductor/default]: KeyboardInterrupt: interrupted by the user" in shown_text(out)
    assert torch.equal(shell.user_ns["z"], torch.ones(4).sin() + 1), "the eager run's results land"
    assert_kernel_unharmed(shell, before)


def test_interrupt_during_timing_keeps_the_samples_taken(shell, private_run_store, monkeypatch):
    real_run_interleaved = timing_stage.run_interleaved

    def interrupted_after_two_rounds(*args, on_round=None, **kwargs):
        def on_round_then_interrupt(i):
            if i == 2:
                raise KeyboardInterrupt

        return real_run_interleaved(*args, on_round=on_round_then_interrupt, **kwargs)

    before = torch_state()
    with monkeypatch.context() as patched:
        patched.setattr(timing_stage, "run_interleaved", interrupted_after_two_rounds)
        result, out, run = profile(shell, "", "y = x.sin()\nz = y + 1\n")
    assert_interrupted(result, out, run, private_run_store, "timing")
    assert all(v.timing is not None and v.timing.n == 2 for v in run.variants), "two rounds were taken"
    assert run.correctness is None, "nothing after timing ran"
    assert torch.equal(shell.user_ns["z"], torch.ones(4).sin() + 1)
    assert_kernel_unharmed(shell, before)


def test_interrupt_during_the_kernel_profiling_pass(shell, private_run_store, monkeypatch):
    from compile_profile.engine.kernels import profiler_pass as kernel_profiler

    real_measure = kernel_profiler.measure_variant

    def measure_interrupted_on_second_call(run, name, call, before_each, **lines):
        # The interrupt lands inside torch.profiler's recording, on the variant's second call.
        return real_measure(run, name, _then(call, _interrupt_on_call(2)), before_each, **lines)

    def _then(call, tick):
        def wrapped():
            tick()
            return call()

        return wrapped

    before = torch_state()
    with monkeypatch.context() as patched:
        patched.setattr(kernel_profiler, "measure_variant", measure_interrupted_on_second_call)
        result, out, run = profile(shell, "", "y = x.sin()\nz = y + 1\n", flags=f"{FAST_FLAGS} --backend aot_eager")
    assert_interrupted(result, out, run, private_run_store, "kernel timing")
    assert all(v.timing is not None for v in run.variants), "the timed samples are kept"
    assert run.correctness is not None and run.correctness.ok
    assert_kernel_unharmed(shell, before)


# -- state the cell changes in place ----------------------------------------------------------------


def test_a_tensor_changed_in_place_ends_as_after_one_plain_run_though_the_cell_ran_n_times(shell, private_run_store):
    before = torch_state()
    shell.user_ns["counter"] = torch.zeros(3)
    result, out, run = profile(shell, "", "counter.add_(1)\ntwice = counter * 2\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    n = run.cell_runs
    assert n > 5
    text = shown_text(out)
    assert f"the cell ran {n} times" in text
    assert torch.equal(shell.user_ns["counter"], torch.ones(3)), "one plain run adds 1 once"
    assert torch.equal(shell.user_ns["twice"], torch.full((3,), 2.0)), "the bindings are that run's"
    assert "was put back as its first run left it, as after one plain run" in text
    assert_stored_whole(private_run_store, run, "ok")
    assert_kernel_unharmed(shell, before)


def test_with_no_restore_the_tensor_advances_with_every_run_and_the_run_says_by_how_many(shell, private_run_store):
    shell.user_ns["counter"] = torch.zeros(3)
    result, out, run = profile(shell, "--no-restore", "counter.add_(1)\ntwice = counter * 2\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    n = run.cell_runs
    # Every run added 1, except the compiled correctness run and the first eager one, which the restores before
    # the eager one and the second eager one (eager's run-to-run spread) undid.
    assert torch.equal(shell.user_ns["counter"], torch.full((3,), float(n - 2)))
    assert torch.equal(shell.user_ns["twice"], shell.user_ns["counter"] * 2), "bindings are the last run's"
    text = shown_text(out)
    assert f"holds {n - 2} of its runs, not one as after a plain run (--no-restore)" in text
    assert "warning: what the cell changes in place" not in text, "asked for: a note, not a warning"


def test_an_optimizer_step_moves_the_weights_once_and_the_loss_is_that_steps(shell, private_run_store):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    inputs = torch.randn(4, 3)
    start = [p.detach().clone() for p in model.parameters()]
    lr = 0.01
    shell.user_ns.update(model=model, inputs=inputs, opt=torch.optim.SGD(model.parameters(), lr=lr))
    before = torch_state()
    result, out, run = profile(shell, "", "opt.zero_grad()\nloss = model(inputs).sum()\nloss.backward()\nopt.step()\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    n = run.cell_runs
    assert f"the cell ran {n} times" in shown_text(out)
    # d(sum(W x + b))/dW does not depend on W: one step moves the weights by lr times it
    step = [inputs.sum(0).expand(2, 3), torch.full((2,), 4.0)]
    for p, p0, g in zip(model.parameters(), start, step):
        torch.testing.assert_close(p.detach(), p0 - lr * g, rtol=0, atol=1e-6)
        torch.testing.assert_close(p.grad, g, rtol=0, atol=1e-6)
    # the bound loss is the one step's, taken before it
    torch.testing.assert_close(shell.user_ns["loss"].detach(), (inputs @ start[0].T + start[1]).sum())
    assert_stored_whole(private_run_store, run, "ok")
    assert_kernel_unharmed(shell, before)


def test_with_no_restore_the_optimizer_steps_n_minus_2_times_and_the_loss_is_the_last_steps(shell, private_run_store):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    inputs = torch.randn(4, 3)
    start = [p.detach().clone() for p in model.parameters()]
    lr = 0.01
    shell.user_ns.update(model=model, inputs=inputs, opt=torch.optim.SGD(model.parameters(), lr=lr))
    body = "opt.zero_grad()\nloss = model(inputs).sum()\nloss.backward()\nopt.step()\n"
    result, out, run = profile(shell, "--no-restore", body)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    n = run.cell_runs
    step = [inputs.sum(0).expand(2, 3), torch.full((2,), 4.0)]
    for p, p0, g in zip(model.parameters(), start, step):
        torch.testing.assert_close(p.detach(), p0 - (n - 2) * lr * g, rtol=0, atol=1e-4)
    # The bound loss is the one of the last step, taken just before it.
    with torch.no_grad():
        weight, bias = (p + lr * g for p, g in zip(model.parameters(), step))
        torch.testing.assert_close(shell.user_ns["loss"].detach(), (inputs @ weight.T + bias).sum())


def test_functions_from_earlier_cells_see_what_the_cell_assigns_compiled_too(shell, private_run_store):
    shell.run_cell("def scaled_ones():\n    return scale * torch.ones(2)\nscale = 1.0\n")
    before = torch_state()
    result, out, run = profile(shell, "", "scale = 5.0\nz = scaled_ones()\nprint('break')\nw = z * scale\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    assert torch.equal(shell.user_ns["z"], torch.full((2,), 5.0)) and torch.equal(
        shell.user_ns["w"], torch.full((2,), 25.0)
    )
    assert run.correctness.ok is True
    assert [b.line for b in run.graph_breaks] == [4]
    assert sum(g.kind == "dynamo" for g in run.graphs) == 2, "Dynamo compiles on after the break"
    assert_kernel_unharmed(shell, before)


def test_handlers_globals_and_builtins_in_a_cell_behave_as_in_a_plain_cell(shell, private_run_store):
    shell.user_ns["runs"] = 0
    body = (
        "global runs\nruns = runs + 1\n"
        "try:\n    int('not a number')\nexcept ValueError as e:\n    msg = str(e)\n"
        "len = len([1, 2, 3])\ny = x.sin() * len\n"
    )
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None
    # torch 2.8's Dynamo fails on the handled exception itself (InternalTorchDynamoError: KeyError:
    # <class 'ValueError'>), as plain torch.compile does; the eager results and namespace stand.
    assert run.status == "ok" or [e.type for e in run.errors] == ["InternalTorchDynamoError"], run.errors
    ns = shell.user_ns
    assert ns["runs"] == 1, f"the cell ran {run.cell_runs} times; the namespace is as after one run"
    assert "invalid literal" in ns["msg"] and "e" not in ns and ns["len"] == 3
    assert torch.equal(ns["y"], x_sin_times_3 := ns["x"].sin() * 3), x_sin_times_3
    del ns["len"]


def test_a_class_defined_and_used_in_the_cell_then_the_next_profile(shell, private_run_store):
    # Each run defines the class anew, so Dynamo invalidates the entries made for the last one:
    # entries without code, which the profile's cleanup must step over.
    body = "s = x * 2\nclass Scaler:\n    scale = s\n    def go(self, v):\n        return v * self.scale\nr = Scaler().go(x)\n"
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    assert torch.equal(shell.user_ns["r"], shell.user_ns["x"] * shell.user_ns["x"] * 2)
    result, out, run = profile(shell, "", "y = x + 2\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors


def test_the_name_error_idiom_compiles_too(shell, private_run_store):
    shell.user_ns.pop("tries", None)
    body = "try:\n    tries\nexcept NameError:\n    tries = 0\ntries += 1\ny = x * tries\n"
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    assert shell.user_ns["tries"] == 1 and torch.equal(shell.user_ns["y"], shell.user_ns["x"])


def test_a_generator_bound_to_a_name_fails_only_the_compiled_variant(shell, private_run_store):
    # Dynamo cannot hand a generator back out of compiled code to publish it (plain torch.compile of
    # a function that returns one fails the same way) from torch 2.8 on; 2.6 graph-breaks instead.
    result, out, run = profile(shell, "", "g = (t * 2 for t in [x, x])\nk = sum(g)\n")
    assert result.error_in_exec is None
    if run.status == "failed":
        assert [e.stage for e in run.errors] == ["compile"] and "Generator" in run.errors[0].message
    else:
        assert run.status == "ok" and run.speedup is not None, run.errors
    assert torch.equal(shell.user_ns["k"], shell.user_ns["x"] * 4), "the eager results land"


def test_a_failed_compiled_call_leaves_nothing_it_allocated_alive(shell, private_run_store):
    # What an out-of-memory error needs on a GPU, checked on any device: the failed call's tensors are
    # freed when the profile ends, not at some later garbage collection (its traceback's frames hold them).
    taken = fault_backends.TAKEN_BY_FAILED_CALLS
    taken.clear()
    gc.collect()
    gc.disable()
    try:
        result, out, run = profile(shell, f"--backend {fault_backends.HOLDS_THEN_FAILS}", "y = x.cos()\n")
        assert run.status == "failed" and taken
        assert [ref() for ref in taken] == [None] * len(taken)
    finally:
        gc.enable()


# -- CUDA ------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_out_of_memory_in_the_compiled_variant_releases_memory(shell, private_run_store):
    shell.user_ns["xc"] = torch.randn(256, 256, device="cuda")
    # The first matmul on a stream takes cuBLAS's workspace (32 MiB on Hopper) from the allocator
    # and keeps it, as in any session: take it before the baseline.
    shell.user_ns["xc"] @ shell.user_ns["xc"]
    torch.cuda.synchronize()
    allocated = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    before = torch_state()
    result, out, run = profile(shell, f"--backend {fault_backends.ALLOCATES_TOO_MUCH}", "yc = (xc @ xc).relu()\n")
    assert result.error_in_exec is None
    error = next(e for e in run.errors if e.variant == fault_backends.ALLOCATES_TOO_MUCH)
    assert error.type == "OutOfMemoryError" and error.line == 2
    assert "OutOfMemoryError" in shown_text(out)
    assert_stored_whole(private_run_store, run, "failed")
    torch.cuda.synchronize()
    yc_bytes = shell.user_ns["yc"].numel() * 4
    assert torch.cuda.memory_allocated() <= allocated + yc_bytes, "nothing but the cell's result is still held"
    assert torch.cuda.max_memory_allocated() > allocated + (1 << 30), "the compiled variant really filled the device"
    assert torch.cuda.memory_reserved() < 4 << 30, "the allocator's cached blocks went back to the driver"
    # A smaller run afterwards succeeds, with Inductor.
    result, out, run = profile(shell, "", "yc = (xc @ xc).relu()\n", flags=FAST_FLAGS)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    assert run.device.type == "cuda" and run.speedup is not None
    assert_kernel_unharmed(shell, before)


def test_profiles_leave_no_dynamo_globals_behind_but_a_users_compiled_code_keeps_its_own(shell, private_run_store):
    installed = lambda: sorted(
        n for n in shell.user_ns if n.startswith(("__compiled_fn_", "__resume_at_", "__builtins_dict__"))
    )
    shell.run_cell(
        "def users_step(t):\n    u = t.sin()\n    print('break')\n    return u.cos()\n"
        "users_compiled = torch.compile(users_step, backend='eager')\nkept = users_compiled(x)\n"
    )
    users_names = installed()
    assert users_names, "Dynamo installed the user's compiled graph and continuation in the namespace"
    for _ in range(2):
        result, out, run = profile(shell, "", "y = x.sin()\nprint('break')\nz = y.cos()\n")
        assert run.status == "ok" and run.graph_breaks
    assert installed() == users_names, "a profile's own are gone, the user's stay"
    result = shell.run_cell("again = users_compiled(x)\n")
    assert result.error_in_exec is None and torch.equal(shell.user_ns["again"], shell.user_ns["kept"])


# -- failures after the first calls ------------------------------------------------------------------


def assert_later_run_failed(run, stages: tuple[str, ...], call: int | None, cause: str) -> None:
    errors = [e for e in run.errors if e.stage in stages]
    assert run.status == "failed" and len(errors) == 1, run.errors
    error = errors[0]
    assert (error.call, error.cause) == (call, cause), error
    assert error.line == 2 and error.traceback


def test_an_iterator_that_runs_out_after_the_first_calls_keeps_the_run_and_the_first_runs_names(
    shell, private_run_store
):
    # issue 21, item 1: StopIteration escaped the magic from warm_up, nothing was stored, and batch and y
    # were unbound where a plain cell binds batch = 0.
    shell.run_cell("it = iter(range(6))")
    before = torch_state()
    result, out, run = profile(shell, "", "batch = next(it)\ny = x * batch\n")
    assert result.error_in_exec is None, "a plain run of the cell succeeds, so the cell does not fail"
    assert_later_run_failed(run, ("warm-up", "timing"), 7, "iterator_ran_out")
    assert run.cell_runs == 7, "six runs took the iterator's six values, the seventh found it empty"
    text = shown_text(out)
    assert f"error [warm-up, {CHEAP_VARIANT}, cell line 2, run 7]: StopIteration" in text
    assert "an iterator it reads ran out" in text and "itertools.cycle" in text
    assert "profile stopped at warm-up: the cell's run 7 raised StopIteration" in text
    ns = shell.user_ns
    assert ns["batch"] == 0 and torch.equal(ns["y"], ns["x"] * 0), "as after the first run"
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


@pytest.mark.xfail(
    torch_version() < (2, 7),
    strict=True,
    reason="torch 2.6's Dynamo compiles nothing of this cell (a plain torch.compile neither: it skips the frame at "
    "`del xs[0]`), so no later compiled run fails",
)
def test_a_list_emptied_by_repetition_keeps_what_was_measured_and_says_why(shell, private_run_store):
    shell.user_ns["xs"] = list(range(10))
    before = torch_state()
    result, out, run = profile(shell, "", "first = xs[0]\ndel xs[0]\ny = x * first\n")
    assert result.error_in_exec is None
    assert_later_run_failed(run, ("warm-up", "timing"), 11, "later_run_failed")
    assert run.variant(CHEAP_VARIANT).compile_s is not None, "the first calls' figures stay"
    assert "it changes what its later runs read (a list it empties" in shown_text(out)
    ns = shell.user_ns
    # as after one plain run: the list lost its first item once, the names are that run's
    assert ns["first"] == 0 and torch.equal(ns["y"], ns["x"] * 0) and ns["xs"] == list(range(1, 10))
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def _stage_that_makes_the_cell_fail(monkeypatch, stage: str, flag: list[bool]) -> None:
    """From ``stage`` on, the cell's ``fail_now()`` raises."""
    import dataclasses

    from compile_profile.engine.run import stages as profiler

    name = {"kernel timing": "kernel pass"}.get(stage, stage)  # the row's name; its errors say "kernel timing"

    def failing_from_here(row):
        def run(session):
            flag[0] = True
            return row.run(session)

        return dataclasses.replace(row, run=run)

    rows = [failing_from_here(row) if row.name == name else row for row in profiler.MEASURE_STAGES]
    assert rows != list(profiler.MEASURE_STAGES), f"no stage {name!r} in the table"
    monkeypatch.setattr(profiler, "MEASURE_STAGES", tuple(rows))


@pytest.mark.parametrize("stage", ["timing", "correctness", "kernel timing", "last eager run"])
def test_every_stage_after_the_first_calls_is_guarded(shell, private_run_store, monkeypatch, stage):
    # A step that fails on some later call, whichever stage that call is in.
    flag = [False]

    def fail_now():
        if flag[0]:
            raise RuntimeError("the step fails from now on")

    shell.user_ns["fail_now"] = fail_now
    before = torch_state()
    # the kernel pass is no --quick profile's; Inductor is no stage's subject
    flags = f"{FAST_FLAGS} --backend aot_eager" if stage == "kernel timing" else CHEAP_FLAGS
    # the last eager run is made where the in-place state is not put back (the namespace is then its)
    options = "--no-restore" if stage == "last eager run" else ""
    with monkeypatch.context() as patched:
        _stage_that_makes_the_cell_fail(patched, stage, flag)
        result, out, run = profile(shell, options, "y = x.sin()\nfail_now()\nz = y + 1\n", flags=flags)
    assert result.error_in_exec is None
    stages = ("warm-up", "timing") if stage == "timing" else (stage,)
    [error] = [e for e in run.errors if e.stage in stages]
    assert run.status == "failed" and error.cause == "later_run_failed" and error.line == 3
    assert error.call == run.cell_runs, "the failing call was the last one: nothing ran after it"
    assert error.message == "RuntimeError: the step fails from now on"
    if stage != "timing":
        assert all(v.timing is not None for v in run.variants), "the timings taken before stay"
    assert torch.equal(shell.user_ns["z"], shell.user_ns["x"].sin() + 1)
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def test_a_failing_stage_of_the_profilers_own_is_recorded_and_the_run_returned(monkeypatch):
    import compile_profile
    from compile_profile.engine.correctness import compare as correctness

    def broken(*args, **kwargs):
        raise RuntimeError("the comparison itself failed")

    monkeypatch.setattr(correctness, "compare_outputs", broken)
    run = compile_profile.profile(lambda a: a.sin() * 2, torch.randn(8), **CHEAP)
    [error] = run.errors
    assert (error.stage, error.call, error.cause) == ("correctness", None, "")
    assert run.status == "failed" and error.message == "RuntimeError: the comparison itself failed"
    assert all(v.timing is not None for v in run.variants) and run.speedup is not None


def test_a_step_that_fails_on_its_fifth_call_through_the_python_api_returns_a_run():
    import itertools

    import compile_profile

    calls = itertools.count(1)

    def step(a):
        if next(calls) == 5:
            raise RuntimeError("failed on its fifth call")
        return a.sin() * 2

    run = compile_profile.profile(step, torch.randn(8), **CHEAP)
    [error] = run.errors
    assert (error.stage, error.call, error.cause) == ("warm-up", 5, "later_run_failed")
    assert run.cell_runs == 5 and run.status == "failed"


def test_system_exit_from_the_first_run_is_a_failing_cell_that_keeps_its_output_and_assignments(
    shell, private_run_store
):
    # argparse's parse_args() in a notebook: SystemExit escaped the profiler; no card, nothing printed.
    shell.user_ns["argparse"] = __import__("argparse")
    body = (
        "early = x * 3\nprint('printed before the exit')\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--n', required=True)\nargs = parser.parse_args([])\n"
    )
    before = torch_state()
    result, out, run = profile(shell, "", body)
    assert isinstance(result.error_in_exec, CellFailed), "it stops Run All as a plain cell's SystemExit does"
    assert "SystemExit: 2" in result.error_in_exec.report
    assert "error [eager, cell line 6]: SystemExit: 2" in shown_text(out)
    assert out.stdout.count("printed before the exit") == 1
    ns = shell.user_ns
    assert torch.equal(ns["early"], ns["x"] * 3) and "parser" in ns and "args" not in ns
    assert_stored_whole(private_run_store, run, "failed")
    assert_kernel_unharmed(shell, before)


def test_system_exit_on_a_later_run_is_a_stage_failure(shell, private_run_store):
    shell.user_ns["count"] = torch.zeros(1)
    result, out, run = profile(shell, "", "count.add_(1)\nif count.item() > 3:\n    raise SystemExit(3)\nz = x * 2\n")
    assert result.error_in_exec is None
    [error] = [e for e in run.errors if e.type == "SystemExit"]
    assert error.call == 4 and error.cause == "later_run_failed" and run.status == "failed"
    assert torch.equal(shell.user_ns["z"], shell.user_ns["x"] * 2)


def test_an_interrupt_the_cell_raises_keeps_what_it_printed(shell, private_run_store):
    body = "y = x.sin()\nprint('-'.join(['printed', 'before', 'the', 'interrupt']))\nraise KeyboardInterrupt\n"
    result, out, run = profile(shell, "", body)
    assert isinstance(result.error_in_exec, KeyboardInterrupt) and run.status == "interrupted"
    assert out.stdout.count("printed-before-the-interrupt") == 1


# -- random draws -----------------------------------------------------------------------------------------


def test_random_draws_the_printed_output_the_namespace_and_out_come_from_one_run(shell, private_run_store):
    # issue 21, item 3: the cell printed the first run's sum (-0.931), r held the last run's draw, and the
    # generator had advanced ~60 draws, so a seeded notebook diverged from this cell on.
    torch.manual_seed(0)
    plain_draw = torch.randn(3)
    after_plain = torch.randn(2)
    torch.manual_seed(0)
    before = torch_state()
    result, out, run = profile(shell, "", "r = torch.randn(3)\nprint(r.sum().item())\nr.sum()")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    assert run.cell_runs > 10
    printed = float(out.stdout.strip().splitlines()[0])
    ns = shell.user_ns
    assert torch.equal(ns["r"], plain_draw) and printed == pytest.approx(plain_draw.sum().item(), abs=1e-6)
    assert torch.equal(result.result, plain_draw.sum()), "Out[n] is the same run's value"
    assert torch.equal(torch.randn(2), after_plain), "the generator stands where one plain run leaves it"
    assert not any(n.kind == "random_draws_differ" for n in run.notes)
    assert_kernel_unharmed(shell, before)


def test_every_generator_the_cell_reads_is_left_as_one_plain_run_leaves_it(shell, private_run_store):
    import random

    import numpy as np

    body = "a = random.random()\nb = np.random.rand()\nc = torch.randn(2, generator=g)\nd = torch.rand(1) + x\n"

    def seeded():
        random.seed(1)
        np.random.seed(2)
        torch.manual_seed(3)
        return torch.Generator().manual_seed(4)

    plain = {"random": random, "np": np, "torch": torch, "x": torch.ones(1), "g": seeded()}
    exec(body, plain)
    next_plain = (random.random(), np.random.rand(), torch.randn(1, generator=plain["g"]), torch.rand(1))
    shell.user_ns.update(random=random, np=np, g=seeded(), x=torch.ones(1))
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    ns = shell.user_ns
    assert (ns["a"], ns["b"]) == (plain["a"], plain["b"])
    assert torch.equal(ns["c"], plain["c"]) and torch.equal(ns["d"], plain["d"])
    next_profiled = (random.random(), np.random.rand(), torch.randn(1, generator=ns["g"]), torch.rand(1))
    assert next_profiled[:2] == next_plain[:2]
    assert torch.equal(next_profiled[2], next_plain[2]) and torch.equal(next_profiled[3], next_plain[3])


@pytest.mark.xfail(
    torch_version() < (2, 7),
    strict=True,
    reason="torch 2.6's Dynamo fails this cell's resumed frame ('SpeculationLog diverged'), as it fails a plain "
    "torch.compile of a function that calls another with the drawn tensor (docs/compatibility.md)",
)
def test_draws_that_depend_on_state_the_runs_change_are_said_and_the_generator_still_put_back(shell, private_run_store):
    shell.user_ns["n"] = torch.zeros(1)
    torch.manual_seed(0)
    torch.randn(1)
    after_plain = torch.randn(2)
    torch.manual_seed(0)
    result, out, run = profile(shell, "--no-restore", "n.add_(1)\nr = torch.randn(int(n.item()))\n")
    assert result.error_in_exec is None, run.errors
    assert any(n.kind == "random_draws_differ" for n in run.notes), run.notes
    assert torch.equal(torch.randn(2), after_plain), "as after the first run, the one a plain cell makes"


def test_with_the_state_put_back_the_draws_and_the_names_are_the_first_runs(shell, private_run_store):
    shell.user_ns["n"] = torch.zeros(1)
    torch.manual_seed(0)
    first = torch.randn(1)
    after_plain = torch.randn(2)
    torch.manual_seed(0)
    result, out, run = profile(shell, "", "n.add_(1)\nr = torch.randn(int(n.item()))\n")
    assert result.error_in_exec is None, run.errors
    assert not any(n.kind == "random_draws_differ" for n in run.notes), run.notes
    assert torch.equal(shell.user_ns["n"], torch.ones(1)) and torch.equal(shell.user_ns["r"], first)
    assert torch.equal(torch.randn(2), after_plain), "as after the first run, the one a plain cell makes"


# -- what a plain cell's top level does --------------------------------------------------------------------


@pytest.mark.xfail(
    torch_version() < (2, 7),
    strict=True,
    reason="torch 2.6's Dynamo fails on the scope object exec() is given at a graph break (side_effects: "
    "'assert var.source is not None'); the compiled variant is reported failed (docs/compatibility.md)",
)
def test_exec_eval_and_locals_at_the_top_level_bind_in_the_notebook_as_in_a_plain_cell(shell, private_run_store):
    # issue 21, item 5: the cell runs as a function body, so these bound names in its own locals only.
    for name in ("zz", "jj", "lw", "w", "seen", "ev"):
        shell.user_ns.pop(name, None)
    body = (
        "y = x + 1\nexec('zz = 5')\nexec('import json as jj')\nlocals()['lw'] = 1\nw = y * zz\n"
        "seen = sorted(k for k in vars() if k in ('y', 'zz', 'lw'))\nev = eval('y.sum() + lw')\n"
    )
    plain = {"torch": torch, "x": torch.ones(4)}
    exec(body, plain)
    before = torch_state()
    result, out, run = profile(shell, "", body)
    assert result.error_in_exec is None and run.status == "ok", run.errors
    ns = shell.user_ns
    assert ns["zz"] == 5 and ns["jj"] is __import__("json") and ns["lw"] == 1
    assert ns["seen"] == plain["seen"] == ["lw", "y", "zz"]
    assert torch.equal(ns["w"], plain["w"]) and torch.equal(ns["ev"], plain["ev"])
    assert run.correctness.ok is True
    assert_kernel_unharmed(shell, before)


def test_a_comprehension_with_a_graph_break_leaves_no_dynamo_global_to_fail_at_exit(shell, private_run_store):
    result, out, run = profile(shell, "", "ys = [print(v) or v * x for v in range(2)]\nq = x * len(ys)\n")
    assert result.error_in_exec is None and run.status == "ok", run.errors
    ns = shell.user_ns
    assert not [n for n in ns if n.startswith("___module_")], "Dynamo's ___module_range_/___module_iter_ globals"
    from compile_profile.engine.compiler.dynamo_state import _hooked_names

    # A hook whose name is gone raises KeyError when its code dies ("Exception ignored ..." at exit).
    assert _hooked_names(ns) <= set(ns)


# -- other threads --------------------------------------------------------------------------------------------


@pytest.mark.alone  # beside a second test worker the other thread compiled during none of 5 profiles (twice in CI)
def test_another_threads_torch_compile_during_a_profile_is_not_the_cells(private_run_store):
    import threading

    import compile_profile

    stop, compiled_meanwhile = threading.Event(), []

    def compiling_elsewhere():
        n = 2
        while not stop.is_set():
            fresh = eval(f"lambda a: a.cos() + {n}")  # a code object of its own: each one compiles
            torch.compile(fresh, backend="eager")(torch.randn(n))
            compiled_meanwhile.append(n)
            n += 1
            stop.wait(0.02)

    worker = threading.Thread(target=compiling_elsewhere, daemon=True)
    worker.start()
    try:
        while not compiled_meanwhile:
            stop.wait(0.05)
        # the other thread must compile while the profile runs for the test to show anything; beside another test
        # worker a whole CHEAP profile once ran before it got the GIL and Dynamo's lock: the profile runs again (five
        # tries failed once more in a fresh clone's CI while other tests ran beside it; the first try mostly does)
        for _ in range(20):
            started = len(compiled_meanwhile)
            run = compile_profile.profile(lambda a: (a.sin() * 2).relu(), torch.randn(64), **CHEAP)
            during = len(compiled_meanwhile) - started
            if during:
                break
    finally:
        stop.set()
        worker.join()
    assert during > 0, "the other thread compiled while the profile ran"
    assert run.status == "ok", run.errors
    assert run.dynamo_graph_count == 1 and run.recompiles == [] and run.graph_breaks == []
    assert {g.variant for g in run.graphs} == {CHEAP_VARIANT}


# -- the user's own hooks ----------------------------------------------------------------------------------------


def test_the_kernel_pass_puts_back_a_users_profile_hook_and_cprofile():
    import cProfile
    import sys

    from compile_profile.engine.kernels.profiler_pass import record_trace

    events = []

    def hook(frame, event, arg):
        events.append(event)

    def step():
        return torch.ones(8).sin()

    sys.setprofile(hook)
    try:
        record_trace(step, lambda: None, calls=1, device_type="cpu", with_stack=True)
        assert sys.getprofile() is hook
        events.clear()
        step()
        assert events, "and it is called again"
    finally:
        sys.setprofile(None)
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        record_trace(step, lambda: None, calls=1, device_type="cpu", with_stack=True)
        assert sys.getprofile() is profiler, "IPython's %prun keeps profiling"
    finally:
        profiler.disable()
