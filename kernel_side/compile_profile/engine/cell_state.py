"""What the cell changes in place, put back as one plain run of it leaves it.

A profile runs the cell hundreds of times (first calls, warm-up, timed samples, checks), and each run of a
training step steps the real optimizer on the same batch: after ``%%compile_profile`` of
``loss.backward(); opt.step()`` on a small model, AdamW's state counted 630 steps and the weights stood 0.175
away from one plain step.  ``%%timeit`` does the same, but a profiler that says the cell "runs as a plain cell
would" must leave the model as one plain run leaves it.  So:

1. before the first eager run, ``Before.take`` reads the version counter of every tensor the code can reach,
   and which tensor each leaf's ``.grad`` is (nothing is copied);
2. right after it, ``Before.snapshot`` copies what that run changed or made (``Snapshot``): the tensors
   whose version moved (weights, BatchNorm's running stats and ``num_batches_tracked``, ``x.add_(1)``'s
   ``x``), the state tensors it made (AdamW's ``exp_avg``, ``exp_avg_sq`` and ``step`` on its first step),
   the ``.grad`` it left on each leaf, and, by reference, the items of every list, dict, set and deque, and
   the attributes of the objects, it can reach (a list it appends to, an optimizer's per-parameter state
   and param groups, a module's parameter dicts where a parameter is replaced, an LR scheduler's epoch, a
   global a function of the notebook rebinds);
3. at the end of the profile (also after a failure or an interrupt), ``Snapshot.restore`` puts all of it
   back: tensors by ``copy_`` into the same objects (guards and other references to them stay valid),
   ``.grad`` as that run left it, containers and attributes by their items.  The namespace then keeps the
   first eager run's values, the run whose output was printed (``profiler``), so everything the user sees
   is that one run's.

The copy costs the bytes of what the first run changed: for an AdamW training step about four times the
parameters (the weights, their gradients, ``exp_avg`` and ``exp_avg_sq``).  It is kept beside the
tensors (on their GPU) where it takes at most ``SNAPSHOT_SHARE`` of the device's free memory, else in host
memory where it takes at most that share of what is free there (``MemAvailable``), else it is not taken:
the state then advances with every run, as before, and the run says how many runs it holds and what the
copy would have needed against what was free (``Note("state_advanced")``).  ``--restore`` takes it
whatever is free; ``--no-restore`` never takes it (``ProfileOptions.restore``).

Reached from: the values the code reads by name (through the notebook's functions it calls, as
``reference.names_read`` finds them), the variables it closes over and its arguments
(``reachable.state_reach`` says what it walks).  Not covered: inference tensors (they keep no version
counter), state behind objects of other libraries' classes (a DataLoader's sampler), iterators and
generators (``replay`` gives the correctness runs the same items; a plain run's draw from them is the first
run's), files.  A tensor a later run changed that the first did not is named, not put back
(``Restored.not_restored``).
"""

from __future__ import annotations

import collections
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from ..profile_run import Note, NoteValue
from . import reference as reference_mod
from .reachable import Container, state_reach

if TYPE_CHECKING:
    from .session import Target

SNAPSHOT_SHARE = 0.5  # of the free memory where the copy is kept (the float64 reference takes the same share)
_ABSENT = object()  # a name the namespace did not hold


def host_memory_free() -> int | None:
    """Free host memory (``MemAvailable``), None where unknown; a test makes it small."""
    return reference_mod._available_host_memory()


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
    names = reference_mod.names_read(fn, namespace)
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


@dataclass
class Before:
    """The tensors' version counters and the leaves' ``.grad`` before the first eager run (step 1)."""

    roots: list[tuple[str, Any]]
    namespace: dict[str, Any]
    rebound: list[str]  # names of ``namespace`` a run may rebind
    own_module: str
    versions: dict[int, tuple[torch.Tensor, int]]
    grads: dict[int, tuple[torch.Tensor | None, int | None]]  # leaf's id -> (its grad, the grad's version)

    @classmethod
    def take(cls, target: Target) -> Before:
        roots, namespace, rebound = roots_of(target)
        own_module = str(namespace.get("__name__", "__main__"))
        reach = state_reach(roots, own_module=own_module)
        versions: dict[int, tuple[torch.Tensor, int]] = {}
        grads: dict[int, tuple[torch.Tensor | None, int | None]] = {}
        for t, _, _ in reach.tensors.values():
            v = _version(t)
            if v is None:
                continue
            versions[id(t)] = (t, v)
            if t.is_leaf and t.requires_grad:
                grads[id(t)] = (t.grad, _version(t.grad) if t.grad is not None else None)
        return cls(roots, namespace, rebound, own_module, versions, grads)

    def snapshot(self, force: bool = False) -> Snapshot | Refusal:
        """Step 2, right after the first eager run: copy what it changed or made, where it fits (``force``:
        wherever it goes); or why not, with the figures."""
        reach = state_reach(self.roots, own_module=self.own_module)
        changed: list[tuple[torch.Tensor, str]] = []
        now: dict[int, tuple[torch.Tensor, int, str]] = {}  # every tensor reached, its version now
        grads: list[tuple[torch.Tensor, torch.Tensor | None]] = []
        for t, name, kind in reach.tensors.values():
            v = _version(t)
            if v is None:
                continue
            now[id(t)] = (t, v, name)
            before = self.versions.get(id(t))
            # a buffer whatever its version says (BatchNorm's running stats keep theirs); state the run made (an
            # optimizer's first step makes exp_avg); anything whose version moved
            if kind == "buffer" or (before is None and kind == "state") or (before is not None and before[1] != v):
                changed.append((t, name))
            if t.is_leaf and t.requires_grad:
                grad, grad_version = self.grads.get(id(t), (None, None))
                if t.grad is not grad or (t.grad is not None and _version(t.grad) != grad_version):
                    grads.append((t, t.grad))
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
        return Snapshot(
            copies=copies,
            grads=grad_copies,
            containers=containers,
            namespace=self.namespace,
            names=names,
            versions={i: (t, v, name) for i, (t, v, name) in now.items()},
            bytes=sum(map(_nbytes, tensors)),
            kept_in=place,
        )


@dataclass
class Refusal:
    """Why no snapshot was taken: ``too_large`` (with the figures: what it needs, what was free where it would
    go), ``failed`` (``--restore`` took it and the allocation failed), or ``disabled`` (``--no-restore``)."""

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
    versions: dict[int, tuple[torch.Tensor, int, str]]  # every tensor reached, its version after the first run
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
        copied = {id(t) for t, _, _ in self.copies}
        with torch.no_grad():
            for t, copy, _ in self.copies:
                if _version(t) != self.versions[id(t)][1] or not torch.equal(t, copy.to(t.device)):
                    t.copy_(copy)
                    out.tensors += 1
            for leaf, grad in self.grads:
                leaf.grad = grad.to(leaf.device) if grad is not None else None
                out.grads += 1
        out.not_restored = [name for i, (t, v, name) in self.versions.items() if i not in copied and _version(t) != v]
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


def take_before(target: Target, restore: bool | None) -> Before | None:
    """Step 1, unless ``--no-restore``."""
    return None if restore is False else Before.take(target)


__all__ = ["SNAPSHOT_SHARE", "Before", "Refusal", "Restored", "Snapshot", "device_memory_free", "host_memory_free"]
