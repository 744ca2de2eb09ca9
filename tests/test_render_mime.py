"""mime_bundle: what a run displays as in a notebook cell."""

from __future__ import annotations

import json

import pytest
from compile_profile.digest.summary import summarize
from compile_profile.profile_run import ProfileRun
from compile_profile.render.charts import figures
from compile_profile.render.html import render_html
from compile_profile.render.mime import MIME_TYPE, mime_bundle
from compile_profile.render.text import render_text
from render_fixtures import ALL_RUNS, HOSTILE, big_run, cuda_run, hostile_run


@pytest.mark.parametrize("name", sorted(ALL_RUNS))
def test_bundle_holds_text_html_and_the_run_payload(name):
    run = ALL_RUNS[name]()
    bundle = mime_bundle(run)
    assert set(bundle) == {"text/plain", "text/html", MIME_TYPE}
    assert bundle["text/plain"] == render_text(run)
    assert bundle["text/html"] == render_html(run)
    assert bundle[MIME_TYPE] == {
        "version": 1,
        "run_id": run.id,
        "summary": summarize(run),
        "figures": {"variants": figures(run)["variants"]},
    }
    # A kernel's display data must be plain JSON.
    json.dumps(bundle, allow_nan=False)


def test_repr_mimebundle_is_the_bundle():
    run = cuda_run()
    assert run._repr_mimebundle_() == mime_bundle(run)


def test_bundle_of_a_reloaded_run_is_the_same():
    run = cuda_run()
    assert mime_bundle(ProfileRun.from_json(run.to_json())) == mime_bundle(run)


def test_summary_in_the_payload_keeps_the_keys_frontends_read():
    summary = mime_bundle(cuda_run())[MIME_TYPE]["summary"]
    for key in (
        "id",
        "label",
        "headline",
        "variants",
        "speedup",
        "compile_s",
        "graph_break_count",
        "recompile_count",
        "kernel_count",
        "peak_memory",
        "memory_note",
        "correctness",
        "warnings",
        "errors",
    ):
        assert key in summary
    assert summary["speedup"]["value"] == 2.71


def test_hostile_run_bundle_escapes_html_and_figure_text():
    bundle = mime_bundle(hostile_run())
    assert "<script" not in bundle["text/html"].lower() and "<img" not in bundle["text/html"].lower()
    assert HOSTILE not in json.dumps(bundle[MIME_TYPE]["figures"])
    # Plain text shows it as it is: a terminal does not interpret markup.
    assert HOSTILE in bundle["text/plain"]


def test_thousand_kernels_keep_the_bundle_small():
    run = big_run(1000)
    size = len(json.dumps(mime_bundle(run)))
    assert size < 60_000
    assert sum(len(k.source) for k in run.kernels) > 1_000_000  # what a bundle carrying sources would weigh
