"""The trace model's event handlers (``engine.trace.model.events.HANDLERS``) and the one parser of
``chromium_event`` payloads (``engine.trace.capture``), fed events as torch logs them."""

from __future__ import annotations

import json

import pytest
import torch
from compile_profile.engine.cell.function import cell_to_function
from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.compiler.backend import RecordingBackend
from compile_profile.engine.run.stages import phase_text
from compile_profile.engine.trace import capture as trace_capture
from compile_profile.engine.trace.capture import TraceEvent, capture_compiles, parse_chromium
from compile_profile.engine.trace.model import HANDLERS, build_variant_trace
from compile_profile.engine.trace.model.graph_text import graph_nodes

LOCATOR = CellLocator("<cell>", ["y = x * 2"])


def event(name: str, payload: str | None = None, metadata=None, compile_id: tuple[int, int] = (0, 0)) -> TraceEvent:
    return TraceEvent(name, {} if metadata is None else metadata, payload, *compile_id, 0, 0.0)


def artifact(name: str, payload: str | None = None, compile_id: tuple[int, int] = (0, 0)) -> TraceEvent:
    return event("artifact", payload, {"name": name, "encoding": "string"}, compile_id)


def span(name: str, ph: str, ts: float, compile_id: tuple[int, int] = (0, 0), **args) -> TraceEvent:
    # as Dynamo's chromium event logger writes it (trace_structured dumps the dict with indent=0)
    data = {
        "name": name,
        "ts": ts,
        "args": {"compile_id": "{}/{}".format(*compile_id), **args},
        "ph": ph,
        "cat": "dynamo_timed",
        "tid": 0,
        "pid": 0,
    }
    return event("chromium_event", json.dumps(data, indent=0), compile_id=compile_id)


def trace(events: list[TraceEvent]):
    return build_variant_trace(events, [], variant="v", locator=LOCATOR)


# -- the chromium parser -----------------------------------------------------


def test_a_chromium_payload_parses_into_name_phase_timestamp_and_args():
    parsed = span("compile_fx_inner", "B", 1.5e6, extra=3).chromium
    assert parsed is not None
    assert (parsed.name, parsed.phase, parsed.ts) == ("compile_fx_inner", "B", 1.5e6)
    assert parsed.args == {"compile_id": "0/0", "extra": 3}


@pytest.mark.parametrize(
    "payload",
    ["", "not json", "[1, 2]", '{"name": "x", "ph": "E", "ts": "soon"}', '{"name": "x", "ph": "B", "ts": null}'],
)
def test_a_malformed_chromium_payload_is_ignored_not_raised(payload):
    ev = event("chromium_event", payload)
    assert parse_chromium(payload) is None and ev.chromium is None
    assert phase_text(ev) is None
    result = trace([ev, span("compile_fx_inner", "B", 0.0), ev, span("compile_fx_inner", "E", 1e6)])
    assert result.phases == {"compile_fx_inner": 1.0}, "the well-formed span around it still counts"


def test_an_event_other_than_chromium_has_no_span_even_with_a_span_payload():
    assert event("dynamo_output_graph", span("compile_fx_inner", "B", 0.0).payload).chromium is None


def test_the_chromium_payload_is_parsed_once_for_the_progress_line_and_the_trace(monkeypatch):
    calls = []
    real_loads = trace_capture.load_json
    monkeypatch.setattr(trace_capture, "load_json", lambda text: calls.append(text) or real_loads(text))
    begin = span("compile_fx_inner", "B", 0.0)
    assert phase_text(begin) == "Inductor: lowering"
    trace([begin])
    assert len(calls) == 1


# -- the handlers --------------------------------------------------------------


def test_a_span_adds_its_seconds_to_its_phase_only_when_begin_and_end_share_a_compile_id():
    result = trace(
        [
            span("compile_fx_inner", "B", 1e6),
            span("compile_fx_inner", "E", 3.5e6),
            span("compile_fx_inner", "B", 4e6),
            span("compile_fx_inner", "E", 5e6),
            span("backend_compile", "B", 0.0, compile_id=(1, 0)),
            span("backend_compile", "E", 9e6, compile_id=(2, 0)),
        ]
    )
    assert result.phases == {"compile_fx_inner": 3.5}


