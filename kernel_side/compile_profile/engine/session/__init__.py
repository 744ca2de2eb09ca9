"""What one profile is and what its stages share: its options (the one option table the magic, ``profile()`` and
the README read), the typed ``Session`` every stage reads and adds to, the ``Stage`` a stage table is made of, and
the recompiles every stage records the same way.

Contract: a stage is a plain function of the ``Session`` (``run.stages.MEASURE_STAGES``); it reads what the stages
before it left there and writes its figures into ``session.run``.  Nothing here measures; the few methods are what
every stage does the same way (time itself, name the stage running, word an exception at its cell line, tag the
trace events of a variant's calls).

  options.py     ``ProfileOptions`` and the option table (the magic's flags, their usage line, the README's table)
  session.py     ``Session``, ``StageClock``, ``Stage`` and ``MismatchCase``
  recompiles.py  the compiles a variant's calls caused after its first call, recorded as recompiles
"""
