"""compare_outputs: what counts as the same result."""

from __future__ import annotations

import copy
import warnings

import fault_backends
import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.notes import note_text
from compile_profile.engine.correctness.compare import compare_outputs
from profile_options import FAST

# torch._grouped_mm (the MoE experts' matmul, with no float64 kernel) arrived after torch 2.6
needs_grouped_mm = pytest.mark.skipif(not hasattr(torch, "_grouped_mm"), reason="this torch has no torch._grouped_mm")


def test_complex_results_are_compared_with_their_imaginary_parts():
    eager = {"c": torch.tensor([1 + 1j, 2 - 1j])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # casting complex to real used to warn on the user's stderr
        differs = compare_outputs(eager, {"c": torch.tensor([1 + 9j, 2 - 1j])}, random_ops=[])
        same = compare_outputs(eager, {"c": eager["c"].clone()}, random_ops=[])
    assert differs.ok is False and differs.max_abs_diff == 8.0
    assert same.ok is True and same.max_abs_diff == 0.0


@pytest.mark.compiles
def test_a_training_step_passed_to_profile_is_judged_from_the_same_weights_in_both_variants():
    # each call steps the optimizer: without putting the weights back before each correctness run, the
    # compiled and eager losses came one SGD step apart and every training step read "mismatch"
    import compile_profile

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    x = torch.randn(16, 32)

    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    run = compile_profile.profile(step, x, backend="aot_eager", kernel_timing=False, **FAST)
    assert run.correctness.ok is True, run.correctness
    assert run.correctness.max_abs_diff < 1e-5
    assert any(n.kind == "state_restored" and n.values == {"tensors": 4} for n in run.notes), run.notes


class _Layer:
    def __init__(self, keys, values):
        self.keys, self.values, self.is_initialized = keys, values, True


class _KvCache:  # the shape of transformers' DynamicCache: layers holding key and value tensors
    def __init__(self, keys, values, seen):
        self.layers = [_Layer(keys, values)]
        self.seen_tokens = seen  # the object's own counter: state, not a result


def test_a_kv_cache_object_in_the_outputs_has_its_tensors_compared_and_its_counters_left_alone():
    from compile_profile.engine.correctness.compare import snapshot

    k, v = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    eager = snapshot({"out": {"logits": torch.ones(3), "past_key_values": _KvCache(k, v, seen=16)}})
    same = compare_outputs(
        eager,
        {"out": {"logits": torch.ones(3), "past_key_values": _KvCache(k.clone(), v.clone(), seen=17)}},
        random_ops=[],
    )
    assert same.ok is True
    assert "out['past_key_values'].layers[0].keys" in same.compared
    assert not any("seen_tokens" in p or "is_initialized" in p for p in same.compared)
    wrong = compare_outputs(
        eager, {"out": {"logits": torch.ones(3), "past_key_values": _KvCache(k, v + 1, seen=16)}}, random_ops=[]
    )
    assert wrong.ok is False and wrong.mismatched == ["out['past_key_values'].layers[0].values"]
    v.add_(1)  # a later run writing into the cache: the snapshot kept the values as they were
    assert torch.equal(eager["out"]["past_key_values"].layers[0].values + 1, v)


def test_an_object_the_cell_itself_keeps_is_state_not_a_result_and_is_neither_compared_nor_copied():
    from compile_profile.engine.correctness.compare import snapshot

    cache = _KvCache(torch.randn(2, 2), torch.randn(2, 2), seen=1)
    kept = snapshot({"cache": cache})
    assert kept["cache"] is cache
    result = compare_outputs(
        {"cache": cache, "y": torch.ones(2)},
        {"cache": _KvCache(torch.zeros(2, 2), torch.zeros(2, 2), seen=1), "y": torch.ones(2)},
        random_ops=[],
    )
    assert result.ok is True and result.compared == ["y"]


# -- the reference where float64 cannot run ---------------------------------------------------------


class TinyMoE(torch.nn.Module):
    """A Mixtral-style sparse MoE layer: a router picks the top 2 of 8 experts per token, and the experts run as
    one ``torch._grouped_mm`` over the tokens sorted by expert, as ``transformers``' grouped_mm experts do.
    ``torch._grouped_mm`` has no float64 kernel."""

    def __init__(self, d: int, h: int, experts: int = 8, top_k: int = 2):
        super().__init__()
        self.top_k, self.experts = top_k, experts
        self.norm = torch.nn.LayerNorm(d)
        self.router = torch.nn.Linear(d, experts, bias=False)
        self.up = torch.nn.Parameter(torch.randn(experts, d, h) / d**0.5)
        self.down = torch.nn.Parameter(torch.randn(experts, h, d) / h**0.5)

    def forward(self, x):
        z = self.norm(x)
        weights, chosen = torch.topk(self.router(z).softmax(-1), self.top_k)
        flat = chosen.reshape(-1)
        order = flat.argsort(stable=True)
        tokens = order // self.top_k
        offs = (flat.unsqueeze(1) == torch.arange(self.experts)).sum(0).cumsum(0).to(torch.int32)
        h = torch._grouped_mm(z[tokens], self.up, offs=offs)
        y = torch._grouped_mm(torch.nn.functional.silu(h), self.down, offs=offs)
        return x + torch.zeros_like(x).index_add_(0, tokens, y * weights.reshape(-1)[order, None])


def _moe_namespace() -> dict:
    torch.manual_seed(0)
    layers = [TinyMoE(32, 64) for _ in range(4)]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(32, 256)).to(torch.bfloat16)
    return {"model": model, "x": torch.randn(64, 32, dtype=torch.bfloat16)}


