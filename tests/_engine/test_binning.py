"""The compiled binning (momkde_core.binning) against direct numpy scatter-adds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momkde_core._engine._binning import bin_blocks


def _blocks(rng, n_blocks):
    sizes = rng.integers(0, 40, n_blocks)
    return np.r_[0, np.cumsum(sizes)]


def _reference(X, bounds, w, steps, origins, sizes, order):
    """np.add.at of every point's contributions, one point at a time in spirit."""
    d = X.shape[1]
    moments = 1 if order is None else order + 1
    out = np.zeros((len(bounds) - 1, moments, *sizes))
    shift = 0.0 if order is None else 0.5
    tops = [s if order is not None else s - 1 for s in sizes]
    block_of = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    # (the same floating-point operations as the kernels: a point on a cell's edge goes to
    # the same cell)
    pos = [X[:, k] * (1.0 / steps[k]) + (shift - origins[k] / steps[k]) for k in range(d)]
    inside = np.logical_and.reduce([(p >= 0) & (p < t) for p, t in zip(pos, tops)])
    cells = [np.floor(p[inside]).astype(int) for p in pos]
    fracs = [p[inside] - c for p, c in zip(pos, cells)]
    wi, bi = w[inside], block_of[inside]
    if order is not None:
        t = fracs[0] - 0.5
        for j in range(order + 1):
            np.add.at(out, (bi, j, cells[0]), wi * t**j)
    elif d == 1:
        np.add.at(out, (bi, 0, cells[0]), wi * (1 - fracs[0]))
        np.add.at(out, (bi, 0, cells[0] + 1), wi * fracs[0])
    else:
        for dx in (0, 1):
            for dy in (0, 1):
                share = (fracs[0] if dx else 1 - fracs[0]) * (fracs[1] if dy else 1 - fracs[1])
                np.add.at(out, (bi, 0, cells[0] + dx, cells[1] + dy), wi * share)
    return out


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    d=st.sampled_from([1, 2]),
    n_blocks=st.integers(1, 6),
    taylor=st.booleans(),
    spread=st.floats(0.5, 20.0),
)
def test_binning_matches_direct_scatter_adds(seed, d, n_blocks, taylor, spread):
    """Moments and linear shares per block equal a direct np.add.at, points beyond the grid
    (the data spread past it on purpose) left out, empty blocks all zero."""
    if taylor and d == 2:
        d = 1
    rng = np.random.default_rng(seed)
    bounds = _blocks(rng, n_blocks)
    X = rng.normal(0.0, spread, (bounds[-1], d))
    w = rng.uniform(0.0, 3.0, bounds[-1])
    sizes = [int(s) for s in rng.integers(8, 60, d)]
    steps = [float(s) for s in rng.uniform(0.05, 0.5, d)]
    origins = [float(o) for o in rng.uniform(-6.0, -1.0, d)]
    order = 3 if taylor else None
    left_out = np.full(n_blocks, -1)
    got = bin_blocks(X, bounds, w, steps, origins, sizes, order, left_out)
    want = _reference(X, bounds, w, steps, origins, sizes, order)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the same pass counts each block's points left out
    shift = 0.0 if order is None else 0.5
    tops = [z if order is not None else z - 1 for z in sizes]
    pos = [X[:, k] * (1.0 / steps[k]) + (shift - origins[k] / steps[k]) for k in range(d)]
    out_of_grid = ~np.logical_and.reduce([(p >= 0) & (p < t) for p, t in zip(pos, tops)])
    np.testing.assert_array_equal(
        left_out, [out_of_grid[bounds[s] : bounds[s + 1]].sum() for s in range(n_blocks)]
    )


def test_taylor_moments_are_refused_in_two_dimensions():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="1-D only"):
        bin_blocks(X, np.array([0, 3]), np.ones(3), [0.1, 0.1], [-1.0, -1.0], [20, 20], 3)


def test_total_weight_is_kept_for_points_inside_the_grid():
    """Linear shares and the zeroth Taylor moment each add up to the weight of the points
    inside (mass is conserved, as the FFT convolution relies on)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (5000, 2))
    w = rng.uniform(0.5, 1.5, 5000)
    bounds = np.array([0, 2000, 5000])
    lin = bin_blocks(X, bounds, w, [0.05, 0.07], [-1.2, -1.3], [50, 40], None)
    np.testing.assert_allclose(
        lin.sum(axis=(1, 2, 3)), [w[:2000].sum(), w[2000:].sum()], rtol=1e-12
    )
    tay = bin_blocks(X[:, :1], bounds, w, [0.05], [-1.2], [50], 3)
    np.testing.assert_allclose(tay[:, 0].sum(axis=-1), [w[:2000].sum(), w[2000:].sum()], rtol=1e-12)


def test_non_finite_coordinates_never_become_an_index():
    """NaN and infinite coordinates (refused by the estimators before they get here) are left
    out, never cast to a cell index out of the array."""
    X = np.array([[np.nan, 0.0], [0.5, 0.5], [np.inf, 0.1], [0.2, -np.inf]])
    got = bin_blocks(X, np.array([0, 4]), np.ones(4), [0.1, 0.1], [0.0, 0.0], [11, 11], None)
    assert got.sum() == 1.0 and got[0, 0, 5, 5] == 1.0
    one = bin_blocks(X[:, :1], np.array([0, 4]), np.ones(4), [0.1], [0.0], [11], 3)
    assert one[0, 0].sum() == 2.0  # 0.5 and 0.2


@pytest.mark.parametrize(
    "bounds, w, sizes",
    [
        (np.array([0, 10]), np.ones(3), [20]),  # bounds beyond the rows
        (np.array([0, 2, 1]), np.ones(3), [20]),  # decreasing bounds
        (np.array([0, 3]), np.ones(2), [20]),  # a weight missing
        (np.array([0, 3]), np.ones(3), [20, 20]),  # a size per feature, not two
    ],
)
def test_a_wrong_layout_is_a_value_error_not_a_read_past_the_arrays(bounds, w, sizes):
    with pytest.raises(ValueError, match="bin_blocks needs"):
        bin_blocks(np.zeros((3, 1)), bounds, w, [0.1] * len(sizes), [0.0] * len(sizes), sizes, None)


@pytest.mark.parametrize("d, order", [(1, 3), (1, None), (2, None)])
def test_padded_binning_is_the_grid_followed_by_zeros(d, order):
    """Binned into arrays of the FFT lengths: the grid's cells as without padding, zeros
    beyond; a padded shape smaller than the grid is refused."""
    rng = np.random.default_rng(8)
    X = rng.normal(0, 1, (500, d))
    bounds, w = np.array([0, 200, 500]), rng.uniform(0.5, 1.5, 500)
    steps, origins, sizes = [0.1] * d, [-2.0] * d, [41] * d
    plain = bin_blocks(X, bounds, w, steps, origins, sizes, order)
    padded = bin_blocks(X, bounds, w, steps, origins, sizes, order, padded=[64] * d)
    assert padded.shape == plain.shape[:2] + (64,) * d
    inside = (slice(None), slice(None)) + (slice(0, 41),) * d
    # (the same compiled pass adds the same shares in the same order: to the bit)
    np.testing.assert_array_equal(padded[inside], plain)
    rest = padded.copy()
    rest[inside] = 0.0
    assert not rest.any()
    with pytest.raises(ValueError, match="padded"):
        bin_blocks(X, bounds, w, steps, origins, sizes, order, padded=[40] * d)
