"""``compile-profile``: list, show, compare, export and delete saved runs, show a distributed job across its
ranks, import runs written as JSON, another run store's runs and suites, or runs read from TORCH_TRACE logs, profile
a whole notebook, and run and compare suites of models (``suite``, ``suite-compare``: ``compile_profile.suites.cli``).

Exit codes: 0 success; 1 the notebook (or a renderer) failed, or no such job; 2 bad input: an
unknown or invalid run id, a missing or unreadable file, a bad option, an unusable run store, a stored
run that cannot be read.  Every error is one line on stderr, never a traceback.  Everything printed goes
through ``terminal_safe`` (``_say``): a label or cell line holding ESC, BEL or NUL shows them as ``\x1b``,
``\x07``, ``\x00``, and a right-to-left override as ``\u202e``, never acted on by the terminal; ``repro`` writes
its script as it is only to a file or a pipe.  A run that cannot be read is listed as
``unreadable`` with its id, and a warning line says why; every other run lists and shows as always.

  __init__.py   the parser and ``main`` (the ``compile-profile`` script, ``python -m compile_profile.cli``)
  runs.py       the saved runs' commands: ls, show, rm, compare, export, repro, job, import, import-trace
  compiles.py   what ``show --compile`` and ``export --perfetto`` print and write
  notebook.py   ``run``: a whole notebook executed and its profiled cells tabulated
  text.py       the parser's class, errors with their exit codes, and what every command prints through

``suite`` and ``suite-compare`` are the suites package's (``compile_profile.suites.cli``), registered here last.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..digest.format import one_line
from ..store import RunNotFound, RunStore, StoreError
from . import notebook, runs
from .text import PROG, CliError, Parser, say

COMMANDS = (runs, notebook)  # each module registers its commands, in this order in ``--help``


def build_parser() -> Parser:
    # --db is accepted before or after the subcommand; SUPPRESS keeps a later default from erasing it.
    db_option = Parser(add_help=False)
    db_option.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="run store file (default: $COMPILE_PROFILE_DB, else the Jupyter data dir)",
    )
    parser = Parser(
        prog=PROG, description="Saved compile-profile runs, and profiling whole notebooks.", parents=[db_option]
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(commands, db_option)
    from ..suites.cli import register as register_suite_commands  # suite, suite-compare: the suites package's

    register_suite_commands(commands, [db_option])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        store = RunStore(getattr(args, "db", None))
        try:
            return args.handler(args, store)
        finally:
            store.close()
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except CliError as exc:
        message, code = str(exc), exc.code
    except RunNotFound as exc:
        message, code = str(exc), 2
    except (ValueError, StoreError) as exc:
        message, code = str(exc), 2
    except KeyboardInterrupt:
        message, code = "interrupted", 130
    except BrokenPipeError:  # `compile-profile ls | head`
        return 0
    say(f"{PROG}: error: {one_line(message, 400)}", err=True)
    return code
