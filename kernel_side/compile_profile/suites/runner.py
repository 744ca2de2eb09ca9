"""The suite's parent process: each entry in a child process of its own, each outcome stored as the child ends.

Contract: ``open_suite`` starts a suite or joins a stored one (``suite_id``: a shard of it, or a resume; ``resume``
without an id: the newest unfinished suite of the same collection and settings) and refuses to continue one whose
settings or collection differ, naming what differs.  ``run_suite`` then runs every entry of the shard that has no
outcome yet, one child at a time (``python -m compile_profile.suites.child``; on a CPU forked from ``zygote.py``'s
process, which has imported torch's compiler once for every entry), and stores each ``ModelOutcome`` in the run
store the moment its child ends, so an interrupted suite loses at most the entry that was running.

A child runs in a session of its own: at the time limit its whole process group (Inductor's compile workers too)
gets SIGTERM, then SIGKILL after ``KILL_GRACE_S``; Ctrl-C in the parent does the same before it propagates.  How
a child ended is read from its answer file, else from its exit status: a signal is ``crashed`` with the signal's
name, except SIGKILL we did not send, which is how Linux's out-of-memory killer ends a process (``oom``).
Progress goes to ``on_event`` (the CLI words it, ``views.progress_text``); the runner prints nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..store import RunStore
from .builders import Model
from .collection import Collection, Entry, Skip, shard
from .records import ModelOutcome, SuiteRecord, SuiteSettings
from .storage import load_suite, save_outcome, stored_suites

KILL_GRACE_S = 3.0  # after SIGTERM at the time limit, before SIGKILL
STDERR_TAIL_LINES = 12


class SuiteError(ValueError):
    """A suite that cannot start or continue; the message says what to fix."""


@dataclass(frozen=True)
class Progress:
    """What the runner is doing: an entry starting or ending (with its outcome), which of how many, and the time
    the remaining entries should take at the mean time of those that ended (None before any has)."""

    kind: str  # "start", "end"
    index: int  # 1-based among the entries this process runs
    total: int
    entry: str
    outcome: ModelOutcome | None = None
    left_s: float | None = None
    skipped_done: int = 0  # entries of this shard that had ended before (a resume)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _device_and_torch() -> tuple[str, str, str, str]:
    """(the device type, torch's version, the device's name: the GPU's or else the CPU's, the host's CPU model)."""
    import torch

    from ..engine.common.device import cpu_name

    cpu = cpu_name()
    if torch.cuda.is_available():
        return "cuda", str(torch.__version__), torch.cuda.get_device_name(), cpu
    return "cpu", str(torch.__version__), cpu, cpu


# The option each setting comes from, where it has one, so a refused resume says what to type.
_SETTING_OPTIONS = {
    "timeout_s": "--timeout",
    "tasks": "--task",
    "dtypes": "--dtype",
    "size": "--size",
    "shards": "--shard",
}


def _then_now(name: str, then: SuiteSettings, now: SuiteSettings) -> str:
    """One differing setting, worded with both values: "--timeout 120 then, 100 now"; the entries by what was added
    or left out; the profile's options by the keys that differ."""
    old, new = getattr(then, name), getattr(now, name)
    what = _SETTING_OPTIONS.get(name, name.replace("_", " "))
    if name == "entries":
        gone = [e for e in old if e not in new]
        added = [e for e in new if e not in old]
        parts = [f"{len(old)} then, {len(new)} now"]
        if gone:
            parts.append("not asked now: " + ", ".join(gone[:3]) + (", …" if len(gone) > 3 else ""))
        if added:
            parts.append("new: " + ", ".join(added[:3]) + (", …" if len(added) > 3 else ""))
        return "entries: " + "; ".join(parts)
    if name == "profile_options":
        keys = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
        return "options " + ", ".join(f"{k}: {old.get(k)!r:.40} then, {new.get(k)!r:.40} now" for k in keys)
    if name == "collection_sha256":
        return "the collection's file changed since"
    if isinstance(old, float) and isinstance(new, float):
        return f"{what} {old:g} then, {new:g} now"
    return f"{what} {old!r:.60} then, {new!r:.60} now"


def open_suite(
    store: RunStore,
    settings: SuiteSettings,
    *,
    suite_id: str | None = None,
    resume: bool = False,
    label: str = "",
) -> tuple[SuiteRecord, bool]:
    """The suite to run: (its record, whether it was stored before).  Refused (``SuiteError``) where a stored suite
    of that id has other settings, or ``resume`` finds none to continue."""
    if suite_id is None and resume:
        for record in stored_suites(store, limit=200):
            if not record.settings.differences(settings) and len(record.outcomes) < len(settings.entries):
                return record, True
        raise SuiteError(
            f"no unfinished suite of {settings.collection} with these settings to resume in {store.path}: "
            "`compile-profile suite --list` shows the stored suites; --suite-id ID continues one by its id"
        )
    if suite_id is not None:
        try:
            record = load_suite(store, suite_id)
        except KeyError:
            record = None
        if record is not None:
            differ = record.settings.differences(settings)
            if differ:
                then_now = "; ".join(_then_now(name, record.settings, settings) for name in differ)
                raise SuiteError(
                    f"suite {suite_id} was started with other settings ({then_now}): run it with the same collection "
                    "and options, or give another --suite-id"
                )
            return record, True
    device, torch_version, device_name, cpu = _device_and_torch()
    record = SuiteRecord(
        id=suite_id or uuid.uuid4().hex[:12],
        created_at=_now(),
        settings=settings,
        torch_version=torch_version,
        device=device,
        host=socket.gethostname(),
        label=label,
        device_name=device_name,
        cpu=cpu,
        cores=os.cpu_count() or 0,
    )
    if not store.put_suite(record.id, record.created_at, json.dumps(record.to_dict())):
        return load_suite(store, record.id), True  # another shard stored it first
    return record, False


def run_suite(
    store: RunStore,
    record: SuiteRecord,
    collection: Collection,
    entries: list[Entry],
    *,
    shard_of: tuple[int, int] = (1, 1),
    on_event: Callable[[Progress], None] = lambda _: None,
    python: str = sys.executable,
    fork: bool = True,
) -> SuiteRecord:
    """Run the entries of shard ``shard_of`` (I, N) that have no outcome in ``record`` yet; returns the record as
    stored at the end (every shard's outcomes so far).  On a CPU, where two entries or more are to run, each child
    is forked from a process that has imported torch, Dynamo and Inductor (``zygote.py``: its imports are what one
    fresh child pays, so for one entry it would save nothing); ``fork=False`` starts each afresh."""
    mine = shard(entries, *shard_of)
    done = {o.name for o in record.outcomes}
    todo = [e for e in mine if e.name not in done]
    profiled = sum(1 for e in todo if not isinstance(e.spec, Skip))
    forks = fork and profiled >= 2 and record.device == "cpu" and _can_fork()
    zygote = Zygote(python) if forks else None
    try:
        return _run_entries(store, record, collection, todo, len(mine), shard_of, on_event, python, zygote)
    finally:
        if zygote is not None:
            zygote.close()


def _run_entries(
    store: RunStore,
    record: SuiteRecord,
    collection: Collection,
    todo: list[Entry],
    mine: int,
    shard_of: tuple[int, int],
    on_event: Callable[[Progress], None],
    python: str,
    zygote: Zygote | None,
) -> SuiteRecord:
    durations: list[float] = []

    def left_after(index: int) -> float | None:  # the mean entry's time, for each entry still to run that is no Skip
        rest = sum(1 for e in todo[index:] if not isinstance(e.spec, Skip))
        return sum(durations) / len(durations) * rest if durations else None

    for index, entry in enumerate(todo, start=1):
        left = left_after(index - 1)
        on_event(Progress("start", index, len(todo), entry.name, left_s=left, skipped_done=mine - len(todo)))
        outcome = run_entry(store, record, collection, entry, shard_index=shard_of[0], python=python, zygote=zygote)
        save_outcome(store, record.id, outcome)
        if outcome.ended != "skipped":
            durations.append(outcome.wall_s)
        on_event(Progress("end", index, len(todo), entry.name, outcome, left_s=left_after(index)))
    return load_suite(store, record.id)


def run_entry(
    store: RunStore,
    record: SuiteRecord,
    collection: Collection,
    entry: Entry,
    *,
    shard_index: int = 1,
    python: str = sys.executable,
    zygote: Zygote | None = None,
) -> ModelOutcome:
    """Run one entry in a child process (forked by ``zygote`` where one is given and answers) and say how it ended."""
    base = {
        "name": entry.name,
        "model": entry.model,
        "task": entry.task,
        "dtype": entry.dtype,
        "shard": shard_index,
    }
    if isinstance(entry.spec, Skip):
        return ModelOutcome(**base, ended="skipped", error=entry.spec.reason, finished_at=_now())
    settings = record.settings
    timeout_s = (entry.spec.timeout_s if isinstance(entry.spec, Model) else None) or settings.timeout_s
    with tempfile.TemporaryDirectory(prefix="compile-profile-suite-") as tmp:
        result_path = os.path.join(tmp, "result.json")
        spec = {
            "collection": os.path.abspath(collection.source) if collection.source != "builtin" else "builtin",
            "entry": entry.name,
            "tasks": settings.tasks,
            "dtypes": settings.dtypes,
            "size": settings.size,
            "options": settings.profile_options,
            "label": f"{entry.name} · suite {record.id}",
            "suite_id": record.id,  # recorded on the run (``SuiteEntryRef``): the panel's Re-run names the entry
            "db": str(store.path),
            "result": result_path,
        }
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        log_path = os.path.join(tmp, "child.log")
        started = time.perf_counter()
        with open(log_path, "wb") as log, _child(python, spec_path, log, log_path, zygote) as child:
            killed = _wait(child, timeout_s)
        wall = time.perf_counter() - started
        tail = _tail(log_path)
        answer = _read_answer(result_path)
    facts: dict[str, Any] = {**base, "wall_s": wall, "stderr_tail": tail, "finished_at": _now()}
    code = child.returncode
    if answer is not None:
        return ModelOutcome(
            **facts,
            ended=answer.get("ended", "error"),
            run_id=answer.get("run_id"),
            exit_code=code,
            error=str(answer.get("error", "")),
            stage=str(answer.get("stage", "")),
        )
    if killed:
        return ModelOutcome(**facts, ended="timeout", error=f"still running after {timeout_s:g} s")
    if code is not None and code < 0:
        name = _signal_name(-code)
        if -code == signal.SIGKILL:
            return ModelOutcome(**facts, ended="oom", exit_code=code, signal=name, error="killed by SIGKILL")
        return ModelOutcome(**facts, ended="crashed", exit_code=code, signal=name, error=f"killed by {name}")
    return ModelOutcome(**facts, ended="crashed", exit_code=code, error=f"exited with status {code} and no answer")


@contextlib.contextmanager
def _child(
    python: str, spec_path: str, log: Any, log_path: str, zygote: Zygote | None
) -> Iterator[subprocess.Popen[bytes] | Forked]:
    child = zygote.fork(spec_path, log_path) if zygote is not None else None
    if child is None:  # no zygote, or it did not answer: a fresh process
        child = subprocess.Popen(
            [python, "-m", "compile_profile.suites.child", spec_path],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill reaches Inductor's compile workers too
            env=_child_env(),
        )
    try:
        yield child
    except BaseException:
        _kill(child)
        raise
    finally:
        if child.poll() is None:
            _kill(child)


def _child_env() -> dict[str, str]:  # the environment every child starts with
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}


