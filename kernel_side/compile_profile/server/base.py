"""What every REST handler of the run store shares (``StoreHandler``): the store opened per request, a run read by its
id (400 for an invalid id, 404 for none, 422 for one that cannot be read), integer query arguments, JSON answers,
and a store's own failure said in words."""

from __future__ import annotations

import json
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler

from ..profile_run import ProfileRun
from ..store import RunNotFound, RunStore, StoreError, UnreadableRun, validate_run_id


class StoreHandler(APIHandler):
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

    def read_run(self, run_id: str) -> tuple[dict[str, Any], ProfileRun]:
        """The run's JSON data as stored and the run checked from it; 404 when there is none, 422 when it cannot
        be read."""
        run_id = self.checked_id(run_id)
        try:
            return self.store().read(run_id)
        except RunNotFound:
            raise tornado.web.HTTPError(404, f"no run {run_id}") from None
        except UnreadableRun as exc:
            raise tornado.web.HTTPError(422, str(exc)) from None

    def run(self, run_id: str) -> ProfileRun:
        return self.read_run(run_id)[1]

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
