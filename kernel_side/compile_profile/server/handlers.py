"""REST handlers over the run store, under ``<base_url>/compile-profile/api/``: runs, their figures, a
comparison, the change token, a run's self-contained HTML report (``runs/<id>/report``, a download), its compiles and
their artifacts (``server/compiles.py``), a distributed job (``jobs/<id>``: its digest; ``jobs/<id>/report``: its
HTML report), suites over a collection of models (``suites``, ``suites/<id>``: its digest and figures, DELETE removes
it and its runs; ``suites/<id>/report``), and the import of a TORCH_TRACE on the server into the store (``POST
runs/import-trace``, what ``compile-profile import-trace`` does).

An import reads only inside the server's root directory: its path resolves there (no ``..``, no absolute path or
symlink out), so do the logs of a directory and the files a trace names (``engine/trace/sources.py``); a path that
holds nothing to import is answered with one message, whatever the reason, so a refusal says nothing of what lies
outside.  It runs on threads of its own (``IMPORT_WORKERS``), never the server's request threads, within a time
bound (``IMPORT_SECONDS``, or the ``compile_profile_import_seconds`` tornado setting).

Every handler is an authenticated ``APIHandler``: the runs hold the user's code,
so they are served only to whoever may run that code in the first place.

A stored run that cannot be read (``store.UnreadableRun``: not JSON, or a field of the wrong type) is
answered 422 with the store's message, naming the run and the field; the list shows it as unreadable
beside the others.  No request about one run answers 500 because of what that run holds.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tornado.web
from jupyter_server.utils import url_path_join

from ..digest import compare, run_digest, summarize
from ..digest.format import age_text
from ..digest.job import job_digest, job_digest_of
from ..plain_text import escaped_line
from ..profile_run import ProfileRun
from ..render.charts import figures
from ..render.job_report import render_job_report_html
from ..render.report import render_report_html
from ..serialize import parse_json, to_dict
from ..store import RunNotFound, UnreadableRun
from ..user_input import label_problem
from .base import StoreHandler
from .compiles import ArtifactHandler, CompileHandler, CompilesHandler, PerfettoHandler

API_PREFIX = "compile-profile/api"
DEFAULT_PAGE = 50
MAX_PAGE = 1000
# Path segments are matched loosely and checked by validate_run_id, so a hostile
# id gets a clear 400 instead of falling through to the lab's 404 page.
_SEGMENT = r"([^/]+)"

# Imports run here, not on the event loop nor on its default executor, which other handlers share: a log that reads
# slowly (a large job's, a network file system's) holds one of these threads, and the server answers meanwhile.
IMPORT_WORKERS = 2
IMPORT_SECONDS = 300.0  # an import's time bound: a 1 GiB log (TraceLimits.log_bytes) reads in about a minute here
IMPORT_GRACE_S = 5.0  # past the bound, the reader stops itself; a read stuck in the kernel is let go this much later
MAX_PATH = 4096  # Linux's PATH_MAX: no longer path names a file
SHOWN_PATH = 200  # of a refused path, the characters a message quotes (a 150 MB path had come back whole)


_IMPORTS = ThreadPoolExecutor(max_workers=IMPORT_WORKERS, thread_name_prefix="compile-profile-import")


class RunsHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        limit = self.int_arg("limit", DEFAULT_PAGE, 1, MAX_PAGE)
        offset = self.int_arg("offset", 0, 0, 2**31)
        notebook = self.get_query_argument("notebook", None) or None
        store = self.store()
        runs = store.list(limit=limit, offset=offset, notebook=notebook)
        self.write_json(  # a RunsPage (digest.contract), the summaries as the store keeps them: JSON
            {
                "runs": runs,
                "total": store.count(notebook=notebook),
                "token": store.change_token(),
                # each run's age as the CLI words it, now: the summaries are cached, their ages are not
                "ages": {r["id"]: age_text(r.get("created_at", "")) for r in runs},
            }
        )


class RunHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """The whole run, and its digest as this version words it (the panel shows the card's words)."""
        data, run = self.read_run(run_id)
        self.write_json({**data, "summary": run_digest(run)})

    @tornado.web.authenticated
    def delete(self, run_id: str) -> None:
        run_id = self.checked_id(run_id)
        if not self.store().delete(run_id):
            raise tornado.web.HTTPError(404, f"no run {run_id}")
        self.set_status(204)
        self.finish()


class FiguresHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        self.write_json(figures(self.run(run_id)))


class ReportHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """The run's self-contained HTML report (``render.report``: the file ``compile-profile report`` writes), as a
        download: it holds plotly.js and its own script, which the API's policy would not run in a page of the
        server's; saved, it opens from disk like the CLI's file."""
        run = self.run(run_id)
        store = self.store()
        self.set_header("Content-Disposition", f'attachment; filename="compile-profile-{run.id}.html"')
        self.set_header("X-Content-Type-Options", "nosniff")
        report = render_report_html(run, lambda sha: store.artifact(run.id, sha))
        self.finish(report, set_content_type="text/html; charset=utf-8")


class ReproHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """The run's failed compile's reproducer (``engine/trace/reproducer.py``: what ``compile-profile repro`` writes), as
        a download of a Python script; 404 where the run has none."""
        run = self.run(run_id)
        script = next((e.reproducer for e in run.errors if e.reproducer), "")
        if not script:
            raise tornado.web.HTTPError(404, reason="this run has no reproducer")
        self.set_header("Content-Disposition", f'attachment; filename="repro-{run.id}.py"')
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(script, set_content_type="text/x-python; charset=utf-8")


class CompareHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        """``?a=ID&b=ID``: the digest's comparison of run A (before) with run B (after)."""
        ids = [self.get_query_argument(name, "") for name in ("a", "b")]
        if not all(ids):
            raise tornado.web.HTTPError(400, "compare needs two runs: ?a=ID&b=ID")
        a, b = (self.run(run_id) for run_id in ids)
        self.write_json(to_dict(compare(a, b)))


class _JobHandler(StoreHandler):
    def job_runs(self, job_id: str) -> list[ProfileRun]:
        """The job's runs by rank, by its id or the id of any of its runs; 404 when there is none."""
        job_id = self.checked_id(job_id)
        try:
            return self.store().job(job_id)
        except RunNotFound:
            raise tornado.web.HTTPError(
                404, f"no job {job_id}: no run of a distributed job has this job id or run id"
            ) from None
        except UnreadableRun as exc:
            raise tornado.web.HTTPError(422, str(exc)) from None


class JobHandler(_JobHandler):
    @tornado.web.authenticated
    def get(self, job_id: str) -> None:
        """The job's digest (``digest.job``) and each rank's run summary, in rank order."""
        runs = self.job_runs(job_id)
        self.write_json({"job": job_digest(runs), "runs": [summarize(run) for run in runs]})  # a JobPage


# The job report holds no script and loads nothing: on top of the API's policy (default-src 'none', the
# server's frame-ancestors and report-uri) only its inline styles are allowed, so a hostile string that
# escaped the escaping could still run nothing and fetch nothing.
REPORT_CSP = "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


class JobReportHandler(_JobHandler):
    @property
    def content_security_policy(self) -> str:
        return f"{super().content_security_policy}; {REPORT_CSP}"

    @tornado.web.authenticated
    def get(self, job_id: str) -> None:
        """The job's self-contained HTML report (``render.job_report``), served as a page of its own."""
        page = render_job_report_html(job_digest_of(self.job_runs(job_id)))
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(page, set_content_type="text/html; charset=utf-8")


class ImportTraceHandler(StoreHandler):
    @tornado.web.authenticated
    async def post(self) -> None:
        """``{"path": DIR_OR_FILE, "label": TEXT}``: the TORCH_TRACE logs at a path on the server (a directory, every
        log in it, or one ``.log`` / ``.log.gz``; a relative path is under the server's root directory, where the
        file browser starts) read into runs and stored, as ``compile-profile import-trace`` does; answers 201 with
        the new runs' ids (a job's ranks in rank order) and their jobs' ids.  The path, its logs and the files they
        name are read only inside the server's root directory.  A path that holds nothing to import (none there, none
        inside the root, no log, no record, not a regular file, not readable) is answered 400 with one message; a log
        past a cap of ``TraceLimits`` 400 naming the cap; an import past the time bound 503; nothing is stored then."""
        try:  # nested past the recursion limit: a ValueError too; lone surrogates (``"\\ud800"``) as U+FFFD
            body = parse_json(self.request.body or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return self._refuse('the request body must be a JSON object: {"path": "/path/to/trace_dir"}')
        raw, label = body.get("path"), body.get("label", "")
        if not isinstance(raw, str) or not raw.strip():
            return self._refuse(
                "give the path of a TORCH_TRACE directory or log on the server (the DIR of TORCH_TRACE=DIR, "
                "or one of its .log files)"
            )
        if not isinstance(label, str):
            return self._refuse("label must be a string")
        label = label.strip()
        if problem := label_problem("label", label):  # one line of plain text, as a model's name
            return self._refuse(problem)
        from ..engine.trace.log_import import NothingToImport, NoTrace, TraceLimits, import_trace
        from ..store import put_imported

        root = Path(os.path.realpath(Path(self.settings.get("server_root_dir") or os.getcwd()).expanduser()))
        if "\x00" in raw:
            return self._refuse("a path cannot hold a NUL character")
        if len(raw) > MAX_PATH:  # realpath's time grows with the square of a path's parts, on the event loop: an
            # 800 KB "a/a/a/..." held every request to the server for 15 s, a 40 MB one for hours
            return self._refuse(f"a path of {len(raw):,} characters: a path on this server is at most {MAX_PATH:,}")
        requested = Path(raw.strip()).expanduser()
        path = root / requested  # an absolute path stays as it is, and must lie inside the root all the same
        real = Path(os.path.realpath(path))
        nothing = (
            f"nothing to import at {escaped_line(raw.strip(), SHOWN_PATH)}: give a TORCH_TRACE directory or log (*.log, *.log.gz) under the "
            "server's root directory, as a path relative to it"
        )
        if ".." in requested.parts or not (real == root or real.is_relative_to(root)):
            return self._refuse(nothing)
        seconds = float(self.settings.get("compile_profile_import_seconds") or IMPORT_SECONDS)
        limits = TraceLimits(seconds=seconds)

        def read_and_store() -> list[ProfileRun]:
            runs = import_trace(path, label=label, source_roots=[root], limits=limits, within=root)
            with self.store() as store:
                return put_imported(store, runs, label=label)

        future = _IMPORTS.submit(read_and_store)
        try:
            # the reader stops itself at the bound; a read stuck in the kernel (a hung mount) is let go here
            runs = await asyncio.wait_for(asyncio.wrap_future(future), timeout=seconds + IMPORT_GRACE_S)
        except asyncio.TimeoutError:
            future.cancel()  # one still waiting for a thread never starts
            return self._refuse(
                f"importing {escaped_line(raw.strip(), SHOWN_PATH)} took longer than {seconds:g} s, the server's bound",
                503,
            )
        except NothingToImport:
            return self._refuse(nothing)
        except NoTrace as exc:  # a cap exceeded, named; or a log compile-profile could not read
            return self._refuse(str(exc))
        except OSError:
            return self._refuse(nothing)
        self.set_status(201)
        jobs = dict.fromkeys(r.distributed.job_id for r in runs if r.distributed is not None)
        self.write_json({"ids": [r.id for r in runs], "job_ids": list(jobs)})

    def _refuse(self, message: str, status: int = 400) -> None:
        # written here, not raised as an HTTPError: a path's '%' would be read as a format by tornado's log line
        self.set_status(status)
        self.write_json({"message": message, "reason": "import-trace"})


class SuitesHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        """The stored suites, newest first (``suites.digest.SuitesPage``)."""
        from ..suites.http import suites_page

        self.write_json(suites_page(self.store()))


class SuiteHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, suite_id: str) -> None:
        """A suite's digest and its figures (``suites.digest.SuitePage``); 404 when there is none."""
        from ..suites.http import suite_page
        from ..suites.storage import UnreadableSuite

        try:
            self.write_json(suite_page(self.store(), self.checked_id(suite_id)))
        except KeyError:
            raise tornado.web.HTTPError(404, f"no suite {suite_id}") from None
        except UnreadableSuite as exc:  # what it holds, named, as for a run that cannot be read
            raise tornado.web.HTTPError(422, str(exc)) from None

    @tornado.web.authenticated
    def delete(self, suite_id: str) -> None:
        """Remove the suite and the runs its entries stored (one that cannot be read too); 404 when there is none."""
        removed, _ = self.store().delete_suite(self.checked_id(suite_id))
        if not removed:
            raise tornado.web.HTTPError(404, f"no suite {suite_id}")
        self.set_status(204)
        self.finish()


class SuiteCompareHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, suite_id: str, old_id: str) -> None:
        """The stored suite ``old_id`` against this one, as ``suite-compare OLD NEW`` compares them
        (``suites.compare.SuiteComparison``); 404 when either is not stored, 422 when either cannot be read."""
        from ..suites.http import suite_comparison
        from ..suites.storage import UnreadableSuite

        try:
            self.write_json(suite_comparison(self.store(), self.checked_id(old_id), self.checked_id(suite_id)))
        except KeyError as exc:
            raise tornado.web.HTTPError(404, str(exc.args[0]) if exc.args else "no such suite") from None
        except UnreadableSuite as exc:
            raise tornado.web.HTTPError(422, str(exc)) from None


class SuiteReportHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, suite_id: str) -> None:
        """The suite's self-contained HTML report, as a download (it holds plotly.js, as a run's report does)."""
        from ..suites.http import suite_report
        from ..suites.storage import UnreadableSuite

        try:
            page = suite_report(self.store(), self.checked_id(suite_id))
        except KeyError:
            raise tornado.web.HTTPError(404, f"no suite {suite_id}") from None
        except UnreadableSuite as exc:
            raise tornado.web.HTTPError(422, str(exc)) from None
        self.set_header("Content-Disposition", f'attachment; filename="compile-profile-suite-{suite_id}.html"')
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(page, set_content_type="text/html; charset=utf-8")


class ChangesHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        self.write_json({"token": self.store().change_token()})


def setup_handlers(web_app) -> None:
    base = url_path_join(web_app.settings["base_url"], API_PREFIX)
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "runs") + "/?", RunsHandler),
            (url_path_join(base, "compare") + "/?", CompareHandler),
            # before runs/<id>: "import-trace" is no run's id (a run's id is 12 hex digits)
            (url_path_join(base, "runs", "import-trace") + "/?", ImportTraceHandler),
            (url_path_join(base, "runs", _SEGMENT) + "/?", RunHandler),
            (url_path_join(base, "runs", _SEGMENT, "figures") + "/?", FiguresHandler),
            (url_path_join(base, "runs", _SEGMENT, "report") + "/?", ReportHandler),
            (url_path_join(base, "runs", _SEGMENT, "repro") + "/?", ReproHandler),
            (url_path_join(base, "runs", _SEGMENT, "compiles") + "/?", CompilesHandler),
            (url_path_join(base, "runs", _SEGMENT, "compile") + "/?", CompileHandler),
            (url_path_join(base, "runs", _SEGMENT, "artifacts", _SEGMENT) + "/?", ArtifactHandler),
            (url_path_join(base, "runs", _SEGMENT, "perfetto") + "/?", PerfettoHandler),
            (url_path_join(base, "jobs", _SEGMENT) + "/?", JobHandler),
            (url_path_join(base, "jobs", _SEGMENT, "report") + "/?", JobReportHandler),
            (url_path_join(base, "suites") + "/?", SuitesHandler),
            (url_path_join(base, "suites", _SEGMENT) + "/?", SuiteHandler),
            (url_path_join(base, "suites", _SEGMENT, "report") + "/?", SuiteReportHandler),
            (url_path_join(base, "suites", _SEGMENT, "compare", _SEGMENT) + "/?", SuiteCompareHandler),
            (url_path_join(base, "changes") + "/?", ChangesHandler),
        ],
    )
