"""What a profiled cell changes in place ends as one plain run of it leaves it (engine/cell/plain_state.py).

Each case runs the same cell plainly once on deep copies, then profiles it on the originals, and compares: the
weights, BatchNorm's running stats and ``num_batches_tracked``, AdamW's state with its ``step``, the gradients, a
list the cell appends to, a parameter it replaces, an LR scheduler, an object's counter and a global a function
of the notebook rebinds.  The profiles are ``--quick`` under ``aot_eager``: the restore is the subject, not
Inductor.  Where the copy does not fit (free memory made small here), the card says how many runs the state
holds and how to keep it.
"""

from __future__ import annotations

import copy

import pytest
import torch
from compile_profile.digest.format import format_bytes
from compile_profile.engine.cell import plain_state as cell_state
from IPython.utils.capture import capture_output

QUICK = "--quick --backend aot_eager --warmup 1 --repeat 5 --budget 0.2"

STEP = """opt.zero_grad()
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
losses.append(loss.item())
"""


def small_model() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(), torch.nn.Linear(16, 4)
    )


def profile(ip, options: str, body: str):
    ip.user_ns.pop("prof", None)
    with capture_output() as out:
        result = ip.run_cell(f"%%compile_profile {QUICK} -o prof {options}\n{body}")
    assert result.error_in_exec is None, out.stderr
    shown = [o.data.get("text/plain", "") for o in out.outputs if "application/vnd.compile-profile.run+json" in o.data]
    return ip.user_ns["prof"], shown[0] if shown else ""


def plain_run(body: str, namespace: dict) -> dict:
    """The cell run once, plainly, in ``namespace`` (deep copies of the user's objects)."""
    exec(compile(body, "<plain run>", "exec"), namespace)
    return namespace


@pytest.fixture
def training(ip):
    """A small model with BatchNorm and AdamW, its batch and a list of losses; and deep copies of all of them
    after one plain run of ``STEP``."""
    torch.manual_seed(0)
    model = small_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x = torch.randn(32, 8)
    names = {"model": model, "opt": opt, "x": x, "losses": []}
    plain = plain_run(STEP, {"torch": torch, **copy.deepcopy(names)})
    ip.user_ns.update(torch=torch, **names)
    yield plain
    for name in ("model", "opt", "x", "losses", "loss", "prof"):
        ip.user_ns.pop(name, None)


def assert_as_after_one_plain_step(ns: dict, plain: dict) -> None:
    model, opt, plain_model, plain_opt = ns["model"], ns["opt"], plain["model"], plain["opt"]
    for (name, value), expected in zip(model.state_dict().items(), plain_model.state_dict().values()):
        torch.testing.assert_close(value, expected, rtol=0, atol=1e-6, msg=f"{name} is not as after one plain step")
    for p, q in zip(model.parameters(), plain_model.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=0, atol=1e-6)
        state, expected = opt.state[p], plain_opt.state[q]
        assert state.keys() == expected.keys()
        for key in state:
            torch.testing.assert_close(state[key], expected[key], rtol=0, atol=1e-6, msg=f"AdamW's {key}")
    assert [float(s["step"]) for s in opt.state.values()] == [1.0] * len(opt.state), "one AdamW step, not hundreds"
    assert opt.param_groups[0]["lr"] == plain_opt.param_groups[0]["lr"]


@pytest.mark.compiles
def test_a_training_step_with_batchnorm_and_adamw_leaves_the_model_as_one_plain_step(ip, training):
    run, shown = profile(ip, "", STEP)
    assert run.status == "ok" and run.cell_runs > 5, run.errors
    ns = ip.user_ns
    assert_as_after_one_plain_step(ns, training)
    assert ns["losses"] == training["losses"], f"one item more, not {len(ns['losses'])}"
    assert ns["loss"].item() == pytest.approx(training["loss"].item(), abs=1e-6), "the bound loss is that step's"
    assert ns["model"][1].num_batches_tracked.item() == 1
    assert "was put back as its first run left it, as after one plain run" in shown
    put_back = next(n for n in run.notes if n.kind == "state_put_back")
    assert put_back.values["kept_in"] == "host" and "not_restored" not in put_back.values


@pytest.mark.compiles
def test_where_the_copy_does_not_fit_the_card_says_how_many_runs_the_state_holds_and_how_to_keep_it(
    ip, training, monkeypatch
):
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 4096)  # the copy needs more than half of it
    ip.user_ns["counter"] = torch.zeros(())
    run, shown = profile(ip, "", STEP + "counter.add_(1)\n")
    ns = ip.user_ns
    runs = int(ns["counter"].item())
    assert runs > 5 and float(ns["opt"].state[ns["model"][0].weight]["step"]) == runs, "every run stepped"
    advanced = next(n for n in run.notes if n.kind == "state_advanced")
    assert advanced.values["runs"] == runs and advanced.values["bytes"] > 2048
    warning = (
        f"warning: what the cell changes in place (weights, optimizer state, buffers) holds {runs:,} of its runs, not "
        f"one as after a plain run: a copy of what its first run changed needs {format_bytes(advanced.values['bytes'])}"
        ", more than half of the memory free to keep it in (4.0 KiB of host memory free); --restore copies it anyway"
    )
    assert warning in shown, shown
    assert not any(n.kind == "state_put_back" for n in run.notes)
    assert len(ns["losses"]) == run.cell_runs, "a list grows with every run (only tensors are put back between checks)"


