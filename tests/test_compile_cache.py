"""The compile a profile times is the one the user's own torch.compile would do with the user's caches.

Issue 20, item 3: a profile after a plain ``torch.compile`` of the same code read "FX graph 0 hits, 4 missed"
and "cold cache" (provenance tracking, which the profile turns on, was part of Inductor's cache keys); a
training step whose FX graphs missed while every C++ kernel came from the kernel cache read "cold" for a
13.7 s compile whose truly cold compile takes 47 s; and the compiles after the first call (recompiles) were
left out of the cache totals.  Each test runs in a cache directory of its own (torch's ``fresh_cache``), so
"cold" means cold.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
import torch
from cell_runs import run_cell
from compile_profile.digest.facts import cache_counts
from compile_profile.digest.summary import headline
from compile_profile.engine.compiler.kernel_builds import kernel_binaries

fresh_cache = getattr(torch._inductor.utils, "fresh_cache", None) or torch._inductor.utils.fresh_inductor_cache

CELL = "y = (x * 2).sin() + x.cos()\n"


def _namespace() -> dict:
    """A notebook's namespace: ``__main__``'s.  torch 2.10's AOTAutograd key holds each input's source, and a
    function compiled in a dict with no ``__name__`` reads its globals from an unnamed scope, so the plain compile's
    entry was not the profile's (AOTAutograd 1 miss on 2.10 only; in a notebook both read GlobalSource('x'))."""
    torch.manual_seed(0)
    return {"x": torch.randn(64, 64), "torch": torch, "__name__": "__main__"}


def _plain_compile(ns: dict) -> None:
    """The cell written as a notebook function and compiled as the user would, before profiling it."""
    exec("def users_step():\n    y = (x * 2).sin() + x.cos()\n    return y\n", ns)
    torch.compile(ns.pop("users_step"))()
    torch._dynamo.reset()


@pytest.mark.compiles
def test_a_profile_on_an_empty_cache_reads_cold_and_counts_the_kernels_it_built():
    with fresh_cache():
        run = run_cell(CELL, _namespace(), kernel_timing=False, check_correctness=False).run
        built_on_disk = len(kernel_binaries())
    c = run.cache
    assert (c.fx_graph_hits, c.fx_graph_misses) == (0, 1) and c.state == "cold", c
    # each C++ kernel is a library of its own; the others on disk are Inductor's checks of the CPU's vector ISA,
    # built and loaded in a subprocess (7 binaries for this one kernel, on torch 2.13), which no kernel needs again
    assert c.kernels >= 1 and c.kernels_built == c.kernels and built_on_disk >= c.kernels_built
    assert "cold cache" in headline(run)
    assert f"kernels {c.kernels}, {c.kernels_built} binar" in "; ".join(cache_counts(run))


@pytest.mark.compiles
def test_a_profile_after_the_users_plain_torch_compile_hits_the_entries_it_wrote_and_reads_warm():
    with fresh_cache():
        ns = _namespace()
        _plain_compile(ns)
        written = kernel_binaries()
        run = run_cell(CELL, ns, kernel_timing=False, check_correctness=False).run
        assert kernel_binaries() == written, "the profile built no kernel of its own"
    c = run.cache
    # before: "FX graph 0 hits, 1 missed" and "cold cache" (provenance_tracking_level was in the key)
    assert (c.fx_graph_hits, c.fx_graph_misses) == (1, 0), c
    assert c.aot_autograd_misses == 0 and c.kernels_built == 0 and c.state == "warm"
    assert "warm cache" in headline(run)
    assert "kernels 1, none built (all from the caches)" in cache_counts(run) or c.kernels > 1


@pytest.mark.compiles
def test_graphs_that_miss_while_every_kernel_is_in_the_kernel_cache_read_partly_cached():
    with fresh_cache():
        ns = _namespace()
        _plain_compile(ns)
        # the graph caches are gone (another torch, other code of the same kernels); the kernel cache stays
        cache = Path(torch._inductor.runtime.cache_dir_utils.cache_dir())
        for entries in ("fxgraph", "aotautograd"):
            shutil.rmtree(cache / entries, ignore_errors=True)
        run = run_cell(CELL, ns, kernel_timing=False, check_correctness=False).run
    c = run.cache
    assert c.fx_graph_hits == 0 and c.fx_graph_misses == 1
    assert c.kernels >= 1 and c.kernels_built == 0 and c.state == "mixed", c
    assert "partly cached" in headline(run)


