"""The layer rule of docs/architecture.md: no module of momkde_core imports from a higher
layer (imports inside functions count), the modules import no cycle, and the library needs
neither the app's packages nor the app's helpers."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "momkde_core"

# docs/architecture.md, "Layers": the lowest first; a module may import from its own layer
# or a lower one. The package's __init__ (the public API) sits above everything.
LAYERS: dict[str, int] = {
    "momkde_core._config": 0,
    "momkde_core._progress": 0,
    "momkde_core._columns": 0,
    "momkde_core.kernels": 0,
    "momkde_core.metrics": 0,
    "momkde_core.synthetic": 0,
    "momkde_core.io": 0,
    "momkde_core.datasets": 0,
    "momkde_core._engine": 1,
    "momkde_core._blocks": 2,
    "momkde_core.bandwidth": 3,
    "momkde_core.estimators": 4,
    "momkde_core.detector": 5,
    "momkde_core.experiments": 6,
    "momkde_core.plots": 6,
    "momkde_core.cli": 7,
    "momkde_core": 8,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    """The layer of the longest prefix of ``module`` named in LAYERS."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in LAYERS:
            return LAYERS[".".join(parts[:k])]
    raise AssertionError(f"{module} is in no layer: add it to docs/architecture.md and LAYERS")


def _imports(path: Path, module: str | None = None) -> set[str]:
    """The momkde_core modules that ``path`` (the module ``module``, by default named from
    its path) imports, anywhere in it (functions included); ``from package import name``
    counts as importing ``package.name`` when that is a module."""
    module = module or _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "momkde_core")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "momkde_core":
                continue
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                as_module = ROOT.joinpath(*candidate.split("."))
                is_module = as_module.with_suffix(".py").is_file() or as_module.is_dir()
                found.add(candidate if is_module else target)
    found.discard(module)
    return found


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        _layer(name)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_from_a_higher_layer(module: str) -> None:
    higher = sorted(t for t in GRAPH[module] if _layer(t) > _layer(module))
    assert not higher, (
        f"{module} (layer {_layer(module)}) imports {higher} from a higher "
        "layer: see docs/architecture.md, 'Where does a change go'"
    )


def test_the_modules_import_no_cycle() -> None:
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(GRAPH.get(name, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target] if target in path else [target]
                pytest.fail(f"import cycle: {' -> '.join(cycle)}")
            if target in GRAPH and not state.get(target):
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(GRAPH):
        if not state.get(name):
            visit(name, [name])


def test_the_rule_sees_function_level_imports(tmp_path: Path) -> None:
    """The checker itself: an import inside a function is found (a cycle hidden that way is
    what the rule exists to catch)."""
    probe = tmp_path / "_probe.py"
    probe.write_text(
        "def f():\n    from ..estimators import MoMKDE\n    return MoMKDE\n", encoding="utf-8"
    )
    found = _imports(probe, "momkde_core.bandwidth._probe")
    assert found == {"momkde_core.estimators"}
    assert _layer("momkde_core.estimators") > _layer("momkde_core.bandwidth._probe")


def test_the_library_imports_without_the_app_packages() -> None:
    """``pip install momkde`` has neither streamlit nor plotly: every module but the plots
    imports without them, and no module imports the app's helpers."""
    modules = [m for m in MODULES if m not in ("momkde_core.plots", "momkde_core.cli.__main__")]
    code = (
        "import sys\n"
        "for name in ('streamlit', 'plotly', 'app_support', 'tqdm'):\n"
        "    sys.modules[name] = None  # an import of it raises ImportError\n"
        "import importlib\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_the_package_installs_the_library_alone() -> None:
    """``pip install momkde`` brings the library's dependencies only; ``[app]`` adds the
    app's, the test extra installs the app, and only momkde_core is packaged."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = {re.split(r"[<>=\[ ]", d)[0].lower() for d in project["project"]["dependencies"]}
    assert names == {"numpy", "scipy", "scikit-learn", "pandas", "joblib", "threadpoolctl", "numba"}
    extras = project["project"]["optional-dependencies"]
    assert {re.split(r"[<>=\[ ]", d)[0] for d in extras["app"]} == {"streamlit", "plotly"}
    assert "momkde[app]" in extras["test"]
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == [
        "momkde_core",
        "momkde_core.*",
    ]
