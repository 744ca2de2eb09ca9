"""Facts derived from a run that several views show: break groups, the correctness sentence, kept-tensor and
drift warnings, kernel counts and the kernels worth showing first.  Computed here once; views lay them out."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import cast

from ..profile_run import (
    CELL_FILENAME_PREFIX,
    Correctness,
    Device,
    GraphBreak,
    KeptTensor,
    Kernel,
    OutputCheck,
    ProfileRun,
    Variant,
)
from ..stats import median
from . import contract
from .format import CELL, format_bytes, format_diff, format_ms, line_text, lines_of, outside_text
from .notes import memory_unmeasured_text, note_text

TOP_KERNELS = 10


def cell_code(run: ProfileRun, line: int | None) -> str:
    """The cell's source at 1-based ``line``, stripped; empty when there is no such line."""
    lines = run.cell_source.splitlines()
    # a run file built by hand may hold anything where a line number goes: no code for it
    if not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= len(lines):
        return ""
    return lines[line - 1].strip()


def break_reason(reason: str) -> str:
    """The most telling line of a graph break reason, for one-line views.

    Dynamo's messages open with a generic header ("Encountered graph break when
    attempting to trace CALL: …") followed by a title and an "Explanation:"
    line; the explanation says the most, then the title.  Other reasons keep
    their first line.
    """
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("Explanation:"):
            return line.removeprefix("Explanation:").strip()
    if len(lines) > 1 and lines[0].startswith("Encountered graph break"):
        return lines[1]
    return lines[0] if lines else ""


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


# -- graph breaks ---------------------------------------------------------------------------


@dataclass
class BreakGroup:
    """Graph breaks with the same cause at the same place, counted (a library function that breaks
    is compiled, and breaks, once per caller)."""

    line: int | None  # the cell line that led to the break
    code_line: str
    inside: str  # where in a library the break is, "path.py:123", or "" when it is on the cell line itself
    inside_code: str
    reason: str  # one line
    reason_full: str
    count: int = 0
    variants: list[str] = field(default_factory=list)
    ddp_wrapper: bool = False  # in DDP's own forward wrapper (``is_ddp_wrapper_break``): not the user's to fix
    note: str = ""  # what to do, or why there is nothing to do (``break_owner``); DDP_WRAPPER_NOTE for DDP's
    owner: str = "yours"  # "yours", "library" (a package the cell calls) or "pytorch" (PyTorch's own, by design)
    skipped_rest: bool = False  # Dynamo could not resume there and ran the rest of that function eagerly
    page: str = ""  # Dynamo's page for this kind of graph break (gbNNNN), where the reason names one

    def as_dict(self) -> contract.BreakGroup:
        return cast(contract.BreakGroup, asdict(self))


# DistributedDataParallel runs its forward wrapper eagerly by design (Dynamo skips ``_inside_ddp_forward``
# and cannot trace its logger) and compiles the user's module inside it, so a step that calls a DDP model,
# and ``torch.compile(DDP(model))`` too, breaks there: torch/nn/parallel/distributed.py:1757
# (``self.logger.set_runtime_stats_and_log()``) and twice at contextlib.py:105, entering
# ``DistributedDataParallel._inside_ddp_forward``.  They are graph breaks (``torch._dynamo.explain`` counts
# them), counted as such, but marked so nobody chases them.
DDP_WRAPPER_FILE = "torch/nn/parallel/distributed.py"
DDP_WRAPPER_NOTE = "in DDP's own wrapper, which runs eagerly by design; not yours to fix"


def is_ddp_wrapper_break(b: GraphBreak) -> bool:
    """The break's innermost frame is in DDP's module, or its reason names DistributedDataParallel."""
    return b.filename.replace("\\", "/").endswith(DDP_WRAPPER_FILE) or "DistributedDataParallel" in b.reason


