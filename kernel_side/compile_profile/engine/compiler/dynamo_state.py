"""Leave Dynamo's in-memory caches as the profile found them.

Each compiled variant uses a fresh backend object, so Dynamo compiles afresh
instead of reusing entries made for other backends; but every such compile
adds a cache entry to the code objects it touched (the cell's, a model's
``forward`` after a graph break), and entries count against Dynamo's
recompile limit.  Left behind, a few profiles of the same model would push
its ``forward`` past the limit and silently back to eager.  So afterwards the
entries made with the profile's backends are dropped; on torch that does not record
an entry's backend (2.8 and older), the entries that appeared during the profile.
"""

from __future__ import annotations

import re
import weakref
from typing import Any

from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list, reset_code
from torch._dynamo import convert_frame, utils

from ..common.torch_features import cache_entry_backend
from .backend import RecordingBackend


def _unwrap(backend: Any) -> Any:
    for _ in range(8):
        inner = getattr(backend, "_torchdynamo_orig_backend", None) or getattr(backend, "compiler_fn", None)
        if inner is None or inner is backend:
            return backend
        backend = inner
    return backend


def _is_profile_backend(backend: Any) -> bool:
    return isinstance(_unwrap(backend), RecordingBackend)


# Globals Dynamo installs in the compiled function's module (the notebook's namespace) for the
# bytecode it rewrites: the graph's callable and the continuations after a graph break; any other it
# installs with a cleanup hook is read by bytecode too (``___module_range_<id>_c<N>`` and
# ``___module_iter_…``, which rebuild a comprehension's iterator after a graph break in it), unless
# guards read it (below, and the weak references ``store_global_weakref_by_id`` installs).
_INSTALLED_GLOBAL = re.compile(r"^(?:__compiled_fn_|__resume_at_)")
# ... and a copy of the builtins for each compile (torch 2.x), which guards read rather than bytecode:
# three more names in the notebook's namespace per profile of a cell whose model's forward lived on.
# ... and values it names by id, which guards read too (``install_global_by_id("", torch)`` for a
# ``type(tensor)``: ``_139753049763936_c10``, two more per profile of a ViT training step).
_GUARD_READ_GLOBAL = re.compile(r"^(?:__builtins_dict__|_\d+_c\d)")


class DynamoCodeTracker:
    """Drops the cache entries that profile backends created, when asked, and the globals
    Dynamo installed for them in ``namespace`` (otherwise a few per variant pile up in the
    notebook with every profile)."""

    def __init__(self, namespace: dict[str, Any] | None = None):
        self.namespace = namespace
        self.names_before = set(namespace) if namespace is not None else set()
        self.entries_before = {id(code): len(_debug_get_cache_entry_list(code)) for code in _seen_codes()}

    def release_new_entries(self) -> int:
        released = 0
        for code in _seen_codes():
            entries = _debug_get_cache_entry_list(code)
            backends = [cache_entry_backend(entry) for entry in entries]
            if any(b is None for b in backends):  # an older torch: ours are the entries that appeared
                ours = len(entries) > self.entries_before.get(id(code), 0)
            else:
                ours = any(_is_profile_backend(b) for b in backends)
            if ours:
                # Dynamo offers no way to drop a single entry; entries of other backends on the
                # same code recompile on their next call (from the on-disk caches).
                reset_code(code)
                released += 1
        if self.namespace is not None:
            self._drop_unused_installed_globals(self.namespace)
        return released

    def _drop_unused_installed_globals(self, namespace: dict[str, Any]) -> None:
        still_used: set[str] = set()
        entry_appeared = False  # an entry made during the profile that is not ours (the cell's own torch.compile)
        for code in _seen_codes():
            entries = _debug_get_cache_entry_list(code)
            entry_appeared |= len(entries) > self.entries_before.get(id(code), 0)
            for entry in entries:
                if entry.code is not None:  # None: an entry Dynamo invalidated (e.g. a class redefined)
                    still_used.update(entry.code.co_names)
        hooked = _hooked_names(namespace)
        for name in [n for n in namespace if n not in self.names_before]:
            guard_read = bool(_GUARD_READ_GLOBAL.match(name)) or isinstance(namespace[name], weakref.ref)
            if _INSTALLED_GLOBAL.match(name) or (name in hooked and not guard_read):
                unused = name not in still_used
            else:
                # Guards, not bytecode, read these, and an entry does not say which it reads:
                # the new ones go only when no entry made during the profile is left.
                unused = bool(_GUARD_READ_GLOBAL.match(name)) and not entry_appeared
            if unused:
                _drop_installed_global(namespace, name)


def _cleanup_hooks() -> list[list[Any]]:
    """Dynamo's cleanup hooks (each deletes one installed global when its code object dies), by code object."""
    return list(getattr(getattr(utils.CleanupManager, "instance", None), "values", {}).values())


def _hooked_names(namespace: dict[str, Any]) -> set[str]:
    """The names Dynamo installed in ``namespace`` that a cleanup hook will delete."""
    return {
        hook.name for hooks in _cleanup_hooks() for hook in list(hooks) if getattr(hook, "scope", None) is namespace
    }


def drop_installed_globals(namespace: dict[str, Any]) -> None:
    """Every global Dynamo installed in ``namespace``, dropped by its own hook (for a namespace about to be
    cleared, whose compiled code is no longer called)."""
    for name in _hooked_names(namespace):
        _drop_installed_global(namespace, name)


def _drop_installed_global(namespace: dict[str, Any], name: str) -> None:
    """Run Dynamo's own cleanup hook for the global (it deletes the name and keeps Dynamo's count), so
    that the hook does not fire again when its code object dies: a plain ``del`` left it to raise
    ``KeyError`` at interpreter exit ("Exception ignored in ... ExactWeakKeyDictionary"), printed once
    per global by every script that profiled a function."""
    for hooks in _cleanup_hooks():
        for hook in list(hooks):
            if getattr(hook, "scope", None) is namespace and getattr(hook, "name", None) == name:
                hooks.remove(hook)
                hook()
                return
    namespace.pop(name, None)


def _seen_codes() -> list[Any]:
    """The code objects Dynamo has seen and that are still alive."""
    return [code for ref in list(convert_frame.input_codes.seen) if (code := ref()) is not None]
