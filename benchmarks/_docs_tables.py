"""Write a benchmark's table into docs/benchmarks.md, between its markers.

Each generated section of docs/benchmarks.md sits between ``<!-- begin: NAME -->`` and
``<!-- end: NAME -->``; a benchmark run with ``--write-docs`` replaces that text with its
table and the date and machine it ran on, so the page holds the current tables only (their
history is in git).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
from collections.abc import Callable
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


def checkout_parser(description: str, repo: Path) -> argparse.ArgumentParser:
    """The options of a benchmark that serves a checkout and sets two runs side by side:
    ``--repo`` (the checkout, default ``repo``), ``--label`` and ``--json`` (the run's name
    and file), ``--write-docs BEFORE AFTER`` (two runs' files into docs/benchmarks.md)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repo", type=Path, default=repo, help="the checkout to serve")
    parser.add_argument("--label", default="", help="a name for the run, kept in --json")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    parser.add_argument(
        "--write-docs",
        nargs=2,
        type=Path,
        metavar=("BEFORE", "AFTER"),
        help="put two runs' --json files side by side in docs/benchmarks.md, and stop",
    )
    return parser


def run_or_write(
    args: argparse.Namespace,
    section: str,
    describe: Callable[[dict, dict], str],
    measure: Callable[[Path], dict],
) -> dict | None:
    """What a :func:`checkout_parser` benchmark does: with ``--write-docs``, the two runs'
    files described by ``describe(before, after)`` into ``section`` of docs/benchmarks.md
    (returns None); otherwise ``measure(repo)``, named, dated and kept in ``--json``
    (returned)."""
    if args.write_docs:
        before, after = (json.loads(p.read_text()) for p in args.write_docs)
        write_section(section, describe(before, after))
        return None
    machine = machine_line()
    result = measure(args.repo.resolve())
    result.update(label=args.label or str(args.repo), machine=machine)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return result


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
