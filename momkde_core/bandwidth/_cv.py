"""The "cv" rule: the bandwidth of best held-out likelihood in k-fold cross-validation.

"cv" is the paper's choice (Turlach 1993): the bandwidth on a log grid that maximises the
held-out log-likelihood sum_k sum_{j in fold k} log f_{-k}(X_j) of the plain KDE fitted
on the other folds. All folds are computed in one pass: with the folds as blocks,
f_{-k} = (sum over all blocks - block k) / (n - n_k). With sample weights the folds' KDEs
are weighted, n and n_k become the total and the fold's weight, and the held-out points
count with their weights.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.interpolate import RegularGridInterpolator
from scipy.spatial import cKDTree
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from .._columns import bounding_box
from .._engine import block_grid_sums, block_log_sums
from ..kernels import Kernel
from ._thumb import scott

CV_GRID_SIZE = 25
CV_GRID_SPAN = (0.02, 2.0)  # the grid runs from 0.02 to 2 times Scott's bandwidth
CV_FLOOR_MARGIN = 1e-6  # compact kernels: the smallest candidate is this share above the reach
CV_EXACT_MAX_N = 500  # above this in 1-D, held-out densities come from a binned grid
CV_EXACT_MAX_N_2D = 4000  # the same in 2-D, where the binned grid costs more
CV_MAX_SAMPLES = 5000  # in d > 1, the search runs on this many points drawn uniformly
CV_BIN_STEP = 1 / 8  # binned grid spacing, in bandwidths (linear interpolation error ~0.2%)


def cv_grid(
    X: np.ndarray,
    size: int = CV_GRID_SIZE,
    weights: np.ndarray | None = None,
    base: float | None = None,
    floor: float = 0.0,
) -> np.ndarray:
    """The log-spaced candidate bandwidths of the "cv" rule.

    From 0.02 to 2 times ``base``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    size : int, default 25
        The number of candidates.
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1, for the default ``base``.
    base : float, optional
        The reference bandwidth; default: Scott's rule for X (:func:`scott`).
    floor : float, default 0.0
        A lower limit. A ``floor`` at or above the smallest candidate (compact kernels: the
        largest distance from a held-out point to its nearest point in the other folds)
        moves the smallest candidate just above it (by a relative 1e-6) and keeps the span
        (a factor of 100) above it.

    Returns
    -------
    grid : ndarray of shape (size,)
        The candidates, increasing.

    See Also
    --------
    cv_scores : The held-out likelihood of each candidate.
    kfold_cv_bandwidth : The best candidate.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.bandwidth import cv_grid, scott
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> grid = cv_grid(X)
    >>> grid.shape
    (25,)
    >>> round(float(grid[0] / scott(X)), 2), round(float(grid[-1] / scott(X)), 2)
    (0.02, 2.0)
    >>> round(float(cv_grid(X, size=5, base=1.0, floor=0.5)[-1]), 1)  # 100 times the floor
    50.0
    """
    base = scott(X, weights) if base is None else base
    lo, hi = CV_GRID_SPAN[0] * base, CV_GRID_SPAN[1] * base
    if floor >= lo:
        lo = floor * (1.0 + CV_FLOOR_MARGIN)
        hi = max(hi, lo * CV_GRID_SPAN[1] / CV_GRID_SPAN[0])
    return np.geomspace(lo, hi, size)


def _folds(X: np.ndarray, n_folds: int, random_state) -> tuple[np.ndarray, np.ndarray]:
    """(row order with the folds as consecutive runs, fold sizes): scikit-learn's shuffled
    KFold, split once."""
    n = len(X)
    if n < n_folds:
        raise ValueError(f"bandwidth='cv' needs at least {n_folds} points (one per fold), got {n}")
    tests = [
        test
        for _, test in KFold(n_splits=n_folds, shuffle=True, random_state=random_state).split(X)
    ]
    return np.concatenate(tests), np.array([len(test) for test in tests])


def held_out_reach(X: np.ndarray, order: np.ndarray, sizes: np.ndarray) -> float:
    """The largest distance from a point to its nearest point in the other folds (internal).

    ``order`` and ``sizes`` as :func:`_folds`: with a compact kernel, every bandwidth above
    it leaves each held-out point a neighbour within the kernel's support.
    """
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    reach = 0.0
    for a, b in zip(bounds[:-1], bounds[1:]):
        others = np.r_[order[:a], order[b:]]
        dist, _ = cKDTree(X[others]).query(X[order[a:b]], k=1)
        reach = max(reach, float(dist.max()))
    return reach


def cv_scores(
    X: np.ndarray,
    kernel: Kernel,
    bandwidths: np.ndarray,
    n_folds: int = 5,
    random_state: int | np.random.RandomState | None = None,
    weights: np.ndarray | None = None,
    folds: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Mean held-out log-likelihood of the KDE for each candidate bandwidth (higher is better).

    The pseudo-likelihood k-fold cross-validation of the "cv" rule: each point is scored by
    the KDE fitted on the folds that do not hold it.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    bandwidths : ndarray of shape (m,)
        The candidate bandwidths (e.g. :func:`cv_grid`).
    n_folds : int, default 5
        The number of folds (scikit-learn's shuffled ``KFold``); X needs at least one point
        per fold.
    random_state : int, RandomState or None, default None
        The shuffle of the folds.
    weights : ndarray of shape (n,), optional
        Positive, summing to 1: the weighted KDEs and the weighted mean (None: equal).
    folds : tuple of two ndarrays, optional
        (order, sizes) of :func:`_folds`, when already drawn (default: drawn here).

    Returns
    -------
    scores : ndarray of shape (m,)
        The mean held-out log density for each bandwidth. A bandwidth for which some held-out
        point gets density 0 (compact kernels) scores -inf.

    Raises
    ------
    ValueError
        When X has fewer points than folds.

    See Also
    --------
    kfold_cv_bandwidth : The best candidate of :func:`cv_grid`.

    Notes
    -----
    All folds are computed in one pass: with the folds as blocks,
    ``f_{-k} = (sum over all blocks - block k) / (n - n_k)``. With sample weights the folds'
    KDEs are weighted, n and n_k become the total and the fold's weight, and the held-out
    points count with their weights. Above 500 points in 1-D (4000 in 2-D), with any kernel
    but the tophat, the held-out densities are read off a binned grid of spacing h / 8 by
    linear interpolation (error about 0.2 %; at least 65 nodes per axis, at most 2^16 + 1 in
    1-D and 513 per axis in 2-D, the spacing coarser then); points where some fold's binned
    sum is below 1e-6 of the peak (isolated points) are summed exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import cv_grid, cv_scores
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> scores = cv_scores(X, get_kernel("gaussian"), cv_grid(X), random_state=0)
    >>> scores.shape
    (25,)
    >>> bool(np.isfinite(scores).all())
    True
    >>> float(cv_scores(X, get_kernel("tophat"), np.array([1e-6]), random_state=0)[0])
    -inf
    """
    n, d = X.shape
    order, sizes = _folds(X, n_folds, random_state) if folds is None else folds
    Xs = X[order]
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    fold_of = np.repeat(np.arange(n_folds), sizes)
    log_w = None if weights is None else np.log(weights[order])
    masses = sizes if weights is None else np.add.reduceat(weights[order], bounds[:-1])
    total = n if weights is None else 1.0
    scores = np.empty(len(bandwidths))
    # binning pays off once n is large against the grid: 1-D grids are cheap, 2-D ones are not
    binned = kernel.name != "tophat" and (
        (d == 1 and n > CV_EXACT_MAX_N) or (d == 2 and n > CV_EXACT_MAX_N_2D)
    )
    for i, h in enumerate(bandwidths):
        if binned:
            log_sums = _binned_log_sums(Xs, bounds, kernel, h, log_w)
        else:
            log_sums = block_log_sums(Xs, bounds, Xs, kernel, h, log_w, linear_first=d <= 2)
        scores[i] = _held_out_loglik(
            log_sums, fold_of, masses, total, None if weights is None else weights[order]
        )
    return scores


