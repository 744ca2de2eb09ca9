"""Figures that hold for the user's own program: the program measured is the one the user would
compile, no false "results differ", every kernel on a cell line, library graph breaks located.

Real torch.compile runs on CPU.  Where only Dynamo's behaviour matters (graphs, breaks), the
inner backend is ``aot_eager``, which skips Inductor's slow C++ compiles on two cores.
"""

from __future__ import annotations

import linecache
import re
import sys
import textwrap

import cell_runs
import fault_backends
import pytest
import torch
from compile_profile.digest.breaks import break_groups
from compile_profile.digest.correctness import correctness_text
from compile_profile.digest.summary import warnings
from compile_profile.engine.cell.function import UnknownKeptName, cell_to_function
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.cell.optimizers import OptimizerViews
from compile_profile.engine.common.torch_features import caller_lines_reliable
from compile_profile.engine.compiler.backend import RecordingBackend
from compile_profile.engine.correctness.compare import compare_outputs
from compile_profile.engine.trace.capture import TraceRecorder, capture_compiles
from compile_profile.engine.trace.model import build_variant_trace
from compile_profile.render.text import render_text
from render_fixtures import attention_run, drifting_run


def run_cell(body: str, ns: dict, **options):
    return cell_runs.run_cell(body, ns, **options).run


def _break_keys(breaks, own_file: str = "") -> list[tuple[str, int | None, str]]:
    """Breaks by place and reason; a break in the profiled code itself (the cell, or the reference
    function's file) is "<code>" at its line within that code."""

    def place(b):
        own = b.filename.startswith("<") or b.filename == own_file
        return ("<code>", b.line) if own else (b.filename.rsplit("/", 1)[-1], b.file_line)

    return sorted((*place(b), b.reason.splitlines()[0]) for b in breaks)


# -- 1. the program measured is the one the user would compile ---------------------------------

TRAINING_STEP = (
    "out = layer(x)\nloss = out.float().pow(2).mean()\nloss.backward()\nopt.step()\nopt.zero_grad(set_to_none=True)\n"
)


def _training_namespace() -> dict:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, norm_first=True, batch_first=True)
    return {
        "torch": torch,
        "layer": layer,
        "opt": torch.optim.AdamW(layer.parameters(), lr=1e-3),
        "x": torch.randn(2, 8, 32),
    }


@pytest.mark.compiles
def test_a_training_step_is_compiled_as_the_cell_written_as_a_plain_function_would_be():
    ns = _training_namespace()
    # The reference: the same five lines as a function over the notebook's globals, compiled plainly,
    # defined as a notebook cell defines it (its source in linecache: Dynamo on torch 2.6 and 2.11
    # compiled no forward graph for a function defined by a bare exec).
    source = "def step():\n" + textwrap.indent(TRAINING_STEP, "    ")
    filename = "/tmp/ipykernel_0/training_step.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), ns)
    ns["step"]()  # as in the profile, an eager step has run before compiling
    plain_backend = RecordingBackend(inner="aot_eager")
    recorder = TraceRecorder()
    with capture_compiles(recorder):
        plain = torch.compile(ns["step"], backend=plain_backend)
        plain()
    # the locator reads the function's lines as cell lines (its "def" line is where %%compile_profile is)
    locator = CellLocator(filename, source.splitlines())
    plain_breaks = build_variant_trace(
        recorder.take(), plain_backend.graphs, variant="plain", locator=locator
    ).graph_breaks
    torch._dynamo.reset()

    run = run_cell(TRAINING_STEP, ns, backend="aot_eager")
    assert run.status == "ok", run.errors
    # Returning the cell's locals would keep them alive across every break: 4 breaks where plain has 2.
    assert _break_keys(run.graph_breaks) == _break_keys(plain_breaks, filename)
    assert len(plain_breaks) == 2
    tool_ops = sorted(sorted(g.op_counts.items()) for g in run.graphs if g.kind == "dynamo")
    plain_ops = sorted(sorted(g.op_counts.items()) for g in plain_backend.graphs)
    assert tool_ops == plain_ops, "the same Dynamo graphs, op for op"
    # loss.backward(), and opt.step() (inside torch.optim); torch 2.6 cannot say which line called the optimizer
    assert {b.line for b in run.graph_breaks} == ({4, 5} if caller_lines_reliable() else {4, None})


