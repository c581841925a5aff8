"""What goes into an estimator and what comes out, checked: X and the queries
(scikit-learn's ``validate_data``, with messages that say what to fix), the sample weights,
and densities within float64's range."""

from __future__ import annotations

from numbers import Number

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.validation import validate_data


def _validate_data(est: BaseEstimator, X, *, reset: bool) -> np.ndarray:
    """X as a float (n, d) array, checked by scikit-learn's ``validate_data``.

    ``reset`` (fit) sets ``n_features_in_`` and, for a DataFrame, ``feature_names_in_``;
    otherwise (scoring) another number of features, or reordered, renamed or missing columns
    raise scikit-learn's ValueError. A 1-D X is one feature. A value that is no number
    raises scikit-learn's TypeError (in an object array) or ValueError, with the shape asked
    for added; NaN and inf raise a ValueError naming the rows to fix. Fitting needs a row.
    """
    name = type(est).__name__
    expected = (
        "(n,) or (n, d)"
        if reset
        else f"(m, {est.n_features_in_}): {name} was fitted on {est.n_features_in_} feature(s)"
    )
    try:  # (ensure_2d=False leaves the feature count to us: 1-D is one feature)
        arr = validate_data(
            est,
            X,
            reset=reset,
            ensure_2d=False,
            dtype=np.float64,
            ensure_all_finite=False,
            ensure_min_samples=0,
            ensure_min_features=1,
        )
    except TypeError as err:
        raise TypeError(f"X must be a numeric array of shape {expected}: {err}") from None
    except ValueError as err:
        raise ValueError(
            f"{str(err).rstrip()} (X must be a numeric array of shape {expected})"
        ) from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"X must have shape {expected}, got {arr.ndim} dimensions")
    if reset:
        est.n_features_in_ = arr.shape[1]
    elif arr.shape[1] != est.n_features_in_:  # scikit-learn's message, and what was expected
        raise ValueError(
            f"X has {arr.shape[1]} features, but {name} is expecting "
            f"{est.n_features_in_} features as input (X must be a numeric "
            f"array of shape {expected})"
        )
    if reset and not len(arr):
        raise ValueError(f"X has 0 row(s) (shape {arr.shape}); at least 1 is needed")
    # one pass in the common case: a NaN or inf makes the sum non-finite (a sum that merely
    # overflows goes to the element-wise check, which finds nothing)
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()
    bad = np.zeros(0, dtype=bool) if np.isfinite(total) else ~np.isfinite(arr)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        kind = "NaN" if np.isnan(arr).any() else "inf"
        raise ValueError(
            f"X contains {kind} values in {len(rows)} row(s) (first: row "
            f"{rows[0]}); all values must be finite: drop or impute those rows"
        )
    return arr


def _base_measure(sample_weight, X: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(the weights of the rows with a positive weight divided by their sum, those rows as a
    boolean mask), or (None, None) without weights. Rows of weight 0 are left out of the fit
    altogether (the same fit as without them, as scikit-learn's contract asks)."""
    if sample_weight is None:
        return None, None
    w = _checked_weights(sample_weight, len(X))
    kept = w > 0
    if not kept.any():
        raise ValueError(
            "sample_weight is zero for every row: at least one weight must be positive"
        )
    return w[kept] / w[kept].sum(), kept


def _checked_weights(sample_weight, n: int) -> np.ndarray:
    """``sample_weight`` as n non-negative float64 weights: a number is every row's weight;
    an array (numbers, finite: scikit-learn's ``check_array``) must be 1-D of length n."""
    if isinstance(sample_weight, Number):
        w = np.full(n, sample_weight, dtype=np.float64)
    else:
        w = check_array(
            sample_weight, ensure_2d=False, dtype=np.float64, input_name="sample_weight"
        )
        if w.ndim != 1:
            raise ValueError(
                f"Sample weights must be 1D array or scalar, got {w.ndim}D array. Expected "
                f"either a scalar value or a 1D array of length {n}."
            )
        if w.shape != (n,):
            raise ValueError(f"sample_weight.shape == {w.shape}, expected {(n,)}!")
    if (w < 0).any():
        raise ValueError("Negative values in data passed to `sample_weight`.")
    return w


def _finite_density(values: np.ndarray) -> np.ndarray:
    """``values`` if finite; else ValueError (a density beyond float64's range)."""
    if np.isposinf(values).any():
        raise ValueError(
            "the density exceeds float64's range (~1.8e308) at some points (data "
            "of tiny spread, or a tiny bandwidth, in several dimensions): use "
            "score_samples (its log), or rescale the data"
        )
    return values
