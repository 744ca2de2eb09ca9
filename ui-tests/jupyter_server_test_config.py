"""JupyterLab for the UI tests: Galata's test settings on a port and store of our own."""

import os

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 (c is the config object Jupyter passes in)

c.ServerApp.port = int(os.environ.get("CP_UI_PORT", "8899"))  # noqa: F821 (leave 8888 to `make lab`)
c.ServerApp.allow_root = True  # noqa: F821 (CI runs as root)
c.LabApp.news_url = None  # noqa: F821 (no network here)
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"  # noqa: F821
# Playwright echoes the server's log into the test report: keep it to errors.
c.ServerApp.log_level = "ERROR"  # noqa: F821