# Graph breaks PyTorch makes on purpose, which no change to the user's code removes.  Each rule: a test on the
# break (its innermost file, its reason, the cell code it is on) and what to say.  A CPU training step with
# AdamW(fused=True) breaks 5 times, every one of them here: Optimizer.zero_grad ("Dynamo developers have
# intentionally marked ... should not be traced"), torch/optim/optimizer.py:79 (torch._dynamo.graph_break()
# in the step's profiling hook) and 3 times at torch/optim/adam.py:970 (_fused_adam, wrapped in
# torch.compiler.disable: "don't trace into fused optimizer").
OPTIMIZER_NOTE = (
    "PyTorch's own, by design: the optimizer runs these parts eagerly under torch.compile; nothing to change in "
    "your code"
)
NOTHING_TO_CHANGE = "; nothing to change in your code"
# A fused optimizer's step (``AdamW(fused=True)``: ``_fused_adam``) is wrapped in ``torch.compiler.disable`` ("don't
# trace into fused optimizer", torch/_dynamo/eval_frame.py, for every torch.optim module with a ``_fused_*``), so
# it runs outside the graph; the same optimizer with fused=False is one Dynamo traces, its update compiled into the
# step's graph.  That is a change in the user's code, so the card says it rather than "nothing to change".
FUSED_OPTIMIZER_NOTE = (
    "PyTorch's own, by design: a fused optimizer (fused=True) runs its step outside the graph "
    "(torch.compiler.disable); with fused=False (foreach) torch.compile compiles the update into the graph, which "
    "may be faster: profile both"
)
_FUSED_REASON = "don't trace into fused optimizer"
BACKWARD_NOTE = (
    "PyTorch's own, by design: Dynamo does not trace .backward(); compiled autograd does "
    "(torch._dynamo.config.compiled_autograd = True)"
)
TORCH_SKIP_NOTE = "PyTorch's own, by design: Dynamo is told not to trace this function; nothing to change in your code"
PAGE_MARKER = "please visit: "
_SKIPPED_REST = "Failed to handle graph break gracefully. Skipping the function"


def _under(filename: str, folder: str) -> bool:
    return f"/{folder}/" in "/" + filename.replace("\\", "/")


def in_site_packages(filename: str) -> bool:
    return "site-packages/" in filename or "dist-packages/" in filename


def break_owner(b: GraphBreak, in_library: bool) -> tuple[str, str]:
    """Whose break it is, ("yours" | "library" | "pytorch"), and what to say about it."""
    code = (b.code_line or "").strip()
    if is_ddp_wrapper_break(b):
        return "pytorch", DDP_WRAPPER_NOTE
    if _FUSED_REASON in b.reason:
        return "pytorch", FUSED_OPTIMIZER_NOTE
    if _under(b.filename, "torch/optim") or "`Optimizer." in b.reason or "fused optimizer" in b.reason:
        return "pytorch", OPTIMIZER_NOTE
    if "backward()" in b.reason or (not in_library and code.endswith(".backward()")):
        return "pytorch", BACKWARD_NOTE
    if "Dynamo developers have intentionally marked" in b.reason and "torch/" in b.reason:
        return "pytorch", TORCH_SKIP_NOTE
    if in_library and in_site_packages(b.filename):
        package = short_path(b.filename).split("/", 1)[0]
        return "library", f"in {package}, not your code: the library breaks the graph there"
    return "yours", ""


def break_page(reason: str) -> str:
    """Dynamo's page for the break's kind (``.../gb/gb0025.html``), where the reason names one."""
    for line in reason.splitlines():
        if PAGE_MARKER in line:
            url = line.split(PAGE_MARKER, 1)[1].strip()
            if url.startswith("https://"):
                return url
    return ""


def short_path(filename: str) -> str:
    """A library file as people name it (``transformers/modeling_utils.py``), not its install path."""
    for marker in ("site-packages/", "dist-packages/"):
        if marker in filename:
            return filename.rsplit(marker, 1)[1]
    return filename.rsplit("/", 1)[-1]


