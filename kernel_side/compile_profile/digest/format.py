"""Number and text formatting shared by every view: the digest words every figure here, and the panel shows the
digest's words as they are (ext/src formats no number), so a figure reads the same in the card, the panel, the text
and HTML views and the CLI."""

from __future__ import annotations

import datetime as dt
import math

from ..plain_text import first_line
from ..profile_run import ProfileRun, Speedup

CELL = "cell"  # what a profiled cell's lines are lines of (``lines_of``)


def lines_of(run: ProfileRun) -> str:
    """What the run's lines are lines of, as ``line_text`` names them: ``cell`` for a profiled cell; for a run read
    from a TORCH_TRACE the script's file name (``train.py``; its lines stand for the cell's), or ``script`` where
    the trace named no user frame."""
    t = run.imported_trace
    if t is None:
        return CELL
    return t.script.replace("\\", "/").rsplit("/", 1)[-1] or "script"


def line_text(line: int, of: str = CELL) -> str:
    """A line as every sentence of the digest names it: ``cell line 3``; ``train.py line 3`` for a run read from a
    TORCH_TRACE (``of``: ``lines_of(run)``).  The one place a line is worded."""
    return f"{of} line {line}"


def outside_text(of: str = CELL) -> str:
    """Where a break no line claims is: ``outside the cell``; ``outside train.py`` for a run read from a trace."""
    return f"outside the {of}" if of in (CELL, "script") else f"outside {of}"


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


def format_speedup_interval(value: float | None, low: float | None, high: float | None) -> str:
    """The speedup in the headline's words with its 95% interval read the same way: ``4.00× faster
    [3.60×–4.40×]``, ``1.25× slower [1.11×–1.43×]`` (a slowdown's bounds are slowdowns too, never "0.70×–0.90×"
    beside "slower"), ``1.05× faster (within noise) [0.90×–1.20×]`` where the interval includes 1× (its bounds
    then eager ÷ compiled); the phrase alone when there were too few samples for an interval."""
    if value is None:
        return "—"
    phrase = ratio_phrase(value)
    brackets = interval_brackets(value, low, high)
    if not brackets:
        return phrase
    assert low is not None and high is not None
    return f"{phrase}{' (within noise)' if low < 1 < high else ''} {brackets}"


def interval_brackets(value: float, low: float | None, high: float | None) -> str:
    """A speedup's interval read as the headline reads the speedup ``value``: ``[3.60×–4.40×]`` beside "faster",
    a slowdown's as slowdowns ``[1.11×–1.43×]`` beside "slower" (never "0.70×–0.90×"), also where it includes 1×
    (``1.05× slower [0.97×–1.14×]``: from 0.97× slower, i.e. faster, to 1.14× slower); "" without one."""
    if not all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in (low, high)):
        return ""
    assert low is not None and high is not None
    if value < 1:
        return f"[{format_speedup(1 / high)}–{format_speedup(1 / low)}]"
    return f"[{format_speedup(low)}–{format_speedup(high)}]"


def format_bytes(n: int | None) -> str:
    if n is None:
        return "not measured"
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def format_timing(median_ms: float, p10_ms: float, p90_ms: float, n: int) -> str:
    """``4.12 ms (p10 3.9 ms / p90 4.4 ms, n=50)``: each bound keeps its own unit, so none is misread."""
    return f"{format_ms(median_ms)} (p10 {format_ms(p10_ms)} / p90 {format_ms(p90_ms)}, n={n})"


def ratio_phrase(value: float) -> str:
    """``1.25× faster`` or ``1.80× slower`` for eager ÷ compiled: a slowdown by its factor above 1, never
    "0.56×"; the one form of a speedup in every view (badge, headline, list, chart)."""
    if value >= 1:
        return f"{format_speedup(value)} faster"
    return f"{format_speedup(1 / value)} slower" if value > 0 else "slower"


def format_interval(speedup: Speedup) -> str:
    """The speedup's interval as the headline words the speedup (``interval_brackets``), with its confidence:
    ``[1.75×–1.86×] 95% CI`` beside "1.80× slower"; a chart once read "1.80× slower [0.54, 0.57] 95% CI"."""
    brackets = interval_brackets(speedup.value, speedup.low, speedup.high) if speedup.has_interval else ""
    if not brackets:
        return "(too few samples for an interval: --repeat 3 or more)"
    return f"{brackets} {speedup.confidence * 100:.0f}% CI"


def format_diff(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def one_line(text: str, limit: int = 160) -> str:
    """The first line of ``text`` as ``plain_text.first_line`` says it, cut to ``limit`` characters, "…" where more
    was left out: for reasons and messages in tables."""
    first = first_line(text)
    more = " ".join(first.split()) != " ".join(text.split())
    if len(first) > limit:
        first, more = first[: limit - 1].rstrip(), True
    return first + ("…" if more else "")


def format_gbps(gbps: float | None) -> str:
    """A bandwidth: ``1.9 TB/s`` from 1000 GB/s up, else ``612 GB/s``."""
    if gbps is None:
        return "—"
    return f"{gbps / 1000:.3g} TB/s" if gbps >= 1000 else f"{gbps:.3g} GB/s"


def format_tflops(tflops: float | None) -> str:
    """A compute rate: ``612 TFLOP/s``, below 1 TFLOP/s in GFLOP/s."""
    if tflops is None:
        return "—"
    return f"{tflops:.3g} TFLOP/s" if tflops >= 1 else f"{tflops * 1000:.3g} GFLOP/s"


def format_share(share: float | None) -> str:
    """A share of a ceiling: ``46%``; below 1 % with one significant figure, ``0.4%``."""
    if share is None:
        return "—"
    percent = share * 100
    return f"{percent:.0f}%" if percent >= 1 or percent == 0 else f"{percent:.1g}%"


def lines_text(lines: list[int], of: str = CELL) -> str:
    """Several lines as the digest names them: ``cell lines 2–4, 7``; one as ``line_text`` does."""
    if len(lines) == 1:
        return line_text(lines[0], of)
    spans: list[list[int]] = []
    for line in sorted(set(lines)):
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    return f"{of} lines " + ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in spans)


def age_text(created_at: str, now: dt.datetime | None = None) -> str:
    """How long ago ``created_at`` (ISO 8601; UTC where it names no zone) was: ``12 s ago``, ``5 min ago``, ``3 h
    ago``, ``2 d ago``; from a week on, and for a time still to come (another clock), the date itself.  The one
    rule of a run's age: the CLI's lists print it, the server words it into each page of runs it serves
    (``RunsPage.ages``), the panel shows it."""
    try:
        moment = dt.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return created_at or "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    seconds = ((now or dt.datetime.now(dt.timezone.utc)) - moment).total_seconds()
    if seconds < 0:
        return moment.strftime("%Y-%m-%d %H:%M")
    for limit, unit, size in ((60, "s", 1), (3600, "min", 60), (86400, "h", 3600), (7 * 86400, "d", 86400)):
        if seconds < limit:
            return f"{int(seconds // size)} {unit} ago"
    return moment.strftime("%Y-%m-%d")
