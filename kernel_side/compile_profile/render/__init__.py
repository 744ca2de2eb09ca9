"""Views of a ``ProfileRun``: each module lays out what ``compile_profile.digest`` derived, in one format.

``text`` (``str(run)``, the CLI's tables), ``html`` (the cell's static ``text/html``, also the
report's and the widget's summary), ``report`` (one self-contained HTML file), ``charts`` (plotly
figure dicts), ``mime`` (the cell's MIME bundle for the JupyterLab card), ``widget`` (the ipywidgets
explorer), ``highlight`` (Pygments).  No view computes a figure: numbers are worded by
``digest.format`` and sentences by ``digest``, so every view says the same thing.  ``text`` and ``html``
lay out the ``RunDigest`` the panel reads (``digest_text``, ``digest_html``; ``render_text(run)`` is
``digest_text(digest_of(run))``), and the report and the widget lay out the same digest beside the run's
own code and kernels.  Import the module you need; only ``report``, ``charts`` and ``widget`` load plotly
or ipywidgets.
"""
