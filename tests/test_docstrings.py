"""Every public class and function has a numpydoc docstring: Parameters when it takes any,
Returns (or Yields) when it returns something, and Examples (which the suite runs as
doctests); no timings in the library's docstrings."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import pytest

import momkde_core

# the public modules of docs/architecture.md; with __all__ their API is that list, otherwise
# every public function and class they define
PUBLIC_MODULES = (
    "metrics",
    "bandwidth",
    "synthetic",
    "datasets",
    "io",
    "experiments",
    "methods",
    "plots",
)


def _public_objects() -> dict[str, object]:
    found = {f"momkde_core.{name}": getattr(momkde_core, name) for name in momkde_core.__all__}
    for short in PUBLIC_MODULES:
        module = importlib.import_module(f"momkde_core.{short}")
        names = getattr(module, "__all__", None) or [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_")
            and (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__ == module.__name__
        ]
        for name in names:
            found[f"momkde_core.{short}.{name}"] = getattr(module, name)
    found["momkde_core.cli.main"] = importlib.import_module("momkde_core.cli").main
    return {
        k: v
        for k, v in found.items()
        if (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__.startswith("momkde_core")
    }


OBJECTS = _public_objects()


def _public_methods(cls: type) -> dict[str, object]:
    """Methods a user calls, defined by momkde_core (scikit-learn's own are documented there)."""
    out = {}
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") or not callable(member):
            continue
        owner = next(c for c in cls.__mro__ if name in vars(c))
        if owner.__module__.startswith("momkde_core"):
            out[name] = member
    return out


def _is_record(obj) -> bool:
    """A data record or an exception: its fields are its Attributes, and it needs no
    Examples of its own (the functions that return or raise it show it)."""
    return inspect.isclass(obj) and (
        dataclasses.is_dataclass(obj) or issubclass(obj, (tuple, Exception))
    )


def _check(name: str, obj, *, examples: bool) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    problems = []
    if not doc:
        return [f"{name}: no docstring"]
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        signature = None
    params = [p for p in signature.parameters if p not in ("self", "cls")] if signature else []
    if inspect.isclass(obj):
        init = vars(obj).get("__init__")
        params = [p for p in inspect.signature(init).parameters if p != "self"] if init else []
    sections = "Parameters|Attributes" if _is_record(obj) else "Parameters"
    if params and not re.search(rf"^({sections})\n-{{3,}}", doc, re.M):
        problems.append(f"{name}: no {sections.replace('|', ' or ')} section")
    if not inspect.isclass(obj) and signature is not None:
        returns = signature.return_annotation
        says_none = returns in (None, "None") or returns is inspect.Signature.empty
        if not says_none and not re.search(r"^(Returns|Yields)\n-{3,}", doc, re.M):
            problems.append(f"{name}: no Returns section")
    if examples and not _is_record(obj) and not re.search(r"^Examples\n-{3,}", doc, re.M):
        problems.append(f"{name}: no Examples section")
    if re.search(r"\d\s?(ms|µs)\b|~?\d+(\.\d+)? s (here|on this)", doc):
        problems.append(f"{name}: a timing in the docstring")
    return problems


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_public_docstrings_are_numpydoc(name: str) -> None:
    obj = OBJECTS[name]
    problems = _check(name, obj, examples=True)
    if inspect.isclass(obj):
        for method_name, method in _public_methods(obj).items():
            problems += _check(f"{name}.{method_name}", method, examples=False)
    assert not problems, "\n".join(problems)
