"""Graph breaks as a reader asks about them: grouped by cell line, innermost frame and reason (a library function
that breaks is compiled, and breaks, once per caller), whose each is (yours, a library's, PyTorch's own by design,
DDP's wrapper) and what to do about it, and the one-line sentences the card, the text, the HTML view and the
panel show for them.  Derived here once; views lay them out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..profile_run import CELL_FILENAME_PREFIX, RECORDING_BACKEND, GraphBreak, ProfileRun
from ..serialize import ADDED_LATER
from .facts import cell_code
from .format import CELL, line_text, lines_of, outside_text


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
    # in DDP's own forward wrapper (``is_ddp_wrapper_break``), which runs eagerly by design: not the user's to fix
    ddp_wrapper: bool = field(default=False, metadata=ADDED_LATER)  # in DDP's own wrapper: not the user's to fix
    # what to do, or why there is nothing to do (``break_owner``); DDP_WRAPPER_NOTE for DDP's
    note: str = field(default="", metadata=ADDED_LATER)  # what to do, or why there is nothing to do
    # "yours", "library" (a package the cell calls) or "pytorch" (PyTorch's own, by design)
    owner: str = field(default="yours", metadata=ADDED_LATER)  # "yours", "library" or "pytorch"
    # Dynamo could not resume there and ran the rest of that function eagerly
    skipped_rest: bool = field(default=False, metadata=ADDED_LATER)  # the rest of the function ran eagerly
    page: str = field(default="", metadata=ADDED_LATER)  # Dynamo's page for this kind of break (gbNNNN), or ""
    where: str = field(
        default="", metadata=ADDED_LATER
    )  # "cell line 2", "train.py line 2", or outside the cell's lines
    # "cell line 2 (y = model(x)), inside transformers/modeling_utils.py:1234 (logger.warning_once(...))"
    place: str = field(default="", metadata=ADDED_LATER)  # where, with its code and the library place inside it


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
# Dynamo skips the rest of the frame after either message (the engine keeps one of the two per compile).
_SKIPPED_REST = (
    "Failed to handle graph break gracefully. Skipping the function",
    "Encountered graph break that we cannot resume from",
)
# A backend that raised an exception Dynamo falls back from (``exceptions_allowed_to_be_fallback``: a data-dependent
# op, one fake tensors do not support) breaks the graph there whatever the backend, so it is the compiler's break at
# the user's or a library's code, not Dynamo's.  A Mixtral MoE training step on an H100 met it 13 times in
# transformers' grouped_mm experts (``aten._local_scalar_dense``, an offsets tensor read as a number).
_BACKEND_EXCEPTION = "Backend compiler exception"
_BACKEND_FAILED = re.compile(r"Backend compiler `([^`]+)` failed with (.+?)\. Adding a graph break")
_DATA_DEPENDENT = "aten._local_scalar_dense"


def backend_failure_note(b: GraphBreak, backend: str) -> str:
    """What the break is where a backend failed on the graph and Dynamo ran the function eagerly; "" otherwise."""
    found = _BACKEND_FAILED.search(b.reason)
    if _BACKEND_EXCEPTION not in b.reason or found is None:
        return ""
    what = found.group(2)
    why = ", a data-dependent op (a tensor's value read as a Python number)" if _DATA_DEPENDENT in what else ""
    return (
        f"the compiler ({backend}), not Dynamo, failed on this function's graph: it met {what}{why}; Dynamo then "
        "ran that function eagerly, as it does under plain torch.compile"
    )


def _under(filename: str, folder: str) -> bool:
    return f"/{folder}/" in "/" + filename.replace("\\", "/")


def in_site_packages(filename: str) -> bool:
    return "site-packages/" in filename or "dist-packages/" in filename


def break_owner(b: GraphBreak, in_library: bool, backend: str = "inductor") -> tuple[str, str]:
    """Whose break it is, ("yours" | "library" | "pytorch"), and what to say about it."""
    code = (b.code_line or "").strip()
    if is_ddp_wrapper_break(b):
        return "pytorch", DDP_WRAPPER_NOTE
    failed = backend_failure_note(b, backend)
    if failed:  # before the rules below: its reason quotes the code the graph ended at (a .backward(), say)
        if in_library and in_site_packages(b.filename):
            return "library", f"in {short_path(b.filename).split('/', 1)[0]}: {failed}"
        return "yours", failed
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
    # the backend the recording one wrapped, by variant: a backend's failure names the recording backend
    backends = {v.name: v.backend or "inductor" for v in run.variants}
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
        backend = backends.get(b.variant, "inductor")
        reason = break_reason(b.reason).replace(f"`{RECORDING_BACKEND}`", f"`{backend}`")
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
            group.owner, group.note = break_owner(b, in_library, backend)
            group.page = break_page(b.reason)
        if is_ddp_wrapper_break(b):
            group.ddp_wrapper, group.note = True, DDP_WRAPPER_NOTE
        if b.reason.startswith(_SKIPPED_REST):
            group.skipped_rest = True
        if b.variant and b.variant not in group.variants:
            group.variants.append(b.variant)
    of = lines_of(run)
    for group in groups.values():
        group.where, group.place = _line_or_outside(group, of), break_place(group, of)
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


def at_break_place(group: BreakGroup, of: str = CELL) -> str:
    """``at cell line 2 (…)``; ``outside the cell, inside lib.py:9 (…)`` (no "at" before "outside")."""
    return ("at " if group.line is not None else "") + break_place(group, of)


def break_summary(group: BreakGroup, of: str = CELL) -> str:
    """One line per group: how many, where, and why; whose it is and what to do where there is something
    (``break_owner``), that Dynamo then ran the rest of the function eagerly, and its page."""
    times = f" ×{group.count}" if group.count > 1 else ""
    rest = "; Dynamo could not resume there and ran the rest of that function eagerly" if group.skipped_rest else ""
    note = f" ({group.note})" if group.note else ""
    page = f" (see {group.page})" if group.page and group.owner == "yours" else ""
    return f"graph break{times} {at_break_place(group, of)}: {group.reason}{rest}{note}{page}"


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
