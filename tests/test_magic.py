"""The %%compile_profile magic in a real IPython shell."""

from __future__ import annotations

import contextlib
import io
import logging
import re

import pytest
import torch
from compile_profile.magic import CellFailed, split_line_magic
from compile_profile.store import RunStore
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output
from profile_options import CHEAP_FLAGS, FAST_FLAGS

# The magic's plumbing is the subject here (its display, store, bindings, output and options), so its cells
# profile under aot_eager with --quick (CHEAP_FLAGS); the one test of an Inductor option keeps Inductor.
MIME = "application/vnd.compile-profile.run+json"


@pytest.fixture
def ns(ip):
    ip.user_ns.update(torch=torch, lin=torch.nn.Linear(4, 4), inp=torch.randn(2, 4))
    return ip.user_ns


@pytest.mark.compiles
def test_cell_magic_displays_the_run_stores_it_and_binds_it(ip, ns, private_run_store):
    with capture_output() as out:
        result = ip.run_cell(
            f"%%compile_profile {CHEAP_FLAGS} -o prof --label 'the demo'\nh = lin(inp)\nprint('printed once')\nh.sum()"
        )
    assert result.error_in_exec is None
    run = ns["prof"]
    assert run.label == "the demo" and run.status == "ok"
    assert run.summary()["first_line"] == "h = lin(inp)"
    assert out.stdout.count("printed once") == 1
    bundles = [o.data for o in out.outputs]
    card = next(b for b in bundles if "application/vnd.compile-profile.run+json" in b)
    assert card["application/vnd.compile-profile.run+json"]["run_id"] == run.id
    assert "text/html" in card and "speedup" in card["text/plain"]
    assert torch.equal(ns["h"], ns["lin"](ns["inp"]))
    assert RunStore(private_run_store).get(run.id).cell_source.startswith("%%compile_profile")
    assert run.graph_breaks[0].line == 3


@pytest.mark.compiles
def test_no_store_keeps_the_store_empty(ip, ns, private_run_store):
    with capture_output():
        ip.run_cell(f"%%compile_profile {CHEAP_FLAGS} --no-store -o prof2\nq = lin(inp)")
    assert ns["prof2"].status == "ok"
    assert RunStore(private_run_store).count() == 0


@pytest.mark.compiles
def test_line_magic_profiles_one_expression(ip, ns):
    with capture_output() as out:
        ip.run_line_magic("compile_profile", f"{CHEAP_FLAGS} --no-store -o prof3 lin(inp).relu()")
    assert ns["prof3"].dynamo_graph_count == 1
    assert any("application/vnd.compile-profile.run+json" in o.data for o in out.outputs)


@pytest.mark.parametrize(
    "line, message",
    [
        ("--mode fastest", "unknown --mode"),
        ("--bogus-flag", "unrecognized arguments"),
        ("-o 1abc", "Python identifier"),
        ("--budget 0", "--budget must be"),
        ("--options max_autotune", "KEY=VALUE"),
        ('--label "unclosed', "could not read the options"),
        ("--sweep --mode max-autotune", "--sweep chooses the modes itself"),
        ("--keep q", "--keep names 'q', which the cell does not assign; it assigns z"),
        ("--keep 'z,1x'", "--keep takes names the cell assigns"),
    ],
)
def test_bad_arguments_give_a_usage_message(ip, ns, line, message):
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("compile_profile", line, "z = lin(inp)")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "the cell body is empty"),  # IPython's own message
        ("\n\n", "the cell has no code to profile: write the code to profile below"),
        ("# only a comment\n", "the cell has no code to profile: write the code to profile below"),
    ],
)
def test_an_empty_cell_is_a_usage_message_not_a_compiler_traceback(ip, ns, body, message):
    ns["untouched"] = 1
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("compile_profile", "--no-store", body)
    assert ns["untouched"] == 1


def test_syntax_error_names_the_cell_line_and_changes_nothing(ip, ns):
    ns["untouched"] = 1
    with capture_output():
        result = ip.run_cell("%%compile_profile --no-store\nuntouched = 2\nbad = (1,\n")
    assert isinstance(result.error_in_exec, CellFailed)
    assert "cell line 3" in result.error_in_exec.report and "bad = (1," in result.error_in_exec.report
    assert ns["untouched"] == 1


@pytest.mark.parametrize("line", ["%time z = lin(inp)", "files = !ls", "lin?"])
def test_ipython_syntax_in_the_body_says_what_it_is(ip, ns, line):
    # issue 21: the body of %%compile_profile reaches Python as written, where a magic read "invalid syntax"
    ns["untouched"] = 1
    with capture_output():
        result = ip.run_cell(f"%%compile_profile --no-store\nuntouched = 2\n{line}\n")
    report = result.error_in_exec.report
    assert "cell line 3" in report and "IPython syntax (%magic, !shell command, obj?) is not Python" in report
    assert "run it in a cell of its own" in report and ns["untouched"] == 1


