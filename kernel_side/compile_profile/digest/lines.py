"""Time per cell line: the one rule every view shows (card, text, HTML report, widget, panel).

A kernel's measured time is split evenly over the cell lines it came from.  Inductor fuses ops of
several lines into one kernel and records no finer split, so an even split is the only one that
invents nothing line by line while keeping the totals honest: a variant's line times add up to the
time of its kernels that came from the cell (the rest is ``unattributed_ms``), and so compare with
the call's time.  Counting a fused kernel fully on each of its lines, as the panel once did, made the
lines add up to more than the call.  Each row says how many of its kernels it shares with other
lines, so a reader sees where the split applied.

Eager has no generated kernels: its time per line is the profiler's (``KernelProfile.eager_lines``), each
op counted on the cell line that was running when it was called, so no split applies; its "kernels" on a
line are that line's largest ATen ops.

What a compiled variant ran outside its compiled graphs (a graph break's code, what Dynamo skipped: a
fused optimizer under ``torch.compiler.disable``) has no kernel; the profiler counted it on the line that
was running, as eager's ops are (its ``KernelProfile.eager_lines``), and the row lists those ops apart
from the line's kernels (``eager_ops``).  Without them a Qwen2 training step with fused AdamW on an H200
read ``opt.step()`` 624 µs eager and nothing compiled, its compiled lines 4.03 ms of 4.65 ms of kernels.

A compiled variant's backward kernels came from forward lines (their provenance), but they run when
the backward does: they are counted on the cell line that runs it (``loss.backward()``), as eager's
backward ops are, when the cell has exactly one such line.  Counted on their forward lines, a Llama
training step read compiled forward 1.56 ms against eager's 1.19 ms and a free backward, where the
compiled forward took 0.29 ms and its backward 1.27 ms (eager 1.76 ms).

Times are per call, per variant (eager, when it has line times, then the variants that have timed
kernels), never summed over variants.  Where a variant's profiler pass is withheld
(``kernel_times.withheld``: a busy machine preempted every profiled call, or its kernels took longer than
the timed call beyond the timer's noise), its lines show their share of its kernel time instead
(``LineRow.share``, ``time_ms`` None), what no line holds is a share too, and ``LineTimes.withheld``
says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..profile_run import ProfileRun
from ..serialize import ADDED_LATER
from .facts import cell_code, focus_kernels, kernel_variants
from .format import format_ms, format_share
from .kernel_times import share_text, withheld


@dataclass
class LineRow:
    """One cell line: its code, the kernels that came from it, and their time per variant, with each cell worded."""

    line: int
    code: str
    kernels: dict[str, list[str]] = field(default_factory=dict)  # variant -> kernel names (eager: its ATen ops)
    time_ms: dict[str, float | None] = field(default_factory=dict)  # variant -> its kernel time (None: none timed)
    # compiled variant -> the ops it ran on this line outside its compiled graphs, most time first
    eager_ops: dict[str, list[str]] = field(default_factory=dict, metadata=ADDED_LATER)  # variant -> ops run eagerly
    shared: dict[str, int] = field(default_factory=dict)  # variant -> kernels also counted on other lines
    graph_breaks: int = 0
    # variant -> this line's share of the variant's kernel time, where its pass's times are withheld
    share: dict[str, float | None] = field(default_factory=dict, metadata=ADDED_LATER)  # variant -> share of pass
    # set once the row is whole (``word``)
    texts: dict[str, str] = field(default_factory=dict, metadata=ADDED_LATER)  # variant -> "1.2 ms", "31% of pass"
    # the compiled variants' kernels on this line together (eager's are ops, not kernels), as the HTML view counts them
    kernel_count: int = field(default=0, metadata=ADDED_LATER)  # kernels of the compiled variants on this line

    def time_text(self, variant: str) -> str:
        """The row's time for ``variant`` as every view words it: blank where the variant has no kernel
        on this line, "—" where it has kernels but no measured time (a CPU run without device times),
        its share (``31% of pass``) where the variant's pass is withheld."""
        if not self.has(variant):
            return ""
        if variant in self.share:
            return share_text(self.share[variant])
        return format_ms(self.time_ms.get(variant))

    def has(self, variant: str) -> bool:
        """Whether ``variant`` ran anything on this line: kernels, or ops outside its compiled graphs."""
        return variant in self.kernels or variant in self.eager_ops

    def word(self) -> None:
        """Set ``texts`` and ``kernel_count``, once every time, share and kernel of the row is in."""
        self.texts = {v: self.time_text(v) for v in dict.fromkeys([*self.kernels, *self.eager_ops])}
        self.kernel_count = sum(len(names) for v, names in self.kernels.items() if v != "eager")