@pytest.mark.compiles
@needs_grouped_mm
def test_a_moe_whose_grouped_mm_has_no_float64_kernel_is_judged_against_float64_with_that_op_in_float32():
    # "compiled results differ from eager in logits (max abs diff 2.73) ... no float64 reference: the code failed
    # on float64 copies (RuntimeError: Expected mat_a to be Float32, BFloat16 or Float16 matrix, got Double)"
    from compile_profile.digest.correctness import correctness_text

    ns = _moe_namespace()
    run = run_cell("y = model(x)\n", ns, backend=fault_backends.float32("moe_float32"), kernel_timing=False).run
    c = run.correctness
    (y,) = c.checks
    assert c.ok is True, correctness_text(c)
    assert c.method == "mixed" and c.reference_float32_ops == ["aten._grouped_mm"]
    assert "Expected mat_a to be Float32" in c.reference_fallback
    assert y.max_abs_diff > 0.1 and y.compiled_rmse is not None  # beyond bf16 tolerance: judged by the reference
    # independently: eager's error against a float32 run of the same model, which the reference must match
    model32 = copy.deepcopy(ns["model"]).float()
    with torch.no_grad():
        eager, exact = ns["model"](ns["x"]).double(), model32(ns["x"].float()).double()
    assert abs(y.eager_rmse - float((eager - exact).pow(2).mean().sqrt())) < 0.02 * y.eager_rmse
    assert "with aten._grouped_mm in float32 (it fails in float64)" in correctness_text(c)


@pytest.mark.compiles
@needs_grouped_mm
@pytest.mark.parametrize("change", [torch.neg, lambda t: t * 1.25], ids=["wrong-sign-logits", "logits-25%-off"])
def test_a_miscompiled_moe_still_fails_against_the_reference_with_an_op_in_float32(change, request):
    ns = _moe_namespace()
    backend = fault_backends.float32(f"moe_miscompile_{request.node.callspec.id}", change)
    c = run_cell("y = model(x)\n", ns, backend=backend, kernel_timing=False).run.correctness
    assert c.ok is False and c.mismatched == ["y"] and c.method == "mixed"
    (y,) = c.checks
    assert y.compiled_rmse > y.allowed_rmse


