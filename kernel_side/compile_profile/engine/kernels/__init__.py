"""Where a call's time goes, measured after the timed samples so they stay clean: one ``torch.profiler`` pass per
variant, eager's and every compiled one's alike, each by its attribution rule (eager's: every op on its cell line;
a compiled variant's: each event tied to a kernel of its output code), the time split by kind, each kernel's
roofline figures against the device's ceilings, and the large tensors a cell keeps priced by copy bandwidth.

Contract: per-call figures are medians over the profiled calls a busy machine did not preempt; on CPU the
profiler's own cost per op event is calibrated and taken out; what cannot be tied to a kernel is kept as unmatched
time, never dropped.  The pass writes only ``Kernel`` time fields and each variant's ``kernel_profile``.

  profiler_pass.py     the one pass: ``measure_variant`` with a variant's ``AttributionRule``, ``record_trace``
  profiler_session.py  a profiler session started and stopped quietly, a user's cProfile put back
  profiler_cost.py     the profiler's own cost per op event, calibrated in the process
  profiled_calls.py    which profiled calls the figures come from, and how they combine
  chrome_trace.py      the exported Chrome trace read as nested host and device events
  line_marks.py        profiler ranges named after the cell line running, and time per line
  eager_times.py       eager's rule: every op of the call, by kind, on its cell line
  attribution.py       a compiled variant's events tied to its kernels and extern calls
  index.py             the output-code modules a pass saw run, their call sites in order
  compiled_times.py    a compiled variant's rule: its calls combined, its kernels' times written
  breakdown.py         the host rule: an op's host time split by kind
  roofline.py          the device's ceilings and each kernel's FLOP rate and bandwidth against them
  kept_tensors.py      large tensors a cell keeps that later lines read, priced at copy bandwidth
  stage.py             stage 6: every variant's pass, roofline figures, the peak-memory ratio
"""
