"""A collection of models: a Python file whose ``models()`` returns ``{name: builder}``, read into a suite's entries.

The plain form is what the issue asks of a user::

    def models():
        return {"mlp": lambda: (mlp_step, (x,))}   # a builder of no arguments returns (fn, args)

``fn(*args)`` is the step to profile: a forward under ``no_grad``, or a training step.  Richer forms, beside it:

* a builder that takes ``train`` (``def build(train: bool)``) is asked for each task of the suite (``--task``):
  an inference step and a training step, entries ``gpt2`` and ``gpt2 (training)``; one that also takes ``dtype``
  builds its own bfloat16 step, any other's step runs under ``torch.autocast(dtype=torch.bfloat16)``;
* ``Model(build, options={...})`` gives one model options of its own over the suite's (a backend, a mode,
  ``check_correctness=False`` where it draws random numbers), which tasks it has, and a time limit of its own
  (``timeout_s``, over the suite's ``--timeout``) and the dtypes it runs in (``dtypes``, the others skipped);
* ``Skip("why")`` names a model that cannot run here (a library that does not import), listed with its reason;
* ``models(size=...)`` is given the size the suite asks for ("small", "real") when it takes it.

``step(model, inputs, train=...)`` builds the usual steps from an ``nn.Module``: a forward under ``no_grad``, or
forward, a loss, ``backward`` and an ``AdamW`` step.  ``Model``, ``Skip`` and ``step`` are ``builders.py``'s (what a
collection file writes with, below this module, so that the built-in collection loaded here imports no module that
imports it).  Nothing here imports torch before it is needed: the parent reads the entries, each child builds one.

Contract: ``load(collection)`` returns a ``Collection`` whose ``entries(tasks, dtypes)`` are every entry, in the
file's order, with a name that does not depend on which other tasks or dtypes were asked for (so two suites'
entries match by name); ``shard(entries, i, n)`` is the i-th of n round-robin shares, which together are all.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import pathlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..user_input import seconds_problem, shown, text_problem
from .builders import Model, Skip

BUILTIN = "builtin"
TASKS = ("inference", "training")
DTYPES = ("float32", "bfloat16")


class CollectionError(ValueError):
    """A collection that cannot be read or used; the message names the file and what to fix."""


@dataclass(frozen=True)
class Entry:
    """One thing a suite profiles: a model of the collection, for one task and one dtype."""

    name: str
    model: str
    task: str  # "inference", "training", or "step": a builder without a train argument, its step as built
    dtype: str
    spec: Model | Skip


def entry_name(model: str, task: str, dtype: str) -> str:
    """``gpt2``, ``gpt2 (training)``, ``gpt2 (bfloat16)``, ``gpt2 (training, bfloat16)``: the defaults unsaid."""
    extra = [word for word, default in ((task, "inference"), (dtype, "float32")) if word not in (default, "step")]
    return f"{model} ({', '.join(extra)})" if extra else model


def spec_problem(value: Any) -> str:
    """What is wrong with a ``Skip`` or ``Model`` of ``models()`` ("" when nothing is)."""
    if isinstance(value, Skip):
        return (
            ""
            if isinstance(value.reason, str)
            else f"has a reason of type {type(value.reason).__name__}: give a string"
        )
    if isinstance(value, Model):
        if not callable(value.build):
            return f"has a build of type {type(value.build).__name__}: give a function returning (fn, args)"
        if not isinstance(value.options, Mapping) or not all(isinstance(k, str) for k in value.options):
            return "has options that are no mapping of keyword to value: give options={'backend': 'eager', ...}"
        tasks = value.tasks
        if tasks is not None and (not isinstance(tasks, tuple) or not all(t in TASKS for t in tasks)):
            return f"has tasks {tasks!r}: give a tuple of {', '.join(repr(t) for t in TASKS)}"
        dtypes = value.dtypes
        if dtypes is not None and (not isinstance(dtypes, tuple) or not dtypes or not all(d in DTYPES for d in dtypes)):
            return f"has dtypes {dtypes!r}: give a tuple of some of {', '.join(repr(d) for d in DTYPES)}"
        if value.timeout_s is not None and (problem := seconds_problem("timeout_s", value.timeout_s)):
            return f"has {problem}, or None for the suite's --timeout"
    return ""


def _takes(fn: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


@dataclass
class Collection:
    """A loaded collection: where it came from, its content's hash and its ``models()``."""

    source: str  # as given
    name: str
    sha256: str
    module: ModuleType

    def models(self, size: str = "small") -> dict[str, Any]:
        factory = getattr(self.module, "models", None)
        if not callable(factory):
            raise CollectionError(
                f"{self.source} has no models() function: define models() returning {{name: builder}}"
            )
        try:  # the user's code: what it raises is a message naming it, never a traceback
            found = factory(size=size) if _takes(factory, "size") else factory()
            if not isinstance(found, Mapping) or not found:
                raise CollectionError(
                    f"{self.source}: models() must return a non-empty mapping of a name to a builder, got "
                    f"{type(found).__name__}"
                )
            items = list(found.items())
        except CollectionError:
            raise
        except SystemExit as exc:  # the CLI would exit with its code and no word (0: a suite "passed" that never ran)
            raise CollectionError(f"{self.source}: models() called sys.exit({exc.code!r})") from None
        except Exception as exc:  # any exception of the collection's own code
            raise CollectionError(f"{self.source}: models() raised {type(exc).__name__}: {exc}") from exc
        for name, value in items:
            if not isinstance(name, str) or not name.strip():
                raise CollectionError(f"{self.source}: models() has a key {name!r}, not a name")
            problem = text_problem(name)  # one line of plain text, at most MAX_TEXT characters
            if problem:
                raise CollectionError(f"{self.source}: models() names a model {shown(name)}: {problem}")
            if not (callable(value) or isinstance(value, (Model, Skip))):
                raise CollectionError(
                    f"{self.source}: models()[{name!r}] is a {type(value).__name__}, not a builder (a function of no "
                    "arguments returning (fn, args)), Model(...) or Skip(...)"
                )
            problem = spec_problem(value)
            if problem:
                kind = "Skip" if isinstance(value, Skip) else "Model"
                raise CollectionError(f"{self.source}: the {kind}(...) of {name!r} {problem}")
        return dict(items)

    def entries(self, tasks: tuple[str, ...], dtypes: tuple[str, ...], size: str = "small") -> list[Entry]:
        """Every entry for ``tasks`` and ``dtypes``, in the collection's order (a model's tasks, then dtypes)."""
        out: list[Entry] = []
        for model, value in self.models(size).items():
            spec = value if isinstance(value, (Model, Skip)) else Model(value)
            if isinstance(spec, Skip):
                out.append(Entry(model, model, "step", dtypes[0], spec))
                continue
            has_train = _takes(spec.build, "train")
            model_tasks = spec.tasks or (TASKS if has_train else ("step",))
            for task in tasks if has_train else ("step",):
                for dtype in dtypes:
                    name = entry_name(model, task, dtype)
                    if has_train and task not in model_tasks:
                        out.append(Entry(name, model, task, dtype, Skip(f"{model} has no {task} step")))
                    elif spec.dtypes is not None and dtype not in spec.dtypes:
                        why = f"{model} runs in {' or '.join(spec.dtypes)} only (--dtype {spec.dtypes[0]})"
                        out.append(Entry(name, model, task, dtype, Skip(why)))
                    else:
                        out.append(Entry(name, model, task, dtype, spec))
        names = [e.name for e in out]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise CollectionError(f"{self.source}: two entries are named {', '.join(twice)}")
        return out


