"""What the cell changes in place, put back as one plain run of it leaves it.

A profile runs the cell hundreds of times (first calls, warm-up, timed samples, checks), and each run of a
training step steps the real optimizer on the same batch: after ``%%compile_profile`` of
``loss.backward(); opt.step()`` on a small model, AdamW's state counted 630 steps and the weights stood 0.175
away from one plain step.  ``%%timeit`` does the same, but a profiler that says the cell "runs as a plain cell
would" must leave the model as one plain run leaves it.  So:

1. before the first eager run, ``Before.take`` reads the version counter of every tensor the code can reach,
   a fingerprint of the values of its parameters and optimizer state (a fused optimizer's step moves no
   version counter), and which tensor each leaf's ``.grad`` is (nothing is copied);
2. right after it, ``Before.snapshot`` copies what that run changed or made (``Snapshot``): the tensors
   whose version or fingerprint moved (weights, ``x.add_(1)``'s ``x``), every module buffer (eager
   BatchNorm updates its running stats without moving their version), the state tensors it made (AdamW's
   ``exp_avg``, ``exp_avg_sq`` and ``step`` on its first step), the ``.grad`` it left on each leaf, and,
   by reference, the items of every list, dict, set and deque, and
   the attributes of the objects, it can reach (a list it appends to, an optimizer's per-parameter state
   and param groups, a module's parameter dicts where a parameter is replaced, an LR scheduler's epoch, a
   global a function of the notebook rebinds);
3. at the end of the profile (also after a failure or an interrupt), ``Snapshot.restore`` puts all of it
   back: tensors by ``copy_`` into the same objects (guards and other references to them stay valid),
   ``.grad`` as that run left it, containers and attributes by their items.  The namespace then keeps the
   first eager run's values, the run whose output was printed (``run.stages``), so everything the user sees
   is that one run's.

Reading the fingerprints costs one pass over each parameter and optimizer state tensor before the first eager
run and one after it.  The copy costs the bytes of what the first run changed: for an AdamW training step about
four times the parameters (the weights, their gradients, ``exp_avg`` and ``exp_avg_sq``).  It is kept beside the
tensors (on their GPU) where it takes at most ``SNAPSHOT_SHARE`` of the device's free memory, else in host
memory where it takes at most that share of what is free there (``MemAvailable``), else it is not taken:
the state then advances with every run, as before, and the run says how many runs it holds and what the
copy would have needed against what was free (``Note("state_advanced")``).  ``--restore`` takes it
whatever is free; ``--no-restore`` never takes it (``ProfileOptions.restore``).

Reached from: the values the code reads by name (through the notebook's functions it calls, as
``names.names_read`` finds them), the variables it closes over and its arguments
(``reachable_tensors.state_reach`` says what it walks).  Not covered: inference tensors (they keep no version
counter), state behind objects of other libraries' classes (a DataLoader's sampler), iterators and
generators (``replay`` gives the correctness runs the same items; a plain run's draw from them is the first
run's), files.  A tensor a later run changed that the first did not is named, not put back
(``Restored.not_restored``).
"""

from __future__ import annotations

import collections
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import torch

from ...profile_run import Note, NoteValue
from ..common.device import available_host_memory
from .names import names_read
from .reachable_tensors import Container, state_reach

if TYPE_CHECKING:
    from .target import Target

SNAPSHOT_SHARE = 0.5  # of the free memory where the copy is kept (the float64 reference takes the same share)
_ABSENT = object()  # a name the namespace did not hold


def host_memory_free() -> int | None:
    """Free host memory (``MemAvailable``), None where unknown; a test makes it small."""
    return available_host_memory()


def device_memory_free(device: torch.device) -> int | None:
    """Free memory of a CUDA device, None for another kind."""
    if device.type != "cuda":
        return None
    free, _ = torch.cuda.mem_get_info(device)
    return int(free)


