"""digest/format.py words every number the views show (the panel shows the digest's words as they are: ext/src formats
no number), here held to a table of inputs and words: the ties and unit boundaries where a careless rounding would
differ (Python rounds an exact tie to the even digit), and a run's age, which the CLI prints and the server words into
each page of runs the panel lists (``RunsPage.ages``)."""

from __future__ import annotations

import datetime as dt

import pytest
from compile_profile.digest import format as fmt

CASES = [
    # format_ms
    ("format_ms", None, "—"),
    ("format_ms", 0, "0 ns"),
    ("format_ms", 1e-07, "0.1 ns"),
    ("format_ms", 0.0004, "400 ns"),
    ("format_ms", 0.000999, "999 ns"),
    ("format_ms", 0.001, "1 µs"),
    ("format_ms", 0.0125, "12.5 µs"),
    ("format_ms", 0.3125, "312 µs"),
    ("format_ms", 0.9995, "1e+03 µs"),
    ("format_ms", 1, "1 ms"),
    ("format_ms", 1.005, "1 ms"),
    ("format_ms", 3.14159, "3.14 ms"),
    ("format_ms", 312.5, "312 ms"),
    ("format_ms", 313.5, "314 ms"),
    ("format_ms", 999.4, "999 ms"),
    ("format_ms", 999.5, "1e+03 ms"),
    ("format_ms", 1000, "1 s"),
    ("format_ms", 1234.5, "1.23 s"),
    ("format_ms", 61234, "61.2 s"),
    ("format_ms", 4.1, "4.1 ms"),
    ("format_ms", 1.8, "1.8 ms"),
    ("format_ms", 12.345, "12.3 ms"),
    ("format_ms", 0.5, "500 µs"),
    ("format_ms", 0.0123, "12.3 µs"),
    ("format_ms", 0.0005, "500 ns"),
    ("format_ms", 100, "100 ms"),
    # format_s
    ("format_s", None, "—"),
    ("format_s", 0.0012, "1.2 ms"),
    ("format_s", 1.5, "1.5 s"),
    ("format_s", 71.2, "71.2 s"),
    ("format_s", 3600, "3.6e+03 s"),
    ("format_s", 12.4, "12.4 s"),
    ("format_s", 0.25, "250 ms"),
    # format_speedup
    ("format_speedup", None, "—"),
    ("format_speedup", 0.5, "0.50×"),
    ("format_speedup", 1, "1.00×"),
    ("format_speedup", 1.005, "1.00×"),
    ("format_speedup", 0.625, "0.62×"),
    ("format_speedup", 1.125, "1.12×"),
    ("format_speedup", 1.375, "1.38×"),
    ("format_speedup", 2.675, "2.67×"),
    ("format_speedup", 9.994, "9.99×"),
    ("format_speedup", 9.996, "10.00×"),
    ("format_speedup", 10, "10.0×"),
    ("format_speedup", 10.25, "10.2×"),
    ("format_speedup", 12.25, "12.2×"),
    ("format_speedup", 12.35, "12.3×"),
    ("format_speedup", 123.45, "123.5×"),
    ("format_speedup", 2.3, "2.30×"),
    ("format_speedup", 0.95, "0.95×"),
    ("format_speedup", 12.34, "12.3×"),
    # format_bytes
    ("format_bytes", None, "not measured"),
    ("format_bytes", 0, "0 B"),
    ("format_bytes", 512, "512 B"),
    ("format_bytes", 1023, "1023 B"),
    ("format_bytes", 1024, "1.0 KiB"),
    ("format_bytes", 1280, "1.2 KiB"),
    ("format_bytes", 1536, "1.5 KiB"),
    ("format_bytes", 2304, "2.2 KiB"),
    ("format_bytes", 1310720, "1.2 MiB"),
    ("format_bytes", 3221225472, "3.0 GiB"),
    ("format_bytes", 1099511627776, "1024.0 GiB"),
    ("format_bytes", 25165824, "24.0 MiB"),
    ("format_bytes", 3298534883328, "3072.0 GiB"),
    # format_gbps
    ("format_gbps", None, "—"),
    ("format_gbps", 0.5, "0.5 GB/s"),
    ("format_gbps", 612.4, "612 GB/s"),
    ("format_gbps", 999.5, "1e+03 GB/s"),
    ("format_gbps", 1000, "1 TB/s"),
    ("format_gbps", 1250, "1.25 TB/s"),
    ("format_gbps", 2810, "2.81 TB/s"),
    ("format_gbps", 2810.6, "2.81 TB/s"),
    ("format_gbps", 999.6, "1e+03 GB/s"),
    ("format_gbps", 999.4, "999 GB/s"),
    ("format_gbps", 812.34, "812 GB/s"),
    ("format_gbps", 0.5123, "0.512 GB/s"),
    ("format_gbps", 0, "0 GB/s"),
    ("format_gbps", 123456, "123 TB/s"),
    # format_tflops
    ("format_tflops", None, "—"),
    ("format_tflops", 0.0125, "12.5 GFLOP/s"),
    ("format_tflops", 0.5, "500 GFLOP/s"),
    ("format_tflops", 0.9995, "1e+03 GFLOP/s"),
    ("format_tflops", 1, "1 TFLOP/s"),
    ("format_tflops", 612.45, "612 TFLOP/s"),
    ("format_tflops", 612.4, "612 TFLOP/s"),
    ("format_tflops", 1.0, "1 TFLOP/s"),
    ("format_tflops", 0.5123, "512 GFLOP/s"),
    ("format_tflops", 0.00049, "0.49 GFLOP/s"),
    ("format_tflops", 1500.5, "1.5e+03 TFLOP/s"),
    ("format_tflops", 0, "0 GFLOP/s"),
    # format_share
    ("format_share", None, "—"),
    ("format_share", 0, "0%"),
    ("format_share", 0.0005, "0.05%"),
    ("format_share", 0.004, "0.4%"),
    ("format_share", 0.00995, "1%"),
    ("format_share", 0.01, "1%"),
    ("format_share", 0.125, "12%"),
    ("format_share", 0.46, "46%"),
    ("format_share", 0.995, "100%"),
    ("format_share", 1, "100%"),
    ("format_share", 0.84, "84%"),
    ("format_share", 0.025, "2%"),
    ("format_share", 0.015, "2%"),
    ("format_share", 0.0036, "0.4%"),
    ("format_share", 0.0095, "0.9%"),
    ("format_share", 5e-05, "0.005%"),
    ("format_share", 1e-07, "1e-05%"),
    ("format_share", 0.99999, "100%"),
]


