"""Facts of a run that several views show, each derived once: a cell line's code, the caches' counts and words,
the kernels counted and those worth showing first, the device in words, a variant's peak memory, a later run of the
cell that failed, an interrupted run, and the kept tensors that cost a material share of the compiled call.  Graph
breaks are ``breaks``, the correctness sentence ``correctness``, whether the timings can be read ``noise``."""

from __future__ import annotations

from collections import Counter

from ..profile_run import Device, KeptTensor, Kernel, ProfileRun, Variant
from .format import format_bytes, format_ms, line_text, lines_of
from .notes import memory_unmeasured_text

TOP_KERNELS = 10


def cell_code(run: ProfileRun, line: int | None) -> str:
    """The cell's source at 1-based ``line``, stripped; empty when there is no such line."""
    lines = run.cell_source.splitlines()
    # a run file built by hand may hold anything where a line number goes: no code for it
    if not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= len(lines):
        return ""
    return lines[line - 1].strip()


def cache_counts(run: ProfileRun) -> list[str]:
    """``FX graph 1 hit, 2 missed`` per compile cache that saw any lookup, and what the kernel caches gave:
    ``kernels 6, none built (all from the caches)`` or ``kernels 6, 14 binaries built``."""
    c = run.cache
    counts = [
        f"{what} {hits} hit{'' if hits == 1 else 's'}, {misses} missed"
        for what, hits, misses in (
            ("FX graph", c.fx_graph_hits, c.fx_graph_misses),
            ("AOTAutograd", c.aot_autograd_hits, c.aot_autograd_misses),
        )
        if hits or misses
    ]
    if c.kernels_built is not None and (c.kernels or c.kernels_built):
        built = (
            "none built (all from the caches)"
            if not c.kernels_built
            else f"{c.kernels_built} binar{'y' if c.kernels_built == 1 else 'ies'} built"
        )
        counts.append(f"kernels {c.kernels}, {built}")
    return counts


def kernel_counts(run: ProfileRun) -> dict[str, int]:
    """Kernels per language, most first."""
    return dict(Counter(k.language for k in run.kernels).most_common())


def kernel_count_text(run: ProfileRun) -> str:
    """The kernels Inductor generated and the library calls (extern kernels: cuBLAS, mkldnn, SDPA) its code makes,
    counted apart: ``32 generated kernels (cpp), 742 library calls``; a 16-layer step's "774 kernels" counted the
    742 calls with the 32 kernels.  ``no kernels`` where there are none."""
    extern = sum(1 for k in run.kernels if k.language == "extern")
    by_language = Counter(k.language for k in run.kernels if k.language != "extern")
    generated = sum(by_language.values())
    parts = []
    if generated or not extern:
        languages = ", ".join(lang for lang, _ in by_language.most_common())
        parts.append(
            f"{generated} generated kernel{'' if generated == 1 else 's'}" + (f" ({languages})" if languages else "")
        )
    if extern:
        parts.append(f"{extern} library call{'' if extern == 1 else 's'}")
    return ", ".join(parts) if run.kernels else "no kernels"


def device_text(device: Device) -> str:
    """``cuda (NVIDIA H200)``; ``cpu`` where the name is not known (a run read from a trace), never ``cpu ()``."""
    return f"{device.type} ({device.name})" if device.name else device.type


def top_kernels(kernels: list[Kernel], n: int = TOP_KERNELS) -> list[Kernel]:
    """The ``n`` kernels that took the most device time; untimed kernels follow in generation order."""
    order = sorted(
        range(len(kernels)),
        key=lambda i: (kernels[i].device_time_ms is None, -(kernels[i].device_time_ms or 0.0), i),
    )
    return [kernels[i] for i in order[:n]]


def kernel_variants(run: ProfileRun) -> list[str]:
    """The variants that kernels were recorded for, in order of first appearance ("" when unattributed)."""
    return list(dict.fromkeys(k.variant for k in run.kernels))


def focus_kernels(run: ProfileRun) -> tuple[str, list[Kernel]]:
    """The kernels of one variant, for per-kernel and per-line totals that must not add up two variants.

    That is the speedup's variant when it has kernels, else the first one that
    does; with a single (or no) variant attribution, all kernels.
    """
    variants = kernel_variants(run)
    if len(variants) <= 1:
        return (variants[0] if variants else ""), list(run.kernels)
    chosen = run.speedup.variant if run.speedup is not None and run.speedup.variant in variants else variants[0]
    return chosen, [k for k in run.kernels if k.variant == chosen]


def median_ratio(run: ProfileRun, variant: Variant) -> float | None:
    """Eager median over ``variant``'s median (no interval: only ``run.speedup`` carries one)."""
    eager = run.eager
    if eager is None or eager.timing is None or variant.timing is None or variant.timing.median_ms <= 0:
        return None
    return eager.timing.median_ms / variant.timing.median_ms


def peak_memory_text(run: ProfileRun, variant: Variant) -> str:
    """A measured peak, or why there is none: never an estimate."""
    if variant.peak_memory_bytes is not None:
        return format_bytes(variant.peak_memory_bytes)
    return memory_unmeasured_text(run) or "not measured"


