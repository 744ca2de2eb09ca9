"""How fast across a collection of models: ``compile-profile suite COLLECTION`` and ``compile_profile.suite(...)``.

A *collection* is a Python file whose ``models()`` returns ``{name: builder}``, each builder a function of no
arguments returning ``(fn, args)``, ``fn(*args)`` the step to profile (``collection.py`` says the richer forms:
``Model`` with per-model options, a builder taking ``train``, ``Skip``).  A *suite* profiles each entry of a
collection in a process of its own and keeps, per entry, what became of the process and the run it stored.

The sub-package is layered as the rest of the house, each module depending only on those above it:

  records.py     the stored facts (``SuiteRecord``, ``ModelOutcome``): plain dataclasses, their schema generated
  builders.py    what a collection's ``models()`` returns (a builder, ``Model``, ``Skip``), and ``step``
  collection.py  loading a collection (a file, or ``builtin``), its entries by task and dtype, a shard of them
  child.py       one entry in its own process: build it, ``compile_profile.profile`` it, store the run
  zygote.py      on a CPU, the process each entry's child is forked from, torch's compiler imported once
  runner.py      the parent: a child per entry, its time limit, crash, hang and out-of-memory kept to that entry,
                 each outcome stored as it ends (so a suite resumes), progress events
  storage.py     a suite in the run store (``store.RunStore``'s suite tables, migration 6) and merging stores
  setup.py       where a suite ran and with what (torch, device, host, threads, settings), worded
  digest.py      every figure and sentence a view shows, derived once from the record and the runs' digests
                 (status by the card's verdict, pass rate, the geomean and its interval, flags); ``SuiteDigest``
  compare.py     the ``--json`` export, and two suites side by side: status changes first, ratios with
                 intervals, regressions beyond both intervals flagged (``--fail-on-regression``)
  charts.py      the plotly figures (the speedup bar per model, compile time against speedup) from the digest
  views.py       text, the self-contained HTML report, the notebook's MIME bundle, the progress line
  contract.py    the JSON Schema of every shape above (``schema/suite.schema.json``), from their dataclasses
  http.py        what the server answers (``suites`` with each suite's headline, cached in the store;
                 ``suites/<id>``, ``suites/<id>/report``, ``suites/<id>/compare/<old>``; DELETE is the store's
                 ``delete_suite``)
  api.py         ``compile_profile.suite(...)`` and the ``SuiteResult`` it returns (a card in a notebook)
  cli.py         the ``suite`` and ``suite-compare`` subcommands, registered by ``compile_profile.cli``
  builtin.py     the built-in collection: models from configurations with random weights, no downloads

The engine, ``ProfileRun``, the digest and the store are used through their public functions only
(``compile_profile.profile``, ``ProfileRun.from_dict``, ``digest.summarize``, ``stats``, ``RunStore``).
"""

from __future__ import annotations

from .builders import Model, Skip, step

__all__ = ["Model", "Skip", "step"]
