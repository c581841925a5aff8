"""Distances between two densities sampled on one evenly spaced grid, and the anomaly AUC.

``p`` and ``q`` are density values at the nodes of one evenly spaced grid (any shape, e.g.
(len(xs),) or (len(xs), len(ys)), the same for both) and ``cell`` is the volume of one grid
cell (dx, or dx * dy), so that an integral is ``sum(values) * cell``.

Divergences (KL, JS) first renormalise p and q to integrate to 1 on the grid. They are
defined between probability densities only, and the inputs seldom are: an estimator is
evaluated on a truncated grid (mass in the tails is cut off), its Riemann sum is not exactly
its integral, and the median of MoM-KDE is not normalised at all. Without renormalising,
KL(p || q) could even be negative. After renormalising, the integrals are those of two
discrete distributions (the cell probabilities) and ``cell`` cancels out of KL and JS: it
is validated and kept in the signature so that every metric is called the same way.
The norms (L1, Linf) compare the functions as given, so that mass an estimator loses or
gains counts as error.

Zeros: 0 * log(0 / q) = 0; p > 0 where q = 0 makes KL(p || q) = +inf (returned as ``np.inf``,
without a warning). JS is always finite, because its reference m = (p + q) / 2 is positive
wherever p or q is. Negative, NaN or infinite values raise ValueError, and so does an
all-zero density (nothing to renormalise).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import rel_entr
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score


def kl_divergence(p: ArrayLike, q: ArrayLike, cell: float) -> float:
    """Kullback-Leibler divergence KL(p || q) = int p log(p / q), natural log, in [0, +inf].

    p and q are first renormalised to integrate to 1 on the grid (module docstring).

    Parameters
    ----------
    p, q : array-like
        Density values at the nodes of one evenly spaced grid (any shape, the same for
        both): finite and non-negative, not zero everywhere.
    cell : float
        The volume of one grid cell (dx, or dx * dy), a finite number > 0. It cancels out
        after the renormalisation; it is validated and kept so that every metric is called
        the same way.

    Returns
    -------
    kl : float
        KL(p || q) in nats; ``np.inf`` (without a warning) where p > 0 and q = 0 at some node.
        0 log(0 / q) counts 0.

    Raises
    ------
    ValueError
        When p and q differ in shape or are empty, hold negative, NaN or infinite values,
        when one is zero everywhere (nothing to renormalise), or when ``cell`` is not a
        finite number > 0.

    See Also
    --------
    js_divergence : A symmetric, bounded divergence.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import metrics
    >>> xs = np.linspace(-8, 8, 1601)  # cells of width 0.01
    >>> p, q = norm.pdf(xs), norm.pdf(xs, loc=1.0)
    >>> round(metrics.kl_divergence(p, q, 0.01), 2)  # KL(N(0, 1) || N(1, 1)) = 1/2
    0.5
    >>> metrics.kl_divergence(xs < 0, xs > 0, 0.01)  # disjoint supports
    inf
    """
    p_n, q_n = _probabilities(p, q, cell)
    return float(rel_entr(p_n, q_n).sum())


def js_divergence(p: ArrayLike, q: ArrayLike, cell: float) -> float:
    """Jensen-Shannon divergence in base 2, in [0, 1]: the paper's D_JS.

    ``D_JS = (KL(p || m) + KL(q || m)) / 2`` with ``m = (p + q) / 2``, after p and q are
    renormalised to integrate to 1 on the grid; 0 iff p = q, 1 iff the supports are
    disjoint. Always finite, because m is positive wherever p or q is.

    Parameters
    ----------
    p, q : array-like
        Density values at the nodes of one evenly spaced grid (any shape, the same for
        both): finite and non-negative, not zero everywhere.
    cell : float
        The volume of one grid cell (dx, or dx * dy), a finite number > 0. It cancels out
        after the renormalisation; it is validated and kept so that every metric is called
        the same way.

    Returns
    -------
    js : float
        The divergence in bits, in [0, 1].

    Raises
    ------
    ValueError
        When p and q differ in shape or are empty, hold negative, NaN or infinite values,
        when one is zero everywhere (nothing to renormalise), or when ``cell`` is not a
        finite number > 0.

    See Also
    --------
    js_distance : The square root of the natural-log divergence.
    kl_divergence : The Kullback-Leibler divergence.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import metrics
    >>> xs = np.linspace(-8, 8, 1601)  # cells of width 0.01
    >>> p, q = norm.pdf(xs), norm.pdf(xs, loc=1.0)
    >>> round(metrics.js_divergence(p, q, 0.01), 2)
    0.16
    >>> metrics.js_divergence(p, p, 0.01), metrics.js_divergence(xs < 0, xs > 0, 0.01)
    (0.0, 1.0)
    """
    return min(_js_natural(p, q, cell) / math.log(2.0), 1.0)


def js_distance(p: ArrayLike, q: ArrayLike, cell: float) -> float:
    """Square root of the natural-log Jensen-Shannon divergence, in [0, sqrt(log 2)].

    What ``scipy.spatial.distance.jensenshannon`` returns and what the authors' published
    figures plot under the name D_JS; reported next to :func:`js_divergence` to compare.

    Parameters
    ----------
    p, q : array-like
        Density values at the nodes of one evenly spaced grid (any shape, the same for
        both): finite and non-negative, not zero everywhere.
    cell : float
        The volume of one grid cell (dx, or dx * dy), a finite number > 0. It cancels out
        after the renormalisation; it is validated and kept so that every metric is called
        the same way.

    Returns
    -------
    distance : float
        The Jensen-Shannon distance (natural log), in [0, sqrt(log 2)].

    Raises
    ------
    ValueError
        When p and q differ in shape or are empty, hold negative, NaN or infinite values,
        when one is zero everywhere (nothing to renormalise), or when ``cell`` is not a
        finite number > 0.

    See Also
    --------
    js_divergence : The paper's D_JS (base 2, not square-rooted).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import metrics
    >>> xs = np.linspace(-8, 8, 1601)  # cells of width 0.01
    >>> p, q = norm.pdf(xs), norm.pdf(xs, loc=1.0)
    >>> round(metrics.js_distance(p, q, 0.01), 2)
    0.33
    >>> from scipy.spatial.distance import jensenshannon
    >>> bool(np.isclose(metrics.js_distance(p, q, 0.01), jensenshannon(p, q)))
    True
    """
    return math.sqrt(_js_natural(p, q, cell))


def l1_distance(p: ArrayLike, q: ArrayLike, cell: float) -> float:
    """L1 distance int |p - q| of the densities as given (not renormalised).

    Mass an estimator loses or gains counts as error. The integral is the Riemann sum
    ``sum(|p - q|) * cell``.

    Parameters
    ----------
    p, q : array-like
        Density values at the nodes of one evenly spaced grid (any shape, the same for
        both): finite and non-negative.
    cell : float
        The volume of one grid cell (dx, or dx * dy), a finite number > 0.

    Returns
    -------
    l1 : float
        The L1 distance, in [0, int p + int q].

    Raises
    ------
    ValueError
        When p and q differ in shape or are empty, hold negative, NaN or infinite values,
        or when ``cell`` is not a finite number > 0.

    See Also
    --------
    linf_distance : The sup distance.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import metrics
    >>> xs = np.linspace(-8, 8, 1601)  # cells of width 0.01
    >>> p, q = norm.pdf(xs), norm.pdf(xs, loc=1.0)
    >>> round(metrics.l1_distance(p, q, 0.01), 2)
    0.77
    >>> round(metrics.l1_distance(p, 0.5 * p, 0.01), 2)  # half the mass lost
    0.5
    """
    _check_cell(cell)
    p_a, q_a = _checked_pair(p, q)
    return float(np.abs(p_a - q_a).sum() * cell)


def linf_distance(p: ArrayLike, q: ArrayLike) -> float:
    """Sup distance max |p - q| over the grid nodes, of the densities as given.

    Parameters
    ----------
    p, q : array-like
        Density values at the nodes of one grid (any shape, the same for both): finite and
        non-negative.

    Returns
    -------
    linf : float
        The largest absolute difference at a node.

    Raises
    ------
    ValueError
        When p and q differ in shape or are empty, or hold negative, NaN or infinite
        values.

    See Also
    --------
    l1_distance : The L1 distance.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import metrics
    >>> xs = np.linspace(-8, 8, 1601)  # cells of width 0.01
    >>> p, q = norm.pdf(xs), norm.pdf(xs, loc=1.0)
    >>> round(metrics.linf_distance(p, q), 2)
    0.22
    """
    p_a, q_a = _checked_pair(p, q)
    return float(np.abs(p_a - q_a).max())


def auc(scores: ArrayLike, is_outlier: ArrayLike) -> float:
    """ROC AUC of a density used as an anomaly score: the lower the density, the more abnormal.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Densities or log densities (any increasing transform gives the same AUC; 0 and -inf
        are fine).
    is_outlier : array-like of shape (n,)
        Boolean (or 0/1), True for outliers.

    Returns
    -------
    auc : float
        In [0, 1]: 1 means every outlier has a lower score than every inlier, 0.5 is chance;
        ties count one half.

    Raises
    ------
    ValueError
        For NaN scores, mismatched lengths, labels other than 0/1, or when only one class is
        present (the AUC is then undefined).

    See Also
    --------
    sklearn.metrics.roc_auc_score : The AUC computed here on the negated ranks of the scores.

    Examples
    --------
    >>> from momkde_core import metrics
    >>> metrics.auc([0.1, 0.2, 3.0, 2.5], [True, True, False, False])
    1.0
    >>> metrics.auc([0.1, 0.2, 3.0, 2.5], [0, 1, 1, 0])
    0.25
    >>> metrics.auc([float("-inf"), 1.0, 1.0], [1, 1, 0])  # a tie counts one half
    0.75
    """
    s = np.asarray(scores, dtype=float).ravel()
    labels = np.asarray(is_outlier).ravel()
    if s.shape != labels.shape:
        raise ValueError(
            f"scores and is_outlier must have the same length, got {s.size} and {labels.size}"
        )
    if np.isnan(s).any():
        raise ValueError(f"scores contain {int(np.isnan(s).sum())} NaN value(s)")
    if labels.dtype != bool:
        if not np.isin(labels, (0, 1)).all():
            raise ValueError("is_outlier must be boolean or 0/1")
        labels = labels.astype(bool)
    if labels.all() or not labels.any():
        raise ValueError("AUC needs both outliers and inliers, but only one class is present")
    # Ranks keep the order (and ties) and are finite even where the log density is -inf.
    return float(roc_auc_score(labels, -rankdata(s)))


def _js_natural(p: ArrayLike, q: ArrayLike, cell: float) -> float:
    """Jensen-Shannon divergence in nats, clipped at 0 against rounding."""
    p_n, q_n = _probabilities(p, q, cell)
    m = 0.5 * p_n + 0.5 * q_n
    # halving the smallest subnormal gives 0: where m underflowed, p and q are below 1e-323
    # and their terms (bounded by p log 2) are 0 to double precision, not inf
    terms = np.where(m > 0, rel_entr(p_n, m) + rel_entr(q_n, m), 0.0)
    return max(0.5 * float(terms.sum()), 0.0)


def _probabilities(
    p: ArrayLike, q: ArrayLike, cell: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Validated p and q as the cell probabilities of their renormalised densities (each sums to 1).

    The renormalised density is ``P / cell``; KL and JS of the densities equal those of the
    discrete distributions P and Q, so working with P and Q avoids dividing by ``cell``.
    Dividing by the maximum first keeps the sum finite and non-zero even for values near the
    float limits (overflow or subnormal underflow).
    """
    _check_cell(cell)
    pair = _checked_pair(p, q)
    probabilities = []
    for name, values in zip("pq", pair, strict=True):
        if not values.any():
            raise ValueError(
                f"{name} is zero everywhere on the grid: it cannot be normalised to a density"
            )
        scaled = values / values.max()
        probabilities.append(scaled / scaled.sum())
    return probabilities[0], probabilities[1]


def _checked_pair(p: ArrayLike, q: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """p and q as float arrays of one non-empty shape, finite and non-negative; else ValueError."""
    p_a = np.asarray(p, dtype=float)
    q_a = np.asarray(q, dtype=float)
    if p_a.shape != q_a.shape:
        raise ValueError(
            f"p and q must be sampled on the same grid, got shapes {p_a.shape} and {q_a.shape}"
        )
    if p_a.size == 0:
        raise ValueError("p and q are empty")
    for name, values in (("p", p_a), ("q", q_a)):
        if not np.isfinite(values).all():
            raise ValueError(f"{name} contains NaN or infinite values")
        if (values < 0).any():
            raise ValueError(
                f"{name} contains negative values (min {values.min():g}); densities are >= 0"
            )
    return p_a, q_a


def _check_cell(cell: float) -> None:
    """The cell volume must be a finite positive number."""
    if (
        isinstance(cell, bool)
        or not isinstance(cell, numbers.Real)
        or not (math.isfinite(cell) and cell > 0)
    ):
        raise ValueError(
            f"cell (the volume of one grid cell) must be a finite number > 0, got {cell!r}"
        )
