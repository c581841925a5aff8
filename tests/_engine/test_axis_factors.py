"""The Gaussian axis factors by recurrence (momkde_core.axis_factors) against numpy's exp."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momkde_core._engine._axis_factors import ANCHOR, gaussian_axis_factors, gaussian_factors
from momkde_core.kernels import EXP_FLOOR, flushed_exp


def _direct(x, axis, h):
    return flushed_exp(-0.5 * np.square((x[:, None] - axis[None, :]) / h))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    h=st.floats(0.005, 5.0),
    nodes=st.integers(1, 3 * ANCHOR + 5),
    spread=st.floats(0.1, 30.0),
    lo=st.floats(-1000.0, 1000.0),
    width=st.floats(0.1, 40.0),
    linspace=st.booleans(),
)
def test_factors_match_numpy_far_tails_included(seed, h, nodes, spread, lo, width, linspace):
    """Every entry where the direct exponential is above 1e-290 within 1e-11 relative of it
    plus the conditioning of the direct formula (t up to 37 times the nodes' offsets from
    an even spacing, a few ulps of the coordinates or 1e-12 step, over h), and 0 where
    the direct value is flushed (but within a few ulps of the threshold, ~1e-304): fine and
    coarse axes far from 0 and near it, built by linspace or by an arange times a step,
    one node, points far outside the axis (the walks re-anchored every ANCHOR steps)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(lo + width / 2, spread, 300)
    axis = (
        np.linspace(lo, lo + width, nodes)
        if linspace or nodes == 1
        else lo + (width / (nodes - 1)) * np.arange(nodes)
    )
    got = gaussian_axis_factors(x, axis, h, EXP_FLOOR)
    if got is None:  # nodes more than 1e-12 step off an even spacing: the direct path's
        return
    ref = _direct(x, axis, h)
    assert got.shape == ref.shape
    big = ref > 1e-290
    scale = np.max(np.abs(np.r_[axis, x]))
    step = width / max(nodes - 1, 1)
    conditioning = 37 * (8 * np.spacing(scale) + 1e-12 * step) / h
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-11 + conditioning, atol=0)
    assert np.all(got[ref == 0] <= 1e-303) and np.all(ref[got == 0] <= 1e-303)
    assert np.all(got[~big] <= 1e-289)


def test_uneven_axis_is_left_to_the_caller():
    axis = np.array([0.0, 0.1, 0.25, 0.3])
    assert gaussian_axis_factors(np.zeros(3), axis, 0.2, EXP_FLOOR) is None


def test_long_walks_stay_accurate():
    """A fine axis of 20 000 nodes (walks of up to ~9 000 steps before the flush): the
    anchors keep the error at the direct exponential's own level."""
    x = np.random.default_rng(3).normal(0, 5, 50)
    axis = np.linspace(-40, 40, 20_000)
    got = gaussian_axis_factors(x, axis, 1.0, EXP_FLOOR)
    ref = _direct(x, axis, 1.0)
    big = ref > 1e-290
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-10, atol=0)


@pytest.mark.parametrize("floor", [-700.0, -40.0])
def test_gaussian_factors_by_recurrence_or_directly_agree_and_drop_below_the_floor(floor):
    """The recurrence (an evenly spaced axis) and the direct exponentials (an axis the
    recurrence refuses) both give the exact factors to 1e-9, and 0 below e^floor."""
    rng = np.random.default_rng(9)
    x = rng.uniform(-5, 5, 300)
    even = np.linspace(-6, 6, 41)
    bumped = even.copy()
    bumped[5] += 1e-9
    a, b = gaussian_factors(x, even, 0.3, floor), gaussian_factors(x, bumped, 0.3, floor)
    cut = np.exp(floor)
    for got, axis in ((a, even), (b, bumped)):
        exact = np.exp(-0.5 * ((x[:, None] - axis[None, :]) / 0.3) ** 2)
        kept = exact >= cut * 1.01
        np.testing.assert_allclose(got[kept], exact[kept], rtol=1e-9)
        assert not got[exact < cut * 0.99].any()
