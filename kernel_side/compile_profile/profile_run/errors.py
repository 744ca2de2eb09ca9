"""What went wrong in a run: each error with its stage, variant and cell line (a failed compile's phase, lines and
reproducer), the compiler settings not at their defaults that may be the cause, and ``--bisect``'s result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .notes import Note


@dataclass
class ErrorInfo:
    """Something that went wrong, at which stage, and the cell line when there is one."""

    stage: str
    message: str
    type: str = ""
    variant: str = ""
    line: int | None = None
    traceback: str = ""
    # Which run of the cell raised (1 is the first eager run, counted as ``ProfileRun.cell_runs`` counts),
    # when the cell's own code raised; None when the profiler failed outside the cell's code.
    call: int | None = None
    # What a failure after the first calls says about the cell: "iterator_ran_out" (StopIteration: it
    # reads from an iterator that its runs used up), "recompile_failed" (a later call compiled again and
    # that compile failed), "later_run_failed" (its code raised on a later run where earlier ones returned:
    # it changes what later runs read, as a list it empties); "" for the first calls' errors.
    cause: Literal["", "iterator_ran_out", "recompile_failed", "later_run_failed"] = ""
    # a failure the profile states rather than an exception's (another rank's, an interrupt), as a fact the
    # digest words (``digest.notes.error_message``); ``message`` is then ""
    why: Note | None = None
    # A compile error, read off its traceback (``engine/failure/compile_failure.py``): the compiler stage that raised it,
    # the innermost frame of the failing operation's user stack outside the cell (a library's code the cell
    # called: ``timm/layers/mlp.py:48``), and whether the same code compiled and ran under backend="aot_eager"
    # (Dynamo and AOTAutograd without Inductor), with that try's error where it failed too; "" where not tried.
    compile_stage: Literal["", "dynamo", "aot_autograd", "inductor_lowering", "codegen", "kernel_compile"] = ""
    frame_file: str = ""
    frame_line: int | None = None
    frame_code: str = ""
    aot_eager: Literal["", "runs", "fails"] = ""
    aot_eager_error: str = ""
    # The cell lines of the graph being compiled, where the failure names no single operation (a kernel that did
    # not compile, code generation): its nodes' lines; ``line`` is then the first of them
    graph_lines: list[int] = field(default_factory=list[int])
    # Whether Inductor compiles any kernel here under the settings in force: "broken" where the failure says it
    # found no compiler (``InvalidCxxCompiler``) or a one-op kernel failed to compile too (tried by --bisect for a
    # failure compiling kernels: no compiler, a broken toolchain or a setting, not this graph), with that try's
    # error; "works" where that kernel compiled; "" where not known
    toolchain: Literal["", "works", "broken"] = ""
    toolchain_error: str = ""
    # A standalone script that compiles the failing graph as Inductor was given it (``engine/trace/reproducer.py``:
    # torch's ``fx_graph_runnable`` of that compile with the versions it was made with); "" where torch logged none
    reproducer: str = ""

    @property
    def backend_may_own(self) -> bool:
        """A compile failure a backend may own, not an error Dynamo raised on the code itself (an unsupported
        construct, a break under fullgraph, which no backend changes): what ``--bisect`` bisects."""
        return self.stage == "compile" and self.compile_stage != "dynamo"


@dataclass
class ConfigSetting:
    """A compiler setting in force that is not at its default (``engine/failure/changed_settings.py``): its full name
    (``torch._inductor.config.cpp.cxx``), its value and its default, each as ``repr`` writes it."""

    name: str
    value: str
    default: str


@dataclass
class Bisection:
    """``--bisect``: a failed compile, or a variant whose results differed from eager, bisected with PyTorch's
    ``CompilerBisector`` (``engine/failure/bisection.py``): the backend where the failure or the difference starts (eager,
    aot_eager, aot_eager_decomp_partition, inductor) and, within it, the subsystem (a pass list, the lowerings, a
    config switch) and how many of its applications it took, with the bisector's note on that application (the
    lowering's op, the pass's name)."""

    variant: str  # the variant bisected
    # "setup": not bisected, as no kernel compiles here (``ErrorInfo.toolchain`` "broken"): no backend, pass or
    # lowering is to blame
    outcome: Literal["found", "backend", "not_reproduced", "timed_out", "failed", "setup"]
    kind: Literal["failure", "mismatch"] = "failure"  # what was bisected: a failed compile, or results that differ
    backend: str = ""
    subsystem: str = ""
    bisect_number: int | None = None
    debug_info: str = ""
    switch: str = ""  # the config setting that avoids it, where the subsystem is one (``fallback_random = True``)
    runs: int = 0  # test runs of the code
    seconds: float = 0.0
    error: str = ""  # the bisection's own error, for outcome "failed"
