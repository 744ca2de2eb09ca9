"""``launch``: run a ``torchrun`` job from a notebook and get back the jobs it profiled.

A multi-process step cannot run inside the notebook's kernel: each rank is a process of its own.
``launch(script, *args, nproc=2)`` runs PyTorch's own launcher,
``python -m torch.distributed.run --standalone --nproc-per-node N script *args``, as a subprocess,
with ``COMPILE_PROFILE_DB`` pointing at the run store the notebook's panel reads, so every rank's
``run.save()`` lands there.  The ranks' output is streamed to the notebook as it comes, each line
prefixed by torchrun with its local rank (``[default1]:``).

It returns the ``Job`` of every job whose runs were written during the launch, oldest first, so
``launch(...)[-1]`` shows the last job's view.  A rank that fails raises ``LaunchError`` naming the rank,
its exit code and the last lines of its output (all of it is in ``.output``); a ``timeout`` kills the
whole process group (torchrun and every rank) and raises ``LaunchTimeout``.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .job import Job

TAIL_LINES = 40  # lines of the failing rank's output the error message quotes
_GRACE_S = 5.0  # after SIGTERM, before SIGKILL
# torchrun's failure report: "rank      : 1 (local_rank: 1)" then "exitcode  : 3 (pid: 123)"
_FAILURE = re.compile(r"^\s*rank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\)\s*\n\s*exitcode\s*:\s*(-?\d+)", re.M)


class LaunchError(RuntimeError):
    """The job failed: ``rank`` (None if torchrun itself failed), ``exit_code``, ``returncode`` and all ``output``."""

    def __init__(
        self,
        message: str,
        *,
        output: str,
        returncode: int | None,
        rank: int | None = None,
        exit_code: int | None = None,
    ):
        super().__init__(message)
        self.output, self.returncode, self.rank, self.exit_code = output, returncode, rank, exit_code


class LaunchTimeout(LaunchError, TimeoutError):
    """The job ran past ``timeout`` and its process group was killed."""


def launch(
    script: str | os.PathLike[str],
    *args: object,
    nproc: int = 2,
    db: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    env: dict[str, str] | None = None,
) -> list[Job]:
    """Run ``script *args`` on ``nproc`` ranks with torchrun; return the jobs its ranks saved, oldest first.

    ``db``: the run store the ranks save to (default: the one the panel reads, ``$COMPILE_PROFILE_DB`` or the
    Jupyter data directory's).  ``env``: variables added to the ranks' environment.  ``timeout``: seconds
    before the whole job is killed.
    """
    if not isinstance(nproc, int) or isinstance(nproc, bool) or nproc < 1:
        raise ValueError(f"nproc must be a positive integer, not {nproc!r}")
    from .store import RunStore

    store = RunStore(db)
    child_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {}), "COMPILE_PROFILE_DB": str(store.path)}
    since = float(int(time.time()))  # run timestamps have whole seconds
    before = _run_ids_since(store, since)
    with tempfile.TemporaryDirectory(prefix="compile-profile-launch-") as logs:
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={nproc}",
            "--tee=3",
            f"--log-dir={logs}",
            os.fspath(script),
            *map(str, args),
        ]
        output, returncode, timed_out = _run(cmd, child_env, timeout)
    if timed_out:
        raise LaunchTimeout(
            f"the job did not finish in {timeout:g} s: its process group (torchrun and all {nproc} ranks) was "
            f"killed. The last lines of its output:\n{_tail(output.splitlines())}",
            output=output,
            returncode=returncode,
        )
    if returncode != 0:
        raise _failure(output, returncode)
    with store:
        return _jobs_since(store, since, before)


def _run(cmd: list[str], env: dict[str, str], timeout: float | None) -> tuple[str, int, bool]:
    """Run ``cmd`` in a process group of its own, echoing its output; (output, return code, timed out)."""
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        bufsize=1,
        start_new_session=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    deadline = None if timeout is None else time.monotonic() + timeout
    seen: list[str] = []
    timed_out = False
    exited_at = None
    try:
        while True:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                line = ""
            if line is None:
                break
            if line:
                seen.append(line)
                sys.stdout.write(line)
                sys.stdout.flush()
            if deadline is not None and not timed_out and time.monotonic() > deadline:
                timed_out = True
                _kill_group(proc)
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and not line and time.monotonic() - exited_at > _GRACE_S:
                break  # torchrun is gone but a process it left holds the pipe open: the job is over
        proc.wait()
    except BaseException:  # an interrupt in the notebook stops the whole job, not just torchrun
        _kill_group(proc)
        raise
    return "".join(seen), proc.returncode, timed_out


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM to torchrun and its ranks (torchrun passes it on and reports), SIGKILL to what is left."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is gone
    proc.wait()


def _tail(lines: list[str], n: int = TAIL_LINES) -> str:
    return "\n".join(lines[-n:]) if lines else "(no output)"


def _failure(output: str, returncode: int) -> LaunchError:
    """The error of a failed job: the first failing rank (torchrun's root cause), its exit code, its last lines."""
    root = output.rfind("Root Cause")
    match = _FAILURE.search(output, root if root >= 0 else 0)
    if match is None:
        return LaunchError(
            f"torchrun exited with code {returncode}. The last lines of its output:\n{_tail(output.splitlines())}",
            output=output,
            returncode=returncode,
        )
    rank, local_rank, code = (int(g) for g in match.groups())
    how = f"exit code {code}"
    if code < 0:
        try:
            how = f"exit code {code} (killed by {signal.Signals(-code).name})"
        except ValueError:
            pass
    prefix = f"[default{local_rank}]:"
    own = [line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix)]
    others = sorted({int(r) for r, _, _ in _FAILURE.findall(output)} - {rank})
    also = f" (ranks {', '.join(map(str, others))} failed too)" if others else ""
    return LaunchError(
        f"rank {rank} failed with {how}{also}. The last lines of its output:\n{_tail(own)}",
        output=output,
        returncode=returncode,
        rank=rank,
        exit_code=code,
    )


def _created_ts(summary: dict) -> float:
    from .store.runs import epoch_seconds

    return epoch_seconds(summary.get("created_at", ""))


def _summaries_since(store, since: float) -> list[dict]:
    """Summaries of the runs created at or after ``since``, oldest first."""
    found: list[dict] = []
    page = 50
    while True:
        batch = store.list(limit=page, offset=len(found))
        recent = [s for s in batch if _created_ts(s) >= since]
        found += recent
        if len(recent) < len(batch) or len(batch) < page:
            return found[::-1]


def _run_ids_since(store, since: float) -> set[str]:
    with store:
        return {s["id"] for s in _summaries_since(store, since)}


def _jobs_since(store, since: float, before: set[str]) -> list[Job]:
    job_ids: list[str] = []
    for summary in _summaries_since(store, since):
        job_id = (summary.get("distributed") or {}).get("job_id")
        if summary["id"] not in before and job_id and job_id not in job_ids:
            job_ids.append(job_id)
    return [Job(store.job(job_id)) for job_id in job_ids]
