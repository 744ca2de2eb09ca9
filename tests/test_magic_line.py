"""The ``%%compile_profile`` line the digest builds from a run's options (``digest/magic_line.py``; the panel's Copy
and Re-run show it as it is) reads back, through the magic's own parser, as the options it was built from: for
every option of the magic's option table that a profile takes, at a value other than its default."""

from __future__ import annotations

from dataclasses import fields

import pytest
from compile_profile.digest.magic_line import DEFAULTS, magic_line, options_line, quote_arg, run_options
from compile_profile.digest.summary import run_digest
from compile_profile.engine.session.options import ProfileOptions, all_flags
from compile_profile.magic import CompileProfileMagics
from compile_profile.profile_run import Device, ProfileRun, RunSettings, Variant

# the magic's own flags, which are no option of a profile and no run records: bind the run, don't store it, the widget
MAGICS_OWN = {"output", "store", "widget"}

# a value other than the default for each option a profile takes, as ProfileOptions names it; several where the
# wording differs (a flag and its opposite, quoting)
CASES: list[dict] = [
    {"modes": ["max-autotune"]},
    {"modes": ["default", "reduce-overhead", "max-autotune-no-cudagraphs"]},
    {"backend": "aot_eager"},
    {"dynamic": True},
    {"dynamic": False},
    {"fullgraph": True},
    {"options": {"triton.cudagraphs": False, "max_autotune_gemm_backends": "TRITON,ATEN", "cpp.threads": 2}},
    {"sweep": True},
    {"warmup": 0},
    {"repeat": 7},
    {"budget": 0.25},
    {"budget": 10.0},
    {"quick": True},
    {"bisect": True},
    {"inputs": "xb=batches"},
    {"max_inputs": 5},
    {"keep": ["y", "z"]},
    {"keep": []},  # --keep '': keeps nothing
    {"restore": True},
    {"restore": False},
    {"label": "it's mine"},
    {"label": 'a "quoted" label'},
    {"label": "plain"},
    {"check_correctness": False},
    {  # several at once, in the table's order
        "modes": ["max-autotune"],
        "backend": "aot_eager",
        "dynamic": False,
        "fullgraph": True,
        "repeat": 20,
        "quick": True,
        "keep": ["out"],
        "label": "two words",
        "check_correctness": False,
    },
]

COMPARED = tuple(DEFAULTS)


def parsed(line: str) -> ProfileOptions:
    """``line`` read by the magic's own parser (``magic.py`` ``_parse``), as the cell magic reads its first line."""
    assert line.startswith("%%compile_profile")
    return CompileProfileMagics(shell=None)._parse(line.removeprefix("%%compile_profile").strip()).profile_options


def test_every_option_of_the_table_that_a_profile_takes_has_a_case_and_a_default():
    dests = {flag.dest for flag in all_flags()}
    profile_fields = {f.name for f in fields(ProfileOptions)}
    taken = dests & profile_fields
    assert dests - taken == MAGICS_OWN
    assert {key for case in CASES for key in case} == taken == set(DEFAULTS)
    # the digest imports nothing of the engine, so it names the defaults itself: they are ProfileOptions's
    assert {name: getattr(ProfileOptions(), name) for name in DEFAULTS} == DEFAULTS


@pytest.mark.parametrize("values", CASES, ids=[",".join(case) for case in CASES])
def test_an_options_line_reads_back_as_the_options_it_was_built_from(values):
    line = options_line(values)
    expected = ProfileOptions(**values)
    got = parsed(line)
    assert {name: getattr(got, name) for name in COMPARED} == {name: getattr(expected, name) for name in COMPARED}, line
    for key in values:  # each option is on the line, and none at its default is
        assert line != "%%compile_profile", key


def test_options_at_their_defaults_make_the_bare_line():
    assert options_line({}) == options_line(dict(DEFAULTS)) == "%%compile_profile"


def test_a_value_is_quoted_only_where_the_split_would_cut_it():
    assert quote_arg("max-autotune") == "max-autotune"
    assert quote_arg("TRITON,ATEN") == "TRITON,ATEN"
    assert quote_arg("a b") == "'a b'"
    assert quote_arg("it's") == '"it\'s"'
    assert quote_arg("") == "''"


def _run(cell_source: str, **over) -> ProfileRun:
    compiled = Variant(
        name="aot_eager/max-autotune",
        backend="aot_eager",
        mode="max-autotune",
        dynamic=False,
        fullgraph=True,
        options={"triton.cudagraphs": False},
    )
    run = ProfileRun(
        id="magicline001",
        created_at="2026-12-05T12:00:00+00:00",
        label="two words",
        cell_source=cell_source,
        device=Device(type="cpu", name=""),
        torch_version="2.13.0",
        variants=[Variant(name="eager"), compiled],
        kept_names=["y"],
        temporaries=["x"],
        settings=RunSettings(
            torch_threads=2, interop_threads=2, warmup=1, repeat=20, budget_s=1.5, quick=True, check_correctness=False
        ),
    )
    for key, value in over.items():
        setattr(run, key, value)
    return run


def test_a_run_of_the_python_api_gets_a_line_built_from_what_it_records_and_the_digest_carries_it():
    run = _run("x = torch.randn(8)\ny = x.relu()\n")
    line = magic_line(run)
    assert line == (
        "%%compile_profile --mode max-autotune --backend aot_eager --static --fullgraph "
        "--options triton.cudagraphs=false --warmup 1 --repeat 20 --budget 1.5 --quick --keep y "
        "--label 'two words' --no-check"
    )
    back = parsed(line)
    for name, value in run_options(run).items():
        assert getattr(back, name) == value, name
    assert run_digest(run)["magic_line"] == line  # what the panel's Copy and Re-run put above the code


def test_a_run_of_the_magic_keeps_its_line_as_typed():
    typed = "%%compile_profile --mode max-autotune --repeat 5 -o r --label 'a b'"
    run = _run(f"{typed}\nx = 1\n")
    assert magic_line(run) == typed == run_digest(run)["magic_line"]


def test_a_run_stored_before_its_settings_were_recorded_leaves_them_at_the_defaults():
    run = _run("y = 1\n", settings=None, temporaries=[], label="", variants=[Variant(name="eager")])
    assert magic_line(run) == "%%compile_profile"
