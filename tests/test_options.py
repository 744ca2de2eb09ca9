"""One table of options: the README's table and the magic's usage come from it, and the Python API
refuses what the magic refuses, with the same message."""

from __future__ import annotations

import re

import compile_profile
import pytest
import torch
from compile_profile.engine.session.options import OptionError, ProfileOptions, markdown_table, usage_line
from conftest import ROOT
from IPython.core.error import UsageError


def test_the_readme_options_table_is_the_generated_one():
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"^\| option \| meaning \|\n(?:\|.*\n)+", readme, flags=re.MULTILINE)
    assert match, "README.md has an options table"
    assert match.group(0).rstrip("\n") == markdown_table(), (
        "README.md's options table differs from engine/session/options.py's OPTION_TABLE; paste the output of "
        "`python -m compile_profile.engine.session.options` into README.md"
    )


def test_the_usage_line_names_every_flag():
    usage = usage_line()
    for flag in ("--mode MODE ...", "--backend NAME", "--dynamic|--static", "--keep NAMES", "-o NAME", "--widget"):
        assert flag in usage


BAD = [
    ("--mode fastest", dict(mode="fastest"), "unknown --mode 'fastest'"),
    ("--sweep --mode max-autotune", dict(sweep=True, mode="max-autotune"), "--sweep chooses the modes itself"),
    ("--warmup -1", dict(warmup=-1), "--warmup must be zero or more"),
    ("--repeat 0", dict(repeat=0), "--repeat must be positive"),
    ("--budget 0", dict(budget=0.0), "--budget must be a positive, finite number of seconds, got 0.0"),
    # inf was taken and stored as null (JSON has no infinity): the run could then not be read back
    ("--budget inf", dict(budget=float("inf")), "--budget must be a positive, finite number of seconds, got inf"),
    ("--budget nan", dict(budget=float("nan")), "--budget must be a positive, finite number of seconds, got nan"),
    ("--budget -5", dict(budget=-5.0), "--budget must be a positive, finite number of seconds, got -5.0"),
    # a label is one line of plain text of at most 200 characters, as a suite's model name (user_input.text_problem)
    ("--label 'a\x1bb'", dict(label="a\x1bb"), "--label 'a\\x1bb': it holds the control character U+001B"),
    ("--label 'a\u202eb'", dict(label="a\u202eb"), "--label 'a\\u202eb': it holds the control character U+202E"),
    ("--label " + "x" * 201, dict(label="x" * 201), "it is 201 characters long, at most 200 (MAX_TEXT)"),
    ("--backend no_such_backend", dict(backend="no_such_backend"), "torch.compile refuses these settings"),
    ("--options no_such_option=1", dict(options={"no_such_option": 1}), "torch.compile refuses these settings"),
]


@pytest.mark.parametrize("line, kwargs, message", BAD, ids=[b[0][:30] for b in BAD])
def test_the_api_and_the_magic_refuse_a_bad_option_with_the_same_message(ip, line, kwargs, message):
    ip.user_ns.update(torch=torch, x=torch.ones(2))
    ip.user_ns.pop("refused", None)
    with pytest.raises(OptionError) as api:
        compile_profile.profile(lambda t: t + 1, torch.ones(2), **kwargs)
    with pytest.raises(UsageError) as magic:
        ip.run_cell_magic("compile_profile", f"{line} --no-store", "refused = x + 1")
    assert message in str(api.value)
    assert str(magic.value).startswith(str(api.value) + "\n\nusage: %%compile_profile")
    assert "refused" not in ip.user_ns, "refused before anything ran"


def test_kept_names_are_checked_by_the_options_for_the_magic_and_profile_cell(ip):
    with pytest.raises(OptionError) as api:
        ProfileOptions(keep=["z", "1x"])
    with pytest.raises(UsageError) as magic:
        ip.run_cell_magic("compile_profile", "--keep 'z,1x' --no-store", "z = 1")
    assert str(api.value) == "--keep takes names the cell assigns, separated by commas, got '1x'"
    assert str(magic.value).startswith(str(api.value))


def test_one_mode_is_one_mode_not_its_letters():
    assert ProfileOptions(modes="max-autotune").modes == ["max-autotune"]
