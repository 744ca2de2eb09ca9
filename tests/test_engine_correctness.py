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
