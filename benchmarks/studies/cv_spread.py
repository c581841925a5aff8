"""How much the "cv" bandwidth moves: over the folds' seed on the same rows, and over samples.

Run: ``python benchmarks/studies/cv_spread.py``. For each density (Gamma(3) and the claw in
1-D, n = 1,000; two tilted Gaussians in 2-D, n = 1,000) it prints, for the k-fold search "cv"
made before issue #37 (``kfold_cv_bandwidth``, 5 shuffled folds, a grid of 25), the range of h
over 8 fold seeds on one sample (seed 0), and for both searches the spread of h over 10
independent samples (seeds 1-10): the max / min ratio and the standard deviation of log h.
The leave-one-out search ("cv" now) draws nothing, so it has one h per sample.

A finished design study: benchmarks/README.md names the commit whose code it measured and
how to rerun it there (run on today's code, it measures today's rule, not the stored one).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from momkde_core import get_kernel  # noqa: E402
from momkde_core.bandwidth import cv_bandwidth, kfold_cv_bandwidth, scott  # noqa: E402

GAUSS = get_kernel("gaussian")
N = 1000


def _claw(rng, n):
    comp = rng.choice(6, size=n, p=[0.5] + [0.1] * 5)
    means = np.array([0.0, -1.0, -0.5, 0.0, 0.5, 1.0])
    return rng.normal(means[comp], np.r_[1.0, [0.1] * 5][comp])[:, None]


def _two_blobs(rng, n):
    a = rng.multivariate_normal([-1.5, 0], [[1, 0.6], [0.6, 1]], n // 2)
    return np.r_[a, rng.multivariate_normal([1.5, 0.5], [[1, -0.5], [-0.5, 0.7]], n - n // 2)]


DENSITIES = {
    "gamma(3)": lambda rng, n: stats.gamma(3.0).rvs((n, 1), random_state=rng),
    "claw": _claw,
    "two 2-D blobs": _two_blobs,
}


def _spread(hs) -> str:
    hs = np.asarray(hs)
    return (
        f"{hs.min():.3f}-{hs.max():.3f} ({hs.max() / hs.min():.2f}x, sd log {np.log(hs).std():.3f})"
    )


def main() -> None:
    print(
        "| density | k-fold, 8 fold seeds, one sample | k-fold, 10 samples | LOO (now), 10 samples |"
    )
    print("|---|---|---|---|")
    for name, draw in DENSITIES.items():
        X = draw(np.random.default_rng(0), N)
        seeds = [kfold_cv_bandwidth(X, GAUSS, scott(X), random_state=s) for s in range(8)]
        samples = [draw(np.random.default_rng(s), N) for s in range(1, 11)]
        kfold = [kfold_cv_bandwidth(Y, GAUSS, scott(Y), random_state=0) for Y in samples]
        loo = [cv_bandwidth(Y, GAUSS, scott(Y)) for Y in samples]
        print(f"| {name} | {_spread(seeds)} | {_spread(kfold)} | {_spread(loo)} |")


if __name__ == "__main__":
    main()
