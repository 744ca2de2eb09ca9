"""REST handlers over the run store, under ``<base_url>/compile-profile/api/``.

Every handler is an authenticated ``APIHandler``: the runs hold the user's code,
so they are served only to whoever may run that code in the first place.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from ..store import RunNotFound, RunStore, StoreError, validate_run_id

API_PREFIX = "compile-profile/api"
DEFAULT_PAGE = 50
MAX_PAGE = 1000
# Path segments are matched loosely and checked by validate_run_id, so a hostile
# id gets a clear 400 instead of falling through to the lab's 404 page.
_SEGMENT = r"([^/]+)"


class _StoreHandler(APIHandler):
    """Opens the store named by $COMPILE_PROFILE_DB (or the default) for each request.

    Opening per request keeps the server in step with the path the magic writes to,
    and SQLite connections are cheap to open.
    """

    def store(self) -> RunStore:
        return RunStore(self.settings.get("compile_profile_db"))

    def checked_id(self, run_id: str) -> str:
        try:
            validate_run_id(run_id)
        except ValueError as exc:
            raise tornado.web.HTTPError(400, f"invalid run id: {exc}") from None
        return run_id

    def int_arg(self, name: str, default: int, low: int, high: int) -> int:
        raw = self.get_query_argument(name, None)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise tornado.web.HTTPError(400, f"{name} must be an integer, got {raw!r}") from None
        if not low <= value <= high:
            raise tornado.web.HTTPError(400, f"{name} must be between {low} and {high}, got {value}")
        return value

    def write_json(self, payload: Any) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(payload))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # A StoreError is the store's own failure (corrupt file, newer schema): say what it was.
        exc_info = kwargs.get("exc_info")
        if exc_info and isinstance(exc_info[1], StoreError):
            self.set_status(500)
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"message": f"run store error: {exc_info[1]}", "reason": "store"}))
            return
        super().write_error(status_code, **kwargs)


class RunsHandler(_StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        limit = self.int_arg("limit", DEFAULT_PAGE, 1, MAX_PAGE)
        offset = self.int_arg("offset", 0, 0, 2**31)
        notebook = self.get_query_argument("notebook", None) or None
        store = self.store()
        self.write_json(
            {
                "runs": store.list(limit=limit, offset=offset, notebook=notebook),
                "total": store.count(notebook=notebook),
                "token": store.change_token(),
            }
        )


class RunHandler(_StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """The whole run, and its summary as this version words it (the panel shows the same words as the card)."""
        from ..profile_run import ProfileRun
        from ..render.summary import summarize

        run_id = self.checked_id(run_id)
        try:
            data = self.store().get_dict(run_id)
        except RunNotFound:
            raise tornado.web.HTTPError(404, f"no run {run_id}") from None
        self.write_json({**data, "summary": summarize(ProfileRun.from_dict(data))})

    @tornado.web.authenticated
    def delete(self, run_id: str) -> None:
        run_id = self.checked_id(run_id)
        if not self.store().delete(run_id):
            raise tornado.web.HTTPError(404, f"no run {run_id}")
        self.set_status(204)
        self.finish()


class KernelSourceHandler(_StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str, name: str) -> None:
        run_id = self.checked_id(run_id)
        try:
            self.write_json(self.store().kernel_source(run_id, name))
        except RunNotFound:
            raise tornado.web.HTTPError(404, f"no kernel {name!r} in run {run_id}") from None


class FiguresHandler(_StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        run_id = self.checked_id(run_id)
        if importlib.util.find_spec("compile_profile.render.charts") is None:
            raise tornado.web.HTTPError(501, "this compile-profile has no chart renderer")
        from ..render.charts import figures

        try:
            run = self.store().get(run_id)
        except RunNotFound:
            raise tornado.web.HTTPError(404, f"no run {run_id}") from None
        self.write_json(figures(run))


class ChangesHandler(_StoreHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        self.write_json({"token": self.store().change_token()})


def setup_handlers(web_app) -> None:
    base = url_path_join(web_app.settings["base_url"], API_PREFIX)
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "runs") + "/?", RunsHandler),
            (url_path_join(base, "runs", _SEGMENT) + "/?", RunHandler),
            (url_path_join(base, "runs", _SEGMENT, "kernels", r"(.+)"), KernelSourceHandler),
            (url_path_join(base, "runs", _SEGMENT, "figures") + "/?", FiguresHandler),
            (url_path_join(base, "changes") + "/?", ChangesHandler),
        ],
    )
