"""The code a profile runs and the state it reads and changes: a notebook cell made a function Dynamo can compile,
the ``Target`` the stages call (a cell or a function), every call of it counted, and what its runs change (random
generators, optimizers, tensors changed in place, the namespace), taken and put back so the user's state ends as
one plain run of the cell leaves it.

Contract: nothing here compiles, times or words anything; it knows no stage and no ``Session``.  What it puts
back, it puts back on error and interrupt too.

  function.py           a cell's source as a function (its namespace contract: what it keeps, what it assigns)
  rewrite.py            the AST work behind it: the names a cell binds, its statements rewritten to run as a cell
  target.py             ``Target``: what a profile runs, a cell's function or a function with its arguments
  calls.py              ``CellCalls``: every call of the target counted (``ProfileRun.cell_runs``), the namespace
                        reset before each
  input_feed.py         a sequence of inputs (``--inputs``, ``profile(fn, inputs=...)``), checked, by signature
  locator.py            ``CellLocator``: which cell line a (file, line, code) a trace names is
  names.py              the global names code reads, and values put in their place for a while
  reachable_tensors.py  the tensors a namespace reaches (through modules, optimizers, containers), by name
  random_state.py       the random generators the code draws from, taken and put back
  optimizers.py         the optimizers and LR schedulers the code reads, as each variant finds them
  mutable_state.py      ``MutableState``: the tensors a run changes in place, saved and put back between runs
  plain_state.py        what the cell changes in place, copied after its first run and put back at the end
  caller_stack.py       the stack torch's lazy-init bookkeeping formats, without the profiler's frames
"""
