"""What every part of the engine uses, at the bottom so that every import points down to it: what an exception
becomes in a run, torch's stack-trace text, the device and how to wait for it, what the installed torch offers, and
what kind of time an op or kernel is by its name.

Contract: these modules import nothing else of the engine (``ProfileRun`` aside), keep no state between
profiles, and change nothing in torch.

  errors.py          an exception as the run's ``ErrorInfo`` (one line, cell line, traceback), memory let go
                     after a failed call, ``OptionError`` for what the profiler refuses
  stack_text.py      torch's stack-trace text (``node.meta["stack_trace"]``, a trace's stacks) read as frames
  device.py          the device a profile ran on as the run names it, waiting for it, the host memory free
  torch_features.py  what the installed torch offers (provenance tracking, caller lines, cache entries' backend),
                     detected rather than assumed from its version
  op_kinds.py        the kind an op, kernel or collective is (library, generated, ATen, copy, collective)
"""
