"""A live profile's compile detail (issue 35): the structured trace the profile captures in-process gives the same
compile records, artifacts and views as a TORCH_TRACE log does.  ``aot_eager`` where Inductor is not the subject;
one small graph under Inductor for the output code, its provenance and the profiler's kernel events in the Perfetto
export.
"""

from __future__ import annotations

import json

import compile_profile
import pytest
import torch
from compile_profile.digest.compile_detail import compile_detail
from compile_profile.digest.compiles import compile_index, compile_key, frame_text
from compile_profile.digest.format import lines_of
from compile_profile.digest.provenance import groups
from compile_profile.render.perfetto import perfetto_trace
from compile_profile.store import RunStore
from profile_options import FAST

pytestmark = pytest.mark.compiles


def _step(x, w):
    y = torch.relu(x @ w)
    return (y * 2).sum()


def test_a_live_profiles_compile_has_its_dynamo_and_aot_graphs_and_metrics_under_aot_eager(tmp_path):
    x, w = torch.randn(8, 16), torch.randn(16, 16, requires_grad=True)
    run = compile_profile.profile(_step, x, w, backend="aot_eager", quick=True, **FAST)
    kept = [c for c in run.compiles if c.compile_id and c.status != "dropped"]
    assert kept and all(c.variant == run.compiled_variants[0].name for c in kept)
    record = kept[0]
    names = [a.name for a in record.artifacts]
    assert "dynamo_output_graph" in names and "aot_joint_graph" in names
    dynamo = next(g for g in run.graphs if g.kind == "dynamo")
    assert run.artifact_texts[record.artifacts[names.index("dynamo_output_graph")].sha256] == dynamo.code
    detail = compile_detail(run, compile_key(record))
    assert detail is not None and detail.metrics[0].label == "entire frame"
    # the tree starts at the profiled code's first frame, not at the profiler's frames (pytest's, here) above it
    profiled = [f for f in record.stack if f.cell_line is not None]
    assert profiled and record.stack[0].cell_line is None
    assert compile_index(run).sites[0].text == frame_text(profiled[0], lines_of(run))
    with RunStore(tmp_path / "runs.sqlite") as store:  # saved: references in the run, texts in the store
        store.put(run)
        stored = store.get(run.id)
        assert stored.artifact_texts == {} and store.artifact(run.id, record.artifacts[0].sha256) is not None


def test_a_live_profiles_inductor_compile_has_its_output_code_provenance_and_kernel_events():
    x = torch.randn(32, 64)
    w = torch.randn(64, 64)
    run = compile_profile.profile(lambda x, w: torch.relu(x @ w) * 2, x, w, **FAST)
    record = next(c for c in run.compiles if any(a.name == "inductor_output_code" for a in c.artifacts))
    code = next(run.artifact_texts[a.sha256] for a in record.artifacts if a.name == "inductor_output_code")
    assert "def call(" in code and any(k.source and k.source in code for k in run.kernels if k.language == "cpp")
    [prov] = record.provenance
    assert prov.mapped  # the profile turns Inductor's provenance tracking on
    lines = [g for g in groups(run, prov) if g.line is not None and g.output_code]
    assert lines, "a line of the profiled code linked to the output-code lines it generated"
    for g in lines:
        assert all(1 <= n <= len(code.splitlines()) for n in g.output_code)
    trace = json.loads(json.dumps(perfetto_trace(run)))
    kernels = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == 2]
    assert kernels, "the profiler's events of one profiled call beside the compiles"
    variant = run.compiled_variants[0]
    assert variant.kernel_profile is not None and len(kernels) == len(variant.kernel_profile.events)
