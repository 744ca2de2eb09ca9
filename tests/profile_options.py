"""The one option set the tests profile with, as keyword arguments (``profile()``, ``ProfileOptions``) and as the
magic's flags.

``FAST``: a few timed rounds of a tiny workload on two cores, under any backend.  A test whose subject is
Inductor, its kernels, the profiler pass after timing or the float64 reference profiles with it.

``CHEAP``: ``FAST`` under ``backend="aot_eager"`` with ``--quick``, the cheapest layer that still runs the whole
profile: Dynamo traces the cell and AOTAutograd splits its forward and backward as under Inductor, but no C++ is
compiled (5-20 s a cold graph here), no profiler pass runs and no float64 reference.  A test whose subject is the
namespace, a failure's report, the store, the magic's plumbing or Dynamo's graphs, breaks and recompiles
profiles with it.  Its compiled variant is named ``aot_eager``.
"""

from __future__ import annotations

FAST: dict = dict(warmup=1, repeat=8, min_samples=3, budget=0.2)
CHEAP: dict = {**FAST, "backend": "aot_eager", "quick": True}
CHEAP_VARIANT = "aot_eager"  # the compiled variant's name in a CHEAP run
# The GPU tests' (tests/test_gpu_*.py, on the GPU machine): workloads past launch overhead, timed long enough that
# a per-kernel device time and a roofline mean something.
GPU_FAST: dict = dict(warmup=2, repeat=30, min_samples=5, budget=0.5)

# The magic's flags for the same sets (it has no --min-samples flag: its default of 5 holds there).
FAST_FLAGS = f"--warmup {FAST['warmup']} --repeat {FAST['repeat']} --budget {FAST['budget']}"
CHEAP_FLAGS = f"{FAST_FLAGS} --backend aot_eager --quick"
