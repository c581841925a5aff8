"""Probe the public behaviour of the library and the app, to compare it before and after a
change that should not alter it (a rename, a move, a split).

``record`` runs a fixed set of calls with fixed seeds and writes what they return to a JSON
file: every estimator's ``fit``, ``score_samples``, ``pdf`` and ``sample``; ``make_detector``
for every detector name; ``OutlierDetector``'s ``predict``, ``decision_function``,
``explain`` and ``most_blamed``; the registry's ``build_estimator`` for every method;
``momkde score`` on a small CSV; the messages of a few bad inputs. ``--app`` adds each page
of the app rendered by Streamlit's AppTest at its defaults and at a few URLs (every text,
widget value and figure). ``compare`` reads two such files and lists what differs: numbers
beyond a relative tolerance, texts that changed, entries only one file has.

Usage::

    python benchmarks/api_probe.py record before.json [--app]
    python benchmarks/api_probe.py compare before.json after.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Relative tolerance of two numbers: the probe compares one code path before and after a
#: change, on one machine, so only the order of floating-point sums may differ.
RTOL = 1e-9
#: Absolute tolerance, for numbers near zero (log densities cancel, contributions sum to 0).
ATOL = 1e-10

#: The app's pages and the URLs each is opened at (its defaults first).
PAGES: dict[str, list[dict[str, str | list[str]]]] = {
    "app_pages/explore.py": [
        {},
        {"dim": "2", "n": "200", "methods": ["kde", "mom_kde", "screened_kde"]},
        {"Smode": "manual", "S": "9", "hmode": "cv"},
    ],
    "app_pages/learn.py": [{}, {"o": "5", "h": "0.05", "S": "60"}],
    "app_pages/real_data.py": [{}, {"sets": ["iris"], "methods": ["kde", "screened_kde"]}],
    "app_pages/sweep.py": [{}, {"scheme": "adversarial"}],
    "app_pages/your_data.py": [
        {},
        {"sample": "sensors", "flag": "kde", "eps": "0.05"},
        {"sample": "cards", "methods": ["mom_kde_21", "kde", "spkde"]},
    ],
}


def _plain(value):
    """``value`` as JSON: arrays as lists, non-finite floats as strings."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else str(float(value))
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (str, bool, int)):
        return value
    try:  # a protobuf's repeated field, a pandas Index: a sequence
        return [_plain(v) for v in value]
    except TypeError:
        return repr(value)


def _message(fn) -> str:
    """The type and message of what ``fn()`` raises ("returned" when it does not)."""
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - the probe records whatever is raised
        return f"{type(error).__name__}: {error}"
    return "returned"


def _library() -> dict:
    """The library's public calls and their results."""
    from momkde_core import (
        KDE,
        RKDE,
        SPKDE,
        MoMKDE,
        OutlierDetector,
        ScreenedKDE,
        make_contaminated,
        make_detector,
    )
    from momkde_core.detector import most_blamed
    from momkde_core.methods import DETECTOR_METHODS, METHODS, build_estimator

    out: dict = {}
    data = make_contaminated("adversarial", n_inliers=300, ratio=0.1, random_state=0)
    X = data.X
    X2 = make_contaminated("uniform", n_inliers=200, ratio=0.1, dim=2, random_state=1).X
    points = np.linspace(X.min(), X.max(), 7)[:, None]
    estimators = {
        "KDE": KDE(bandwidth="cv", random_state=0),
        "MoMKDE": MoMKDE(random_state=0, contamination=0.1),
        "MoMKDE_S7": MoMKDE(n_blocks=7, random_state=0),
        "RKDE": RKDE(bandwidth="cv", random_state=0),
        "SPKDE": SPKDE(bandwidth="cv", contamination=0.1, random_state=0),
        "ScreenedKDE": ScreenedKDE(contamination=0.1, random_state=0),
    }
    for name, est in estimators.items():
        for dim, sample in (("1d", X), ("2d", X2)):
            fitted = est.fit(sample)
            at = sample[:7]
            out[f"{name}/{dim}"] = {
                "score_samples": fitted.score_samples(at),
                "score": fitted.score(at),
                "pdf": fitted.pdf(at) if hasattr(fitted, "pdf") else None,
                "sample": fitted.sample(3, random_state=0) if hasattr(fitted, "sample") else None,
                "params": {k: repr(v) for k, v in est.get_params().items()},
            }
        out[f"{name}/1d/grid"] = est.fit(X).score_samples(points)
    for name in METHODS:
        needs = {"n_blocks": 5, "bandwidth": 0.4}
        params = {p: needs[p] for p in METHODS[name].needs}
        est = build_estimator(name, contamination=0.1, random_state=0, **params)
        out[f"build/{name}"] = {
            "type": type(est).__name__,
            "params": {k: repr(v) for k, v in est.get_params().items()},
            "scores": est.fit(X).score_samples(X[:5]),
        }
    for name in ("mom_kde_21", "kde", "mom_kde", "rkde", "spkde", "screened_kde"):
        detector = make_detector(name, contamination=0.1, random_state=0).fit(X2)
        out[f"detector/{name}"] = {
            "predict": detector.predict(X2[:20]),
            "decision_function": detector.decision_function(X2[:20]),
            "offset": detector.offset_,
        }
    out["detector/listed"] = list(DETECTOR_METHODS)
    detector = OutlierDetector(random_state=0).fit(X2)
    out["OutlierDetector"] = {
        "predict": detector.predict(X2),
        "explain": detector.explain(X2[:5]),
        "explain_perm": detector.explain(X2[:3], method="permutation", random_state=0),
        "most_blamed": most_blamed(detector.explain(X2[:5]), ["a", "b"], top=2),
        "params": {k: repr(v) for k, v in detector.get_params().items()},
    }
    bad = {
        "detector contamination 0.6": lambda: OutlierDetector(contamination=0.6).fit(X),
        "detector contamination 0": lambda: OutlierDetector(contamination=0.0).fit(X),
        "make_detector unknown": lambda: make_detector("nope"),
        "make_detector 0.5 mom_kde": lambda: make_detector("mom_kde", contamination=0.5),
        "build unknown": lambda: build_estimator("nope", contamination=0.1),
        "build 0.5": lambda: build_estimator("mom_kde", contamination=0.5),
        "MoMKDE contamination 0.7": lambda: MoMKDE(contamination=0.7).fit(X),
        "MoMKDE kernel": lambda: MoMKDE(kernel="nope").fit(X),
        "KDE bandwidth": lambda: KDE(bandwidth="nope").fit(X),
        "SPKDE contamination 1": lambda: SPKDE(contamination=1.0).fit(X),
        "ScreenedKDE contamination 0.5": lambda: ScreenedKDE(contamination=0.5).fit(X),
        "explain method": lambda: detector.explain(X2[:2], method="nope"),
        "RKDE kernel": lambda: RKDE(kernel="nope").fit(X),
    }
    out["messages"] = {name: _message(fn) for name, fn in bad.items()}
    return out


