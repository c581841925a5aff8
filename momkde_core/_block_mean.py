"""The default detector's score: the mean over MoM-KDE's blocks of their log densities.

``OutlierDetector()`` fits MoMKDE(n_blocks=21, bandwidth="scott") and scores a row by

    (1 / S) sum_s log f_s(x),

f_s the KDE of block s (its rows, the estimate's bandwidth, normalised by the block's
size): the log of the blocks' geometric mean, where MoM-KDE takes their median. It was
chosen by the rule fixed beforehand in ``benchmarks/adbench_rules.py`` (round two,
docs/anomaly.md). Why the blocks help at all: in a dozen dimensions or more the kernel sum
of all n rows is dominated by the nearest row, so the full KDE ranks like a 1-NN distance,
which a few near-duplicate anomalies fool; each block, a 1/S subsample, sees farther
neighbours. A geometric mean is pulled down by every block in which the row is rare, so a
cluster lifts it only where it sits in most blocks, as it must for the median.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .estimators._mom_kde import MoMKDE


def block_log_mean(estimator: MoMKDE, X: ArrayLike) -> np.ndarray:
    """(1 / S) sum_s log f_s(x) at the rows of X, from a fitted MoMKDE (module docstring).

    Parameters
    ----------
    estimator : MoMKDE
        Fitted.
    X : array-like of shape (m, d), or (m,) for a fit on one feature
        The rows to score, with the features of the fit.

    Returns
    -------
    scores : ndarray of shape (m,)
        The mean of the block log densities, -inf for rows beyond every kernel's reach.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import MoMKDE
    >>> X = np.random.default_rng(0).standard_normal((210, 2))
    >>> mom = MoMKDE(n_blocks=21, bandwidth="scott", random_state=0).fit(X)
    >>> scores = block_log_mean(mom, [[0.0, 0.0], [4.0, 4.0]])
    >>> bool(scores[0] > scores[1])  # the mode is more typical than the far row
    True
    """
    Y, near = estimator._check_query(X)
    return estimator._to_outer_logs(estimator._fitted.mean_block_logs(Y[near]), near)
