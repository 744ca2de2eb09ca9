"""The measuring core: run a cell eagerly and under ``torch.compile``, and write a ``ProfileRun``.

Nothing here words a figure for a reader (that is ``compile_profile.digest``) or lays one out
(``compile_profile.render``); the engine writes plain data.  Its modules, in the order a profile
uses them:

  options.py           ``ProfileOptions`` and the one option table (magic arguments, usage, README)
  cell.py              a notebook cell as a function Dynamo can compile, and its namespace contract
  profiler.py          ``profile`` / ``profile_cell``: the session that runs the stages below
  distributed.py       a profile on every rank of a torch.distributed job: lock-step decisions, the job id
  cell_calls.py        every call of the cell, counted, and the one namespace reset before it
  inputs.py            a sequence of inputs (profile(fn, inputs=...), --inputs NAME=ITERABLE), checked, by signature
  variants.py          which compiled variants to run, and the ``torch.compile`` call each stands for
  backend.py           the recording backend: a plain function from graph to Inductor's callable
  compile_stage.py     stage 2: each variant's first call under trace capture; recompiles after it
  trace_capture.py     the structured trace (``torch.__trace``) captured in-process, events parsed once
  trace_file.py        the same events read from a TORCH_TRACE log file (recorded fixtures, other runs)
  trace_import.py      a TORCH_TRACE log of any run (a script, a torchrun job's ranks) as a run with no timings
  trace_model/         one small handler per trace event -> graphs, breaks, kernels, cache, phases
  mode_events.py       max-autotune choices and CUDA-graph skip reasons from the trace
  guards.py            Dynamo's guards from the trace: what each checks, on which value, from which line
  output_code.py       Inductor's output code split into kernels
  measure.py           stages 3-6: interleaved timing, correctness, peak memory, the profiler pass
  sequence.py          the timing stage over a sequence of inputs: each input run in order (its recompiles,
                       eager against compiled on it), then each signature timed apart
  timing.py            interleaved steady-state timing and the speedup's interval
  host_load.py         other processes' CPU use while timing, this process's threads' waits for a CPU;
                       threads_trial.py: eager timed again at the free cores' thread count
  correctness.py       eager vs compiled outputs, judged against a float64 reference (reference.py)
  after_timing.py      figures measured after timing: kernel times (kernel_profiler.py, which runs
                       torch.profiler, and kernel_attribution.py, which assigns its events to kernels,
                       reading chrome_trace.py and kernel_index.py; eager_profile.py, the same pass for
                       the eager variant, with its time per cell line; kernel_breakdown.py, library,
                       generated, ATen and copy time per call; profiler_cost.py, the profiler's cost
                       per op, calibrated and taken out on CPU), roofline ceilings (roofline.py),
                       memory ratio
  optimizer_state.py   optimizers as each variant finds them; kept.py: large tensors a cell keeps
  random_state.py      the random generators the cell draws from, taken and put back
  cell_state.py        what the cell changes in place (weights, optimizer state, buffers, lists), copied after
                       its first run and put back at the end, as one plain run leaves it
  dynamo_state.py      Dynamo's caches left as the profile found them
  device.py reachable.py failures.py stack.py torch_features.py
                       the device of a run, the tensors a namespace reaches, what an exception
                       becomes, torch's stack-trace text, and what the installed torch offers
"""
