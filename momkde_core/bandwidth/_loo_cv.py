"""The "cv" rule: the bandwidth of best leave-one-out likelihood, ties left out together.

Each row is scored by the KDE of the rows that are not copies of it,
``f_{-i}(x_i) = (sum_j w_j K_h(x_i - x_j) - W_i K_h(0)) / (1 - W_i)``, W_i the weight of the
rows equal to x_i (1 / n each without weights). The mean log of it is maximised over log h:
from Scott's bandwidth the search steps by sqrt(2) towards the better side until the score
falls, then refines the optimum in that bracket with Brent's bounded method. Nothing is drawn
at random (no folds), so the same rows give the same h.

Leaving a row's copies out with it is what keeps the rule sound on repeated values (counts,
rounded data): with one copy left in, the held-out likelihood grows without bound as h
shrinks. Exact with the engine's kernel sums (block_log_sums) up to :data:`LOO_EXACT_MAX_N`
rows in 1-D (``CV_EXACT_MAX_N_2D`` in 2-D, any n above), the sums read off a binned grid
beyond; rows whose sum is mostly their own copies' terms are summed again without them.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist
from scipy.special import logsumexp

from .._engine import block_log_sums
from ..kernels import Kernel
from ._cv import CV_EXACT_MAX_N_2D, CV_GRID_SPAN, CV_MAX_SAMPLES, _binned_log_sums

#: above this many rows in 1-D the rows' kernel sums come from a binned grid (h / 8 spacing)
LOO_EXACT_MAX_N = 2000
#: the search's step from Scott's bandwidth (a factor on h) and its relative precision
LOO_STEP = np.sqrt(2.0)
LOO_XATOL = 0.01
#: a row's sum is redone without its copies when they make more than this share of it
#: (exact sums) or half of it (binned sums, ~0.5 % off at the row itself)
FAINT_EXACT = 1.0 - 1e-6
FAINT_BINNED = 0.5
#: the fixed seed of the subsample above CV_MAX_SAMPLES rows in d > 1
SUBSAMPLE_SEED = 0
_CHUNK = 2**21  # pairs per block of the exact redo


def tie_groups(X: np.ndarray) -> np.ndarray:
    """The index of each row's group of equal rows (internal)."""
    return np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)


