"""digest/format.py words each number of ``tests/format_golden.json`` as the table says; the jest test
``ext/test/format_golden.test.ts`` holds ext/src/format.ts to the same table, so the two cannot drift apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compile_profile.digest import format as fmt

GOLDEN = {
    k: v for k, v in json.loads((Path(__file__).parent / "format_golden.json").read_text()).items() if k != "_about"
}
CASES = [(name, given, expected) for name, rows in GOLDEN.items() for given, expected in rows]


def test_the_table_covers_every_number_format_the_panel_mirrors():
    assert set(GOLDEN) == {
        "format_ms",
        "format_s",
        "format_speedup",
        "format_bytes",
        "format_gbps",
        "format_tflops",
        "format_share",
    }


@pytest.mark.parametrize(("name", "given", "expected"), CASES, ids=[f"{n}({g})" for n, g, _ in CASES])
def test_format_py_words_the_golden_table(name, given, expected):
    assert getattr(fmt, name)(given) == expected