def _version(t: torch.Tensor) -> int | None:
    """The tensor's version counter, None for one that keeps none (an inference tensor, a lazy parameter)."""
    try:
        return None if t.is_inference() else int(t._version)
    except (RuntimeError, ValueError):
        return None


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def roots_of(target: Target) -> tuple[list[tuple[str, Any]], dict[str, Any], list[str]]:
    """What the code reaches state through: (the values it reads by name, its closure's and its arguments, each
    with its name), the namespace its globals live in, and the names of it whose binding a run may change that
    the cell itself does not assign (a function's ``global counter``)."""
    fn = target.function
    namespace = target.globals
    names = names_read(fn, namespace)
    assigned = set(target.cell.initial) if target.cell is not None else set()
    roots = [(name, namespace[name]) for name in names]
    for name, cell in zip(
        getattr(getattr(fn, "__code__", None), "co_freevars", ()), getattr(fn, "__closure__", None) or ()
    ):
        try:
            roots.append((name, cell.cell_contents))
        except ValueError:  # a cell not yet bound
            pass
    if target.cell is not None:
        roots += list(zip(target.cell.parameters, target.arguments()))
    else:
        roots += [(f"argument {i}", value) for i, value in enumerate(target.arguments())]
    rebound = [name for name in names if name not in assigned and not isinstance(namespace[name], types.ModuleType)]
    return roots, namespace, rebound


# A tensor as it stands: its version counter and, for state (a parameter, an optimizer's state, a grad), a
# fingerprint of its values.  The version alone misses what some kernels change: a fused optimizer step
# (``AdamW(fused=True)``: ``_fused_adamw_``) and eager BatchNorm's running stats move no version counter (torch
# 2.13), and a profile of a BERT step left its weights 16 steps on with the version rule alone.
_Mark = tuple[int, "tuple[float, float] | None"]
_CHUNK = 1 << 24  # elements summed at a time in float64: at most 128 MiB of temporaries


def _fingerprint(t: torch.Tensor) -> tuple[float, float] | None:
    """The float64 sum and sum of squares of the tensor's values (of its local shard, for a DTensor, so that no
    collective runs), None where they cannot be read (sparse, meta)."""
    to_local = getattr(t, "to_local", None)  # DTensor.to_local
    local = cast(torch.Tensor, to_local()) if callable(to_local) else t
    x = local.detach()
    if x.layout != torch.strided or x.device.type == "meta":
        return None
    if x.is_complex():
        x = torch.view_as_real(x)
    total, squares = 0.0, 0.0
    try:
        with torch.no_grad():
            for chunk in x.reshape(-1).split(_CHUNK):
                wide = chunk.to(torch.float64)
                total += float(wide.sum())
                squares += float((wide * wide).sum())
    except (RuntimeError, TypeError):  # a dtype with no float64 view (quantized): its version counter decides
        return None
    return total, squares


def _mark(t: torch.Tensor, kind: str) -> _Mark | None:
    v = _version(t)
    if v is None:
        return None
    return v, _fingerprint(t) if kind == "state" else None


def _moved(before: _Mark, now: _Mark) -> bool:
    return before[0] != now[0] or (before[1] is not None and now[1] is not None and before[1] != now[1])


