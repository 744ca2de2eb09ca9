"""``compile-profile``: list, show, compare, export and delete saved runs, show a distributed job across its
ranks, import runs written as JSON or read from TORCH_TRACE logs, and profile a whole notebook.

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
import datetime as dt
import html
import json
import os
import pathlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .digest import compare, contract
from .digest.facts import kernel_count_text
from .digest.format import format_ms, format_speedup_interval, one_line
from .digest.job import job_digest
from .digest.summary import summarize
from .profile_run import ProfileRun
from .render.job_report import render_job_report_html
from .render.job_text import render_job_text
from .render.mime import MIME_TYPE as RUN_MIME_TYPE
from .render.report import render_report_html
from .render.text import comparison_text, render_text, terminal_safe, text_table
from .store import RunNotFound, RunStore, StoreError, UnreadableRun, validate_run_id

PROG = "compile-profile"


class CliError(Exception):
    """A failure reported as one line on stderr, with the exit code it deserves."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print the usage block and exit by itself
        raise CliError(f"{message} (see {self.prog} --help)")


# -- small text helpers ----------------------------------------------------------


def _say(text: str = "", *, err: bool = False) -> None:
    """Print a line (or lines) for the terminal, its control characters escaped (``terminal_safe``)."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _age(created_at: str, now: dt.datetime | None = None) -> str:
    try:
        moment = dt.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return created_at or "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    seconds = ((now or dt.datetime.now(dt.timezone.utc)) - moment).total_seconds()
    if seconds < 0:
        return moment.strftime("%Y-%m-%d %H:%M")
    for limit, unit, size in ((60, "s", 1), (3600, "min", 60), (86400, "h", 3600), (7 * 86400, "d", 86400)):
        if seconds < limit:
            return f"{int(seconds // size)} {unit} ago"
    return moment.strftime("%Y-%m-%d")


def _speedup_text(speedup: contract.SpeedupSummary | None, outcome: contract.Outcome | None = None) -> str:
    """The speedup with its interval and variant, ``(not meaningful)`` beneath a verdict that overrides it."""
    if not speedup:
        return "—"
    interval = format_speedup_interval(speedup["value"], speedup.get("low"), speedup.get("high"))
    meaningless = " (not meaningful)" if outcome is not None and not outcome.get("speedup_meaningful", True) else ""
    return f"{interval} {speedup.get('variant', '')}".rstrip() + meaningless


# a Mapping: a summary (the contract's), or a notebook output's, or {} where the cell's output had none
def _medians_text(summary: Mapping[str, Any]) -> str:
    return ", ".join(f"{v['name']} {format_ms(v.get('median_ms'))}" for v in summary.get("variants", []))


def _device_text(summary: contract.RunSummary) -> str:
    device = summary.get("device") or {}
    return device.get("name") or device.get("type") or "—"


def _write_file(path: str, text: str) -> None:
    try:
        pathlib.Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None


# -- ls, show, rm ------------------------------------------------------------------


def _job_text(summary: contract.RunSummary) -> str:
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
        _say(json.dumps(rows, indent=2))
        return 0
    if not rows:
        where = f" for notebook {args.notebook}" if args.notebook is not None else ""
        where += f" of job {job}" if job is not None else ""
        _say(f"no runs{where} in {store.path}")
        return 0
    table = [
        [
            s["id"],
            _age(s.get("created_at", "")),
            _clip(one_line(s.get("label") or ""), 28),
            _clip(s.get("first_line") or "", 40),
            _clip(_device_text(s), 24),
            # the verdict before the speedup (digest.outcome): "results differ", "ran eagerly", else the status
            s.get("list_status") or s.get("status", ""),
            _speedup_text(s.get("speedup"), s.get("outcome")),
        ]
        for s in rows
    ]
    headers = ["ID", "CREATED", "LABEL", "FIRST LINE", "DEVICE", "STATUS", "SPEEDUP (INTERVAL)"]
    jobs = [_job_text(s) for s in rows]
    if any(jobs):  # a column for the runs of distributed jobs, only when the list has one
        headers.append("RANK/JOB")
        table = [row + [job_text] for row, job_text in zip(table, jobs)]
    _say(text_table(headers, table))
    total = store.count(notebook=args.notebook, job=job)
    if total > len(rows):
        _say(f"({len(rows)} of {total} runs; --limit N shows more)")
    for s in rows:
        if unreadable := s.get("unreadable"):
            _say(
                f"{PROG}: warning: run {s['id']} cannot be read ({unreadable}); `{PROG} rm {s['id']}` removes it",
                err=True,
            )
    return 0


def cmd_show(args: argparse.Namespace, store: RunStore) -> int:
    if args.json:
        _say(json.dumps(store.get_dict(validate_run_id(args.id)), indent=2))
        return 0
    _say(render_text(store.get(validate_run_id(args.id))))
    return 0


def cmd_rm(args: argparse.Namespace, store: RunStore) -> int:
    ids = [validate_run_id(run_id) for run_id in args.ids]  # all checked before anything is deleted
    missing = [run_id for run_id in ids if not store.delete(run_id)]
    for run_id in ids:
        if run_id not in missing:
            _say(f"removed {run_id}")
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
    digest = job_digest(runs)
    if args.html:
        _write_file(args.html, render_job_report_html(digest))
    if args.json:
        _say(json.dumps({"job": digest, "runs": [summarize(run) for run in runs]}, indent=2))
    else:
        _say(render_job_text(digest))
    if args.html:
        _say(f"wrote {args.html}", err=args.json)
    return 0


def _read_run(path: str) -> ProfileRun:
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CliError(f"{path} is not a run's JSON (run.to_json()): not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
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
    runs = [_read_run(path) for path in args.files]  # every file read before any is stored
    for run in runs:
        store.put(run)
    jobs: dict[str, list[int]] = {}
    for run in runs:
        if run.distributed is None:
            _say(f"imported run {run.id} (not part of a distributed job)")
        else:
            jobs.setdefault(run.distributed.job_id, []).append(run.distributed.rank)
    for job_id, ranks in jobs.items():
        ranks = sorted(ranks)
        _say(
            f"imported job {job_id}: rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} "
            f"(`{PROG} job {job_id}` shows it)"
        )
    return 0


def cmd_import_trace(args: argparse.Namespace, store: RunStore) -> int:
    from .digest.trace import skipped_text
    from .engine.trace.log_import import NoTrace, import_and_store

    try:
        # a file the trace names is read only under these roots and the log's own directory (engine/trace/sources.py)
        runs = import_and_store(args.path, store, label=args.label or "", source_roots=[os.getcwd(), *args.source_root])
    except NoTrace as exc:
        raise CliError(str(exc)) from None
    for run in runs:
        t = run.imported_trace
        assert t is not None
        if run.id in runs.already and run.id not in runs.updated:
            _say(f"run {run.id} was already imported from a log of the same content ({t.path}): not stored again")
            continue
        if run.id in runs.updated:
            _say(
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
        _say(f"imported run {run.id} from {t.path}{rank} ({torch}): {figures}; no timings")
        skipped = skipped_text(t)
        if skipped:
            _say(f"  {skipped}")
        if run.errors:
            _say(f"  compile failed: {one_line(run.errors[0].message, 200)}")
    job_ids = list(dict.fromkeys(run.distributed.job_id for run in runs if run.distributed is not None))
    for job_id in job_ids:
        ranks = sorted(run.distributed.rank for run in runs if run.distributed and run.distributed.job_id == job_id)
        _say(f"imported job {job_id}: ranks {', '.join(map(str, ranks))} (`{PROG} job {job_id}` shows it)")
    return 0


# -- compare -------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace, store: RunStore) -> int:
    a = store.get(validate_run_id(args.id_a))
    b = store.get(validate_run_id(args.id_b))
    comparison = compare(a, b)
    _say(json.dumps(comparison.as_dict(), indent=2) if args.json else comparison_text(comparison))
    return 0


# -- export ----------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace, store: RunStore) -> int:
    if not args.html and not args.json:
        raise CliError("export needs --html OUT and/or --json OUT")
    run_id = validate_run_id(args.id)
    if args.json:
        _write_file(args.json, json.dumps(store.get_dict(run_id), indent=2) + "\n")
        _say(f"wrote {args.json}")
    if args.html:
        _write_file(args.html, render_report_html(store.get(run_id)))
        _say(f"wrote {args.html}")
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
        _write_file(args.output, script)
        _say(f"wrote {args.output} (run it with: python {args.output})")
    elif sys.stdout.isatty():  # a reproducer may be imported, someone else's text: its controls shown, not acted on
        _say(script.rstrip("\n"))
        if terminal_safe(script) != script:
            _say(
                f"(control characters shown as escapes: `{PROG} repro {run.id} -o FILE` writes the script as it is)",
                err=True,
            )
    else:  # a pipe or a file: the script as it is
        sys.stdout.write(script)
    return 0


# -- run a notebook -----------------------------------------------------------------------


def _profiled_outputs(nb: Any) -> list[tuple[int, dict[str, Any]]]:
    """(cell number from 1, payload) of every compile-profile output in the notebook, in order."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = output.get("data", {}).get(RUN_MIME_TYPE) if output.get("output_type") != "stream" else None
            if data is None:
                continue
            if isinstance(data, str):  # JSON MIME data stored as text by some writers
                try:
                    data = json.loads(data)
                except json.JSONDecodeError:
                    continue
            if isinstance(data, dict) and isinstance(data.get("run_id"), str):
                found.append((index + 1, data))
    return found


