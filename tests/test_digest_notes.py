"""The engine records notes as facts (a kind and its values) and the digest words them (``digest.notes``):
every kind has its words, older runs' sentences read as they were written, and the digest imports nothing
from the engine."""

from __future__ import annotations

import ast
import json
import typing
from pathlib import Path

import pytest
from compile_profile.digest import run_digest
from compile_profile.digest.notes import NOTE_WORDS, note_text, run_notes
from compile_profile.profile_run import SCHEMA_VERSION, Note, NoteKind, ProfileRun
from compile_profile.render.text import render_text
from render_fixtures import cpu_run

PACKAGE = Path(__file__).parents[1] / "kernel_side" / "compile_profile"

# one note of each kind with the values the engine records for it, and words its sentence must hold
EXAMPLES: dict[str, tuple[Note, str]] = {
    "text": (Note("text", values={"text": "as an older release wrote it"}), "as an older release wrote it"),
    "already_compiled": (Note("already_compiled", values={"names": ["m", "f"]}), "the cell calls m, f, already"),
    "random_draws_differ": (Note("random_draws_differ"), "random draws differ between runs"),
    "optimizer_changed_by_compile": (Note("optimizer_changed_by_compile"), "compiling changed the optimizer"),
    "nothing_compiled": (Note("nothing_compiled"), "nothing was compiled"),
    "recompiled_during_timing": (
        Note("recompiled_during_timing", variant="inductor/default", values={"graphs": 2}),
        "inductor/default: Dynamo compiled again during the timed runs (2 graph(s))",
    ),
    "recompile_limit": (
        Note(
            "recompile_limit",
            variant="inductor/default",
            values={"compile_id": "0/8", "limit": "recompile_limit (8)", "during_timing": True},
        ),
        "compile 0/8 hit torch._dynamo.config.recompile_limit (8)",
    ),
    "warmup_kept_compiling": (
        Note("warmup_kept_compiling", variant="v", values={"extra_calls": 6, "settled_calls": 3}),
        "v: its warm-up calls kept compiling (recompiles), so it had 6 more before timing, until 3 calls",
    ),
    "state_restored": (Note("state_restored", values={"tensors": 4}), "the cell changes 4 tensor(s) in place"),
    "state_not_compared": (
        Note("state_not_compared", values={"tensors": 9, "bytes": 3 * 2**30}),
        "the 9 tensor(s) the cell changes in place (3.0 GiB) were not compared",
    ),
    "state_put_back": (
        Note(
            "state_put_back",
            values={"tensors": 27, "grads": 6, "containers": 1, "bytes": 4064, "kept_in": "device"},
        ),
        "what the cell changes in place (27 tensor(s), the .grad of 6, 1 list(s), dict(s), object(s) or name(s)) "
        "was put back as its first run left it, as after one plain run",
    ),
    "state_advanced": (
        Note("state_advanced", values={"runs": 628, "reason": "too_large", "bytes": 3 * 2**30, "host_free": 2**30}),
        "holds 628 of its runs, not one as after a plain run: a copy of what its first run changed needs 3.0 GiB, "
        "more than half of the memory free to keep it in (1.0 GiB of host memory free); --restore copies it anyway",
    ),
    "torch_lacks": (
        Note("torch_lacks", values={"torch": "2.6.0", "features": ["provenance", "caller_lines"]}),
        "torch 2.6.0 has no Inductor provenance tracking",
    ),
    "no_post_grad_on_cache_hit": (
        Note("no_post_grad_on_cache_hit", values={"torch": "2.7.1"}),
        "torch 2.7.1 does not log the post-grad graph",
    ),
    "not_saved": (Note("not_saved", values={"why": "disk full"}), "not saved to the run store: disk full"),
    "no_cuda_graph": (
        Note("no_cuda_graph", variant="inductor/reduce-overhead", values={"skips": ["mutated inputs"]}),
        "no kernel ran inside a CUDA graph: Inductor did not use CUDA graphs for this variant (mutated inputs)",
    ),
    "no_graph_region": (Note("no_graph_region", variant="v"), "the profiler saw no compiled-graph region"),
    "nothing_to_compare": (Note("nothing_to_compare"), "no tensors or numbers to compare"),
    "random_ops": (
        Note("random_ops", values={"ops": ["aten.rand", "aten.bernoulli"]}),
        "the cell draws random numbers (aten.bernoulli, aten.rand)",
    ),
    "reference_distributed": (Note("reference_distributed"), "no float64 reference: a step of a distributed job"),
    "reference_changed_state": (Note("reference_changed_state"), "the float64 run changed the notebook's own"),
    "reference_failed": (
        Note("reference_failed", values={"float64": "no bf16 kernel", "float32": "out of memory", "unavailable": ""}),
        "no float64 reference: the code failed on float64 copies (no bf16 kernel), and on float32 copies (out of",
    ),
    "output_differs": (Note("output_differs", values={"eager": "3", "compiled": "4"}), "differs (eager 3, compiled 4)"),
    "output_shape": (
        Note("output_shape", values={"compiled": "torch.float32 [8, 17]", "eager": "torch.float32 [8, 32]"}),
        "compiled gave torch.float32 [8, 17], eager torch.float32 [8, 32]",
    ),
    "output_not_equal": (Note("output_not_equal"), "not equal"),
    "output_non_finite": (Note("output_non_finite"), "non-finite values (NaN/inf)"),
    "output_beyond_spread": (
        Note("output_beyond_spread", values={"rmse": 0.05, "multiplier": 3.0, "spread": 0.012}),
        "RMSE against eager 0.05, more than 3x the 0.012 between two eager runs",
    ),
    "output_beyond_tolerance": (
        Note("output_beyond_tolerance", values={"dtype": "torch.float32", "rtol": 1.3e-6, "atol": 1e-5}),
        "beyond torch.float32 tolerance (rtol 1.3e-06, atol 1e-05)",
    ),
    "output_beyond_reference": (
        Note("output_beyond_reference", values={"rmse": 0.5, "multiplier": 3.0, "eager_rmse": 0.0526}),
        "RMSE against the reference 0.5, more than 3x eager's 0.0526",
    ),
    "eager_changed_value": (
        Note("eager_changed_value", values={"first": "torch.float32 [8, 17]", "then": "torch.float32 [8, 32]"}),
        "eager gave torch.float32 [8, 17], then torch.float32 [8, 32]",
    ),
    "eager_changed_values": (
        Note("eager_changed_values", values={"differ": 3, "of": 8}),
        "eager gave other values on a second run (3 of 8 differ)",
    ),
    "eager_moved": (
        Note("eager_moved", values={"rmse": 0.25, "ratio": 0.5}),
        "eager moved by 0.25 RMSE from one run to the next, 0.5x its RMS",
    ),
    "other_rank_failed": (
        Note("other_rank_failed", values={"ranks": ["1", "3"], "scope": "stage"}),
        "this stage failed on rank 1, 3; every rank stops there, so that none waits in a collective for it",
    ),
    "interrupted": (Note("interrupted"), "interrupted by the user"),
    "dispatcher_left_on": (
        Note("dispatcher_left_on"),
        "left torch's Python dispatcher switched on for this thread (a PyTorch bug",
    ),
    "reference_quick": (Note("reference_quick"), "no float64 reference (--quick): compared with eager only"),
    "reference_quick_needed": (
        Note("reference_quick_needed", values={"outputs": ["logits"]}),
        "--quick runs the reference only where outputs leave eager's dtype tolerance, as logits did",
    ),
    "reference_random": (
        Note("reference_random", values={"ops": ["aten.randn"]}),
        "compiled code draws eager's random numbers (aten.randn: torch._inductor.config.fallback_random is on), so "
        "compared with eager only",
    ),
    "quick_profile": (Note("quick_profile"), "a --quick profile: no kernel profiler pass (no per-kernel or per-line"),
}


