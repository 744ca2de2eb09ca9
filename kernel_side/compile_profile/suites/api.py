"""``compile_profile.suite(...)``: a suite from Python, and the ``SuiteResult`` it returns (a card in a notebook).

Contract: ``suite`` checks its options before any process starts (``SuiteError``, ``CollectionError``, the profile's
own ``OptionError`` for a bad backend or mode), opens or joins the suite in the run store, runs the entries this
process owns, and returns the suite as stored (every shard's outcomes so far) with its digest.  The CLI's
``compile-profile suite`` is a thin layer over ``run_suite_from_options``; both word progress with
``views.progress_text``.
"""

from __future__ import annotations

import pathlib
import stat
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import serialize
from ..store import RunStore
from ..user_input import label_problem, seconds_problem
from . import collection as collections
from .compare import (
    REGRESSION_THRESHOLD,
    SuiteComparison,
    SuiteExport,
    compare_suites,
    export,
    read_export,
    threshold_problem,
)
from .digest import SuiteDigest, suite_digest
from .records import SuiteRecord, SuiteSettings
from .runner import Progress, SuiteError, open_suite, run_suite
from .storage import load_suite, runs_of
from .views import mime_bundle, render_report_html, render_text

DEFAULT_TIMEOUT_S = 600.0
SIZES = ("auto", "small", "real")


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    """Tasks, dtypes or models as given: one as a string (``tasks="training"``), or several."""
    return (value,) if isinstance(value, str) else tuple(value)


class SuiteResult:
    """A suite as stored, and its digest: ``print(result)`` is its text, in a notebook it shows as a card (the
    panel's Suite view), ``to_html()`` its self-contained report, ``to_json()`` the ``--json`` export."""

    def __init__(self, record: SuiteRecord, digest: SuiteDigest, comparison: SuiteComparison | None = None):
        self.record = record
        self.digest = digest
        self.comparison = comparison

    @property
    def id(self) -> str:
        return self.record.id

    def export(self) -> SuiteExport:
        return export(self.digest)

    def to_json(self) -> dict[str, Any]:
        return serialize.to_dict(self.export())

    def to_html(self) -> str:
        return render_report_html(self.digest)

    def __str__(self) -> str:
        return render_text(self.digest)

    def __repr__(self) -> str:
        return f"<SuiteResult {self.id}: {self.digest.headline}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return mime_bundle(self.digest)

    @classmethod
    def load(cls, suite_id: str, db: str | None = None) -> SuiteResult:
        with RunStore(db) as store:
            record = load_suite(store, suite_id)
            return cls(record, suite_digest(record, runs_of(store, record)))


def _size(size: str) -> str:
    if size != "auto":
        return size
    import torch

    return "real" if torch.cuda.is_available() else "small"


def _check_profile_options(options: dict[str, Any]) -> None:
    """The profile's own refusal of a bad mode, backend or number, before any child starts."""
    from ..engine.session.options import ProfileOptions

    ProfileOptions(**options)


