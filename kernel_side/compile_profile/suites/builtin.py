"""The built-in collection (``compile-profile suite builtin``): models built from configurations with random weights
from the libraries present, nothing downloaded.

* Hugging Face ``transformers``: GPT-2, BERT, T5, Llama, Mistral, a Mixtral-style mixture of experts, Qwen2 and ViT,
  each with an inference step (a forward under ``no_grad``) and a training step (a loss, ``backward``, AdamW);
* ``timm`` and ``torchvision`` image models, where they import (a torchvision wheel built for another torch does
  not: its entries are then skipped, with the import's error as the reason);
* plain PyTorch models (an MLP, a CNN, a transformer encoder) where none of those libraries is installed;
* the write-up's attention comparison: hand-written attention against ``scaled_dot_product_attention`` with each
  backend this device has, over sequence lengths, each profiled eagerly and compiled.

``size="small"`` (CPU) keeps every model to a few layers and a short sequence so the whole collection runs in a
few minutes on two cores (``docs/suite.md``); ``size="real"`` builds the published sizes (GPT-2 small, BERT base,
T5 small, Llama/Mistral at TinyLlama's 1.1B shape, Qwen2 0.5B, ViT base) for a GPU.  The device is CUDA where
torch has one.  Builders are light to call: libraries are imported, and models built, in the child that runs them.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

from .builders import Model, Skip, step

SEED = 0


def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _library(name: str) -> Any:
    """An optional library, imported by name (it may not be installed where this package is type-checked)."""
    return importlib.import_module(name)


def _import_error(module: str) -> str | None:
    """Why ``module`` does not import here, in one line; None where it does."""
    try:
        importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - a wheel built for another torch raises RuntimeError, not ImportError
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        return f"{module} does not import here ({type(exc).__name__}: {first[:160]})"
    return None


# -- Hugging Face transformers ----------------------------------------------------------------------------------

# (small, real) keyword arguments of each config: small for a 2-core CPU, real for a GPU
_LM_SMALL = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4}
_LLAMA_REAL = {
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 22,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
}


def _shape(size: str) -> tuple[int, int, int]:
    """(batch, sequence, vocabulary) of a language model's inputs."""
    return (2, 64, 1000) if size == "small" else (8, 512, 32000)


def _causal_lm(config_name: str, model_name: str, size: str, small: dict[str, Any], real: dict[str, Any]) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch

        transformers = _library("transformers")

        torch.manual_seed(SEED)
        batch, seq, vocab = _shape(size)
        config = getattr(transformers, config_name)(vocab_size=vocab, **(small if size == "small" else real))
        model = getattr(transformers, model_name)(config).to(_device())
        ids = torch.randint(0, vocab, (batch, seq), device=_device())
        if train:
            return step(
                model, (ids,), train=True, dtype=dtype, loss=lambda out: out.loss, forward=lambda i: model(i, labels=i)
            )
        return step(model, (ids,), train=False, dtype=dtype, forward=lambda i: model(i).logits)

    return build


def _gpt2(size: str) -> Callable:
    small = {"n_layer": 2, "n_embd": 128, "n_head": 4, "n_positions": 128, "bos_token_id": 0, "eos_token_id": 0}
    return _causal_lm("GPT2Config", "GPT2LMHeadModel", size, small, {"bos_token_id": 0, "eos_token_id": 0})


def _bert(size: str) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch

        transformers = _library("transformers")

        torch.manual_seed(SEED)
        batch, seq, vocab = _shape(size)
        config = transformers.BertConfig(vocab_size=vocab, **(_LM_SMALL if size == "small" else {}))
        model = transformers.BertForMaskedLM(config).to(_device())
        ids = torch.randint(0, vocab, (batch, seq), device=_device())
        if train:
            return step(
                model, (ids,), train=True, dtype=dtype, loss=lambda out: out.loss, forward=lambda i: model(i, labels=i)
            )
        return step(model, (ids,), train=False, dtype=dtype, forward=lambda i: model(i).logits)

    return build


