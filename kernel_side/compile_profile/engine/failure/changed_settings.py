"""The compiler settings in force that are not at their defaults (issue 31, item 4): a failed compile or a
compiled result that differs may be a setting's doing (``torch._inductor.config.cpp.cxx`` pointing at no
compiler, a ``*_TESTING_ONLY`` switch, an unsafe pass turned on), and the card must say so before it blames
Inductor or suggests a PyTorch issue.

Contract: ``non_default_settings`` reads torch's config modules (``CONFIG_MODULES``: Inductor, Dynamo,
functorch, ``torch.compiler`` and FX's symbolic shapes) through their own ``get_config_copy`` and each entry's
``default``: a key set by the user, by an environment variable (``TORCHINDUCTOR_*``) or by the profiled code
itself and left so counts; one set back to its default does not.  It reads, never changes; a config module
this torch lacks, or one whose internals differ, gives nothing rather than an error.  Called after the
profile's own patches (provenance tracking, the bisection's caches-off) are undone, so only the user's
settings are seen.
"""

from __future__ import annotations

import importlib
from typing import Any

from ...profile_run import ConfigSetting

CONFIG_MODULES = (
    "torch._inductor.config",
    "torch._dynamo.config",
    "torch._functorch.config",
    "torch.compiler.config",
    "torch.fx.experimental._config",
)
VALUE_CHARS = 200  # a value's repr is cut here (a list of callables, a long path)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def non_default_settings() -> list[ConfigSetting]:
    """The settings of ``CONFIG_MODULES`` whose value differs from their default, by module then key."""
    found: list[ConfigSetting] = []
    for name in CONFIG_MODULES:
        try:
            module: Any = importlib.import_module(name)
            values: dict[str, Any] = module.get_config_copy()  # aliases left out: their target module says them
            entries: dict[str, Any] = module._config
        except Exception:  # noqa: BLE001 - an older torch without this module, or with other internals
            continue
        for key, value in values.items():
            entry = entries.get(key)
            if entry is None:
                continue
            default = getattr(entry, "default", value)
            try:
                differs = bool(value != default)
            except Exception:  # noqa: BLE001 - a value whose comparison raises (an array): say it
                differs = True
            if differs:
                found.append(ConfigSetting(name=f"{name}.{key}", value=_shown(value), default=_shown(default)))
    return found
