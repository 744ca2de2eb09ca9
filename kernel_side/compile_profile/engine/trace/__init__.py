"""What torch's structured trace (``TORCH_TRACE``, what tlparse reads) says a compile did, read as ``ProfileRun``
parts: graphs, graph breaks, recompiles with their failed guards, guards, compile phases and spans, cache hits and
misses, the kernels Inductor wrote with their cell lines, max-autotune's choices, DDPOptimizer's splits.

Contract: events come from the in-process capture of a live profile (``capture``) or from a log file on disk
(``log_file``, anyone's log, read within ``TraceLimits``); both go through the same handlers (``model``), one per
event kind.  A record is checked against its kind's types before any handler reads it (``records``); an event a
handler cannot read is skipped and counted, never fatal.  ``log_import`` returns runs; storing them is the
caller's (``store.imported``).  Nothing here times or words anything.

  capture.py       the structured trace captured in-process (a handler on ``torch.__trace``), events parsed once
  records.py       one record's checked shape per event kind, JSON without NaN
  log_file.py      the same events read from a ``TORCH_TRACE`` log, streamed, within ``TraceLimits``
  sources.py       the files a trace names, read only under the source-roots rule
  log_import.py    a log of any run (a script, a torchrun job's ranks) as runs with no timings
  model/           one handler per trace event kind, building a variant's graphs, breaks, kernels, caches
  guards.py        Dynamo's guards: what each checks, on which value, from which line
  stack_slots.py   a guard on a stack slot named as the code names the value
  output_code.py   Inductor's output code split into kernels and call sites
  mode_events.py   max-autotune's choices and CUDA graphs' skip reasons
  reproducer.py    a failed compile's reproducer script, from torch's ``fx_graph_runnable`` artifact
"""
