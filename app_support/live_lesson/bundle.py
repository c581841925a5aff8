"""The live figure's script as one ES module: its modules (``js/``, small files by concern,
each an ES module Node's test runner imports as it is) joined in the order of their imports.

Streamlit's components v2 take a component's script as one string when the app is not an
installed package (no ``asset_dir`` to serve files from), so the modules cannot import each
other in the page. :func:`bundle` wraps each module in a function scope that returns its
exports, in an order where every module comes after the modules it imports, and replaces
each ``import { a, b } from "./name.js";`` by a read of those names from that scope: the
page runs the same code the unit tests run, with no build step and no tool to install.

The modules keep to a small form, which :func:`bundle` checks and refuses otherwise: imports
are named imports of sibling modules (``import { a, b as c } from "./name.js";`` at the
start of a line), exports are declarations (``export function``, ``export const``,
``export class``) and the entry module alone has ``export default``.

A Web Worker's script is bundled the same way (:data:`WORKER_ENTRY`); the page's bundle
holds it as the string ``WORKER_SOURCE`` (declared first), from which the page starts the
worker through a Blob URL: no file is fetched.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

#: The modules' folder.
MODULES = Path(__file__).resolve().parent / "js"
#: The page's entry module and the worker's.
PAGE_ENTRY = "main.js"
WORKER_ENTRY = "worker.js"

_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w-]+\.js)";[ \t]*$', re.M)
_ANY_IMPORT = re.compile(r"^\s*import\b", re.M)
_EXPORT = re.compile(
    r"^export\s+(?:async\s+)?(function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)", re.M
)
_DEFAULT = re.compile(r"^export\s+default\s+", re.M)
_OTHER_EXPORT = re.compile(
    r"^\s*export\b(?!\s+(?:default\s|(?:async\s+)?function|const|let|class))", re.M
)


def _names(clause: str) -> list[tuple[str, str]]:
    """``a, b as c`` -> [("a", "a"), ("b", "c")] (the exported name, the local one)."""
    pairs = []
    for part in (p.strip() for p in clause.split(",")):
        if not part:
            continue
        exported, _, local = (w.strip() for w in part.partition(" as "))
        pairs.append((exported, local or exported))
    return pairs


def _parse(name: str) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[str], str]:
    """A module's imports (module, names), its exported names and its body without its
    import lines and ``export`` keywords (``export default`` kept)."""
    path = MODULES / name
    if not path.is_file():
        raise ValueError(f"the live figure's module {name!r} does not exist in {MODULES}")
    text = path.read_text(encoding="utf-8")
    imports = [(m.group(2), _names(m.group(1))) for m in _IMPORT.finditer(text)]
    body = _IMPORT.sub("", text)
    if _ANY_IMPORT.search(body):
        raise ValueError(f"{name}: only named imports of sibling modules can be bundled")
    if _OTHER_EXPORT.search(body):
        raise ValueError(f"{name}: only exported declarations can be bundled")
    exports = [m.group(2) for m in _EXPORT.finditer(body)]
    body = _EXPORT.sub(lambda m: m.group(0).removeprefix("export").lstrip(), body)
    return imports, exports, body


def _order(entry: str) -> list[str]:
    """The modules ``entry`` needs, each after those it imports (depth first)."""
    done: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in done:
            return
        if name in visiting:
            raise ValueError(f"the live figure's modules import each other in a cycle at {name}")
        visiting.add(name)
        for dependency, _ in _parse(name)[0]:
            visit(dependency)
        visiting.discard(name)
        done.append(name)

    visit(entry)
    return done


def _scope(name: str) -> str:
    return "__module_" + re.sub(r"\W", "_", name.removesuffix(".js"))


def _join(entry: str, prologue: str = "") -> str:
    parts = [prologue] if prologue else []
    for name in _order(entry):
        imports, exports, body = _parse(name)
        reads = "".join(
            f"const {{ {', '.join(e if e == loc else f'{e}: {loc}' for e, loc in names)} }} = "
            f"{_scope(module)};\n"
            for module, names in imports
        )
        if name == entry:
            if exports:
                raise ValueError(f"{name}: the entry module exports by default only")
            parts.append(f"// ---- {name}\n{reads}{body}")
            continue
        if _DEFAULT.search(body):
            raise ValueError(f"{name}: only the entry module has an export default")
        parts.append(
            f"// ---- {name}\nconst {_scope(name)} = (() => {{\n{reads}{body}\n"
            f"return {{ {', '.join(exports)} }};\n}})();"
        )
    return "\n".join(parts) + "\n"


@cache
def bundle() -> str:
    """The page's script: every module the page's entry needs, with the worker's script as
    ``WORKER_SOURCE``.

    Returns
    -------
    script : str
        One ES module (its ``export default`` is the component's function).

    Raises
    ------
    ValueError
        When a module is missing, imports in a cycle or leaves the form above.

    Examples
    --------
    >>> script = bundle()
    >>> script.startswith("const WORKER_SOURCE = ") and "export default function" in script
    True
    """
    worker = _join(WORKER_ENTRY)
    return _join(PAGE_ENTRY, prologue=f"const WORKER_SOURCE = {json.dumps(worker)};")


def worker_script() -> str:
    """The worker's script alone (a classic script: the worker's entry has no export).

    Returns
    -------
    script : str
        Every module the worker's entry needs, then the entry.

    Examples
    --------
    >>> "onmessage" in worker_script()
    True
    """
    return _join(WORKER_ENTRY)
