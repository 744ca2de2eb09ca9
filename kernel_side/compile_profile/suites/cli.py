"""The ``suite`` and ``suite-compare`` subcommands of ``compile-profile`` (registered by ``compile_profile.cli``).

``compile-profile suite COLLECTION`` profiles every model of a collection, each in its own process, prints a line
as each starts and ends (which of how many, the time left) and the suite's table, and writes ``--json OUT`` /
``--html OUT``; ``--list`` lists the stored suites and ``--show ID`` prints one.  ``suite-compare OLD NEW`` (or
``suite --baseline OLD``) compares two suites, each a stored suite's id or a ``--json`` file; with
``--fail-on-regression`` it exits 1 when an entry stopped passing or slowed beyond both intervals and by more than
``--regression-threshold`` (10 %), so CI can gate a torch upgrade.  Exit codes as the rest of the CLI: 0 success, 1 a regression under ``--fail-on-regression``,
2 bad input.  Every line printed goes through ``terminal_safe``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from typing import Any

from .. import serialize
from ..render.text import terminal_safe, text_table
from ..store import RunStore, validate_run_id
from ..user_input import shown
from .collection import DTYPES, TASKS, CollectionError, parse_shard
from .compare import REGRESSION_THRESHOLD, SuiteComparison, compare_suites, threshold_problem
from .runner import SuiteError

EPILOG = (
    "A collection is a Python file whose models() returns {name: builder}, each builder a function of no arguments "
    "returning (fn, args); 'builtin' is the built-in collection (docs/suite.md)."
)


def _say(text: str = "", *, err: bool = False) -> None:
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout, flush=True)


def _write(path: str, text: str, suite_id: str = "", option: str = "") -> None:
    try:
        pathlib.Path(path).write_text(text, encoding="utf-8")
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        again = (
            f"; the suite is stored: `compile-profile suite --show {suite_id} {option} OUT` writes it"
            if suite_id
            else ""
        )
        raise SuiteError(f"cannot write {path}: {getattr(exc, 'strerror', None) or exc}{again}") from None
    _say(f"wrote {path}", err=True)


def _check_writable(path: str) -> None:
    """Refuse an output file whose directory is not there or cannot be written, before any model runs (a suite takes
    minutes to hours; its figures are stored either way)."""
    where = pathlib.Path(path).expanduser().absolute()
    directory = where.parent
    if "\x00" in path:
        raise SuiteError(f"cannot write {path}: a path cannot hold a NUL character")
    if not directory.is_dir():
        raise SuiteError(f"cannot write {path}: no such directory {directory}")
    if where.is_dir():
        raise SuiteError(f"cannot write {path}: it is a directory")
    if not os.access(directory, os.W_OK):
        raise SuiteError(f"cannot write {path}: the directory {directory} is not writable")


def _profile_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"backend": args.backend, "quick": args.quick}
    if args.mode:
        options["modes"] = list(args.mode)
    if args.dynamic is not None:
        options["dynamic"] = args.dynamic
    if args.budget is not None:
        options["budget"] = args.budget
    if args.no_check:
        options["check_correctness"] = False
    return options


def _outputs(args: argparse.Namespace, result: Any) -> None:
    if args.json:
        _write(args.json, json.dumps(result.to_json(), indent=2) + "\n", result.id, "--json")
    if args.html:
        _write(args.html, result.to_html(), result.id, "--html")


def _gate(comparison: SuiteComparison | None, fail: bool) -> int:
    if comparison is None:
        return 0
    from .views import comparison_text

    _say()
    _say(comparison_text(comparison))
    return 1 if fail and comparison.failed else 0


def cmd_suite(args: argparse.Namespace, store: RunStore) -> int:
    from .api import SuiteResult, run_suite_from_options
    from .views import progress_text

    db = str(store.path)
    if args.list:
        return _list(store)
    if args.delete:
        return _delete(store, args.delete)
    if args.show:
        result = SuiteResult.load(args.show, db)
        _say(str(result))
        _outputs(args, result)
        return 0
    if not args.collection:
        raise SuiteError("give a COLLECTION (a Python file whose models() returns {name: builder}, or builtin)")
    for output in (args.json, args.html):
        if output:
            _check_writable(output)
    if args.fail_on_regression and not args.baseline:
        raise SuiteError("--fail-on-regression needs --baseline OLD (a suite id or a --json file) to compare with")
    try:
        result = run_suite_from_options(
            args.collection,
            tasks=args.task or ["inference"],
            dtypes=args.dtype or ["float32"],
            profile_options=_profile_options(args),
            timeout=args.timeout,
            shard=parse_shard(args.shard) if args.shard else (1, 1),
            suite_id=args.suite_id,
            resume=args.resume,
            label=args.label or "",
            size=args.size,
            db=db,
            baseline=args.baseline,
            regression_threshold=_threshold(args),
            only=args.only,
            on_event=lambda event: _say(progress_text(event), err=True),
        )
    except KeyboardInterrupt:
        _say(
            "interrupted: the entries that ended are stored; `compile-profile suite ... --resume` continues",
            err=True,
        )
        raise
    _say(str(result))
    _outputs(args, result)
    return _gate(result.comparison, args.fail_on_regression)


def _list(store: RunStore) -> int:
    from .http import suite_rows

    rows = suite_rows(store, 50)
    if not rows:
        _say(f"no suites in {store.path}")
        return 0
    _say(
        text_table(
            ["ID", "CREATED", "COLLECTION", "LABEL", "ENTRIES", "RESULT"],
            [[r.id, r.created_text, r.title, r.label, r.progress_text, r.headline] for r in rows],
        )
    )
    for r in rows:  # listed in the table too, by its id: the user sees it and can look into it
        if r.unreadable:
            _say(
                f"compile-profile: warning: suite {r.id} cannot be read ({r.unreadable}); it was left as stored",
                err=True,
            )
    return 0


def _delete(store: RunStore, suite_id: str) -> int:
    try:
        validate_run_id(suite_id)
    except ValueError:
        raise SuiteError(
            f"--delete {shown(suite_id)}: no suite id (`compile-profile suite --list` lists them)"
        ) from None
    removed, runs = store.delete_suite(suite_id)
    if not removed:
        raise SuiteError(f"--delete {suite_id}: no suite of that id in {store.path} (`compile-profile suite --list`)")
    _say(f"deleted suite {suite_id} and the {runs} run{'' if runs == 1 else 's'} its entries stored")
    return 0


def _threshold(args: argparse.Namespace) -> float:
    """``--regression-threshold PCT`` as a share; ``SuiteError`` naming the flag where it is not a percentage."""
    share = args.regression_threshold / 100
    if threshold_problem(share):
        raise SuiteError(f"--regression-threshold {args.regression_threshold:g}: a percentage from 0 to under 100")
    if 0 < args.regression_threshold < 1:  # Python's regression_threshold is a share: 0.05 there is 5 %
        _say(
            f"compile-profile: warning: --regression-threshold {args.regression_threshold:g} is "
            f"{args.regression_threshold:g} %; it is a percentage (5 for 5 %)",
            err=True,
        )
    return share


def _side(source: str, store: RunStore) -> Any:
    from .api import baseline_export

    return baseline_export(source, str(store.path))


def cmd_suite_compare(args: argparse.Namespace, store: RunStore) -> int:
    from .views import comparison_text

    threshold = _threshold(args)
    comparison = compare_suites(
        _side(args.old, store), _side(args.new, store), old_name=args.old, new_name=args.new, threshold=threshold
    )
    if args.json:
        _write(args.json, json.dumps(serialize.to_dict(comparison), indent=2) + "\n")
    _say(comparison_text(comparison))
    return 1 if args.fail_on_regression and comparison.failed else 0


def _guarded(handler: Any) -> Any:
    """The CLI's one-line errors for what a suite refuses (the main loop turns ValueError into exit 2)."""

    def run(args: argparse.Namespace, store: RunStore) -> int:
        try:
            return handler(args, store)
        except (SuiteError, CollectionError) as exc:
            raise ValueError(str(exc)) from None

    return run