def break_groups(run: ProfileRun) -> list[BreakGroup]:
    """The run's graph breaks grouped by cell line, innermost frame and reason, in order of first sight."""
    groups: dict[tuple, BreakGroup] = {}
    for b in run.graph_breaks:
        code = b.code_line.strip() or cell_code(run, b.line)
        in_other_cell = b.file_cell is not None and bool(b.filename)
        in_library = in_other_cell or (
            bool(b.filename)
            and not b.filename.startswith(CELL_FILENAME_PREFIX)
            and (b.line is None or (b.file_code or "").strip() != code)
        )
        if in_other_cell:
            inside = other_cell_place(b)
        else:
            inside = (
                f"{short_path(b.filename)}:{b.file_line}"
                if in_library and b.file_line is not None
                else (short_path(b.filename) if in_library else "")
            )
        reason = break_reason(b.reason)
        key = (b.line, inside, reason)
        group = groups.setdefault(
            key,
            BreakGroup(
                line=b.line,
                code_line=code,
                inside=inside,
                inside_code=(b.file_code or "").strip() if in_library else "",
                reason=reason,
                reason_full=b.reason,
            ),
        )
        group.count += 1
        if group.count == 1:
            group.owner, group.note = break_owner(b, in_library)
            group.page = break_page(b.reason)
        if is_ddp_wrapper_break(b):
            group.ddp_wrapper, group.note = True, DDP_WRAPPER_NOTE
        if b.reason.startswith(_SKIPPED_REST):
            group.skipped_rest = True
        if b.variant and b.variant not in group.variants:
            group.variants.append(b.variant)
    return list(groups.values())


def other_cell_place(b: GraphBreak) -> str:
    """Where in another notebook cell a break is, as the user finds it: ``scale_by_max, cell [3] line 2`` (the
    function the cell defines, its number as the notebook shows it, the line within it)."""
    function = b.file_function if b.file_function and not b.file_function.startswith("<") else ""
    place = f"cell [{b.file_cell}]" + (f" line {b.file_line}" if b.file_line is not None else "")
    return f"{function}, {place}" if function else place


def _line_or_outside(group: BreakGroup, of: str) -> str:
    return line_text(group.line, of) if group.line is not None else outside_text(of)


def break_place(group: BreakGroup, of: str = CELL) -> str:
    """``cell line 2 (y = model(x)), inside transformers/modeling_utils.py:1234 (logger.warning_once(...))``;
    ``train.py line 2 (…)`` for a run read from a trace (``of``: ``format.lines_of``)."""
    where = _line_or_outside(group, of)
    if group.code_line and group.line is not None:
        where += f" ({group.code_line})"
    if group.inside:
        where += f", inside {group.inside}" + (f" ({group.inside_code})" if group.inside_code else "")
    return where


def break_summary(group: BreakGroup, of: str = CELL) -> str:
    """One line per group: how many, where, and why; whose it is and what to do where there is something
    (``break_owner``), that Dynamo then ran the rest of the function eagerly, and its page."""
    times = f" ×{group.count}" if group.count > 1 else ""
    at = "at " if group.line is not None else ""
    rest = "; Dynamo could not resume there and ran the rest of that function eagerly" if group.skipped_rest else ""
    note = f" ({group.note})" if group.note else ""
    page = f" (see {group.page})" if group.page and group.owner == "yours" else ""
    return f"graph break{times} {at}{break_place(group, of)}: {group.reason}{rest}{note}{page}"


