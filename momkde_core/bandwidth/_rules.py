"""Bandwidth selection: Scott's and Silverman's rules, pseudo-likelihood k-fold CV and ISJ.

The rules use the factors of :class:`scipy.stats.gaussian_kde` (Scott: n^(-1/(d+4));
Silverman: (n (d + 2) / 4)^(-1/(d+4))) times a standard deviation, so in 1-D they give
exactly gaussian_kde's bandwidth. The estimators use them **per feature** (sigma_j, so
features of scale 1 and 1000 each get their own h: gaussian_kde with the diagonal of its
covariance), and "cv", "robust" and "isj" search a scalar multiple c of that per-feature
Scott vector (``select_bandwidth(per_feature=True)``); ``per_feature=False`` gives one h
for all features from the pooled deviation sqrt(mean of the per-feature variances), as the
app and the experiments share it between estimators. Variances are computed on data scaled
by a power of two where needed (exactly), so magnitudes from 1e-300 to 1e300 neither
overflow nor underflow. They target the Gaussian kernel. With sample weights they follow
gaussian_kde's ``weights`` too: n becomes the effective size n_eff = (sum w)^2 / sum w^2 and
the variances are the weighted ones with the unbiased correction 1 / (1 - sum p_i^2),
p = w / sum w (reliability weights: scaling every weight by a constant changes nothing).

"cv" is the paper's choice (Turlach 1993): the bandwidth on a log grid that maximises the
held-out log-likelihood sum_k sum_{j in fold k} log f_{-k}(X_j) of the plain KDE fitted
on the other folds. All folds are computed in one pass: with the folds as blocks,
f_{-k} = (sum over all blocks - block k) / (n - n_k). With sample weights the folds' KDEs
are weighted, n and n_k become the total and the fold's weight, and the held-out points
count with their weights.

"robust" is the bandwidth that a spike of outliers cannot capture: the trimmed
leave-own-block-out likelihood of MoM-KDE with S = 2 ceil(eps n) + 1 blocks (or the
estimator's own S), eps the expected contamination (:mod:`momkde_core.bandwidth._robust`).

"isj" is the Improved Sheather-Jones bandwidth of Botev, Grotowski & Kroese (2010), for the
Gaussian kernel and 1-D data only: the algorithm, and how it differs from KDEpy's, are in
the Notes of :func:`isj`.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.fft import dct
from scipy.interpolate import RegularGridInterpolator
from scipy.optimize import brentq
from scipy.spatial import cKDTree
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from .._columns import bounding_box, per_column
from .._engine import block_grid_sums, block_log_sums, selection_frame
from .._validation import InvalidParameterError
from ..kernels import Kernel
from ._robust import n_blocks_for, robust_bandwidth

RULES = ("scott", "silverman", "cv", "robust", "isj")
ROBUST_CONTAMINATION = 0.1  # the share "robust" assumes for estimators that state none
CV_GRID_SIZE = 25
CV_GRID_SPAN = (0.02, 2.0)  # the grid runs from 0.02 to 2 times Scott's bandwidth
CV_FLOOR_MARGIN = 1e-6  # compact kernels: the smallest candidate is this share above the reach
CV_EXACT_MAX_N = 500  # above this in 1-D, held-out densities come from a binned grid
CV_EXACT_MAX_N_2D = 4000  # the same in 2-D, where the binned grid costs more
CV_MAX_SAMPLES = 5000  # in d > 1, the search runs on this many points drawn uniformly
CV_BIN_STEP = 1 / 8  # binned grid spacing, in bandwidths (linear interpolation error ~0.2%)
ISJ_GRID_SIZE = 2**14  # nodes of the "isj" grid (a power of two, for the DCT)
ISJ_PAD = 0.5  # the "isj" grid extends this share of the data's range beyond each end
ISJ_ORDER = 7  # l, the order of the functional the fixed point starts from (the paper's choice)


SAFE_EXPONENT = 256  # features with max |x| in [2^-256, 2^256] are used as they are


def _feature_variances(
    X: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(per-feature variances of X scaled by 2^-e_j, the exponents e_j).

    Features whose largest magnitude is outside [2^-256, 2^256] are scaled by a power of two
    first (e_j: the binary exponent of that magnitude; 0 otherwise), so no square over- or
    underflows; the scaling is exact, so var_j 2^(2 e_j) is the variance numpy would give
    wherever numpy's does not overflow. ``weights`` (summing to 1): the unbiased weighted
    variances of ``numpy.cov(aweights=)``.
    """
    peak = per_column(np.max, np.abs(X))
    exps = np.frexp(peak)[1]
    exps = np.where(
        (peak > 0) & ((peak > 2.0**SAFE_EXPONENT) | (peak < 2.0**-SAFE_EXPONENT)), exps, 0
    )
    W = np.ldexp(X, -exps) if exps.any() else X
    if weights is None:
        return np.var(W, axis=0, ddof=1), exps
    centred = W - weights @ W
    return weights @ np.square(centred) / (1.0 - weights @ weights), exps


