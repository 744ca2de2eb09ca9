"""The JSON Schema shipped in the package documents ProfileRun exactly."""

from __future__ import annotations

import json

import jsonschema
import pytest
from compile_profile.profile_run import SCHEMA_PATH, ProfileRun, json_schema


def test_shipped_schema_matches_the_dataclasses():
    assert json.loads(SCHEMA_PATH.read_text()) == json_schema(), (
        "regenerate schema/profile_run.schema.json from compile_profile.profile_run.json_schema()"
    )


@pytest.mark.compiles
def test_a_real_run_validates_and_round_trips(ip):
    import torch

    ip.user_ns.update(torch=torch, t=torch.randn(3, 3))
    from profile_options import FAST_FLAGS

    # Inductor with every pass, so that every part of the run the schema declares is filled
    ip.run_cell(f"%%compile_profile {FAST_FLAGS} --no-store -o schema_run\nu = (t @ t).tanh()")
    run = ip.user_ns["schema_run"]
    data = json.loads(run.to_json())
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    assert ProfileRun.from_dict(data).to_dict() == data


def test_newer_schema_is_refused_with_a_message():
    import pytest

    with pytest.raises(ValueError, match="newer compile-profile"):
        ProfileRun.from_dict({"schema_version": 999})
