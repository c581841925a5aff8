"""The app's layers: app_support's modules import no cycle, and only the Streamlit side of it
(the cached wrappers and the widgets) imports Streamlit, so that the computations, captions
and figures run, and are tested, without a session."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from importlib.util import resolve_name
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "app_support"
#: The modules that may import Streamlit: the caches around the computations, the widgets, the
#: sections a page draws, the app-wide setup (page configuration, style, presentation mode) and
#: the live figure's mount (its component and release).
STREAMLIT_SIDE = frozenset(
    {
        "app_support.cache",
        "app_support.widgets",
        "app_support.sections",
        "app_support.present",
        "app_support.live_lesson.mount",
    }
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, module: str | None = None) -> set[str]:
    """Every module ``path`` (the module ``module``, by default named from its path) imports,
    anywhere in it (functions included), relative imports resolved; ``from package import
    name`` counts as importing ``package.name`` when that is a module of app_support."""
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = resolve_name("." * node.level + (node.module or ""), package)
            found.add(target)
            found.update(
                f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES
            )
    found.discard(module)
    return found


GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def _internal(name: str) -> set[str]:
    return {t for t in GRAPH[name] if t in MODULES}


def test_app_support_imports_no_cycle() -> None:
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(_internal(name)):
            if state.get(target) == 1:
                pytest.fail(f"import cycle: {' -> '.join(path[path.index(target) :] + [target])}")
            if not state.get(target):
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(GRAPH):
        if not state.get(name):
            visit(name, [name])


@pytest.mark.parametrize("module", sorted(set(MODULES) - STREAMLIT_SIDE))
def test_the_compute_layer_imports_no_streamlit(module: str) -> None:
    """Neither Streamlit nor a module of the Streamlit side, so not even indirectly."""
    found = sorted(
        t for t in GRAPH[module] if t.split(".")[0] == "streamlit" or t in STREAMLIT_SIDE
    )
    assert not found, f"{module} imports {found}: Streamlit belongs to {sorted(STREAMLIT_SIDE)}"


def test_the_checker_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The checker itself: relative imports inside a function are found (a cycle or a
    Streamlit import hidden that way is what the rules exist to catch)."""
    probe = tmp_path / "_probe.py"
    probe.write_text(
        "def f():\n    from . import cache\n    from .widgets import url\n"
        "    import streamlit as st\n    return cache, url, st\n",
        encoding="utf-8",
    )
    found = _imports(probe, "app_support._probe")
    assert {"app_support.cache", "app_support.widgets", "streamlit"} <= found


def test_the_apps_methods_are_the_registrys() -> None:
    """The app names no method of its own: the methods it compares are detector methods of
    the registry, those of the Sweep and Real data pages registry names with a results-table
    name (the runner's)."""
    from app_support.compute import COMPARED_METHODS
    from app_support.results import SWEEP_METHODS, runner_methods
    from momkde_core.methods import DETECTOR_METHODS, from_table

    assert set(COMPARED_METHODS) <= set(DETECTOR_METHODS)
    assert [from_table(name) for name in runner_methods(SWEEP_METHODS)] == list(SWEEP_METHODS)


def test_an_installed_tests_package_does_not_shadow_the_helpers(tmp_path: Path) -> None:
    """The app's tests import their helpers as ``tests.app._apptest``: with a regular package
    named ``tests`` installed (some distributions ship one), pytest still collects them, because
    the repository's ``tests`` is a regular package too, first on the path."""
    installed = tmp_path / "site" / "tests"
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text('"""Another distribution\'s tests."""\n')
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + ["tests/app/test_app.py"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(installed.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "test_app.py::" in run.stdout
