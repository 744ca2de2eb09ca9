"""A CPU suite forks each entry from one process that has imported torch, Dynamo and Inductor (suites/zygote.py):
the entries' parent is that process, not the suite's, and torch's compiler is imported before the entry builds.  An
entry that ends that process ends only itself: the entries after it start afresh, children of the suite's process,
and pass.  (test_suite_run.py's crash, hang, miscompile and resume run through the forked children too.)"""

from __future__ import annotations

import json
import os

import pytest
from compile_profile.store import RunStore
from compile_profile.suites.storage import load_suite

pytestmark = pytest.mark.slow

COLLECTION = """
import json, os, signal, sys
import torch

def _step(tag):
    def build():
        with open(os.path.join(os.environ["SUITE_FORK_DIR"], tag + ".json"), "w") as f:
            json.dump({"ppid": os.getppid(), "pid": os.getpid(),
                       "inductor": "torch._inductor.compile_fx" in sys.modules}, f)
        if tag == "ends its parent":
            os.kill(os.getppid(), signal.SIGKILL)
        x = torch.randn(16, 16)
        return (lambda x: torch.relu(x) + 1), (x,)
    return build

def models():
    return {tag: _step(tag) for tag in ("first", "second", "ends its parent", "after")}
"""


def test_a_cpu_suite_forks_its_entries_and_one_that_ends_the_forking_process_ends_only_itself(tmp_path, monkeypatch):
    import compile_profile

    collection = tmp_path / "forks.py"
    collection.write_text(COLLECTION)
    monkeypatch.setenv("SUITE_FORK_DIR", str(tmp_path))
    result = compile_profile.suite(
        str(collection), backend="aot_eager", quick=True, budget=0.5, progress=False, db=str(tmp_path / "s.sqlite")
    )
    seen = {tag: json.loads((tmp_path / f"{tag}.json").read_text()) for tag in ("first", "second", "after")}
    zygote = seen["first"]["ppid"]
    assert zygote != os.getpid() and seen["second"]["ppid"] == zygote  # one forking process, not ours
    assert seen["first"]["inductor"] and seen["second"]["inductor"]  # imported there before the entry built
    assert seen["first"]["pid"] != seen["second"]["pid"]  # a process per entry all the same
    assert seen["after"]["ppid"] == os.getpid() and not seen["after"]["inductor"]  # afresh, once it was gone

    outcomes = {o.name: o for o in load_suite(RunStore(tmp_path / "s.sqlite"), result.record.id).outcomes}
    assert outcomes["ends its parent"].ended == "crashed"
    assert [outcomes[t].ended for t in ("first", "second", "after")] == ["finished"] * 3
    assert [r.status for r in result.digest.rows if r.name != "ends its parent"] == ["pass"] * 3
