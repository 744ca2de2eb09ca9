"""digest.guards: a graph's guards grouped by kind and value with their cell lines; a recompile's failed guard."""

from __future__ import annotations

from compile_profile.digest.guards import (
    FLOAT_LR_HINT,
    VALUE_GUARD_LEAD,
    change_text,
    failed_guard_text,
    float_lr_hint,
    friendly_source,
    graph_guards,
    group_text,
    kinds_text,
    value_guard_text,
    value_guard_warnings,
)
from compile_profile.profile_run import Graph, Guard, Recompile
from render_fixtures import cpu_run


def test_guards_group_by_kind_and_value_tensor_checks_first():
    graph = Graph(
        id="v/0/0/dynamo",
        kind="dynamo",
        code="",
        variant="v",
        compile_id="0/0",
        guards=[
            Guard(code="___check_global_state()", kind="global state"),
            Guard(code="check_tensor(G['x'], size=[8])", kind="tensor", source="G['x']", line=1),
            Guard(code="2 <= G['x'].size()[0]", kind="shape", source="G['x']", line=1),
            Guard(code="check_tensor(G['w'], size=[8])", kind="tensor", source="G['w']", line=2),
            Guard(code="___check_type_id(G['model'], 9)", kind="type", source="G['model']", line=3),
        ],
    )
    gg = graph_guards(graph)
    assert gg.total == 5
    assert kinds_text(gg.by_kind) == "2 tensor, 1 shape, 1 type, 1 global state"
    assert [(g.kind, g.source, g.line, g.count) for g in gg.groups] == [
        ("tensor", "x", 1, 1),
        ("tensor", "w", 2, 1),
        ("shape", "x", 1, 1),
        ("type", "model", 3, 1),
        ("global state", "", None, 1),
    ]


def test_a_recompile_says_which_values_guard_failed_and_where():
    assert (
        failed_guard_text(Recompile(reason="size mismatch", source="G['x']", line=1))
        == "the guard on x (cell line 1) failed"
    )
    assert failed_guard_text(Recompile(reason="?")) == ""


# A recompile after a graph break at cell line 3, ``xb = next(batches)``, as the engine records it.
XB = Recompile(
    reason="1/0: tensor '___stack0' size mismatch at index 1. expected 32, actual 17",
    compile_id="1/1",
    source="___stack0",
    line=3,
    user_name="xb",
    user_expr="next(batches)",
    change="size",
    dim=1,
    expected="32",
    actual="17",
)


def test_a_recompile_on_a_stack_slot_is_said_with_the_users_name_line_change_and_fix():
    assert failed_guard_text(XB) == (
        "xb, what next(batches) returned at cell line 3, changed dim 1: 32 → 17; "
        "fix: compile with dynamic=True, or torch._dynamo.mark_dynamic on dim 1 of each value next(batches) returns, "
        "where it is made (inside the compiled code mark_dynamic is refused)"
    )
    assert "___stack0" not in failed_guard_text(XB)


def test_a_stack_slot_the_statement_does_not_name_is_said_as_the_value_at_the_break():
    unnamed = Recompile(reason="?", source="___stack1", line=4, change="dtype", expected="Float", actual="Double")
    assert (
        failed_guard_text(unnamed)
        == "a value on the stack at the graph break at cell line 4 changed dtype: Float → Double"
    )


def test_an_item_of_a_stack_slot_is_said_as_that_item_of_what_the_call_returned():
    pair = Recompile(reason="", source="___stack0[0]", line=2, user_name="xb", user_expr="next(pairs)")
    pair.change, pair.dim, pair.expected, pair.actual = "size", 1, "32", "17"
    assert failed_guard_text(pair) == (
        "xb, item 0 of what next(pairs) returned at cell line 2, changed dim 1: 32 → 17; fix: compile with "
        "dynamic=True, or torch._dynamo.mark_dynamic on dim 1 of item 0 of each value next(pairs) returns, "
        "where it is made (inside the compiled code mark_dynamic is refused)"
    )


def test_each_change_dynamo_reports_is_worded_from_the_recorded_facts():
    def said(**facts):
        return change_text(Recompile(reason="", **facts))

    assert said(change="stride", dim=0, expected="32", actual="17") == "the stride of dim 0: 32 → 17"
    assert said(change="rank", expected="1", actual="2") == "its number of dims: 1 → 2"
    assert said(change="requires_grad", expected="False", actual="True") == "requires_grad: False → True"
    assert said(change="value", expected="56.15234375") == "value (compiled for 56.15…)"
    assert said(change="length", expected="2") == "length (compiled for 2)"
    assert said(change="identity").startswith("object (an identity guard")
    assert said() == ""


