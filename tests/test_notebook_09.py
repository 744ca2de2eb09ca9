"""Notebook 09 runs the built-in collection's CPU sample as a suite, each entry in a process of its own, and draws the
how-fast charts; its test reads the suite from the notebook's store (tests/notebook_runs.py runs it)."""

from __future__ import annotations

import pytest
from compile_profile.store import RunStore
from notebook_runs import ran_without_errors

pytestmark = pytest.mark.slow


def test_09_runs_the_builtin_collection_and_draws_the_how_fast_charts(executed):
    from compile_profile.suites.builtin import cpu_sample
    from compile_profile.suites.storage import load_suite, stored_suites
    from compile_profile.suites.views import MIME_TYPE as SUITE_MIME_TYPE

    ran = executed("09_how_fast")
    ran_without_errors(ran)
    with RunStore(ran.db) as store:
        (record,) = stored_suites(store)
        record = load_suite(store, record.id)
        assert store.count() == len(record.outcomes)  # each entry stored its run, in the notebook's store
    names = [o.name for o in record.outcomes]
    sample = cpu_sample("small")  # GPT-2 and Llama where transformers imports, else two plain models
    assert names == sample and sum(n.startswith("attention ") for n in names) == 6
    assert all(o.ended == "finished" for o in record.outcomes)
    datas = [o["data"] for c in ran.nb.cells if c.cell_type == "code" for o in c.outputs if "data" in o]
    (card,) = [d[SUITE_MIME_TYPE] for d in datas if SUITE_MIME_TYPE in d]
    assert card["suite"]["id"] == record.id and set(card["figures"]) == {"speedup", "compile"}
    assert len(card["figures"]["speedup"]["data"][0]["x"]) == 8
    assert any("application/vnd.plotly.v1+json" in d for d in datas)  # the attention chart
    assert "no regression" in ran.stdout("from compile_profile.suites.compare import")
    assert ran.seconds < 240
