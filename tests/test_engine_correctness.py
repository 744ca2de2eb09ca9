"""compare_outputs: what counts as the same result."""

from __future__ import annotations

import warnings

import torch
from compile_profile.engine.correctness import compare_outputs


def test_complex_results_are_compared_with_their_imaginary_parts():
    eager = {"c": torch.tensor([1 + 1j, 2 - 1j])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # casting complex to real used to warn on the user's stderr
        differs = compare_outputs(eager, {"c": torch.tensor([1 + 9j, 2 - 1j])}, random_ops=[])
        same = compare_outputs(eager, {"c": eager["c"].clone()}, random_ops=[])
    assert differs.ok is False and differs.max_abs_diff == 8.0
    assert same.ok is True and same.max_abs_diff == 0.0


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

    run = compile_profile.profile(step, x, budget=0.2, repeat=5)
    assert run.correctness.ok is True, run.correctness
    assert run.correctness.max_abs_diff < 1e-5
    assert any(note.startswith("the cell changes 4 tensor(s) in place") for note in run.notes)


class _Layer:
    def __init__(self, keys, values):
        self.keys, self.values, self.is_initialized = keys, values, True


class _KvCache:  # the shape of transformers' DynamicCache: layers holding key and value tensors
    def __init__(self, keys, values, seen):
        self.layers = [_Layer(keys, values)]
        self.seen_tokens = seen  # the object's own counter: state, not a result


def test_a_kv_cache_object_in_the_outputs_has_its_tensors_compared_and_its_counters_left_alone():
    from compile_profile.engine.correctness import snapshot

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
    from compile_profile.engine.correctness import snapshot

    cache = _KvCache(torch.randn(2, 2), torch.randn(2, 2), seen=1)
    kept = snapshot({"cache": cache})
    assert kept["cache"] is cache
    result = compare_outputs(
        {"cache": cache, "y": torch.ones(2)},
        {"cache": _KvCache(torch.zeros(2, 2), torch.zeros(2, 2), seen=1), "y": torch.ones(2)},
        random_ops=[],
    )
    assert result.ok is True and result.compared == ["y"]
