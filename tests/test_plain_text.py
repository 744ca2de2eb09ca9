"""plain_text: how text from a run, a trace or a user is shown (escapes, one line, a message's first line)."""

from __future__ import annotations

from compile_profile.plain_text import clipped, escaped, escaped_line, first_line

# Dynamo's graph-break message, as torch 2.13 raises it under fullgraph=True for a print
DYNAMO_UNSUPPORTED = """Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str']. Consider using an equivalent alternative function/method to `print`.

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False
"""


def test_a_message_s_first_line_carries_dynamo_s_explanation_and_a_line_that_introduces_the_next():
    assert first_line(DYNAMO_UNSUPPORTED) == (
        "Failed to trace builtin operator: Dynamo does not know how to trace builtin operator `print` with argument "
        "types ['str'] (has_kwargs False)"
    )
    assert first_line("backend='boom' raised:\nRuntimeError: out of widgets") == (
        "backend='boom' raised: RuntimeError: out of widgets"
    )
    assert first_line("\n  plain message  \nmore") == "plain message" and first_line("") == ""


def test_text_shown_on_one_line_escapes_controls_and_breaks_and_is_clipped_to_its_limit():
    assert escaped("a\x1b[2J\u202eb\n") == "a\\x1b[2J\\u202eb\n"
    assert escaped_line("a\nb\u202e", 200) == "a\\x0ab\\u202e"
    assert escaped_line("x" * 500, 200) == "x" * 199 + "…" and clipped("abc", 3) == "abc"


def test_the_engine_words_a_fullgraph_failure_with_what_dynamo_could_not_trace():
    from compile_profile.engine.common.errors import one_line
    from torch._dynamo.exc import Unsupported

    assert one_line(Unsupported(DYNAMO_UNSUPPORTED)).startswith(
        "Unsupported: Failed to trace builtin operator: Dynamo does not know how to trace builtin operator `print`"
    )
