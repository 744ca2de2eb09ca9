"""The digest: every figure and sentence derived from a ``ProfileRun`` that a view shows, derived once.

Layers: ``engine`` measures and writes a ``ProfileRun`` (plain data); the digest derives from it the
headline and its wording, warnings, grouped graph breaks, the correctness sentence, time per cell
line (one rule, ``lines``) and the comparison of two runs (one matching rule, ``compare``); the views
(``render``: text, HTML, report, charts, widget; ``ext/``: card and panel) lay those out, and the
adapters (magic, CLI, server, store) carry them.  A view never computes a figure of its own, so the
card, the text, the report, the widget, the CLI and the panel cannot disagree.

Modules: ``format`` (numbers in words), ``facts`` (break groups, correctness, kept tensors, drift,
kernel counts), ``lines`` (time per cell line, eager's too), ``breakdown`` (where a call's time goes per
variant: library, generated, ATen, copies, outside kernels; the verdict sentence on why compiled is
faster or slower), ``payback`` (after how many calls compiling pays for itself), ``guards`` (each Dynamo graph's guards by kind
and value, a recompile's failed guard), ``measured`` (device peaks, memory ratio, max-autotune's choices,
CUDA-graph skips, each kernel's roofline figures), ``summary`` (headline, warnings, ``summarize`` for
lists and the card, ``run_digest`` for one run's detail), ``compare`` (two runs), ``contract`` (the JSON
they return, as TypedDicts: ``schema/digest.schema.json`` and the panel's TypeScript types are generated from it).  Nothing here
imports a renderer, IPython, plotly or torch.
"""

from .breakdown import BreakdownRow, breakdown, verdict
from .compare import Comparison, compare
from .lines import LineTimes, line_times
from .payback import payback
from .summary import DIGEST_VERSION, headline, run_digest, speedup_phrase, summarize, warnings

__all__ = [
    "DIGEST_VERSION",
    "BreakdownRow",
    "Comparison",
    "LineTimes",
    "breakdown",
    "compare",
    "headline",
    "line_times",
    "payback",
    "run_digest",
    "speedup_phrase",
    "summarize",
    "verdict",
    "warnings",
]