def test_an_autotuning_span_end_becomes_an_autotune_result_timed_from_its_begin():
    stats = {"num_choices": 5, "num_triton_choices": 4, "best_kernel": "triton_mm_1", "best_time": 0.02}
    result = trace(
        [
            span("mm_template_autotuning", "B", 1e6),
            span(
                "mm_template_autotuning",
                "E",
                3e6,
                autotune_shape="[[64, 64], [64, 64]]",
                autotune_dtypes="[torch.float16]",
                autotune_choices_stats=json.dumps(stats),
            ),
        ]
    )
    [tuned] = result.autotune
    assert (tuned.op, tuned.choices, tuned.triton_choices, tuned.best, tuned.best_ms) == (
        "mm",
        5,
        4,
        "triton_mm_1",
        0.02,
    )
    assert tuned.autotune_s == 2.0 and tuned.compile_id == "0/0"
    assert result.phases == {"mm_template_autotuning": 2.0}


def test_cache_artifacts_are_counted_by_their_name():
    result = trace(
        [
            artifact("fx_graph_cache_hit"),
            artifact("fx_graph_bundled_cache_hit"),
            artifact("fx_graph_cache_miss"),
            artifact("aotautograd_cache_hit"),
        ]
    )
    c = result.cache
    assert (c.fx_graph_hits, c.fx_graph_misses, c.aot_autograd_hits, c.aot_autograd_misses) == (2, 1, 1, 0)
    assert c.state == c.derived_state()


def test_recompile_reasons_skip_the_profilers_own_backend_switch_and_unknown_events_are_ignored():
    reasons = json.dumps(["___check_current_backend(...)", "tensor 'x' size mismatch at index 0"])
    result = trace(
        [
            artifact("recompile_reasons", reasons),
            event("some_future_event", "{}"),
            artifact("some_future_artifact", "{}"),
        ]
    )
    assert [r.reason for r in result.recompiles] == ["tensor 'x' size mismatch at index 0"]


def test_compile_metrics_add_compile_time_failures_and_cudagraph_skips():
    result = trace(
        [
            event(
                "compilation_metrics",
                metadata={
                    "entire_frame_compile_time_s": 1.5,
                    "fail_type": "Unsupported",
                    "fail_reason": "x",
                    "cudagraph_skip_reason": "mutated inputs",
                },
            ),
            event("bwd_compilation_metrics", metadata={"inductor_compile_time_s": 0.5}),
            event("compilation_metrics", metadata="not a dict"),
        ]
    )
    assert result.compile_s == 2.0
    assert result.failures == ["Unsupported: x"] and result.cudagraph_skips == ["mutated inputs"]


POST_GRAD = """class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4]"):
         # File: <cell>:1 in cell, code: y = x * 2
        mul: "f32[4]" = torch.ops.aten.mul.Tensor(arg0_1, 2);  arg0_1 = None
        # No stacktrace found for following nodes
        clone: "f32[4]" = torch.ops.aten.clone.default(mul)
         # File: <cell>:1 in cell, code: y = x * 2
        relu: "f32[4]" = torch.ops.aten.relu.default(clone);  clone = None
        return (relu,)
"""


def test_post_grad_graphs_are_numbered_per_compile_whether_logged_as_event_or_artifact():
    result = trace(
        [
            event("inductor_post_grad_graph", POST_GRAD),
            artifact("after_post_grad_graph", POST_GRAD),
            artifact("inductor_post_grad_graph", POST_GRAD, compile_id=(1, 0)),
        ]
    )
    assert [g.id for g in result.graphs] == ["v/0/0/post_grad_0", "v/0/0/post_grad_1", "v/1/0/post_grad_0"]
    assert result.graphs[0].op_counts == {"aten.mul": 1, "aten.clone": 1, "aten.relu": 1}
    assert result.graphs[0].lines == [1]


def test_a_graph_node_without_a_stack_trace_takes_the_frame_of_its_first_user():
    nodes = {n.name: n for n in graph_nodes(POST_GRAD)}
    assert [(n, nodes[n].op) for n in nodes] == [("mul", "aten.mul"), ("clone", "aten.clone"), ("relu", "aten.relu")]
    assert nodes["clone"].frame == ("<cell>", 1, "y = x * 2"), "relu uses clone"
    assert nodes["mul"].frame == nodes["clone"].frame


def test_the_handler_table_covers_every_kind_of_graph_the_trace_logs():
    for kind in (
        "dynamo_output_graph",
        "aot_forward_graph",
        "aot_backward_graph",
        "aot_inference_graph",
        "inductor_post_grad_graph",
        "after_post_grad_graph",
        "inductor_output_code",
    ):
        assert kind in HANDLERS, kind


