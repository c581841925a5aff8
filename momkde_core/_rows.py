"""Scoring the rows of an array-like in batches: the detector's scores and thresholds are
computed over many rows at once, which MoM-KDE would otherwise hold S times over."""

from __future__ import annotations

import numpy as np

#: Rows x blocks scored per call: MoM-KDE holds its S block values for every row it scores
#: (S = 4001 and 20 000 rows: 640 MB of float64 at once; in batches, 32 MB whatever the rows).
BATCH_VALUES = 2**22


def batched_scores(estimator, X, score=None) -> np.ndarray:
    """``score(estimator, X)`` (None: ``estimator.score_samples(X)``) as floats, computed in
    batches of rows that keep ``n_blocks_`` (MoM-KDE's S; 1 for the others) x rows within
    :data:`BATCH_VALUES`."""
    n = n_rows(X)
    step = max(1, BATCH_VALUES // int(getattr(estimator, "n_blocks_", 1)))
    if score is None:
        score = type(estimator).score_samples
    if n <= step:
        return np.asarray(score(estimator, X), dtype=float)
    return np.concatenate(
        [
            np.asarray(score(estimator, take_rows(X, slice(lo, min(n, lo + step)))), dtype=float)
            for lo in range(0, n, step)
        ]
    )


def n_rows(X) -> int:
    """The number of rows of an array-like (its first dimension); 1 for a single value, which
    the estimator then refuses with its own message."""
    shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
    return int(shape[0]) if shape else 1


def take_rows(X, rows: np.ndarray | slice):
    """The rows of X at the positions ``rows``: a DataFrame's as a DataFrame (the estimator
    checks its feature names), any other array-like's as an array."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    return np.asarray(X)[rows]
