"""What a suite records: plain dataclasses of facts, saved in the run store as JSON and loaded back checked.

Contract: the runner writes a ``SuiteRecord`` when a suite starts (its settings and every entry it will run) and a
``ModelOutcome`` when each entry's process ends: how it ended (``ProcessEnd``) and, where it finished, the id of the
``ProfileRun`` it stored.  Nothing here is worded or derived: a model's status ("pass", "differs", ...) is the
digest's (``suites.digest``), read from the run by the card's own verdict, so a wording change re-derives it.
``json_schema()`` generates ``schema/suite.schema.json`` from these classes and from the digest's and the
comparison's (``make contract``), and the TypeScript the panel reads from that.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import serialize

# How an entry's process ended: "finished" (it stored a run, whatever the run says), "timeout" (killed at the
# per-model limit), "crashed" (it died: a signal, or an exit without a result), "oom" (out of memory: torch's or
# Python's error, or SIGKILL, which is how Linux's OOM killer ends a process), "error" (building the model, or the profile itself, raised: ``ModelOutcome.stage``),
# "skipped" (the collection said why it cannot be run here: a library that does not import).
ProcessEnd = Literal["finished", "timeout", "crashed", "oom", "error", "skipped"]
PROCESS_ENDS: tuple[ProcessEnd, ...] = ("finished", "timeout", "crashed", "oom", "error", "skipped")
# torch's messages for an allocation that failed: CUDA's OutOfMemoryError, the CPU allocator's, Python's MemoryError.
# What an "oom" end is recorded by (the child, ``suites.child``) and a run's failed compile read as (the digest).
OOM_PATTERN = re.compile(r"out of memory|can't allocate memory|OutOfMemoryError|MemoryError", re.IGNORECASE)


@dataclass
class SuiteSettings:
    """What a suite profiles and how: the same for every entry and every shard of one suite."""

    collection: str  # as given: a file's path, or "builtin"
    collection_name: str  # its file name, or "builtin"
    collection_sha256: str  # the file's content: a suite continues only over the same collection
    entries: list[str]  # every entry of the collection, in its order (all shards')
    tasks: list[str]  # "inference", "training"
    dtypes: list[str]  # "float32", "bfloat16" (autocast)
    profile_options: dict[str, Any]  # compile_profile.profile's keywords for every entry (backend, mode, quick, ...)
    timeout_s: float  # the per-model limit
    shards: int = 1  # N of --shard I/N
    size: str = "small"  # the built-in collection's sizes: "small" (CPU) or "real" (GPU)

    def differences(self, other: SuiteSettings) -> list[str]:
        """The settings that differ from ``other``'s, by name: a suite is continued only with the same ones."""
        mine, theirs = dataclasses.asdict(self), dataclasses.asdict(other)
        return [name for name in mine if mine[name] != theirs[name]]


@dataclass
class ModelOutcome:
    """How one entry's process ended, and the run it stored."""

    name: str  # the entry: "gpt2", "gpt2 (training)", "gpt2 (bfloat16)"
    model: str  # the collection's key
    task: str  # "inference", "training", or "step" (a builder that takes no train argument: its step as built)
    dtype: str
    ended: ProcessEnd
    run_id: str | None = None  # the ProfileRun it stored; None where it stored none
    wall_s: float = 0.0  # the process's wall time, start to end
    exit_code: int | None = None  # None: killed by us at the time limit
    signal: str = ""  # "SIGSEGV" where a signal ended it
    error: str = ""  # the exception's message, or what ended it, in its own words
    # where an "error" end raised: "build" (the collection's builder: the model never ran) or "profile"
    # (``compile_profile.profile`` itself); "" in outcomes stored before 2026-12-06
    stage: str = ""
    stderr_tail: list[str] = field(default_factory=list[str])  # the last lines the process wrote to stderr
    shard: int = 1  # I of --shard I/N
    finished_at: str = ""  # ISO time


@dataclass
class SuiteRecord:
    """One suite: its settings, where it ran, and each entry's outcome so far (in the order they ended)."""

    id: str
    created_at: str
    settings: SuiteSettings
    torch_version: str
    device: str  # "cpu", "cuda": where the children ran
    host: str
    label: str = ""
    device_name: str = ""  # "NVIDIA H100 80GB HBM3"; the CPU's model on CPU ("" in suites stored before 2026-12-05)
    cpu: str = ""  # the host's CPU model, as /proc/cpuinfo names it
    cores: int = 0  # the host's logical CPUs (os.cpu_count)
    outcomes: list[ModelOutcome] = field(default_factory=list[ModelOutcome])

    def to_dict(self) -> dict[str, Any]:
        return serialize.to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> SuiteRecord:
        """A record from its JSON data; ``serialize.FormatError`` (a ``ValueError``) names a field of the wrong type."""
        return serialize.from_dict(cls, data)

    def outcome(self, name: str) -> ModelOutcome | None:
        return next((o for o in self.outcomes if o.name == name), None)