@dataclass
class Before:
    """The tensors' version counters and fingerprints, and the leaves' ``.grad``, before the first eager run
    (step 1)."""

    roots: list[tuple[str, Any]]
    namespace: dict[str, Any]
    rebound: list[str]  # names of ``namespace`` a run may rebind
    own_module: str
    marks: dict[int, tuple[torch.Tensor, _Mark]]
    grads: dict[int, tuple[torch.Tensor | None, _Mark | None]]  # leaf's id -> (its grad, the grad's mark)
    # after ``snapshot``: what the first run changed or made, by name (the correctness check restores these too)
    changed: list[tuple[torch.Tensor, str]] = field(default_factory=lambda: [])

    @classmethod
    def take(cls, target: Target) -> Before:
        roots, namespace, rebound = roots_of(target)
        own_module = str(namespace.get("__name__", "__main__"))
        reach = state_reach(roots, own_module=own_module)
        marks: dict[int, tuple[torch.Tensor, _Mark]] = {}
        grads: dict[int, tuple[torch.Tensor | None, _Mark | None]] = {}
        for t, _, kind in reach.tensors.values():
            mark = _mark(t, kind)
            if mark is None:
                continue
            marks[id(t)] = (t, mark)
            if t.is_leaf and t.requires_grad:
                grads[id(t)] = (t.grad, _mark(t.grad, "state") if t.grad is not None else None)
        return cls(roots, namespace, rebound, own_module, marks, grads)

    def snapshot(self, force: bool = False, copy: bool = True) -> Snapshot | Refusal:
        """Step 2, right after the first eager run: copy what it changed or made, where it fits (``force``:
        wherever it goes); or why not, with the figures.  ``self.changed`` then lists the tensors it changed
        (``copy`` False: only that, for ``--no-restore``)."""
        reach = state_reach(self.roots, own_module=self.own_module)
        changed: list[tuple[torch.Tensor, str]] = []
        unchanged: list[tuple[torch.Tensor, str, _Mark]] = []  # to tell, at the end, what later runs changed
        grads: list[tuple[torch.Tensor, torch.Tensor | None]] = []
        for t, name, kind in reach.tensors.values():
            mark = _mark(t, kind)
            if mark is None:
                continue
            before = self.marks.get(id(t))
            # a buffer whatever its mark says (eager BatchNorm's running stats keep their version); state the run
            # made (an optimizer's first step makes exp_avg); anything it moved
            if (
                kind == "buffer"
                or (before is None and kind == "state")
                or (before is not None and _moved(before[1], mark))
            ):
                changed.append((t, name))
            else:
                unchanged.append((t, name, mark))
            if t.is_leaf and t.requires_grad:
                grad, grad_mark = self.grads.get(id(t), (None, None))
                if t.grad is not grad or (
                    t.grad is not None
                    and grad_mark is not None
                    and _moved(grad_mark, _mark(t.grad, "state") or grad_mark)
                ):
                    grads.append((t, t.grad))
        self.changed = changed
        if not copy:
            return Refusal("disabled")
        tensors = [t for t, _ in changed] + [g for _, g in grads if g is not None]
        place = _placement(tensors, force)
        if isinstance(place, Refusal):
            return place
        try:
            copies = [(t, _copy(t, place), name) for t, name in changed]
            grad_copies = [(leaf, _copy(g, place) if g is not None else None) for leaf, g in grads]
        except (torch.cuda.OutOfMemoryError, RuntimeError) as exc:  # --restore past what is free
            return Refusal("failed", needed=sum(map(_nbytes, tensors)), error=str(exc).splitlines()[0][:200])
        containers = [(c, _shallow(c)) for c in reach.containers]
        names = {name: self.namespace.get(name, _ABSENT) for name in self.rebound}
        kinds = {id(t): kind for t, _, kind in reach.tensors.values()}
        return Snapshot(
            copies=copies,
            grads=grad_copies,
            containers=containers,
            namespace=self.namespace,
            names=names,
            unchanged=[(t, name, mark, kinds[id(t)]) for t, name, mark in unchanged],
            bytes=sum(map(_nbytes, tensors)),
            kept_in=place,
        )


@dataclass
class Refusal:
    """Why no snapshot was taken, or put back: ``too_large`` (with the figures: what it needs, what was free where it
    would go), ``failed`` (``--restore`` took it and the allocation failed), ``disabled`` (``--no-restore``),
    ``other_rank`` (another rank's did not fit), ``restore_failed`` (putting it back raised: torch left unusable)."""

    reason: str
    needed: int = 0
    host_free: int | None = None
    device_free: int | None = None
    device: str = ""  # the device type of the tensors on one ("cuda"), "" when all are on the CPU
    error: str = ""

    def note(self, runs: int) -> Note:
        """The fact for the card: the state advanced ``runs`` runs' worth, not one, and why."""
        values: dict[str, NoteValue] = {"runs": runs, "reason": self.reason, "bytes": self.needed}
        if self.host_free is not None:
            values["host_free"] = self.host_free
        if self.device_free is not None:
            values["device_free"] = self.device_free
        if self.device:
            values["device"] = self.device
        if self.error:
            values["error"] = self.error
        return Note("state_advanced", values=values)


def _placement(tensors: list[torch.Tensor], force: bool) -> str | Refusal:
    """Where the copies go: "device" (beside each tensor) or "host"; or why they cannot."""
    on_host = sum(_nbytes(t) for t in tensors if t.device.type == "cpu")
    devices = {t.device for t in tensors if t.device.type != "cpu"}
    on_device = sum(_nbytes(t) for t in tensors if t.device.type != "cpu")
    host_free = host_memory_free()
    fits_host = force or host_free is None or on_host <= SNAPSHOT_SHARE * host_free
    if not devices:
        return "host" if fits_host else Refusal("too_large", needed=on_host, host_free=host_free)
    device_frees = [f for d in devices if (f := device_memory_free(d)) is not None]
    device_free = min(device_frees) if device_frees else None
    if fits_host and (force or device_free is None or on_device <= SNAPSHOT_SHARE * device_free):
        return "device"
    if host_free is None or on_host + on_device <= SNAPSHOT_SHARE * host_free:
        return "host"
    return Refusal(
        "too_large",
        needed=on_host + on_device,
        host_free=host_free,
        device_free=device_free,
        device=next(iter(devices)).type,
    )


def _copy(t: torch.Tensor, place: str) -> torch.Tensor:
    copy = t.detach()
    if place == "host" and copy.device.type != "cpu":
        return copy.to("cpu", copy=True)
    return copy.clone()


