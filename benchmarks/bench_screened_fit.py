"""ScreenedKDE's fit time against the CV KDE's on the same rows, with the cost of each pass.

Run: ``python benchmarks/bench_screened_fit.py [--sizes 2000 5000 20000] [--dims 1 2 20 40]
[--write-docs]`` (``--write-docs``: the table replaces the section ``screened-fit`` of
docs/benchmarks.md).
Data: standard normal rows with 5 % of them in a cluster at 3 in every feature (seed 0);
``ScreenedKDE(contamination=0.05, random_state=0)`` against ``KDE("cv")`` (the estimator a
user would pick instead) and scikit-learn's ``IsolationForest(random_state=0)``, fitted in
turns in the same run, the best of ``--repeats`` fits each. The passes: the screen
(``MoMKDE(contamination=0.05)`` fitted and scored at every row) and the pilot (``KDE("cv")``
of all rows, fitted and scored) timed alone on the same rows; the first screen's calibrated
cut (its null samples) and the second screen (fitted, scored and, where it finds a bump, its
own calibrated cut) timed inside the fastest fit; the final KDE (its rule, "cv") timed
alone on the rows kept; "other" is the rest of the fit. Prints a markdown table,
with the machine and its load.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import IsolationForest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _docs_tables import machine_line, write_section  # noqa: E402

from momkde_core import KDE, MoMKDE, ScreenedKDE  # noqa: E402


def _timed_fit(X: np.ndarray) -> tuple[float, object, dict[str, float]]:
    """One ``ScreenedKDE(contamination=0.05)`` fit: its wall clock, the estimator and the time
    spent in its first calibrated cut and its second screen (the two private passes wrapped
    with timers for the duration of the fit; a cut called by the second screen counts there)."""
    spent = {"_calibrated_cut": 0.0, "_wide_cut": 0.0}
    originals = {name: getattr(ScreenedKDE, name) for name in spent}
    inside = []

    def timed(name):
        def wrapper(*args, **kwargs):
            if inside:  # a cut inside the second screen: counted there
                return originals[name](*args, **kwargs)
            inside.append(name)
            start = time.perf_counter()
            try:
                return originals[name](*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
                inside.pop()

        return wrapper

    try:
        for name in spent:
            setattr(ScreenedKDE, name, timed(name))
        start = time.perf_counter()
        est = ScreenedKDE(contamination=0.05, random_state=0).fit(X)
        total = time.perf_counter() - start
    finally:
        for name, method in originals.items():
            setattr(ScreenedKDE, name, method)
    return total, est, spent


def _best(fit, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - start)
    return min(times), out


def _data(n: int, d: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    m = n // 20
    return np.r_[rng.standard_normal((n - m, d)), rng.normal(3.0, 0.1, (m, d))]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 20000])
    parser.add_argument("--dims", type=int, nargs="+", default=[1, 2, 20, 40])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    lines = [
        "| n | d | KDE-cv (s) | ScreenedKDE (s) | ratio | screen | pilot | first cut "
        "| second screen | final KDE | other | IsolationForest (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for n in args.sizes:
        for d in args.dims:
            X = _data(n, d)
            t_cv, _ = _best(lambda: KDE("cv").fit(X), args.repeats)
            fits = [_timed_fit(X) for _ in range(args.repeats)]
            t_sk, est, spent = min(fits, key=lambda fit: fit[0])
            t_if, _ = _best(lambda: IsolationForest(random_state=0).fit(X), args.repeats)
            t_screen, _ = _best(
                lambda: MoMKDE(contamination=0.05, random_state=0).fit(X).score_samples(X),
                args.repeats,
            )
            t_pilot, _ = _best(lambda: KDE("cv").fit(X).score_samples(X), args.repeats)
            kept = X[est.inlier_mask_]
            t_final, _ = _best(lambda: KDE(est.bandwidth).fit(kept), args.repeats)
            t_first, t_wide = spent["_calibrated_cut"], spent["_wide_cut"]
            t_other = max(t_sk - t_screen - t_pilot - t_first - t_wide - t_final, 0.0)
            lines.append(
                f"| {n:,} | {d} | {t_cv:.2f} | {t_sk:.2f} | {t_sk / t_cv:.1f}x | {t_screen:.2f} "
                f"| {t_pilot:.2f} | {t_first:.2f} | {t_wide:.2f} | {t_final:.2f} "
                f"| {t_other:.2f} | {t_if:.2f} |"
            )
            print(lines[-1], flush=True)
    lines += ["", machine_line()]
    print(lines[-1])
    if args.write_docs:
        write_section("screened-fit", "\n".join(lines))


if __name__ == "__main__":
    main()