@pytest.mark.compiles
@needs_grouped_mm
@pytest.mark.parametrize("change, ok", [(None, True), (torch.neg, False)], ids=["more-precise", "wrong-sign-logits"])
def test_a_quick_profile_judges_bf16_outputs_beyond_eager_tolerance_against_the_reference_it_skips_otherwise(
    change, ok, request
):
    # On an H200 every --quick suite entry in bf16 (GPT-2, BERT, T5) read "results differ": logits 0.023-0.063
    # from eager's, judged by bf16 tolerance alone
    from compile_profile.digest.correctness import correctness_text

    ns = _moe_namespace()
    backend = fault_backends.float32(f"moe_quick_{request.node.callspec.id}", change)
    c = run_cell("y = model(x)\n", ns, backend=backend, kernel_timing=False, quick=True).run.correctness
    (y,) = c.checks
    assert y.max_abs_diff > 0.1  # beyond bf16 tolerance of eager either way
    assert c.ok is ok and c.method == "mixed" and y.compiled_rmse is not None, correctness_text(c)
    assert c.note is not None and c.note.kind == "reference_quick_needed" and c.note.values["outputs"] == ["y"]
    assert "--quick runs the reference only where outputs leave eager's dtype tolerance, as y did" in (
        correctness_text(c) + "; " + note_text(c.note)
    )


def _deep_bf16_mlp() -> tuple[torch.nn.Module, torch.Tensor]:
    """Token ids into an embedding and twelve tanh layers of 512 in bfloat16, as a language model takes integer
    inputs (a float64 copy of them is themselves): computed in float32 and rounded once (as Inductor's fused bf16
    kernels compute) its outputs lie beyond bf16's tolerance of eager's, and nearer a float64 run."""
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = [torch.nn.Embedding(1000, 512)]
    for _ in range(12):
        linear = torch.nn.Linear(512, 512)
        torch.nn.init.normal_(linear.weight, std=2.0 / 512**0.5)
        layers += [linear, torch.nn.Tanh()]
    return torch.nn.Sequential(*layers, torch.nn.Linear(512, 64)).bfloat16(), torch.randint(0, 1000, (4, 16))


@pytest.mark.compiles
@pytest.mark.parametrize(
    "reach, change, ok",
    [
        ("closure", None, True),
        ("closure", torch.neg, False),
        ("module", None, True),
        ("bound-method", None, True),
    ],
    ids=["closure", "closure-wrong-sign", "module", "bound-method"],
)
def test_a_profiled_function_that_reaches_its_bf16_model_through_a_closure_or_as_a_module_is_judged_by_the_reference(
    reach, change, ok, request
):
    # On an H100 every bf16 entry of the built-in suite (GPT-2, BERT, T5, Llama, Mistral, the MoE, Qwen2, ViT: a
    # builder's step closing over its model) read "results differ": the reference copied the globals the step
    # reads, not its closure, so it ran the bf16 model itself, equal to eager, and the outputs were judged by
    # bf16's tolerance alone
    import compile_profile
    from compile_profile.digest.correctness import correctness_text

    model, x = _deep_bf16_mlp()

    def make_step(model):
        def step(x):
            with torch.no_grad():
                return model(x)

        return step

    fn = {"closure": make_step(model), "module": model, "bound-method": model.forward}[reach]
    backend = fault_backends.float32(f"closure_{request.node.callspec.id}", change)
    c = compile_profile.profile(fn, x, backend=backend, quick=True, kernel_timing=False, **FAST).correctness
    (y,) = c.checks
    assert y.max_abs_diff > 0.01  # beyond bf16 tolerance of eager either way
    assert c.ok is ok and c.method == "float64" and y.compiled_rmse is not None, correctness_text(c)
    if ok:  # independently: eager's error against a float64 run of the same model
        with torch.no_grad():
            exact = copy.deepcopy(model).double()(x)
        with torch.no_grad():
            eager_error = float((model(x).double() - exact).pow(2).mean().sqrt())
        assert abs(y.eager_rmse - eager_error) < 0.02 * y.eager_rmse
    assert next(model.parameters()).dtype == torch.bfloat16  # the user's model is as it was


