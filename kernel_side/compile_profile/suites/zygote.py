"""A process that imports torch, Dynamo and Inductor once and forks a CPU suite's entries from there, so that each
entry's process starts with what every entry imports: ``python -m compile_profile.suites.zygote``.

Why: a fresh process spent about 5 s of a small CPU entry's 11 s importing (torch 1 s, then Dynamo, AOTAutograd and
Inductor on the first compile, 4 s; measured on the 2-core machine, 2026-12-05), the same 5 s for each of a
collection's entries.  A forked child has its own memory, pid and session as a fresh one has: a crash, a hang or an
out-of-memory still ends that entry only, and the runner ends its process group at the time limit as before.

CPU suites only: CUDA must not be touched before a fork (a child then cannot use it), and nothing here touches it,
but an import that did would break every GPU entry; on a GPU each entry takes minutes, so its 5 s are not worth it.

Protocol, one line of JSON per message over stdin/stdout: this process writes ``{"ready": 1}`` once imported; the
runner writes ``[spec_path, log_path]``; this process forks, and writes ``{"pid": PID}`` once the child runs, then
``{"exit": CODE}`` when it ended (the negated signal number when a signal ended it, as ``subprocess`` gives it).
The child starts a session of its own, sends its stdout and stderr to ``log_path`` and runs
``child.main([spec_path])``.  End of input ends this process.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import BinaryIO

# What every entry imports before its first compile ends (the child's own imports come along with them).
PRELOAD = ("torch", "torch._dynamo", "torch._functorch.aot_autograd", "torch._inductor.compile_fx")


def _preload() -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    import compile_profile  # noqa: F401  (the engine and its profile(), as the child calls it)

    from . import child  # noqa: F401


def _run_child(spec_path: str, log_path: str) -> int:
    """In the forked child: a session of its own, stdio to the log, the entry run; never returns to the loop."""
    code = 1
    try:
        os.setsid()  # a process group of its own: the runner's kill at the time limit reaches its compile workers
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(devnull)
        from .child import main

        code = main([spec_path])
    except BaseException:  # noqa: BLE001 - whatever ends the entry ends this process with its traceback in the log
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)  # no atexit of the zygote's (it would run the parent's handlers), no return into its loop


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """Fork one child per request line, answering its pid and then its exit code; returns at end of input."""

    def say(message: dict[str, int]) -> None:
        answers.write(json.dumps(message).encode() + b"\n")
        answers.flush()

    for line in requests:
        spec_path, log_path = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(str(spec_path), str(log_path))
        say({"pid": pid})
        _, status = os.waitpid(pid, 0)
        say({"exit": os.waitstatus_to_exitcode(status)})


def main() -> int:
    _preload()
    sys.stdout.buffer.write(b'{"ready": 1}\n')
    sys.stdout.buffer.flush()
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
