"""The design study behind :class:`momkde_core.ScreenedKDE`'s defaults, on the dev settings only.

Run: ``python benchmarks/studies/screen_design_study.py [--out screen_design.csv] [--jobs 2]``.

For every dev setting (benchmarks/robust_density_settings.py: ``DEV_SETTINGS`` and
``DEV_CLEAN``), ratio, size and dev seed, and every stated share (true, halved, doubled; clean:
``CLEAN_STATED``), the screens' ingredients are computed once (MoM-KDE's normalised log density
at the rows, for the stated share and for twice it; the CV KDE's log density at the rows, with
and without each row's own kernel) and each candidate rule below sets rows aside; the final
estimate is the CV KDE of the rows kept (weighted for the soft rules). JS to the true inlier
density on the setting's box, against the CV KDE of every row. Writes one row per (cell, rule).

Rules (``RULES``):

- ``share``: the stated share of lowest MoM-KDE scores (the naive screen);
- ``ratio``: rows where the CV KDE exceeds MoM-KDE ten-fold (log f_KDE - log f_MoM > log 10);
- ``ratio_loo``: the same with the KDE's leave-one-out value (a row's own kernel left out);
- ``ratio_2eps``: ``ratio`` with the screen's S sized for twice the stated share (< 0.45);
- ``ratio_iter``: ``ratio``, then the KDE refitted on the kept rows (its CV h) and compared
  with MoM-KDE again at every row, until no row changes side (at most 5 rounds);
- ``soft``: weights min(1, f_MoM / f_KDE-loo) on every row (no cut);
- ``soft_2eps``: the same with the 2x screen;
- ``ratio100``, ``ratio1000``, ``ratio_2eps100``, ``ratio_2eps1000``: the ratio cuts at 100 and
  1000 instead of 10.

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
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the settings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from robust_density_settings import (
    CLEAN_STATED,
    DEV_CLEAN,
    DEV_SEEDS,
    DEV_SETTINGS,  # noqa: E402
    RATIOS,
    SIZES,
    STATED,
)

from momkde_core import KDE, MoMKDE, metrics  # noqa: E402
from momkde_core._engine._grid import Grid  # noqa: E402

RULES = (
    "share",
    "ratio",
    "ratio_loo",
    "ratio_2eps",
    "ratio_iter",
    "soft",
    "soft_2eps",
    "ratio100",
    "ratio1000",
    "ratio_2eps100",
    "ratio_2eps1000",
)
LOG_TEN = np.log(10.0)
GRID = {1: 2048, 2: 160}


def grid_of(setting) -> Grid:
    return Grid(tuple(np.linspace(lo, hi, GRID[setting.dim]) for lo, hi in setting.box))


def js_of(est, setting, grid, truth) -> float:
    values = est.pdf_grid(*grid.axes)
    return metrics.js_divergence(values, truth, grid.cell)


def loo_scores(kde: KDE, X: np.ndarray) -> np.ndarray:
    """log of the KDE at each training row without the row's own kernel."""
    n, d = X.shape
    h = np.broadcast_to(kde.bandwidth_, (d,))
    peak = kde._kernel.log_kernel_sq(np.zeros(1), 1.0, d)[0] - np.log(h).sum()
    s = kde.score_samples(X)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.maximum(np.exp(s) * n - np.exp(peak), 0.0) / (n - 1))


def run_cell(setting, ratio, n, seed, rules=RULES):
    rng = np.random.default_rng([seed, int(ratio * 1000), n, len(setting.name)])
    X, is_out = setting.sample(n, ratio, rng)
    grid = grid_of(setting)
    truth = setting.pdf(grid.points).reshape(grid.shape)
    kde = KDE("cv", random_state=seed).fit(X)
    s_kde, s_loo = kde.score_samples(X), loo_scores(kde, X)
    base = {"setting": setting.name, "ratio": ratio, "n": n, "seed": seed}
    rows = [
        dict(
            base,
            stated=None,
            eps=None,
            rule="kde_cv",
            js=js_of(kde, setting, grid, truth),
            flagged=0.0,
            recall=np.nan,
        )
    ]
    cases = (
        [(k, ratio * f) for k, f in STATED.items()]
        if ratio > 0
        else [(f"clean_{e}", e) for e in CLEAN_STATED]
    )
    for label, eps in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mom = MoMKDE(contamination=eps, random_state=seed).fit(X)
            mom2 = MoMKDE(contamination=min(2 * eps, 0.45), random_state=seed).fit(X)
        s_mom, s_mom2 = mom.score_samples(X), mom2.score_samples(X)
        rows.append(
            dict(
                base,
                stated=label,
                eps=eps,
                rule="mom_kde",
                js=js_of(mom, setting, grid, truth),
                flagged=np.nan,
                recall=np.nan,
            )
        )
        for rule in rules:
            weight = None
            if rule == "share":
                flag = s_mom <= np.quantile(s_mom, eps)
            elif rule == "ratio":
                flag = s_kde - s_mom > LOG_TEN
            elif rule == "ratio_loo":
                flag = s_loo - s_mom > LOG_TEN
            elif rule.startswith("ratio_2eps"):
                flag = s_kde - s_mom2 > np.log(float(rule[10:] or 10))
            elif rule in ("ratio100", "ratio1000"):
                flag = s_kde - s_mom > np.log(float(rule[5:]))
            elif rule == "ratio_iter":
                flag = s_kde - s_mom > LOG_TEN
                for _ in range(5):
                    refit = KDE("cv", random_state=seed).fit(X[~flag])
                    new = refit.score_samples(X) - s_mom > LOG_TEN
                    if np.array_equal(new, flag):
                        break
                    flag = new
            else:
                ref = s_mom if rule == "soft" else s_mom2
                weight = np.minimum(1.0, np.exp(np.minimum(ref - s_loo, 0.0)))
                flag = weight < 0.5
            if weight is None:
                fit = KDE("cv", random_state=seed).fit(X[~flag])
            else:
                fit = KDE("cv", random_state=seed).fit(X, sample_weight=weight)
            recall = flag[is_out].mean() if is_out.any() else np.nan
            rows.append(
                dict(
                    base,
                    stated=label,
                    eps=eps,
                    rule=rule,
                    js=js_of(fit, setting, grid, truth),
                    flagged=flag.mean(),
                    recall=recall,
                )
            )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screen_design.csv")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ratios", type=float, nargs="+", default=list(RATIOS))
    parser.add_argument("--rules", nargs="+", choices=RULES, default=list(RULES))
    parser.add_argument(
        "--seeds", type=int, default=len(DEV_SEEDS), help="the first this many dev seeds"
    )
    args = parser.parse_args(argv)
    seeds = DEV_SEEDS[: args.seeds]
    cells = [
        (s, r, n, seed) for s in DEV_SETTINGS for r in args.ratios for n in SIZES for seed in seeds
    ]
    cells += [(s, 0.0, n, seed) for s in DEV_CLEAN for n in SIZES for seed in seeds]
    out = Parallel(n_jobs=args.jobs, verbose=5)(
        delayed(run_cell)(s, r, n, seed, args.rules) for s, r, n, seed in cells
    )
    df = pd.DataFrame([row for rows in out for row in rows])
    df.to_csv(args.out, index=False)
    print(f"{len(df)} rows -> {args.out}")


if __name__ == "__main__":
    main()
