"""DDPOptimizer's splits read from the trace (``engine.trace.model.ddp`` and the two handlers in
``events.HANDLERS``), fed the events a DDP(bucket_cap_mb=1) 4-layer MLP logged under torchrun
(gloo, CPU, torch 2.13; payloads shortened to what is read)."""

from __future__ import annotations

from compile_profile.engine.cell.locator import CellLocator
from compile_profile.engine.compiler.backend import RecordedGraph
from compile_profile.engine.trace.capture import TraceEvent
from compile_profile.engine.trace.model import build_variant_trace
from compile_profile.engine.trace.model.ddp import annotation_bytes, param_name, piece_params
from compile_profile.engine.trace.model.graph_text import placeholders
from compile_profile.engine.trace.model.kernels import CompileState, _backward_graph_id
from compile_profile.profile_run import DdpBucket, DdpSplit

LOCATOR = CellLocator("<cell>", ["loss = ddp(x).pow(2).mean()", "loss.backward()"])

P = "l_self_modules_layers_modules_{}_parameters_{}_"

DYNAMO = """class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layers_modules_0_parameters_weight_: "f32[512, 64]", L_x_: "f32[32, 64]"):
        linear: "f32[32, 512]" = torch._C._nn.linear(l_x_, l_self_modules_layers_modules_0_parameters_weight_)
"""

SPLIT = """class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layers_modules_0_parameters_weight_: "f32[512, 64]", L_self_modules_layers_modules_0_parameters_bias_: "f32[512]", L_x_: "f32[32, 64]", L_self_modules_layers_modules_1_parameters_weight_: "f32[512, 512]", L_self_modules_layers_modules_1_parameters_bias_: "f32[512]", L_self_modules_layers_modules_2_parameters_weight_: "f32[512, 512]", L_self_modules_layers_modules_2_parameters_bias_: "f32[512]", L_self_modules_layers_modules_3_parameters_weight_: "f32[8, 512]", L_self_modules_layers_modules_3_parameters_bias_: "f32[8]"):
        l_x_ = L_x_
        submod_0 = self.submod_0(l_x_, l_self_modules_layers_modules_0_parameters_weight_, l_self_modules_layers_modules_0_parameters_bias_)
        return (submod_2,)

    class submod_0(torch.nn.Module):
        def forward(self, l_x_: "f32[32, 64]", l_self_modules_layers_modules_0_parameters_weight_: "f32[512, 64]", l_self_modules_layers_modules_0_parameters_bias_: "f32[512]"):
            return relu
"""

CHILDREN = [
    """class GraphModule(torch.nn.Module):
    def forward(self, l_x_: "f32[32, 64]", l_self_modules_layers_modules_0_parameters_weight_: "f32[512, 64]", l_self_modules_layers_modules_0_parameters_bias_: "f32[512]"):
        # File: /tmp/ddpx/ddp_raw.py:13 in forward, code: x = torch.relu(layer(x))
        linear: "f32[32, 512]" = torch._C._nn.linear(l_x_, l_self_modules_layers_modules_0_parameters_weight_, l_self_modules_layers_modules_0_parameters_bias_)
        relu: "f32[32, 512]" = torch.relu(linear);  linear = None
        return relu
""",
    """class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[32, 512]", l_self_modules_layers_modules_1_parameters_weight_: "f32[512, 512]", l_self_modules_layers_modules_1_parameters_bias_: "f32[512]"):
        linear: "f32[32, 512]" = torch._C._nn.linear(x, l_self_modules_layers_modules_1_parameters_weight_, l_self_modules_layers_modules_1_parameters_bias_)
        relu: "f32[32, 512]" = torch.relu(linear);  linear = None
        return relu
""",
    """class GraphModule(torch.nn.Module):
    def forward(self, x_1: "f32[32, 512]", l_self_modules_layers_modules_2_parameters_weight_: "f32[512, 512]", l_self_modules_layers_modules_2_parameters_bias_: "f32[512]", l_self_modules_layers_modules_3_parameters_weight_: "f32[8, 512]", l_self_modules_layers_modules_3_parameters_bias_: "f32[8]"):
        linear: "f32[32, 512]" = torch._C._nn.linear(x_1, l_self_modules_layers_modules_2_parameters_weight_, l_self_modules_layers_modules_2_parameters_bias_)
        relu: "f32[32, 512]" = torch.relu(linear);  linear = None
        linear_1: "f32[32, 8]" = torch._C._nn.linear(relu, l_self_modules_layers_modules_3_parameters_weight_, l_self_modules_layers_modules_3_parameters_bias_)
        return linear_1
""",
]

