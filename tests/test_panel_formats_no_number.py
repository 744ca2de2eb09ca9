"""The panel lays the digest's words out and formats no number itself (issue 33): every figure a view of ext/src shows
arrives worded from Python (digest/format.py).  The one number it formats is the progress line's clock, which ticks in
the browser between the kernel's messages (progresstext.ts says why)."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "ext" / "src"
FORMATTING = re.compile(r"\.(toFixed|toPrecision|toExponential|toLocaleString)\(|Intl\.NumberFormat")
ALLOWED = {("progresstext.ts", "toFixed")}  # the progress line's clock (a UI clock, not a figure)


def test_no_module_of_the_panel_formats_a_number_but_the_progress_clock():
    found = {
        (path.name, m.group(1) or "Intl.NumberFormat")
        for path in SRC.rglob("*.ts*")
        if "generated" not in path.parts
        for m in FORMATTING.finditer(path.read_text())
    }
    assert found == ALLOWED
    assert not (SRC / "format.ts").exists()