def interrupted_text(run: ProfileRun) -> str:
    """What an interrupted run holds: "" for a run that was not interrupted."""
    if run.status != "interrupted":
        return ""
    if not run.dynamo_graph_count:
        return "interrupted before anything was compiled: only the eager run's results stand"
    timed = [v.name for v in run.variants if v.timing is not None]
    return "interrupted: " + (
        f"what was measured before it is shown (timed: {', '.join(timed)})"
        if timed
        else "compiled, but interrupted before any timing"
    )


# -- a later run of the cell that failed -------------------------------------------------------------

_WHY_LATER_RUN_FAILED = {
    "iterator_ran_out": (
        "an iterator it reads ran out (StopIteration): a profile runs the cell many times, so read from one "
        "that does not run out (itertools.cycle(batches)), or take the batch in an earlier cell"
    ),
    "later_run_failed": (
        "it changes what its later runs read (a list it empties, an iterator it consumes, a count it checks): "
        "a profile runs the cell many times, so take what changes out of the cell"
    ),
    "recompile_failed": "the call compiled again, and that compile failed",
}


def later_run_failure_text(run: ProfileRun) -> str:
    """Why the profile stopped after the first calls because the cell's own code raised on a later run, or ""."""
    e = next((e for e in run.errors if e.call is not None and e.cause in _WHY_LATER_RUN_FAILED), None)
    if e is None or e.call is None:  # e.call: the filter's, for the type checker
        return ""
    where = ", ".join(
        part for part in (e.stage, e.variant, line_text(e.line, lines_of(run)) if e.line is not None else "") if part
    )
    return (
        f"the cell failed on its run {e.call} ({where}), after {e.call - 1} earlier run"
        f"{'' if e.call == 2 else 's'}: {_WHY_LATER_RUN_FAILED[e.cause]}. What was measured before it stays; "
        "the names the cell binds are as after its first run"
    )


# -- what the cell keeps ---------------------------------------------------------------------

MATERIAL_SHARE = 0.1  # of the compiled call: kept intermediates costing less together are not worth a word
# A kept intermediate below this share is left out of the sum: it is one that cannot matter alone or with others.
# Two GPT-2 intermediates (logits and their log_softmax, 9 % each) cost the whole 1.6x speedup together
# and were each under MATERIAL_SHARE, so the card said nothing.
MINOR_SHARE = 0.02


def kept_tensor_warnings(run: ProfileRun) -> list[str]:
    """Kept intermediates whose memory traffic is, together, a material share of the fastest compiled call."""
    best = run.speedup_variant
    if best is None or best.timing is None or best.timing.median_ms <= 0:
        return []
    call_ms = best.timing.median_ms
    counted = sorted(
        (t for t in run.kept_tensors if t.traffic_ms is not None and t.traffic_ms >= MINOR_SHARE * call_ms),
        key=lambda t: -_traffic_ms(t),
    )
    total_ms = sum(_traffic_ms(t) for t in counted)
    if total_ms < MATERIAL_SHARE * call_ms:
        return []
    rest = [name for name in run.kept_names if name not in {t.name for t in counted}]
    advice = f"--keep {','.join(rest)}" if rest else "--keep with the names you need"
    if len(counted) == 1:
        (t,) = counted
        shape = "×".join(map(str, t.shape)) or "scalar"
        later = ", ".join(map(str, t.used_at))
        return [
            f"the cell keeps {t.name} ({shape} {t.dtype}, {format_bytes(t.bytes)}; line {t.line}, read again at "
            f"line{'s' if len(t.used_at) > 1 else ''} {later}), so compiled code must write it out in full: at "
            f"least {format_ms(t.traffic_ms)} of memory traffic a call "
            f"({_traffic_ms(t) / call_ms:.0%} of the compiled call), and Inductor cannot fuse it "
            f"away; {advice} leaves it a temporary"
        ]
    each = ", ".join(f"{t.name} ({format_bytes(t.bytes)}, line {t.line})" for t in counted)
    return [
        f"the cell keeps {each}, which later lines read again, so compiled code must write them out in full: "
        f"together at least {format_ms(total_ms)} of memory traffic a call ({total_ms / call_ms:.0%} of the "
        f"compiled call), and Inductor cannot fuse them away; {advice} leaves them temporaries"
    ]


def _traffic_ms(t: KeptTensor) -> float:
    """A counted tensor's traffic (``kept_tensor_warnings`` counts only those that have one)."""
    return t.traffic_ms or 0.0


CACHE_WORDS = {"cold": "cold cache", "warm": "warm cache", "mixed": "partly cached"}


def cache_words(run: ProfileRun, variant: Variant | None = None) -> str:
    """``cold cache``, ``warm cache`` or ``partly cached`` for a compile: the variant's own cache state where
    the engine recorded one (more precise), else the run's; "" when neither is known."""
    own = CACHE_WORDS.get(variant.cache_state, "") if variant is not None else ""
    return own or CACHE_WORDS.get(run.cache.state, "")
