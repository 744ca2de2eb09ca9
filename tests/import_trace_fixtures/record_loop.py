"""Record the training-loop TORCH_TRACE log ``compile-profile import-trace`` is held to on recompiles and restarts.

    python tests/import_trace_fixtures/record_loop.py tests/import_trace_fixtures/loop

writes ``loop/trace.log.gz`` and ``loop/expected.json`` (what Dynamo counted while it ran, and the line, value
and change of each recompile from Dynamo's own recompile log), then ``truncated/trace.log.gz``: the same log
cut in the middle of a payload (an Inductor output module's), as a killed job leaves it (``cut.json``: where).  The
set-up (a trace directory and a cold Inductor cache before torch starts) is ``tests/trace_recording.py``'s.

What the loop holds:

* ``log_loss(step, loss, tag)`` compiled with dynamic=False: its int ``step`` is guarded at the line that
  branches on it (``if step % 2 == 0:``), not at its ``def``; a new step recompiles it, and so does a new
  ``tag`` (a str: nothing to pass as a tensor);
* ``train_step(x)``: the ``.item()`` of its loss breaks the graph and is printed from the resumed frame, whose
  float on Dynamo's stack is guarded by value: a new loss recompiles it, and the recompile restarts Dynamo's
  analysis after it output a graph (``TensorifyScalarRestartAnalysis``); a batch of 32 rows after 16 recompiles
  the step on ``x``'s size;
* ``no_grad_step(x)``: a graph break inside ``torch.no_grad()``, after which Dynamo restarts its analysis.

The lines the recorded log names are the ones below as they stand: moving one means recording again.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for trace_recording
from trace_recording import Recompiles, dynamo_counts, save_fixture, start_trace

OUT = Path(sys.argv[1]).resolve()
trace_dir = start_trace()

import torch  # noqa: E402 - TORCH_TRACE is read when torch's logging starts

recompiles = Recompiles.watch()
torch.manual_seed(0)


def log_loss(step, loss, tag):
    # what a training loop logs every few steps
    scaled = loss * 0.5
    if step % 2 == 0:  # the guard on step: here, not at the def
        scaled = scaled + 1
    if tag == "train":  # the guard on tag, a str
        scaled = scaled * 2
    return scaled


def train_step(x):
    loss = (x * 2).sum()
    print("loss", loss.item())  # a graph break; the printed float is on Dynamo's stack in the resumed frame
    return loss * 3


def no_grad_step(x):
    with torch.no_grad():
        y = x * 2
        print("inside no_grad")  # a graph break inside a context manager: Dynamo restarts its analysis
        y = y + 1
    return y.relu()


compiled_log = torch.compile(log_loss, dynamic=False)
compiled_step = torch.compile(train_step)
compiled_no_grad = torch.compile(no_grad_step)
for step, tag in [(0, "train"), (1, "train"), (2, "train"), (2, "eval")]:
    compiled_log(step, torch.randn(4), tag)
for rows in (16, 16, 32):
    compiled_step(torch.randn(rows, 4))
compiled_no_grad(torch.randn(8))

save_fixture(trace_dir, OUT, dynamo_counts(recompiles) | {"recompile_log": recompiles.messages})

# the same log cut in the middle of a payload: the first inductor_output_code's, halfway through
with gzip.open(OUT / "trace.log.gz", "rt", encoding="utf-8") as f:
    lines = f.read().splitlines(keepends=True)
at = next(i for i, line in enumerate(lines) if '"inductor_output_code"' in line)
end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("\t"))
cut = OUT.parent / "truncated"
cut.mkdir(exist_ok=True)
with gzip.open(cut / "trace.log.gz", "wt", encoding="utf-8") as f:
    f.write("".join(lines[: (at + 1 + end) // 2]))
(cut / "cut.json").write_text(json.dumps({"cut_in_payload_of": "inductor_output_code", "line": at + 1}) + "\n")
