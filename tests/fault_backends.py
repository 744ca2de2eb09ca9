"""Backends that go wrong on purpose, for the tests of what a profile does when compiled code fails or differs.

One module, as PyTorch keeps its fault-injecting backends in ``torch/_dynamo/debugging.py``
(``relu_compile_error_TESTING_ONLY`` and its kin): each name ends in ``_TESTING_ONLY``, so that no one takes it
for a real backend in a card or a stored run, and each runs the graph eagerly or through ``aot_eager`` around its
fault, so a failure test costs a Dynamo trace and no Inductor compile.  Every backend is registered with Dynamo
when this module is imported, before a test takes its snapshot of torch's state (test_reliability_cells
compares the registered backends before and after a profile); the ones made from a function (``changes_linear``,
``scales_outputs``, ``float32``) are registered on first use under the name given and return it.

Pass the name as ``backend=`` (``profile``, ``run_cell``) or ``--backend`` (the magic); the compiled variant
carries it as its name.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import torch
from torch._dynamo.backends.registry import _COMPILER_FNS, lookup_backend, register_backend


def _register(name: str, backend: Callable) -> str:
    if name not in _COMPILER_FNS:
        register_backend(backend, name=name)
    return name


def _aot_eager(gm, example_inputs):
    return lookup_backend("aot_eager")(gm, example_inputs)


# -- failures ----------------------------------------------------------------------------------------------------

FAILS_TO_COMPILE_MESSAGE = "this backend cannot compile anything"
FAILS_WHEN_RUN_MESSAGE = "compiled-only failure"


def _fails_to_compile(gm, example_inputs):
    raise RuntimeError(FAILS_TO_COMPILE_MESSAGE)


def _fails_when_run(gm, example_inputs):
    def run(*args):
        raise RuntimeError(FAILS_WHEN_RUN_MESSAGE)

    return run


# weak references to what each call of holds_then_fails_TESTING_ONLY allocated before it raised
TAKEN_BY_FAILED_CALLS: list[weakref.ref] = []


def _holds_then_fails(gm, example_inputs):
    def run(*args):
        taken = torch.empty(1 << 20)
        TAKEN_BY_FAILED_CALLS.append(weakref.ref(taken))
        raise RuntimeError("failed after allocating")

    return run


def _allocates_too_much(gm, example_inputs):
    def run(*args):
        # Fill the device 1 GiB at a time until the allocator gives up, as a real OOM happens:
        # with memory actually taken, which the failed run must give back.
        chunks = [torch.empty(1 << 30, dtype=torch.uint8, device="cuda") for _ in range(1 << 12)]
        return gm(*args), chunks

    return run


def _data_dependent_on_cumsum(gm, example_inputs):
    """What AOTAutograd raises where a decomposition reads a tensor's value as a number (transformers' grouped_mm
    MoE experts on CUDA meet it): Dynamo falls back from it to eager for that frame, whatever the backend."""
    if any(n.op == "call_function" and n.target is torch.cumsum for n in gm.graph.nodes):
        raise torch._subclasses.fake_tensor.DataDependentOutputException(torch.ops.aten._local_scalar_dense.default)
    return _aot_eager(gm, example_inputs)


FAILS_TO_COMPILE = _register("fails_to_compile_TESTING_ONLY", _fails_to_compile)
DATA_DEPENDENT_ON_CUMSUM = _register("data_dependent_on_cumsum_TESTING_ONLY", _data_dependent_on_cumsum)
FAILS_WHEN_RUN = _register("fails_when_run_TESTING_ONLY", _fails_when_run)
HOLDS_THEN_FAILS = _register("holds_then_fails_TESTING_ONLY", _holds_then_fails)
ALLOCATES_TOO_MUCH = _register("allocates_too_much_TESTING_ONLY", _allocates_too_much)  # CUDA only


# -- results that differ from eager ----------------------------------------------------------------------------------


def _off_by_one(gm, example_inputs):
    def run(*args):
        return [o + 1 for o in gm(*args)]

    return run


def _scales_in_place_updates(gm, example_inputs):
    """aot_eager after each in-place ``mul_`` in the graph was given a factor 1 % larger."""
    for node in gm.graph.nodes:
        if node.op == "call_method" and node.target == "mul_":
            node.args = (node.args[0], node.args[1] * 1.01)
    gm.recompile()
    return _aot_eager(gm, example_inputs)


OFF_BY_ONE = _register("off_by_one_TESTING_ONLY", _off_by_one)  # every output 1 more than eager's
SCALES_IN_PLACE_UPDATES = _register("scales_in_place_updates_TESTING_ONLY", _scales_in_place_updates)


def _linear_nodes(gm) -> list:
    return [n for n in gm.graph.nodes if n.op == "call_function" and "linear" in str(n.target)]


def _rewrite_output(gm, node, change) -> None:
    with gm.graph.inserting_after(node):
        changed = gm.graph.call_function(change, (node,))
    node.replace_all_uses_with(changed, delete_user_cb=lambda user: user is not changed)
    gm.recompile()


def changes_linear(name: str, change: Callable) -> str:
    """aot_eager, after ``change`` rewrote the output of the graph's first linear layer: a miscompile."""

    def backend(gm, example_inputs):
        _rewrite_output(gm, _linear_nodes(gm)[0], change)
        return _aot_eager(gm, example_inputs)

    return _register(f"{name}_TESTING_ONLY", backend)