@pytest.mark.compiles
def test_recorded_events_of_a_compiled_cell_give_its_graphs_and_kernels_on_its_line():
    import torch._inductor.config as inductor_config

    torch._dynamo.reset()
    cell = cell_to_function("y = (x * 2).relu()\n", {"x": torch.randn(8)})
    backend = RecordingBackend()
    with capture_compiles() as recorder, inductor_config.patch(fx_graph_cache=False):  # a fresh compile
        cell.call_with(torch.compile(cell.fn, backend=backend))
    events = recorder.take()
    result = build_variant_trace(
        events, backend.graphs, variant="v", locator=CellLocator(cell.filename, cell.source.splitlines())
    )
    kinds = [g.kind for g in result.graphs]
    assert kinds[0] == "dynamo" and "aot_inference" in kinds and "post_grad" in kinds
    assert result.graphs[0].lines == [1]
    [kernel] = result.kernels
    assert sorted(kernel.aten_ops) == ["aten.mul", "aten.relu"] and kernel.lines == [1]
    assert kernel.graph_id == next(g.id for g in result.graphs if g.kind == "aot_inference")
    assert result.cache.fx_graph_hits == 0 and result.compile_s > 0
    # Spans that open and close, timed from the one parse of each chromium_event.
    from compile_profile.engine.common.torch_features import _version

    # torch 2.6 has no bytecode_tracing span (make test-compat; its progress line opens on entire_frame_compile)
    spans = {"entire_frame_compile", "GraphLowering.codegen"} | ({"bytecode_tracing"} if _version() > (2, 6) else set())
    assert spans <= set(result.phases)
    assert 0 < result.phases["GraphLowering.codegen"] < result.phases["entire_frame_compile"]
    # one compile time per compile id, the one the compile timeline draws: its outermost span (``dynamo``, around
    # the frame's whole conversion), which holds the ``entire_frame_compile`` that compilation_metrics times
    outermost = [s for s in result.spans if s.depth == 0]
    assert [s.name for s in outermost] == ["dynamo"]
    assert result.compile_s == pytest.approx(outermost[0].duration_s)
    assert result.compile_s >= result.phases["entire_frame_compile"]


def test_a_kernels_ops_are_read_from_its_name_as_registered_op_names_never_invented_from_its_words():
    from compile_profile.engine.trace.output_code import ops_from_kernel_name

    # the CPU attention backward of every transformer training step (review: ten "ops", eight unreal)
    assert ops_from_kernel_name("cpp_fused__scaled_dot_product_flash_attention_for_cpu_backward_transpose_view_4") == [
        "aten._scaled_dot_product_flash_attention_for_cpu_backward",
        "aten.transpose",
        "aten.view",
    ]
    assert ops_from_kernel_name("triton_red_fused__log_softmax_nll_loss_forward_2") == [
        "aten._log_softmax",
        "aten.nll_loss_forward",
    ]
    assert ops_from_kernel_name("cpp_fused_add_copy__0") == ["aten.add", "aten.copy_"]
    assert ops_from_kernel_name("triton_poi_fused_frobnicate_relu_0") == ["aten.relu"], "no aten.frobnicate"
    assert ops_from_kernel_name("extern_kernels.mm") == []


def test_a_compile_dynamo_restarted_after_its_first_graph_keeps_only_the_graph_it_ran():
    # GPT-2 under dynamic=True: Inductor compiled a first 181-node graph for compile 3/0, Dynamo restarted the
    # analysis and kept a 153-node one (a backend wrapping Inductor is called for both under plain torch.compile)
    from compile_profile.engine.cell.locator import CellLocator
    from compile_profile.engine.trace.capture import TraceEvent
    from compile_profile.engine.trace.model import build_variant_trace

    def event(kind, payload, compile_id=(3, 0)):
        return TraceEvent(kind, {}, payload, *compile_id, 0, 0.0)

    first = "def forward(self, L_x_):\n    a = L_x_ + 1\n    b = a * 2\n    return (b,)\n"
    kept = "def forward(self, L_x_):\n    a = L_x_ + 1\n    return (a,)\n"
    out = build_variant_trace(
        [
            event("dynamo_output_graph", first),
            event("dynamo_output_graph", kept),
            event("dynamo_output_graph", kept, (5, 0)),
        ],
        [],
        variant="v",
        locator=CellLocator("<cell>", ["y = x + 1"]),
    )
    dynamo = [g for g in out.graphs if g.kind == "dynamo"]
    assert [(g.compile_id, g.code) for g in dynamo] == [("3/0", kept), ("5/0", kept)]