def feature_std(X: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-feature standard deviations (internal).

    ddof=1, weighted as :func:`pooled_std`; safe from over- and underflow at any magnitude
    (1e-300 .. 1e300).
    """
    var, exps = _feature_variances(X, weights)
    return np.ldexp(np.sqrt(var), exps)


def pooled_std(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The pooled standard deviation sqrt(mean of per-feature variances) (internal).

    The scale of the isotropic rules of thumb; with ``weights`` (summing to 1) the unbiased
    weighted variances of ``numpy.cov(aweights=)``. Safe at any magnitude
    (:func:`feature_std`).
    """
    var, exps = _feature_variances(X, weights)
    if not exps.any():
        return float(np.sqrt(np.mean(var)))
    std = np.ldexp(np.sqrt(var), exps)
    top = std.max()  # relative to the largest deviation, no square over- or underflows
    return float(top * np.sqrt(np.mean(np.square(std / top)))) if top > 0 else 0.0


def effective_size(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The sample size n, or with ``weights`` (summing to 1) Kish's effective size 1 / sum w^2
    (internal)."""
    return float(len(X)) if weights is None else 1.0 / float(weights @ weights)


def _scott_factor(X: np.ndarray, weights: np.ndarray | None) -> float:
    return effective_size(X, weights) ** (-1.0 / (X.shape[1] + 4))


def _silverman_factor(X: np.ndarray, weights: np.ndarray | None) -> float:
    d = X.shape[1]
    return (effective_size(X, weights) * (d + 2) / 4.0) ** (-1.0 / (d + 4))


def scott(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Scott's rule of thumb, isotropic: one bandwidth for all features.

    ``sigma * n^(-1/(d+4))``, sigma the pooled standard deviation (the square root of the
    mean of the per-feature variances, ddof=1). In 1-D this is exactly the bandwidth of
    :class:`scipy.stats.gaussian_kde` (its ``factor`` times the standard deviation). It
    targets the Gaussian kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1 (the estimators normalise ``sample_weight`` so); None:
        equal weights.

    Returns
    -------
    h : float
        The bandwidth.

    See Also
    --------
    silverman : The same with Silverman's factor.
    rule_of_thumb : The per-feature rule the estimators use.
    select_bandwidth : Resolves the ``bandwidth`` parameter of the estimators.

    Notes
    -----
    With sample weights the rule follows gaussian_kde's ``weights``: n becomes the effective
    size ``n_eff = (sum w)^2 / sum w^2`` (Kish's) and the variances are the weighted ones with
    the unbiased correction ``1 / (1 - sum p_i^2)``, ``p = w / sum w`` (reliability weights:
    once the weights are normalised, scaling every weight by a constant changes nothing).
    Variances are computed on data scaled by a power of two where needed (exactly), so
    magnitudes from 1e-300 to 1e300 neither overflow nor underflow.

    References
    ----------
    D. W. Scott. Multivariate Density Estimation: Theory, Practice, and Visualization.
    Wiley, 1992.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import gaussian_kde
    >>> from momkde_core.bandwidth import scott
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(scott(X), 2)
    0.33
    >>> bool(np.isclose(scott(X), gaussian_kde(X[:, 0]).factor * X.std(ddof=1)))
    True
    """
    return pooled_std(X, weights) * _scott_factor(X, weights)


def silverman(X: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Silverman's rule of thumb, isotropic: one bandwidth for all features.

    ``sigma * (n (d + 2) / 4)^(-1/(d+4))``, sigma the pooled standard deviation (as
    :func:`scott`). In 1-D this is exactly the bandwidth of :class:`scipy.stats.gaussian_kde`
    with ``bw_method="silverman"``. It targets the Gaussian kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1; None: equal weights.

    Returns
    -------
    h : float
        The bandwidth.

    See Also
    --------
    scott : The same with Scott's factor.
    rule_of_thumb : The per-feature rule the estimators use.

    Notes
    -----
    Weights enter as in :func:`scott`: n becomes the effective size
    ``n_eff = (sum w)^2 / sum w^2`` and the variances are the unbiased weighted ones, as with
    gaussian_kde's ``weights``.

    References
    ----------
    B. W. Silverman. Density Estimation for Statistics and Data Analysis. Chapman & Hall,
    1986.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import gaussian_kde
    >>> from momkde_core.bandwidth import silverman
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(silverman(X), 2)
    0.35
    >>> kde = gaussian_kde(X[:, 0], bw_method="silverman")
    >>> bool(np.isclose(silverman(X), kde.factor * X.std(ddof=1)))
    True
    """
    return pooled_std(X, weights) * _silverman_factor(X, weights)


def rule_of_thumb(
    X: np.ndarray, rule: str, weights: np.ndarray | None = None, per_feature: bool = True
) -> np.ndarray:
    """Scott's or Silverman's rule, one bandwidth per feature.

    Per feature, sigma_j (the feature's standard deviation) times the rule's factor, so
    features of scale 1 and 1000 each get their own h (gaussian_kde with the diagonal of its
    covariance); in 1-D exactly the isotropic rule (:func:`scott`, :func:`silverman`).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    rule : {"scott", "silverman"}
        The rule ("scott", else Silverman's factor).
    weights : ndarray of shape (n,), optional
        Positive weights summing to 1 (None: equal), entering as in :func:`scott`.
    per_feature : bool, default True
        False: the isotropic rule (pooled standard deviation) repeated d times.

    Returns
    -------
    h : ndarray of shape (d,)
        The bandwidths.

    Raises
    ------
    ValueError
        When every feature has zero spread (no two distinct points).

    Warns
    -----
    UserWarning
        When some feature has zero spread (constant) among others: it gets the isotropic
        value.

    See Also
    --------
    select_bandwidth : Resolves the ``bandwidth`` parameter of the estimators.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.bandwidth import rule_of_thumb
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 1000.0]
    >>> h = rule_of_thumb(X, "scott")
    >>> h.shape
    (2,)
    >>> bool(500 < h[1] / h[0] < 2000)
    True
    >>> h_iso = rule_of_thumb(X, "scott", per_feature=False)
    >>> bool(h_iso[0] == h_iso[1])
    True
    """
    factor = (_scott_factor if rule == "scott" else _silverman_factor)(X, weights)
    pooled = pooled_std(X, weights) * factor
    if not per_column(np.ptp, X).any():
        raise ValueError(
            f"bandwidth={rule!r} needs at least 2 distinct points "
            "(the data have zero spread); pass a positive number instead"
        )
    d = X.shape[1]
    if not per_feature:
        return np.full(d, pooled)
    h = feature_std(X, weights) * factor
    flat = np.flatnonzero(per_column(np.ptp, X) == 0.0)
    if flat.size:
        warnings.warn(
            f"feature(s) {flat.tolist()} have zero spread (constant): their "
            f"bandwidth is the isotropic {rule} value {pooled:.3g}",
            UserWarning,
            stacklevel=4,
        )
        h[flat] = pooled
    return h


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
    cv_bandwidth : The best candidate.

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
    cv_bandwidth : The best candidate of :func:`cv_grid`.

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


def cv_bandwidth(
    X: np.ndarray,
    kernel: Kernel,
    base: float,
    n_folds: int = 5,
    random_state: int | np.random.RandomState | None = None,
    weights: np.ndarray | None = None,
) -> float:
    """The candidate of :func:`cv_grid` around ``base`` with the best held-out likelihood.

    The "cv" rule, the paper's choice (Turlach 1993): the bandwidth on a log grid that
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
    select_bandwidth : ``bandwidth="cv"``, in a frame safe at any magnitude.

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
    >>> from momkde_core.bandwidth import cv_bandwidth, cv_grid, scott
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> h = cv_bandwidth(X, get_kernel("gaussian"), scott(X), random_state=0)
    >>> bool(np.isin(h, cv_grid(X)))
    True
    """
    n, d = X.shape
    if d > 1 and n > CV_MAX_SAMPLES:  # on a uniform subsample, h rescaled to n (Notes)
        rng = check_random_state(random_state)
        rows = np.sort(rng.choice(n, CV_MAX_SAMPLES, replace=False))
        kept = None if weights is None else weights[rows] / weights[rows].sum()
        factor = (n / CV_MAX_SAMPLES) ** (1.0 / (d + 4))  # the optimal h's rate, n^(-1/(d+4))
        h = cv_bandwidth(X[rows], kernel, base * factor, n_folds, rng, kept)
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


def _isj_functional(j: int, t: float, k2: np.ndarray, a2: np.ndarray) -> float:
    """||f_t^(j)||^2 on [0, 1] from the squared cosine coefficients a2 (module docstring)."""
    return 0.5 * np.pi ** (2 * j) * float(np.sum(k2**j * a2 * np.exp(-(np.pi**2) * k2 * t)))


def _isj_equation(t: float, N: float, k2: np.ndarray, a2: np.ndarray) -> float:
    """t - xi gamma^[l](t): negative below the fixed point, positive above it."""
    with np.errstate(divide="ignore", over="ignore"):
        norm = _isj_functional(ISJ_ORDER, t, k2, a2)
        for j in range(ISJ_ORDER - 1, 1, -1):
            odd = float(np.prod(np.arange(1, 2 * j, 2)))  # (2j - 1)!!
            t_j = ((1.0 + 2.0 ** (-j - 0.5)) / 3.0 * odd / (N * np.sqrt(np.pi / 2.0) * norm)) ** (
                2.0 / (3.0 + 2.0 * j)
            )
            norm = _isj_functional(j, t_j, k2, a2)
        return t - (2.0 * N * np.sqrt(np.pi) * norm) ** (-0.4)


def isj(
    x: np.ndarray,
    weights: np.ndarray | None = None,
    grid_size: int = ISJ_GRID_SIZE,
    bounds: tuple[float, float] | None = None,
) -> float:
    """The Improved Sheather-Jones bandwidth of the 1-D sample ``x``.

    The plug-in rule of Botev, Grotowski & Kroese (2010), for the Gaussian kernel and 1-D
    data only. It is scale-equivariant and translation-invariant.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The sample (flattened).
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal). N is then Kish's effective size and the bins
        are weighted.
    grid_size : int, default 2**14
        The number of grid nodes, a power of two (for the DCT).
    bounds : tuple of two floats, optional
        The interval (lo, hi) mapped to [0, 1], which must hold the data strictly inside
        (default: the data's range R widened by R/2 on each side, [min - R/2, max + R/2]); the
        nodes are the centres of its ``grid_size`` cells.

    Returns
    -------
    h : float
        The bandwidth, in the units of ``x``.

    Raises
    ------
    ValueError
        When ``grid_size`` is not a power of two, ``bounds`` do not hold the data, the
        fixed-point equation has no positive root (too few points, or too few distinct
        values), or the root is below the grid's spacing (discrete data).

    See Also
    --------
    select_bandwidth : ``bandwidth="isj"`` (1-D only; d > 1 is a ``ValueError``).

    Notes
    -----
    The data are mapped to [0, 1] with the interval ``bounds``, binned linearly on the
    ``grid_size`` cell centres, and the DCT-II of the bins gives the cosine coefficients
    ``a_k = 2 E[cos(k pi X)]`` of the empirical measure. The squared norm of the j-th
    derivative of the Gaussian-smoothed density at time t (variance t, on [0, 1]) is then
    ``||f_t^(j)||^2 = (pi^(2j) / 2) sum_k k^(2j) a_k^2 exp(-k^2 pi^2 t)``. The fixed-point
    equation ``t = xi gamma^[l](t)`` with l = 7 (the paper's recommendation) is solved by
    :func:`scipy.optimize.brentq`: starting from ``||f^(7)||^2`` at t, each step estimates
    the optimal time of the functional of one order lower,
    ``t_j = (c_j (2j - 1)!! / (N sqrt(pi / 2) ||f^(j+1)||^2))^(2 / (3 + 2j))`` with
    ``c_j = (1 + 2^(-j - 1/2)) / 3``, down to ``||f''||^2``, and the equation is
    ``t = (2 N sqrt(pi) ||f''||^2)^(-2/5)``. The root is the smallest positive one (the first
    sign change on a geometric scan, refined by brentq). The bandwidth is ``h = sqrt(t*)``
    times the length of the interval mapped to [0, 1] (as in the paper). N is the number of
    rows (with sample weights: Kish's effective size, and the bins weighted).

    KDEpy's ``improved_sheather_jones`` (1.1.x) differs in three documented ways: it
    multiplies sqrt(t*) by the data's range R instead of its grid's length (so its h is
    smaller by the factor R / grid length, 1/2 when R >= 12), pads the grid by max(R/2, 6)
    in absolute units (not scale-equivariant below R = 12) and uses 2^10 nodes; with its
    grid, our h times R / grid length is its value
    (``tests/bandwidth/test_bandwidth_isj.py``).

    References
    ----------
    Z. I. Botev, J. F. Grotowski, D. P. Kroese. Kernel density estimation via diffusion.
    Annals of Statistics 38(5), 2916-2957, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.bandwidth import isj
    >>> x = np.random.default_rng(2).normal(size=200)
    >>> round(isj(x), 2)
    0.42
    >>> bool(np.isclose(isj(10 * x + 3), 10 * isj(x)))
    True
    """
    x = np.asarray(x, dtype=float).ravel()
    if grid_size < 2 or grid_size & (grid_size - 1):
        raise ValueError(f"grid_size must be a power of two >= 2, got {grid_size!r}")
    lo, hi = float(x.min()), float(x.max())
    if bounds is None:
        pad = ISJ_PAD * (hi - lo)
        bounds = (lo - pad, hi + pad)
    if not bounds[0] < lo <= hi < bounds[1]:
        raise ValueError(f"bounds {bounds!r} must hold the data strictly inside")
    length = bounds[1] - bounds[0]
    step = length / grid_size
    # linear binning on the cell centres bounds[0] + (i + 1/2) step
    pos = np.clip((x - bounds[0]) / step - 0.5, 0.0, grid_size - 1.0)
    left = np.minimum(np.floor(pos).astype(np.intp), grid_size - 2)
    frac = pos - left
    mass = np.full(len(x), 1.0 / len(x)) if weights is None else np.asarray(weights, float)
    bins = np.bincount(left, mass * (1.0 - frac), minlength=grid_size) + np.bincount(
        left + 1, mass * frac, minlength=grid_size
    )
    coef = dct(bins, type=2)  # a_k = 2 sum_i bins_i cos(k pi (i + 1/2) / n)
    k2 = np.arange(1, grid_size, dtype=float) ** 2
    a2 = coef[1:] ** 2
    N = effective_size(x, None if weights is None else np.asarray(weights, float))
    # the first sign change on a geometric scan of t (t = (h / length)^2), then brentq
    previous = 0.0
    for upper in np.geomspace(1e-14, 1.0, 113):
        if _isj_equation(upper, N, k2, a2) > 0:
            t = brentq(_isj_equation, previous, upper, args=(N, k2, a2), xtol=1e-300, rtol=1e-12)
            break
        previous = upper
    else:
        raise ValueError(
            "bandwidth='isj' did not converge: the fixed-point equation of Botev et al. has "
            f"no root for these {len(x)} points (too few, or too few distinct values); pass "
            "a positive number or another rule ('scott', 'silverman', 'cv')"
        )
    if np.sqrt(t) < 1.0 / grid_size:
        raise ValueError(
            f"bandwidth='isj' found h = {np.sqrt(t) * length:.3g}, below the spacing of its "
            f"grid ({step:.3g}): the data look discrete (repeated values); pass a positive "
            "number or another rule ('scott', 'silverman')"
        )
    return float(np.sqrt(t) * length)


def select_bandwidth(
    X: np.ndarray,
    bandwidth: float | np.ndarray | str,
    kernel: Kernel,
    n_folds: int = 5,
    random_state: int | np.random.RandomState | None = None,
    n_blocks: int | None = None,
    contamination: float = ROBUST_CONTAMINATION,
    weights: np.ndarray | None = None,
    per_feature: bool = False,
) -> float | np.ndarray:
    """Resolve the ``bandwidth`` parameter of an estimator for the data X.

    A number or an array is checked and returned; a rule name (one of :data:`RULES`:
    "scott", "silverman", "cv", "robust", "isj"; case-insensitive) is computed on X.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    bandwidth : float, ndarray of shape (d,) or str
        A positive finite number, an array of d positive finite numbers (one per feature),
        or one of :data:`RULES`.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`), used by "cv" and "robust".
    n_folds : int, default 5
        The folds of "cv".
    random_state : int, RandomState or None, default None
        The folds of "cv", the blocks and the subsample of "robust".
    n_blocks : int, optional
        "robust" only: the blocks of the MoM-KDE it scores (default:
        ``2 ceil(contamination n) + 1``, :func:`n_blocks_for`).
    contamination : float, default 0.1
        "robust" only: the expected share of outliers, the share of lowest scores it trims
        (0.1 is what "robust" assumes for estimators that state none).
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal); they enter "scott", "silverman", "cv" and "isj"
        (as gaussian_kde's ``weights``, :func:`scott`). "robust" ignores them: it scores the
        median of block KDEs, in which each row counts once whatever its weight (a heavy row
        cannot outvote the blocks).
    per_feature : bool, default False
        False (one h shared by all features, as the app and the experiments compare
        estimators): a float; the rules use the pooled standard deviation. True (what the
        estimators use): an array of shape (d,); "scott" and "silverman" are per feature
        (:func:`rule_of_thumb`), and "cv", "robust" and "isj" search a scalar multiple c of
        the per-feature Scott vector (each feature in units of its own Scott bandwidth; in
        1-D exactly the search on the data).

    Returns
    -------
    h : float or ndarray of shape (d,)
        A float when ``per_feature=False``, else one bandwidth per feature.

    Raises
    ------
    InvalidParameterError
        For an unknown rule name, or a numeric ``bandwidth`` that is not positive and
        finite (:class:`momkde_core.InvalidParameterError`, a ``ValueError`` and a
        ``TypeError``).
    ValueError
        For a per-feature array with ``per_feature=False``, "isj" with d > 1, or a rule on
        fewer than 2 rows or on data of zero spread; and the errors of the rules.

    See Also
    --------
    scott, silverman, rule_of_thumb, cv_bandwidth, isj, robust_bandwidth : The rules.

    Notes
    -----
    The searches ("cv", "robust", "isj") run in the frame of
    :func:`momkde_core._engine._scaling.selection_frame`, so data of any magnitude
    (1e-300 .. 1e300) select the bandwidth they would at magnitude 1, scaled.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import select_bandwidth
    >>> kernel = get_kernel("gaussian")
    >>> X = np.random.default_rng(2).normal(size=(200, 1))
    >>> round(select_bandwidth(X, "scott", kernel), 2)
    0.33
    >>> select_bandwidth(X, 0.5, kernel)
    0.5
    >>> select_bandwidth(X, "silverman", kernel, per_feature=True).shape
    (1,)
    >>> h = select_bandwidth(X, "cv", kernel, random_state=0)
    >>> bool(0.05 < h < 1.0)
    True
    >>> h_tiny = select_bandwidth(X * 1e-200, "cv", kernel, random_state=0)
    >>> bool(np.isclose(h_tiny, h * 1e-200))
    True
    """
    d = X.shape[1]
    if not isinstance(bandwidth, str):
        H = check_numeric_bandwidth(bandwidth, d)
        if per_feature:
            return np.broadcast_to(H, (d,)).astype(float)
        if not np.all(H == H[0]):
            raise ValueError("a per-feature bandwidth needs per_feature=True")
        return float(H[0])
    rule = check_rule(bandwidth, d)
    if len(X) < 2:
        raise ValueError(
            f"bandwidth={bandwidth!r} needs at least 2 distinct points, got "
            f"{len(X)} row (n_samples = {len(X)}); pass a positive number "
            "instead"
        )
    if not per_column(np.ptp, X).any():  # (exactly: weighted variances can round to 1e-33)
        raise ValueError(
            f"bandwidth={bandwidth!r} needs at least 2 distinct points "
            "(the data have zero spread); pass a positive number instead"
        )
    if rule in ("scott", "silverman"):
        H = rule_of_thumb(X, rule, weights, per_feature)
    else:
        frame = selection_frame(X, rule_of_thumb(X, "scott", weights, per_feature))
        Z = frame.inner(X)
        if rule == "isj":
            h = isj(Z[:, 0], weights)
        elif rule == "robust":
            S = n_blocks_for(len(X), contamination) if n_blocks is None else n_blocks
            h = robust_bandwidth(Z, S, contamination, kernel, frame.h, random_state=random_state)
        else:
            h = cv_bandwidth(Z, kernel, frame.h, n_folds, random_state, weights)
        H = frame.outer_bandwidth(h)
    return np.broadcast_to(H, (d,)).astype(float) if per_feature else float(H[0])


def check_rule(bandwidth: str, d: int) -> str:
    """The rule named by ``bandwidth`` (lower case) for data with d features (internal).

    Raises InvalidParameterError for an unknown name and ValueError for "isj" in d > 1.
    """
    rule = bandwidth.lower()
    if rule not in RULES:
        raise InvalidParameterError(
            f"unknown bandwidth rule {bandwidth!r}; "
            f"allowed: a positive number or one of {', '.join(RULES)}"
        )
    if rule == "isj" and d != 1:
        raise ValueError(
            f"bandwidth='isj' (Improved Sheather-Jones) is defined for 1-D "
            f"data only, got {d} features; use 'scott', "
            "'silverman', 'cv', 'robust' or a number in d > 1"
        )
    return rule


def check_numeric_bandwidth(bandwidth, d: int) -> np.ndarray:
    """A numeric ``bandwidth`` as an array of shape (1,) or (d,) (internal).

    ``bandwidth`` is a number, or an array of d numbers, one per feature;
    InvalidParameterError (a ValueError and a TypeError) unless every value is a positive
    finite number (booleans are not numbers here).
    """
    message = (
        f"bandwidth must be a positive finite number, an array of such numbers (one "
        f"per feature: {d}) or one of {', '.join(RULES)}, got {bandwidth!r}"
    )
    if isinstance(bandwidth, (bool, np.bool_)):
        raise InvalidParameterError(message)
    try:
        H = np.asarray(bandwidth)
    except (TypeError, ValueError):
        raise InvalidParameterError(message) from None
    if (
        H.dtype.kind not in "iuf"
        or H.ndim > 1
        or H.ndim == 1
        and len(H) not in (1, d)
        or H.size == 0
    ):
        raise InvalidParameterError(message)
    H = np.atleast_1d(H.astype(float))
    if not np.all(np.isfinite(H) & (H > 0)):
        raise InvalidParameterError(message)
    return H
