"""The load test's measurement of a process tree (benchmarks/load_test.py): without psutil it
reads /proc, and both give the same memory and CPU time. The load test itself (a real browser
run, 10 sessions x 5 moves) is a benchmark: see the README. Even two sessions and one move take
too long for the suite.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

# skipped only when the optional playwright package is absent (load_test drives the browser
# with it); the load test itself is imported plainly, by the repository root that
# pyproject.toml's pythonpath puts on sys.path: an error importing it is the suite's own and
# fails (it needs no Chromium to be imported)
if importlib.util.find_spec("playwright") is None:
    pytest.skip(
        "the playwright python package is not installed (pip install -e '.[test]')",
        allow_module_level=True,
    )
from benchmarks import load_test  # noqa: E402


def test_proc_fallback_agrees_with_psutil(monkeypatch):
    """A process and its child, read by psutil and from /proc; a process that is gone counts 0."""
    if load_test.psutil is None:
        pytest.skip("psutil is not installed: only the /proc reading is available")
    # (read once the child has started: a child still loading Python grows by megabytes
    # between the two readings, which then differ by more than their 5 % on a busy machine)
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        with_psutil = load_test.usage(os.getpid())
        monkeypatch.setattr(load_test, "psutil", None)
        from_proc = load_test.usage(os.getpid())
        alone = load_test.usage(os.getpid(), skip=child.pid)
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert with_psutil[0] > 0 and from_proc[0] == pytest.approx(with_psutil[0], rel=0.05)
    assert from_proc[1] == pytest.approx(with_psutil[1], abs=0.5)
    assert alone[0] < from_proc[0]  # the child's memory was counted, and is left out with skip
    assert load_test.usage(child.pid) == (0, 0.0)
