"""The measuring core: run a cell or a function eagerly and under ``torch.compile``, and write a ``ProfileRun``.

Nothing here words a figure for a reader (that is ``compile_profile.digest``) or lays one out
(``compile_profile.render``), and nothing here stores a run (``compile_profile.store``): the engine writes plain
data.  Its sub-packages, each named for what it does and each saying its contract and its modules in its own
docstring, in layers, bottom first; a module imports only from its own sub-package and the ones before it
(``tests/test_layers.py`` holds the order):

  common/       what every part uses: errors, stack text, the device, torch's features, op kinds
  cell/         the code profiled and the state it reads and changes, put back as one plain run leaves it
  compiler/     ``torch.compile`` as a variant calls it: the recording backend, kernel builds, Dynamo's caches
  trace/        what torch's structured trace says a compile did (live capture or a log file), as run parts
  session/      what one profile is and its stages share: the options, the ``Session``, recompiles
  distributed/  a profile on every rank of a job, in lock-step
  failure/      what a failed compile was, ``--bisect``, and the settings that may be the cause
  correctness/  compiled outputs against eager's and a float64 reference (stage 4)
  timing/       interleaved steady-state timing, on one input or a sequence, and the speedup (stage 3)
  kernels/      the profiler pass of every variant, by its attribution rule, and roofline figures (stage 6)
  run/          the entry points (``profile``, ``profile_cell``), the stage table, the eager runs, the first calls
"""