def _notebook_report_html(notebook: pathlib.Path, runs: list[tuple[int, ProfileRun]]) -> str:
    """One run: its report. Several: each report framed in one page (reports are whole documents)."""
    if len(runs) == 1:
        return render_report_html(runs[0][1])
    sections = []
    for cell, run in runs:
        sections.append(
            f"<section><h2>cell {cell}: {html.escape(run.label or run.id)}</h2>"
            f'<iframe title="report for run {html.escape(run.id)}" srcdoc="{html.escape(render_report_html(run))}">'
            "</iframe></section>"
        )
    title = html.escape(f"compile-profile: {notebook.name}")
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:system-ui,sans-serif;margin:1rem}"
        "iframe{width:100%;height:80vh;border:1px solid #8884}</style></head>"
        f"<body><h1>{title}</h1>{''.join(sections)}</body></html>\n"
    )


def _last_line(log: Any) -> str:
    """The last non-empty line the kernel wrote to its log, for the message when it died."""
    log.seek(0)
    lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return one_line(lines[-1], 200) if lines else ""


def _execute_notebook(nb: Any, path: pathlib.Path, store: RunStore, args: argparse.Namespace) -> CliError | None:
    """Run every cell in a fresh kernel, with a progress bar; the first failure is returned, not raised.

    The kernel's own stdout and stderr (its log: a TCP warning at start, a ZMQ traceback when a timed-out cell
    is interrupted and the kernel shut down under it) go to a temporary file, not the terminal, which keeps to
    the progress bar, the table and one error line; the log's last line joins the message when the kernel dies.
    """
    import tempfile

    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient import NotebookClient
    from nbclient.exceptions import CellControlSignal, CellExecutionError, DeadKernelError
    from tqdm import tqdm

    code_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    kernel_name = args.kernel or nb.metadata.get("kernelspec", {}).get("name") or "python3"
    # The kernel learns which notebook it runs and writes its runs into the store this command reads.
    env = {**os.environ, "COMPILE_PROFILE_NOTEBOOK": str(path), "COMPILE_PROFILE_DB": str(store.path)}
    progress = tqdm(total=len(code_cells), desc=path.name, unit="cell", file=sys.stderr, dynamic_ncols=True)
    current = {"number": 0}

    def on_cell_execute(cell: Any, cell_index: int) -> None:
        current["number"] = cell_index + 1
        progress.set_postfix_str(terminal_safe(f"cell {cell_index + 1}: {_clip(one_line(cell.source), 40)}"))

    def on_cell_executed(cell: Any, cell_index: int, execute_reply: Any) -> None:
        progress.update(1)

    client = NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=args.timeout,
        resources={"metadata": {"path": str(path.parent)}},
        on_cell_execute=on_cell_execute,
        on_cell_executed=on_cell_executed,
    )

    def where() -> str:  # the cell running when the error came
        return f"cell {current['number']}"

    try:
        with tempfile.TemporaryFile() as log:
            try:
                client.execute(env=env, stdout=log, stderr=log)
            except DeadKernelError as exc:
                said = _last_line(log)
                return CliError(f"{where()}: the kernel died ({one_line(str(exc))})" + (f": {said}" if said else ""), 1)
    except CellExecutionError as exc:
        return CliError(f"{where()} failed: {exc.ename}: {one_line(str(exc.evalue), 200)}", 1)
    except NoSuchKernel:
        return CliError(f"no Jupyter kernel named {kernel_name!r} (choose one with --kernel)", 2)
    except (TimeoutError, CellControlSignal) as exc:
        return CliError(f"{where()} timed out after {args.timeout} s ({one_line(str(exc))})", 1)
    except RuntimeError as exc:  # e.g. the kernel did not start
        return CliError(f"{where()}: {one_line(str(exc))}", 1)
    finally:
        progress.close()
    return None


