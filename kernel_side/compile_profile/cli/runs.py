"""``compile-profile``'s commands on the run store: list, show, compare, export and delete saved runs, show a distributed job across its
ranks, import runs written as JSON (or another run store's runs and suites) or read from TORCH_TRACE logs.  Each command is
``cmd_NAME(args, store)``, registered with its options by ``register``.

Exit codes: 0 success; 1 the notebook (or a renderer) failed, or no such job; 2 bad input: an
unknown or invalid run id, a missing or unreadable file, a bad option, an unusable run store, a stored
run that cannot be read.  Every error is one line on stderr, never a traceback.  Everything printed goes
through ``terminal_safe`` (``_say``): a label or cell line holding ESC, BEL or NUL shows them as ``\x1b``,
``\x07``, ``\x00``, and a right-to-left override as ``\u202e``, never acted on by the terminal; ``repro`` writes
its script as it is only to a file or a pipe.  A run that cannot be read is listed as
``unreadable`` with its id, and a warning line says why; every other run lists and shows as always.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import stat
import sys
from collections.abc import Mapping
from typing import Any

from ..digest import compare
from ..digest.facts import kernel_count_text
from ..digest.format import age_text, one_line
from ..digest.job import job_digest_of
from ..digest.summary import summarize
from ..profile_run import ProfileRun
from ..render.job_report import render_job_report_html
from ..render.job_text import render_job_text
from ..render.report import render_report_html
from ..render.text import comparison_text, render_text, terminal_safe, text_table
from ..serialize import parse_json, to_dict
from ..store import RunNotFound, RunStore, put_imported, validate_run_id
from .text import PROG, CliError, Parser, clip, device_text, say, speedup_text, write_file

# -- ls, show, rm ------------------------------------------------------------------


def _job_text(summary: Mapping[str, Any]) -> str:
    """``rank 1/2 job 3f2a9c01d4e5`` for a run of a distributed job, "" for any other."""
    d = summary.get("distributed")
    if not isinstance(d, dict):
        return ""
    return f"rank {d.get('rank')}/{d.get('world_size')} job {d.get('job_id')}"


def cmd_ls(args: argparse.Namespace, store: RunStore) -> int:
    if args.limit < 1:
        raise CliError("--limit must be 1 or more")
    job = validate_run_id(args.job) if args.job is not None else None
    rows = store.list(limit=args.limit, notebook=args.notebook, job=job)
    if args.json:
        say(json.dumps(rows, indent=2))
        return 0
    if not rows:
        where = f" for notebook {args.notebook}" if args.notebook is not None else ""
        where += f" of job {job}" if job is not None else ""
        say(f"no runs{where} in {store.path}")
        return 0
    table = [
        [
            s["id"],
            age_text(s.get("created_at", "")),  # the rule the panel shows too (RunsPage.ages)
            clip(one_line(s.get("label") or ""), 28),
            clip(s.get("first_line") or "", 40),
            clip(device_text(s), 24),
            # the verdict before the speedup (digest.outcome): "results differ", "ran eagerly", else the status
            s.get("list_status") or s.get("status", ""),
            speedup_text(s.get("speedup"), s.get("outcome")),
        ]
        for s in rows
    ]
    headers = ["ID", "CREATED", "LABEL", "FIRST LINE", "DEVICE", "STATUS", "SPEEDUP (INTERVAL)"]
    jobs = [_job_text(s) for s in rows]
    if any(jobs):  # a column for the runs of distributed jobs, only when the list has one
        headers.append("RANK/JOB")
        table = [row + [job_text] for row, job_text in zip(table, jobs)]
    say(text_table(headers, table))
    total = store.count(notebook=args.notebook, job=job)
    if total > len(rows):
        say(f"({len(rows)} of {total} runs; --limit N shows more)")
    for s in rows:
        if unreadable := s.get("unreadable"):
            say(
                f"{PROG}: warning: run {s['id']} cannot be read ({unreadable}); `{PROG} rm {s['id']}` removes it",
                err=True,
            )
    return 0


def cmd_show(args: argparse.Namespace, store: RunStore) -> int:
    if args.json:
        say(json.dumps(store.get_dict(validate_run_id(args.id)), indent=2))
        return 0
    run = store.get(validate_run_id(args.id))
    if args.compile is not None or args.artifact is not None:
        from .compiles import show_compiles

        try:
            say(show_compiles(store, run, args.compile or "", args.artifact))
        except LookupError as exc:
            raise CliError(str(exc.args[0]), 1) from None
        return 0
    say(render_text(run))
    return 0


def cmd_rm(args: argparse.Namespace, store: RunStore) -> int:
    ids: list[str] = args.ids
    for run_id in ids:  # all checked before anything is deleted; a row's own id is taken as stored (store.delete)
        if not store.has_row(run_id):
            validate_run_id(run_id)
    missing = [run_id for run_id in ids if not store.delete(run_id)]
    for run_id in ids:
        if run_id not in missing:
            say(f"removed {run_id}")
    if missing:
        raise CliError(f"no run with id {', '.join(missing)} in {store.path}")
    return 0


# -- job, import ----------------------------------------------------------------------


def _job_runs(store: RunStore, job_id: str) -> list[ProfileRun]:
    try:
        return store.job(validate_run_id(job_id))
    except RunNotFound:
        raise CliError(
            f"no job {job_id} in {store.path}: `{PROG} ls` lists runs with their rank and job; runs saved "
            f"elsewhere (one file per rank, run.to_json()) come in with `{PROG} import FILE...`",
            1,
        ) from None


def cmd_job(args: argparse.Namespace, store: RunStore) -> int:
    runs = _job_runs(store, args.id)
    digest = job_digest_of(runs)
    if args.html:
        write_file(args.html, render_job_report_html(digest))
    if args.perfetto:
        from ..render.perfetto import job_perfetto_trace

        write_file(args.perfetto, json.dumps(job_perfetto_trace(runs)))
        say(
            f"wrote {args.perfetto} (its ranks' compiles on one clock: open it in https://ui.perfetto.dev)",
            err=args.json,
        )
    if args.json:
        say(json.dumps({"job": to_dict(digest), "runs": [summarize(run) for run in runs]}, indent=2))
    else:
        say(render_job_text(digest))
    if args.html:
        say(f"wrote {args.html}", err=args.json)
    return 0


# The largest run file read: a run of a thousand kernels with their code is tens of MB; a link to /dev/zero had been
# read until memory ran out (3.8 GB, then a MemoryError traceback)
RUN_FILE_MAX = 512 << 20


def _read_run(path: str) -> ProfileRun:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise CliError(f"cannot read {path}: it is not a regular file (a device, a pipe or a folder)")
        if info.st_size > RUN_FILE_MAX:
            raise CliError(f"cannot read {path}: {info.st_size:,} bytes is more than a run's JSON holds (512 MiB)")
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CliError(f"{path} is not a run's JSON (run.to_json()): not UTF-8 text") from None
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise CliError(f"{path} is not a run's JSON (run.to_json()): {exc}") from None
    if not isinstance(data, dict):
        raise CliError(f"{path} is not a run's JSON (run.to_json()): it holds a {type(data).__name__}")
    try:
        run = ProfileRun.from_dict(data)
        validate_run_id(run.id)
    except Exception as exc:  # noqa: BLE001 - a missing field or a wrong type: name the file and what
        raise CliError(f"{path} is not a run's JSON (run.to_json()): {one_line(str(exc), 200)}") from None
    return run


def cmd_import(args: argparse.Namespace, store: RunStore) -> int:
    from ..suites.storage import is_store_file, merge_store

    stores = [path for path in args.files if is_store_file(path)]  # another run store: a suite's shard's
    for path in stores:
        merged = merge_store(store, path)
        suites = f", suite{'s' if len(merged.suites) != 1 else ''} {', '.join(merged.suites)}" if merged.suites else ""
        say(f"merged {path}: {merged.runs} runs, {merged.outcomes} suite entries{suites}")
        if merged.kept_runs:
            say(
                f"  kept this store's own {len(merged.kept_runs)} run(s) of the same id with other contents: "
                + ", ".join(merged.kept_runs[:10])
                + (" …" if len(merged.kept_runs) > 10 else "")
            )
        for why in merged.refused[:10]:
            say(f"  left out {why}")
        if len(merged.refused) > 10:
            say(f"  … and {len(merged.refused) - 10} more left out")
    runs = [_read_run(path) for path in args.files if path not in stores]  # every file read before any is stored
    for run in runs:
        store.put(run)
    jobs: dict[str, list[int]] = {}
    for run in runs:
        if run.distributed is None:
            say(f"imported run {run.id} (not part of a distributed job)")
        else:
            jobs.setdefault(run.distributed.job_id, []).append(run.distributed.rank)
    for job_id, ranks in jobs.items():
        ranks = sorted(ranks)
        say(
            f"imported job {job_id}: rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} "
            f"(`{PROG} job {job_id}` shows it)"
        )
    return 0


def cmd_import_trace(args: argparse.Namespace, store: RunStore) -> int:
    from ..digest.trace import skipped_text
    from ..engine.trace.log_import import NoTrace, import_trace

    try:
        # a file the trace names is read only under these roots and the log's own directory (engine/trace/sources.py)
        read = import_trace(args.path, label=args.label or "", source_roots=[os.getcwd(), *args.source_root])
    except NoTrace as exc:
        raise CliError(str(exc)) from None
    runs = put_imported(store, read, label=args.label or "")  # every log was read before any is stored
    for run in runs:
        t = run.imported_trace
        assert t is not None
        if run.id in runs.already and run.id not in runs.updated:
            say(f"run {run.id} was already imported from a log of the same content ({t.path}): not stored again")
            continue
        if run.id in runs.updated:
            say(
                f"run {run.id} was imported before from a log of the same content; read anew with {', '.join(t.files_read)}"
            )
            continue
        rank = f" rank {t.rank}" if t.rank is not None else ""
        torch = f"torch {t.torch_version}" if t.torch_version else "torch release not in the trace"
        counts = [
            (len(t.compile_ids), "compile id"),
            (run.dynamo_graph_count, "Dynamo graph"),
            (len(run.graph_breaks), "graph break"),
            (len(run.recompiles), "recompile"),
        ]
        figures = ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in counts) + f", {kernel_count_text(run)}"
        say(f"imported run {run.id} from {t.path}{rank} ({torch}): {figures}; no timings")
        skipped = skipped_text(t)
        if skipped:
            say(f"  {skipped}")
        if run.errors:
            say(f"  compile failed: {one_line(run.errors[0].message, 200)}")
    job_ids = list(dict.fromkeys(run.distributed.job_id for run in runs if run.distributed is not None))
    for job_id in job_ids:
        ranks = sorted(run.distributed.rank for run in runs if run.distributed and run.distributed.job_id == job_id)
        say(f"imported job {job_id}: ranks {', '.join(map(str, ranks))} (`{PROG} job {job_id}` shows it)")
    return 0


# -- compare -------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace, store: RunStore) -> int:
    a = store.get(validate_run_id(args.id_a))
    b = store.get(validate_run_id(args.id_b))
    comparison = compare(a, b)
    say(json.dumps(to_dict(comparison), indent=2) if args.json else comparison_text(comparison))
    return 0


# -- export ----------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace, store: RunStore) -> int:
    if not args.html and not args.json and not args.perfetto:
        raise CliError("export needs --html OUT, --json OUT and/or --perfetto OUT")
    run_id = validate_run_id(args.id)
    if args.json:  # a whole run file, its artifacts' texts too (compile-profile import FILE reads it)
        data = {**store.get_dict(run_id), "artifact_texts": store.artifact_texts(run_id)}
        write_file(args.json, json.dumps(data, indent=2) + "\n")
        say(f"wrote {args.json}")
    if args.html:
        write_file(args.html, render_report_html(store.get(run_id), lambda sha: store.artifact(run_id, sha)))
        say(f"wrote {args.html}")
    if args.perfetto:
        from .compiles import export_perfetto

        write_file(args.perfetto, export_perfetto(store.get(run_id)))
        say(f"wrote {args.perfetto} (open it in https://ui.perfetto.dev or chrome://tracing)")
    return 0


def cmd_repro(args: argparse.Namespace, store: RunStore) -> int:
    """The reproducer of the run's failed compile: a standalone script, to stdout or ``-o FILE``."""
    run = store.get(validate_run_id(args.id))
    script = next((e.reproducer for e in run.errors if e.reproducer), "")
    if not script:
        failed = any(e.stage == "compile" for e in run.errors)
        if not failed:
            why = "no compile of it failed"
        elif run.imported_trace is not None:
            why = (
                "its TORCH_TRACE holds no fx_graph_runnable of the failed compile (torch logs one per Inductor compile)"
            )
        else:
            why = "torch logged no graph for Inductor before the compile failed (it failed in Dynamo or AOTAutograd)"
        raise CliError(f"run {run.id} has no reproducer: {why}")
    if args.output:
        write_file(args.output, script)
        say(f"wrote {args.output} (run it with: python {args.output})")
    elif sys.stdout.isatty():  # a reproducer may be imported, someone else's text: its controls shown, not acted on
        say(script.rstrip("\n"))
        if terminal_safe(script) != script:
            say(
                f"(control characters shown as escapes: `{PROG} repro {run.id} -o FILE` writes the script as it is)",
                err=True,
            )
    else:  # a pipe or a file: the script as it is
        sys.stdout.write(script)
    return 0


