"""The verdict leads every view on real profiles (issue 31, item 1): a post-grad pass made to turn ``add`` into ``sub``
reads "results differ" first, and a Python value that changes on every call, which drives the cell's frame to
Dynamo's recompile limit, reads "ran eagerly" first: the digest's headline, badge and list status, the text and HTML
views, the ipywidgets explorer, ``compile-profile ls`` and the card's MIME data.  The speedup stays beneath, marked
not meaningful.  Both profile a cell with ``--quick``; the eager fallback under ``aot_eager`` (no Inductor needed)."""

from __future__ import annotations

import contextlib
import io
import itertools
import re

import pytest
import torch
import torch._dynamo.config as dynamo_config
import torch._inductor.config as inductor_config
from cell_runs import run_cell
from compile_profile.cli import main
from compile_profile.digest.summary import summarize
from compile_profile.profile_run import ProfileRun
from compile_profile.render.html import render_html
from compile_profile.render.mime import MIME_TYPE, mime_bundle
from compile_profile.render.text import render_text
from compile_profile.store import RunStore
from torch._inductor.custom_graph_pass import CustomGraphPass

pytestmark = [pytest.mark.compiles, pytest.mark.alone]


class AddBecomesSub(CustomGraphPass):
    """A miscompile: Inductor's post-grad custom pass rewrites each ``aten.add.Tensor`` as ``sub``.  Its uuid puts it
    in the FX graph cache's key, so a second run of the test finds its compile there."""

    def __call__(self, graph: torch.fx.Graph) -> None:
        for node in graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor):
            node.target = torch.ops.aten.sub.Tensor

    def uuid(self) -> str:
        return "compile-profile-test-verdict-add-becomes-sub-1"


@contextlib.contextmanager
def recompile_limit(n: int):
    """Dynamo's recompile limit set to ``n`` (``cache_size_limit`` before torch 2.7), put back afterwards."""
    name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
    before = getattr(dynamo_config, name)
    setattr(dynamo_config, name, n)
    try:
        yield
    finally:
        setattr(dynamo_config, name, before)


def _quiet(fn):
    with contextlib.redirect_stderr(io.StringIO()):
        return fn()


def _html_headline(run: ProfileRun) -> str:
    found = re.search(r'<div style="font-weight:600;font-size:110%">(.*?)</div>', render_html(run))
    assert found is not None
    return found.group(1)


def _ls_row(run: ProfileRun, tmp_path, capsys) -> str:
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as store:
        store.put(run)
    capsys.readouterr()
    assert main(["--db", str(db), "ls"]) == 0
    header, row = capsys.readouterr().out.strip().splitlines()
    assert header.index("STATUS") < header.index("SPEEDUP")  # the verdict before the speedup
    return " ".join(row.split())


def _every_view_leads_with(run: ProfileRun, label: str, tmp_path, capsys) -> None:
    s = summarize(run)
    assert s["outcome"]["label"] == label and s["list_status"] == label
    assert s["headline"].startswith(f"{label}: ")
    assert s["outcome"]["speedup_meaningful"] is False and " (not meaningful)" in s["headline"]
    assert render_text(run).startswith(f"{label}: ")
    assert _html_headline(run).startswith(f"{label}: ")
    bundle = mime_bundle(run)
    assert bundle["text/plain"].startswith(f"{label}: ")
    card = bundle[MIME_TYPE]["summary"]
    assert card["outcome"]["label"] == label and card["headline"].startswith(f"{label}: ")
    speedup = card["speedup"]
    assert speedup is not None and card["outcome"]["speedup_text"].startswith(f"{speedup['text']} — not meaningful")
    assert f"{label} {speedup['text']}" in _ls_row(run, tmp_path, capsys)
    widgets = pytest.importorskip("ipywidgets")
    from compile_profile.render.widget import explorer

    overview = explorer(run).overview.children[0]
    assert isinstance(overview, widgets.HTML) and _html_headline(run) in overview.value