@pytest.mark.compiles
def test_the_cache_totals_count_every_recompile():
    # before: "FX graph 1 hit, 0 missed" beside 3 Dynamo graphs and 2 recompiles
    with fresh_cache():
        ns = {"torch": torch, "sizes": itertools.cycle([4, 6, 8])}
        body = "n = next(sizes)\ny = torch.ones(n) * 2\n"
        run = run_cell(body, ns, dynamic=False, kernel_timing=False, check_correctness=False).run
    assert run.status == "ok", run.errors
    assert len(run.recompiles) >= 2, run.recompiles
    inductor_compiles = sum(1 for g in run.graphs if g.kind == "post_grad")
    lookups = run.cache.fx_graph_hits + run.cache.fx_graph_misses
    assert lookups == inductor_compiles >= 3, (run.cache, [g.id for g in run.graphs])


@pytest.mark.parametrize("state", ["cold", "warm", "mixed"])
def test_the_cache_state_follows_from_lookups_and_kernel_builds(state):
    from compile_profile.profile_run import CacheStats

    cases = {
        "cold": CacheStats(fx_graph_misses=2, kernels=4, kernels_built=6),
        "warm": CacheStats(fx_graph_hits=2, aot_autograd_hits=1, kernels=4, kernels_built=0),
        "mixed": CacheStats(fx_graph_misses=2, kernels=4, kernels_built=0),
    }
    assert cases[state].derived_state() == state
    # unknown kernel builds (an unreadable cache) leave the graph caches to decide, as before
    assert CacheStats(fx_graph_misses=2, kernels=4).derived_state() == "cold"
    # a graph with no generated kernel (one extern matmul) that missed is cold: no kernel cache served it
    assert CacheStats(fx_graph_misses=1, kernels=0, kernels_built=0).derived_state() == "cold"


def test_the_cache_key_patch_is_undone_also_when_the_profile_raises():
    from compile_profile.engine.trace.capture import capture_compiles
    from torch._inductor import codecache

    original = codecache.FxGraphHashDetails.__init__
    # torch 2.10 and later keep provenance in the key, and the profile patches it out; earlier releases need nothing
    patched = getattr(torch._inductor.config.trace, "provenance_tracking_level", None) is not None
    with pytest.raises(RuntimeError, match="the cell raised"):
        with capture_compiles():
            assert (codecache.FxGraphHashDetails.__init__ is not original) == patched
            raise RuntimeError("the cell raised")
    assert codecache.FxGraphHashDetails.__init__ is original


def test_kernel_binaries_another_process_wrote_into_the_shared_cache_are_not_counted_as_built(tmp_path, monkeypatch):
    # two pytest workers on one Inductor cache: notebook 01's second profile read "partly cached", counting the
    # C++ kernels the other worker built meanwhile; a kernel this process built is a library it loaded
    import ctypes
    import subprocess

    from compile_profile.engine.compiler import kernel_builds as kernel_cache

    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("g++")
    if cc is None or not Path("/proc/self/maps").exists():
        pytest.fail("this test needs a C compiler and /proc/self/maps (Linux), as Inductor's C++ backend does")
    monkeypatch.setattr(kernel_cache, "cache_dirs", lambda: [str(tmp_path)])
    builds = kernel_cache.KernelBuilds()
    builds.start()
    source = tmp_path / "k.c"
    source.write_text("int kernel(int x) { return x + 1; }\n")
    (tmp_path / "ab").mkdir()
    ours, theirs = tmp_path / "ab" / "ours.so", tmp_path / "ab" / "theirs.so"
    for out in (ours, theirs):
        subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(source)], check=True)
    assert ctypes.CDLL(str(ours)).kernel(1) == 2  # loaded here, as Inductor loads what it compiled
    assert builds.built() == 1
    (tmp_path / "ab" / "later.so").write_bytes((theirs).read_bytes())
    assert builds.built() == 0  # counted from the last count on: a library written since and never loaded