def kfold_cv_bandwidth(
    X: np.ndarray,
    kernel: Kernel,
    base: float,
    n_folds: int = 5,
    random_state: int | np.random.RandomState | None = None,
    weights: np.ndarray | None = None,
) -> float:
    """The candidate of :func:`cv_grid` around ``base`` with the best k-fold held-out likelihood.

    The search the "cv" rule made before it became :func:`cv_bandwidth` (kept for
    comparisons and for the tables computed with it): the bandwidth on a log grid that
    maximises the held-out log-likelihood ``sum_k sum_{j in fold k} log f_{-k}(X_j)`` of the
    plain KDE fitted on the other folds (:func:`cv_scores`).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    base : float
        The reference bandwidth: the candidates run from 0.02 to 2 times it.
    n_folds : int, default 5
        The number of folds.
    random_state : int, RandomState or None, default None
        The shuffle of the folds.
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal).

    Returns
    -------
    h : float
        The best candidate.

    Raises
    ------
    ValueError
        When no candidate has a finite score, or X has fewer points than folds.

    Warns
    -----
    UserWarning
        When the smallest candidate of the usual grid wins (repeated values: discrete or
        rounded data).

    See Also
    --------
    cv_bandwidth : the "cv" rule (leave-one-out, deterministic, refined optimum).

    Notes
    -----
    In d > 1 above :data:`CV_MAX_SAMPLES` (5000) points, the search runs on that many
    points drawn uniformly (``random_state``) and its bandwidth is rescaled to n by the rate
    of the optimal bandwidth, (m / n)^(1 / (d + 4)): the exact search costs n^2 kernel
    terms per candidate, and in 2-D the binned one still sums the isolated points exactly.
    In 1-D the binned search uses every point.

    With a compact kernel the grid starts above :func:`held_out_reach`, so every candidate
    has a finite score (else all could be -inf on ordinary 2-D data: 20 of 20 samples of
    N(0, I), n = 1000); the most isolated held-out point then sets the smallest bandwidth,
    the known price of likelihood CV with compact kernels.

    References
    ----------
    B. A. Turlach. Bandwidth selection in kernel density estimation: a review. CORE and
    Institut de Statistique, Université catholique de Louvain, discussion paper 9317, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import cv_grid, kfold_cv_bandwidth, scott
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> h = kfold_cv_bandwidth(X, get_kernel("gaussian"), scott(X), random_state=0)
    >>> bool(np.isin(h, cv_grid(X)))
    True
    """
    n, d = X.shape
    if d > 1 and n > CV_MAX_SAMPLES:  # on a uniform subsample, h rescaled to n (Notes)
        rng = check_random_state(random_state)
        rows = np.sort(rng.choice(n, CV_MAX_SAMPLES, replace=False))
        kept = None if weights is None else weights[rows] / weights[rows].sum()
        factor = (n / CV_MAX_SAMPLES) ** (1.0 / (d + 4))  # the optimal h's rate, n^(-1/(d+4))
        h = kfold_cv_bandwidth(X[rows], kernel, base * factor, n_folds, rng, kept)
        return h / factor
    folds = _folds(X, n_folds, random_state)
    floor = held_out_reach(X, *folds) if kernel.compact else 0.0
    grid = cv_grid(X, weights=weights, base=base, floor=floor)
    scores = cv_scores(X, kernel, grid, n_folds=n_folds, weights=weights, folds=folds)
    if not np.isfinite(scores).any():
        raise ValueError(
            "bandwidth='cv' found no bandwidth with a finite held-out "
            "likelihood; pass a positive number instead"
        )
    best = int(np.argmax(scores))
    # (above the reach the smallest candidate often wins with a compact kernel: the held-out
    # likelihood grows as h shrinks until some held-out point loses its last neighbour)
    if best == 0 and grid[0] <= CV_GRID_SPAN[0] * base:
        warnings.warn(
            f"bandwidth='cv' picked the smallest candidate ({grid[0]:.3g}): the held-out "
            "likelihood keeps growing as h shrinks, as it does with repeated values "
            "(discrete or rounded data); consider bandwidth='scott' or a number",
            UserWarning,
            stacklevel=4,
        )
    return float(grid[best])


