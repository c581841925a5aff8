"""Robust densities against the truth, on settings written before any result was seen.

Run: ``python benchmarks/bench_robust_density.py --out robust_density.csv [--jobs 2]
[--family eval clean] [--seeds 5]``; rows are appended cell by cell, so an interrupted run
keeps what it finished and a rerun skips the cells already in ``--out``.

The settings, ratios, sizes, seeds and stated shares are those of
benchmarks/robust_density_settings.py (families ``eval`` and ``clean``: ``EVAL_SETTINGS``,
``CLEAN_SETTINGS``; ``fresh`` and ``fresh_clean``: ``FRESH_SETTINGS``, ``FRESH_CLEAN`` with
``FRESH_RATIOS`` and ``FRESH_SEEDS``; ``third`` and ``third_clean``, ``fourth`` and
``fourth_clean``: those of benchmarks/robust_density_third.py and robust_density_fourth.py,
whose shares also include a fixed 0.2). Per cell (a
setting, a ratio, a size, a seed), JS divergence (base 2) to the true inlier density on the
setting's box (2048 nodes in 1-D, 160 x 160 in 2-D), of:

- ``kde_cv``: ``KDE(bandwidth="cv")``;
- ``sklearn_kd``: scikit-learn's ``KernelDensity`` with the bandwidth of a 5-fold
  ``GridSearchCV`` over 20 values from 0.05 to 2 times Scott's (what a scikit-learn user does);
- ``kdepy_isj``: KDEpy's ``FFTKDE(bw="ISJ")`` (1-D only: KDEpy's ISJ is 1-D);
- ``rkde`` and ``spkde``: ``RKDE`` and ``SPKDE`` with the CV bandwidth (SPKDE told the share);
- ``mom_kde``: ``MoMKDE(contamination=stated)`` (its S and robust h);
- ``screened_kde``: ``ScreenedKDE(contamination=stated)`` (the library's default, the
  calibrated cut);
- ``screened_ratio``: ``ScreenedKDE(contamination=stated, cut="ratio")`` (the first default).

The share is stated true, halved and doubled (``STATED``; clean densities: ``CLEAN_STATED``);
the methods that do not read it run once, at the true share. ``--light`` runs only
``kde_cv``, ``sklearn_kd``, ``mom_kde`` and ``screened_kde``. Seeds derive from the setting's
name, the ratio, the size and the seed, so each cell is reproducible alone.
"""

from __future__ import annotations

import argparse
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KernelDensity

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robust_density_fourth import (
    FOURTH_CLEAN,
    FOURTH_CLEAN_STATED,
    FOURTH_DEFAULT,
    FOURTH_RATIOS,
    FOURTH_SEEDS,
    FOURTH_SETTINGS,
    FOURTH_STATED,
)
from robust_density_settings import (
    CLEAN_SETTINGS,
    CLEAN_STATED,
    EVAL_SETTINGS,  # noqa: E402
    FRESH_CLEAN,
    FRESH_RATIOS,
    FRESH_SEEDS,
    FRESH_SETTINGS,
    RATIOS,
    SEEDS,
    SIZES,
    STATED,
)
from robust_density_third import (
    THIRD_CLEAN,
    THIRD_CLEAN_STATED,
    THIRD_DEFAULT,
    THIRD_RATIOS,
    THIRD_SEEDS,
    THIRD_SETTINGS,
    THIRD_STATED,
)

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE, metrics  # noqa: E402
from momkde_core._engine import Grid  # noqa: E402

GRID = {1: 2048, 2: 160}
#: the shares stated in a family: (factors of the true share, fixed shares, clean shares)
EARLIER_SHARES = (STATED, (), CLEAN_STATED)
THIRD_SHARES = (THIRD_STATED, (THIRD_DEFAULT,), THIRD_CLEAN_STATED)
FOURTH_SHARES = (FOURTH_STATED, (FOURTH_DEFAULT,), FOURTH_CLEAN_STATED)
#: family -> (settings, ratios, seeds, shares)
FAMILIES = {
    "eval": (EVAL_SETTINGS, RATIOS, SEEDS, EARLIER_SHARES),
    "clean": (CLEAN_SETTINGS, RATIOS, SEEDS, EARLIER_SHARES),
    "fresh": (FRESH_SETTINGS, FRESH_RATIOS, FRESH_SEEDS, EARLIER_SHARES),
    "fresh_clean": (FRESH_CLEAN, FRESH_RATIOS, FRESH_SEEDS, EARLIER_SHARES),
    "third": (THIRD_SETTINGS, THIRD_RATIOS, THIRD_SEEDS, THIRD_SHARES),
    "third_clean": (THIRD_CLEAN, THIRD_RATIOS, THIRD_SEEDS, THIRD_SHARES),
    "fourth": (FOURTH_SETTINGS, FOURTH_RATIOS, FOURTH_SEEDS, FOURTH_SHARES),
    "fourth_clean": (FOURTH_CLEAN, FOURTH_RATIOS, FOURTH_SEEDS, FOURTH_SHARES),
}
COLUMNS = (
    "setting",
    "dim",
    "ratio",
    "n",
    "seed",
    "method",
    "stated",
    "eps",
    "js",
    "set_aside",
    "recall",
    "error",
)


def _grid(setting) -> Grid:
    return Grid(tuple(np.linspace(lo, hi, GRID[setting.dim]) for lo, hi in setting.box))


