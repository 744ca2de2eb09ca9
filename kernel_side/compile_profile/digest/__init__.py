"""The digest: every figure and sentence derived from a ``ProfileRun`` that a view shows, derived once.

Layers: ``engine`` measures and writes a ``ProfileRun`` (plain data); the digest derives from it the
headline and its wording, warnings, grouped graph breaks, the correctness sentence, time per cell
line (one rule, ``lines``) and the comparison of two runs (one matching rule, ``compare``); the views
(``render``: text, HTML, report, charts, widget; ``ext/``: card and panel) lay those out, and the
adapters (magic, CLI, server, store) carry them.  A view never computes a figure of its own, so the
card, the text, the report, the widget, the CLI and the panel cannot disagree.

Shapes, declared once: every shape the digest hands a view is a dataclass, declared in the module that derives
it and returned by the function that does (``payback.payback`` → ``payback.Payback``, ``summary.summary_of`` →
``summary.RunSummary``, built of the others).  A field's trailing comment is its description and the class
docstring's first paragraph the class's, in ``schema/digest.schema.json`` and the panel's TypeScript, which
``make contract`` generates from these classes through ``contract.ROOTS`` (the shapes a reader receives whole).
Every field is written, and required, except one declared ``field(metadata=serialize.ADDED_LATER)``: a key
older digests (a card's summary saved in a notebook) lack.  The JSON is ``serialize.to_dict`` of the dataclass,
made where it leaves Python: ``summarize``, ``run_digest`` and ``job.job_digest`` return it, and the server, the
MIME bundle, the store and the CLI's ``--json`` carry it.  To add a figure: a field in its shape, set where
the shape is built, then ``make contract``; a new shape: a dataclass beside its function, as a field of the
shape that carries it (or in ``contract.ROOTS`` when a reader receives it whole).

Modules: ``format`` (numbers and a run's age in words: every number a view shows, the panel's included, is worded
there), ``facts`` (a line's code, cache and kernel counts, kept tensors, a later
run that failed), ``breaks`` (graph breaks grouped, whose they are, their sentences), ``correctness`` (the
correctness sentence), ``noise`` (whether the timings can be read: spread, drift, a busy host, the profiler
pass), ``lines`` (time per cell line, eager's too), ``breakdown`` (where a call's time goes per variant:
library, generated, ATen, copies, outside kernels; the verdict sentence on why compiled is faster or slower),
``payback`` (after how many calls compiling pays for itself), ``guards`` (each Dynamo graph's guards by kind
and value, a recompile's failed guard), ``measured`` (device peaks, memory ratio, max-autotune's choices,
CUDA-graph skips, each kernel's roofline figures), ``recommendation`` (what ``--sweep`` concluded), ``outcome``
(the verdict ladder), ``headline`` (the headline and the warnings), ``magic_line`` (the ``%%compile_profile`` line
a run was profiled by), ``summary`` (``summary_of`` for lists and the card, ``digest_of`` for one run's detail),
``compare`` (two runs), ``job`` and ``job_divergences`` (a distributed job's ranks), and
``contract`` (the roots and the schema).  Nothing here imports a renderer, IPython, plotly or torch.
"""

from .breakdown import BreakdownRow, breakdown, verdict
from .compare import Comparison, compare
from .lines import LineTimes, line_times
from .payback import payback
from .summary import (
    DIGEST_VERSION,
    RunDigest,
    RunSummary,
    digest_of,
    headline,
    run_digest,
    speedup_phrase,
    summarize,
    summary_of,
    warnings,
)

__all__ = [
    "DIGEST_VERSION",
    "BreakdownRow",
    "Comparison",
    "LineTimes",
    "RunDigest",
    "RunSummary",
    "breakdown",
    "compare",
    "digest_of",
    "headline",
    "line_times",
    "payback",
    "run_digest",
    "speedup_phrase",
    "summarize",
    "summary_of",
    "verdict",
    "warnings",
]
