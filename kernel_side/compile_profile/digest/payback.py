"""When compiling pays for itself: the speedup's variant's compile time over what it saves a call.

The compile time is the variant's first call's, as measured: with a cold cache, or a warm one (the
cache state says which).  The saving is eager's median less the variant's.  ``calls`` is the whole
number of calls whose savings first reach the compile time; the sentence rounds it to three
significant figures, since both medians carry noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..profile_run import ProfileRun
from .contention import speedup_unsettled
from .facts import cache_words
from .format import format_ms, format_s


@dataclass
class Payback:
    """What compiling cost and after how many calls it pays back (``payback``)."""

    compile_s: float
    saving_ms: float
    calls: int | None  # None: it never does
    text: str


def round_calls(n: int) -> int:
    """``n`` to three significant figures (2449 -> 2450, 123456 -> 123000)."""
    if n < 1000:
        return n
    digits = len(str(n)) - 3
    return int(round(n, -digits))


def calls_text(n: int) -> str:
    r = round_calls(n)
    return f"~{r:,} call{'' if r == 1 else 's'}"


def payback(run: ProfileRun) -> Payback | None:
    """What compiling the speedup's variant cost and saves; None without a compile time or timing."""
    s, eager = run.speedup, run.eager
    if s is None or eager is None or eager.timing is None:
        return None
    best = next((v for v in run.variants if v.name == s.variant), None)
    if best is None or best.timing is None or best.compile_s is None:
        return None
    saving_ms = eager.timing.median_ms - best.timing.median_ms
    who = "compiled" if len(run.compiled_variants) <= 1 else best.name
    calls: int | None = None
    if speedup_unsettled(run) is not None:  # a saving measured on calls other processes' load slowed
        text = "no payback judged: the speedup was measured on a busy CPU"
    elif s.includes_one:
        text = "no measurable saving: compiling does not pay back"
    elif saving_ms <= 0:
        text = f"{who} is slower: compiling never pays back"
    else:
        cost_s = best.compile_s + (best.recompile_s or 0.0)  # recompiles are compile time the program pays too
        calls = max(1, math.ceil(round(cost_s * 1000 / saving_ms, 9)))  # 3.2 s / 0.8 ms is 4000, not 4001
        words = cache_words(run, best)
        cache = f" ({words})" if words else ""
        more = f" and {format_s(best.recompile_s)} more recompiling" if best.recompile_s else ""
        text = (
            f"compiling cost {format_s(best.compile_s)}{cache}{more} and saves {format_ms(saving_ms)} a call: "
            f"it pays back after {calls_text(calls)}"
        )
    return Payback(compile_s=best.compile_s, saving_ms=saving_ms, calls=calls, text=text)
