"""The top of the engine: the two entry points (a function, a notebook cell), the stage table a profile runs and
the session that runs it, and the stages that belong to no sub-system (the first and last eager runs, the compiled
variants' first calls, peak memory).

Contract: ``profile`` and ``profile_cell`` return a ``ProfileRun`` (plain data, ``compile_profile.profile_run``);
an interrupt or a failed stage keeps what was measured and says why; everything installed into torch is undone
afterwards, and the user's state ends as one plain run of the cell leaves it.

  api.py            ``profile(fn, *args)`` and ``profile_cell``: a target made and run
  stages.py         ``MEASURE_STAGES``, ``new_session``, ``run_session``: the stages in order, each guarded
  eager_runs.py     stage 1 and the last: the first eager run (the cell's real run) and the last, the state between
  compile_stage.py  stage 2: each compiled variant's first call under trace capture
  memory_stage.py   stage 5: each variant's peak memory on CUDA
"""
