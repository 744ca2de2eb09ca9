"""The jupyter_server extension: serves the run store over REST to the JupyterLab panel.

Enabled on install by ``jupyter-config/server-config/compile_profile.json``.
"""

from __future__ import annotations

from .handlers import setup_handlers


def _jupyter_server_extension_points():
    return [{"module": "compile_profile.server"}]


def _load_jupyter_server_extension(serverapp) -> None:
    setup_handlers(serverapp.web_app)
    serverapp.log.info("compile-profile: run store API at %scompile-profile/api/", serverapp.base_url)