def _can_fork() -> bool:
    return sys.platform == "linux" and hasattr(os, "fork")


class Zygote:
    """``python -m compile_profile.suites.zygote``: forks each entry's child from a process that has imported what
    every entry imports (zygote.py says why and how).  ``fork`` returns None when it cannot (it failed to start,
    or died): the runner then starts that entry, and every later one, afresh."""

    READY_S = 300.0  # its imports, on a busy machine
    ANSWER_S = 30.0  # a fork's pid

    def __init__(self, python: str) -> None:
        self._buffer = b""
        self._ready = False
        self._broken = False
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [python, "-m", "compile_profile.suites.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in a terminal is the runner's, which closes this
            env=_child_env(),
        )

    def message(self, timeout_s: float | None) -> dict[str, Any] | None:
        """The zygote's next message, or None when none came within ``timeout_s``; EOFError when it has ended."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise EOFError("the zygote ended")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        return message if isinstance(message, dict) else {}

    def fork(self, spec_path: str, log_path: str) -> Forked | None:
        if self._broken or self.process is None or self.process.stdin is None:
            return None
        try:
            if not self._ready:
                self._ready = self.message(self.READY_S) is not None
            if not self._ready:
                raise EOFError("no answer")
            self.process.stdin.write(json.dumps([spec_path, log_path]).encode() + b"\n")
            self.process.stdin.flush()
            answer = self.message(self.ANSWER_S)
            if answer is None or not isinstance(answer.get("pid"), int):
                raise EOFError("no pid")
            return Forked(self, answer["pid"])
        except (OSError, EOFError, ValueError):
            self._broken = True
            self.close()
            return None

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()  # end of input ends its loop
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


class Forked:
    """A child the zygote forked, with the part of ``subprocess.Popen`` the runner uses: ``pid`` (its process
    group's too), ``poll``, ``wait`` and ``returncode``."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._zygote = zygote

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self._read(timeout):
            raise subprocess.TimeoutExpired(f"entry {self.pid}", timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def _read(self, timeout_s: float | None) -> bool:
        try:
            message = self._zygote.message(timeout_s)
        except (OSError, EOFError, ValueError):  # the zygote died under it: its exit status is lost
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            self.returncode = 1
            return True
        if message is None:
            return False
        self.returncode = int(message.get("exit", 1))
        return True


def _wait(child: subprocess.Popen[bytes] | Forked, timeout_s: float) -> bool:
    """Wait for the child; at the limit end its process group. Whether it was killed at the limit."""
    try:
        child.wait(timeout=timeout_s)
        return False
    except subprocess.TimeoutExpired:
        _kill(child)
        return True


def _kill(child: subprocess.Popen[bytes] | Forked) -> None:
    for sig, grace in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, sig)
        try:
            child.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return lines[-STDERR_TAIL_LINES:]


def _read_answer(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as f:
            answer = json.load(f)
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None
