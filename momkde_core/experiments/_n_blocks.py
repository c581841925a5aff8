"""MoM-KDE's number of blocks S in the experiments: the oracle's grid, the label-free rule,
and the block-aware bandwidth.

Choosing S
----------
Oracle (the paper's): S in ``oracle_grid(|O|, n)``, 20 values on a regular grid from 1 to
2|O| + 1 (capped at n), keeping the lowest JS divergence to the true density. Real data have no
true density: there the oracle keeps the best AUC (it reads the labels).

Rule (:func:`select_n_blocks`, "held-out median likelihood"): split the sample in two halves A
and B at random, fit MoM-KDE on A for each S in a geometric grid from 1 to |A| / 2, and keep the
S whose density gives the largest *median* log-likelihood on B; S is then scaled by n / |A|
(twice as many points hold twice as many outliers, hence twice as many blocks). Why the
median: a mean held-out likelihood rewards the estimator that fits the held-out outliers too,
so it prefers the KDE (S = 1); the median over B is the likelihood of a typical point, an
inlier as long as the ratio is below 1/2, and it drops both when outliers take probability mass
away from the inliers (small S) and when blocks get too small to estimate anything (large S):
the bias-variance trade-off that S is about. It uses neither the labels nor the true density.

Block-aware bandwidth (opt-in methods ``mom_kde_blockh`` and ``mom_kde_oracle_blockh``)
----------------------------------------------------------------------------------------
With one bandwidth for all blocks, each block KDE is built from n / S points with a bandwidth
chosen for n: too small, so the blocks (and their median) get noisier as S grows, and the
oracle ends up at S = 1 on the spiky schemes. The paper's rate for MoM-KDE,
h ~ (S log n / n)^(1 / (2 alpha + d)), is the KDE rate for a sample of n / S points. With
alpha = 2 (second-order kernel, smooth density) this gives, from the CV bandwidth h of the full
sample, :func:`block_bandwidth` h_S = h * S^(1 / (4 + d)) (S = 1 gives h back). The same two S
rules are applied with h_S in place of h.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..estimators import MoMKDE

ORACLE_GRID_SIZE = 20
RULE_GRID_SIZE = 10


def oracle_grid(n_outliers: int, n: int, size: int = ORACLE_GRID_SIZE) -> np.ndarray:
    """The paper's candidates for S: ``size`` values regularly spaced on [1, 2|O| + 1], <= n.

    Parameters
    ----------
    n_outliers : int
        |O|, the number of outliers in the sample.
    n : int
        The sample size (the cap).
    size : int, default 20
        The number of values before rounding.

    Returns
    -------
    candidates : ndarray of int
        The distinct rounded values, increasing (fewer than ``size`` when rounding merges
        some).

    See Also
    --------
    select_n_blocks : S without the oracle.

    Examples
    --------
    >>> from momkde_core.experiments import oracle_grid
    >>> grid = oracle_grid(50, 1000)
    >>> len(grid), int(grid[0]), int(grid[-1])
    (20, 1, 101)
    >>> oracle_grid(3, 5).tolist()
    [1, 2, 3, 4, 5]
    """
    top = min(2 * n_outliers + 1, n)
    return np.unique(np.round(np.linspace(1, top, size)).astype(int))


def block_bandwidth(h: float, n_blocks: int, dim: int) -> float:
    """h_S = h * S^(1/(4+d)): the bandwidth for blocks of n/S points, from h chosen for n.

    The paper's rate for MoM-KDE, h ~ (S log n / n)^(1 / (2 alpha + d)), is the KDE rate for a
    sample of n / S points; with alpha = 2 (second-order kernel, smooth density) it gives
    this factor (S = 1 gives h back).

    Parameters
    ----------
    h : float
        The bandwidth chosen for the whole sample.
    n_blocks : int
        S.
    dim : int
        d.

    Returns
    -------
    h_S : float
        The block-aware bandwidth.

    Examples
    --------
    >>> from momkde_core.experiments import block_bandwidth
    >>> block_bandwidth(0.5, 1, 1), block_bandwidth(0.5, 32, 1)
    (0.5, 1.0)
    """
    return float(h * n_blocks ** (1.0 / (4 + dim)))


def select_n_blocks(
    X: np.ndarray,
    bandwidth: float | Callable[[int], float],
    random_state: int,
    size: int = RULE_GRID_SIZE,
) -> int:
    """S by the held-out median likelihood; needs no label, no true density.

    Split the sample in two halves A and B at random, fit MoM-KDE on A for each S in a
    geometric grid from 1 to |A| / 2, and keep the S whose density gives the largest
    *median* log-likelihood on B; S is then scaled by n / |A| (twice as many points hold
    twice as many outliers, hence twice as many blocks).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The sample.
    bandwidth : float or callable
        The bandwidth, or a function of S (the block-aware bandwidth, :func:`block_bandwidth`).
    random_state : int
        The split and the blocks.
    size : int, default 10
        The number of candidates before rounding.

    Returns
    -------
    S : int
        S for the whole of X (the best S on half the sample, times n / |A|, about 2,
        capped at len(X)).

    See Also
    --------
    oracle_grid : The oracle's candidates.

    Notes
    -----
    Why the median: a mean held-out likelihood rewards the estimator that fits the held-out
    outliers too, so it prefers the KDE (S = 1); the median over B is the likelihood of a
    typical point, an inlier as long as the ratio is below 1/2, and it drops both when
    outliers take probability mass away from the inliers (small S) and when blocks get too
    small to estimate anything (large S): the bias-variance trade-off that S is about. A
    candidate whose median of the block KDEs vanishes everywhere (too many blocks for h)
    scores -inf.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.experiments import select_n_blocks
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> S = select_n_blocks(X, 0.4, random_state=0)
    >>> isinstance(S, int), 1 <= S <= 200
    (True, True)
    """
    h_of = bandwidth if callable(bandwidth) else (lambda _s: bandwidth)
    n = len(X)
    order = np.random.default_rng(random_state).permutation(n)
    train, test = X[order[: n // 2]], X[order[n // 2 :]]
    candidates = np.unique(np.round(np.geomspace(1, max(1, len(train) // 2), size)).astype(int))
    scores = [_median_loglik(train, test, int(s), h_of(int(s)), random_state) for s in candidates]
    best = int(candidates[int(np.argmax(scores))])
    return int(min(n, round(best * n / len(train))))


def _median_loglik(
    train: np.ndarray, test: np.ndarray, n_blocks: int, h: float, random_state: int
) -> float:
    """Median log density on ``test`` of MoM-KDE fitted on ``train``; -inf when the median of
    the block KDEs vanishes everywhere (too many blocks for h: not a density)."""
    try:
        est = MoMKDE(n_blocks, h, random_state=random_state).fit(train)
    except ValueError:
        return -np.inf
    return float(np.median(est.score_samples(test)))