def _command() -> dict:
    """``momkde score`` on a small CSV: its output file and what it prints."""
    from momkde_core.cli import main

    rng = np.random.RandomState(0)
    rows = np.vstack([rng.normal(size=(60, 2)), rng.uniform(-6, 6, size=(6, 2))])
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.csv"
        path.write_text("a,b\n" + "\n".join(f"{x:.6f},{y:.6f}" for x, y in rows) + "\n")
        for method in ("mom_kde_21", "mom_kde", "kde"):
            target = Path(tmp) / f"scored_{method}.csv"
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                code = main(["score", str(path), "--method", method, "--out", str(target)])
            out[method] = {
                "code": code,
                "printed": re.sub(
                    r"[\d.,]+ (s|rows/s)\b", "TIME", printed.getvalue().replace(tmp, "TMP")
                ),
                "file": target.read_text() if target.exists() else None,
            }
    return out


def _element(node) -> dict | None:
    """One AppTest element as what a reader sees: type, label, value or text."""
    kind = type(node).__name__
    record: dict = {"type": kind}
    for attr in ("label", "value", "options", "body", "help"):
        try:
            value = getattr(node, attr)
        except Exception:  # noqa: BLE001 - an element without this attribute
            continue
        if value is None or callable(value):
            continue
        if hasattr(value, "to_dict"):
            value = value.astype(str).to_dict(orient="split")
        record[attr] = _plain(value) if not isinstance(value, str) else value
    if kind == "UnknownElement" and getattr(node, "type", "") == "plotly_chart":
        record["spec"] = json.loads(node.proto.spec)
    return record


def _walk(node, out: list) -> None:
    """Every element under ``node``, in page order."""
    children = getattr(node, "children", None)
    if children is not None:
        for child in children.values():
            _walk(child, out)
        return
    element = _element(node)
    if element is not None:
        out.append(element)


def _app() -> dict:
    """Each page of the app at its URLs: its element tree (main and sidebar)."""
    from streamlit.testing.v1 import AppTest

    out = {}
    for page, urls in PAGES.items():
        for params in urls:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
            for key, value in {"fig": "plotly", **params}.items():
                at.query_params[key] = value
            at.run()
            at.switch_page(page).run()
            elements: list = []
            _walk(at._tree, elements)
            out[f"{page}?{json.dumps(params, sort_keys=True)}"] = elements
    return out


def record(path: Path, app: bool) -> None:
    """Run the probe and write its results to ``path``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = {"library": _library(), "command": _command()}
        if app:
            results["app"] = _app()
    path.write_text(json.dumps(_plain(results), indent=1, sort_keys=True))


def _differences(a, b, where: str, found: list[str]) -> None:
    """Append to ``found`` where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                found.append(f"{where}/{key}: only in {'after' if key in b else 'before'}")
            else:
                _differences(a[key], b[key], f"{where}/{key}", found)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            found.append(f"{where}: length {len(a)} -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _differences(x, y, f"{where}[{i}]", found)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL):
            found.append(f"{where}: {a!r} -> {b!r}")
    elif a != b:
        found.append(f"{where}: {a!r} -> {b!r}")


def compare(before: Path, after: Path) -> list[str]:
    """What differs between two probe files."""
    found: list[str] = []
    _differences(json.loads(before.read_text()), json.loads(after.read_text()), "", found)
    return found


def main(argv: list[str] | None = None) -> int:
    """The command line: ``record`` or ``compare``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the probe and write its results")
    rec.add_argument("output", type=Path)
    rec.add_argument("--app", action="store_true", help="also render the app's pages")
    cmp = sub.add_parser("compare", help="list what differs between two probe files")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.output, args.app)
        return 0
    found = compare(args.before, args.after)
    print("\n".join(found) if found else "no difference")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
