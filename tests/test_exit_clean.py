"""A kernel that profiled a cell exits quietly.

Dynamo installs globals in the namespace of the code it compiles (``__builtins_dict___2``, ``__compiled_fn_3``),
each with a cleanup hook that deletes it when its code object dies.  At exit IPython clears the namespace first,
so a hook left behind prints ``Exception ignored ... KeyError: '__builtins_dict___2'``.  A profile must leave
none of its own: these run in a fresh interpreter (an IPython shell, as a notebook's kernel has) that profiles
a cell and exits, and read its stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # each case starts a process that compiles
SCRIPT = """
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "compile_profile")
shell.run_cell('''{setup}''')
result = shell.run_cell('''%%compile_profile --quick --warmup 1 --repeat 3 --budget 0.1 -o run {options}
{body}''')
assert result.error_in_exec is None
print("status", shell.user_ns["run"].status, [e.aot_eager for e in shell.user_ns["run"].errors])
"""


def profile_then_exit(tmp_path, setup: str, body: str, options: str = "") -> subprocess.CompletedProcess:
    script = SCRIPT.format(setup=textwrap.dedent(setup), body=textwrap.dedent(body), options=options)
    env = {
        **os.environ,
        "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor"),
        "COMPILE_PROFILE_DB": str(tmp_path / "r"),
    }
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path
    )


@pytest.mark.parametrize(
    ("setup", "body", "options", "status"),
    [
        pytest.param(
            # Inductor's C++ compile fails (no compiler), and the aot_eager check compiles the cell again: its
            # entry was not the profile's, so it stayed with its globals and their hooks
            "import torch\nimport torch._inductor.config as ic\nic.cpp.cxx = ('/nonexistent/cxx',)\nx = torch.randn(16)\n",
            "y = (x * 2).tanh() + 1\n",
            "",
            "status failed ['runs']",
            id="a-failed-compile-checked-under-aot-eager",
        ),
        pytest.param(
            "import torch\nmodel = torch.nn.Linear(8, 4)\nopt = torch.optim.AdamW(model.parameters())\n"
            "x = torch.randn(4, 8)\ndef scale_by_max(t):\n    print('break')\n    return t / t.abs().max()\n",
            "opt.zero_grad()\nloss = scale_by_max(model(x)).sum()\nloss.backward()\nopt.step()\n",
            "--backend aot_eager",
            "status ok []",
            id="a-training-step-breaking-in-a-helper",
        ),
    ],
)
def test_a_shell_that_profiled_a_cell_exits_without_dynamos_cleanup_errors(tmp_path, setup, body, options, status):
    done = profile_then_exit(tmp_path, setup, body, options)
    assert done.returncode == 0, done.stderr[-3000:]
    assert status in done.stdout, done.stdout[-3000:]
    assert "Exception ignored" not in done.stderr and "KeyError" not in done.stderr, done.stderr[-3000:]
