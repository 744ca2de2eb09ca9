"""digest.guards: a graph's guards grouped by kind and value with their cell lines; a recompile's failed guard."""

from __future__ import annotations

from compile_profile.digest.guards import failed_guard_text, graph_guards, kinds_text
from compile_profile.profile_run import Graph, Guard, Recompile


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
        ("tensor", "G['x']", 1, 1),
        ("tensor", "G['w']", 2, 1),
        ("shape", "G['x']", 1, 1),
        ("type", "G['model']", 3, 1),
        ("global state", "", None, 1),
    ]


def test_a_recompile_says_which_values_guard_failed_and_where():
    assert (
        failed_guard_text(Recompile(reason="size mismatch", source="G['x']", line=1))
        == "the guard on G['x'] (cell line 1) failed"
    )
    assert failed_guard_text(Recompile(reason="?")) == ""