RULE = (
    "a kernel fused from several lines is split evenly over them, so a variant's lines add up to its kernels' "
    "time; eager time is counted on the line that was running when each op was called, as is what a compiled "
    "variant ran outside its compiled graphs, and a compiled backward's kernels on the line that runs the backward"
)


@dataclass(kw_only=True)
class LineTimes:
    """Time per cell line: every cell line with kernels or graph breaks, and what no line could claim."""

    rule: str = RULE  # the one rule the times follow, in words
    variants: list[str]  # "eager" when it has line times, then variants with kernels, the speedup's variant first
    rows: list[LineRow]
    unattributed: dict[str, int]  # variant -> kernels tied to no cell line
    unattributed_ms: dict[str, float | None]  # variant -> those kernels' time
    # variant -> its measured kernel time (``CallBreakdown.kernels_ms``) that no line holds: the kernels
    # above and what it ran outside compiled graphs while no cell line ran; its lines and this add up to it
    off_lines_ms: dict[str, float] = field(default_factory=dict, metadata=ADDED_LATER)  # variant -> time off lines
    off_lines_text: list[str] = field(default_factory=list, metadata=ADDED_LATER)  # what no line holds, worded
    withheld: dict[str, str] = field(default_factory=dict, metadata=ADDED_LATER)  # variant -> why its times are shares
    # under the chart, where a withheld variant is not drawn: which, in one sentence (why is said under the table)
    chart_note: str = field(default="", metadata=ADDED_LATER)


_RUNS_BACKWARD = re.compile(r"\.backward\(|\bautograd\.(?:backward|grad)\(")


def backward_line(run: ProfileRun) -> int | None:
    """The one cell line that runs a backward (``loss.backward()``), or None when there is none or several."""
    found = [
        i for i, text in enumerate(run.cell_source.splitlines(), 1) if _RUNS_BACKWARD.search(text.split("#", 1)[0])
    ]
    return found[0] if len(found) == 1 else None


def _add(total: float | None, ms: float | None) -> float | None:
    return total if ms is None else (total or 0.0) + ms


def line_times(run: ProfileRun) -> LineTimes:
    focus, _ = focus_kernels(run)
    variants = sorted(kernel_variants(run), key=lambda v: v != focus)  # the speedup's variant first
    profiles = {v.name: v.kernel_profile for v in run.variants if v.kernel_profile is not None}
    variants += [  # a compiled variant that ran only eagerly (Dynamo skipped everything) has no kernels
        name for name, kp in profiles.items() if name != "eager" and kp.eager_lines and name not in variants
    ]
    eager_profile = profiles.get("eager")
    eager_lines = eager_profile.eager_lines if eager_profile is not None else []
    if eager_lines:
        variants = ["eager", *(v for v in variants if v != "eager")]
    rows: dict[int, LineRow] = {}

    def row(line: int) -> LineRow:
        if line not in rows:
            rows[line] = LineRow(line=line, code=cell_code(run, line))
        return rows[line]

    for e in eager_lines:
        r = row(e.line)
        r.kernels["eager"] = list(e.ops)
        r.time_ms["eager"] = _add(r.time_ms.get("eager"), e.time_ms)
    for name, kp in profiles.items():
        if name == "eager":
            continue
        for e in kp.eager_lines:
            r = row(e.line)
            r.eager_ops[name] = list(e.ops)
            r.time_ms[name] = _add(r.time_ms.get(name), e.time_ms)
    unattributed: dict[str, int] = {}
    unattributed_ms: dict[str, float | None] = {}
    backward = backward_line(run)
    backward_graphs = {g.id for g in run.graphs if g.kind == "aot_backward"}
    for k in run.kernels:
        lines = sorted(set(k.lines))
        if backward is not None and lines and k.graph_id in backward_graphs:
            lines = [backward]
        if not lines:
            unattributed[k.variant] = unattributed.get(k.variant, 0) + 1
            unattributed_ms[k.variant] = _add(unattributed_ms.get(k.variant), k.device_time_ms)
            continue
        part = None if k.device_time_ms is None else k.device_time_ms / len(lines)
        for line in lines:
            r = row(line)
            r.kernels.setdefault(k.variant, []).append(k.name)
            r.time_ms[k.variant] = _add(r.time_ms.get(k.variant), part)
            if len(lines) > 1:
                r.shared[k.variant] = r.shared.get(k.variant, 0) + 1
    for b in run.graph_breaks:
        if b.line is not None:
            row(b.line).graph_breaks += 1
    ordered = [rows[line] for line in sorted(rows)]
    off_lines_ms = _off_lines(ordered, variants, profiles)
    left_out = {name: j.text for name, j in withheld(run).items() if name in variants}
    out = LineTimes(
        variants=variants,
        rows=ordered,
        unattributed=unattributed,
        unattributed_ms=unattributed_ms,
        off_lines_ms=off_lines_ms,
        off_lines_text=_off_lines_text(variants, profiles, off_lines_ms, unattributed, left_out),
        withheld=left_out,
        chart_note=_chart_note(left_out),
    )
    _withhold(out, profiles)
    for r in out.rows:
        r.word()
    return out


