"""Number formatting shared by every renderer (the TypeScript side mirrors it in ext/src/format.ts)."""

from __future__ import annotations


def format_ms(ms: float | None) -> str:
    if ms is None:
        return "—"
    if ms >= 1000:
        return f"{ms / 1000:.3g} s"
    if ms >= 1:
        return f"{ms:.3g} ms"
    if ms >= 1e-3:
        return f"{ms * 1e3:.3g} µs"
    return f"{ms * 1e6:.3g} ns"


def format_s(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return format_ms(seconds * 1000)


def format_speedup(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def format_bytes(n: int | None) -> str:
    if n is None:
        return "not measured"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