def break_count_text(run: ProfileRun, groups: list[BreakGroup] | None = None) -> str:
    """``5 graph breaks, all PyTorch's own by design``; ``7 graph breaks, all PyTorch's own by design (3 in DDP's
    wrapper)``; ``3 graph breaks, 1 PyTorch's own by design, 1 in libraries`` (the rest the user's own);
    ``4 graph breaks, 3 in DDP's wrapper``; ``1 graph break``; ``0 graph breaks``."""
    n = len(run.graph_breaks)
    groups = break_groups(run) if groups is None else groups
    ddp = sum(g.count for g in groups if g.ddp_wrapper)
    torch_own = sum(g.count for g in groups if g.owner == "pytorch" and not g.ddp_wrapper)
    library = sum(g.count for g in groups if g.owner == "library")
    text = f"{n} graph break{'' if n == 1 else 's'}"
    if torch_own and torch_own + ddp == n:
        return text + ", all PyTorch's own by design" + (f" ({ddp} in DDP's wrapper)" if ddp else "")
    parts = [f"{ddp} in DDP's wrapper"] if ddp else []
    if torch_own:
        parts.append(f"{torch_own} PyTorch's own by design")
    if library:
        parts.append(f"{library} in libraries")
    return text + "".join(f", {p}" for p in parts)


def torch_own_text(groups: list[BreakGroup], of: str = CELL) -> str:
    """The card's one line for the breaks PyTorch makes on purpose (DDP's wrapper has its own line):
    ``5 graph breaks are PyTorch's own by design (Optimizer.zero_grad at cell line 2; torch/optim/adam.py:970
    ×3, ...): the optimizer runs these parts eagerly ...``; "" when there are none."""
    own = [g for g in groups if g.owner == "pytorch" and not g.ddp_wrapper]
    if not own:
        return ""
    n = sum(g.count for g in own)
    places = "; ".join(
        dict.fromkeys(
            (g.inside or f"{_line_or_outside(g, of)} ({g.code_line})") + (f" ×{g.count}" if g.count > 1 else "")
            for g in own
        )
    )
    said = [g.note.removeprefix("PyTorch's own, by design: ") for g in own]
    if any(g.note == FUSED_OPTIMIZER_NOTE for g in own):  # there is something to change: fused=False
        said = [n.removesuffix(NOTHING_TO_CHANGE) for n in said]
    notes = "; ".join(dict.fromkeys(said))
    are = "is" if n == 1 else "are"
    return f"{n} graph break{'' if n == 1 else 's'} {are} PyTorch's own by design ({places}): {notes}"


def no_breaks_text(run: ProfileRun) -> str:
    """What an empty list of graph breaks means for this run: Dynamo traced whole graphs, or never ran."""
    if run.dynamo_graph_count:
        return "No graph breaks: Dynamo traced the cell in whole graphs."
    if run.status == "interrupted":
        return "No graph breaks recorded: the profile was interrupted before Dynamo traced the cell."
    if run.status == "failed":
        return "No graph breaks recorded: the profile failed before Dynamo traced the cell (see its errors)."
    return "No graph breaks: nothing was compiled (the cell ran no torch operation Dynamo could capture)."


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


def ddp_wrapper_text(groups: list[BreakGroup], of: str = CELL) -> str:
    """``3 graph breaks in DDP's own wrapper (torch/nn/parallel/distributed.py:1757, contextlib.py:105), which
    runs eagerly by design; not yours to fix``: the card's one line for them all; "" when there are none."""
    ddp = [g for g in groups if g.ddp_wrapper]
    if not ddp:
        return ""
    n = sum(g.count for g in ddp)
    places = ", ".join(dict.fromkeys(g.inside or break_place(g, of) for g in ddp))
    return (
        f"{n} graph break{'' if n == 1 else 's'} in DDP's own wrapper ({places}), which runs eagerly by "
        "design; not yours to fix"
    )


# -- correctness ----------------------------------------------------------------------------