def test_every_note_kind_has_its_words_and_an_example_here():
    kinds = set(typing.get_args(NoteKind))
    assert set(NOTE_WORDS) == kinds
    assert set(EXAMPLES) == kinds


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_a_note_is_worded_from_its_values(kind):
    note, words = EXAMPLES[kind]
    assert words in note_text(note)


def test_a_reference_that_could_not_be_copied_says_why():
    note = Note("reference_failed", values={"unavailable": "the copies would take 40.0 GiB"})
    assert note_text(note) == "no float64 reference: the copies would take 40.0 GiB"


def test_a_note_of_a_kind_from_a_newer_release_reads_as_its_kind_and_values():
    note = Note("from_the_future", variant="v", values={"n": 3})  # type: ignore[arg-type]
    assert note_text(note) == "v: from_the_future (n=3)"


def test_a_runs_notes_reach_every_view_in_the_digests_words():
    run = cpu_run()
    run.notes = [EXAMPLES["state_restored"][0], EXAMPLES["nothing_compiled"][0]]
    words = run_notes(run)
    assert run_digest(run)["notes"] == words
    text = render_text(run)
    assert all(f"note: {w}" in text for w in words)


def test_a_schema_1_run_keeps_its_sentences_as_text_notes():
    data = json.loads(cpu_run().to_json())
    data.update(
        schema_version=1,
        notes=["the cell changes 4 tensor(s) in place"],
        memory_note="peak memory is measured on CUDA devices only; this run was on CPU",
        correctness={"ok": None, "note": "no tensors or numbers to compare"},
        recommendation={"variant": "eager", "call": "torch.compile(model)", "reason": "fastest"},
    )
    data["variants"][0]["kernel_profile"] = {"calls": 1, "total_ms": 1.0, "attributed_ms": 1.0, "note": "a; b"}
    data["correctness"]["checks"] = [
        {"path": "y", "dtype": "float32", "ok": False, "reason": "not equal", "changed_between_runs": "eager moved"}
    ]
    before = json.dumps(data)
    run = ProfileRun.from_dict(data)
    assert json.dumps(data) == before  # the caller's data is not changed by the upgrade
    assert run_notes(run) == ["the cell changes 4 tensor(s) in place"]
    assert note_text(run.correctness.note) == "no tensors or numbers to compare"
    assert [note_text(n) for n in run.variants[0].kernel_profile.notes] == ["a; b"]
    (check,) = run.correctness.checks
    assert (note_text(check.why), note_text(check.changed)) == ("not equal", "eager moved")
    assert run.recommendation.call == "torch.compile(model)"
    assert ProfileRun.from_json(run.to_json()).schema_version == SCHEMA_VERSION == 2


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [("." * node.level) + (node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)] + [
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    ]


@pytest.mark.parametrize("module", sorted((PACKAGE / "digest").glob("*.py")), ids=lambda p: p.name)
def test_the_digest_imports_nothing_from_the_engine(module):
    assert not [name for name in _imports(module) if "engine" in name.split(".")]
