"""Profiling on every rank of a ``torch.distributed`` job, in lock-step.

Contract: when ``torch.distributed`` is initialised, one ``profile`` call on every rank is one *job*.
Every rank makes the same calls of the step, in the same order, in every stage (first calls,
warm-up, timed samples, correctness, memory, the profiler pass), so the collectives inside the step
(DDP's gradient all-reduce, FSDP's all-gathers) always meet their partners.  Most counts are fixed
by the options; where a measurement decides one (calls per timed sample, when the timed rounds
stop, the profiler pass's calls, which variants compiled, which variant the correctness check runs)
the decision is rank 0's, shared with ``shared``, or all ranks' (``all_ranks``).  Outside a job
both are the identity, so single-process profiles take exactly the same path.

The decisions travel over a gloo group of the profile's own, made at the start and destroyed at
the end (on error too): they need no device synchronisation and never queue behind the step's own
NCCL work on the device.  Its timeout (``COMPILE_PROFILE_DIST_TIMEOUT`` seconds, default 600)
turns a rank that never arrives (it raised, took another path, or never called ``profile``) into a
``RanksOutOfStep`` error that says so instead of a hang; the session keeps what it measured before.

``job`` yields the run's ``DistributedRank``: rank, world size, the default group's backend, the
job id (rank 0 makes one per profile call and shares it), local rank, host and torchrun's run id.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import os
import socket
import uuid
from collections.abc import Iterator
from typing import Any, TypeVar, cast

import torch

from ...profile_run import DistributedRank

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 600.0
# torchrun's default --rdzv-id; a run id that names no job
_NO_RUN_ID = {"", "none"}


class RanksOutOfStep(RuntimeError):
    """A rank waited longer than the timeout for the others at one of the profile's shared decisions."""


def _out_of_step(exc: Exception, where: str) -> RanksOutOfStep:
    import torch.distributed as dist

    return RanksOutOfStep(
        f"rank {dist.get_rank()} waited more than {timeout_s():g} s (COMPILE_PROFILE_DIST_TIMEOUT) for the other "
        f"ranks {where}: call compile_profile.profile on every rank of the job, with the same step and options, "
        f"at the same point of the script ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    )


class Lockstep:
    """The profile's control channel between ranks (a gloo group, or the default group without gloo)."""

    def __init__(self, group: Any):
        import torch.distributed as dist

        self.dist = dist
        self.group = group

    def shared(self, value: T) -> T:
        """Rank 0's ``value``, on every rank."""
        box = [value]
        try:
            self.dist.broadcast_object_list(box, src=0, group=self.group)
        except Exception as exc:
            raise _out_of_step(exc, "at a decision rank 0 shares") from exc
        return box[0]

    def gathered(self, value: T) -> list[T]:
        """Every rank's ``value``, in rank order."""
        out: list[Any] = [None] * self.dist.get_world_size(self.group)
        try:
            self.dist.all_gather_object(out, value, group=self.group)
        except Exception as exc:
            raise _out_of_step(exc, "at a check every rank answers") from exc
        return out


_active: contextvars.ContextVar[Lockstep | None] = contextvars.ContextVar("compile_profile_lockstep", default=None)


def shared(value: T) -> T:
    """Rank 0's ``value`` in a job (the decision every rank follows); ``value`` itself outside one."""
    lockstep = _active.get()
    return value if lockstep is None else lockstep.shared(value)


def ranks_where_false(flag: bool) -> list[int]:
    """The ranks whose ``flag`` is False (``[0]`` or ``[]`` outside a job)."""
    flags = job_gathered(bool(flag))
    return [rank for rank, ok in enumerate(flags) if not ok]


def job_gathered(value: T) -> list[T]:
    """Every rank's ``value`` in rank order (``[value]`` outside a job)."""
    lockstep = _active.get()
    return [value] if lockstep is None else lockstep.gathered(value)


def timeout_s() -> float:
    raw = os.environ.get("COMPILE_PROFILE_DIST_TIMEOUT", "").strip()
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        raise ValueError(f"COMPILE_PROFILE_DIST_TIMEOUT={raw!r} is not a number of seconds") from None


@contextlib.contextmanager
def job() -> Iterator[DistributedRank | None]:
    """The profile's place in a distributed job, with the lock-step channel open; None outside a job.

    Every rank must enter it (making the control group is itself a collective)."""
    if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
        yield None
        return
    import torch.distributed as dist

    timeout = datetime.timedelta(seconds=timeout_s())
    own_group = dist.is_gloo_available()
    try:
        # every rank joins (no ranks=): new_group gives a ProcessGroup, never NON_GROUP_MEMBER (an int)
        group = cast("dist.ProcessGroup | None", dist.new_group(backend="gloo", timeout=timeout) if own_group else None)
    except Exception as exc:
        raise _out_of_step(exc, "to start the profile") from exc
    lockstep = Lockstep(group)
    token = _active.set(lockstep)
    try:
        rank = dist.get_rank()
        job_id = lockstep.shared(uuid.uuid4().hex[:12])  # rank 0's: the others' are replaced by it
        run_id = os.environ.get("TORCHELASTIC_RUN_ID", "")
        yield DistributedRank(
            rank=rank,
            world_size=dist.get_world_size(),
            backend=str(dist.get_backend()),
            job_id=job_id,
            local_rank=int(os.environ.get("LOCAL_RANK", rank)),
            host=socket.gethostname(),
            torchrun_id="" if run_id.strip().lower() in _NO_RUN_ID else run_id,
        )
        if own_group:
            # every rank leaves together: on torch 2.6 a rank destroying the group while another had
            # gone on to make the next profile's group hung both (2 of 4 torchrun launches)
            try:
                dist.barrier(group=group)
            except Exception:  # noqa: BLE001 - a rank already out of step (its run says so); destroy anyway
                pass
    finally:
        _active.reset(token)
        if own_group:
            dist.destroy_process_group(group)


def ddp_bucket_caps(values: list[Any]) -> list[int]:
    """The ``bucket_bytes_cap`` of each DistributedDataParallel module among ``values``."""
    try:
        from torch.nn.parallel import DistributedDataParallel
    except ImportError:  # a torch built without distributed support
        return []
    return [int(v.bucket_bytes_cap) for v in values if isinstance(v, DistributedDataParallel)]
