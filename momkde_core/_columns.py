"""Reductions over the rows of a tall, narrow array, one column at a time.

numpy reduces a C-ordered (n, d) array along axis 0 row by row, in inner loops of length d:
for small d that is much slower than reducing each contiguous column in turn (from d ~ 8
on, axis 0 is as fast). Every fit and every grid takes the data's bounding box,
so the difference is a good part of a 2-D fit's time.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

NARROW = 8  # up to this many columns, one contiguous reduction per column


def per_column(reduce: Callable[..., np.ndarray], X: np.ndarray) -> np.ndarray:
    """``reduce(X, axis=0)`` for a 2-D X, column by column when X is narrow. Meant for
    order statistics (min, max, ptp): the same values either way, bit for bit."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] > NARROW or not X.shape[0]:
        return np.asarray(reduce(X, axis=0))
    return np.array([reduce(X[:, k]) for k in range(X.shape[1])])


def bounding_box(X: np.ndarray, skip_nan: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(per-column minima, per-column maxima) of a 2-D X with at least one row; a column
    holding NaN gives NaN, or with ``skip_nan`` the extremes of its other values (NaN only
    when all are). min / max, and fmin / fmax only then: they are slower."""
    lows, highs = per_column(np.min, X), per_column(np.max, X)
    if skip_nan and (np.isnan(lows).any() or np.isnan(highs).any()):
        with warnings.catch_warnings():  # (an all-NaN column: NaN, as said)
            warnings.simplefilter("ignore", RuntimeWarning)
            lows, highs = per_column(np.fmin.reduce, X), per_column(np.fmax.reduce, X)
    return lows, highs
