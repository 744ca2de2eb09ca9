"""A collection of the Hugging Face models PyTorch's dynamo benchmark runner times (``benchmarks/dynamo/huggingface.py``
in PyTorch's source tree), built and fed as the runner builds and feeds them, so ``compile-profile suite`` and the
runner can be set side by side on the same steps (docs/benchmarks.md, "PyTorch's benchmark runner beside the suite").

    RUNNER_BS=1 compile-profile suite benchmarks/runner_models.py --quick

What it repeats of the runner's inference path: the random state seeded as ``reset_rng_state`` seeds it (1337) right
before the model is built; the model from its config class with random weights (nothing downloaded); the inputs
drawn right after (``input_ids``, T5's ``decoder_input_ids`` the same tensor, and labels, which the runner passes for
inference too: a masked LM's per token, a sequence classifier's per row, T5's per token); dropout set to 1e-30,
``use_cache`` off, ``eval()``; the step ``model(**inputs)`` under ``torch.no_grad()``, the whole output returned.
GPT-2 is the runner's ``GPT2ForSequenceClassification`` (its list has no causal-LM GPT-2 that builds offline).

``RUNNER_BS``: the batch, as the runner's ``--batch-size`` (default 1); ``default`` takes the runner's own
(``huggingface_models_list.txt``'s batch over ``huggingface.yaml``'s divisor).  CUDA where torch has it, else the CPU.
"""

import os

BATCH = os.environ.get("RUNNER_BS", "1")
# huggingface_models_list.txt batch // huggingface.yaml batch_size.divisors
DEFAULT_BS = {"BertForMaskedLM": 32 // 2, "GPT2ForSequenceClassification": 8 // 2, "T5ForConditionalGeneration": 8 // 2}

# name -> (sequence length as get_sequence_length() gives it, label kind)
SPECS = {
    "BertForMaskedLM": (512, "lm"),
    "GPT2ForSequenceClassification": (1024, "seqcls"),
    "T5ForConditionalGeneration": (1024, "cg"),
}


def _build(name):
    import torch
    import transformers
    from torch._dynamo.testing import reset_rng_state

    seq, kind = SPECS[name]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    reset_rng_state()
    cls = getattr(transformers, name)
    config = cls.config_class()
    if name.startswith("GPT2ForSequenceClassification"):
        config.pad_token_id = 0  # as _get_model_cls_and_config does for BS > 1
    model = cls(config).to(device, dtype=torch.float32)
    bs = DEFAULT_BS[name] if BATCH == "default" else int(BATCH)
    vocab = model.config.vocab_size
    ids = torch.randint(0, vocab, (bs, seq), dtype=torch.int64, device=device)
    inputs = {"input_ids": ids}
    if name.startswith("T5"):
        inputs["decoder_input_ids"] = ids
    if kind == "lm":
        inputs["labels"] = torch.randint(0, vocab, (bs, seq), dtype=torch.int64, device=device)
    elif kind == "seqcls":
        inputs["labels"] = torch.randint(0, model.config.num_labels - 1, (bs,), dtype=torch.int64, device=device)
    elif kind == "cg":
        inputs["labels"] = torch.randint(0, vocab - 1, (bs, seq), dtype=torch.int64, device=device)
    for attr in dir(config):
        if "drop" in attr and isinstance(getattr(config, attr), float):
            setattr(config, attr, 1e-30)
    if hasattr(model.config, "use_cache"):
        model.config.use_cache = False
    model.eval()
    keys = tuple(inputs)

    def forward_pass(*tensors):
        with torch.no_grad():
            return model(**dict(zip(keys, tensors)))

    return forward_pass, tuple(inputs[k] for k in keys)


def _builder(name):
    def build():
        return _build(name)

    return build


def models():
    return {name: _builder(name) for name in SPECS}
