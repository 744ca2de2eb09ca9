"""Runs written by older releases of compile-profile, frozen as they were written, still load, store and render.

Each file under ``frozen_runs/`` was written by ``run.to_json()`` at the commit its name gives (a small MLP
step with a graph break, profiled on CPU) and is never rewritten: a field added since must default, and one
renamed would fail here. Tests read the figures from the raw JSON, not from a loaded run, so a loader that
dropped or renamed a field would not agree with itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.digest import run_digest, summarize
from compile_profile.digest.format import format_ms
from compile_profile.profile_run import ProfileRun
from compile_profile.render.html import render_html
from compile_profile.render.text import render_text
from compile_profile.store import RunStore

FROZEN = sorted((Path(__file__).parent / "frozen_runs").glob("*.json"))


def test_there_are_frozen_runs_from_at_least_two_older_releases():
    assert len(FROZEN) >= 2


@pytest.fixture(params=FROZEN, ids=[p.stem for p in FROZEN])
def frozen(request) -> tuple[dict, ProfileRun]:
    raw = json.loads(request.param.read_text())
    return raw, ProfileRun.from_dict(raw)


def test_a_frozen_run_loads_with_its_figures_as_written(frozen):
    raw, run = frozen
    assert run.id == raw["id"]
    assert run.speedup.value == raw["speedup"]["value"]
    assert [v.name for v in run.variants] == [v["name"] for v in raw["variants"]]
    assert [v.timing.median_ms for v in run.variants] == [v["timing"]["median_ms"] for v in raw["variants"]]
    assert [b.line for b in run.graph_breaks] == [b["line"] for b in raw["graph_breaks"]] == [3]
    assert len(run.kernels) == len(raw["kernels"]) > 0
    assert run.cache.fx_graph_hits == raw["cache"]["fx_graph_hits"]


def test_a_frozen_run_goes_through_the_store_unchanged_and_is_listed(frozen, tmp_path):
    raw, run = frozen
    with RunStore(tmp_path / "runs.sqlite") as store:
        store.put(run)
        assert store.get(run.id, with_artifacts=True).to_dict() == run.to_dict()
        [listed] = store.list()
    assert listed["id"] == raw["id"]
    assert listed == summarize(run)


def test_a_frozen_run_renders_in_every_view_with_its_speedup_and_break(frozen):
    raw, run = frozen
    eager_ms, compiled_ms = (format_ms(v["timing"]["median_ms"]) for v in raw["variants"])
    value = raw["speedup"]["value"]
    speedup = f"{value:.2f}× faster" if value >= 1 else f"{1 / value:.2f}× slower"
    summary = summarize(run)
    assert f"{speedup}: {eager_ms} → {compiled_ms}" in summary["headline"]
    assert [g["line"] for g in summary["graph_breaks"]] == [3]
    assert run_digest(run)["id"] == raw["id"]
    for view in (render_text(run), render_html(run)):
        assert eager_ms in view and compiled_ms in view
        assert "checkpoint" in view