def correctness_text(c: Correctness) -> str:
    """What the correctness check found and how it judged, in one sentence."""
    diff = f" (max abs diff {format_diff(c.max_abs_diff)})" if c.max_abs_diff is not None else ""
    if c.ok is None:
        if c.changed_between_runs:
            return _changed_between_runs_text(c)
        note = note_text(c.note).removeprefix("not compared: ") if c.note else ""  # older runs had the prefix
        return f"not compared: {note}" if note else "not compared"
    replayed = _replayed_text(c)
    if c.ok:
        by_rmse = [k for k in c.checks if k.compiled_rmse is not None]
        by_spread = [k for k in c.checks if k.compiled_eager_rmse is not None]
        parts = []
        if by_rmse:
            parts.append(_reference_pass_text(c, by_rmse))
        if by_spread:
            parts.append(_spread_pass_text(by_spread, first=not parts))
        if not parts:
            why = c.note is not None and c.note.kind in ("reference_quick", "reference_random")
            quick = f"; {note_text(c.note)}" if c.note is not None and why else ""
            parts.append(f"compiled results match eager within dtype tolerance{diff}{quick}")
        if c.method in ("mixed", "float32") and not by_rmse:  # the reference judged none: how it was made, still
            parts.append(f"the reference was {reference_words(c)}")
        return "; ".join(parts) + replayed
    failed = [k for k in c.checks if not k.ok]
    first = failed[0] if failed else None
    where = f" in {', '.join(c.mismatched)}" if c.mismatched else ""
    why = f": {first.path} {note_text(first.why)}" if first is not None and first.why is not None else ""
    if c.method == "float64":
        how = ""
    elif c.method in ("mixed", "float32"):
        how = f"; judged against {reference_words(c)}"
    else:
        how = f"; {note_text(c.note)}" if c.note else "; judged by dtype tolerance only"
    return f"compiled results differ from eager{where}{diff}{why}{how}{replayed}"


def reference_words(c: Correctness) -> str:
    """Which reference run the errors were measured against: "a float64 run of the same code", with the ops
    that ran in float32 inside it, or a float32 one where float64 could not run."""
    if c.method == "mixed":
        ops = ", ".join(c.reference_float32_ops)
        many = len(c.reference_float32_ops) > 1
        return (
            f"a float64 run of the same code, with {ops} in float32 ({'they fail' if many else 'it fails'} in float64)"
        )
    if c.method == "float32":
        why = f": {c.reference_fallback}" if c.reference_fallback else ""
        return f"a float32 run of the same code (float64 could not run{why})"
    return "a float64 run of the same code"


def _replayed_text(c: Correctness) -> str:
    if not c.replayed:
        return ""
    names = ", ".join(c.replayed)
    return f"; every run was given the same items from {names}, as the first drew them"


def _changed_between_runs_text(c: Correctness) -> str:
    """Outputs a second eager run gave otherwise: the runs read other inputs, so nothing was compared."""
    paths = c.changed_between_runs
    first = next((k for k in c.checks if k.path == paths[0]), None)
    detail = f" ({first.path}: {note_text(first.changed)})" if first is not None and first.changed is not None else ""
    text = (
        f"not compared: eager itself gave other results on a second run in {', '.join(paths)}{detail}, so the "
        "runs read other inputs: the cell advances an iterator, a generator, a file or a data loader, or changes "
        "state it reads"
    )
    if c.not_replayed:
        names = ", ".join(c.not_replayed)
        why = (
            f" ({c.not_replayed_reason})"
            if c.not_replayed_reason
            else " (generators, list, tuple and range iterators and DataLoader iterators can be, without Dynamo "
            "recompiling)"
        )
        text += f"; {names} could not be given the same items on each run{why}"
    return text


def _spread_pass_text(by_spread: list[OutputCheck], first: bool) -> str:
    """Outputs beyond their dtype's tolerance that eager itself gives otherwise from run to run
    (nondeterministic kernels), judged against that spread."""
    lead = max(by_spread, key=lambda k: (k.max_abs_diff or 0.0, _spread_allowance_used(k)))
    opening = "compiled results are within eager's own run-to-run spread: " if first else ""
    text = (
        f"{opening}compiled differs from eager by {format_diff(lead.max_abs_diff)} in {lead.path}, beyond its "
        f"dtype tolerance, but eager differs from itself by {format_diff(lead.eager_spread_rmse)} RMSE there from "
        f"one run to the next (nondeterministic kernels, and no reference run for it); compiled is "
        f"{format_diff(lead.compiled_eager_rmse)} RMSE from eager, {_within_spread(lead)}"
    )
    rest = [k.path for k in by_spread if k is not lead]
    if rest:
        more = f" and {len(rest) - MORE_OUTPUTS_NAMED} more" if len(rest) > MORE_OUTPUTS_NAMED else ""
        text += f"; {', '.join(rest[:MORE_OUTPUTS_NAMED])}{more} also within eager's spread"
    return text


