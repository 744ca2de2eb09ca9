"""Record a structured trace (TORCH_TRACE) of one small workload with the torch this Python has.

    python tests/trace_fixtures/record.py tests/trace_fixtures/torch-<version>

writes ``trace.log.gz`` (the rank's TORCH_TRACE log, gzipped) and ``expected.json`` (what Dynamo itself
counted: graph breaks from ``torch._dynamo.utils.counters``, recompiles from its own recompile log), so that a parser test can hold what it reads from the log to what Dynamo counted.
The workload: a training step with a graph break (a print of ``.item()``), a backward, and a second input
shape that recompiles the step under static shapes; the ``.item()`` value becomes a value guard of the
resumed frame, which recompiles on each new value. Run once per supported torch release (the compat venvs).

The workload's lines stay where every release's recorded trace names them (the step at 33, its print at 35,
its backward at 36, the calls at 59; the frame ``torch_dynamo_resume_in_step_at_35``): moving one means
recording every release again.  The set-up both recording scripts share is ``tests/trace_recording.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for trace_recording
from trace_recording import Recompiles, dynamo_counts, save_fixture, start_trace

out = Path(sys.argv[1])
trace_dir = start_trace()  # and a cold Inductor cache: its misses are logged

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def step(x):
    y = model(x).sum()
    print("loss", y.item())  # a graph break (and a .item() before it)
    y.backward()
    return y


recompiles = Recompiles.watch()
# What each release's trace holds of the three calls (test_trace_fixtures.py holds the parser to it):
# * the first compiles the step up to the print, whose .item() breaks the graph at line 35 (compile 0/0),
#   then the frame Dynamo resumes after the print (torch_dynamo_resume_in_step_at_35, 1/0), which the
#   backward breaks at line 36;
# * the second, on as many rows, recompiles only the resumed frame (1/1): the .item() value it was handed
#   is one of its guards, and a new batch draws a new value;
# * the third, 6 rows under dynamic=False, recompiles the step on its input's shape (0/1) and the resumed
#   frame once more (1/2).
# That is 3 recompiles and 6 graph breaks as Dynamo counts them (expected.json), on 2.6, 2.10 and 2.13
# alike.
#
# Every compile's dynamo_start names its stack down to the calls below, so their line (59) is in the
# traces too.  The lines from the step to the calls keep the numbers they were recorded with: this
# comment stands where the recompile log's handler was before it moved to trace_recording.py, and
# moving a line of the workload means recording the trace of every supported release again (the
# compat venvs).
compiled = torch.compile(step, dynamic=False)
for rows in (4, 4, 6):
    compiled(torch.randn(rows, 8))

save_fixture(trace_dir, out, dynamo_counts(recompiles))
