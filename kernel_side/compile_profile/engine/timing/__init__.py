"""How fast each variant runs: steady-state samples of eager and every compiled variant, warmed up until their
compiles settle and interleaved so drift hits them all, the speedup with its bootstrap interval, what other
processes took of the CPUs meanwhile, and, where torch had more threads than free cores, eager at fewer.

Contract: the timed samples hold no compile, no profiler and no first call (those are other stages'); every
variant of a timing takes its samples at the same number of calls per sample.  A sequence of inputs is a parameter
of the one timing (``input_sequence``), not a second one.

  interleaved.py    warm-up and interleaved rounds of several callables (``Rounds``, ``TimingPlan``)
  host_load.py      other processes' CPU use while timing, this process's threads' waits for a CPU
  threads_trial.py  eager timed again at the free cores' thread count
  speedup.py        each variant's ``Timing``, the speedup and the recommendation of one input
  input_sequence.py a sequence of inputs: the pass over them in order, each signature's rounds, the weighted speedup
  stage.py          stage 3: the variants warmed up and timed, on one input or each signature of a sequence
"""
