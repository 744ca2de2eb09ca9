"""One entry of a suite, in a process of its own: ``python -m compile_profile.suites.child SPEC.json``.

The runner (``runner.py``) writes the spec (the collection, the entry, the profile's options, the store, where to
answer) and starts this module; it builds the entry, profiles it with ``compile_profile.profile``, stores the run
and writes its answer as JSON to the spec's ``result`` path: ``{"ended": "finished", "run_id": ...}``, or
``"error"`` / ``"oom"`` with the message where building or profiling raised.  A crash, a hang or the kernel's
OOM killer leaves no answer; the runner words those from the exit status.  The answer is written before the
interpreter exits, so a crash at exit (torch's threads) does not undo a finished profile.

faulthandler is on, so a segfault leaves its Python stack in the process's stderr, which the runner keeps the end
of.  Nothing here is worded for the user beyond the exception's own message.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import time
from typing import Any

from .records import OOM_PATTERN


def is_oom(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or bool(OOM_PATTERN.search(f"{type(exc).__name__}: {exc}"))


def _answer(path: str, payload: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(payload, f)
    os.replace(tmp, path)  # the runner never reads half an answer


def _failure(exc: BaseException, stage: str) -> dict[str, Any]:
    message = f"{type(exc).__name__}: {exc}".strip()
    return {"ended": "oom" if is_oom(exc) else "error", "stage": stage, "error": message[:2000]}


def run(spec: dict[str, Any]) -> dict[str, Any]:
    from ..profile_run import SuiteEntryRef
    from ..store import RunStore
    from . import collection as collections

    started = time.perf_counter()
    try:
        fn, args, own = collections.build_named(
            spec["collection"], spec["tasks"], spec["dtypes"], spec.get("size", "small"), spec["entry"]
        )
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return _failure(exc, "build")
    import compile_profile

    options = {**spec["options"], **own, "label": spec["label"]}
    try:
        run_ = compile_profile.profile(fn, *args, **options)
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return _failure(exc, "profile")
    run_.suite_entry = SuiteEntryRef(suite_id=spec["suite_id"], entry=spec["entry"])
    with RunStore(spec["db"]) as store:
        store.put(run_)
    return {"ended": "finished", "run_id": run_.id, "profile_s": time.perf_counter() - started}


def main(argv: list[str]) -> int:
    faulthandler.enable()
    with open(argv[0], encoding="utf-8") as f:
        spec = json.load(f)
    answer = run(spec)
    _answer(spec["result"], answer)
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
