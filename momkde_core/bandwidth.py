"""Bandwidth selection: Scott's and Silverman's rules, and pseudo-likelihood k-fold CV.

The rules use the factors of :class:`scipy.stats.gaussian_kde` (Scott: n^(-1/(d+4));
Silverman: (n (d + 2) / 4)^(-1/(d+4))) times the pooled standard deviation
sqrt(mean of the per-feature variances), so in 1-D they give exactly gaussian_kde's
bandwidth. They target the Gaussian kernel.

"cv" is the paper's choice (Turlach 1993): the bandwidth on a log grid that maximises the
held-out log-likelihood sum_k sum_{j in fold k} log f_{-k}(X_j) of the plain KDE fitted
on the other folds. All folds are computed in one pass: with the folds as blocks,
f_{-k} = (sum over all blocks - block k) / (n - n_k).

"robust" is the bandwidth that a spike of outliers cannot capture: the trimmed
leave-own-block-out likelihood of MoM-KDE with S = 2 ceil(eps n) + 1 blocks (or the
estimator's own S), eps the expected contamination (:mod:`momkde_core.robust_defaults`).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.interpolate import RegularGridInterpolator
from sklearn.model_selection import KFold

from .engine import block_grid_sums, block_log_sums
from .kernels import Kernel
from .robust_defaults import n_blocks_for, robust_bandwidth

RULES = ("scott", "silverman", "cv", "robust")
ROBUST_CONTAMINATION = 0.1  # the share "robust" assumes for estimators that state none
CV_GRID_SIZE = 25
CV_GRID_SPAN = (0.02, 2.0)  # the grid runs from 0.02 to 2 times Scott's bandwidth
CV_EXACT_MAX_N = 500  # above this in 1-D, held-out densities come from a binned grid
CV_EXACT_MAX_N_2D = 4000  # the same in 2-D, where the binned grid costs more
CV_BIN_STEP = 1 / 8  # binned grid spacing, in bandwidths (linear interpolation error ~0.2%)


def pooled_std(X: np.ndarray) -> float:
    """sqrt(mean of per-feature variances), the scale of the rules of thumb."""
    return float(np.sqrt(np.mean(np.var(X, axis=0, ddof=1))))


def scott(X: np.ndarray) -> float:
    """Scott's rule: sigma * n^(-1/(d+4))."""
    n, d = X.shape
    return pooled_std(X) * n ** (-1.0 / (d + 4))


def silverman(X: np.ndarray) -> float:
    """Silverman's rule: sigma * (n (d + 2) / 4)^(-1/(d+4))."""
    n, d = X.shape
    return pooled_std(X) * (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))


def cv_grid(X: np.ndarray, size: int = CV_GRID_SIZE) -> np.ndarray:
    """The log-spaced candidate bandwidths of "cv", around Scott's rule."""
    base = scott(X)
    return np.geomspace(CV_GRID_SPAN[0] * base, CV_GRID_SPAN[1] * base, size)


def cv_scores(X: np.ndarray, kernel: Kernel, bandwidths: np.ndarray, n_folds: int = 5,
              random_state=None) -> np.ndarray:
    """Mean held-out log-likelihood of the KDE for each candidate bandwidth (higher is better).

    A bandwidth for which some held-out point gets density 0 (compact kernels) scores -inf.
    """
    n, d = X.shape
    if n < n_folds:
        raise ValueError(f"bandwidth='cv' needs at least {n_folds} points (one per fold), got {n}")
    folds = KFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    order = np.concatenate([test for _, test in folds.split(X)])
    Xs = X[order]
    sizes = np.array([len(test) for _, test in folds.split(X)])
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    fold_of = np.repeat(np.arange(n_folds), sizes)
    scores = np.empty(len(bandwidths))
    # binning pays off once n is large against the grid: 1-D grids are cheap, 2-D ones are not
    binned = kernel.name != "tophat" and ((d == 1 and n > CV_EXACT_MAX_N)
                                          or (d == 2 and n > CV_EXACT_MAX_N_2D))
    for i, h in enumerate(bandwidths):
        if binned:
            log_sums = _binned_log_sums(Xs, bounds, kernel, h)
        else:
            log_sums = block_log_sums(Xs, bounds, Xs, kernel, h, linear_first=d <= 2)
        scores[i] = _held_out_loglik(log_sums, fold_of, sizes, n)
    return scores