def loo_scores(
    X: np.ndarray,
    kernel: Kernel,
    bandwidths: np.ndarray,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Mean leave-one-out log-likelihood of the KDE for each bandwidth, ties left out together.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data, with at least two distinct rows.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    bandwidths : ndarray of shape (m,)
        The bandwidths to score.
    weights : ndarray of shape (n,), optional
        Positive, summing to 1: the weighted KDE and the weighted mean (None: equal).

    Returns
    -------
    scores : ndarray of shape (m,)
        The mean of ``log f_{-i}(x_i)``, where ``f_{-i}`` is the KDE of the rows not equal to
        x_i. -inf where some row has no other row within the kernel's support (compact
        kernels).

    See Also
    --------
    cv_bandwidth : the bandwidth that maximises it.
    cv_scores : the k-fold held-out likelihood (the former "cv" rule).

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import loo_scores
    >>> X = np.random.default_rng(1).normal(size=(200, 1))
    >>> scores = loo_scores(X, get_kernel("gaussian"), np.array([0.1, 0.4, 2.0]))
    >>> int(np.argmax(scores))
    1

    Repeated rows leave together: two copies of each row score as one.

    >>> bool(np.allclose(loo_scores(np.r_[X, X], get_kernel("gaussian"), np.array([0.4])),
    ...                  loo_scores(X, get_kernel("gaussian"), np.array([0.4]))))
    True
    """
    X = np.asarray(X, dtype=float)
    group = tie_groups(X)
    return np.array([_score(X, kernel, float(h), weights, group) for h in bandwidths])


def _score(X, kernel: Kernel, h: float, weights, group) -> float:
    n, d = X.shape
    w = np.full(n, 1.0 / n) if weights is None else weights
    own = np.bincount(group, weights=w)[group]  # W_i, the weight of x_i's copies
    log_w = None if weights is None else np.log(weights)
    bounds = np.array([0, n])
    binned = kernel.name != "tophat" and (
        (d == 1 and n > LOO_EXACT_MAX_N) or (d == 2 and n > CV_EXACT_MAX_N_2D)
    )
    if binned:
        log_sums = _binned_log_sums(X, bounds, kernel, h, log_w)[0]
    else:
        log_sums = block_log_sums(X, bounds, X, kernel, h, log_w, linear_first=d <= 2)[0]
    if weights is None:
        log_sums -= np.log(n)
    log_self = np.log(own) + kernel.log_kernel_sq(np.zeros(1), h, d)[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share = np.exp(log_self - log_sums)
        held = log_sums + np.log1p(-np.minimum(share, 1.0))
    faint = np.flatnonzero(~(share <= (FAINT_BINNED if binned else FAINT_EXACT)))
    if faint.size:
        held[faint] = _without_copies(X, faint, group, kernel, h, np.log(w))
    held -= np.log1p(-own)
    return float(np.dot(w, held))


def _without_copies(X, rows, group, kernel: Kernel, h: float, log_w) -> np.ndarray:
    """log sum_{j not a copy of i} w_j K_h(x_i - x_j) for the given rows, exactly."""
    out = np.empty(len(rows))
    step = max(1, _CHUNK // len(X))
    for start in range(0, len(rows), step):
        idx = rows[start : start + step]
        terms = kernel.log_kernel_sq(cdist(X[idx], X, "sqeuclidean"), h, X.shape[1]) + log_w
        terms[group[idx][:, None] == group[None, :]] = -np.inf
        out[start : start + step] = logsumexp(terms, axis=1)
    return out


def _distinct_reach(X: np.ndarray) -> float:
    """The largest distance from a row to its nearest row that is not a copy of it."""
    distinct = np.unique(X, axis=0)
    return float(cKDTree(distinct).query(distinct, k=2)[0][:, 1].max())


def cv_bandwidth(
    X: np.ndarray,
    kernel: Kernel,
    base: float,
    weights: np.ndarray | None = None,
) -> float:
    """The bandwidth of best leave-one-out likelihood (ties left out together): the "cv" rule.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data, with at least two distinct rows.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    base : float
        The reference bandwidth (Scott's): the search starts there and stays within 0.02 to
        2 times it (above the reach of a compact kernel, Notes).
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal).

    Returns
    -------
    h : float
        The maximiser of :func:`loo_scores`, to a relative 1 %.

    Raises
    ------
    ValueError
        When no bandwidth has a finite score.

    Warns
    -----
    UserWarning
        When the smallest bandwidth of the range wins (near-ties: values that differ only in
        their last digits).

    See Also
    --------
    select_bandwidth : ``bandwidth="cv"``, in a frame safe at any magnitude.
    kfold_cv_bandwidth : the former "cv" rule (shuffled 5-fold, a grid of 25).

    Notes
    -----
    Deterministic: from ``base`` the search steps by sqrt(2) up or down while the score
    rises, then refines inside the last bracket (Brent's bounded method, to 1 % of h), about
    12 evaluations. In d > 1 above 5,000 rows (``CV_MAX_SAMPLES``) it runs on 5,000 rows drawn
    with a fixed seed and rescales h by (m / n)^(1 / (d + 4)), the optimal bandwidth's rate.
    With a compact kernel the range starts just above the largest distance from a row to its
    nearest distinct row, so every bandwidth searched has a finite score.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import cv_bandwidth, scott
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> h = cv_bandwidth(X, get_kernel("gaussian"), scott(X))
    >>> h == cv_bandwidth(X, get_kernel("gaussian"), scott(X))  # the same rows, the same h
    True

    Counts: the copies of a value do not vote for it, so h spans the gaps between values.

    >>> counts = np.random.default_rng(0).poisson(3.0, (500, 1)).astype(float)
    >>> bool(0.3 < cv_bandwidth(counts, get_kernel("gaussian"), scott(counts)) < 1.5)
    True
    """
    n, d = X.shape
    if d > 1 and n > CV_MAX_SAMPLES:  # on a fixed subsample, h rescaled to n (Notes)
        rows = np.sort(np.random.default_rng(SUBSAMPLE_SEED).choice(n, CV_MAX_SAMPLES, False))
        kept = None if weights is None else weights[rows] / weights[rows].sum()
        factor = (n / CV_MAX_SAMPLES) ** (1.0 / (d + 4))
        return cv_bandwidth(X[rows], kernel, base * factor, kept) / factor
    group = tie_groups(X)
    lo, hi = np.log(CV_GRID_SPAN[0] * base), np.log(CV_GRID_SPAN[1] * base)
    if kernel.compact:
        lo = max(lo, np.log(_distinct_reach(X)) + 1e-6)
        hi = max(hi, lo + np.log(LOO_STEP))
    memo: dict[float, float] = {}

    def loss(t: float) -> float:
        if t not in memo:
            value = _score(X, kernel, float(np.exp(t)), weights, group)
            memo[t] = -value if np.isfinite(value) else np.inf
        return memo[t]

    step = np.log(LOO_STEP)
    t = float(np.clip(np.log(base), lo, hi))
    way = -step if loss(max(t - step, lo)) <= loss(t) else step
    while (nxt := float(np.clip(t + way, lo, hi))) != t and loss(nxt) <= loss(t):
        t = nxt
    if not np.isfinite(loss(t)):
        raise ValueError(
            "bandwidth='cv' found no bandwidth with a finite leave-one-out "
            "likelihood; pass a positive number instead"
        )
    a, b = max(t - step, lo), min(t + step, hi)
    best = minimize_scalar(loss, bounds=(a, b), method="bounded", options={"xatol": LOO_XATOL})
    t_best = float(best.x) if best.fun <= loss(t) else t
    # on a grid of LOO_XATOL / 4 from log(base): data at any magnitude (a frame whose base
    # differs in its last bits) and another BLAS give the same h
    snap = LOO_XATOL / 4
    t_best = float(np.clip(np.log(base) + np.round((t_best - np.log(base)) / snap) * snap, lo, hi))
    if t_best - lo < LOO_XATOL and lo == np.log(CV_GRID_SPAN[0] * base):
        warnings.warn(
            f"bandwidth='cv' picked the smallest bandwidth searched ({np.exp(t_best):.3g}): "
            "the leave-one-out likelihood keeps growing as h shrinks, as it does with "
            "near-repeated values; consider bandwidth='scott' or a number",
            UserWarning,
            stacklevel=4,
        )
    return float(np.exp(t_best))
