"""Write a benchmark's table into docs/benchmarks.md, between its markers.

Each generated section of docs/benchmarks.md sits between ``<!-- begin: NAME -->`` and
``<!-- end: NAME -->``; a benchmark run with ``--write-docs`` replaces that text with its
table and the date and machine it ran on, so the page holds the current tables only (their
history is in git).
"""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path

import numpy as np
import scipy
import sklearn

DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def machine_line() -> str:
    """The run's date and machine, as the line under a generated table."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"*Generated {datetime.date.today().isoformat()} on {platform.machine()} "
        f"({cores} cores, load average {os.getloadavg()[0]:.1f} at the start), Python "
        f"{platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}.*"
    )


def write_section(name: str, text: str, path: Path = DOCS) -> None:
    """Replace the section ``name`` of ``path`` with ``text`` (a ValueError when its markers
    are missing: the page says where each table goes, the script does not guess)."""
    page = path.read_text(encoding="utf-8")
    pattern = re.compile(
        rf"(<!-- begin: {re.escape(name)} -->\n)(?:.*?\n)?(<!-- end: {re.escape(name)} -->)", re.S
    )
    if not pattern.search(page):
        raise ValueError(f"{path} has no section {name!r} (<!-- begin: {name} --> ... end)")
    page = pattern.sub(lambda m: m.group(1) + text.strip() + "\n" + m.group(2), page)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