def test_a_post_grad_pass_that_turns_add_into_sub_leads_every_view_with_results_differ(tmp_path, capsys):
    torch.manual_seed(0)
    ns = {"torch": torch, "x": torch.randn(64, 64), "b": torch.randn(64, 64)}
    torch._dynamo.reset()
    with inductor_config.patch(post_grad_custom_post_pass=AddBecomesSub()):
        run = _quiet(lambda: run_cell("y = torch.tanh(x) + b\n", ns, quick=True).run)
    assert run.correctness is not None and run.correctness.ok is False, run.correctness
    _every_view_leads_with(run, "results differ", tmp_path, capsys)
    assert summarize(run)["outcome"]["speedup_text"].endswith("— not meaningful: compiled results differ")
    # the pass is gone: the same cell compiles right and its verdict is its speedup again
    torch._dynamo.reset()
    fine = _quiet(lambda: run_cell("y = torch.tanh(x) + b\n", ns, quick=True).run)
    assert fine.correctness is not None and fine.correctness.ok is True
    # its speedup again, or, where the other test worker kept a core busy, the busy CPU that set it
    assert summarize(fine)["outcome"]["kind"] in ("faster", "slower", "not_measurable", "busy_cpu")


def test_a_python_value_that_hits_the_recompile_limit_leads_every_view_with_the_eager_fallback(tmp_path, capsys):
    steps = itertools.count()
    ns = {"torch": torch, "x": torch.randn(64, 64), "next_step": lambda: float(next(steps))}
    torch._dynamo.reset()
    with recompile_limit(2):
        run = _quiet(
            lambda: run_cell("k = next_step()\ny = torch.tanh(x) * k + k\n", ns, quick=True, backend="aot_eager").run
        )
    assert any(r.limit and not r.frame for r in run.recompiles), run.recompiles  # the cell's own frame
    _every_view_leads_with(run, "ran eagerly", tmp_path, capsys)
    s = summarize(run)
    assert "hit Dynamo's recompile limit, torch._dynamo.config.recompile_limit (2)" in s["headline"] or (
        "cache_size_limit (2)" in s["headline"]
    )
    assert s["outcome"]["tone"] == "eager"
    assert s["outcome"]["speedup_text"].endswith("— not meaningful: the compiled calls ran eagerly")
    assert getattr(dynamo_config, "recompile_limit", None) != 2 and getattr(dynamo_config, "cache_size_limit", 8) != 2


def test_a_step_whose_loss_logging_hits_the_recompile_limit_after_its_graph_break_is_partly_eager_not_ran_eagerly():
    """``losses.append(loss.item())``: the frame after the ``.item()`` break, holding no graph, recompiles on the list's
    length each call until the limit; the forward and backward graph before the break still runs compiled.  It had
    read "ran eagerly", and warm-up, counting graphs, took it for settled: six of its recompiles were timed."""
    from compile_profile.digest.outcome import outcome, partly_eager_text

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    ns = {
        "torch": torch,
        "model": model,
        "opt": torch.optim.SGD(model.parameters(), lr=0.01),
        "x": torch.randn(16, 32),
        "y": torch.randint(0, 10, (16,)),
        "losses": [],
    }
    body = (
        "loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "loss.backward()\n"
        "opt.step()\n"
        "opt.zero_grad()\n"
        "losses.append(loss.item())\n"
    )
    torch._dynamo.reset()
    with recompile_limit(4):
        run = _quiet(lambda: run_cell(body, ns, quick=True, backend="aot_eager").run)
    (limit,) = [r for r in run.recompiles if r.limit]
    assert not limit.frame and limit.resumes_after == 5, limit  # the cell's code after its break at line 5
    assert not any(r.during_timing for r in run.recompiles), [(r.compile_id, r.during_timing) for r in run.recompiles]
    assert outcome(run).kind != "ran_eagerly"
    assert partly_eager_text(run).startswith(
        "part of it ran eagerly: the cell's code after its graph break at line 5, which holds no graph, hit "
    )


def test_a_profile_records_torchs_threads_as_the_cell_left_them_and_its_own_options_for_compare():
    """Compare showed only device and torch beside a 92.7 % eager drop that threads and options explained: the run
    records them (``RunSettings``), and the threads are those the cell's first run left (it may set them)."""
    before = torch.get_num_threads()
    ns = {"torch": torch, "x": torch.randn(16, 16)}
    try:
        run = _quiet(
            lambda: (
                run_cell(
                    "torch.set_num_threads(1)\ny = torch.tanh(x) * 2\n", ns, quick=True, backend="aot_eager", warmup=1
                ).run
            )
        )
    finally:
        torch.set_num_threads(before)
    s = run.settings
    assert s is not None
    assert (s.torch_threads, s.interop_threads) == (1, torch.get_num_interop_threads())
    assert (s.warmup, s.quick, s.check_correctness, s.inputs) == (1, True, True, "")
    again = ProfileRun.from_json(run.to_json())
    assert again.settings == s
