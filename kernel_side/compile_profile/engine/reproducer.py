"""A failed compile's reproducer (issue 26, item 3): a standalone script that compiles the graph Inductor was given
and fails as the profile's compile did, to attach to a PyTorch issue.

Contract: the script is torch's own ``fx_graph_runnable`` artifact of that compile (the post-AOTAutograd graph as a
module, its inputs' shapes, strides and dtypes, the non-default Dynamo/Inductor/functorch config, run through
``torch._dynamo.repro.after_aot.run_repro``), with a header of the versions it was made with and the failure it
reproduces.  Its inputs are random tensors of the recorded metadata (the cell's values are not in it).  Torch logs
it at the start of each Inductor compile, so a failure in AOTAutograd or Dynamo has none: "" then.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys

import torch

from ..profile_run import ErrorInfo


def versions() -> list[str]:
    """The versions a reproducer was made with, one per line."""
    lines = [f"torch {torch.__version__}", f"python {sys.version.split()[0]}", f"platform {platform.platform()}"]
    if torch.version.cuda:
        lines.append(f"cuda {torch.version.cuda}")
    try:
        lines.append(f"triton {importlib.metadata.version('triton')}")
    except importlib.metadata.PackageNotFoundError:
        pass
    return lines


def reproducer_script(runnable: str, error: ErrorInfo, compile_id: str) -> str:
    """The standalone script: a header (what it reproduces, with what) and torch's runnable."""
    if not runnable.strip():
        return ""
    header = [
        "# A reproducer written by compile-profile: the graph Inductor was given when the compile failed,",
        "# with random inputs of the recorded shapes, strides and dtypes.  Run it with `python THIS_FILE`.",
        f"# compile {compile_id or '?'} of {error.variant or 'the cell'} failed"
        + (f" in stage {error.compile_stage}" if error.compile_stage else "")
        + ":",
        *(f"#   {line}" for line in (error.message or error.type).splitlines()[:3]),
        "# made with:",
        *(f"#   {line}" for line in versions()),
        "",
    ]
    return "\n".join(header) + runnable.lstrip("\n")