def test_eager_calls_see_the_optimizer_as_eager_left_it_and_compiled_calls_as_dynamo_made_it():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model(torch.randn(2, 4)).sum().backward()
    opt.step()  # the eager run initialised the state: step counters on the CPU
    eager_steps = {id(p): s["step"] for p, s in opt.state.items()}
    views = OptimizerViews([opt])
    # What Dynamo does to a CUDA optimizer it traces: new step tensors (moved to the device), capturable set.
    for state in opt.state.values():
        state["step"] = state["step"].clone()
    opt.param_groups[0]["capturable"] = True
    compiled_steps = {id(p): s["step"] for p, s in opt.state.items()}
    assert views.record_compiled() is True

    views.install(OptimizerViews.EAGER)
    assert opt.param_groups[0]["capturable"] is False
    assert all(opt.state[p]["step"] is eager_steps[id(p)] for p in model.parameters())
    opt.step()  # an eager call counts its step
    views.install(OptimizerViews.COMPILED)
    assert opt.param_groups[0]["capturable"] is True
    assert all(opt.state[p]["step"] is compiled_steps[id(p)] for p in model.parameters()), "same objects: guards hold"
    assert all(float(opt.state[p]["step"]) == 2.0 for p in model.parameters()), "the count carries over"
    views.install(OptimizerViews.EAGER)
    assert not OptimizerViews([opt]).record_compiled(), "nothing changed since"


@pytest.mark.compiles
def test_keep_makes_the_other_names_temporaries_that_compiled_code_need_not_write_out():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 256, 16) for _ in range(3))
    body = "s = (q @ k.transpose(-2, -1)) / 4.0\no = torch.softmax(s, -1) @ v\n"
    ns = {"torch": torch, "q": q, "k": k, "v": v}
    kept_all = run_cell(body, ns, backend="aot_eager")
    assert kept_all.kept_names == ["s", "o"] and kept_all.temporaries == []
    (big,) = kept_all.kept_tensors
    assert (big.name, big.line, big.used_at, big.shape, big.bytes) == (
        "s",
        2,
        [3],
        [2, 4, 256, 256],
        2 * 4 * 256 * 256 * 4,
    )
    assert big.traffic_ms and big.traffic_ms > 0 and big.bandwidth_gbps > 0
    assert {"s", "o"} <= set(ns)

    ns = {"torch": torch, "q": q, "k": k, "v": v}
    kept_o = run_cell(body, ns, keep=["o"], kernel_timing=False)  # Inductor turns it into one attention call
    assert kept_o.status == "ok", kept_o.errors
    assert kept_o.kept_names == ["o"] and kept_o.temporaries == ["s"] and kept_o.kept_tensors == []
    assert "s" not in ns and torch.allclose(ns["o"], torch.softmax(q @ k.transpose(-2, -1) / 4.0, -1) @ v)
    outputs = [_graph_outputs(g.code) for g in kept_all.graphs + kept_o.graphs if g.kind == "dynamo"]
    assert outputs == [2, 1], "a temporary is not an output of the compiled graph"
    assert kept_o.kernels and all(k.lines for k in kept_o.kernels), "a pattern-replaced kernel still has its lines"


def _graph_outputs(code: str) -> int:
    ret = [line for line in code.splitlines() if line.strip().startswith("return (")][-1]
    return ret.count(",") if ret.rstrip().endswith(",)") else ret.count(",") + 1


def test_keep_refuses_a_name_the_cell_does_not_assign_and_names_what_it_does():
    with pytest.raises(UnknownKeptName) as info:
        cell_to_function("a = 1\nb = a + 1\n", {}, keep=["c"])
    assert "'c'" in str(info.value) and "a, b" in str(info.value)


