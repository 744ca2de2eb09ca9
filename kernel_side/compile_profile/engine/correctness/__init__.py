"""Whether compiled results are right: the compiled variant's outputs (and what it changed in place) held to
eager's and to a high-precision reference run of the same code (float64, or the highest precision that runs), by
each dtype's tolerance and eager's own run-to-run spread, as PyTorch's benchmark runner judges a compiled model.

Contract: each correctness run starts from the same in-place state, RNG seed and iterator items
(``iterator_replay``), so eager and compiled read the same inputs; the reference runs on copies swapped into the
namespace for one run, never on the user's tensors.  A verdict is ``ok``, a difference, or not compared, with why.

  compare.py          eager's outputs against compiled's and the reference's, judged output by output
  reference.py        float64 (or the highest precision) copies of what the code reads
  op_fallback.py      an op that fails in float64 run in float32 within the reference run
  rounded_casts.py    the code's casts to a lower float dtype, within the reference run, round and keep its precision
  iterator_replay.py  the iterators the code draws from, replayed so every correctness run draws the same items
  stage.py            stage 4: the reference, compiled, eager and eager again, and ``run.correctness``
"""