def load(collection: str) -> Collection:
    """The collection named ``collection``: ``builtin``, or a Python file's path.  Raises ``CollectionError``."""
    if collection == BUILTIN:
        from . import builtin

        source = pathlib.Path(builtin.__file__).read_bytes()
        return Collection(BUILTIN, BUILTIN, hashlib.sha256(source).hexdigest(), builtin)
    path = pathlib.Path(collection).expanduser()
    if not path.is_file():
        raise CollectionError(
            f"no collection at {collection}: give a Python file whose models() returns {{name: builder}}, or builtin"
        )
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise CollectionError(f"cannot read {collection}: {exc.strerror or exc}") from None
    sha = hashlib.sha256(source).hexdigest()
    # one module name per content, so a child loads the module the parent read, and pickling finds it
    name = f"compile_profile_collection_{path.stem.replace('-', '_')}_{sha[:8]}"
    if name in sys.modules:
        return Collection(collection, path.name, sha, sys.modules[name])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CollectionError(f"{collection} is not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))  # the collection imports its neighbours as a script would
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:  # as in models(): never an exit without a word
        del sys.modules[name]
        raise CollectionError(f"importing {collection} called sys.exit({exc.code!r})") from None
    except Exception as exc:
        del sys.modules[name]
        raise CollectionError(f"importing {collection} raised {type(exc).__name__}: {exc}") from exc
    return Collection(collection, path.name, sha, module)


def is_suite_id(text: str) -> bool:
    """Whether ``text`` can name a stored suite (a run id's form: 1-64 letters, digits, ``_`` or ``-``)."""
    return bool(_SUITE_ID.fullmatch(text))


_SUITE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def shard(entries: list[Entry], index: int, count: int) -> list[Entry]:
    """The ``index``-th (from 1) of ``count`` round-robin shares of ``entries``: together the shares are all."""
    if not (1 <= index <= count):
        raise CollectionError(f"--shard {index}/{count}: I must be from 1 to N")
    return entries[index - 1 :: count]


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> (2, 4); ``CollectionError`` naming --shard otherwise."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise CollectionError(f"--shard takes I/N (this process's share I of N, from 1), got {text!r}") from None
    if count < 1 or not (1 <= index <= count):
        raise CollectionError(f"--shard {text}: I must be from 1 to N and N at least 1")
    return index, count


# -- building an entry (in the child) ------------------------------------------------------------------------


def build(entry: Entry) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """Build ``entry``'s step: (fn, args, its own profile options).  A bfloat16 entry whose builder takes no
    ``dtype`` runs its step under ``torch.autocast`` on the device of its first tensor argument."""
    spec = entry.spec
    if isinstance(spec, Skip):
        raise CollectionError(f"{entry.name} is skipped: {spec.reason}")
    kwargs: dict[str, Any] = {}
    if entry.task in TASKS and _takes(spec.build, "train"):
        kwargs["train"] = entry.task == "training"
    own_dtype = _takes(spec.build, "dtype")
    if own_dtype:
        kwargs["dtype"] = entry.dtype
    built = spec.build(**kwargs)
    if not (isinstance(built, tuple) and len(built) == 2 and callable(built[0])):
        raise CollectionError(
            f"the builder of {entry.model} returned {type(built).__name__}, not (fn, args) with fn callable"
        )
    fn, args = built
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    if entry.dtype != "float32" and not own_dtype:
        fn = _autocast(fn, args, entry.dtype)
    return fn, args, dict(spec.options)


def build_named(
    source: str, tasks: Sequence[str], dtypes: Sequence[str], size: str, name: str
) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """The entry ``name`` of the collection at ``source`` (or ``builtin``) built as a suite's child builds it (``build``);
    ``CollectionError`` where the collection has no such entry any more."""
    loaded = load(source)
    entry = next((e for e in loaded.entries(tuple(tasks), tuple(dtypes), size) if e.name == name), None)
    if entry is None:
        raise CollectionError(f"{source} has no entry {name!r} any more")
    return build(entry)


def _autocast(fn: Callable[..., Any], args: tuple[Any, ...], dtype: str) -> Callable[..., Any]:
    import torch

    device = next((a.device.type for a in args if isinstance(a, torch.Tensor)), "cpu")
    low = getattr(torch, dtype)

    def step_under_autocast(*a: Any) -> Any:
        with torch.autocast(device_type=device, dtype=low):
            return fn(*a)

    return step_under_autocast
