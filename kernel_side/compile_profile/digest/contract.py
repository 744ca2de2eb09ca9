"""The digest's JSON, declared once: the shapes a reader receives whole (the panel, the card, saved notebooks), and
the schema and TypeScript generated from them.

Each shape is a dataclass declared beside the function that derives it (``summary.RunSummary``,
``job.JobDigest``, ``compare.Comparison`` and every part of them); ``ROOTS`` lists those a reader receives whole,
and ``json_schema()`` walks their fields into ``schema/digest.schema.json``, from which
``ext/scripts/contract-types.mjs`` generates the panel's TypeScript (``ext/src/generated/digest.ts``): ``make
contract`` writes both, and ``make lint`` fails, naming the file, when either is stale.  The JSON is
``serialize.to_dict`` of the dataclass (``summarize``, ``run_digest``, ``job_digest``), so what the digest writes
and what the schema says cannot differ; ``tests/test_digest_contract.py`` validates real digests against the schema.

Required and optional keys: every field is written, and every field is required, except those declared
``field(metadata=ADDED_LATER)``: keys the first digests did not carry, which a card's summary saved in a notebook
by an older release may lack; a view shows nothing in their place.  The schema allows no key a class does not
declare (``additionalProperties: false``), and TypeScript never reads one.

The carriers below wrap what is JSON already (the store keeps each run's summary as JSON; plotly figures are
plotly's own dicts), so the MIME bundle and the server write them as dicts; the tests validate what they write
against these declarations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import serialize
from ..serialize import ADDED_LATER
from .compare import Comparison
from .compile_shapes import CompileDetail, CompileIndex
from .job import JobDigest
from .summary import RunDigest, RunSummary

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "digest.schema.json"


# -- what the server and the MIME bundle carry the digest in ---------------------------------------------


@dataclass
class PlotlyFigure:
    """A plotly figure as JSON (``render.charts``): drawn as it is, so not typed further."""

    data: list[dict[str, Any]]
    layout: dict[str, Any] = field(metadata=ADDED_LATER)
    config: dict[str, Any] = field(metadata=ADDED_LATER)


@dataclass
class RunMimeData:
    """The data of an ``application/vnd.compile-profile.run+json`` output (``render.mime.run_payload``)."""

    version: int
    run_id: str
    summary: RunSummary
    figures: dict[str, PlotlyFigure] = field(metadata=ADDED_LATER)
    # absent where the profile wrote nothing to stderr (the magic's card folds them)
    logs: list[str] = field(metadata=ADDED_LATER)  # the lines the profile wrote to stderr, a repeated line once
    logs_text: str = field(metadata=ADDED_LATER)  # the fold's heading: how many lines, how many different


@dataclass
class RunsPage:
    """GET runs: a page of the store's summaries, how many there are, and the store's change token."""

    runs: list[RunSummary]
    total: int
    token: int
    # run id -> how long ago it was profiled (``format.age_text``), worded as the page is served: a summary is
    # cached, its age is not
    ages: dict[str, str] = field(metadata=ADDED_LATER)


@dataclass
class JobPage:
    """GET jobs/<job_id>: the job's digest and its runs' summaries, in rank order."""

    job: JobDigest
    runs: list[RunSummary]


# The shapes a reader receives whole; the schema's root is any one of them and its $defs name each.
ROOTS = (RunDigest, RunSummary, RunMimeData, RunsPage, Comparison, JobDigest, JobPage, CompileIndex, CompileDetail)


def json_schema() -> dict[str, Any]:
    return serialize.json_schema(
        ROOTS,
        title="compile-profile digest",
        schema_id="https://compile-profile.invalid/schema/digest.schema.json",
        whole=True,
    )


def _schema_files() -> dict[Path, dict[str, Any]]:
    from .. import profile_run
    from ..suites import contract as suite_contract

    return {
        profile_run.SCHEMA_PATH: profile_run.json_schema(),
        SCHEMA_PATH: json_schema(),
        suite_contract.SCHEMA_PATH: suite_contract.json_schema(),
    }


def main(argv: list[str] | None = None) -> int:
    """Write both shipped schemas (the run's and the digest's) from their classes, or with ``--check`` only say
    which is stale, exiting 1: ``make contract`` and ``make lint`` call it (``python -c``, since ``python -m``
    would run this module a second time beside the copy the digest package has imported)."""
    import sys

    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for path, schema in _schema_files().items():
        text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)}; regenerate with `make contract`", file=sys.stderr)
        return 1
    return 0
