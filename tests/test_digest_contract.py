"""The digest's JSON Schema (``schema/digest.schema.json``, from ``digest.contract``) describes what the digest
writes, key for key: real digests of the frozen runs and of the render fixtures validate against it, and the
shipped file is the one the digest's dataclasses generate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.digest import compare, run_digest, summarize
from compile_profile.digest.contract import SCHEMA_PATH, json_schema
from compile_profile.digest.job import job_digest
from compile_profile.digest.summary import unreadable_summary
from compile_profile.profile_run import ProfileRun
from compile_profile.render.mime import run_payload
from compile_profile.serialize import to_dict
from digest_schema import schema_errors as _errors
from job_fixtures import add_graphs, job_runs
from render_fixtures import ALL_RUNS, attention_run, slower_and_faster_runs

HERE = Path(__file__).parent
FROZEN = sorted((HERE / "frozen_runs").glob("*.json"))


def _runs() -> dict[str, ProfileRun]:
    runs = {name: make() for name, make in ALL_RUNS.items() if name != "big"}
    runs["big"] = ALL_RUNS["big"](50)
    runs["attention"] = attention_run()
    runs["slower"], runs["faster"] = slower_and_faster_runs()
    runs["ddp_step"] = ProfileRun.from_dict(json.loads((HERE / "ddp_step_run.json").read_text()))
    for path in FROZEN:
        runs[f"frozen {path.stem}"] = ProfileRun.from_dict(json.loads(path.read_text()))
    return runs


RUNS = _runs()


def test_shipped_schema_matches_the_dataclasses():
    assert json.loads(SCHEMA_PATH.read_text()) == json_schema(), (
        "regenerate it: make contract (compile_profile.digest.contract.json_schema())"
    )


@pytest.mark.parametrize("name", list(RUNS))
def test_a_run_digest_validates(name):
    run = RUNS[name]
    assert _errors(run_digest(run), "RunDigest") == []
    assert _errors(summarize(run), "RunSummary") == []


def test_the_fixtures_reach_the_optional_parts_of_the_schema():
    """The digests validated above hold a value in each nullable or optional object, so its type was checked."""
    digests = [run_digest(run) for run in RUNS.values()]
    for key in ("speedup", "correctness", "payback", "distributed", "verdict", "recommendation"):
        assert any(d[key] is not None for d in digests), key
    for key in ("breakdown", "graph_breaks", "ddp_splits", "errors", "guards", "recompiles", "notes"):
        assert any(d[key] for d in digests), key
    for key in ("autotune", "roofline", "cudagraph_skips", "device_peaks", "memory_ratio"):
        assert any(d["measured"][key] for d in digests), key
    assert any(d["lines"]["rows"] for d in digests)


def test_an_unreadable_runs_summary_validates():
    assert _errors(to_dict(unreadable_summary("abc123", "not a run", created_at="2026-12-01")), "RunSummary") == []


def test_a_comparison_validates():
    slower, faster = RUNS["slower"], RUNS["faster"]
    assert _errors(to_dict(compare(slower, faster)), "Comparison") == []
    assert _errors(to_dict(compare(RUNS["cuda"], RUNS["failed"])), "Comparison") == []


def test_a_job_digest_and_its_page_validate():
    runs = job_runs(3)
    add_graphs(runs[1], 2)  # a rank that diverges
    job = job_digest(runs[:2] + runs[2:])
    assert any(row["divergent"] for row in job["rows"])
    assert _errors(job, "JobDigest") == []
    assert _errors({"job": job, "runs": [summarize(r) for r in runs]}, "JobPage") == []


def test_the_mime_data_validates_with_the_logs_and_without():
    assert _errors(run_payload(RUNS["cuda"]), "RunMimeData") == []
    assert _errors(run_payload(RUNS["cuda"], ["a line", "another"], 3), "RunMimeData") == []


def test_a_key_the_contract_does_not_name_or_a_missing_one_is_refused():
    """What makes the test above worth running: JSON with a key the dataclass does not declare, or without a
    required one, fails validation (a key added to a class reaches the schema by ``make contract``)."""
    digest = run_digest(RUNS["cuda"])
    assert _errors({**digest, "new_figure": 1}, "RunDigest") == [
        ": Additional properties are not allowed ('new_figure' was unexpected)"
    ]
    del digest["headline"]
    digest["variants"][0]["median_ms"] = "1 ms"
    assert sorted(_errors(digest, "RunDigest")) == [
        ": 'headline' is a required property",
        "variants.0.median_ms: '1 ms' is not valid under any of the given schemas",
    ]


def test_each_fields_comment_describes_it_inherited_fields_too():
    """The generated TypeScript documents each key with the comment after its field; a field a class inherits keeps
    the comment of the class that declares it."""
    defs = json_schema()["$defs"]
    assert defs["SpeedupSummary"]["properties"]["low"]["description"] == "None: too few samples for an interval"
    digest_key = "DIGEST_VERSION: the store derives an older one's summary again"
    assert defs["RunSummary"]["properties"]["digest"]["description"] == digest_key
    assert defs["RunDigest"]["properties"]["digest"]["description"] == digest_key
    assert "description" not in defs["RunSummary"]["properties"]["id"]


def test_run_digest_extends_run_summary_and_lists_its_fields_too():
    """RunDigest's entry validates alone (it lists RunSummary's fields), and says whom it extends, so the generated
    TypeScript declares ``interface RunDigest extends RunSummary`` with only its own fields."""
    defs = json_schema()["$defs"]
    digest, summary = defs["RunDigest"], defs["RunSummary"]
    assert digest["extends"] == {"$ref": "#/$defs/RunSummary"} and "extends" not in summary
    assert list(digest["properties"])[: len(summary["properties"])] == list(summary["properties"])
    assert set(digest["required"]) == set(summary["required"])  # its own keys were all added later


def test_a_field_added_later_is_optional_and_every_other_is_required():
    """``field(metadata=ADDED_LATER)`` is the one rule: a default does not make a digest key optional."""
    defs = json_schema()["$defs"]
    assert "texts" not in defs["BreakdownRow"]["required"] and "variant" in defs["BreakdownRow"]["required"]
    assert "count" in defs["BreakGroup"]["required"]  # a field with a default, written since the first digest
    assert "note" not in defs["BreakGroup"]["required"]
    assert all(d["additionalProperties"] is False for d in defs.values())