def cmd_run(args: argparse.Namespace, store: RunStore) -> int:
    import nbformat

    path = pathlib.Path(args.notebook).expanduser().resolve()
    if not path.is_file():
        raise CliError(f"no notebook at {args.notebook}")
    if args.timeout is not None and args.timeout <= 0:
        raise CliError("--timeout must be a positive number of seconds")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds for a file that is not a notebook
        raise CliError(f"{args.notebook} is not a readable notebook: {one_line(str(exc), 200)}") from None

    failure = _execute_notebook(nb, path, store, args)

    profiled = _profiled_outputs(nb)
    rows, report_runs, exported = [], [], []
    for cell, payload in profiled:
        run_id = payload["run_id"]
        summary = payload.get("summary")
        unreadable = ""
        try:
            run: ProfileRun | None = store.get(validate_run_id(run_id))
        except UnreadableRun as exc:
            run, unreadable = None, exc.reason
        except (RunNotFound, ValueError):
            run = None
        if summary is None and run is not None:
            summary = run.summary()
        summary = summary or {}
        rows.append(
            [
                str(cell),
                run_id,
                _clip(one_line(summary.get("label") or ""), 28),
                ", ".join(v["name"] for v in summary.get("variants", [])) or "—",
                _medians_text(summary) or "—",
                summary.get("list_status") or summary.get("status", "—"),
                _speedup_text(summary.get("speedup"), summary.get("outcome")),
                str(summary.get("graph_count", "—")),
                str(summary.get("graph_break_count", "—")),
            ]
        )
        exported.append(
            {"cell": cell, "run_id": run_id, "summary": summary, "run": run.to_dict() if run is not None else None}
        )
        if run is not None:
            report_runs.append((cell, run))
        else:
            where = f"in {store.path} cannot be read ({unreadable})" if unreadable else f"is not in {store.path}"
            _say(f"{PROG}: warning: run {run_id} (cell {cell}) {where}", err=True)

    if rows:
        _say(
            text_table(
                ["CELL", "RUN", "LABEL", "VARIANTS", "MEDIANS", "STATUS", "SPEEDUP (INTERVAL)", "GRAPHS", "BREAKS"],
                rows,
            )
        )
    else:
        _say(f"no profiled cells in {path.name} (no %%compile_profile output)")

    if args.json:
        _write_file(args.json, json.dumps({"notebook": str(path), "runs": exported}, indent=2) + "\n")
        _say(f"wrote {args.json}")
    if args.html:
        if report_runs:
            _write_file(args.html, _notebook_report_html(path, report_runs))
            _say(f"wrote {args.html}")
        elif failure is None:
            raise CliError(f"no profiled run to write to {args.html}", 1)
    if failure is not None:
        raise failure
    return 0


