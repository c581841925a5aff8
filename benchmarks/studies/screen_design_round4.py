"""Design round 4 of ScreenedKDE (issue #37): the rows below the null's range, and the final h.

Run: ``python benchmarks/studies/screen_design_round4.py --out round4.csv [--jobs 2]``.
Development data only: every family before the fourth (benchmarks/robust_density_settings.py:
``DEV_SETTINGS``, ``FRESH_SETTINGS`` and their clean densities; benchmarks/robust_density_third.py),
n = 500 and 2000, two seeds, the share stated halved, true, doubled and 0.2 (clean: 0.02, 0.1,
0.2), contaminated cells at ratios 0.03 and 0.12. Per cell, the JS (base 2) to the true inlier
density over KDE-cv's (``rel``) of variants of the default (round 3's rule, ``guard="none"``,
``final="kept"``), all computed from one fit:

- ``guard``: in the calibrated cut's second pass, a row whose screen level is below every
  null row's is compared with the null's lowest levels; ``"none"`` sets it aside when its
  excess beats theirs (round 3), ``"x10"``, ``"x100"``, ``"x1e4"``, ``"x1e8"`` only when it
  beats theirs 10, 100, 10^4, 10^8 times, ``"never"`` not at all (a row beyond the null's
  range is an extrapolation: clean data's most extreme rows lie there too);
- ``final``: the final KDE's h: ``"kept"``, the rule ("cv") on the rows kept (round 3);
  ``"pilot"``, the pilot's h (the CV KDE's, of all rows); ``"geometric"``, their geometric
  mean.

The fourth family (benchmarks/robust_density_fourth.py) is not used here.

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

from bench_robust_density import cell_sample  # noqa: E402
from robust_density_settings import DEV_CLEAN, DEV_SETTINGS, FRESH_CLEAN, FRESH_SETTINGS  # noqa: E402
from robust_density_third import THIRD_CLEAN, THIRD_SETTINGS  # noqa: E402

from momkde_core import KDE, ScreenedKDE, metrics  # noqa: E402
from momkde_core.estimators import _screened  # noqa: E402

SEEDS = (61, 67)
SIZES = (500, 2000)
RATIOS = (0.03, 0.12)
GUARDS = {
    "none": 0.0,
    "x10": np.log(10.0),
    "x100": np.log(100.0),
    "x1e4": np.log(1e4),
    "x1e8": np.log(1e8),
    "never": np.inf,
}
FINALS = ("kept", "pilot", "geometric")


def _recorded_fit(X, eps: float, seed: int):
    """The fit of round 3's rule (``BEYOND_RANGE_EXCESS`` 0), with the second pass of its
    first calibrated cut and its second screen's rows recorded."""
    record: dict = {}
    beyond, calibrated, wide = (
        _screened._beyond_null,
        ScreenedKDE._calibrated_cut,
        ScreenedKDE._wide_cut,
    )

    def beyond_null(*args):
        if "main" not in record:
            record["last"] = args
        return beyond(*args)

    def calibrated_cut(self, *args):
        out = calibrated(self, *args)
        record.setdefault("main", record.get("last"))
        return out

    def wide_cut(self, *args):
        out = wide(self, *args)
        record["wide"] = out
        return out

    _screened._beyond_null = beyond_null
    ScreenedKDE._calibrated_cut, ScreenedKDE._wide_cut = calibrated_cut, wide_cut
    margin, _screened.BEYOND_RANGE_EXCESS = _screened.BEYOND_RANGE_EXCESS, 0.0  # round 3's
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = ScreenedKDE(contamination=eps, random_state=seed).fit(X)
    finally:
        _screened._beyond_null = beyond
        ScreenedKDE._calibrated_cut, ScreenedKDE._wide_cut = calibrated, wide
        _screened.BEYOND_RANGE_EXCESS = margin
    return est, record


def run_cell(setting, ratio: float, n: int, seed: int) -> list[dict]:
    X, is_out, grid, truth = cell_sample(setting, ratio, n, seed)

    def js(est) -> float:
        return metrics.js_divergence(est.pdf_grid(*grid.axes), truth, grid.cell)

    cv = KDE("cv").fit(X)
    base = js(cv)
    h_pilot = np.asarray(cv.bandwidth_, float)
    stated = (
        [("halved", ratio / 2), ("true", ratio), ("doubled", 2 * ratio), ("0.2", 0.2)]
        if ratio
        else [("0.02", 0.02), ("0.1", 0.1), ("0.2", 0.2)]
    )
    rows = []
    for label, eps in stated:
        est, record = _recorded_fit(X, eps, seed)
        for guard, margin in GUARDS.items():
            if record.get("main") is None:  # nothing screened by the calibrated cut
                kept = est.inlier_mask_
            else:
                # the second pass again, with this margin beyond the null's range
                guarded = _screened._beyond_null(*record["main"][:4], margin)
                candidates = guarded | record.get("wide", False)
                excess = record["main"][1]
                kept = ~_screened._largest(candidates, excess, (n - 1) // 2)
            if guard == "none" and not np.array_equal(kept, est.inlier_mask_):
                raise AssertionError("the recorded cut differs from the fit's")
            own = est if guard == "none" else KDE("cv").fit(X[kept])
            h_kept = np.asarray(own.bandwidth_, float)
            widths = {"kept": h_kept, "pilot": h_pilot, "geometric": np.sqrt(h_kept * h_pilot)}
            for final, h in widths.items():
                fit = own if final == "kept" else KDE(h if h.size > 1 else float(h)).fit(X[kept])
                rows.append(
                    dict(
                        setting=setting.name,
                        ratio=ratio,
                        n=n,
                        seed=seed,
                        stated=label,
                        guard=guard,
                        final=final,
                        rel=js(fit) / base,
                        h_ratio=float(np.mean(h / h_pilot)),
                        aside=float(1 - kept.mean()),
                        recall=float((~kept)[is_out].mean()) if is_out.any() else np.nan,
                    )
                )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screen_design_round4.csv")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    contaminated = DEV_SETTINGS + FRESH_SETTINGS + THIRD_SETTINGS
    clean = DEV_CLEAN + FRESH_CLEAN + THIRD_CLEAN
    cells = [(s, 0.0, n, seed) for s in clean for n in SIZES for seed in SEEDS]
    cells += [
        (s, r, n, seed) for s in contaminated for r in RATIOS for n in SIZES for seed in SEEDS
    ]
    results = Parallel(n_jobs=args.jobs, return_as="generator_unordered", verbose=5)(
        delayed(run_cell)(*cell) for cell in cells
    )
    rows = []
    for cell_rows in results:
        rows += cell_rows
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