def test_a_value_recompile_on_an_item_result_suggests_capturing_scalars_and_one_on_a_number_a_tensor():
    item = Recompile(
        reason="",
        source="___stack0",
        line=2,
        user_name="s",
        user_expr="x.sum().item()",
        change="value",
        expected="1.5330097675323486",
    )
    assert failed_guard_text(item) == (
        "s, what x.sum().item() returned at cell line 2, changed value (compiled for 1.533…); fix: "
        "torch._dynamo.config.capture_scalar_outputs = True keeps the .item() in the graph as a symbolic value"
    )
    n = Recompile(reason="", source="L['scale']", line=1, change="value", expected="0.5")
    assert failed_guard_text(n).startswith(
        "scale (cell line 1) changed value (compiled for 0.5); fix: pass it as a tensor"
    )


def test_friendly_sources_read_as_the_user_wrote_them():
    assert friendly_source("G['m']._modules['fc']._parameters['weight']") == "m.fc.weight"
    assert friendly_source("G['m']._modules['0']._parameters['weight']") == "m['0'].weight"
    assert friendly_source("L['x']") == "x"
    assert friendly_source("G['__builtins_dict___1']['next']") == "builtins.next"
    assert friendly_source("G['__import_torch_dot_nn_dot_modules_dot_linear'].F") == "torch.nn.modules.linear.F"


def test_a_modules_parameters_are_one_row_with_their_count_and_codes():
    names = [f"G['m']._modules['{i}']._parameters['{p}']" for i in range(3) for p in ("weight", "bias")]
    guards = [Guard(code=f"check_tensor({n}, size=[4])", kind="tensor", source=n, line=2) for n in names]
    guards += [
        Guard(
            code="check_tensor(G['m']._modules['0']._buffers['running_mean'])",
            kind="tensor",
            source="G['m']._modules['0']._buffers['running_mean']",
            line=2,
        )
    ]
    guards += [Guard(code="___check_obj_id(G['m']._modules['1'], 7)", kind="identity", source="G['m']._modules['1']")]
    guards += [Guard(code="___check_obj_id(G['m']._modules, 8)", kind="identity", source="G['m']._modules")]
    gg = graph_guards(Graph(id="g", kind="dynamo", code="", guards=guards))
    rows = {(g.kind, g.source): g for g in gg.groups}
    assert set(rows) == {("tensor", "m's parameters"), ("tensor", "m's buffers"), ("identity", "m's submodules")}
    assert rows["identity", "m's submodules"].count == 2
    params = rows["tensor", "m's parameters"]
    assert params.count == len(names) and params.codes == [g.code for g in guards[: len(names)]]
    assert group_text(params) == "6 tensor guards on m's parameters (cell line 2)"


ITEM_GUARD = Guard(
    code="L['___stack0'] == 56.15234375",
    kind="value",
    source="L['___stack0']",
    line=2,
    user_name="s",
    user_expr="loss.item()",
)


def test_a_value_guard_on_data_is_flagged_even_without_a_recompile():
    text = value_guard_text(ITEM_GUARD)
    assert text.startswith(
        f"{VALUE_GUARD_LEAD}: s, what loss.item() returned at cell line 2 "
        "(compiled for 56.15…); fix: torch._dynamo.config.capture_scalar_outputs = True"
    )
    (group,) = graph_guards(Graph(id="g", kind="dynamo", code="", guards=[ITEM_GUARD])).groups
    assert group.warning == text and group_text(group).endswith(text)
    run = cpu_run()
    run.recompiles, run.graphs = [], [Graph(id="g", kind="dynamo", code="", guards=[ITEM_GUARD])]
    assert value_guard_warnings(run) == [text]
    # once it recompiled, the recompile says it (with its fix): no second warning
    run.recompiles = [Recompile(reason="", source="___stack0", line=2, change="value", expected="56.15234375")]
    assert value_guard_warnings(run) == []


def test_an_int_setting_and_a_flag_are_no_value_guard_on_data():
    assert value_guard_text(Guard(code="G['batch_size'] == 32", kind="value", source="G['batch_size']", line=1)) == ""
    assert value_guard_text(Guard(code="L['flag'] == True", kind="value", source="L['flag']")) == ""
    eps = "G['m']._modules['0']._modules['norm1'].eps"
    assert value_guard_text(Guard(code=f"{eps} == 1e-05", kind="value", source=eps, line=3)) == "", "a module's setting"
    assert value_guard_text(Guard(code="G['scale'] == 0.5", kind="value", source="G['scale']", line=1)) == ""
    assert value_guard_text(Guard(code="L['scale'] == 0.5", kind="value", source="L['scale']", line=1))
    assert value_guard_text(Guard(code="utils_device.CURRENT_DEVICE == None", kind="global state")) == ""
    assert value_guard_text(Guard(code="L['___stack0'] == 3", kind="value", source="L['___stack0']", line=2))