@pytest.mark.parametrize(("name", "given", "expected"), CASES, ids=[f"{n}({g})" for n, g, _ in CASES])
def test_format_words_each_number_as_the_table_says(name, given, expected):
    assert getattr(fmt, name)(given) == expected


def test_the_table_covers_every_number_format_a_view_shows():
    assert {name for name, _, _ in CASES} == {
        "format_ms",
        "format_s",
        "format_speedup",
        "format_bytes",
        "format_gbps",
        "format_tflops",
        "format_share",
    }


NOW = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize(
    ("created_at", "text"),
    [
        ("2026-01-01T12:00:00+00:00", "0 s ago"),
        ("2026-01-01T11:59:30+00:00", "30 s ago"),
        ("2026-01-01T11:59:00+00:00", "1 min ago"),
        ("2026-01-01T11:55:00+00:00", "5 min ago"),
        ("2026-01-01T09:00:00+00:00", "3 h ago"),
        ("2026-01-01T09:00:00", "3 h ago"),  # no zone: UTC, as the run store writes it
        ("2026-01-01T10:00:00+01:00", "3 h ago"),  # another zone: the same moment as 09:00 UTC
        ("2025-12-29T12:00:00+00:00", "3 d ago"),
        ("2025-12-25T12:00:00+00:00", "2025-12-25"),  # a week or more: the date
        ("2026-01-01T13:00:00+00:00", "2026-01-01 13:00"),  # still to come (another clock): the time itself
        ("yesterday", "yesterday"),  # not a time: as it is
        ("", "—"),
    ],
)
def test_a_runs_age_has_one_rule(created_at, text):
    assert fmt.age_text(created_at, NOW) == text