def test_inside_the_reference_a_cast_down_rounds_the_values_and_keeps_the_precision_autograd_included():
    from compile_profile.engine.correctness.rounded_casts import RoundedCasts

    x = torch.randn(4, 8, dtype=torch.float64, requires_grad=True)
    with RoundedCasts() as casts:
        as_bf16, as_half, as_float = x.bfloat16(), x.to(torch.float16), x.float()
        as_int, up = x.to(torch.int32), x.detach().float().double()
        (as_bf16 * 2).sum().backward()
    assert [t.dtype for t in (as_bf16, as_half, as_float)] == [torch.float64] * 3
    assert torch.equal(as_bf16, x.detach().bfloat16().double()) and not torch.equal(as_bf16, x.detach())
    assert torch.equal(as_half, x.detach().half().double())
    assert as_int.dtype == torch.int32 and up.dtype == torch.float64  # neither is a cast down of a float
    assert x.grad.dtype == torch.float64 and torch.equal(x.grad, torch.full_like(x, 2.0))
    assert list(casts.rounded) == ["float64 to bfloat16", "float64 to float16", "float64 to float32"]


BF16_CAST_CELL = "y = torch.softmax((x.bfloat16() @ w.bfloat16()) * 3.7, -1).sum(0)\n"


@pytest.mark.compiles
@pytest.mark.parametrize("change, ok", [(None, True), (torch.neg, False)], ids=["more-precise", "wrong-sign"])
def test_code_that_casts_to_bf16_itself_is_judged_against_float64_past_its_casts(change, ok, request):
    """A new user's cell read "results differ" (max abs diff 0.133) under Inductor: its reference cast down to bf16
    where the cell does, equal to eager, so it was no reference and bf16's tolerance alone judged.  Against the exact
    result on the same bf16 inputs eager and compiled were both 0.1497 off."""
    from compile_profile.digest.correctness import correctness_text

    torch.manual_seed(0)
    ns = {"torch": torch, "x": torch.randn(64, 128), "w": torch.randn(128, 512)}
    backend = fault_backends.rounds_casts_only(f"bf16_casts_{request.node.callspec.id}", change)
    c = run_cell(BF16_CAST_CELL, ns, backend=backend, kernel_timing=False).run.correctness
    (y,) = c.checks
    text = correctness_text(c)
    assert y.max_abs_diff > 0.02  # beyond bf16's tolerance of eager either way
    assert c.ok is ok and c.method == "float64" and y.compiled_rmse is not None, text
    assert c.reference_rounded_casts == ["float64 to bfloat16"], c.reference_rounded_casts
    if ok:
        assert "of the same code (its casts to bfloat16 rounding the values only)" in text, text
        # independently: eager's error against the exact result on the same bf16 inputs
        exact = torch.softmax((ns["x"].bfloat16().double() @ ns["w"].bfloat16().double()) * 3.7, -1).sum(0)
        eager = torch.softmax((ns["x"].bfloat16() @ ns["w"].bfloat16()) * 3.7, -1).sum(0)
        eager_error = float((eager.double() - exact).pow(2).mean().sqrt())
        assert abs(y.eager_rmse - eager_error) < 1e-9 + 1e-6 * eager_error, (y.eager_rmse, eager_error)


@pytest.mark.compiles
def test_a_quick_profile_whose_outputs_are_within_tolerance_runs_no_reference():
    torch.manual_seed(0)
    ns = {"model": torch.nn.Linear(16, 8), "x": torch.randn(4, 16)}
    c = run_cell("y = model(x)\n", ns, backend="aot_eager", kernel_timing=False, quick=True).run.correctness
    assert c.ok is True and c.method == "tolerance" and c.note is not None and c.note.kind == "reference_quick"
    assert all(k.compiled_rmse is None for k in c.checks)


class _HalfPrecisionOnly(torch.nn.Module):
    """A layer whose library checks dtypes in Python before it calls its kernel (as flash-attention wrappers
    do): float64 stops it before any op runs, so no op-by-op fallback can help."""

    def forward(self, x):
        if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
            raise TypeError(f"only float16, bfloat16 and float32 are supported, not {x.dtype}")
        return x