def _shallow(c: Container) -> Any:
    value = c.value
    if isinstance(value, dict):
        items = {k: v for k, v in value.items() if not (c.public and isinstance(k, str) and k.startswith("_"))}
        return items
    if isinstance(value, collections.deque):
        return list(value)
    if isinstance(value, set):
        return set(value)
    return list(value)


def _same(c: Container, saved: Any) -> bool:
    """Whether the container holds the very items it held (by identity; a dict's keys too)."""
    value = c.value
    if isinstance(value, dict):
        now = [(k, v) for k, v in value.items() if not (c.public and isinstance(k, str) and k.startswith("_"))]
        return len(now) == len(saved) and all(
            k in saved and saved[k] is v for k, v in now
        )  # ``in``: the same key object, found by its hash
    if isinstance(value, set):
        return {id(v) for v in value} == {id(v) for v in saved}
    return len(value) == len(saved) and all(a is b for a, b in zip(value, saved))


def _put_back(c: Container, saved: Any) -> None:
    value = c.value
    if isinstance(value, dict):
        if c.public:  # only the user's attributes: torch's own (hooks, _parameters) are other containers
            for key in [k for k in value if not (isinstance(k, str) and k.startswith("_")) and k not in saved]:
                del value[key]
            value.update(saved)
        else:
            value.clear()
            value.update(saved)
    elif isinstance(value, list):
        value[:] = saved
    else:  # a set or a deque
        value.clear()
        value.update(saved) if isinstance(value, set) else value.extend(saved)


@dataclass
class Restored:
    """What ``Snapshot.restore`` put back, and what it could not: tensors a later run changed that the first
    run did not (named), so the snapshot did not hold them."""

    tensors: int = 0
    grads: int = 0
    containers: int = 0
    not_restored: list[str] = field(default_factory=lambda: [])


@dataclass
class Snapshot:
    """The state as the first eager run left it (step 2), and how to put it back (step 3)."""

    copies: list[tuple[torch.Tensor, torch.Tensor, str]]  # (tensor, its value after the first run, its name)
    grads: list[tuple[torch.Tensor, torch.Tensor | None]]  # (leaf, a copy of the grad it had, or None)
    containers: list[tuple[Container, Any]]  # (container, its items by reference)
    namespace: dict[str, Any]
    names: dict[str, Any]  # the rebound names' values (``_ABSENT``: unbound)
    # the tensors reached that the first run did not change, with their marks then (and their kind), so that the end
    # can name those a later run changed
    unchanged: list[tuple[torch.Tensor, str, _Mark, str]]
    bytes: int
    kept_in: str  # "device" (beside each tensor) or "host"

    def restore(self) -> Restored:
        out = Restored()
        for c, saved in self.containers:
            if not _same(c, saved):
                _put_back(c, saved)
                out.containers += 1
        for name, value in self.names.items():
            if self.namespace.get(name, _ABSENT) is not value:
                if value is _ABSENT:
                    self.namespace.pop(name, None)
                else:
                    self.namespace[name] = value
                out.containers += 1
        with torch.no_grad():  # every copy, whatever the marks say now: not every kernel moves them
            for t, copy, _ in self.copies:
                t.copy_(copy)
                out.tensors += 1
            for leaf, grad in self.grads:
                leaf.grad = grad.to(leaf.device) if grad is not None else None
                out.grads += 1
        try:
            out.not_restored = [
                name
                for t, name, mark, kind in self.unchanged
                if (now := _mark(t, kind)) is not None and _moved(mark, now)
            ]
        except RuntimeError:  # what is put back stays so; only the list of what else moved is lost
            pass
        return out

    def note(self, restored: Restored) -> Note:
        """The fact for the views: what was put back, the copy's size and where it was kept."""
        values: dict[str, NoteValue] = {
            "tensors": len(self.copies),
            "grads": sum(g is not None for _, g in self.grads),
            "containers": restored.containers,
            "bytes": self.bytes,
            "kept_in": self.kept_in,
        }
        if restored.not_restored:
            values["not_restored"] = restored.not_restored[:20]
        return Note("state_put_back", values=values)


def take_before(target: Target) -> Before:
    """Step 1 (also with ``--no-restore``: what the first run changed is what the correctness check puts back)."""
    return Before.take(target)


__all__ = ["SNAPSHOT_SHARE", "Before", "Refusal", "Restored", "Snapshot", "device_memory_free", "host_memory_free"]
