"""What a collection's ``models()`` returns for each name, and the usual steps it builds them with: a builder (a
function of no arguments returning ``(fn, args)``), ``Model(build, options=..., tasks=...)``, ``Skip("why")``, and
``step(model, inputs, train=...)``.  A collection file imports them from ``compile_profile.suites``; the built-in
collection from here.  Nothing here imports torch before a step is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Builder = Callable[..., tuple[Callable[..., Any], tuple[Any, ...]]]


@dataclass(frozen=True)
class Model:
    """A collection's entry with options of its own: ``options`` are ``compile_profile.profile``'s keywords for this
    model over the suite's; ``tasks`` the tasks it has (default: both where ``build`` takes ``train``);
    ``timeout_s`` its own time limit in seconds over the suite's ``--timeout`` (a model that compiles for minutes
    beside quick ones, or one known to stall that should end early); ``dtypes`` the dtypes it runs in (default: each
    the suite asks for; flash attention on CUDA has no float32 kernel), the others listed as skipped."""

    build: Builder
    options: Mapping[str, Any] = field(default_factory=dict)
    tasks: tuple[str, ...] | None = None
    timeout_s: float | None = None
    dtypes: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Skip:
    """A model that cannot run here, and why (shown in its row, counted apart from the pass rate)."""

    reason: str


def step(
    model: Any,
    inputs: tuple[Any, ...],
    *,
    train: bool,
    loss: Callable[[Any], Any] | None = None,
    dtype: str = "float32",
    lr: float = 1e-4,
    forward: Callable[..., Any] | None = None,
) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The usual steps of an ``nn.Module``: a forward under ``no_grad`` (``train=False``, the model in eval), or a
    training step (forward, ``loss(output)`` — by default the mean of the output's first tensor —, ``backward``,
    ``AdamW.step``, ``zero_grad``).  ``dtype="bfloat16"`` runs the forward and the loss under autocast, not the
    backward and the optimizer step, as PyTorch's AMP recipe does.  ``forward(*inputs)`` calls the model (default
    ``model(*inputs)``; a Hugging Face model's keywords go there).  Returns ``(fn, inputs)`` for a builder."""
    import contextlib

    import torch

    device = next((p.device.type for p in model.parameters()), "cpu")
    cast = (
        (lambda: torch.autocast(device_type=device, dtype=getattr(torch, dtype)))
        if dtype != "float32"
        else contextlib.nullcontext
    )
    reduce = loss or _first_tensor_mean
    call = forward or model
    if not train:
        model.eval()

        def inference_step(*xs: Any) -> Any:
            with torch.no_grad(), cast():
                return call(*xs)

        return inference_step, tuple(inputs)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def train_step(*xs: Any) -> Any:
        with cast():
            value = reduce(call(*xs))
        value.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return value.detach()

    return train_step, tuple(inputs)


def _first_tensor_mean(output: Any) -> Any:
    import torch

    if isinstance(output, torch.Tensor):
        return output.float().mean()
    if isinstance(output, Mapping):
        output = list(output.values())
    for item in output if isinstance(output, (list, tuple)) else getattr(output, "values", lambda: [])():
        if isinstance(item, torch.Tensor) and item.is_floating_point():
            return item.float().mean()
    raise TypeError(f"no floating tensor in the model's output ({type(output).__name__}) to take a loss of")
