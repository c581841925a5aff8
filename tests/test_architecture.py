"""The layer rule of docs/architecture.md: no module of momkde_core imports from a higher
layer (imports inside functions count), every module is in a layer, the modules import no
cycle, and the library needs neither the app's packages nor the app's helpers. The page's
"Layers" table, its package tree and its "Where does a change go" table are checked against
LAYERS and the files on disk."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "momkde_core"
DOC = ROOT / "docs" / "architecture.md"

# docs/architecture.md, "Layers": the lowest first; a module may import from its own layer
# or a lower one. A module is in the layer of its own name or of its package's; the package
# itself, "momkde_core" (its __init__, the public API), sits above everything and names no
# module but that one.
API = "momkde_core"
LAYERS: dict[str, int] = {
    "momkde_core._config": 0,
    "momkde_core._progress": 0,
    "momkde_core._columns": 0,
    "momkde_core._validation": 0,
    "momkde_core.kernels": 0,
    "momkde_core.metrics": 0,
    "momkde_core.synthetic": 0,
    "momkde_core.io": 0,
    "momkde_core.datasets": 0,
    "momkde_core._engine": 1,
    "momkde_core._blocks": 2,
    "momkde_core.bandwidth": 3,
    "momkde_core.estimators": 4,
    "momkde_core.methods": 5,
    "momkde_core.detector": 5,
    "momkde_core._explain": 5,
    "momkde_core._block_mean": 5,
    "momkde_core._rows": 5,
    "momkde_core.experiments": 6,
    "momkde_core.plots": 6,
    "momkde_core.cli": 7,
    API: 8,
}
# how the page names the third-party packages that layer 0 imports, as imported
DISTRIBUTIONS = {"scikit-learn": "sklearn"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    """The layer of ``module``: that of the longest prefix of it named in LAYERS, the
    package ``momkde_core`` counting for itself only (an unlisted module fails)."""
    if module == API:
        return LAYERS[API]
    parts = module.split(".")
    for k in range(len(parts), 1, -1):
        if ".".join(parts[:k]) in LAYERS:
            return LAYERS[".".join(parts[:k])]
    raise AssertionError(
        f"{module} is in no layer: add it (or its package) to the 'Layers' table of "
        "docs/architecture.md and to LAYERS in tests/test_architecture.py"
    )


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
    missing = []
    for name in MODULES:
        try:
            _layer(name)
        except AssertionError:
            missing.append(name)
    assert not missing, (
        f"modules in no layer: {missing}; add each (or its package) to the 'Layers' table "
        "of docs/architecture.md and to LAYERS in tests/test_architecture.py"
    )


def test_an_unlisted_module_is_in_no_layer() -> None:
    """The checker itself: a module named neither by itself nor by its package fails (the
    package ``momkde_core`` is the API layer, not a layer for whatever is left)."""
    with pytest.raises(AssertionError, match="momkde_core._new_module is in no layer"):
        _layer("momkde_core._new_module")
    with pytest.raises(AssertionError, match="in no layer"):
        _layer("momkde_core.new_package._part")
    assert _layer("momkde_core.bandwidth._new_rule") == LAYERS["momkde_core.bandwidth"]
    assert _layer("momkde_core") == LAYERS[API]


def test_every_layer_names_a_module_on_disk() -> None:
    for name in LAYERS:
        path = ROOT.joinpath(*name.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), name


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
    modules = [
        m
        for m in MODULES
        if m != "momkde_core.cli.__main__"
        and m != "momkde_core.plots"
        and not m.startswith("momkde_core.plots.")
    ]
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


# -- docs/architecture.md against LAYERS and the files on disk --------------------------------


def _section(title: str) -> str:
    """The text of the section ``## title`` of docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"docs/architecture.md has no section '{title}'"
    return found.group(1)