# AOTAutograd's backward graphs print one input a line; their post-grad graphs on one line
AOT_BACKWARD = [
    """class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_1: "f32[32, 64][64, 1]cpu",  # PlainAOTInput(idx=0)
        le: "b8[32, 512][512, 1]cpu",
        tangents_1: "f32[32, 512][512, 1]cpu",  # TangentAOTInput(output=PlainAOTOutput(idx=0))
    ):
        mm: "f32[512, 64][64, 1]cpu" = torch.ops.aten.mm.default(permute, primals_1)
""",
    """class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_1: "f32[32, 512][512, 1]cpu",  # PlainAOTInput(idx=0)
        primals_2: "f32[512, 512][512, 1]cpu",  # ParamAOTInput(target='l_self_modules_layers_modules_1_parameters_weight_')
        le: "b8[32, 512][512, 1]cpu",
        tangents_1: "f32[32, 512][512, 1]cpu",  # TangentAOTInput(output=PlainAOTOutput(idx=0))
    ):
        mm: "f32[32, 512][512, 1]cpu" = torch.ops.aten.mm.default(where, primals_2)
""",
]
POST_GRAD_BACKWARD_1 = """class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[32, 512][512, 1]cpu", primals_2: "f32[512, 512][512, 1]cpu", le: "b8[32, 512][512, 1]cpu", tangents_1: "f32[32, 512][512, 1]cpu"):
        mm: "f32[32, 512][512, 1]cpu" = torch.ops.aten.mm.default(where, primals_2)
"""


def event(name: str, payload: str | None = None, metadata=None, compile_id=(4, 0)) -> TraceEvent:
    return TraceEvent(name, {} if metadata is None else metadata, payload, *compile_id, 0, 0.0)


def recorded(index: int, op_counts: dict[str, int]) -> RecordedGraph:
    return RecordedGraph(index=index, code="", op_counts=op_counts, input_shapes=[[1]], node_stacks=[])


def split_events(*, forwards: int = 3) -> list[TraceEvent]:
    events = [event("dynamo_output_graph", DYNAMO), event("optimize_ddp_split_graph", SPLIT)]
    events += [event("optimize_ddp_split_child", code, {"name": f"submod_{k}"}) for k, code in enumerate(CHILDREN)]
    for k in range(3):  # each piece compiles in turn: its joint graph's forward and backward
        if k < forwards:
            events.append(event("aot_forward_graph", "class GraphModule(torch.nn.Module):\n"))
        events.append(event("aot_backward_graph", "class GraphModule(torch.nn.Module):\n"))
    events.append(event("dynamo_output_graph", "", compile_id=(5, 0)))
    return events


# -- names and sizes -------------------------------------------------------------------


def test_a_placeholder_of_a_parameter_is_named_as_the_module_names_it():
    assert param_name(P.format(0, "weight")) == "layers.0.weight"
    assert param_name("L_self_modules_layers_modules_3_parameters_bias_") == "layers.3.bias"
    assert param_name("l_self_modules_attn_proj_parameters_weight_") == "attn_proj.weight"
    assert param_name("l_self_parameters_scale_") == "scale"
    assert param_name("g_model_modules_fc_parameters_weight_") == "model.fc.weight"  # a root other than self stays


def test_an_input_that_is_no_parameter_has_no_name():
    for name in ("l_x_", "x", "x_1", "primals_1", "l_self_modules_bn_buffers_running_mean_", "L_self_modules_fc_"):
        assert param_name(name) is None, name


def test_a_tensors_bytes_come_from_its_dtype_and_shape():
    assert annotation_bytes("f32[512, 64]") == 131072
    assert annotation_bytes("f32[512]") == 2048
    assert annotation_bytes("bf16[8, 4]") == 64
    assert annotation_bytes("f16[3]") == 6
    assert annotation_bytes("f64[2, 2]") == 32
    assert annotation_bytes("i64[]") == 8  # a scalar
    assert annotation_bytes("f32[s0, 64]") is None  # symbolic
    assert annotation_bytes("Sym(s0)") is None


def test_inputs_are_read_from_a_one_line_or_a_one_input_a_line_signature():
    assert placeholders(CHILDREN[1])[0] == ("x", "f32[32, 512]")
    assert [name for name, _ in placeholders(AOT_BACKWARD[0])] == ["primals_1", "le", "tangents_1"]
    assert placeholders(AOT_BACKWARD[1]) == placeholders(POST_GRAD_BACKWARD_1)
    assert piece_params(CHILDREN[0]) == [("layers.0.weight", 131072), ("layers.0.bias", 2048)]