def _held_out_loglik(
    log_sums: np.ndarray,
    fold_of: np.ndarray,
    sizes: np.ndarray,
    n: float,
    weights: np.ndarray | None = None,
) -> float:
    """Mean of log f_{-k}(X_j) over all points j (fold k = fold of j); ``sizes`` and ``n``
    are the folds' and the total mass (counts, or weights), ``weights`` those of the points
    (None: the plain mean)."""
    n_folds = len(sizes)
    others = np.ones((n_folds, n_folds), dtype=bool)
    np.fill_diagonal(others, False)
    # for point j: logsumexp over the blocks other than its own fold
    masked = np.where(others[fold_of].T, log_sums, -np.inf)
    # log-sum-exp over the folds, by hand: scipy's generic one costs more on (5, n)
    peak = masked.max(axis=0)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        held_out = np.log(np.exp(masked - safe).sum(axis=0)) + safe - np.log(n - sizes[fold_of])
    return float(np.mean(held_out) if weights is None else weights @ held_out)


def _binned_log_sums(
    Xs: np.ndarray,
    bounds: np.ndarray,
    kernel: Kernel,
    h: float,
    log_weights: np.ndarray | None = None,
) -> np.ndarray:
    """Per-fold (weighted) kernel sums at the points, read off a binned grid by linear
    interpolation.

    Points where some fold's binned sum is below 1e-6 of the peak (isolated points, whose
    kernel tails the grid truncates or the interpolation cannot resolve) are summed exactly.
    """
    d = Xs.shape[1]
    lo, hi = bounding_box(Xs)
    n_cells = [
        int(min(2**16 if d == 1 else 512, max(64, np.ceil((b - a) / (CV_BIN_STEP * h))))) + 1
        for a, b in zip(lo, hi)
    ]
    axes = [np.linspace(a, b, k) for a, b, k in zip(lo, hi, n_cells)]
    grid = block_grid_sums(
        Xs, bounds, axes, kernel, h, None if log_weights is None else np.exp(log_weights)
    )
    if d == 1:  # np.interp: the same linear interpolation, faster than the n-D one
        values = np.stack([np.interp(Xs[:, 0], axes[0], g) for g in grid])
    else:
        values = np.stack([RegularGridInterpolator(axes, g)(Xs) for g in grid])
    with np.errstate(divide="ignore"):
        logs = np.log(np.maximum(values, 0.0))
    faint = np.flatnonzero((values < 1e-6 * values.max()).any(axis=0))
    if faint.size:
        logs[:, faint] = block_log_sums(
            Xs, bounds, Xs[faint], kernel, h, log_weights, linear_first=True
        )
    return logs