def test_eager_error_shows_the_cell_traceback(ip, ns):
    with capture_output() as out:
        result = ip.run_cell(
            f"%%compile_profile {CHEAP_FLAGS} --no-store -o failed\nok = 1\nraise RuntimeError('cell failed here')"
        )
    report = result.error_in_exec.report
    assert "RuntimeError: cell failed here" in report and "line 3" in report and "magic.py" not in report
    assert "raise RuntimeError" in out.stdout, "IPython shows the cell's traceback with its code line"
    assert ns["failed"].status == "failed" and ns["failed"].errors[0].line == 3


@pytest.mark.compiles
def test_standalone_backend_compiles_and_records():
    from compile_profile.engine.compiler.backend import register, standalone_graphs

    register()
    before = len(standalone_graphs)
    fn = torch.compile(lambda a: (a * 2).sin(), backend="compile_profile")
    x = torch.randn(5)
    assert torch.allclose(fn(x), (x * 2).sin())
    assert len(standalone_graphs) == before + 1
    assert "sin" in standalone_graphs[-1].code


@pytest.mark.parametrize(
    "line, options, statement",
    [
        ("model(x)", "", "model(x)"),
        ("--mode max-autotune -o r model(x) + 1", "--mode max-autotune -o r", "model(x) + 1"),
        ('--label "a b" --sweep f(x, y="s")', '--label "a b" --sweep', 'f(x, y="s")'),
        ("--fullgraph -- -x", "--fullgraph", "-x"),
    ],
)
def test_split_line_magic(line, options, statement):
    assert split_line_magic(line) == (options, statement)


@pytest.mark.compiles
def test_an_eager_backend_is_not_the_baseline_and_warmup_zero_is_counted(ip, ns):
    ns["counter"] = torch.zeros(1)
    with capture_output():
        ip.run_cell_magic(
            "compile_profile",
            "--backend eager --warmup 0 --repeat 3 --budget 0.1 --no-store -o p_eager",
            "counter.add_(1)\ndoubled = counter * 2",
        )
    run = ns["p_eager"]
    assert [v.name for v in run.variants] == ["eager", "eager/default"]
    assert run.variant("eager").timing is not run.variant("eager/default").timing
    # As docs/reliability.md says: what the cell changes in place ends as after one plain run.
    assert run.cell_runs > 3 and ns["counter"].item() == 1


@pytest.mark.compiles
def test_quoted_option_values_are_unquoted(ip, ns):
    with capture_output():
        ip.run_cell_magic(
            "compile_profile",
            f"{FAST_FLAGS} --quick --no-store -o p_quoted --mode 'default' --options 'epilogue_fusion=False'",
            "z = lin(inp).relu()",
        )
    variant = ns["p_quoted"].variants[1]
    assert variant.options == {"epilogue_fusion": False} and variant.mode == "default"


@pytest.mark.compiles
def test_quick_runs_no_profiler_pass_and_says_so(ip, ns):
    with capture_output():
        ip.run_cell_magic("compile_profile", f"{CHEAP_FLAGS} --no-store -o p_quick", "zq = lin(inp).relu()")
    run = ns["p_quick"]
    assert run.status == "ok" and run.speedup is not None
    assert [n.kind for n in run.notes if n.kind == "quick_profile"] == ["quick_profile"]
    assert all(v.kernel_profile is None for v in run.variants)
    assert run.correctness.note is not None and run.correctness.note.kind == "reference_quick"


@pytest.mark.compiles
def test_keep_leaves_only_the_kept_names_bound(ip, ns):
    ns.pop("hidden", None)
    with capture_output():
        ip.run_cell_magic(
            "compile_profile",
            f"{CHEAP_FLAGS} --no-store -o p_keep --keep shown",
            "hidden = lin(inp)\nshown = hidden.relu()",
        )
    assert "hidden" not in ns and torch.equal(ns["shown"], lin_relu(ns))
    assert ns["p_keep"].kept_names == ["shown"] and ns["p_keep"].temporaries == ["hidden"]


def lin_relu(ns):
    return ns["lin"](ns["inp"]).relu()


@pytest.mark.compiles
def test_the_last_expression_is_the_cells_value_as_in_a_plain_cell(ip, ns):
    with capture_output():
        result = ip.run_cell(f"%%compile_profile {CHEAP_FLAGS} --no-store\nsummed = lin(inp).relu()\nsummed.sum()")
    assert torch.equal(result.result, ns["summed"].sum()), "what IPython shows as Out[n] and keeps in _"
    assert torch.equal(ns["_"], ns["summed"].sum())
    with capture_output():
        quiet = ip.run_cell(f"%%compile_profile {CHEAP_FLAGS} --no-store\nlin(inp).relu().sum();")
    assert quiet.result is None, "a trailing ';' silences it"
    assert torch.equal(
        ip.run_line_magic("compile_profile", f"{CHEAP_FLAGS} --no-store lin(inp).sum()"),
        lin_sum := ns["lin"](ns["inp"]).sum(),
    ), lin_sum


