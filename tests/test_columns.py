"""Column-by-column reductions (momkde_core.columns) against numpy's axis-0 reductions."""

from __future__ import annotations

import numpy as np
import pytest

from momkde_core.columns import bounding_box, per_column


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
