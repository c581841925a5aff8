"""The load test's measurement of a process tree (benchmarks/load_test.py): without psutil it
reads /proc, and both give the same memory and CPU time. The load test itself (a real browser
run, 10 sessions x 5 moves) is a benchmark: see the README. Two sessions and one move take about
30 s on the 2-core development machine, too long for the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
pytest.importorskip("playwright.async_api", reason="the playwright python package is not installed")
load_test = pytest.importorskip("benchmarks.load_test")  # skipped with the browser tests when Chromium is missing


def test_proc_fallback_agrees_with_psutil(monkeypatch):
    """A process and its child, read by psutil and from /proc; a process that is gone counts 0."""
    if load_test.psutil is None:
        pytest.skip("psutil is not installed: only the /proc reading is available")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with_psutil = load_test.usage(os.getpid())
        monkeypatch.setattr(load_test, "psutil", None)
        from_proc = load_test.usage(os.getpid())
        alone = load_test.usage(os.getpid(), skip=child.pid)
    finally:
        child.kill()
        child.wait()
    assert with_psutil[0] > 0 and from_proc[0] == pytest.approx(with_psutil[0], rel=0.05)
    assert from_proc[1] == pytest.approx(with_psutil[1], abs=0.5)
    assert alone[0] < from_proc[0]  # the child's memory was counted, and is left out with skip
    assert load_test.usage(child.pid) == (0, 0.0)
