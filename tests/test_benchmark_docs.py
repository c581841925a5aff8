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


ROOT = BENCHMARKS.parent


def test_every_script_is_indexed_in_the_readme() -> None:
    """benchmarks/README.md names every script of benchmarks/ and benchmarks/studies/ (a tool
    by its name, a study as ``studies/NAME``), so none is left without what it measures."""
    index = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    scripts = [p for p in BENCHMARKS.glob("*.py") if p.name != "__init__.py"]
    studies = sorted((BENCHMARKS / "studies").glob("*.py"))
    assert studies, "benchmarks/studies/ holds the finished design studies"
    missing = [p.name for p in scripts if f"`{p.name}`" not in index]
    missing += [f"studies/{p.name}" for p in studies if f"`studies/{p.name}`" not in index]
    assert not missing, f"not indexed in benchmarks/README.md: {missing}"


def test_every_script_the_docs_name_exists() -> None:
    """Each ``benchmarks/....py`` path the docs, the README and the code name is a file of
    today's tree (a study moved to benchmarks/studies/ is named there)."""
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    sources = [*(ROOT / "momkde_core").rglob("*.py"), *(ROOT / "app_support").rglob("*.py")]
    sources += [*BENCHMARKS.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    named = {
        (path.relative_to(ROOT), found)
        for path in [*pages, *sources]
        for found in re.findall(r"benchmarks/[\w/]+\.py", path.read_text(encoding="utf-8"))
    }
    absent = sorted(f"{where}: {found}" for where, found in named if not (ROOT / found).exists())
    assert not absent, absent
