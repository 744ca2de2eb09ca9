"""A collection of tiny models for the suite's tests (tests/test_suite_run.py): one fine, one miscompiled, one whose
compile fails, one that crashes its process, one that hangs, each a few ops so a --quick aot_eager suite is cheap.

The miscompile and the compile failure come from PyTorch's own failure backends (torch._dynamo.backends.debugging:
``relu_accuracy_error_TESTING_ONLY`` turns relu into add 1, ``relu_compile_error_TESTING_ONLY`` raises on a relu),
given to those two models only (``Model(options=...)``); the hanging model has a time limit of its own
(``Model(timeout_s=...)``), shorter than the suite's, which the others need on a busy machine.  SUITE_TEST_SLEEP makes the fine model's builder slow, so
a test can interrupt a suite while that model runs.
"""

import os
import signal
import time

import torch
from compile_profile.suites import Model


def _relu_step():
    # one torch thread: the tests run on two workers of a 2-core machine, and a step at 2 threads beside the other
    # worker is oversubscribed, which the card's verdict then reads as a busy CPU (digest.outcome's busy_cpu rung)
    # and leaves its speedup out of the geometric mean the suite's test reads
    torch.set_num_threads(1)
    x = torch.randn(64, 64)
    w = torch.randn(64, 64)

    def fn(x, w):
        return torch.relu(x @ w) * 2

    return fn, (x, w)


def fine():
    delay = float(os.environ.get("SUITE_TEST_SLEEP", "0"))
    if delay:
        time.sleep(delay)
    return _relu_step()


def crash():
    os.kill(os.getpid(), signal.SIGSEGV)  # as a segfault in a C extension ends a process


def hang():
    while True:
        time.sleep(1)


def models():
    return {
        "fine": fine,
        "miscompiled": Model(_relu_step, options={"backend": "relu_accuracy_error_TESTING_ONLY"}),
        "compile fails": Model(_relu_step, options={"backend": "relu_compile_error_TESTING_ONLY"}),
        "crashes": crash,
        "hangs": Model(hang, timeout_s=4),  # its own limit over the suite's --timeout 30: ends in 4 s, not 30
    }
