"""The linter and the formatter of pyproject.toml ([tool.ruff]) hold on the whole repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[test]')")
@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command: list[str]) -> None:
    result = subprocess.run([RUFF, *command], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
