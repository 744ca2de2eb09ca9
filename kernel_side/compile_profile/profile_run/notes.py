"""What a note records: a fact beside the figures (why one is missing, what a run did to the notebook), as a kind and
its values.  ``digest.notes.NOTE_WORDS`` words each kind (a test holds the two lists together); the engine composes
no sentence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# What a note records; ``digest.notes.NOTE_WORDS`` words each kind (a test holds the two lists together).
NoteKind = Literal[
    "text",  # a note written by compile-profile before schema 2, in its own words: values["text"]
    "already_compiled",  # the cell calls callables torch.compile already wrapped: values["names"]
    "random_draws_differ",  # runs from the same generator state drew differently
    "optimizer_changed_by_compile",  # Dynamo changed the optimizer (step counters, capturable)
    "nothing_compiled",  # Dynamo captured no graph
    "dispatcher_left_on",  # --bisect's failed compiles left torch's Python dispatcher switched on (a PyTorch bug)
    "recompiled_during_timing",  # variant, values["graphs"]
    "recompile_limit",  # variant, values["compile_id"], ["limit"], ["during_timing"]
    "warmup_kept_compiling",  # variant, values["extra_calls"], ["settled_calls"]
    "state_restored",  # the cell changes tensors in place: values["tensors"]
    "state_not_compared",  # ... too large to compare: values["tensors"], ["bytes"]
    # what the cell changed in place was put back as its first run left it (``engine.cell.plain_state``):
    # values["tensors"], ["grads"], ["containers"] (lists, dicts, objects, names put back), ["bytes"] (the copy),
    # ["kept_in"] ("device" or "host"), ["not_restored"] (tensors later runs changed that the first did not)
    "state_put_back",
    # ... or not: it holds values["runs"] runs' changes; ["reason"]: "too_large" (["bytes"] needed against
    # ["host_free"] and ["device_free"] on ["device"]), "failed" (["error"]), "disabled" (--no-restore),
    # "other_rank" (another rank's copy did not fit), "restore_failed" (putting it back raised: ["error"])
    "state_advanced",
    "torch_lacks",  # what this torch cannot show: values["torch"], ["features"] ("provenance", "caller_lines")
    "no_post_grad_on_cache_hit",  # values["torch"]
    "not_saved",  # the run store refused the run: values["why"]
    "no_cuda_graph",  # variant: no kernel ran inside a CUDA graph; values["skips"]
    "no_graph_region",  # variant: the profiler saw no compiled-graph region
    "nothing_to_compare",  # correctness: no tensors or numbers in the outputs
    "random_ops",  # correctness: values["ops"] draw random numbers compiled code draws otherwise
    "reference_distributed",  # no float64 reference: a distributed step
    "reference_changed_state",  # no float64 reference: the run changed the notebook's own tensors
    "reference_failed",  # no float64 reference: values["float64"], ["mixed"], ["float32"], ["unavailable"]
    # why an output failed its check (``OutputCheck.why``)
    "output_differs",  # a non-tensor output: values["eager"], ["compiled"] (their reprs)
    "output_shape",  # values["eager"], ["compiled"]: each "dtype [shape]"
    "output_not_equal",  # integers or booleans that differ
    "output_non_finite",  # NaN/inf where the other has finite values
    "output_beyond_spread",  # RMSE against eager beyond eager's run-to-run spread (the check's figures)
    "output_beyond_tolerance",  # values["dtype"], ["rtol"], ["atol"]
    "output_beyond_reference",  # RMSE against the reference beyond eager's (the check's figures)
    # how a second eager run gave an output otherwise (``OutputCheck.changed``)
    "eager_changed_value",  # values["first"], ["then"]: reprs, or "dtype [shape]"
    "eager_changed_values",  # integers: values["differ"] of values["of"]
    "eager_moved",  # values["rmse"], ["ratio"]: RMSE between the runs, and that over the output's RMS
    "other_rank_failed",  # values["ranks"] (the ranks whose work failed), ["scope"]: "eager", "stage", "variant",
    # "variant_not_timed": every rank stops there, so that none waits in a collective for it
    "interrupted",  # the user interrupted the profile
    "reference_quick",  # no float64 reference: a --quick profile (outputs compared with eager only)
    # a --quick profile ran the float64 reference after all: values["outputs"] were beyond their dtype's tolerance
    "reference_quick_needed",
    # no float64 reference: the cell draws random numbers (values["ops"]) and compiled code draws eager's
    # (Inductor's fallback_random is on), so outputs are compared with eager's; a float64 run draws others
    "reference_random",
    "quick_profile",  # a --quick profile: no kernel profiler pass, no per-line eager profile, a reference only if needed
]


NoteValue = str | int | float | bool | list[str]


@dataclass
class Note:
    """A fact recorded beside the figures (why one is missing, what a run did to the notebook), as a kind
    and its values; ``digest.notes`` words it, so the engine composes no sentence."""

    kind: NoteKind
    variant: str = ""
    values: dict[str, NoteValue] = field(default_factory=dict[str, NoteValue])
