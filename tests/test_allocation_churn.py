"""Allocation churn as a sign on a CPU timing (``digest.allocation``, ``Timing.faults``; issue 34): a call whose
allocations take pages fresh from the OS has a time that moves with the allocator's state from process to process.
The rule on recorded facts, then a live profile of a call that maps and faults in 64 MB every time, its page faults
checked against ``getrusage`` around the same call outside the profile."""

from __future__ import annotations

import mmap
import resource

import pytest
import torch
from compile_profile.digest import summarize
from compile_profile.digest.allocation import FAULT_S, MIN_FAULTS, churn, churn_text
from compile_profile.digest.format import format_ms
from render_fixtures import cpu_run

# counts the process's page faults: no other test's calls beside it
pytestmark = pytest.mark.alone


def _faulting(run, faults: float, variant: str = "eager"):
    timing = run.variant(variant).timing
    timing.faults = [faults] * len(timing.samples_ms or [0] * timing.n)
    return run


def test_a_call_that_faults_in_megabytes_each_time_is_named_with_its_count_its_estimated_cost_and_the_fix():
    run = _faulting(cpu_run(), 2615)
    eager_ms = run.eager.timing.median_ms
    found = churn(run)
    assert [c.variant for c in found] == ["eager"]
    assert found[0].cost_ms == pytest.approx(2615 * FAULT_S * 1e3)
    text = churn_text(run)
    assert f"(page faults: eager 2,615 a call of {format_ms(eager_ms)})" in text
    assert "jemalloc or tcmalloc" in text and "MALLOC_MMAP_THRESHOLD_ above the largest block" in text
    assert text in summarize(run)["warnings"]  # the card says it
    assert found[0].cost_ms < eager_ms  # the figures the line states are the run's


def test_a_few_faults_or_faults_that_cost_little_of_the_call_are_not_a_sign():
    assert churn(_faulting(cpu_run(), MIN_FAULTS - 1)) == []
    run = _faulting(cpu_run(), MIN_FAULTS)
    run.eager.timing.median_ms = 100 * MIN_FAULTS * FAULT_S * 1e3  # the faults an estimated 1 % of the call
    assert churn(run) == []
    assert churn_text(cpu_run()) == ""  # not measured: nothing said


PAGES = 8192


@torch.compiler.disable
def _touch_fresh_pages() -> None:
    # an anonymous mapping of PAGES pages, each touched once: as many page faults in every call, whatever
    # malloc's state (the subject here is the counting, not the allocator); run eagerly in both variants
    block = mmap.mmap(-1, PAGES * mmap.PAGESIZE)
    for offset in range(0, PAGES * mmap.PAGESIZE, mmap.PAGESIZE):
        block[offset] = 1
    block.close()


def _fresh_pages(x):
    _touch_fresh_pages()
    return x + 1


@pytest.mark.compiles
def test_a_profile_counts_each_samples_page_faults_as_getrusage_counts_them_around_the_same_call():
    import compile_profile

    x = torch.zeros(1)
    run = compile_profile.profile(_fresh_pages, x, backend="aot_eager", quick=True, budget=0.5, repeat=6)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        _fresh_pages(x)
    independent = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    assert PAGES <= independent < 1.1 * PAGES
    for variant in run.variants:
        t = variant.timing
        assert t is not None and len(t.faults) == t.n, variant.name
        assert sorted(t.faults)[t.n // 2] == pytest.approx(independent, rel=0.1), variant.name
    assert churn_text(run).startswith("allocations take pages fresh from the OS in every call (page faults: eager 8,")