def _t5(size: str) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch

        transformers = _library("transformers")

        torch.manual_seed(SEED)
        batch, seq, vocab = _shape(size)
        small = {"d_model": 128, "d_ff": 256, "num_layers": 2, "num_heads": 4, "d_kv": 32}
        config = transformers.T5Config(vocab_size=vocab, decoder_start_token_id=0, **(small if size == "small" else {}))
        model = transformers.T5ForConditionalGeneration(config).to(_device())
        ids = torch.randint(0, vocab, (batch, seq), device=_device())
        target = torch.randint(0, vocab, (batch, seq // 2), device=_device())
        if train:
            return step(
                model,
                (ids, target),
                train=True,
                dtype=dtype,
                loss=lambda out: out.loss,
                forward=lambda i, t: model(input_ids=i, labels=t),
            )
        return step(
            model,
            (ids, target),
            train=False,
            dtype=dtype,
            forward=lambda i, t: model(input_ids=i, decoder_input_ids=t).logits,
        )

    return build


def _vit(size: str) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch

        transformers = _library("transformers")

        torch.manual_seed(SEED)
        if size == "small":
            config = transformers.ViTConfig(image_size=64, patch_size=8, num_labels=10, **_LM_SMALL)
            images = torch.randn(2, 3, 64, 64, device=_device())
        else:
            config = transformers.ViTConfig(num_labels=1000)
            images = torch.randn(32, 3, 224, 224, device=_device())
        model = transformers.ViTForImageClassification(config).to(_device())
        labels = torch.randint(0, config.num_labels, (images.shape[0],), device=_device())
        if train:
            return step(
                model,
                (images, labels),
                train=True,
                dtype=dtype,
                loss=lambda out: out.loss,
                forward=lambda x, y: model(pixel_values=x, labels=y),
            )
        return step(
            model, (images, labels), train=False, dtype=dtype, forward=lambda x, y: model(pixel_values=x).logits
        )

    return build


def _transformers_models(size: str) -> dict[str, Any]:
    kv_small = {**_LM_SMALL, "num_key_value_heads": 2}
    moe_small = {**kv_small, "num_local_experts": 4, "num_experts_per_tok": 2}
    moe_real = {**_LLAMA_REAL, "num_hidden_layers": 4, "num_local_experts": 8, "num_experts_per_tok": 2}
    qwen_real = {
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
    }
    return {
        "gpt2": _gpt2(size),
        "bert": _bert(size),
        "t5": _t5(size),
        "llama": _causal_lm("LlamaConfig", "LlamaForCausalLM", size, kv_small, _LLAMA_REAL),
        "mistral": _causal_lm(
            "MistralConfig", "MistralForCausalLM", size, {**kv_small, "sliding_window": 32}, _LLAMA_REAL
        ),
        "mixtral-moe": _causal_lm("MixtralConfig", "MixtralForCausalLM", size, moe_small, moe_real),
        "qwen2": _causal_lm("Qwen2Config", "Qwen2ForCausalLM", size, kv_small, qwen_real),
        "vit": _vit(size),
    }


# -- timm, torchvision ----------------------------------------------------------------------------------------------


def _image_model(library: str, name: str, size: str) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch

        torch.manual_seed(SEED)
        if library == "timm":
            model = _library("timm").create_model(name, pretrained=False, num_classes=10)
        else:
            model = getattr(_library("torchvision").models, name)(weights=None, num_classes=10)
        model = model.to(_device())
        side, batch = (64, 2) if size == "small" else (224, 64)
        images = torch.randn(batch, 3, side, side, device=_device())
        labels = torch.randint(0, 10, (batch,), device=_device())
        if train:
            return step(
                model,
                (images, labels),
                train=True,
                dtype=dtype,
                loss=lambda logits: torch.nn.functional.cross_entropy(logits.float(), labels),
                forward=lambda x, y: model(x),
            )
        return step(model, (images, labels), train=False, dtype=dtype, forward=lambda x, y: model(x))

    return build


def _library_models(library: str, names: tuple[str, ...], size: str) -> dict[str, Any]:
    why = _import_error(library)
    if why is not None:
        return {f"{library}:{name}": Skip(why) for name in names}
    return {f"{library}:{name}": _image_model(library, name, size) for name in names}


# -- plain PyTorch ------------------------------------------------------------------------------------------------


def _plain(kind: str, size: str) -> Callable:
    def build(train: bool, dtype: str) -> tuple[Callable, tuple]:
        import torch
        from torch import nn

        torch.manual_seed(SEED)
        width = 256 if size == "small" else 4096
        batch = 32 if size == "small" else 256
        if kind == "mlp":
            model: nn.Module = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
            x = torch.randn(batch, width)
        elif kind == "cnn":
            model = nn.Sequential(
                nn.Conv2d(3, 32, 3, padding=1),
                nn.BatchNorm2d(32),
                nn.ReLU(),
                nn.Conv2d(32, 64, 3, padding=1, stride=2),
                nn.ReLU(),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
                nn.Linear(64, 10),
            )
            x = torch.randn(
                8 if size == "small" else 64, 3, 32 if size == "small" else 224, 32 if size == "small" else 224
            )
        else:
            layer = nn.TransformerEncoderLayer(d_model=128 if size == "small" else 1024, nhead=4, batch_first=True)
            model = nn.TransformerEncoder(layer, num_layers=2 if size == "small" else 12, enable_nested_tensor=False)
            x = torch.randn(4, 64, 128 if size == "small" else 1024)
        model = model.to(_device())
        return step(model, (x.to(_device()),), train=train, dtype=dtype)

    return build


# -- attention: hand-written against scaled_dot_product_attention --------------------------------------------------


def _sdpa_backends() -> list[str]:
    """The SDPA backends this device has: math and flash on CPU (flash has a CPU kernel); efficient and cuDNN too on a
    GPU."""
    import torch

    return ["math", "flash", "efficient", "cudnn"] if torch.cuda.is_available() else ["math", "flash"]


def _attention(kind: str, length: int, size: str) -> Callable:
    def build() -> tuple[Callable, tuple]:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel

        torch.manual_seed(SEED)
        batch, heads, dim = (2, 4, 64) if size == "small" else (8, 16, 64)
        q, k, v = (torch.randn(batch, heads, length, dim, device=_device()) for _ in range(3))
        if kind == "hand-written":

            def attention(q: Any, k: Any, v: Any) -> Any:
                scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
                return torch.softmax(scores, dim=-1) @ v

            return attention, (q, k, v)
        backend = {
            "math": SDPBackend.MATH,
            "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION,
        }[kind]

        def sdpa(q: Any, k: Any, v: Any) -> Any:
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v)

        return sdpa, (q, k, v)

    return build


def _half_only(kind: str) -> bool:
    """Flash and cuDNN attention have no float32 kernel on CUDA ("No available kernel"): their float32 entries are
    skipped there, and their bfloat16 entries run under autocast, which casts q, k and v."""
    import torch

    return kind in ("sdpa-flash", "sdpa-cudnn") and torch.cuda.is_available()


def attention_models(size: str) -> dict[str, Any]:
    lengths = (128, 512) if size == "small" else (1024, 4096, 16384)
    kinds = ["hand-written", *(f"sdpa-{b}" for b in _sdpa_backends())]
    return {
        f"attention {kind} L={length}": Model(
            _attention(kind.removeprefix("sdpa-"), length, size), dtypes=("bfloat16",) if _half_only(kind) else None
        )
        for length in lengths
        for kind in kinds
    }


def models(size: str = "small") -> dict[str, Any]:
    """The built-in collection at ``size``: "small" for a CPU, "real" for a GPU."""
    out: dict[str, Any] = {}
    libraries = {name: _import_error(name) for name in ("transformers", "timm", "torchvision")}
    if libraries["transformers"] is None:
        out.update(_transformers_models(size))
    else:
        out["transformers"] = Skip(libraries["transformers"] or "")
    out.update(_library_models("timm", ("resnet18", "convnext_atto"), size))
    out.update(_library_models("torchvision", ("resnet18", "mobilenet_v3_small"), size))
    if all(why is not None for why in libraries.values()):
        out.update({f"plain {kind}": Model(_plain(kind, size)) for kind in ("mlp", "cnn", "transformer")})
    out.update(attention_models(size))
    return out


def cpu_sample(size: str = "small") -> list[str]:
    """What notebook 09 profiles on a CPU: two language models and the attention comparison.  Hugging Face's GPT-2
    and Llama where ``transformers`` imports, else the first two entries this collection can build (the plain MLP
    and CNN where no library imports): a fresh ``make test`` installs no ``transformers``, and naming GPT-2 there
    stopped the notebook with "--only gpt2, llama: builtin has no such model"."""
    collection = models(size)
    built = [name for name, m in collection.items() if not isinstance(m, Skip) and not name.startswith("attention ")]
    return [*([n for n in ("gpt2", "llama") if n in built] or built[:2]), *attention_models(size)]