@pytest.mark.compiles
@needs_grouped_mm
def test_bf16_code_that_cannot_run_in_float64_at_all_is_judged_against_a_float32_run():
    from compile_profile.digest.correctness import correctness_text

    ns = _moe_namespace()
    ns["model"] = torch.nn.Sequential(_HalfPrecisionOnly(), *ns["model"])
    run = run_cell("y = model(x)\n", ns, backend=fault_backends.float32("moe_float32"), kernel_timing=False).run
    c = run.correctness
    assert c.ok is True and c.method == "float32", correctness_text(c)
    assert c.reference_fallback.startswith("TypeError: only float16")
    assert c.checks[0].compiled_rmse is not None
    assert "from a float32 run of the same code (float64 could not run: TypeError" in correctness_text(c)


@needs_grouped_mm
def test_the_op_fallback_runs_ops_in_float64_where_it_can_and_writes_in_place_results_back():
    from compile_profile.engine.correctness.op_fallback import HighestPrecision

    @torch.library.custom_op("compile_profile_test::halve_", mutates_args=["x"])
    def halve_(x: torch.Tensor) -> None:
        if x.dtype == torch.float64:
            raise RuntimeError("no float64 kernel")
        x.mul_(0.5)

    a = torch.randn(4, 8, dtype=torch.float64)
    w = torch.randn(2, 8, 16, dtype=torch.float64, requires_grad=True)
    offs = torch.tensor([1, 4], dtype=torch.int32)
    mode = HighestPrecision()
    with mode:
        grouped = torch._grouped_mm(a, w, offs=offs)
        grouped.sum().backward()  # backward's grouped_mm passes through the mode too
        mixed = torch.randn(3, 8) @ a.T  # float32 @ float64: runs in float64 once the float32 side is cast up
        kept = a.clone()
        halve_(kept)
    assert grouped.dtype == torch.float64 and w.grad.dtype == torch.float64
    assert torch.equal(grouped, torch._grouped_mm(a.float(), w.float(), offs=offs).double())
    assert mixed.dtype == torch.float64
    assert torch.allclose(kept, a * 0.5)  # the float32 copy's result, written back into the float64 tensor
    assert list(mode.float32_ops) == ["aten._grouped_mm", "compile_profile_test.halve_"]


# -- cells that read from an iterator --------------------------------------------------------------


def _batches(n: int = 10_000):
    for i in range(n):
        yield torch.randn(8, 17 + i % 16, 32)


@pytest.mark.parametrize(
    "make",
    [
        _batches,
        lambda: iter(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(4096, 32)), batch_size=8)),
        # as many items as the generator's, not 200: the profile draws one per call, and on a busy machine (CI, a
        # cold cache) its warm-up and timed rounds drew 165-189 of 200, so the list ran out before the check ran
        lambda: iter([torch.randn(8, 17 + i % 16, 32) for i in range(2_000)]),
    ],
    ids=["generator", "dataloader-iterator", "list-iterator"],
)
@pytest.mark.compiles
def test_a_cell_that_draws_a_batch_from_an_iterator_compares_eager_and_compiled_on_the_same_batch(make):
    # "compiled results differ from eager in xb, yb (max abs diff —): xb compiled gave torch.float32
    # [8, 17, 128], eager torch.float32 [8, 32, 128]": each run drew another batch
    from compile_profile.digest.correctness import correctness_text

    torch.manual_seed(0)
    batches = make()
    ns = {"torch": torch, "model": torch.nn.Linear(32, 16), "batches": batches}
    body = "xb = next(batches)\nxb = xb[0] if isinstance(xb, list) else xb\nyb = model(xb).tanh()\n"
    run = run_cell(body, ns, backend="aot_eager", kernel_timing=False).run
    c = run.correctness
    assert c is not None, (run.status, run.errors, [n.kind for n in run.notes])  # e.g. the iterator ran out
    assert c.ok is True and c.replayed == ["batches"], correctness_text(c)
    assert c.method == "float64" and not c.note  # the float64 run was given float64 copies of the same batch
    assert ns["batches"] is batches  # the user's own iterator is back, advanced as plain runs advance it
    assert "every run was given the same items from batches" in correctness_text(c)
    # the replay kept the iterator's type: Dynamo's guard on it held (the recompiles are the batches' sizes)
    assert not any("batches" in r.reason for r in run.recompiles), [r.reason for r in run.recompiles]