def test_a_material_kept_intermediate_is_named_on_the_card_with_its_size_and_the_way_to_drop_it():
    run = attention_run(compiled_ms=0.73)
    text = " ".join(warnings(run))
    assert "keeps s (16×16×1024×1024 bfloat16, 512.0 MiB; line 1, read again at line 2)" in text
    assert "34% of the compiled call" in text and "--keep o" in text
    run.kept_tensors[0].traffic_ms = 0.01  # 1 % of the call: not worth a word
    assert "keeps s" not in " ".join(warnings(run))


def test_kept_intermediates_each_minor_but_together_material_are_named_together_with_their_sum():
    # GPT-2's logits and their log_softmax, 9 % of the compiled call each: together the whole speedup (review)
    from compile_profile.profile_run import KeptTensor

    run = attention_run(compiled_ms=0.73)
    (s,) = run.kept_tensors
    half = s.traffic_ms * 0.09 / (s.traffic_ms / 0.73)  # 9 % of the call each
    run.kept_tensors = [
        KeptTensor(
            name="logits",
            line=1,
            used_at=[2],
            shape=[2, 128, 50257],
            dtype="float32",
            bytes=51_463_168,
            traffic_ms=half,
        ),
        KeptTensor(
            name="lp", line=2, used_at=[3], shape=[2, 128, 50257], dtype="float32", bytes=51_463_168, traffic_ms=half
        ),
    ]
    run.kept_names = ["logits", "lp", "nll"]
    (said,) = [w for w in warnings(run) if "the cell keeps" in w]
    assert said.startswith("the cell keeps logits (49.1 MiB, line 1), lp (49.1 MiB, line 2)")
    assert "together at least" in said and "18% of the compiled call" in said and "--keep nll" in said
    run.kept_tensors[1].traffic_ms = 0.1 * half  # 0.9 %: left out, and 9 % alone is not material
    assert not [w for w in warnings(run) if "the cell keeps" in w]


# -- 2. no false "results differ" ----------------------------------------------------------------


BF16_CHAIN = (
    "h = x\nfor _ in range(6):\n"
    "    h = torch.nn.functional.layer_norm(h + torch.tanh(h @ w * 1.7 + 0.1) * 1.3, (64,))\n"
)


@pytest.mark.compiles
def test_low_precision_rounding_differences_are_not_called_a_mismatch():
    torch.manual_seed(0)
    ns = {
        "torch": torch,
        "x": torch.randn(64, 64, dtype=torch.bfloat16),
        "w": (torch.randn(64, 64) / 8).to(torch.bfloat16),
    }
    run = run_cell(BF16_CHAIN, ns, kernel_timing=False)
    c = run.correctness
    assert c.ok is True and c.method == "float64", correctness_text(c)
    (h,) = [k for k in c.checks if k.path == "h"]
    assert h.max_abs_diff > 0.01, "Inductor's fused fp32 math differs from eager's rounded bf16 steps"
    assert h.compiled_rmse <= h.allowed_rmse
    assert "float64 run" in correctness_text(c)
    # the dtype tolerance alone, as before, cried wolf on the same outputs
    assert compare_outputs({"h": ns["h"]}, {"h": ns["h"] + h.max_abs_diff}, random_ops=[]).ok is False


@pytest.mark.compiles
def test_outputs_that_differ_by_their_random_draws_are_not_called_a_match_or_a_mismatch():
    torch.manual_seed(0)
    ns = {"torch": torch, "model": torch.nn.Linear(32, 32), "x": torch.randn(16, 32)}
    # Inductor's draws are not eager's (aot_eager's are: there, the outputs simply match)
    run = run_cell("y = torch.nn.functional.dropout(model(x), 0.5, training=True)\n", ns, kernel_timing=False)
    c = run.correctness
    assert c.ok is None and c.note.kind == "random_ops" and c.note.values["ops"], correctness_text(c)
    assert correctness_text(c).startswith("not compared")


