"""The compiled-kernel caches on disk: how many kernel binaries a variant's compiles built.

Inductor consults caches beyond the FX graph and AOTAutograd ones that the structured trace counts:
each C++ kernel is a shared library in its cache directory (``<cache>/<2 chars>/<hash>.so``), each
Triton kernel a ``.cubin`` (``.hsaco`` on ROCm) in Triton's cache (``<cache>/triton/<device>/...``
unless ``TRITON_CACHE_DIR`` says otherwise); a kernel found there is loaded, not compiled.  A
training step whose FX graphs all missed after a plain ``torch.compile`` had built its C++ kernels
compiled in 13.7 s where a truly cold compile took 47 s (42 s of it in the C++ compiler), and read
"cold cache".  No event says which kernels were found (the compiles may run in worker processes,
whose logs never reach this one), so the binaries are counted: those present after the compiles and
not before were built.  A scan takes 0.2 ms over a cache of 60 files and 3 ms over one of 1,400 (the
test suite's), measured here; it runs outside every timed call.
"""

from __future__ import annotations

import os

# what a compiled kernel is on disk: C++ (CPU) and Triton (CUDA, ROCm, XPU) binaries
BINARY_SUFFIXES = (".so", ".cubin", ".hsaco", ".spv", ".zebin")
# folders of cache entries that hold no kernel binaries (the FX graph and AOTAutograd caches' own)
_ENTRY_FOLDERS = frozenset({"fxgraph", "aotautograd", "locks", "record_replay"})


def cache_dirs() -> list[str]:
    """Inductor's cache directory, and Triton's where it lies elsewhere."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir  # in torch 2.6 as in 2.13

    dirs = [cache_dir()]
    triton = os.environ.get("TRITON_CACHE_DIR")
    if triton and not os.path.abspath(triton).startswith(dirs[0] + os.sep):
        dirs.append(triton)
    return dirs


def kernel_binaries(dirs: list[str] | None = None) -> frozenset[str]:
    """The paths of every kernel binary in the caches."""
    found: set[str] = set()
    for top in cache_dirs() if dirs is None else dirs:
        for root, folders, files in os.walk(top):
            folders[:] = [f for f in folders if f not in _ENTRY_FOLDERS]
            found.update(os.path.join(root, f) for f in files if f.endswith(BINARY_SUFFIXES))
    return frozenset(found)


class KernelBuilds:
    """Counts the kernel binaries built between ``start()`` and ``built()``, and between one ``built()`` and
    the next (a variant's first call, then its recompiles).  Variants that compile in the same window (two
    recompiling during interleaved timing) cannot be told apart: the first to ask counts the binaries."""

    def __init__(self) -> None:
        self._seen: frozenset[str] | None = None

    def start(self) -> None:
        try:
            self._seen = kernel_binaries()
        except OSError:
            self._seen = None  # an unreadable cache: the count is unknown, never wrong

    def built(self) -> int | None:
        """Binaries written since the last ``start()`` or ``built()``; None when the caches could not be read."""
        if self._seen is None:
            return None
        try:
            now = kernel_binaries()
        except OSError:
            return None
        new, self._seen = now - self._seen, now
        return len(_built_here(new))


def _built_here(new: frozenset[str]) -> frozenset[str]:
    """Of the binaries that appeared, those this process built: a C++ kernel it compiled is a shared library it
    loaded, so one it did not map was written by another process sharing the cache (a rank of the same job, a
    second notebook, a test run's other worker: notebook 01's second profile read "partly cached" under two
    pytest workers, counting the other's builds).  Triton binaries are loaded from memory, so they are counted
    as they appear; so is everything where /proc/self/maps cannot be read (not Linux)."""
    libraries = frozenset(p for p in new if p.endswith(".so"))
    if not libraries:
        return new
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            mapped = {line.split(None, 5)[5].strip() for line in maps if line.count(" ") >= 5 and "/" in line}
    except OSError:
        return new
    return (new - libraries) | frozenset(p for p in libraries if os.path.realpath(p) in mapped)