class _Feed:
    """An iterator the cell reaches through an object's attribute: not found by its global name."""

    def __init__(self):
        self.it = _batches()


@pytest.mark.compiles
def test_a_cell_whose_inputs_change_between_runs_unseen_is_not_compared_and_says_why():
    from compile_profile.digest.correctness import correctness_text

    torch.manual_seed(0)
    ns = {"model": torch.nn.Linear(32, 16), "feed": _Feed()}
    c = run_cell("xb = next(feed.it)\nyb = model(xb)\n", ns, backend="aot_eager", kernel_timing=False).run.correctness
    text = correctness_text(c)
    assert c.ok is None and c.mismatched == [] and set(c.changed_between_runs) == {"xb", "yb"}, text
    assert text.startswith("not compared: eager itself gave other results on a second run in xb, yb (xb: eager gave")
    assert "differ" not in text.split("(")[0] and "—" not in text


@pytest.mark.compiles
def test_an_iterator_that_cannot_be_replayed_without_recompiling_is_not_compared_where_eager_moved():
    import io

    from compile_profile.digest.correctness import correctness_text

    buf = io.StringIO("".join(f"{i}.5\n" for i in range(10_000)))  # an iterator, read here by readline()
    ns = {"torch": torch, "buf": buf, "x": torch.ones(4)}
    body = "s = torch.tensor(float(buf.readline()))\ny = (x * s).tanh()\n"
    c = run_cell(body, ns, backend="aot_eager", kernel_timing=False).run.correctness
    text = correctness_text(c)
    # a file's type Dynamo guards on: a stand-in would recompile; any difference between eager runs is a change
    assert c.ok is None and c.not_replayed == ["buf"] and "s" in c.changed_between_runs, text
    assert "buf could not be given the same items on each run (generators, list, tuple and range" in text


# -- nondeterministic eager -----------------------------------------------------------------------------


@torch.library.custom_op("compile_profile_test::jitter", mutates_args=())
def _jitter(x: torch.Tensor) -> torch.Tensor:
    """Adds noise of 2 % of its input's RMS that torch's seed does not fix: eager differs from itself run to run,
    as with bf16 atomics in a CUDA scatter, beyond bf16's tolerance."""
    import numpy as np

    noise = torch.from_numpy(np.random.standard_normal(tuple(x.shape))).to(x.dtype)
    return x + noise * 0.02 * x.float().pow(2).mean().sqrt().to(x.dtype)


@_jitter.register_fake
def _(x):
    return torch.empty_like(x)


@pytest.mark.compiles
@pytest.mark.parametrize("factor, ok", [(1.0, True), (1.25, False)], ids=["right", "25%-off"])
def test_where_eager_differs_from_itself_compiled_is_judged_against_that_spread(factor, ok, monkeypatch):
    from compile_profile.digest.correctness import correctness_text
    from compile_profile.engine.correctness import reference

    # no reference run (as for a model too large for a float64 copy): eager's own spread is what remains
    monkeypatch.setattr(reference, "MEMORY_SHARE", 0.0)
    torch.manual_seed(0)
    model = torch.nn.Linear(64, 64).requires_grad_(False).to(torch.bfloat16)
    ns = {"torch": torch, "model": model, "x": torch.randn(32, 64, dtype=torch.bfloat16)}
    backend = fault_backends.scales_outputs(f"scale_{factor}", factor)
    c = run_cell("y = torch.ops.compile_profile_test.jitter(model(x))\n", ns, backend=backend, kernel_timing=False)
    c = c.run.correctness
    (y,) = c.checks
    assert c.ok is ok and c.method == "tolerance", correctness_text(c)
    assert 0.01 < y.eager_spread_rmse < 0.02 and y.max_abs_diff > 0.02  # sqrt(2) x the noise's RMS (~0.012)
    if ok:
        assert y.compiled_eager_rmse < y.allowed_rmse
        assert correctness_text(c).startswith("compiled results are within eager's own run-to-run spread")
    else:
        assert y.why.kind == "output_beyond_spread" and y.why.values["spread"] == y.eager_spread_rmse
