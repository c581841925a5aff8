"""The second design study of :class:`momkde_core.ScreenedKDE`: cuts calibrated by a null sample.

Run: ``python benchmarks/studies/screen_design_round2.py [--out screen_design_round2.csv] [--jobs 2]``.

The first study (benchmarks/studies/screen_design_study.py) chose a fixed ratio cut
(log f_pilot - log f_MoM > log 10); the first held-out run showed it misses clusters inside or
beside the inliers' mass (their excess is a few-fold, not ten-fold) and takes the rows of sparse
inlier regions. Here the threshold is the excess the screen's own blocks give where there are no
outliers: n rows are drawn from a null density, the screen (its fitted S and h) and the pilot
(its fitted h) are refitted on them, and a row is set aside when its excess beats the largest
null excess among the 50 null rows of nearest level, and log 2 (``_beyond_null`` of
momkde_core/estimators/_screened.py). Two null draws of n rows per pass.

Design set: the dev settings and the first held-out settings (``DEV_SETTINGS``,
``EVAL_SETTINGS``, ``DEV_CLEAN``, ``CLEAN_SETTINGS``; seen, so no longer held out), ratios
0.05 and 0.2, n = 500 and 2000, seeds 11 and 23; the share stated true, halved and doubled
(clean: 0.02 and 0.1). The fresh family of benchmarks/robust_density_settings.py is not used.

Rules (each followed by the CV KDE of the rows kept; at most (n - 1) // 2 set aside):

- ``mom_kde``: MoM-KDE at the stated share itself (no refit);
- ``ratio``: the first default (excess > log 10);
- ``calp``, ``cals``: one pass, the null drawn from the screen (MoM-KDE samples exactly),
  levels matched by the pilot's log density (``p``) or the screen's (``s``);
- ``calp2``, ``cals2``: two passes, the second null drawn from the KDE (pilot h) of the rows
  the first pass kept (**cals2 is the chosen default**, ``cut="calibrated"``);
- ``calp2u``, ``cals2u``: the second pass, plus the first pass's rows with excess > log 10;
- the suffix ``_2eps``: the screen's S (and robust h) for twice the stated share (<= 0.45).

A finished design study: benchmarks/README.md names the commit whose code it measured and
how to rerun it there (run on today's code, it measures today's rule, not the stored one).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the settings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from robust_density_settings import (
    CLEAN_SETTINGS,
    CLEAN_STATED,
    DEV_CLEAN,  # noqa: E402
    DEV_SETTINGS,
    EVAL_SETTINGS,
    STATED,
)
from screen_design_study import grid_of, js_of  # noqa: E402

from momkde_core import KDE, MoMKDE  # noqa: E402
from momkde_core.estimators._screened import _beyond_null  # noqa: E402

NULL_DRAWS = 2
LOG_TEN = np.log(10.0)


def null_excess(source, screen: MoMKDE, h_pilot, n: int, seed: int) -> np.ndarray:
    """Columns (excess, pilot level, screen level) at NULL_DRAWS samples of n rows."""
    out = []
    for b in range(NULL_DRAWS):
        draws = source.sample(n, random_state=np.random.default_rng([seed, b, 7]))
        twin = MoMKDE(
            n_blocks=screen.n_blocks_,
            bandwidth=screen.bandwidth_,
            contamination=screen.contamination_,
            random_state=seed + b + 1,
        ).fit(draws)
        pilot, level = KDE(h_pilot).fit(draws).score_samples(draws), twin.score_samples(draws)
        out.append(np.c_[pilot - level, pilot, level])
    return np.concatenate(out)


def calibrated(excess, pilot, level, null, match: str) -> np.ndarray:
    ours, theirs = (pilot, null[:, 1]) if match == "p" else (level, null[:, 2])
    return _beyond_null(ours, excess, theirs, null[:, 0])


def run_cell(setting, ratio: float, n: int, seed: int) -> list[dict]:
    warnings.simplefilter("ignore")
    key = [seed, int(round(ratio * 1000)), n, zlib.crc32(setting.name.encode())]
    X, is_out = setting.sample(n, ratio, np.random.default_rng(key))
    grid = grid_of(setting)
    truth = setting.pdf(grid.points).reshape(grid.shape)
    cv = KDE("cv", random_state=seed).fit(X)
    pilot = cv.score_samples(X)
    base = dict(setting=setting.name, dim=setting.dim, ratio=ratio, n=n, seed=seed)
    rows = [dict(base, rule="kde_cv", stated="-", js=js_of(cv, setting, grid, truth))]
    screens = {}

    def screen_of(share: float):
        if share not in screens:
            screen = MoMKDE(contamination=share, random_state=seed).fit(X)
            screens[share] = (
                screen,
                screen.score_samples(X),
                null_excess(screen, screen, cv.bandwidth_, n, seed),
            )
        return screens[share]

    cases = (
        [(k, ratio * f) for k, f in STATED.items()]
        if ratio > 0
        else [(f"clean_{e}", e) for e in CLEAN_STATED]
    )
    for label, eps in cases:
        flags = {}
        for tag, share in (("", eps), ("_2eps", min(2 * eps, 0.45))):
            screen, level, null = screen_of(round(share, 6))
            excess = pilot - level
            if not tag:
                rows.append(
                    dict(base, rule="mom_kde", stated=label, js=js_of(screen, setting, grid, truth))
                )
            flags["ratio" + tag] = excess > LOG_TEN
            for match in "ps":
                first = calibrated(excess, pilot, level, null, match)
                kept = KDE(cv.bandwidth_).fit(X[~first])
                second = calibrated(
                    excess,
                    pilot,
                    level,
                    null_excess(kept, screen, cv.bandwidth_, n, seed + 100),
                    match,
                )
                flags[f"cal{match}{tag}"] = first
                flags[f"cal{match}2{tag}"] = second
                flags[f"cal{match}2u{tag}"] = second | (first & (excess > LOG_TEN))
        order = np.argsort(-(pilot - screen_of(round(eps, 6))[1]))
        for rule, flag in flags.items():
            cap = (n - 1) // 2
            if flag.sum() > cap:  # the largest excess at the stated share first
                flag = np.zeros(n, bool)
                flag[order[:cap]] = True
            fit = KDE("cv", random_state=seed).fit(X[~flag])
            rows.append(
                dict(
                    base,
                    rule=rule,
                    stated=label,
                    js=js_of(fit, setting, grid, truth),
                    set_aside=flag.mean(),
                    recall=flag[is_out].mean() if is_out.any() else np.nan,
                    false=flag[~is_out].mean(),
                )
            )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screen_design_round2.csv")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    seeds, sizes = (11, 23), (500, 2000)
    cells = [(s, 0.0, n, seed) for s in DEV_CLEAN + CLEAN_SETTINGS for n in sizes for seed in seeds]
    cells += [
        (s, r, n, seed)
        for s in DEV_SETTINGS + EVAL_SETTINGS
        for r in (0.05, 0.2)
        for n in sizes
        for seed in seeds
    ]
    out = Parallel(n_jobs=args.jobs, verbose=5)(delayed(run_cell)(*cell) for cell in cells)
    frame = pd.DataFrame([row for rows in out for row in rows])
    frame.to_csv(args.out, index=False)
    print(f"{len(frame)} rows -> {args.out}")


if __name__ == "__main__":
    main()