def _spread_allowance_used(k: OutputCheck) -> float:
    return (k.compiled_eager_rmse or 0.0) / max(k.allowed_rmse or 0.0, 1e-300)


def _within_spread(k: OutputCheck) -> str:
    compiled, spread, multiplier = k.compiled_eager_rmse, k.eager_spread_rmse, k.rmse_multiplier
    # a check judged against eager's spread has all three (engine.correctness records them together)
    assert compiled is not None and spread is not None and multiplier is not None
    if compiled <= spread:
        return "no further than a second eager run"
    if compiled <= multiplier * spread:
        return f"within {k.rmse_multiplier:g}x that"
    return f"over {k.rmse_multiplier:g}x that but within the rule's absolute slack of {format_diff(k.rmse_slack)}"


# Eager this much further from float64 than compiled: not the rounding noise of two ways to compute the same
# thing (their RMSEs were within 0.70-1.01x of each other for GPT-2, ViT, ResNet-18 and an MLP) but an
# output that rounding moves a long way, such as one computed after a branch on a value near 0.
ILL_CONDITIONED_RATIO = 10.0
MORE_OUTPUTS_NAMED = 3


def _reference_pass_text(c: Correctness, by_rmse: list[OutputCheck]) -> str:
    """Outputs that differ from eager beyond their dtype's tolerance yet pass because their RMSE against the
    reference run (float64, or ``reference_words``) is within the benchmark runner's allowance.  They do not match eager, so the sentence says by
    how much they differ (in the output that differs most), how far eager itself is from float64 there, and
    how compiled got within the allowance: no further than eager, within the multiplier, or only within the
    absolute slack."""
    lead = max(by_rmse, key=lambda k: (k.max_abs_diff or 0.0, _allowance_used(k)))
    compiled_rmse, eager_rmse = _reference_rmses(lead)
    ill = (
        f" ({lead.path} is ill-conditioned, e.g. a branch on a value near 0)"
        if eager_rmse > ILL_CONDITIONED_RATIO * compiled_rmse
        else ""
    )
    rule, short = (
        ("the float64 rule", "float64") if c.method in ("float64", "") else ("the reference rule", "the reference")
    )
    text = (
        f"compiled results pass by {rule}, as PyTorch's benchmark runner judges: compiled differs "
        f"from eager by {format_diff(lead.max_abs_diff)} in {lead.path}, beyond its dtype tolerance, but eager "
        f"is itself {format_diff(lead.eager_rmse)} RMSE from {reference_words(c)} there{ill}; "
        f"compiled is {format_diff(lead.compiled_rmse)} from it{_within(lead)}"
    )
    rest = [k for k in by_rmse if k is not lead]
    # another output whose error exceeds eager's came closer to failing than the lead may have: name it
    worse = [k for k in rest if _further_than_eager(k)]
    if worse:
        k = max(worse, key=_allowance_used)
        text += (
            f"; {k.path}: compiled {format_diff(k.compiled_rmse)} RMSE from {short}, eager "
            f"{format_diff(k.eager_rmse)}{_within(k)}"
        )
        rest.remove(k)
    if rest:
        names = ", ".join(k.path for k in rest[:MORE_OUTPUTS_NAMED])
        more = f" and {len(rest) - MORE_OUTPUTS_NAMED} more" if len(rest) > MORE_OUTPUTS_NAMED else ""
        text += f"; {names}{more} also passed by {rule}"
    return text


