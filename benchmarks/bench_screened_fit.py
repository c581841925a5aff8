"""ScreenedKDE's fit time against the CV KDE's on the same rows, with the cost of each pass.

Run: ``python benchmarks/bench_screened_fit.py [--sizes 2000 5000 20000] [--dims 1 2 20 40]
[--write-docs]`` (``--write-docs``: the table replaces the section ``screened-fit`` of
docs/benchmarks.md).
Data: standard normal rows with 5 % of them in a cluster at 3 in every feature (seed 0);
``ScreenedKDE(contamination=0.05, random_state=0)`` against ``KDE("cv")`` (the estimator a
user would pick instead) and scikit-learn's ``IsolationForest(random_state=0)``, fitted in
turns in the same run, the best of ``--repeats`` fits each. The passes are timed alone on the
same rows: the screen (``MoMKDE(contamination=0.05)``), the pilot (``KDE("cv")`` of all rows),
the calibrated cut (the rest of the screening: two null passes) and the final KDE (``"cv"`` on
the rows kept); "null passes" is the rest of the fit's time. Prints a markdown table, with the
machine and its load.
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
        "| n | d | KDE-cv (s) | ScreenedKDE (s) | ratio | screen | pilot | null passes "
        "| final KDE | IsolationForest (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for n in args.sizes:
        for d in args.dims:
            X = _data(n, d)
            t_cv, _ = _best(lambda: KDE("cv").fit(X), args.repeats)
            t_sk, est = _best(
                lambda: ScreenedKDE(contamination=0.05, random_state=0).fit(X), args.repeats
            )
            t_if, _ = _best(lambda: IsolationForest(random_state=0).fit(X), args.repeats)
            t_screen, _ = _best(
                lambda: MoMKDE(contamination=0.05, random_state=0).fit(X), args.repeats
            )
            kept = X[est.inlier_mask_]
            t_final, _ = _best(lambda: KDE("cv").fit(kept), args.repeats)
            t_null = max(t_sk - t_screen - t_cv - t_final, 0.0)
            lines.append(
                f"| {n:,} | {d} | {t_cv:.2f} | {t_sk:.2f} | {t_sk / t_cv:.1f}x | {t_screen:.2f} "
                f"| {t_cv:.2f} | {t_null:.2f} | {t_final:.2f} | {t_if:.2f} |"
            )
            print(lines[-1], flush=True)
    lines += ["", machine_line()]
    print(lines[-1])
    if args.write_docs:
        write_section("screened-fit", "\n".join(lines))


if __name__ == "__main__":
    main()
