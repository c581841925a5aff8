"""Each feature's two-sided tail probability under its training rows' empirical distribution.

ECOD (Li et al., TKDE 2022) and COPOD (Li et al., ICDM 2020) score a row by how far into
the tails of each feature's empirical distribution it falls, summed over the features as
-log probabilities. :class:`_MarginalTails` gives that term for one feature at a time, so a
detector can add it to a log density and keep the sum additive over the features (each
feature's term is then its own Shapley value). For feature j and value x, with n training
values,

    p_j(x) = (min(#{x_ij <= x}, #{x_ij >= x}) + 1) / (n + 1),

the smaller of the left and right empirical tail probabilities, with the scored row counted
among the training rows (as PyOD's ECOD counts it by pooling them): never 0, so a value
beyond the training range gets log(1 / (n + 1)), not -inf; about log(1/2) at the median.
"""

from __future__ import annotations

import numpy as np


class _MarginalTails:
    """log p_j(x) per feature (module docstring), from the sorted training columns."""

    def fit(self, X: np.ndarray) -> _MarginalTails:
        X = np.asarray(X, dtype=float)
        self.columns_ = np.sort(X, axis=0).T  # (d, n): each feature's values, sorted
        return self

    def log_tails(self, X: np.ndarray) -> np.ndarray:
        """log p_j(x_qj) for every row q and feature j, shape (m, d)."""
        X = np.asarray(X, dtype=float)
        n = self.columns_.shape[1]
        out = np.empty(X.shape)
        for j, column in enumerate(self.columns_):
            at_most = np.searchsorted(column, X[:, j], side="right")  # #{x_ij <= x}
            at_least = n - np.searchsorted(column, X[:, j], side="left")  # #{x_ij >= x}
            out[:, j] = np.log((np.minimum(at_most, at_least) + 1.0) / (n + 1.0))
        return out
