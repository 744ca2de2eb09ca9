"""The suite's JSON shapes, declared once: the records it stores, the digest every view reads, the comparison and the
``--json`` export are the dataclasses of ``records``, ``digest`` and ``compare``; ``json_schema()`` generates
``schema/suite.schema.json`` from them (``make contract``, beside the run's and the digest's schemas), and
``ext/scripts/contract-types.mjs`` the TypeScript the panel reads (``ext/src/generated/suite.ts``).  No shape is
declared twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import serialize
from .compare import SuiteComparison, SuiteExport
from .digest import SuitePage, SuitesPage
from .records import SuiteRecord

SCHEMA_PATH = Path(__file__).parent.parent / "schema" / "suite.schema.json"

# The shapes a reader receives whole; the schema's root is any one of them and its $defs name each.
ROOTS = (SuitePage, SuitesPage, SuiteComparison, SuiteExport, SuiteRecord)


def json_schema() -> dict[str, Any]:
    return serialize.json_schema(
        ROOTS,
        title="compile-profile suite",
        schema_id="https://compile-profile.invalid/schema/suite.schema.json",
    )