def scales_outputs(name: str, factor: float) -> str:
    """aot_eager with each floating-point output multiplied by ``factor`` (1.0: right)."""

    def backend(gm, example_inputs):
        inner = _aot_eager(gm, example_inputs)
        return lambda *args: [
            o * factor if isinstance(o, torch.Tensor) and o.is_floating_point() else o for o in inner(*args)
        ]

    return _register(f"{name}_TESTING_ONLY", backend)


def float32(name: str, change: Callable | None = None) -> str:
    """A backend that runs each graph in float32 and rounds its outputs to their dtypes once, as Inductor's
    fused bf16 kernels compute: more precise than eager, so beyond bf16 tolerance of it after a few MoE layers.
    ``change`` rewrites the output of the graph's last linear layer: a miscompile."""

    def backend(gm, example_inputs):
        (out,) = [n for n in gm.graph.nodes if n.op == "output"]
        dtypes = [getattr(v.meta.get("example_value"), "dtype", None) for v in out.args[0]]
        if change is not None:
            _rewrite_output(gm, _linear_nodes(gm)[-1], change)

        def run(*args):
            wide = [a.float() if isinstance(a, torch.Tensor) and a.dtype == torch.bfloat16 else a for a in args]
            return [o.to(d) if d is not None else o for o, d in zip(gm(*wide), dtypes)]

        return run

    return _register(f"{name}_TESTING_ONLY", backend)


def rounds_casts_only(name: str, change: Callable | None = None) -> str:
    """A backend that runs each graph with its casts to a lower floating dtype rounding the values only (the
    arithmetic after them in the input's precision, as Inductor's fused bf16 kernels compute in float32), and rounds
    its outputs to their dtypes once.  ``change`` is applied to every floating output: a miscompile."""
    from compile_profile.engine.correctness.rounded_casts import RoundedCasts

    def backend(gm, example_inputs):
        (out,) = [n for n in gm.graph.nodes if n.op == "output"]
        dtypes = [getattr(v.meta.get("example_value"), "dtype", None) for v in out.args[0]]

        def run(*args):
            with RoundedCasts():
                outs = gm(*args)
            outs = [o.to(d) if d is not None else o for o, d in zip(outs, dtypes)]
            if change is None:
                return outs
            return [change(o) if isinstance(o, torch.Tensor) and o.is_floating_point() else o for o in outs]

        return run

    return _register(f"{name}_TESTING_ONLY", backend)