# -- the split, from its events --------------------------------------------------------


def test_each_piece_of_a_split_is_a_bucket_with_its_parameters_bytes_and_forward_graph():
    out = build_variant_trace(split_events(), [], variant="v", locator=LOCATOR)
    assert out.ddp_splits == [
        DdpSplit(
            variant="v",
            compile_id="4/0",
            graph_id="v/4/0/dynamo",
            buckets=[
                DdpBucket(
                    index=0, params=["layers.0.weight", "layers.0.bias"], bytes=133120, graph_id="v/4/0/aot_forward"
                ),
                DdpBucket(
                    index=1, params=["layers.1.weight", "layers.1.bias"], bytes=1050624, graph_id="v/4/0/aot_forward#1"
                ),
                DdpBucket(
                    index=2,
                    params=["layers.2.weight", "layers.2.bias", "layers.3.weight", "layers.3.bias"],
                    bytes=1067040,
                    graph_id="v/4/0/aot_forward#2",
                ),
            ],
            bucket_cap_bytes=None,
        )
    ]
    # the pieces' AOT graphs each have an id of their own, as dedupe_graphs would have named them
    assert [g.id for g in out.graphs if g.compile_id == "4/0"] == [
        "v/4/0/dynamo",
        "v/4/0/aot_forward",
        "v/4/0/aot_backward",
        "v/4/0/aot_forward#1",
        "v/4/0/aot_backward#1",
        "v/4/0/aot_forward#2",
        "v/4/0/aot_backward#2",
    ]


def test_the_split_graph_keeps_the_inputs_of_the_whole_dynamo_graph():
    out = build_variant_trace(split_events(), [], variant="v", locator=LOCATOR)
    dynamo = next(g for g in out.graphs if g.id == "v/4/0/dynamo")
    assert dynamo.input_shapes == [[512, 64], [512], [32, 64], [512, 512], [512], [512, 512], [512], [8, 512], [8]]


def test_the_backend_saw_each_piece_as_a_graph_and_they_join_the_split_dynamo_graph():
    pieces = [
        recorded(0, {"torch._C._nn.linear": 1, "torch.relu": 1}),
        recorded(1, {"torch._C._nn.linear": 1}),
        recorded(2, {"torch._C._nn.linear": 2, "torch.relu": 1}),
    ]
    loss = recorded(3, {"Tensor.pow": 1, "Tensor.mean": 1})
    out = build_variant_trace(split_events(), [*pieces, loss], variant="v", locator=LOCATOR)
    dynamo = {g.compile_id: g for g in out.graphs if g.kind == "dynamo"}
    assert dynamo["4/0"].op_counts == {"torch._C._nn.linear": 4, "torch.relu": 2}
    assert dynamo["5/0"].op_counts == {"Tensor.pow": 1, "Tensor.mean": 1}, "the next compile gets its own graph"
    assert pieces[0].op_counts == {"torch._C._nn.linear": 1, "torch.relu": 1}, "a recorded graph is not changed"


def test_a_piece_without_a_logged_forward_graph_names_no_graph_for_any_bucket():
    # an AOTAutograd cache hit logs no graph: which forward is which piece is then unknown
    out = build_variant_trace(split_events(forwards=2), [], variant="v", locator=LOCATOR)
    assert [b.graph_id for b in out.ddp_splits[0].buckets] == ["", "", ""]
    assert [b.bytes for b in out.ddp_splits[0].buckets] == [133120, 1050624, 1067040]


def test_a_trace_without_a_split_has_no_ddp_splits():
    out = build_variant_trace(
        [event("dynamo_output_graph", DYNAMO), event("aot_forward_graph", "x")], [], variant="v", locator=LOCATOR
    )
    assert out.ddp_splits == []
    assert [g.id for g in out.graphs] == ["v/4/0/dynamo", "v/4/0/aot_forward"]


def test_a_backward_module_goes_to_the_pieces_backward_graph_whose_inputs_it_takes():
    state = CompileState(
        aot_backward=[("v/4/0/aot_backward", AOT_BACKWARD[0]), ("v/4/0/aot_backward#1", AOT_BACKWARD[1])]
    )
    assert _backward_graph_id(state, POST_GRAD_BACKWARD_1) == "v/4/0/aot_backward#1"
    assert _backward_graph_id(state, 'def forward(self, other: "f32[1]"):\n') is None
    assert _backward_graph_id(CompileState(aot_backward=state.aot_backward[:1]), POST_GRAD_BACKWARD_1) is None
