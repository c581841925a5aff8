"""docs/benchmarks.md holds a section for every table a benchmark writes with --write-docs,
and writing one replaces only that section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks._docs_tables import DOCS, write_section

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _written_sections() -> set[str]:
    """The section names the benchmark scripts pass to write_section (or print under)."""
    names = set()
    for script in BENCHMARKS.glob("bench_*.py"):
        text = script.read_text(encoding="utf-8")
        names.update(re.findall(r'write_section\(\s*"([a-z-]+)"', text))
        names.update(re.findall(r'out\(\s*"([a-z-]+)"', text))
    return names


def test_every_generated_section_has_its_markers() -> None:
    page = DOCS.read_text(encoding="utf-8")
    sections = _written_sections()
    assert {"core", "robust-defaults", "grid-speed", "large-cases", "gram"} <= sections
    for name in sections:
        assert page.count(f"<!-- begin: {name} -->") == 1, name
        assert page.count(f"<!-- end: {name} -->") == 1, name


def test_write_section_replaces_only_its_section(tmp_path: Path) -> None:
    page = tmp_path / "b.md"
    page.write_text(
        "# B\n<!-- begin: a -->\nold a\n<!-- end: a -->\ntext\n<!-- begin: b -->\nold b\n"
        "<!-- end: b -->\n",
        encoding="utf-8",
    )
    write_section("a", "| new | table |\n", page)
    assert page.read_text(encoding="utf-8") == (
        "# B\n<!-- begin: a -->\n| new | table |\n<!-- end: a -->\ntext\n<!-- begin: b -->\n"
        "old b\n<!-- end: b -->\n"
    )
    page.write_text("<!-- begin: e -->\n<!-- end: e -->\n", encoding="utf-8")  # empty
    write_section("e", "table", page)
    write_section("e", "table 2", page)
    assert page.read_text(encoding="utf-8") == "<!-- begin: e -->\ntable 2\n<!-- end: e -->\n"
    with pytest.raises(ValueError, match="no section 'c'"):
        write_section("c", "x", page)
