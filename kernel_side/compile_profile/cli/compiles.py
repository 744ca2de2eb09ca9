"""The CLI's compile views: ``compile-profile show ID --compile [NAME] [--artifact N]`` and ``compile-profile export ID
--perfetto OUT.json`` (their options are declared with their commands in ``cli.runs``; this module holds what they do).

Contract: each function reads the run from the store, lays out the digest's compile index or one compile's detail
(``render.compile_text``) or writes the Perfetto trace (``render.perfetto``), and returns the text to print; the CLI
prints it through ``terminal_safe`` (an artifact is a trace's text).  A name that matches no compile is a
``LookupError`` that lists the compiles there are.
"""

from __future__ import annotations

from ..digest.compile_detail import compile_detail
from ..digest.compiles import compile_index, compile_key, resolve_compile
from ..profile_run import ProfileRun
from ..render.compile_text import artifact_text, compile_detail_text, compile_index_text
from ..render.perfetto import perfetto_json
from ..store import RunStore

LISTED = 12  # compiles named in the message of a name that matches none


def show_compiles(store: RunStore, run: ProfileRun, name: str, artifact: str | None) -> str:
    """The run's compile index (``name`` ""), one compile's detail, or one of its artifacts' text."""
    if not name:
        if artifact:
            raise LookupError("--artifact needs --compile NAME: the compile whose artifact to print")
        return compile_index_text(compile_index(run))
    record = resolve_compile(run, name)
    if record is None:
        names = [f"{r.compile_id}_{r.attempt}" if r.attempt else r.compile_id for r in run.compiles if r.compile_id]
        more = f", … {len(names) - LISTED} more" if len(names) > LISTED else ""
        listed = ", ".join(names[:LISTED]) + more if names else "none (a run stored before compiles were kept?)"
        raise LookupError(f"run {run.id} has no compile {name!r}; its compiles: {listed}")
    detail = compile_detail(run, compile_key(record))
    assert detail is not None  # the record is the run's
    if artifact is None:
        return compile_detail_text(detail)
    heading, text = artifact_text(
        detail, artifact, lambda sha: run.artifact_texts.get(sha) or store.artifact(run.id, sha)
    )
    return f"# {heading}\n{text.rstrip(chr(10))}"


def export_perfetto(run: ProfileRun) -> str:
    return perfetto_json(run)
