"""Design round 3 of ScreenedKDE (issue #37): a stated share that may be overstated.

Run: ``python benchmarks/studies/screen_design_round3.py --out round3.csv [--variants A bump2]``.
Development data only: the earlier families of benchmarks/robust_density_settings.py
(``FRESH_SETTINGS`` and ``DEV_SETTINGS`` at ratios 0.03 and 0.12; ``FRESH_CLEAN`` and
``DEV_CLEAN``), n = 500, seeds 61 and 67, the share stated halved, true, doubled and 0.2 (clean:
0.02, 0.1, 0.2). Per cell, the JS (base 2) of each variant to the true inlier density over
KDE-cv's (``rel``), the share set aside and the outliers' recall. Variants:

- ``A``: the calibrated cut of round 2 alone (``WIDE_FACTOR = 1``: no second screen);
- ``union2``: the rows ``A`` sets aside at the stated share and at twice it, then KDE-cv;
- ``screen2x``: ``A`` told twice the share;
- ``bump2``, ``bump3``: the default, a second screen at 2 (3) times the share adding the bumps
  it finds (``WIDE_FACTOR``).

The held-out family (benchmarks/robust_density_third.py) is not used here.

A finished design study: benchmarks/README.md names the commit whose code it measured and
how to rerun it there (run on today's code, it measures today's rule, not the stored one).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the settings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench_robust_density import cell_sample  # noqa: E402
from robust_density_settings import DEV_CLEAN, DEV_SETTINGS, FRESH_CLEAN, FRESH_SETTINGS  # noqa: E402

from momkde_core import KDE, ScreenedKDE, metrics  # noqa: E402
from momkde_core.estimators import _screened  # noqa: E402

SEEDS = (61, 67)
RATIOS = (0.03, 0.12)
VARIANTS = ("A", "union2", "screen2x", "bump2", "bump3")
FACTORS = {"A": 1.0, "union2": 1.0, "screen2x": 1.0, "bump2": 2.0, "bump3": 3.0}


def _fit(variant: str, X: np.ndarray, eps: float, seed: int):
    """(estimate, mask of rows kept) of one variant."""
    _screened.WIDE_FACTOR = FACTORS[variant]
    try:
        if variant == "screen2x":
            est = ScreenedKDE(contamination=min(2 * eps, 0.45), random_state=seed).fit(X)
            return est, est.inlier_mask_
        est = ScreenedKDE(contamination=eps, random_state=seed).fit(X)
        if variant != "union2":
            return est, est.inlier_mask_
        wide = ScreenedKDE(contamination=min(2 * eps, 0.45), random_state=seed).fit(X)
        kept = est.inlier_mask_ & wide.inlier_mask_
        return KDE("cv").fit(X[kept]), kept
    finally:
        _screened.WIDE_FACTOR = FACTORS["bump2"]


def run_cell(setting, ratio: float, seed: int, variants) -> list[dict]:
    n = 500
    X, is_out, grid, truth = cell_sample(setting, ratio, n, seed)

    def js(est) -> float:
        return metrics.js_divergence(est.pdf_grid(*grid.axes), truth, grid.cell)

    base = js(KDE("cv").fit(X))
    stated = (
        [("halved", ratio / 2), ("true", ratio), ("doubled", 2 * ratio), ("0.2", 0.2)]
        if ratio
        else [("0.02", 0.02), ("0.1", 0.1), ("0.2", 0.2)]
    )
    rows = []
    for label, eps in stated:
        for variant in variants:
            est, kept = _fit(variant, X, eps, seed)
            rows.append(
                dict(
                    setting=setting.name,
                    ratio=ratio,
                    n=n,
                    seed=seed,
                    stated=label,
                    method=variant,
                    rel=js(est) / base,
                    aside=float(1 - kept.mean()),
                    recall=float((~kept)[is_out].mean()) if is_out.any() else np.nan,
                )
            )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screen_design_round3.csv")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    cells = [(s, r, seed) for s in FRESH_SETTINGS + DEV_SETTINGS for r in RATIOS for seed in SEEDS]
    cells += [(s, 0.0, seed) for s in FRESH_CLEAN + DEV_CLEAN for seed in SEEDS]
    rows = []
    for setting, ratio, seed in cells:
        rows += run_cell(setting, ratio, seed, args.variants)
        pd.DataFrame(rows).to_csv(args.out, index=False)
        print(setting.name, ratio, seed, flush=True)


if __name__ == "__main__":
    main()
