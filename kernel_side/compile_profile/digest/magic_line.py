"""The ``%%compile_profile`` line a run was profiled by, for the panel's Copy and Re-run (``RunDigest.magic_line``).

A run of the magic keeps its cell as the kernel saw it, its first line the ``%%compile_profile`` line as typed: that
line is the answer.  A run of the Python API (``compile_profile.profile``) or the line magic keeps only its code; its
line is built from what the run records of its options (``run_options``): each compiled variant's backend, mode,
dynamic, fullgraph and Inductor options (a ``--sweep`` run's modes named as they ran), the profile's settings (warm-up,
repeat, budget, ``--quick``, ``--no-check``, ``--inputs``; left at the magic's defaults in a run stored before they
were recorded), the names it kept and its label.

``options_line`` words options as the magic's parser reads them back (``magic.py``: ``_unquote`` takes one pair of
outer quotes, ``_key_value`` reads ``--options KEY=VALUE``); ``tests/test_magic_line.py`` round-trips every option of
the magic's option table through that parser.  The digest imports nothing of the engine, so the defaults are named
here and that test holds them to ``ProfileOptions``'s.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..profile_run import ProfileRun

MAGIC = "%%compile_profile"

# ProfileOptions's defaults, for the options a line leaves out at them (tests/test_magic_line.py compares them)
DEFAULTS: dict[str, Any] = {
    "modes": None,
    "backend": "inductor",
    "dynamic": None,
    "fullgraph": False,
    "options": None,
    "sweep": False,
    "warmup": 2,
    "repeat": 100,
    "budget": 3.0,
    "quick": False,
    "bisect": False,
    "inputs": None,
    "max_inputs": 1000,
    "keep": None,
    "restore": None,
    "label": "",
    "check_correctness": True,
}

_PLAIN = re.compile(r"^[A-Za-z0-9_.,=:/+@%-]+$")


def quote_arg(value: str) -> str:
    """A value as the magic's line reads it back: bare where the shell-like split keeps it whole, else in one pair
    of quotes (IPython keeps them, ``_unquote`` takes them off); one kind of quote inside is kept by the other."""
    if _PLAIN.match(value):
        return value
    return f'"{value}"' if "'" in value else f"'{value}'"


def _option_value(value: Any) -> str:
    """An Inductor option's value as ``_key_value`` reads it back: booleans as true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value)


def _number(value: float) -> str:
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


def options_line(values: dict[str, Any]) -> str:
    """``%%compile_profile`` with each option of ``values`` (named as ``ProfileOptions``'s fields) that is not at its
    default, in the order of the magic's option table."""
    v = {**DEFAULTS, **values}
    args: list[str] = []
    for mode in v["modes"] or []:
        args += ["--mode", quote_arg(mode)]
    if v["backend"] != DEFAULTS["backend"]:
        args += ["--backend", quote_arg(v["backend"])]
    if v["dynamic"] is not None:
        args.append("--dynamic" if v["dynamic"] else "--static")
    if v["fullgraph"]:
        args.append("--fullgraph")
    for key, value in (v["options"] or {}).items():
        args += ["--options", quote_arg(f"{key}={_option_value(value)}")]
    if v["sweep"]:
        args.append("--sweep")
    for name, flag in (("warmup", "--warmup"), ("repeat", "--repeat"), ("budget", "--budget")):
        if v[name] != DEFAULTS[name]:
            args += [flag, _number(v[name])]
    if v["quick"]:
        args.append("--quick")
    if v["bisect"]:
        args.append("--bisect")
    if v["inputs"]:
        args += ["--inputs", quote_arg(v["inputs"])]
    if v["max_inputs"] != DEFAULTS["max_inputs"]:
        args += ["--max-inputs", str(v["max_inputs"])]
    if v["keep"] is not None:
        args += ["--keep", quote_arg(",".join(v["keep"]))]
    if v["restore"] is not None:
        args.append("--restore" if v["restore"] else "--no-restore")
    if v["label"]:
        args += ["--label", quote_arg(v["label"])]
    if not v["check_correctness"]:
        args.append("--no-check")
    return " ".join([MAGIC, *args])


def typed_line(cell_source: str) -> str | None:
    """The cell's own ``%%compile_profile`` line, as typed; None where the run kept no such line."""
    first = cell_source.split("\n", 1)[0].strip()
    return first if first.startswith(MAGIC) else None


def run_options(run: ProfileRun) -> dict[str, Any]:
    """What the run records of its options, named as ``ProfileOptions``'s fields."""
    compiled = run.compiled_variants
    first = compiled[0] if compiled else None
    # a --sweep run's modes are named as they ran (as the panel built its line before): its re-run profiles the
    # same variants
    modes = list(dict.fromkeys(v.mode or "default" for v in compiled))
    values: dict[str, Any] = {"label": run.label, "modes": modes if modes and modes != ["default"] else None}
    if first is not None:
        values.update(
            backend=first.backend or DEFAULTS["backend"],
            dynamic=first.dynamic,
            fullgraph=first.fullgraph,
            options=dict(first.options) or None,
        )
    if run.temporaries:  # --keep was given: the names kept are the ones it named
        values["keep"] = list(run.kept_names)
    s = run.settings
    if s is not None:
        values.update(
            warmup=s.warmup,
            repeat=s.repeat,
            budget=s.budget_s,
            quick=s.quick,
            check_correctness=s.check_correctness,
            inputs=s.inputs or None,
        )
    return values


def magic_line(run: ProfileRun) -> str:
    """The ``%%compile_profile`` line that profiles the run's cell as it was profiled: the line as typed, else one
    built from the options the run records."""
    return typed_line(run.cell_source) or options_line(run_options(run))