def register(commands: Any, db_option: Parser) -> None:
    """The store's commands and their options, in the order ``--help`` lists them."""

    ls = commands.add_parser("ls", parents=[db_option], help="list saved runs, newest first")
    ls.add_argument("--notebook", metavar="NB", help="only runs of this notebook (its absolute path)")
    ls.add_argument("--job", metavar="ID", help="only the runs of this distributed job")
    ls.add_argument("--limit", type=int, default=50, metavar="N", help="show at most N runs (default 50)")
    ls.add_argument("--json", action="store_true", help="print the run summaries as JSON")
    ls.set_defaults(handler=cmd_ls)

    show = commands.add_parser("show", parents=[db_option], help="print one run")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="print the whole run as JSON")
    show.add_argument(
        "--compile",
        nargs="?",
        const="",
        metavar="NAME",
        help="its compiles and where they started; with NAME (0/1, 0/1_2 for an attempt) that compile's detail",
    )
    show.add_argument("--artifact", metavar="N", help="with --compile NAME: print its artifact N (or of that name)")
    show.set_defaults(handler=cmd_show)

    rm = commands.add_parser("rm", parents=[db_option], help="delete runs")
    rm.add_argument("ids", nargs="+", metavar="ID")
    rm.set_defaults(handler=cmd_rm)

    compare = commands.add_parser("compare", parents=[db_option], help="what changed from run ID1 to run ID2")
    compare.add_argument("id_a", metavar="ID1")
    compare.add_argument("id_b", metavar="ID2")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    compare.set_defaults(handler=cmd_compare)

    export = commands.add_parser("export", parents=[db_option], help="write a run as an HTML report or JSON")
    export.add_argument("id")
    export.add_argument("--html", metavar="OUT", help="self-contained HTML report")
    export.add_argument("--json", metavar="OUT", help="the run as JSON")
    export.add_argument("--perfetto", metavar="OUT", help="its compiles as a Chrome trace for Perfetto (JSON)")
    export.set_defaults(handler=cmd_export)

    repro = commands.add_parser(
        "repro", parents=[db_option], help="a failed compile's standalone reproducer script, to attach to an issue"
    )
    repro.add_argument("id")
    repro.add_argument("-o", "--output", metavar="FILE", help="write it here (default: print it)")
    repro.set_defaults(handler=cmd_repro)

    job = commands.add_parser(
        "job", parents=[db_option], help="a distributed job's ranks side by side, and where they diverge"
    )
    job.add_argument("id", metavar="ID", help="the job's id, or the id of any of its runs")
    job.add_argument("--html", metavar="OUT", help="also write the job's self-contained HTML report")
    job.add_argument("--json", action="store_true", help="print the job's digest and its runs' summaries as JSON")
    job.add_argument("--perfetto", metavar="OUT", help="also write its ranks' compiles as one Chrome trace (JSON)")
    job.set_defaults(handler=cmd_job)

    imp = commands.add_parser(
        "import",
        parents=[db_option],
        help="add runs saved as JSON (run.to_json(), e.g. one file per rank), or another run store's runs and suites "
        "(a suite's shard run elsewhere), to the store",
    )
    imp.add_argument("files", nargs="+", metavar="FILE")
    imp.set_defaults(handler=cmd_import)

    imp_trace = commands.add_parser(
        "import-trace",
        parents=[db_option],
        help="add runs read from TORCH_TRACE logs (a script's, every rank's of a torchrun job): no timings",
    )
    imp_trace.add_argument("path", metavar="DIR_OR_FILE", help="a TORCH_TRACE directory, or one log (.log, .log.gz)")
    imp_trace.add_argument("--label", metavar="TEXT", help="name the runs (default: the script's name and rank)")
    imp_trace.add_argument(
        "--source-root",
        metavar="DIR",
        action="append",
        default=[],
        help="a directory where the files the trace names may be read (a checkout of the code on this machine; "
        "repeatable): only Python sources under the log's directory, the current directory and these are read, "
        "a path recorded elsewhere matched by its longest tail",
    )
    imp_trace.set_defaults(handler=cmd_import_trace)