def _held_out_loglik(log_sums: np.ndarray, fold_of: np.ndarray, sizes: np.ndarray,
                     n: int) -> float:
    """Mean of log f_{-k}(X_j) over all points j (fold k = fold of j)."""
    n_folds = len(sizes)
    others = np.ones((n_folds, n_folds), dtype=bool)
    np.fill_diagonal(others, False)
    # for point j: logsumexp over the blocks other than its own fold
    masked = np.where(others[fold_of].T, log_sums, -np.inf)
    # log-sum-exp over the folds, by hand: scipy's generic one costs ~4x more on (5, n)
    peak = masked.max(axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        held_out = (np.log(np.exp(masked - safe).sum(axis=0)) + safe
                    - np.log(n - sizes[fold_of]))
    return float(np.mean(held_out))


def _binned_log_sums(Xs: np.ndarray, bounds: np.ndarray, kernel: Kernel, h: float) -> np.ndarray:
    """Per-fold kernel sums at the points, read off a binned grid by linear interpolation.

    Points where some fold's binned sum is below 1e-6 of the peak (isolated points, whose
    kernel tails the grid truncates or the interpolation cannot resolve) are summed exactly.
    """
    d = Xs.shape[1]
    lo, hi = Xs.min(axis=0), Xs.max(axis=0)
    n_cells = [int(min(2**16 if d == 1 else 512, max(64, np.ceil((b - a) / (CV_BIN_STEP * h)))))
               + 1 for a, b in zip(lo, hi)]
    axes = [np.linspace(a, b, k) for a, b, k in zip(lo, hi, n_cells)]
    grid = block_grid_sums(Xs, bounds, axes, kernel, h)
    if d == 1:  # np.interp: the same linear interpolation, ~10x faster than the n-D one
        values = np.stack([np.interp(Xs[:, 0], axes[0], g) for g in grid])
    else:
        values = np.stack([RegularGridInterpolator(axes, g)(Xs) for g in grid])
    with np.errstate(divide="ignore"):
        logs = np.log(np.maximum(values, 0.0))
    faint = np.flatnonzero((values < 1e-6 * values.max()).any(axis=0))
    if faint.size:
        logs[:, faint] = block_log_sums(Xs, bounds, Xs[faint], kernel, h, linear_first=True)
    return logs


def select_bandwidth(X: np.ndarray, bandwidth, kernel: Kernel, n_folds: int = 5,
                     random_state=None, n_blocks: int | None = None,
                     contamination: float = ROBUST_CONTAMINATION) -> float:
    """Resolve ``bandwidth`` (a positive number or one of :data:`RULES`) to a float for X.

    ``n_blocks`` and ``contamination`` are used by "robust" only: the blocks of the MoM-KDE
    it scores (default: 2 ceil(contamination n) + 1) and the share of lowest scores it trims.
    """
    if isinstance(bandwidth, str):
        rule = bandwidth.lower()
        if rule not in RULES:
            raise ValueError(f"unknown bandwidth rule {bandwidth!r}; "
                             f"allowed: a positive number or one of {', '.join(RULES)}")
        if len(X) < 2 or pooled_std(X) == 0.0:
            raise ValueError(f"bandwidth={bandwidth!r} needs at least 2 distinct points "
                             "(the data have zero spread); pass a positive number instead")
        if rule == "scott":
            return scott(X)
        if rule == "silverman":
            return silverman(X)
        if rule == "robust":
            S = n_blocks_for(len(X), contamination) if n_blocks is None else n_blocks
            return robust_bandwidth(X, S, contamination, kernel, scott(X),
                                    random_state=random_state)
        grid = cv_grid(X)
        scores = cv_scores(X, kernel, grid, n_folds=n_folds, random_state=random_state)
        if not np.isfinite(scores).any():
            raise ValueError("bandwidth='cv' found no bandwidth with a finite held-out "
                             "likelihood; pass a positive number instead")
        best = int(np.argmax(scores))
        if best == 0:
            warnings.warn(
                f"bandwidth='cv' picked the smallest candidate ({grid[0]:.3g}): the held-out "
                "likelihood keeps growing as h shrinks, as it does with repeated values "
                "(discrete or rounded data); consider bandwidth='scott' or a number",
                UserWarning, stacklevel=3)
        return float(grid[best])
    try:
        value = float(bandwidth)
    except (TypeError, ValueError):
        raise ValueError(f"bandwidth must be a positive number or one of {', '.join(RULES)}, "
                         f"got {bandwidth!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"bandwidth must be a positive finite number, got {bandwidth!r}")
    return value