def run_suite_from_options(
    collection: str,
    *,
    tasks: Sequence[str] = ("inference",),
    dtypes: Sequence[str] = ("float32",),
    profile_options: dict[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    shard: tuple[int, int] = (1, 1),
    suite_id: str | None = None,
    resume: bool = False,
    label: str = "",
    size: str = "auto",
    db: str | None = None,
    baseline: str | None = None,
    regression_threshold: float = REGRESSION_THRESHOLD,
    only: Sequence[str] | None = None,
    on_event: Callable[[Progress], None] = lambda _: None,
) -> SuiteResult:
    tasks, dtypes = _names(tasks), _names(dtypes)
    if problem := threshold_problem(regression_threshold):  # before any model runs, not after the last
        raise SuiteError(problem)
    if not isinstance(label, str):  # stored in the suite's record, which could then not be read back
        raise SuiteError(f"label must be a string, got {type(label).__name__}")
    if problem := label_problem("--label", label):
        raise SuiteError(problem)
    if size not in SIZES:
        raise SuiteError(f"--size {size!r}: choose from {', '.join(SIZES)}")
    only = _names(only) if only else None
    for task in tasks:
        if task not in collections.TASKS:
            raise SuiteError(f"--task {task!r}: choose from {', '.join(collections.TASKS)}")
    for dtype in dtypes:
        if dtype not in collections.DTYPES:
            raise SuiteError(f"--dtype {dtype!r}: choose from {', '.join(collections.DTYPES)}")
    if problem := seconds_problem("--timeout", timeout):  # inf was stored as null: a suite that could not be read
        raise SuiteError(problem)
    if shard[1] > 1 and suite_id is None:
        raise SuiteError(
            "the shards of one suite must share its id: give --suite-id ID, the same on every shard (a Slurm array's "
            "job id, a CI run's number)"
        )
    options = dict(profile_options or {})
    if "mode" in options:
        options["modes"] = options.pop("mode")
    _check_profile_options(options)
    size = _size(size)
    loaded = collections.load(collection)
    entries = loaded.entries(tasks, dtypes, size)
    if only:
        unknown = [name for name in only if not any(name in (e.model, e.name) for e in entries)]
        if unknown:
            known = ", ".join(dict.fromkeys(e.model for e in entries))
            raise SuiteError(f"--only {', '.join(unknown)}: {collection} has no such model (it has {known})")
        entries = [e for e in entries if e.model in only or e.name in only]
    settings = SuiteSettings(
        collection=collection if collection == collections.BUILTIN else str(collection),
        collection_name=loaded.name,
        collection_sha256=loaded.sha256,
        entries=[e.name for e in entries],
        tasks=list(tasks),
        dtypes=list(dtypes),
        profile_options=options,
        timeout_s=float(timeout),
        shards=shard[1],
        size=size,
    )
    old = baseline_export(baseline, db) if baseline else None
    with RunStore(db) as store:
        record, _ = open_suite(store, settings, suite_id=suite_id, resume=resume, label=label)
        record = run_suite(store, record, loaded, entries, shard_of=shard, on_event=on_event)
        digest = suite_digest(record, runs_of(store, record))
    comparison = (
        compare_suites(old, export(digest), old_name=baseline or "", new_name=record.id, threshold=regression_threshold)
        if old
        else None
    )
    return SuiteResult(record, digest, comparison)


_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def baseline_export(source: str, db: str | None) -> SuiteExport:
    """A baseline by a ``--json`` file's path, or a stored suite's id; ``SuiteError`` saying which it is not."""
    path = pathlib.Path(source)
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):  # none there (or a NUL in the name): a suite's id, if it is one
        mode = None
    if mode is not None and stat.S_ISREG(mode):
        return read_export(source)
    if mode is not None:  # a FIFO is never opened: it would wait for a writer
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
        raise SuiteError(f"{source} is no --json file ({kind}): give a suite's --json file or a stored suite's id")
    if not collections.is_suite_id(source):
        raise SuiteError(
            f"no file {source!r}, and it is no suite id (1-64 letters, digits, '_' or '-'): give a suite's --json "
            "file or a stored suite's id (`compile-profile suite --list`)"
        )
    with RunStore(db) as store:
        try:
            record = load_suite(store, source)
        except KeyError:
            raise SuiteError(
                f"no suite {source!r} in {store.path} and no file of that name: give a suite id or a --json file"
            ) from None
        return export(suite_digest(record, runs_of(store, record)))


def suite(
    collection: str,
    *,
    tasks: Sequence[str] = ("inference",),
    dtypes: Sequence[str] = ("float32",),
    mode: str | list[str] | None = None,
    backend: str = "inductor",
    dynamic: bool | None = None,
    quick: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
    shard: str | None = None,
    suite_id: str | None = None,
    resume: bool = False,
    baseline: str | None = None,
    regression_threshold: float = REGRESSION_THRESHOLD,
    label: str = "",
    size: str = "auto",
    db: str | None = None,
    progress: bool = True,
    only: Sequence[str] | None = None,
    **profile_options: Any,
) -> SuiteResult:
    """Profile every model of ``collection`` (a Python file whose ``models()`` returns ``{name: builder}``, or
    ``"builtin"``) eagerly and compiled, each in a process of its own, and return the suite (a card in a notebook).

    ``tasks``: "inference" and/or "training" (for builders that take ``train``); ``dtypes``: "float32" and/or
    "bfloat16" (autocast); ``mode``, ``backend``, ``dynamic``, ``quick`` and any other keyword are
    ``compile_profile.profile``'s for every model; ``timeout``: seconds per model before its process is killed;
    ``shard="I/N"`` with ``suite_id``: this process's share; ``resume``: continue the newest unfinished suite of
    this collection and settings; ``baseline``: a suite id or ``--json`` file to compare with (``result.comparison``),
    an entry regressed where its speedup fell beyond both intervals and by more than ``regression_threshold`` (a
    share, 0.1 unless given: what two processes of the same code differ by); ``size``: the built-in collection's sizes ("small", "real", "auto": real on a GPU); ``only``: these models (or
    entries) of the collection, by name.  Progress goes to stderr.
    """
    options = {"backend": backend, "quick": quick, **profile_options}
    if mode is not None:
        options["modes"] = [mode] if isinstance(mode, str) else list(mode)
    if dynamic is not None:
        options["dynamic"] = dynamic
    from .views import progress_text

    def say(event: Progress) -> None:
        print(progress_text(event), file=sys.stderr, flush=True)

    return run_suite_from_options(
        collection,
        tasks=tasks,
        dtypes=dtypes,
        profile_options=options,
        timeout=timeout,
        shard=collections.parse_shard(shard) if shard else (1, 1),
        suite_id=suite_id,
        resume=resume,
        label=label,
        size=size,
        db=db,
        baseline=baseline,
        regression_threshold=regression_threshold,
        only=only,
        on_event=say if progress else (lambda _: None),
    )