def cell_sample(setting, ratio: float, n: int, seed: int):
    """A cell's rows and outlier mask (seeded by the setting's name, the ratio, the size and the
    seed, so each cell is reproducible alone), its grid and the true inlier density on it."""
    key = [seed, int(round(ratio * 1000)), n, zlib.crc32(setting.name.encode())]
    X, is_out = setting.sample(n, ratio, np.random.default_rng(key))
    grid = _grid(setting)
    return X, is_out, grid, setting.pdf(grid.points).reshape(grid.shape)


def _sklearn_kd(X: np.ndarray, grid: Grid, seed: int) -> np.ndarray:
    scott = X.std(axis=0, ddof=1).mean() * len(X) ** (-1 / (X.shape[1] + 4))
    search = GridSearchCV(
        KernelDensity(), {"bandwidth": np.geomspace(0.05, 2, 20) * scott}, cv=5
    ).fit(X)
    return np.exp(search.best_estimator_.score_samples(grid.points)).reshape(grid.shape)


def _kdepy_isj(X: np.ndarray, grid: Grid) -> np.ndarray:
    from KDEpy import FFTKDE

    x = X[:, 0]
    est = FFTKDE(bw="ISJ").fit(x)
    lo, hi = min(x.min(), grid.axes[0][0]), max(x.max(), grid.axes[0][-1])
    pad = 6 * est.bw
    xs = np.linspace(lo - pad, hi + pad, 2**14)
    return np.interp(grid.axes[0], xs, est.evaluate(xs), left=0.0, right=0.0)


def run_cell(
    setting, ratio: float, n: int, seed: int, shares=EARLIER_SHARES, light: bool = False
) -> list[dict]:
    X, is_out, grid, truth = cell_sample(setting, ratio, n, seed)
    base = {"setting": setting.name, "dim": setting.dim, "ratio": ratio, "n": n, "seed": seed}
    rows = []

    def add(method, values, stated="true", eps=ratio, **extra):
        rows.append(
            dict(
                base,
                method=method,
                stated=stated,
                eps=eps,
                js=metrics.js_divergence(values, truth, grid.cell),
                **extra,
            )
        )

    cv = KDE("cv", random_state=seed).fit(X)
    add("kde_cv", cv.pdf_grid(*grid.axes))
    add("sklearn_kd", _sklearn_kd(X, grid, seed))
    if setting.dim == 1 and not light:
        add("kdepy_isj", _kdepy_isj(X, grid))
    if not light:
        add("rkde", RKDE(cv.bandwidth_).fit(X).pdf_grid(*grid.axes))
    factors, fixed, clean = shares
    cases = (
        [(k, ratio * f) for k, f in factors.items()] + [(f"{e}", e) for e in fixed]
        if ratio > 0
        else [(f"{e}", e) for e in clean]
    )
    if ratio > 0 and not light:
        add("spkde", SPKDE(cv.bandwidth_, contamination=ratio).fit(X).pdf_grid(*grid.axes))
    for label, eps in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                mom = MoMKDE(contamination=eps, random_state=seed).fit(X)
                add("mom_kde", mom.pdf_grid(*grid.axes), label, eps)
            except ValueError as err:  # a fit that raises is reported, not hidden
                rows.append(
                    dict(
                        base,
                        method="mom_kde",
                        stated=label,
                        eps=eps,
                        js=np.nan,
                        error=str(err)[:120],
                    )
                )
            cuts = (("screened_kde", "calibrated"),) + (
                () if light else (("screened_ratio", "ratio"),)
            )
            fits = {
                name: ScreenedKDE(contamination=eps, cut=cut, random_state=seed).fit(X)
                for name, cut in cuts
            }
        for name, est in fits.items():
            kept = est.inlier_mask_
            add(
                name,
                est.pdf_grid(*grid.axes),
                label,
                eps,
                set_aside=float(1 - kept.mean()),
                recall=float((~kept)[is_out].mean()) if is_out.any() else np.nan,
            )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="robust_density.csv")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--family", nargs="+", choices=sorted(FAMILIES), default=["eval", "clean"])
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="the first this many seeds")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument(
        "--light",
        action="store_true",
        help="only KDE-cv, scikit-learn's CV KernelDensity, MoM-KDE and ScreenedKDE",
    )
    args = parser.parse_args(argv)
    cells = []
    for family in args.family:
        settings, ratios, seeds, shares = FAMILIES[family]
        for setting in settings:
            for ratio in ratios if setting.outliers is not None else (0.0,):
                cells += [
                    (setting, ratio, n, seed, shares)
                    for n in args.sizes
                    for seed in seeds[: args.seeds]
                ]
    out = Path(args.out)
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old.setting, old.ratio, old.n, old.seed))
    todo = [c for c in cells if (c[0].name, c[1], c[2], c[3]) not in done]
    print(f"{len(todo)} of {len(cells)} cells to run", flush=True)
    results = Parallel(n_jobs=args.jobs, return_as="generator_unordered", verbose=5)(
        delayed(run_cell)(*cell, light=args.light) for cell in todo
    )
    for rows in results:
        frame = pd.DataFrame(rows).reindex(columns=COLUMNS)
        frame.to_csv(out, mode="a", header=not out.exists(), index=False)


if __name__ == "__main__":
    main()
