"""Every ```python block of README.md and of the documentation's pages runs.

A page's blocks run in order in one namespace (a later block may use the names of an earlier
one), in a fresh interpreter with a timeout, so that an example that no longer runs (a renamed
argument, a name it never defines) fails here rather than in a reader's hands. A traceback
names the Markdown file and line.

Two HTML comments, on the line right before a block's fence (blank lines between allowed),
change how it runs:

* ``<!-- no-test: reason -->`` skips the block (data not in the repository, minutes of CPU);
  the reason is required and shown in the skip message;
* ``<!-- needs-env: NAME -->`` runs the page only when the environment variable ``NAME`` is
  set (e.g. ``MOMKDE_DATA_DIR`` for the IDA data sets), else skips it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a page's blocks may run in all.
TIMEOUT = 120
_FENCE = re.compile(r"^```python\s*$")
_MARKER = re.compile(r"^<!--\s*(no-test|needs-env)\s*:\s*(.*?)\s*-->$")
#: Runs the blocks sent on stdin (JSON: file name, first line, source) in one namespace,
#: each compiled at its line of the Markdown file, so that tracebacks point there.
_RUNNER = """
import json, sys
namespace = {"__name__": "__main__"}
for name, line, source in json.load(sys.stdin):
    exec(compile("\\n" * (line - 1) + source, name, "exec"), namespace)
"""


@dataclass(frozen=True)
class Block:
    """One ```python block of a Markdown page.

    Attributes
    ----------
    line : int
        The line of its first line of code (1-based).
    source : str
        Its code.
    skip : str
        The reason of its ``no-test`` marker, or "".
    needs_env : str
        The environment variable of its ``needs-env`` marker, or "".
    """

    line: int
    source: str
    skip: str = ""
    needs_env: str = ""


def _pages() -> list[Path]:
    """README.md and every Markdown page of docs/ but the built site, in a stable order."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
    return [ROOT / "README.md", *docs]


def python_blocks(text: str) -> list[Block]:
    """The ```python blocks of a Markdown text, with their markers.

    Parameters
    ----------
    text : str
        The page.

    Returns
    -------
    blocks : list of Block
        In page order.

    Examples
    --------
    >>> page = "Text.\\n\\n<!-- no-test: needs the data -->\\n```python\\nload()\\n```\\n"
    >>> python_blocks(page)
    [Block(line=5, source='load()\\n', skip='needs the data', needs_env='')]
    """
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            i += 1
            continue
        markers = _markers_before(lines, i)
        if "no-test" in markers and not markers["no-test"]:
            raise ValueError(f"line {i + 1}: a no-test marker needs a reason")
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"line {i + 1}: the ```python block is not closed")
        source = "".join(f"{line}\n" for line in lines[i + 1 : end])
        blocks.append(
            Block(i + 2, source, markers.get("no-test", ""), markers.get("needs-env", ""))
        )
        i = end + 1
    return blocks


def _markers_before(lines: list[str], fence: int) -> dict[str, str]:
    """The markers on the non-blank lines right above the fence at index ``fence``."""
    markers = {}
    i = fence - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    while i >= 0 and (match := _MARKER.match(lines[i].strip())):
        markers[match.group(1)] = match.group(2)
        i -= 1
    return markers


_WITH_BLOCKS = [p for p in _pages() if python_blocks(p.read_text(encoding="utf-8"))]


def test_the_pages_have_examples_to_run() -> None:
    """The collection finds the examples (a changed fence would silently test nothing)."""
    names = {p.relative_to(ROOT).as_posix() for p in _WITH_BLOCKS}
    assert {"README.md", "docs/guide/getting-started.md"} <= names


def test_markers_skip_a_block_and_need_a_reason() -> None:
    page = "<!-- needs-env: MOMKDE_DATA_DIR -->\n\n```python\nx = 1\n```\n```python\ny = x\n```\n"
    first, second = python_blocks(page)
    assert (first.line, first.needs_env, first.skip) == (4, "MOMKDE_DATA_DIR", "")
    assert (second.line, second.source, second.needs_env) == (7, "y = x\n", "")
    with pytest.raises(ValueError, match="needs a reason"):
        python_blocks("<!-- no-test: -->\n```python\npass\n```\n")


@pytest.mark.parametrize("page", _WITH_BLOCKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_examples_of_a_page_run(page: Path) -> None:
    """The page's blocks run in order, in one namespace, in a fresh interpreter."""
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    missing = sorted(
        {b.needs_env for b in blocks if b.needs_env and not os.environ.get(b.needs_env)}
    )
    if missing:
        pytest.skip(f"its examples need {', '.join(missing)}")
    name = page.relative_to(ROOT).as_posix()
    run = [(name, b.line, b.source) for b in blocks if not b.skip]
    if not run:
        pytest.skip("; ".join(b.skip for b in blocks))
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(run),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
    )
    assert done.returncode == 0, f"an example of {name} fails:\n{done.stderr[-3000:]}"