# -- entry point ------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    # --db is accepted before or after the subcommand; SUPPRESS keeps a later default from erasing it.
    db_option = _Parser(add_help=False)
    db_option.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="run store file (default: $COMPILE_PROFILE_DB, else the Jupyter data dir)",
    )
    parser = _Parser(
        prog=PROG, description="Saved compile-profile runs, and profiling whole notebooks.", parents=[db_option]
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ls = commands.add_parser("ls", parents=[db_option], help="list saved runs, newest first")
    ls.add_argument("--notebook", metavar="NB", help="only runs of this notebook (its absolute path)")
    ls.add_argument("--job", metavar="ID", help="only the runs of this distributed job")
    ls.add_argument("--limit", type=int, default=50, metavar="N", help="show at most N runs (default 50)")
    ls.add_argument("--json", action="store_true", help="print the run summaries as JSON")
    ls.set_defaults(handler=cmd_ls)

    show = commands.add_parser("show", parents=[db_option], help="print one run")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="print the whole run as JSON")
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
    job.set_defaults(handler=cmd_job)

    imp = commands.add_parser(
        "import",
        parents=[db_option],
        help="add runs saved as JSON (run.to_json(), e.g. one file per rank) to the store",
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

    run = commands.add_parser("run", parents=[db_option], help="execute a notebook and tabulate its profiled cells")
    run.add_argument("notebook", metavar="NOTEBOOK.ipynb")
    run.add_argument("--html", metavar="OUT.html", help="write the profiled runs' HTML report")
    run.add_argument("--json", metavar="OUT.json", help="write the profiled runs as JSON")
    run.add_argument("--timeout", type=int, metavar="S", help="fail a cell that runs longer than S seconds")
    run.add_argument("--kernel", metavar="NAME", help="Jupyter kernel (default: the notebook's)")
    run.set_defaults(handler=cmd_run)
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
    _say(f"{PROG}: error: {one_line(message, 400)}", err=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