LR_GUARD = Guard(code="L['self'].param_groups[0]['lr'] == 0.01", kind="value", source="L['self'].param_groups[0]['lr']")


def test_a_float_learning_rate_is_flagged_only_where_an_lr_scheduler_changes_it():
    # every optimizer step guards on its float lr, SGD's and AdamW's alike: with no scheduler nothing changes it,
    # and the card said "fix: the learning rate changes each step (an LR scheduler)" on such a step (issue 31)
    assert value_guard_text(LR_GUARD) == ""
    (group,) = graph_guards(Graph(id="g", kind="dynamo", code="", guards=[LR_GUARD])).groups
    assert group.warning == ""
    run = cpu_run()
    run.recompiles, run.graphs = [], [Graph(id="g", kind="dynamo", code="", guards=[LR_GUARD])]
    assert value_guard_warnings(run) == []
    run.lr_schedulers = ["sched"]
    [warning] = value_guard_warnings(run)
    assert warning.endswith(
        "fix: the learning rate changes each step (sched, an LR scheduler); a tensor learning rate, e.g. "
        "SGD(params, lr=torch.tensor(0.1)), keeps one compiled optimizer step"
    )
    assert graph_guards(run.graphs[0], lr_schedulers=["sched"]).groups[0].warning == warning


def test_a_learning_rate_that_changed_without_a_scheduler_is_not_blamed_on_one():
    r = Recompile(reason="4/0: self.param_groups[0]['lr'] == 0.09", source="self.param_groups[0]['lr']")
    assert failed_guard_text(r) == f"the guard on self.param_groups[0]['lr'] failed: {FLOAT_LR_HINT}"
    assert "scheduler" not in failed_guard_text(r)
    assert failed_guard_text(r, lr_schedulers=["sched"]).endswith(f"failed: {float_lr_hint(['sched'])}")


def test_an_object_freed_between_calls_is_said_to_be_made_anew_each_run_with_the_fix():
    """An AdamW step that built its optimizer in the cell: Dynamo's "got deallocated" on the optimizer's wrapper and
    its step read "the guard on args[0] in wrapper (…) failed", with no fix, 15 times."""
    wrapper = Recompile(
        reason="3/0: Cache line invalidated because L['args'][0] got deallocated",
        source="L['args'][0]",
        frame="wrapper",
        filename="/venv/lib/python3.11/site-packages/torch/optim/optimizer.py",
        file_line=509,
    )
    step = Recompile(
        reason="4/0: Cache line invalidated because L['self'] got deallocated",
        source="L['self']",
        frame="step",
        filename="/venv/lib/python3.11/site-packages/torch/optim/adam.py",
        file_line=214,
        line=5,
    )
    assert failed_guard_text(wrapper) == (
        "args[0] in wrapper (torch/optim/optimizer.py:509) was freed: each run of the code makes it anew, and Dynamo "
        "compiles for each new one; fix: make it once, in an earlier cell (an optimizer or a model the cell builds), "
        "and use it here"
    )
    assert "called from cell line 5" in failed_guard_text(step) and "was freed" in failed_guard_text(step)


def test_a_recompiles_reason_names_the_cells_frames_by_line_and_leaves_out_the_tools_publish_frame():
    from compile_profile.digest.guards import recompiles_digest

    run = cpu_run()
    run.recompiles = [
        Recompile(
            variant="inductor/default",
            reason=(
                "17/0: s == 37482.46875\nUser stack trace:\n"
                '  File "<compile-profile-cell-c35b4cbc883f>", line 9, in torch_dynamo_resume_in___compile_profile_cell___at_5\n'
                "    out = h + s\n"
                '  File "<compile-profile-publish>", line 3, in publish\n'
                "    __compile_profile_publish_s__(s)\n"
                '  File "/site-packages/lib.py", line 3, in f\n'
                "    y()"
            ),
        )
    ]
    (row,) = recompiles_digest(run)
    assert row.reason == (
        "17/0: s == 37482.46875\nUser stack trace:\n  cell line 9\n    out = h + s\n"
        '  File "/site-packages/lib.py", line 3, in f\n    y()'
    )
