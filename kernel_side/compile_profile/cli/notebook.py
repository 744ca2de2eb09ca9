"""``compile-profile run NOTEBOOK.ipynb``: execute a notebook in its kernel, save every cell it profiled, tabulate
them, and write their HTML report or JSON.  Exit code 1 where the notebook failed (its error named, the cells
profiled before it kept)."""

from __future__ import annotations

import argparse
import html
import json
import os
import pathlib
import sys
from typing import Any

from ..digest.format import one_line
from ..profile_run import ProfileRun
from ..render.mime import MIME_TYPE as RUN_MIME_TYPE
from ..render.report import plotly_js_holder, render_report_html
from ..render.text import terminal_safe, text_table
from ..store import RunNotFound, RunStore, UnreadableRun, validate_run_id
from ..user_input import seconds_problem
from .text import PROG, CliError, Parser, clip, medians_text, say, speedup_text, write_file


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
            f'<iframe title="report for run {html.escape(run.id)}" '
            f'srcdoc="{html.escape(render_report_html(run, plotly_from_parent=True))}">'
            "</iframe></section>"
        )
    title = html.escape(f"compile-profile: {notebook.name}")
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title>'
        "<style>body{font-family:system-ui,sans-serif;margin:1rem}"
        "iframe{width:100%;height:80vh;border:1px solid #8884}</style></head>"
        # plotly.js before the frames, which run it from here as each loads
        f"<body>{plotly_js_holder()}<h1>{title}</h1>{''.join(sections)}{_FIT_FRAMES}</body></html>\n"
    )


# Each framed report as tall as its page, so the notebook's report reads as one page: at a fixed 80vh each frame
# scrolled on its own and a long cell's text was cut at the frame's edge.  A frame's page grows as plotly draws
# and as a tab opens, so a ResizeObserver follows it; srcdoc frames are this page's origin, so it may.
_FIT_FRAMES = (
    "<script>for(const f of document.querySelectorAll('iframe')){"
    "const fit=()=>{const d=f.contentDocument;if(d&&d.documentElement)"
    "f.style.height=(d.documentElement.scrollHeight+2)+'px'};"
    "const watch=()=>{fit();new ResizeObserver(fit).observe(f.contentDocument.documentElement)};"
    "f.addEventListener('load',watch);"
    "if(f.contentDocument&&f.contentDocument.readyState==='complete')watch()}</script>"
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
        progress.set_postfix_str(terminal_safe(f"cell {cell_index + 1}: {clip(one_line(cell.source), 40)}"))

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
    if args.timeout is not None and (problem := seconds_problem("--timeout", args.timeout)):
        raise CliError(problem)
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
                clip(one_line(summary.get("label") or ""), 28),
                ", ".join(v["name"] for v in summary.get("variants", [])) or "—",
                medians_text(summary) or "—",
                summary.get("list_status") or summary.get("status", "—"),
                speedup_text(summary.get("speedup"), summary.get("outcome")),
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
            say(f"{PROG}: warning: run {run_id} (cell {cell}) {where}", err=True)

    if rows:
        say(
            text_table(
                ["CELL", "RUN", "LABEL", "VARIANTS", "MEDIANS", "STATUS", "SPEEDUP (INTERVAL)", "GRAPHS", "BREAKS"],
                rows,
            )
        )
    else:
        say(f"no profiled cells in {path.name} (no %%compile_profile output)")

    if args.json:
        write_file(args.json, json.dumps({"notebook": str(path), "runs": exported}, indent=2) + "\n")
        say(f"wrote {args.json}")
    if args.html:
        if report_runs:
            write_file(args.html, _notebook_report_html(path, report_runs))
            say(f"wrote {args.html}")
        elif failure is None:
            raise CliError(f"no profiled run to write to {args.html}", 1)
    if failure is not None:
        raise failure
    return 0


def register(commands: Any, db_option: Parser) -> None:
    """``run`` and its options."""
    run = commands.add_parser("run", parents=[db_option], help="execute a notebook and tabulate its profiled cells")
    run.add_argument("notebook", metavar="NOTEBOOK.ipynb")
    run.add_argument("--html", metavar="OUT.html", help="write the profiled runs' HTML report")
    run.add_argument("--json", metavar="OUT.json", help="write the profiled runs as JSON")
    run.add_argument("--timeout", type=int, metavar="S", help="fail a cell that runs longer than S seconds")
    run.add_argument("--kernel", metavar="NAME", help="Jupyter kernel (default: the notebook's)")
    run.set_defaults(handler=cmd_run)
