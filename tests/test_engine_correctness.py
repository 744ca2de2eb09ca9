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