def _nan_first(t):
    t = t.clone()
    t.view(-1)[0] = float("nan")
    return t


@pytest.mark.parametrize(
    "change",
    [lambda t: t * 1.01, torch.neg, _nan_first],
    ids=["one-layer-1%-off", "wrong-sign", "nan-where-eager-has-none"],
)
@pytest.mark.compiles
def test_a_real_miscompile_is_still_a_mismatch(change, request):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 8))
    ns = {"model": model, "x": torch.randn(16, 32)}
    backend = fault_backends.changes_linear(f"miscompile_{request.node.callspec.id}", change)
    run = run_cell("y = model(x)\n", ns, backend=backend, kernel_timing=False)
    c = run.correctness
    assert c.ok is False and c.mismatched == ["y"], correctness_text(c)
    assert "differ from eager" in " ".join(warnings(run))


@pytest.mark.compiles
def test_a_compiled_step_that_returns_the_right_value_but_updates_state_wrongly_is_a_mismatch():
    # what a training step changes in place (weights, optimizer state) is its result as much as the loss it
    # returns: a compiled step whose update went wrong read "ok" on its loss alone (review)
    ns = {"torch": torch, "x": torch.randn(8), "w": torch.ones(4)}
    # a factor of 1: the runs (hundreds of them) leave w as it was, where 2 overflowed it to inf, which equals inf
    run = run_cell(
        "w.mul_(1.0)\ny = x.sum()\n", ns, backend=fault_backends.SCALES_IN_PLACE_UPDATES, kernel_timing=False
    )
    c = run.correctness
    assert c.ok is False, correctness_text(c)
    assert c.mismatched == ["w (changed in place)"] and "y" in c.compared
    run = run_cell("w.mul_(1.0)\ny = x.sum()\n", ns, backend="aot_eager", kernel_timing=False)
    assert run.correctness.ok is True and "w (changed in place)" in run.correctness.compared


@pytest.mark.compiles
def test_a_training_steps_weights_and_optimizer_state_are_compared_after_the_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    ns = {"torch": torch, "model": model, "x": torch.randn(8, 16), "opt": torch.optim.AdamW(model.parameters(), lr=0.1)}
    body = "opt.zero_grad()\nloss = model(x).pow(2).mean()\nloss.backward()\nopt.step()\n"
    run = run_cell(body, ns, backend="aot_eager", kernel_timing=False)
    c = run.correctness
    assert c.ok is True, correctness_text(c)
    assert {
        "loss",
        "model.0.weight (changed in place)",
        "opt.state[model.2.bias]['exp_avg'] (changed in place)",
    } <= set(c.compared)
    # a count, and on CUDA the compiled view's counters are other tensors (OptimizerViews)
    assert not any("['step']" in path for path in c.compared)


# -- 3. every kernel on a cell line ----------------------------------------------------------------

