"""Window sums on a line (momkde_core.tail_windows) against a direct sum per block and node."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momkde_core._engine._tail_windows import window_sums
from momkde_core.kernels import KERNELS, get_kernel


def _direct(x, w, bounds, nodes, lows, highs, kernel, h):
    out = np.zeros((len(bounds) - 1, len(nodes)))
    for s in range(len(bounds) - 1):
        xb, wb = x[bounds[s] : bounds[s + 1]], w[bounds[s] : bounds[s + 1]]
        for j, g in enumerate(nodes):
            inside = (xb >= lows[s, j]) & (xb <= highs[s, j]) & (wb > 0)
            out[s, j] = (kernel.kernel_sq(np.square(g - xb[inside]), h, 1) * wb[inside]).sum()
    return out


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kernel=st.sampled_from(sorted(KERNELS)),
    max_pairs=st.sampled_from([1, 7, 2**21]),
)
def test_window_sums_equal_the_direct_sums(seed, kernel, max_pairs):
    """Blocks of every size (empty ones too), weights with zeros, windows that overlap, nest,
    are empty (low > high) or hold a whole block; chunks of pairs down to one."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 30, rng.integers(1, 6))
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    n = int(bounds[-1])
    x = np.round(rng.normal(0, 2, n), 1)  # (ties, and points on window edges)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    nodes = np.sort(rng.uniform(-8, 8, rng.integers(1, 25)))
    centre = nodes + rng.normal(0, 0.5, (len(sizes), len(nodes)))
    width = rng.choice([-1.0, 0.0, 0.3, 2.0, 50.0], (len(sizes), len(nodes)))
    lows, highs = np.round(centre - width, 1), np.round(centre + width, 1)
    k, h = get_kernel(kernel), 0.7
    got = window_sums(x, w, bounds, nodes, lows, highs, k, h, max_pairs)
    np.testing.assert_allclose(
        got, _direct(x, w, bounds, nodes, lows, highs, k, h), rtol=1e-12, atol=1e-300
    )


def test_bad_layouts_are_refused():
    k = get_kernel("gaussian")
    x, w = np.zeros(4), np.ones(4)
    nodes, win = np.zeros(2), np.zeros((1, 2))
    with pytest.raises(ValueError, match="one weight per point"):
        window_sums(x, np.ones(3), np.array([0, 4]), nodes, win, win, k, 1.0, 10)
    with pytest.raises(ValueError, match="block bounds"):
        window_sums(x, w, np.array([0, 5]), nodes, win, win, k, 1.0, 10)
    with pytest.raises(ValueError, match="one window per block and node"):
        window_sums(x, w, np.array([0, 4]), nodes, np.zeros((2, 2)), np.zeros((2, 2)), k, 1.0, 10)
