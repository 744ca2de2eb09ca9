"""Which compiled variants to run, and the ``torch.compile(...)`` call each one stands for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


@dataclass(frozen=True)
class VariantSpec:
    backend: str = "inductor"
    mode: str | None = None
    dynamic: bool | None = None
    fullgraph: bool = False
    options: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        parts = [self.backend]
        if self.mode and self.mode != "default":
            parts.append(self.mode)
        elif self.backend in ("inductor", "eager"):  # "eager" alone is the baseline's name
            parts.append("default")
        if self.dynamic is True:
            parts.append("dynamic")
        elif self.dynamic is False:
            parts.append("static")
        if self.fullgraph:
            parts.append("fullgraph")
        if self.options:
            parts.append(",".join(f"{k}={v}" for k, v in self.options))
        return "/".join(parts)

    def torch_compile_call(self, target: str = "fn") -> str:
        args = [target]
        if self.backend != "inductor":
            args.append(f"backend={self.backend!r}")
        if self.mode and self.mode != "default":
            args.append(f"mode={self.mode!r}")
        if self.dynamic is not None:
            args.append(f"dynamic={self.dynamic}")
        if self.fullgraph:
            args.append("fullgraph=True")
        if self.options:
            args.append(f"options={dict(self.options)!r}")
        return f"torch.compile({', '.join(args)})"


def sweep_modes(device_type: str) -> list[str]:
    """Modes worth trying on a device: CUDA graphs only exist on CUDA."""
    if device_type == "cuda":
        return list(MODES)
    return ["default", "max-autotune-no-cudagraphs"]


def build_variants(
    *,
    backend: str = "inductor",
    modes: list[str] | None = None,
    dynamic: bool | None = None,
    fullgraph: bool = False,
    options: dict[str, Any] | None = None,
) -> list[VariantSpec]:
    modes = modes or ["default"]
    for mode in modes:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}: choose from {', '.join(MODES)}")
    opts = tuple(sorted((options or {}).items()))
    seen: dict[str, VariantSpec] = {}
    for mode in modes:
        spec = VariantSpec(
            backend=backend,
            mode=None if mode == "default" else mode,
            dynamic=dynamic,
            fullgraph=fullgraph,
            options=opts,
        )
        seen.setdefault(spec.name, spec)
    return list(seen.values())
