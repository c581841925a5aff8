"""The Gaussian axis factors by recurrence (momkde_core.axis_factors) against numpy's exp."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from momkde_core.axis_factors import ANCHOR, gaussian_axis_factors
from momkde_core.kernels import EXP_FLOOR, flushed_exp


def _direct(x, axis, h):
    return flushed_exp(-0.5 * np.square((x[:, None] - axis[None, :]) / h))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), h=st.floats(0.005, 5.0), nodes=st.integers(1, 3 * ANCHOR + 5),
       spread=st.floats(0.1, 30.0), lo=st.floats(-20.0, 5.0), width=st.floats(0.1, 40.0))
def test_factors_match_numpy_far_tails_included(seed, h, nodes, spread, lo, width):
    """Every entry within 1e-11 relative of the direct exponential where that is above
    1e-290 (the argument's own rounding, |t| |dt| with t up to 37, allows ~1e-12 either
    way), and exactly 0 where the direct value is flushed: fine axes (the recurrence,
    re-anchored every ANCHOR steps), coarse axes (delta > 1, one exponential each), one
    node, points far outside the axis."""
    rng = np.random.default_rng(seed)
    x = rng.normal(lo + width / 2, spread, 300)
    axis = np.linspace(lo, lo + width, nodes)
    got = gaussian_axis_factors(x, axis, h, EXP_FLOOR)
    ref = _direct(x, axis, h)
    assert got.shape == ref.shape
    big = ref > 1e-290
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-11, atol=0)
    assert np.all(got[ref == 0] == 0)
    assert np.all(got[~big] <= 1e-289)


def test_uneven_axis_is_left_to_the_caller():
    axis = np.array([0.0, 0.1, 0.25, 0.3])
    assert gaussian_axis_factors(np.zeros(3), axis, 0.2, EXP_FLOOR) is None


def test_long_walks_stay_accurate():
    """A fine axis of 20 000 nodes (walks of ~3 700 steps each side before the flush): the
    anchors keep the error at the direct exponential's own level."""
    x = np.random.default_rng(3).normal(0, 5, 50)
    axis = np.linspace(-40, 40, 20_000)
    got = gaussian_axis_factors(x, axis, 1.0, EXP_FLOOR)
    ref = _direct(x, axis, 1.0)
    big = ref > 1e-290
    np.testing.assert_allclose(got[big], ref[big], rtol=1e-11, atol=0)
