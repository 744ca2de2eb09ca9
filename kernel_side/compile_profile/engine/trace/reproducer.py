"""A failed compile's reproducer (issue 26, item 3): a standalone script that compiles the graph Inductor was given
and fails as the profile's compile did, to attach to a PyTorch issue.

Contract: the script is torch's own ``fx_graph_runnable`` artifact of that compile (the post-AOTAutograd graph as a
module, its inputs' shapes, strides and dtypes, the non-default Dynamo/Inductor/functorch config, run through
``torch._dynamo.repro.after_aot.run_repro``), with a header of the versions it was made with and the failure it
reproduces.  Its inputs are random tensors of the recorded metadata (the cell's values are not in it).  Torch logs
it at the start of each Inductor compile, so a failure in AOTAutograd or Dynamo has none: "" then.  A run read from a
TORCH_TRACE takes the failed compile's own ``fx_graph_runnable`` from the log, marked as imported.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys

from ...plain_text import escaped
from ...profile_run import ErrorInfo


def versions() -> list[str]:
    """The versions a reproducer was made with, one per line (torch imported here: a log's import needs none)."""
    import torch

    lines = [f"torch {torch.__version__}", f"python {sys.version.split()[0]}", f"platform {platform.platform()}"]
    if torch.version.cuda:
        lines.append(f"cuda {torch.version.cuda}")
    try:
        lines.append(f"triton {importlib.metadata.version('triton')}")
    except importlib.metadata.PackageNotFoundError:
        pass
    return lines


def reproducer_script(
    runnable: str, error: ErrorInfo, compile_id: str, *, from_trace: str = "", trace_torch: str = ""
) -> str:
    """The standalone script: a header (what it reproduces, with what) and torch's runnable.  ``from_trace``, the
    path of a TORCH_TRACE the runnable was taken from (``import-trace``): then the header says so, and names the torch
    that wrote the trace (``trace_torch``), not this one: compile-profile wrote none of the code."""
    if not runnable.strip():
        return ""
    # text from a trace (its torch, the failure's words) or a path goes on comment lines escaped as one line each: a
    # line break in a trace's torch version had ended the comment and made the rest a statement of the script
    from_trace, trace_torch = escaped(from_trace, one_line=True), escaped(trace_torch, one_line=True)
    if from_trace:
        made = [f"torch {trace_torch}" if trace_torch else "a torch release the trace does not name"]
        origin = [
            f"# A reproducer imported from the TORCH_TRACE {from_trace}: torch's own fx_graph_runnable of the",
            "# failed compile, as that run logged it (compile-profile wrote none of it; read it before running it),",
            "# with random inputs of the recorded shapes, strides and dtypes.  Run it with `python THIS_FILE`.",
        ]
    else:
        made = versions()
        origin = [
            "# A reproducer written by compile-profile: the graph Inductor was given when the compile failed,",
            "# with random inputs of the recorded shapes, strides and dtypes.  Run it with `python THIS_FILE`.",
        ]
    header = [
        *origin,
        f"# compile {escaped(compile_id or '?', one_line=True)}"
        + ("" if from_trace else " of " + escaped(error.variant or "the cell", one_line=True))
        + " failed"
        + (f" in stage {escaped(error.compile_stage, one_line=True)}" if error.compile_stage else "")
        + ":",
        *(f"#   {escaped(line, one_line=True)}" for line in (error.message or error.type).splitlines()[:3]),
        "# made with:" if not from_trace else "# logged by:",
        *(f"#   {line}" for line in made),
        "",
    ]
    return "\n".join(header) + runnable.lstrip("\n")
