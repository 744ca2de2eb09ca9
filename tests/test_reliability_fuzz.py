"""%%compile_profile's options, fuzzed: any option string gives a usage message or a run, never a traceback.

The cell compiles nothing (no torch work), so each example costs milliseconds;
what is fuzzed is the path from the option string to torch.compile's settings.
Hand-picked bad options are in test_magic.test_bad_arguments_give_a_usage_message.
"""

from __future__ import annotations

import pytest
from compile_profile.engine.compiler.variants import MODES
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

junk = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
numbers = st.one_of(
    st.integers(min_value=-3, max_value=3).map(str),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
# Mostly plausible values, so that most lines get past argparse to the settings torch.compile checks.
VALUES = {
    "--backend": st.sampled_from(["inductor", "eager", "aot_eager", "compile_profile", "nosuch_backend", "''"]),
    "--mode": st.sampled_from([*MODES, "fastest", "''"]),
    "--options": st.one_of(
        st.sampled_from(
            [
                "max_autotune=true",
                "max_autotune=1",
                "epilogue_fusion=false",
                "triton.cudagraphs=true",
                "bogus_option=1",
                "=1",
                "a=",
                "a==b",
                "freezing=yes",
                "cpp.threads=2",
                "size_asserts=0.5",
            ]
        ),
        st.builds("{}={}".format, junk, junk),
    ),
    "--warmup": numbers,
    "--repeat": numbers,
    "--budget": numbers,
    "-o": st.one_of(st.sampled_from(["fuzz_out", "1abc", "for", "None", "a.b"]), junk),
    "--label": st.one_of(st.sampled_from(["'a b'", '"<script>"', "'", '"', "é"]), junk),
}
FLAGS = ["--dynamic", "--static", "--fullgraph", "--sweep", "--no-store", "--no-check", "--widget"]
NOISE = ["--", "-", "--mode=", "--budget=0", "--options=", "--bogus", ";", "`id`", "$HOME", "\\", "'", '"']
tokens = st.one_of(
    st.sampled_from(sorted(VALUES)).flatmap(lambda name: VALUES[name].map(lambda value: f"{name} {value}")),
    st.sampled_from(sorted(VALUES)).flatmap(lambda name: VALUES[name].map(lambda value: f"{name} {value}")),
    st.sampled_from(FLAGS),
    st.sampled_from(NOISE),
    junk,
)
option_lines = st.lists(tokens, max_size=5).map(" ".join)


@pytest.fixture
def quiet_namespace(ip):
    """Each example may bind -o NAME to anything; put the namespace back afterwards."""
    saved = dict(ip.user_ns)
    yield ip
    ip.user_ns.clear()
    ip.user_ns.update(saved)


@pytest.mark.compiles
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # its size: the profile's (conftest)
@given(line=option_lines)
def test_any_option_string_gives_a_usage_message_or_a_run(quiet_namespace, line):
    ip = quiet_namespace
    with capture_output() as out:
        try:
            returned = ip.run_cell_magic("compile_profile", line, "fuzz_value = 1")
        except UsageError as exc:
            message = str(exc)
            assert message and len(message) < 2000, "a usage message is short"
            assert "Traceback" not in message
            event("usage message")
            return
    event("profiled")
    assert returned is None
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    assert ip.user_ns["fuzz_value"] == 1


@pytest.mark.parametrize(
    "line, message",
    [
        ("--backend nosuch_backend", "nosuch_backend"),
        ("--backend ''", "backend"),
        ("--options bogus_option=1", "bogus_option"),
        ("--options max_autotune=1", "max_autotune"),
        ("--sweep --options triton.cudagraphs=1", "triton.cudagraphs"),
    ],
)
def test_settings_torch_compile_refuses_are_usage_messages(ip, line, message):
    # Found by the fuzzer: these reached torch.compile and came back as its RuntimeError/InvalidBackend.
    with pytest.raises(UsageError, match=message) as info:
        ip.run_cell_magic("compile_profile", line, "fuzz_value = 1")
    assert len(str(info.value)) < 2000, "not torch's list of every Inductor option"