def _table_rows(title: str) -> list[list[str]]:
    """The body rows of the first table of section ``title``, as lists of cells."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in _section(title).splitlines()
        if line.startswith("|")
    ]
    return rows[2:]  # the header and its rule left out


def _doc_layers() -> dict[str, tuple[int, list[str], list[str]]]:
    """The 'Layers' table: each module it names -> (layer, what the row's last cell quotes)."""
    out = {}
    for first, modules, knows in _table_rows("Layers"):
        layer = int(first.split()[0])
        for name in re.findall(r"`([^`]+)`", modules):
            module = API if name == "momkde_core/__init__.py" else f"{API}.{name}"
            out[module] = (layer, re.findall(r"`([^`]+)`", knows))
    return out


_ENTRY = re.compile(r"[\w.]+(\.py|/)")


def _tree_paths() -> set[str]:
    """The paths the package tree of 'The package' lists, from the repository's root: an
    entry is a line that starts with names (``x.py``, ``x/``, several separated by commas)
    followed by two spaces or the end of the line; a folder alone on its line holds the
    entries indented under it."""
    block = re.search(r"```\n(.*?)```", _section("The package"), re.S)
    assert block, "'The package' has no tree block"
    paths: set[str] = set()
    folders: list[tuple[int, str]] = []  # (indent, path) of the open folders
    for line in block.group(1).splitlines():
        indent = len(line) - len(line.lstrip())
        names = [n.strip() for n in re.split(r"\s{2,}", line.strip())[0].split(",")]
        if not line.strip() or not all(_ENTRY.fullmatch(n) for n in names):
            continue  # a description carried over from the line above
        while folders and folders[-1][0] >= indent:
            folders.pop()
        parent = folders[-1][1] if folders else ""
        paths.update(parent + n for n in names)
        if len(names) == 1 and names[0].endswith("/"):
            folders.append((indent, parent + names[0]))
    return paths


def test_the_layers_table_is_layers() -> None:
    table = {m: layer for m, (layer, _) in _doc_layers().items()}
    assert table == LAYERS, (
        "the 'Layers' table of docs/architecture.md and LAYERS in tests/test_architecture.py "
        f"differ: only in the table {sorted(table.items() - LAYERS.items())}, only in LAYERS "
        f"{sorted(LAYERS.items() - table.items())}"
    )


def _third_party(path: Path) -> set[str]:
    """The top-level names of what ``path`` imports outside the standard library and us."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"__future__", "momkde_core"}


def test_the_layers_table_names_what_layer_0_imports() -> None:
    """Layer 0's row quotes the third-party packages its modules import, all and only."""
    quoted = {
        DISTRIBUTIONS.get(name, name)
        for layer, knows in _doc_layers().values()
        if layer == 0
        for name in knows
    }
    imported = set()
    for name, path in MODULES.items():
        if name != API and _layer(name) == 0:
            imported |= _third_party(path)
    assert quoted == imported, (
        f"layer 0 imports {sorted(imported)}; its row of the 'Layers' table of "
        f"docs/architecture.md quotes {sorted(quoted)}"
    )


def test_the_package_tree_lists_every_module() -> None:
    """Every module file of momkde_core is in the tree of 'The package' (a package's folder
    line stands for its __init__.py), and every path the tree lists exists."""
    listed = _tree_paths()
    missing = [
        str(path.relative_to(ROOT))
        for path in MODULES.values()
        if str(path.relative_to(ROOT)) not in listed
        and not (path.name == "__init__.py" and path.parent != PACKAGE)
    ]
    assert not missing, f"not in the package tree of docs/architecture.md: {missing}"
    absent = sorted(p for p in listed if not (ROOT / p).exists())
    assert not absent, f"the package tree of docs/architecture.md lists absent paths: {absent}"


def test_where_a_change_goes_names_existing_paths() -> None:
    """Every path quoted in 'Where does a change go' exists, from the root or the package."""
    absent = []
    for row in _table_rows("Where does a change go"):
        for quoted in re.findall(r"`([^`]+)`", " ".join(row[1:])):
            if "<" in quoted or not ("/" in quoted or quoted.endswith((".py", ".md"))):
                continue  # a placeholder, or a name rather than a path
            if not ((ROOT / quoted).exists() or (PACKAGE / quoted).exists()):
                absent.append(quoted)
    assert not absent, f"'Where does a change go' names absent paths: {absent}"


#: The project's limit on a source file's length (the contributor guide): a longer file is
#: split where its parts separate, so that each can be read at once.
MAX_LINES = 600
#: Where the limit holds: the library, the app and its helpers, the benchmarks.
LIMITED = ("momkde_core", "app_support", "app_pages", "benchmarks")


def _too_long(paths: list[Path], root: Path = ROOT) -> dict[str, int]:
    """The files of ``paths`` longer than :data:`MAX_LINES` (relative to ``root``), with
    their lengths in lines."""
    lengths = {
        str(p.relative_to(root)): len(p.read_text(encoding="utf-8").splitlines()) for p in paths
    }
    return {name: n for name, n in lengths.items() if n > MAX_LINES}


def test_no_source_file_is_longer_than_the_limit() -> None:
    paths = [ROOT / "app.py", *(p for d in LIMITED for p in sorted((ROOT / d).rglob("*.py")))]
    too_long = _too_long(paths)
    assert not too_long, f"split these files (at most {MAX_LINES} lines each): {too_long}"


def test_the_length_rule_sees_a_long_file(tmp_path: Path) -> None:
    """The checker itself: a file one line over the limit is found, one at the limit is not."""
    over, at = tmp_path / "over.py", tmp_path / "at.py"
    over.write_text("x = 1\n" * (MAX_LINES + 1))
    at.write_text("x = 1\n" * MAX_LINES)
    assert _too_long([over, at], tmp_path) == {"over.py": MAX_LINES + 1}
