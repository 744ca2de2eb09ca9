"""Record the 2-rank gloo job the multi-rank compile checks are held to (tests/test_compile_views.py): compiled
functional collectives, with a rank that diverges.

    python tests/import_trace_fixtures/record_collectives.py tests/import_trace_fixtures/collectives

torchrun runs this file again on two gloo ranks, each with TORCH_TRACE, Inductor's ``log_tlparse`` on (each output
module's ops with their outputs' shapes: ``inductor_runtime_and_tensor_meta``) and the graphs' execution order
recorded (``torch._inductor.debug.record_and_log_graph_execution_order``: ``graph_execution``).  Each rank compiles

    def step(x):
        h = x.sin() * 2                      # rank 1's batch has 5 rows, rank 0's 4: other tensor metadata
        y = funcol.all_reduce(h.sum(0), "sum", group)
        z = gather(y)                        # rank 0 compiles the all_gather; rank 1 runs it eagerly (a graph break)
        return z.cos(), h

so both ranks run the same collectives in the same order (no hang), while rank 1's compiled graphs hold only the
all_reduce, its ops' outputs of another shape, and one graph more.  ``expected-rank{0,1}.json``: what each rank's Dynamo
counted and the collectives each compiled graph's post-grad graph calls, as Inductor scheduled them.

Recorded with torch 2.13 on CPU, with a cold Inductor cache of its own.  The lines the trace names are the ones
below as they stand: moving one means recording again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for trace_recording
from trace_recording import Recompiles, dynamo_counts, gzip_log, start_trace, write_expected

OUT = Path(sys.argv[-1]).resolve()

if "rank" not in sys.argv[1:2]:  # the launcher: torchrun runs this file again as "rank" on each rank
    env = dict(os.environ, OMP_NUM_THREADS="1")
    trace_dir = start_trace(env)
    OUT.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
    subprocess.run([*cmd, __file__, "rank", str(OUT)], env=env, check=True, timeout=900)
    for log in sorted(Path(trace_dir).glob("*.log")):
        gzip_log(log, OUT / (log.name + ".gz"))
    print(sorted(p.name for p in OUT.iterdir()))
    sys.exit(0)

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts
import torch._inductor.config as inductor_config  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._functional_collectives as funcol  # noqa: E402
from torch._inductor.debug import record_and_log_graph_execution_order  # noqa: E402

inductor_config.log_tlparse = True
recompiles = Recompiles.watch()
dist.init_process_group("gloo")
RANK = dist.get_rank()
GROUP = dist.group.WORLD
torch.manual_seed(RANK)


def all_gather(t):
    return funcol.all_gather_tensor(t, 0, GROUP)


# rank 1 runs the all_gather eagerly: its compiled graphs hold the all_reduce only
gather = torch.compiler.disable(all_gather) if RANK == 1 else all_gather


def step(x):
    h = x.sin() * 2
    y = funcol.all_reduce(h.sum(0), "sum", GROUP)
    z = gather(y)
    return z.cos(), h


compiled = torch.compile(step)
with record_and_log_graph_execution_order():
    for _ in range(2):
        out = compiled(torch.randn(4 + RANK, 8))
dist.barrier()
expected = {**dynamo_counts(recompiles), "rank": RANK, "rows": 4 + RANK, "out": [list(t.shape) for t in out]}
write_expected(OUT, expected, f"expected-rank{RANK}.json")
dist.destroy_process_group()