def _reference_rmses(k: OutputCheck) -> tuple[float, float]:
    """A check judged against the reference: compiled's RMSE from it and eager's (``engine.correctness.compare``
    records both together)."""
    assert k.compiled_rmse is not None and k.eager_rmse is not None
    return k.compiled_rmse, k.eager_rmse


def _further_than_eager(k: OutputCheck) -> bool:
    compiled_rmse, eager_rmse = _reference_rmses(k)
    return compiled_rmse > eager_rmse


def _allowance_used(k: OutputCheck) -> float:
    return (k.compiled_rmse or 0.0) / max(k.allowed_rmse or 0.0, 1e-300)


def _within(k: OutputCheck) -> str:
    """How compiled's RMSE against float64 got within the allowance (multiplier x eager's + slack)."""
    compiled_rmse, eager_rmse = _reference_rmses(k)
    if compiled_rmse <= eager_rmse:
        return ", no further than eager"
    if k.rmse_multiplier is None or k.rmse_slack is None:  # runs stored before the two were recorded
        return f", within the allowed {format_diff(k.allowed_rmse)}"
    if compiled_rmse <= k.rmse_multiplier * eager_rmse:
        return f", within {k.rmse_multiplier:g}x eager's"
    return f", over {k.rmse_multiplier:g}x eager's but within the rule's absolute slack of {format_diff(k.rmse_slack)}"


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


# -- drift while timing ----------------------------------------------------------------------

DRIFT_MIN_SAMPLES = 9  # a third of fewer samples says nothing
# A speedup that moved less than this share is not worth a word even beyond a tight interval (GPT-2 on an
# H200 moved 3.24x -> 3.28x within a [3.23, 3.27] interval: not news).
DRIFT_MIN_SHARE = 0.05


@dataclass
class Drift:
    """Medians of the first and last third of the interleaved samples (the same rounds for both variants)."""

    variant: str
    eager_early_ms: float
    eager_late_ms: float
    compiled_early_ms: float
    compiled_late_ms: float

    @property
    def early_speedup(self) -> float:
        return self.eager_early_ms / self.compiled_early_ms

    @property
    def late_speedup(self) -> float:
        return self.eager_late_ms / self.compiled_late_ms


def speedup_drift(run: ProfileRun) -> Drift | None:
    """How the speedup moved from the first to the last third of the samples, when it moved further than its
    interval is wide, and by more than ``DRIFT_MIN_SHARE``: the interval covers noise between samples, not a
    machine that changed under them (a host-bound GPT-2 read 1.96x by do_bench just before a profile and
    3.23x just after it)."""
    s, eager = run.speedup, run.eager
    if s is None or eager is None or eager.timing is None or not s.has_interval:
        return None
    low, high = s.low, s.high
    if low is None or high is None:  # never: has_interval says both are numbers
        return None
    best = run.variant(s.variant)
    if best.timing is None:
        return None
    e, c = eager.timing.samples_ms, best.timing.samples_ms
    n = min(len(e), len(c))
    if n < DRIFT_MIN_SAMPLES:
        return None
    k = n // 3
    d = Drift(
        variant=best.name,
        eager_early_ms=median(e[:k]),
        eager_late_ms=median(e[n - k : n]),
        compiled_early_ms=median(c[:k]),
        compiled_late_ms=median(c[n - k : n]),
    )
    if min(d.compiled_early_ms, d.compiled_late_ms) <= 0:
        return None
    moved = abs(d.late_speedup - d.early_speedup)
    return d if moved > high - low and moved > DRIFT_MIN_SHARE * s.value else None


CACHE_WORDS = {"cold": "cold cache", "warm": "warm cache", "mixed": "partly cached"}


def cache_words(run: ProfileRun, variant: Variant | None = None) -> str:
    """``cold cache``, ``warm cache`` or ``partly cached`` for a compile: the variant's own cache state where
    the engine recorded one (more precise), else the run's; "" when neither is known."""
    own = CACHE_WORDS.get(variant.cache_state, "") if variant is not None else ""
    return own or CACHE_WORDS.get(run.cache.state, "")