@pytest.mark.compiles
def test_restore_copies_the_state_whatever_is_free(ip, monkeypatch):
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 4096)
    ip.user_ns.update(torch=torch, counter=torch.zeros(4096))  # 16 KiB
    run, shown = profile(ip, "--restore", "counter.add_(1)\n")
    assert torch.equal(ip.user_ns["counter"], torch.ones(4096)), run.notes
    assert "of its runs, not one" not in shown and any(n.kind == "state_put_back" for n in run.notes)
    run, shown = profile(ip, "", "counter.add_(1)\n")
    assert ip.user_ns["counter"][0].item() > 2 and "--restore copies it anyway" in shown


@pytest.mark.compiles
def test_a_replaced_parameter_a_scheduler_an_objects_counter_and_a_rebound_global_end_as_after_one_plain_run(ip):
    ip.run_cell(
        "class Tracker:\n    def __init__(self):\n        self.calls = 0\n        self.seen = []\n"
        "def bump():\n    global bumps\n    bumps = bumps + 1\n"
    )
    torch.manual_seed(1)
    model = torch.nn.Linear(4, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ns = ip.user_ns
    ns.update(
        torch=torch,
        model=model,
        opt=opt,
        sched=torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5),
        tracker=ns["Tracker"](),
        bumps=0,
        log={"lr": []},
        x=torch.randn(2, 4),
    )
    body = (
        "model.scale = torch.nn.Parameter(torch.full((), float(tracker.calls + 2)))\n"
        "y = model(x) * model.scale\n"
        "tracker.calls += 1\n"
        "tracker.seen.append(y.shape[0])\n"
        "bump()\n"
        "opt.step()\n"
        "sched.step()\n"
        "log['lr'].append(opt.param_groups[0]['lr'])\n"
    )
    run, shown = profile(ip, "", body)
    assert run.status == "ok", run.errors
    assert run.cell_runs > 5
    assert float(ns["model"].scale) == 2.0, "the parameter the first run put there"
    assert ns["tracker"].calls == 1 and ns["tracker"].seen == [2]
    assert ns["bumps"] == 1
    assert ns["sched"].last_epoch == 1 and ns["opt"].param_groups[0]["lr"] == pytest.approx(0.05)
    assert ns["log"] == {"lr": [pytest.approx(0.05)]}
    # The break at the replaced parameter makes Dynamo trace SGD's step from another frame from now on (plain
    # torch.compile of this step does the same): a later test's SGD guards on ``lr`` in ``_to_scalar`` instead of
    # on its param group, unless Dynamo starts afresh
    torch._dynamo.reset()


@pytest.mark.compiles
@pytest.mark.parametrize("fused", [False, True], ids=["adamw", "fused-adamw"])
def test_a_training_step_profiled_as_a_function_leaves_its_model_as_one_plain_step(fused):
    # a fused step (_fused_adamw_) moves no version counter: its weights are told changed by their values
    import compile_profile

    torch.manual_seed(2)
    model = small_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=fused)
    x = torch.randn(16, 8)
    plain = copy.deepcopy({"model": model, "opt": opt})

    def make_step(model, opt):
        def step(x):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            return loss

        return step

    make_step(plain["model"], plain["opt"])(x)
    run = compile_profile.profile(make_step(model, opt), x, backend="aot_eager", quick=True, budget=0.2, repeat=5)
    assert run.status == "ok" and run.cell_runs > 5, run.errors
    assert_as_after_one_plain_step({"model": model, "opt": opt}, plain)
    # the correctness runs start from the same weights too: a fused step's were not put back between them, and
    # eager "changed between runs", so nothing was compared
    assert run.correctness is not None and run.correctness.ok is True, run.correctness


def test_the_copy_goes_beside_the_tensors_where_half_the_free_memory_holds_it_else_to_the_host_else_nowhere(
    monkeypatch,
):
    from compile_profile.digest.notes import note_text

    on_device = [torch.empty(1024, device="meta")]  # 4 KiB on a device (the meta device stands in for a GPU here)
    monkeypatch.setattr(cell_state, "device_memory_free", lambda device: 1 << 20)
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 1 << 20)
    assert cell_state._placement(on_device, force=False) == "device"
    monkeypatch.setattr(cell_state, "device_memory_free", lambda device: 6 << 10)  # half of it is under 4 KiB
    assert cell_state._placement(on_device, force=False) == "host"
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 6 << 10)
    refusal = cell_state._placement(on_device, force=False)
    assert isinstance(refusal, cell_state.Refusal) and refusal.reason == "too_large"
    assert (refusal.needed, refusal.device_free, refusal.host_free) == (4096, 6 << 10, 6 << 10)
    assert note_text(refusal.note(runs=40)).endswith(
        "a copy of what its first run changed needs 4.0 KiB, more than half of the memory free to keep it in "
        "(6.0 KiB free on the meta and 6.0 KiB of host memory free); --restore copies it anyway; re-run the cells "
        "that make the model and optimizer before going on"
    )
    assert cell_state._placement(on_device, force=True) == "device", "--restore"
    on_host = [torch.empty(1024)]
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 1 << 20)
    assert cell_state._placement(on_host, force=False) == "host"
    monkeypatch.setattr(cell_state, "host_memory_free", lambda: 4 << 10)
    assert isinstance(cell_state._placement(on_host, force=False), cell_state.Refusal)
