"""The options of a profile: ``ProfileOptions``, which validates itself, and ``OPTION_TABLE``, the one
table of the magic's options that the magic's arguments, its usage line and the README's options
table are generated from.

Contract: whatever builds a ``ProfileOptions`` (the magic, ``compile_profile.profile``, a test)
gets the same refusal, an ``OptionError`` whose message names the option by its magic flag; the
magic shows it as its usage message, the Python API raises it.  Nothing is refused later in the
run for a reason known here.

``python -m compile_profile.engine.session.options`` prints the README's options table;
``tests/test_options.py`` fails when the README's table differs from it.
"""

from __future__ import annotations

import contextlib
import keyword
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...user_input import label_problem, seconds_problem
from ..common.errors import OptionError
from ..compiler.variants import MODES, VariantSpec, build_variants

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Flag:
    """One command-line flag of the magic: its names, its argparse keywords and its help."""

    names: tuple[str, ...]
    help: str
    metavar: str | None = None  # the flag takes a value, shown as this
    argparse: dict[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.argparse.get("dest") or self.names[-1].lstrip("-").replace("-", "_")

    @property
    def shown(self) -> str:
        return f"{self.names[0]} {self.metavar}" if self.metavar else self.names[0]


@dataclass(frozen=True)
class OptionRow:
    """A row of the README's table: what a group of flags means, and the flags."""

    meaning: str
    flags: tuple[Flag, ...]


def _flag(*names: str, help: str, metavar: str | None = None, **argparse: Any) -> Flag:
    if metavar:
        argparse["metavar"] = metavar
    return Flag(names=names, help=help, metavar=metavar, argparse=argparse)


_MODE_LIST = ", ".join(MODES)

# Flags whose dest is a ProfileOptions field set it (after the magic unquotes and splits values);
# -o, --no-store and --widget are the magic's own.
OPTION_TABLE: tuple[OptionRow, ...] = (
    OptionRow(
        ", ".join(f"`{m}`" for m in MODES) + "; repeat for several variants",
        (
            _flag(
                "--mode",
                metavar="MODE",
                dest="modes",
                action="append",
                default=None,
                help=f"{_MODE_LIST}; repeat for several variants",
            ),
        ),
    ),
    OptionRow(
        "any registered `torch.compile` backend, run inside the recording backend (default `inductor`)",
        (
            _flag(
                "--backend",
                metavar="NAME",
                default="inductor",
                help="torch.compile backend inside the recording backend",
            ),
        ),
    ),
    OptionRow(
        "`torch.compile(dynamic=True/False)`",
        (
            _flag("--dynamic", action="store_true", default=None, help="torch.compile(dynamic=True)"),
            _flag("--static", dest="dynamic", action="store_false", help="torch.compile(dynamic=False)"),
        ),
    ),
    OptionRow(
        "a graph break becomes an error",
        (_flag("--fullgraph", action="store_true", help="torch.compile(fullgraph=True): a graph break is an error"),),
    ),
    OptionRow(
        "an Inductor option, repeatable",
        (_flag("--options", metavar="KEY=VALUE", action="append", default=None, help="Inductor option; repeatable"),),
    ),
    OptionRow(
        "try the modes that make sense on this device and print the `torch.compile(...)` call to use",
        (
            _flag(
                "--sweep", action="store_true", help="try every mode that makes sense on this device and recommend one"
            ),
        ),
    ),
    OptionRow(
        "untimed calls per variant, most samples per variant, seconds for timing",
        (
            _flag(
                "--warmup", metavar="N", type=int, default=2, help="untimed calls per variant before timing (default 2)"
            ),
            _flag("--repeat", metavar="N", type=int, default=100, help="most timed samples per variant (default 100)"),
            _flag("--budget", metavar="S", type=float, default=3.0, help="seconds for the timed runs (default 3)"),
        ),
    ),
    OptionRow(
        "the headline, graph breaks, compile time, cache state and the timed comparison only: no kernel profiler "
        "pass, no per-line eager profile, and the float64 reference only where an output leaves eager's dtype "
        "tolerance (bf16 logits usually do: they are judged by the reference as without --quick)",
        (
            _flag(
                "--quick",
                action="store_true",
                help="timing and compile facts only: no kernel profiler pass or per-line eager profile, and the "
                "float64 reference only where an output leaves eager's dtype tolerance",
            ),
        ),
    ),
    OptionRow(
        "after a compile that fails or results that differ from eager, bisect it with PyTorch's CompilerBisector: "
        "the backend (eager, aot_eager, aot_eager_decomp_partition, inductor) and Inductor subsystem, pass or "
        "lowering where it starts to fail or differ, judged by the card's correctness rule (resets Dynamo: "
        "compiled functions compile again on their next call)",
        (
            _flag(
                "--bisect",
                action="store_true",
                help="after a compile that fails or results that differ, find the backend and Inductor subsystem, "
                "pass or lowering where it starts (PyTorch's CompilerBisector; resets Dynamo's caches)",
            ),
        ),
    ),
    OptionRow(
        "profile over a sequence of inputs: the cell runs once per item of the namespace's ITERABLE with NAME bound "
        "to it (`--inputs xb=batches`, the cell reads `xb`); each input signature is timed apart, with the "
        "recompiles each input caused; at most `--max-inputs` items are read (default 1000: an endless iterator is "
        "refused, not read until memory runs out)",
        (
            _flag(
                "--inputs",
                metavar="NAME=ITERABLE",
                default=None,
                help="run the cell once per item of the namespace's ITERABLE, with NAME bound to it; time each input "
                "signature apart and attribute recompiles to the inputs that caused them",
            ),
            _flag(
                "--max-inputs",
                metavar="N",
                type=int,
                default=1000,
                help="the most items --inputs reads (default 1000): a longer or endless iterable is refused, not read "
                "until memory runs out",
            ),
        ),
    ),
    OptionRow(
        "the names the cell keeps, comma-separated (default: all it assigns); the others are temporaries, "
        "unbound after the cell, which compiled code need not write out",
        (
            _flag(
                "--keep",
                metavar="NAMES",
                action="append",
                default=None,
                help="the names the cell keeps, comma-separated (default: all it assigns); the rest are temporaries, "
                "unbound after the cell, which compiled code need not write out",
            ),
        ),
    ),
    OptionRow(
        "what the cell changes in place (weights, optimizer state, buffers, lists it appends to) is put back as one "
        "plain run of it leaves it (the default, when a copy of what its first run changed fits in half the free "
        "device or host memory); `--restore` copies it whatever is free; `--no-restore` lets it advance with every "
        "run, as `%%timeit` does",
        (
            _flag(
                "--restore",
                action="store_true",
                default=None,
                help="put back what the cell changes in place as one plain run leaves it, even where the copy "
                "needs more than half the free memory",
            ),
            _flag(
                "--no-restore",
                dest="restore",
                action="store_false",
                help="let what the cell changes in place advance with every run of the profile (no copy)",
            ),
        ),
    ),
    OptionRow(
        "bind the run, name it, don't store it, skip the correctness check, show the ipywidgets explorer",
        (
            _flag("-o", "--output", metavar="NAME", dest="output", default=None, help="bind the ProfileRun to NAME"),
            _flag("--label", metavar="TEXT", default="", help="a name for this run in the run list"),
            _flag("--no-store", dest="store", action="store_false", help="do not save the run in the run store"),
            _flag(
                "--no-check",
                dest="check_correctness",
                action="store_false",
                help="skip the eager/compiled output comparison",
            ),
            _flag("--widget", action="store_true", help="show the ipywidgets explorer instead of the summary"),
        ),
    ),
)


def all_flags() -> list[Flag]:
    return [flag for row in OPTION_TABLE for flag in row.flags]


def _by_dest(flags: tuple[Flag, ...]) -> list[list[Flag]]:
    """Consecutive flags that set the same value (``--dynamic`` / ``--static``) go together."""
    groups: list[list[Flag]] = []
    for flag in flags:
        if groups and groups[-1][0].dest == flag.dest:
            groups[-1].append(flag)
        else:
            groups.append([flag])
    return groups


def markdown_table() -> str:
    """The README's options table."""
    lines = ["| option | meaning |", "| --- | --- |"]
    for row in OPTION_TABLE:
        shown = ", ".join(" / ".join(f"`{f.shown}`" for f in group) for group in _by_dest(row.flags))
        lines.append(f"| {shown} | {row.meaning} |")
    return "\n".join(lines)


def usage_line(command: str = "%%compile_profile") -> str:
    parts = []
    for row in OPTION_TABLE:
        for group in _by_dest(row.flags):
            repeated = " ..." if group[0].argparse.get("action") == "append" else ""
            parts.append(f"[{'|'.join(f.shown for f in group)}{repeated}]")
    return f"usage: {command} {' '.join(parts)}\n(see {command}? for details)"


def flags_taking_values() -> set[str]:
    return {name for flag in all_flags() if flag.metavar for name in flag.names}


@dataclass
class ProfileOptions:
    """What to profile and how; refused at construction when something is wrong (``OptionError``)."""

    backend: str = "inductor"
    modes: list[str] | None = None
    dynamic: bool | None = None
    fullgraph: bool = False
    options: dict[str, Any] | None = None
    sweep: bool = False
    warmup: int = 2
    repeat: int = 100
    min_samples: int = 5
    budget: float = 3.0
    label: str = ""
    notebook: str = ""
    check_correctness: bool = True
    keep: list[str] | None = (
        None  # a cell's names that stay after it (default: all it assigns); the rest are temporaries
    )
    # --inputs NAME=ITERABLE: a cell profiled over the namespace's ITERABLE, NAME bound to each item in turn
    # (``profile(fn, inputs=...)`` takes its sequence itself: ``engine.cell.input_feed``)
    inputs: str | None = None
    # --max-inputs N: the most items a sequence of inputs reads (--inputs, profile(fn, inputs=...)); an endless
    # iterator (itertools.count(), a cycle over a loader) is refused after N + 1, not read until memory runs out
    max_inputs: int = 1000
    kernel_timing: bool = True  # the torch.profiler pass after timing: per-kernel time, roofline
    # --quick: no profiler pass (kernel_timing becomes False), the float64 reference only where an output leaves
    # eager's dtype tolerance (``engine.correctness.stage``: note reference_quick_needed)
    quick: bool = False
    # --restore / --no-restore: the in-place state put back as one plain run leaves it even past the memory
    # share / never; None: where the copy fits (``engine.cell.plain_state``)
    restore: bool | None = None
    bisect: bool = False  # --bisect: a failed compile or a mismatch bisected (engine/failure/bisection.py)
    bisect_timeout_s: float = 300.0  # the bisection stops after this many seconds and says so
    progress: Progress | None = None
    # Silences what the frontend shows from a run (rich display output) after the first eager run,
    # which shows it once; the engine itself drops stdout and, from timing on, stderr of later runs.
    quiet_display: Callable[[], contextlib.AbstractContextManager] | None = None
    # The notebook cell number (In[n]) whose code a filename holds (IPython's compiled cells, and the cells
    # profiled before), so that a graph break in a helper another cell defines is placed in that cell
    source_cells: Callable[[str], int | None] | None = None

    def __post_init__(self) -> None:
        if self.modes is not None:
            self.modes = [self.modes] if isinstance(self.modes, str) else list(self.modes)  # one mode, not its letters
        for mode in self.modes or []:
            if mode not in MODES:
                raise OptionError(f"unknown --mode {mode!r}: choose from {_MODE_LIST}")
        if self.sweep and self.modes:
            raise OptionError(
                "--sweep chooses the modes itself: leave out --mode, or drop --sweep to profile the modes given"
            )
        if self.quick:
            self.kernel_timing = False
        _check_count("--warmup", self.warmup, least=0)
        _check_count("--repeat", self.repeat, least=1)
        _check_count("--max-inputs", self.max_inputs, least=1)
        _check_count("min_samples", self.min_samples, least=1)
        if problem := seconds_problem("--budget", self.budget):  # inf was stored as null: a run that could not be read
            raise OptionError(problem)
        if not isinstance(self.label, str):
            raise OptionError(f"--label must be a string, got {type(self.label).__name__}")
        if problem := label_problem("--label", self.label):
            raise OptionError(problem)
        if self.keep is not None:
            self.keep = list(self.keep)
            for name in self.keep:
                if not (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)):
                    raise OptionError(f"--keep takes names the cell assigns, separated by commas, got {name!r}")
        if self.restore is not None and not isinstance(self.restore, bool):
            raise OptionError(f"restore= takes True, False or None, got {self.restore!r}")
        if self.inputs is not None:
            from ..cell.input_feed import parse_inputs_option

            parse_inputs_option(self.inputs)
        if self.options is not None and not isinstance(self.options, dict):
            raise OptionError(f"--options takes KEY=VALUE (options= a dict), got {self.options!r}")
        _check_compile_settings(self)

    def variant_specs(self, modes: list[str] | None = None) -> list[VariantSpec]:
        """The compiled variants to profile: one per mode (``modes``: --sweep's, else --mode's)."""
        return build_variants(
            backend=self.backend,
            modes=modes or self.modes,
            dynamic=self.dynamic,
            fullgraph=self.fullgraph,
            options=self.options,
        )


def _check_count(flag: str, value: Any, *, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"{flag} must be a whole number, got {value!r}")
    if value < least:
        raise OptionError(f"{flag} must be {'positive' if least else 'zero or more'}, got {value}")


def _check_compile_settings(opts: ProfileOptions) -> None:
    """Build the backends now, so a backend or option torch.compile refuses is refused here, not as
    a traceback from the first compiled call."""
    from ..compiler.backend import RecordingBackend, register

    register()  # backend="compile_profile" resolves
    # Options and backend names are checked the same way whatever the mode, so --sweep needs no more.
    try:
        for spec in opts.variant_specs():
            RecordingBackend.for_variant(spec)
    except Exception as exc:  # noqa: BLE001 - torch says RuntimeError, InvalidBackend, TypeError, ...
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        reason = lines[0].split(", known options are")[0]  # not the list of every Inductor option
        raise OptionError(f"torch.compile refuses these settings: {reason}") from None


if __name__ == "__main__":
    print(markdown_table())