LIBRARY = """
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 16)
        self.b = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = torch.relu(self.a(x))
        print("", end="")
        return torch.tanh(self.b(h)) * 2


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(3))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


@pytest.fixture(scope="module")
def library_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lib")
    (folder / "breaking_lib.py").write_text(LIBRARY)
    sys.path.insert(0, str(folder))
    try:
        import breaking_lib

        torch.manual_seed(0)
        ns = {"torch": torch, "model": breaking_lib.Model(), "x": torch.randn(8, 16)}
        yield run_cell("h = x * 2\ny = model(h)\nz = y.sum()\n", ns, kernel_timing=False)
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("breaking_lib", None)


@pytest.mark.compiles
def test_graphs_dynamo_starts_inside_a_library_are_on_the_cell_line_that_called_it(library_run):
    run = library_run
    assert run.status == "ok", run.errors
    first, *later = [g for g in run.graphs if g.kind == "dynamo"]  # the cell's frame, then frames after breaks
    assert first.lines == [2]
    library = [g for g in later if g.op_counts != {"Tensor.sum": 1}]  # all but the cell's resumed last line
    if not caller_lines_reliable():  # torch 2.6: no line rather than a wrong one, and the card says why
        assert len(library) >= 2 and all(g.lines == [] for g in library), [(g.compile_id, g.lines) for g in later]
        assert any(n.kind == "torch_lacks" and "caller_lines" in n.values["features"] for n in run.notes)
        return
    assert len(library) >= 2 and all(g.lines == [3] for g in library), [(g.compile_id, g.lines) for g in later]
    assert run.kernels and all(k.lines for k in run.kernels), [(k.name, k.graph_id) for k in run.kernels if not k.lines]
    assert {line for k in run.kernels for line in k.lines} == {2, 3, 4}


@pytest.mark.compiles
def test_library_graph_breaks_are_grouped_with_their_innermost_frame(library_run):
    groups = [g for g in break_groups(library_run) if g.inside.startswith("breaking_lib.py")]
    card = " ".join(warnings(library_run))
    if not caller_lines_reliable():  # torch 2.6: the cell line where its frame saw the break, else none
        assert groups and all(g.line in (3, None) and g.inside == "breaking_lib.py:13" for g in groups), groups
        assert "inside breaking_lib.py:13" in card
        return
    (group,) = groups
    assert group.line == 3 and group.code_line == "y = model(h)"
    assert group.inside == "breaking_lib.py:13" and group.inside_code == 'print("", end="")'
    assert group.count >= 2, "one break per block compiled"
    assert f"graph break ×{group.count} at cell line 3 (y = model(h)), inside breaking_lib.py:13" in card
    assert "inside breaking_lib.py:13 (print" in render_text(library_run)


@pytest.mark.compiles
def test_a_backend_of_the_users_is_given_the_options_as_torch_compile_gives_them():
    """--backend with --options wraps the backend as torch.compile does (it raised UnboundLocalError: an
    import of torch._inductor in the same function made ``torch`` a local name; pyright found it)."""
    seen = []

    def my_backend(gm, example_inputs, **kwargs):
        seen.append(kwargs)
        return gm.forward

    compiled = torch.compile(lambda x: x.sin() + 1, backend=RecordingBackend(inner=my_backend, options={"level": 2}))
    x = torch.ones(3)
    assert torch.equal(compiled(x), x.sin() + 1)
    assert seen == [{"options": {"level": 2}}]


@pytest.mark.compiles
def test_kernels_keep_their_cell_lines_when_the_compile_brought_no_provenance(tmp_path, monkeypatch):
    """A cache hit on an entry that plain torch.compile filled carries no provenance, and graphs whose
    frames are the user's functions, not the cell: the kernels are still found on the cell's lines,
    through the Dynamo graph traced afresh for this cell."""
    (tmp_path / "user_functions.py").write_text(
        "import torch\n\n\ndef f(x, w):\n    return torch.relu(x @ w)\n\n\ndef g(a):\n    return (a * 2).sum(-1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import user_functions

    torch.manual_seed(0)
    ns = {"f": user_functions.f, "g": user_functions.g, "w": torch.randn(32, 32), "x": torch.randn(8, 32)}
    recorder = TraceRecorder()
    with capture_compiles(recorder):
        # The same computation written inline in another cell fills the caches with that cell's frames.
        inline = cell_to_function("a = torch.relu(x @ w)\nb = (a * 2).sum(-1)\n", {**ns, "torch": torch})
        inline.call_with(torch.compile(inline.fn, backend=RecordingBackend()))
        torch._dynamo.reset()
        recorder.take()
        cell = cell_to_function("a = f(x, w)\nb = g(a)\n", ns)
        backend = RecordingBackend()
        cell.call_with(torch.compile(cell.fn, backend=backend))
    events = recorder.take()
    assert any(e.artifact_name == "fx_graph_cache_hit" for e in events), "the case this test is about"
    locator = CellLocator(cell.filename, cell.source.splitlines())
    full = build_variant_trace(events, backend.graphs, variant="v", locator=locator)
    assert full.kernels and all(k.lines for k in full.kernels)
    provenance = ("inductor_provenance_tracking_node_mappings", "inductor_provenance_tracking_kernel_stack_traces")
    without = build_variant_trace(
        [e for e in events if e.artifact_name not in provenance], backend.graphs, variant="v", locator=locator
    )
    assert sum(1 for k in without.kernels if k.lines) >= 0.95 * len(without.kernels)
    assert all(set(k.lines) <= {1, 2} for k in without.kernels)
    assert {line for k in without.kernels for line in k.lines} == {1, 2}
    sys.modules.pop("user_functions", None)


@pytest.mark.compiles
def test_a_cache_filled_by_plain_torch_compile_first_still_maps_every_kernel():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.LayerNorm(64), torch.nn.GELU())
    x = torch.randn(32, 64)
    torch.compile(model)(x)  # the user compiled it earlier in the notebook
    torch._dynamo.reset()
    run = run_cell("y = model(x)\n", {"model": model, "x": x}, kernel_timing=False, check_correctness=False)
    assert run.kernels and sum(1 for k in run.kernels if k.lines == [2]) >= 0.95 * len(run.kernels)


# -- 6. say when the machine moved under the measurement --------------------------------------------


def test_a_speedup_that_drifted_more_than_its_interval_is_called_out():
    steady = drifting_run(eager_late=5.9, compiled_late=3.0)
    assert not any("machine moved" in w for w in warnings(steady))
    slightly = drifting_run(eager_late=5.9, compiled_late=2.94)  # 2 %: past a tight interval, not news
    assert not any("machine moved" in w for w in warnings(slightly))
    drifted = drifting_run(eager_late=5.3, compiled_late=1.6)
    (note,) = [w for w in warnings(drifted) if "machine moved" in w]
    assert re.search(r"eager went 5\.9\d* ms → 5\.[23]\d* ms and inductor/default 3(\.0\d*)? ms → 1\.6\d* ms", note), (
        note
    )
    assert "speedup went 1.9" in note and "--budget" in note


# -- 5. a peak is a ceiling ----------------------------------------------------------------------


def _observation(name: str, *, gbps: float | None = None, tflops: float | None = None):
    from compile_profile.engine.kernels.attribution import KernelObservation
    from compile_profile.profile_run import Kernel

    kernel = Kernel(name=name, language="extern", source="", graph_id="g", achieved_gbps=gbps, achieved_tflops=tflops)
    return KernelObservation(kernel=kernel, low_precision=tflops is not None)


def test_no_kernel_reads_above_a_ceiling_and_a_raised_one_says_why():
    from compile_profile.engine.kernels import roofline
    from compile_profile.engine.kernels.attribution import VariantKernelTimes
    from compile_profile.profile_run import DevicePeaks

    peaks = DevicePeaks(
        copy_gbps=4300.0, bf16_matmul_tflops=764.0, vendor_gbps=4800.0, vendor_bf16_tflops=989.0, method="measured"
    )
    mm = _observation("extern_kernels.mm", tflops=865.0)  # cuBLAS beat the measured matmul rate
    gather = _observation("triton_per_fused_embedding_0", gbps=16000.0)  # counts the whole embedding table
    add = _observation("triton_poi_fused_add_1", gbps=4400.0)  # exact bytes, past the copy probe
    results = [VariantKernelTimes(variant="v", calls=1, method="cupti", observations={"a": mm, "b": gather, "c": add})]
    roofline.ceilings_at_least_best_seen(peaks, results)
    roofline.apply_shares(results, peaks)
    assert peaks.bf16_matmul_tflops == 865.0 and "raised to 865 TFLOP/s, reached by extern_kernels.mm" in peaks.method
    assert mm.kernel.compute_share == 1.0
    assert peaks.copy_gbps == 4400.0 and "bandwidth ceiling raised to 4400 GB/s" in peaks.method
    assert add.kernel.bandwidth_share == 1.0
    assert gather.kernel.bandwidth_share is None, "past what HBM delivers: its byte count is the doubt"
