"""The structured-trace event kinds torch itself writes, in the releases compile-profile supports (2.6 to 2.14.1).

A kind is an artifact's name, else the event's name (``TraceEvent.kind``).  ``log_import`` counts an event as
"of a kind compile-profile does not know" only when no handler reads it (``events.HANDLERS``) and it is not
listed here: a kind torch writes that the views show nothing of (a tensor's description, a pass's graph) is
known, and skipped without a word.

Built from torch's own call sites: ``tests/torch_trace_kinds.py`` lists every ``trace_structured``,
``dtrace_structured`` and ``trace_structured_artifact`` call of an installed torch (the event's name, or an
artifact's ``"name"``), names made at run time by their pattern (``TORCH_WRITES_PATTERNS``); run over torch
2.13's source, and every kind in the recorded logs of 2.6, 2.10 and 2.13 (``tests/trace_fixtures``,
``tests/import_trace_fixtures``) added.  ``tests/test_trace_kinds.py`` holds the installed torch to the table.
"""

from __future__ import annotations

import re

TORCH_WRITES = frozenset(
    {
        # Dynamo
        "str",
        "torch_version",
        "link",
        "dynamo_error",
        "dynamo_side_effects",
        "dynamo_graph_break_reason_compact",
        "dynamo_cpp_guards_str_verbose",
        "dynamo_cache_bypass",
        "dynamo_cache_entries",
        "dynamo_cache_exception",
        "precompile_cache_bypass",
        "compiler_collective",
        "graph_region_expansion",
        "compilation_metrics_runtime",
        "bwd_compilation_metrics_runtime",
        "bwd_compilation_metrics_autograd",
        "compiled_autograd_graph",
        "compiled_autograd_graph_pre_reordering",
        "compiled_autograd_compile_reasons",
        "torch._dynamo.config",
        "dump_file",
        # fake tensors, symbolic shapes
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "create_symbol",
        "create_unbacked_symbol",
        "expression_created",
        "symbolic_shape_specialization",
        "propagate_real_tensors",
        "propagate_real_tensors_provenance",
        "guard_added",
        "guard_added_fast",
        "guard_on_data_dependent_error",
        "missing_fake_kernel",
        "mismatched_fake_kernel",
        "make_fx_fail_partial",
        "fx_interpreter_error",
        "invoke_subgraph_backward_duplicate",
        # AOTAutograd
        "aot_joint_graph",
        "aot_forward_graph_fw_metadata",
        "aot_forward_graph_fw_subclass_metadata",
        "aot_backward_graph_fw_metadata",
        "aot_inference_graph_after_hop_passes",
        "aot_joint_graph_sync_decision_cross_ranks",
        "aot_saved_tensors_hooks_graphs",
        "aotautograd_cache_bypass",
        "aotautograd_cache_pickle_failure",
        "torch._functorch.config",
        "backward_prologue",
        "backward_epilogue",
        "compiled_function_forward",
        "compiled_function_backward",
        "compiled_fn_wrapper",
        "subclass_wrapper",  # subclass_codegen's generated unwrap/wrap around a compiled function (2.13)
        "runtime_wrapper_orchestration",
        "eager_compile_backwards_failure",
        "min_cut_information",
        "min_cut_failed_edge_list",
        "min_cut_failed_fx_graph",
        "min_cut_failed_svg",
        "before_activation_quantization_bwd_aten_pass",
        "before_activation_quantization_fwd_aten_pass",
        "after_activation_quantization_bwd_aten_pass",
        "after_activation_quantization_fwd_aten_pass",
        # Inductor
        "fx_graph_runnable",
        "fx_graph_cache_bypass",
        "before_pre_grad_graph",
        "after_pre_grad_graph",
        "inductor_pre_grad_graph",
        "before_post_grad_graph",
        "before_joint_graph",
        "after_joint_graph",
        "inductor_input_graph",
        "torch._inductor.config",
        "compile_file",
        "graph_dump",
        "graph_execution",
        "triton_kernel_info",
        "inductor_triton_kernel_to_post_grad_nodes",
        "inductor_runtime_and_tensor_meta",
        "inductor_aot_wrapper_code",
        "inductor_aot_kernel_code",
        "inductor_aot_header_code",
        "inductor_autotune_at_compile_time_code",
        "inductor_collective_schedule",
        "inductor_fx_passes_overlap_bucketing",
        "inductor_overlap_cyclic_extra_deps",
        "inductor_spmd_graph_mismatch",
        "autotuning_results",
        "cache_key_components",
        "fx_compute_nodes_runtime_estimation",
        "fx_collectives_analytical_estimation",
        "fx_bucketing_passes_all_gather_buckets",
        "fx_bucketing_passes_reduce_scatter_buckets",
        "fx_net_acc_splitter_finder_events",
        "overlap_scheduling_graph_before",
        "overlap_scheduling_graph_after",
        "pge_profile_vs_analytical",
        "pre_decomp_comms",
        "post_decomp_comms",
        "pre_bucketing_collective_sizes",
        "pre_bucketing_collective_sizes_after",
        "pre_bucketing_fsdp_collectives",
        "reorder_communication_preserving_peak_memory",
        "scheduler_nodes_before_comm_overlap",
        "sink_waits_iterative_info",
        # DDPOptimizer, export
        "optimize_ddp_split_graph_runnable",
        "exported_program",
        "export",
    }
)

# Kinds named at run time: after the frame (``step_ORIGINAL_BYTECODE``), a pattern-matcher pass
# (``normalization_pass_pre_grad``), a rule (``optimus_…``), AOTAutograd's saved-tensor hooks
# (``aot_saved_tensors_hooks_pack NAME``), profile-guided dynamic shapes' code state (``get_local_code_state``).
TORCH_WRITES_PATTERNS = re.compile(
    r"_(ORIGINAL|MODIFIED)_BYTECODE$|_(pre|post)_grad$|^(optimus|cff)_\w+$|^aot_\w+|_ITERATIVE_RECOMPUTE_ERROR$"
    r"|^(get|put)_\w*code_state$|^pgo\."
)


def torch_writes(kind: str) -> bool:
    """Whether a supported torch release writes events of this kind (whether or not anything here reads them)."""
    return kind in TORCH_WRITES or bool(TORCH_WRITES_PATTERNS.search(kind))
