"""What ``--bisect`` found, in the words every view shows (``digest.notes.bisection_text``): a failed compile and
results that differ are said apart, each outcome in its own sentence."""

from __future__ import annotations

import pytest
from compile_profile.digest.notes import bisection_text
from compile_profile.profile_run import Bisection


def _found(kind: str, **fields) -> Bisection:
    values = dict(backend="inductor", subsystem="post_grad_passes", bisect_number=3, debug_info="remove_noop_ops")
    values.update(fields)
    return Bisection(variant="inductor/default", outcome="found", kind=kind, runs=9, seconds=4.2, **values)


def test_a_mismatch_found_in_a_pass_says_where_it_starts_differing_and_that_without_it_it_matches_eager():
    text = bisection_text(_found("mismatch"))
    assert text == (
        "bisected (9 runs, 4.2 s): it starts differing in the inductor backend, in Inductor's post-grad graph "
        "passes, at application #4 (remove_noop_ops); with that one left out it matches eager"
    )


def test_a_failure_found_in_a_lowering_says_where_it_starts_failing_and_that_without_it_it_runs():
    text = bisection_text(_found("failure", subsystem="lowerings", bisect_number=1, debug_info="aten.tanh.default"))
    assert "it starts failing in the inductor backend, in Inductor's lowering of ATen ops" in text
    assert text.endswith("with that one left out it runs")


def test_a_config_switch_is_given_as_the_setting_that_avoids_it():
    b = _found("mismatch", subsystem="inductor_fallback_random", switch="torch._inductor.config.fallback_random = True")
    assert bisection_text(b).endswith(
        "it differs in inductor with its default for torch._inductor.config.fallback_random; "
        "it matches eager with torch._inductor.config.fallback_random = True"
    )


def test_a_setting_not_at_its_default_is_named_beside_what_the_bisection_found_unless_it_changes_no_code():
    from compile_profile.profile_run import ConfigSetting

    relu_bug = ConfigSetting("torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY", "'compile_error'", "None")
    caches_off = ConfigSetting("torch.compiler.config.force_disable_caches", "True", "False")
    failure = _found("failure", subsystem="lowerings", bisect_number=0, debug_info="aten.relu.default")
    assert bisection_text(failure, [caches_off]) == bisection_text(failure)
    assert bisection_text(failure, [caches_off, relu_bug]).endswith(
        "with that one left out it runs; not at its default: torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY "
        "= 'compile_error' (default None), which may be the cause"
    )


def test_a_setup_failure_is_not_bisected_and_names_the_setting_that_points_at_no_compiler():
    from compile_profile.profile_run import ConfigSetting

    cxx = ConfigSetting("torch._inductor.config.cpp.cxx", "(None, '/x/c++')", "(None, 'g++')")
    text = bisection_text(Bisection(variant="inductor/default", outcome="setup"), [cxx])
    assert text == (
        "not bisected: no kernel compiles here, so no backend, pass or lowering is to blame (the bisector would only "
        "find the first lowering that makes one), only the setup: torch._inductor.config.cpp.cxx = (None, '/x/c++') "
        "(default (None, 'g++')), not at its default: set it back, or make what it names work"
    )


def test_a_difference_under_the_eager_backend_is_dynamos_capture_not_a_compiler():
    b = Bisection(variant="inductor/default", outcome="backend", kind="mismatch", backend="eager", runs=1, seconds=0.1)
    assert "differs under the eager backend already: Dynamo's capture of the code" in bisection_text(b)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("mismatch", "every backend matched eager, so the difference did not come back"),
        ("failure", "every backend ran, so the failure did not come back"),
    ],
)
def test_what_did_not_come_back_under_the_bisector_is_said_for_its_kind(kind, said):
    b = Bisection(variant="inductor/default", outcome="not_reproduced", kind=kind, runs=4, seconds=2.0)
    assert said in bisection_text(b)


def _offered(**changes) -> str:
    from compile_profile.digest.notes import bisect_offer
    from compile_profile.profile_run import Correctness
    from synthetic_store_runs import make_run

    run = make_run("r1")
    for name, value in changes.items():
        if name == "correctness_ok":
            run.correctness = Correctness(ok=value)
        else:
            setattr(run, name, value)
    return bisect_offer(run)


def test_bisect_is_offered_for_a_compile_failure_an_inductor_backend_may_own_and_for_results_that_differ():
    from compile_profile.profile_run import ErrorInfo

    lowering = ErrorInfo(
        stage="compile", message="RuntimeError: x", variant="inductor", compile_stage="inductor_lowering"
    )
    assert "where its compile starts failing" in _offered(errors=[lowering], status="failed")
    assert "where its results start to differ from eager" in _offered(correctness_ok=False)


def test_bisect_is_not_offered_where_no_kernel_compiles():
    from compile_profile.profile_run import ErrorInfo

    no_compiler = ErrorInfo(
        stage="compile", message="x", variant="inductor", compile_stage="kernel_compile", toolchain="broken"
    )
    assert _offered(errors=[no_compiler], status="failed") == ""


def test_bisect_is_not_offered_where_it_would_find_nothing_or_was_done():
    from compile_profile.profile_run import ErrorInfo

    dynamos = ErrorInfo(stage="compile", message="Unsupported: print", variant="inductor", compile_stage="dynamo")
    assert _offered(errors=[dynamos], status="failed") == ""  # the code's own, which no backend changes
    assert _offered(correctness_ok=True) == ""
    done = Bisection(variant="inductor", outcome="found", kind="mismatch", backend="inductor", subsystem="lowerings")
    assert _offered(correctness_ok=False, bisection=done) == ""
