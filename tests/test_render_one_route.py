"""One route into the digest (issue 33): the text and HTML views lay out the ``run_digest`` JSON the panel reads.

Each view is rendered twice: from the run (``render_text``, ``render_html``) and from the digest alone, after a
trip through JSON as the REST API serves it and ``serialize.from_dict`` reads it back.  Were a view to read a figure
off the run, or word one itself, that the digest does not carry, the second would fail or differ.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from compile_profile.digest import run_digest
from compile_profile.digest.summary import RunDigest
from compile_profile.profile_run import ProfileRun
from compile_profile.render import html as html_view
from compile_profile.render import text as text_view
from compile_profile.render.html import digest_html, render_html
from compile_profile.render.text import digest_text, render_text
from compile_profile.serialize import from_dict
from render_fixtures import (
    ALL_RUNS,
    attention_run,
    long_tail_run,
    slower_and_faster_runs,
    withheld_passes_run,
)

FROZEN = sorted((Path(__file__).parent / "frozen_runs").glob("*.json"))

# the hostile run puts a string where the schema has a number: from_dict refuses it, as it should
RUNS = {name: make for name, make in ALL_RUNS.items() if name != "hostile"} | {
    "withheld_passes": withheld_passes_run,
    "long_tail": long_tail_run,
    "attention": attention_run,
    "slower": lambda: slower_and_faster_runs()[0],
    "faster": lambda: slower_and_faster_runs()[1],
    **{f"frozen-{p.stem}": (lambda p=p: ProfileRun.from_dict(json.loads(p.read_text()))) for p in FROZEN},
}


def _served(run: ProfileRun) -> RunDigest:
    """The digest as the panel receives it: JSON, read back into its dataclasses."""
    return from_dict(RunDigest, json.loads(json.dumps(run_digest(run))))


@pytest.mark.parametrize("make", list(RUNS.values()), ids=list(RUNS))
def test_the_text_view_says_the_same_from_the_served_digest_alone(make):
    run = make()
    text = render_text(run)
    assert digest_text(_served(run)) == text
    assert len(text.splitlines()) > 3


@pytest.mark.parametrize("make", list(RUNS.values()), ids=list(RUNS))
def test_the_html_view_says_the_same_from_the_served_digest_alone(make):
    run = make()
    assert digest_html(_served(run)) == render_html(run)


@pytest.mark.parametrize("module", [text_view, html_view], ids=["text", "html"])
def test_a_view_reads_the_run_only_to_digest_it(module):
    """The only use of a run in the text and HTML views is handing it to ``digest_of``."""
    tree = ast.parse(Path(module.__file__).read_text())
    reads = [
        f"{node.value.id}.{node.attr} (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "run"
    ]
    assert reads == []
    calls = [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and any(isinstance(a, ast.Name) and a.id == "run" for a in node.args)
    ]
    assert calls == ["digest_of"]
