"""What the null sample's size cap changes (issue #37): ScreenedKDE with ``NULL_ROWS`` 2,000
against null samples of n rows, on development data at n = 5,000.

Run: ``python benchmarks/studies/screen_null_cap.py --out null_cap.csv [--jobs 2]``. Every setting
of the earlier families (not the fourth), seed 61: the contaminated ones at ratio 0.12 with
the share stated true, the clean ones stated 0.1. Per cell, each fit's JS (base 2) to the
true inlier density over KDE-cv's (``rel``), the share set aside and the fit's wall clock.

A finished design study: benchmarks/README.md names the commit whose code it measured and
how to rerun it there (run on today's code, it measures today's rule, not the stored one).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the settings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench_robust_density import cell_sample  # noqa: E402
from robust_density_settings import DEV_CLEAN, DEV_SETTINGS, FRESH_CLEAN, FRESH_SETTINGS  # noqa: E402
from robust_density_third import THIRD_CLEAN, THIRD_SETTINGS  # noqa: E402

from momkde_core import KDE, ScreenedKDE, metrics  # noqa: E402
from momkde_core.estimators import _screened  # noqa: E402

N, SEED, RATIO, CLEAN_STATED = 5000, 61, 0.12, 0.1
CAPS = {"2000 rows": _screened.NULL_ROWS, "n rows": None}


def run_cell(setting, ratio: float) -> list[dict]:
    X, _, grid, truth = cell_sample(setting, ratio, N, SEED)

    def js(est) -> float:
        return metrics.js_divergence(est.pdf_grid(*grid.axes), truth, grid.cell)

    base = js(KDE("cv").fit(X))
    rows = []
    for label, cap in CAPS.items():
        _screened.NULL_ROWS = N if cap is None else cap
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = ScreenedKDE(contamination=ratio or CLEAN_STATED, random_state=SEED).fit(X)
        seconds = time.perf_counter() - start
        rows.append(
            dict(
                setting=setting.name,
                ratio=ratio,
                null=label,
                rel=js(est) / base,
                aside=float(1 - est.inlier_mask_.mean()),
                seconds=seconds,
            )
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screen_null_cap.csv")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    cells = [(s, RATIO) for s in DEV_SETTINGS + FRESH_SETTINGS + THIRD_SETTINGS]
    cells += [(s, 0.0) for s in DEV_CLEAN + FRESH_CLEAN + THIRD_CLEAN]
    results = Parallel(n_jobs=args.jobs, verbose=5)(delayed(run_cell)(*cell) for cell in cells)
    pd.DataFrame([row for rows in results for row in rows]).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