THRESHOLD_HELP = (
    "a regression is a speedup down by more than PCT %% beyond both intervals (default %(default)g: what two "
    "processes of the same code differ by)"
)


def register(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``suite`` and ``suite-compare`` to the CLI's subcommands."""
    suite = commands.add_parser(
        "suite",
        parents=parents,
        help="profile every model of a collection, each in its own process: pass rate, geomean speedup, the chart",
        epilog=EPILOG,
    )
    suite.add_argument("collection", nargs="?", metavar="COLLECTION", help="a Python file with models(), or builtin")
    suite.add_argument("--task", action="append", choices=TASKS, help="inference (default) and/or training; repeat")
    suite.add_argument("--dtype", action="append", choices=DTYPES, help="float32 (default), bfloat16 autocast; repeat")
    suite.add_argument("--mode", action="append", metavar="MODE", help="torch.compile mode; repeat for several")
    suite.add_argument("--backend", default="inductor", metavar="NAME", help="torch.compile backend (default inductor)")
    suite.add_argument("--dynamic", action="store_true", default=None, help="torch.compile(dynamic=True)")
    suite.add_argument("--static", dest="dynamic", action="store_false", help="torch.compile(dynamic=False)")
    suite.add_argument("--quick", action="store_true", help="each model's profile as --quick: timing and compile facts")
    suite.add_argument("--budget", type=float, metavar="S", help="seconds of timing per model (the profile's --budget)")
    suite.add_argument("--no-check", action="store_true", help="skip the eager/compiled output comparison")
    suite.add_argument("--timeout", type=float, default=600.0, metavar="S", help="kill a model's process after S s")
    suite.add_argument("--shard", metavar="I/N", help="run this process's share I of N (with --suite-id)")
    suite.add_argument("--suite-id", metavar="ID", help="join or continue the suite of this id (shards share it)")
    suite.add_argument("--resume", action="store_true", help="continue the newest unfinished suite of these settings")
    suite.add_argument("--label", metavar="TEXT", help="a name for the suite")
    suite.add_argument("--only", action="append", metavar="NAME", help="only this model of the collection; repeat")
    suite.add_argument(
        "--size", default="auto", choices=("auto", "small", "real"), help="the built-in collection's sizes"
    )
    suite.add_argument("--json", metavar="OUT", help="write the models' figures and the summary as JSON")
    suite.add_argument("--html", metavar="OUT", help="write a self-contained HTML report with the chart")
    suite.add_argument("--baseline", metavar="OLD", help="compare with a stored suite's id or a --json file")
    suite.add_argument("--fail-on-regression", action="store_true", help="exit 1 when --baseline shows a regression")
    suite.add_argument(
        "--regression-threshold", type=float, default=REGRESSION_THRESHOLD * 100, metavar="PCT", help=THRESHOLD_HELP
    )
    suite.add_argument("--list", action="store_true", help="list the stored suites")
    suite.add_argument("--show", metavar="ID", help="print a stored suite (with --json/--html: write them)")
    suite.add_argument("--delete", metavar="ID", help="remove a stored suite and the runs its entries stored")
    suite.set_defaults(handler=_guarded(cmd_suite))

    compare = commands.add_parser(
        "suite-compare",
        parents=parents,
        help="what changed from suite OLD to NEW (suite ids or --json files); CI's regression gate",
    )
    compare.add_argument("old", metavar="OLD")
    compare.add_argument("new", metavar="NEW")
    compare.add_argument("--fail-on-regression", action="store_true", help="exit 1 when an entry regressed")
    compare.add_argument(
        "--regression-threshold", type=float, default=REGRESSION_THRESHOLD * 100, metavar="PCT", help=THRESHOLD_HELP
    )
    compare.add_argument("--json", metavar="OUT", help="write the comparison as JSON")
    compare.set_defaults(handler=_guarded(cmd_suite_compare))
