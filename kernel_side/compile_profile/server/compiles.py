"""REST handlers of a run's compiles, under ``<base_url>/compile-profile/api/runs/<id>/``: the compile index with the
compile-site tree (``compiles``), one compile's detail (``compile?key=variant:compile_id:attempt``), one artifact's
text by its hash (``artifacts/<sha256>``: loaded when the panel opens it, never inside the run's JSON) and the
compiles as a Chrome trace for Perfetto (``perfetto``, a download).

An artifact is served only to a run that holds it (the store's ``run_artifacts``), as plain text with ``nosniff``:
it is someone else's text (a trace's), shown by the panel as text, never as a page.
"""

from __future__ import annotations

import re

import tornado.web

from ..digest.compile_detail import compile_detail
from ..digest.compiles import compile_index
from ..render.perfetto import perfetto_json
from ..serialize import to_dict
from .base import StoreHandler

_SHA256 = re.compile(r"[0-9a-f]{64}")


class CompilesHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """Every compile of the run and where they started (``digest.compiles.compile_index``)."""
        self.write_json(to_dict(compile_index(self.run(run_id))))


class CompileHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """One compile's detail (``digest.compile_detail``); 404 for a key the run has no compile of."""
        run = self.run(run_id)
        key = self.get_query_argument("key", "")
        detail = compile_detail(run, key)
        if detail is None:
            raise tornado.web.HTTPError(404, reason=f"run {run.id} has no compile {key[:80]!r}")
        self.write_json(to_dict(detail))


class ArtifactHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str, sha256: str) -> None:
        """One artifact's text, as plain text (it is cached by the browser: a hash names one text for good)."""
        run_id = self.checked_id(run_id)
        if not _SHA256.fullmatch(sha256):
            raise tornado.web.HTTPError(400, reason="an artifact is named by its SHA-256: 64 hexadecimal digits")
        text = self.store().artifact(run_id, sha256)
        if text is None:
            raise tornado.web.HTTPError(404, reason=f"run {run_id} holds no artifact {sha256[:12]}")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", "private, max-age=86400, immutable")
        self.finish(text, set_content_type="text/plain; charset=utf-8")


class PerfettoHandler(StoreHandler):
    @tornado.web.authenticated
    def get(self, run_id: str) -> None:
        """The run's compiles (and a live run's kernel events) as Chrome trace JSON, a download for Perfetto."""
        run = self.run(run_id)
        self.set_header("Content-Disposition", f'attachment; filename="compile-profile-{run.id}-perfetto.json"')
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(perfetto_json(run), set_content_type="application/json")