def _chart_note(left_out: dict[str, str]) -> str:
    """The variants the chart leaves out: their line times are shares of a withheld pass, not times."""
    if not left_out:
        return ""
    names = list(left_out)
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    their = "its profiler pass is" if len(names) == 1 else "their profiler passes are"
    return f"{listed} not drawn: {their} withheld, so {'its' if len(names) == 1 else 'their'} lines hold shares, not times (why: under the table)"


def _withhold(lt: LineTimes, profiles: dict) -> None:
    """Each withheld variant's line times become shares of its kernel time, and what no line holds is
    not a time either."""
    for name in lt.withheld:
        kp = profiles.get(name)
        total = (
            kp.breakdown.kernels_ms
            if kp is not None and kp.breakdown is not None
            else sum(r.time_ms.get(name) or 0.0 for r in lt.rows)
        )
        for r in lt.rows:
            if r.has(name):
                ms, r.time_ms[name] = r.time_ms.get(name), None
                r.share[name] = ms / total if ms is not None and total > 0 else None
        if name in lt.unattributed_ms:
            lt.unattributed_ms[name] = None
        if name in lt.off_lines_ms:
            del lt.off_lines_ms[name]


# Time off the lines below this share of a variant's kernel time is float residue, not worth a word.
OFF_LINES_NEGLIGIBLE = 1e-6


def _off_lines(rows: list[LineRow], variants: list[str], profiles: dict) -> dict[str, float]:
    out: dict[str, float] = {}
    for v in variants:
        kp = profiles.get(v)
        if kp is None or kp.breakdown is None:
            continue
        on_lines = sum(r.time_ms.get(v) or 0.0 for r in rows)
        total = kp.breakdown.kernels_ms
        out[v] = max(0.0, total - on_lines) if total - on_lines > total * OFF_LINES_NEGLIGIBLE else 0.0
    return out


def _off_lines_text(
    variants: list[str],
    profiles: dict,
    off_lines_ms: dict[str, float],
    unattributed: dict[str, int],
    left_out: dict[str, str],
) -> list[str]:
    """``inductor/default 8.15 µs of 444 µs (1.8 %; 1 kernel)``: what no line holds, per variant; for a
    variant whose pass is withheld its share alone (``inductor/default 2% of pass (1 kernel)``)."""
    out = []
    for v in variants:
        n = unattributed.get(v, 0)
        kernels = f"{n} kernel{'' if n == 1 else 's'}" if n else ""
        off = off_lines_ms.get(v)
        kp = profiles.get(v)
        if off and kp is not None and kp.breakdown is not None and kp.breakdown.kernels_ms > 0:
            total = kp.breakdown.kernels_ms
            if v in left_out:
                out.append(
                    f"{v or 'kernels'} {format_share(off / total)} of pass" + (f" ({kernels})" if kernels else "")
                )
                continue
            detail = f"{100 * off / total:.2g} %" + (f"; {kernels}" if kernels else "")
            out.append(f"{v or 'kernels'} {format_ms(off)} of {format_ms(total)} ({detail})")
        elif kernels:
            out.append(f"{v or 'kernels'} {kernels}")
    return out
