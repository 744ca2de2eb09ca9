"""Every way JSON breaks one definition of the shipped digest schema (``schema/digest.schema.json``): what the
tests that hold a payload to its declaration (``digest/contract.py``) call."""

from __future__ import annotations

import json

import jsonschema
from compile_profile.digest.contract import SCHEMA_PATH


def schema_errors(data: object, definition: str) -> list[str]:
    """Each error of ``data``, as JSON carries it, against the shipped schema's ``definition``: ``path: message``."""
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})
    data = json.loads(json.dumps(data))  # tuples become lists, as the server and the MIME bundle send them
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data)]
