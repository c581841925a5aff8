"""Column-by-column reductions (momkde_core.columns) against numpy's axis-0 reductions.

Compared exactly: minima and maxima select a value and ptp subtracts two selected values,
so no summation order enters (on any machine)."""

from __future__ import annotations

import numpy as np
import pytest

from momkde_core._columns import bounding_box, per_column


@pytest.mark.parametrize("d", [1, 2, 8, 9])
@pytest.mark.parametrize("reduce", [np.min, np.max, np.ptp])
def test_the_same_values_as_axis_0(d, reduce):
    rng = np.random.default_rng(d)
    X = rng.standard_normal((1001, d)) * 10.0 ** rng.integers(-300, 300, d)
    X[5, 0] = -np.inf
    np.testing.assert_array_equal(per_column(reduce, X), reduce(X, axis=0))
    X[7, -1] = np.nan  # a NaN propagates, as numpy's does
    np.testing.assert_array_equal(per_column(reduce, X), reduce(X, axis=0))


def test_bounding_box_and_edge_shapes():
    X = np.array([[1.0, -2.0], [3.0, 5.0], [-1.0, 0.0]])
    lo, hi = bounding_box(X)
    np.testing.assert_array_equal(lo, [-1.0, -2.0])
    np.testing.assert_array_equal(hi, [3.0, 5.0])
    with pytest.raises(ValueError):  # no rows: numpy's own error, not an empty answer
        per_column(np.min, np.zeros((0, 2)))


@pytest.mark.parametrize("d", [1, 2, 9])
def test_bounding_box_skipping_nan_is_numpys_nanmin_and_nanmax(d):
    """With skip_nan a NaN row is left out (the extremes of the other rows, as nanmin and
    nanmax), a column of NaN only stays NaN; without, NaN propagates."""
    rng = np.random.default_rng(d)
    X = rng.standard_normal((500, d))
    X[[3, 17], 0] = np.nan
    lo, hi = bounding_box(X, skip_nan=True)
    np.testing.assert_array_equal(lo, np.nanmin(X, axis=0))
    np.testing.assert_array_equal(hi, np.nanmax(X, axis=0))
    assert np.isnan(bounding_box(X)[0][0]) and np.isnan(bounding_box(X)[1][0])
    X[:, -1] = np.nan
    lo, hi = bounding_box(X, skip_nan=True)
    assert np.isnan(lo[-1]) and np.isnan(hi[-1])
    if d > 1:
        np.testing.assert_array_equal(lo[:-1], np.nanmin(X[:, :-1], axis=0))