@pytest.mark.compiles
def test_display_and_stderr_of_the_repeated_runs_are_not_shown(ip, ns):
    ns["sys"] = __import__("sys")
    body = "shown = lin(inp).relu()\ndisplay('DISPLAYED')\nprint('to stderr', file=sys.stderr)\n"
    with capture_output() as out:
        ip.run_cell_magic("compile_profile", f"{CHEAP_FLAGS} --no-store -o p_quiet", body)
    displayed = [o for o in out.outputs if o.data.get("text/plain") == "'DISPLAYED'"]
    assert len(displayed) == 1, "shown by the first eager run only"
    run = ns["p_quiet"]
    # The first eager run's stderr shows as a plain run's would; each variant's compiling call printed it
    # again, with torch's own warnings: those lines are the card's, folded, not the cell's stderr.
    assert out.stderr.count("to stderr") == 1, out.stderr
    card = next(o.data for o in out.outputs if MIME in o.data)
    shown = "to stderr" if len(run.compiled_variants) == 1 else f"to stderr  (×{len(run.compiled_variants)})"
    assert shown in card[MIME]["logs"], card[MIME]
    if run.dynamo_graph_count:
        assert run.cell_runs > 10, "and dozens of timed runs showed nothing"
    else:  # torch 2.6 may give up on the frame ("Observed exception" inside IPython's display)
        assert [n.kind for n in run.notes if n.kind != "quick_profile"] == ["nothing_compiled"]
    assert "publish" not in ip.display_pub.__dict__, "the display publisher is as it was"


class _KernelStderr(io.StringIO):
    """A stream whose ``write`` can be replaced on the instance, as ipykernel's OutStream's can."""


@pytest.mark.compiles
def test_what_the_profile_logs_to_stderr_is_folded_in_the_card_and_the_cells_prints_stay(ip, ns):
    """Dynamo's and the profiler's stderr lines once went to the cell's output as red boxes above the card."""
    ns["logging"] = logging
    body = (
        "shown = lin(inp).relu()\n"
        "print('the cell prints')\n"
        "log = logging.getLogger('cp_test_logs'); log.addHandler(log_handler); log.propagate = False\n"
        "log.warning('a library logs at warning level')\n"
    )
    stream = _KernelStderr()
    with contextlib.redirect_stderr(stream), capture_output(stderr=False) as out:
        ns["log_handler"] = logging.StreamHandler()  # it holds the stream, as torch's log handlers hold the kernel's
        ip.run_cell_magic("compile_profile", f"{CHEAP_FLAGS} --no-store -o p_logs", body)
    bundle = next(o.data for o in out.outputs if MIME in o.data)
    payload = bundle[MIME]
    assert out.stdout.count("the cell prints") == 1, "the cell's own print shows as before"
    assert stream.getvalue().count("a library logs") == 1, "the first eager run's stderr shows as a plain run's"
    # every later run's line is in the card, under its count, and not in the cell's stderr
    # Its handler holds the stream, so the timed runs, whose sys.stderr the engine drops, logged too: a line each
    # (they were red boxes above the card); the card lists it once, with how often it came.
    line = next(t for t in payload["logs"] if t.startswith("a library logs at warning level"))
    times = int(re.fullmatch(r"a library logs at warning level  \(×(\d+)\)", line).group(1))
    assert times > ns["p_logs"].cell_runs // 2, (times, ns["p_logs"].cell_runs)
    count = re.match(r"(\d+) lines logged to stderr while profiling, (\d+) different", payload["logs_text"])
    assert count and int(count.group(1)) >= times and int(count.group(2)) == len(payload["logs"]), payload["logs_text"]
    assert (
        '<details class="cp-logs">' in bundle["text/html"] and "a library logs at warning level" in bundle["text/html"]
    )
    assert "write" not in stream.__dict__, "the stream's write is its own again"


PROGRESS = "application/vnd.compile-profile.progress+json"


@pytest.mark.compiles
def test_the_progress_line_says_which_stage_of_how_many_and_carries_its_clock_for_the_renderer(ip, ns):
    with capture_output() as out:
        ip.run_cell_magic("compile_profile", f"{CHEAP_FLAGS} --no-store", "y = lin(inp)")
    lines = [o.data for o in out.outputs if PROGRESS in o.data]
    first = lines[0]
    assert first[PROGRESS]["message"] == "eager: first run", first
    assert (first[PROGRESS]["stage"], first[PROGRESS]["stages"]) == (1, 7)
    assert re.fullmatch(r"compile_profile \[ *\d+\.\d s\] stage 1 of 7: eager: first run", first["text/plain"])
    stages = [line[PROGRESS]["stage"] for line in lines]
    assert stages == sorted(stages) and {1, 2, 3, 4} <= set(stages), stages
    elapsed = [line[PROGRESS]["elapsed_s"] for line in lines]
    assert elapsed == sorted(elapsed), elapsed
    assert len({line[PROGRESS]["started_at"] for line in lines}) == 1, "one clock for the whole profile"
    for line in lines:  # the text other frontends show says the same
        payload = line[PROGRESS]
        assert line["text/plain"].endswith(f"stage {payload['stage']} of 7: {payload['message']}"), line
    cleared = [o.data for o in out.outputs if o.data == {"text/plain": ""}]
    assert len(cleared) == 1, "the line is emptied, renderer and all, when the card comes"
