"""The binned product (momkde_core.binned_product): the 2-D Gaussian grid sums from linear
binning, summed at the nodes by products of axis factors instead of an FFT."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from momkde_core._engine import _binned_product as binned_product
from momkde_core._engine import _costs as costs
from momkde_core._engine import _exact_tails as tails
from momkde_core._engine import block_grid_sums, block_log_sums
from momkde_core._engine._binned_product import (
    BAND_RADIUS,
    CELLS_PER_BANDWIDTH,
    binned_product_sums,
    binning_cells,
)
from momkde_core._engine._binning import bin_blocks
from momkde_core.kernels import get_kernel

GAUSS = get_kernel("gaussian")


def _log_norm(h):
    return GAUSS.log_norm(2) + 2 * np.log(h)


def _linear_binning_reference(X, bounds, w, axes, h):
    """The same linear binning by the library's binning pass (the FFT backend's), summed
    at the nodes directly from every cell corner: what the products must equal."""
    (x0, sx, mx), (y0, sy, my) = binning_cells(X, axes, h, BAND_RADIUS * h)
    binned = bin_blocks(X, bounds, w, [sx, sy], [x0, y0], [mx, my], None)[:, 0]
    kx = np.exp(-0.5 * ((x0 + sx * np.arange(mx))[:, None] - axes[0][None, :]) ** 2 / h**2)
    ky = np.exp(-0.5 * ((y0 + sy * np.arange(my))[:, None] - axes[1][None, :]) ** 2 / h**2)
    return np.einsum("sab,ai,bj->sij", binned, kx, ky) * np.exp(-_log_norm(h))


@pytest.mark.parametrize("batch", [1, 5000, 2**21])
def test_equals_linear_binning_summed_directly(batch):
    """Weighted blocks of different sizes (one empty), in batches of one block, a few, or
    all: the products give the linearly binned sums to 1e-12 of the peak (the band's
    dropped factors are below 4e-18)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((700, 2)) * [1.0, 2.0]
    w = rng.uniform(0.2, 2.0, len(X))
    bounds = np.array([0, 100, 100, 450, 700])
    axes = [np.linspace(-6, 6, 45), np.linspace(-10, 9, 38)]
    ref = _linear_binning_reference(X, bounds, w, axes, 0.4)
    got = binned_product_sums(X, bounds, axes, 0.4, w, _log_norm(0.4), max_elements=batch)
    assert got.shape == (4, 45, 38)
    assert np.max(np.abs(got - ref)) <= 1e-12 * ref.max()
    assert not got[1].any()


@pytest.mark.parametrize("chunk", [1, 7, 16, 10**6])
def test_runs_of_nodes_each_over_their_band_of_cells_equal_the_whole_product(monkeypatch, chunk):
    """The products by runs of NODE_CHUNK nodes of x, each over the cells within its
    reach, give the linearly binned sums (to 1e-12 of the peak) on a grid that reaches far
    beyond the data on one side, where whole runs of nodes have no cell within reach (0)."""
    monkeypatch.setattr(binned_product, "NODE_CHUNK", chunk)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((600, 2))
    w = rng.uniform(0.2, 2.0, len(X))
    bounds = np.array([0, 250, 600])
    axes = [np.linspace(-5, 40, 91), np.linspace(-4, 4, 17)]
    ref = _linear_binning_reference(X, bounds, w, axes, 0.3)
    got = binned_product_sums(X, bounds, axes, 0.3, w, _log_norm(0.3))
    assert np.max(np.abs(got - ref)) <= 1e-12 * ref.max()
    beyond = axes[0] > X[:, 0].max() + BAND_RADIUS * 0.3 + 0.1
    assert beyond.sum() > 40 and not got[:, beyond].any()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    h=st.floats(0.05, 3.0),
    n=st.integers(1, 300),
    nodes=st.integers(2, 40),
    spread=st.floats(0.01, 50.0),
)
def test_within_binning_error_of_the_exact_sums(seed, h, n, nodes, spread):
    """Against the exact sums (log space, all pairs): within (1/16)^2 / 4 of the peak (one
    kernel's), the linear binning's error in the plane, whatever the data's spread next to
    h and the grid."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2)) * spread
    axes = [np.linspace(X[:, k].min() - 5 * h, X[:, k].max() + 5 * h, nodes) for k in (0, 1)]
    bounds = np.array([0, n // 2, n])
    mesh = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    ref = np.exp(block_log_sums(X, bounds, mesh, GAUSS, h)).reshape(2, nodes, nodes)
    got = binned_product_sums(X, bounds, axes, h, np.ones(n), _log_norm(h))
    peak = np.exp(-_log_norm(h)) * np.diff(bounds).max()
    assert np.all(got >= 0)
    assert np.max(np.abs(got - ref)) <= (1 / CELLS_PER_BANDWIDTH) ** 2 / 4 * peak


def test_points_beyond_reach_and_nan_are_left_out():
    """A point farther than the band from every node adds nothing (the cells are clipped to
    the band around the mesh: these points past its upper ends leave the origin as it
    was); so does a NaN row (the estimators refuse NaN; the engine must not write out of
    bounds on one)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 2))
    axes = [np.linspace(-3, 3, 30), np.linspace(-3, 3, 31)]
    base = binned_product_sums(X, np.array([0, 200]), axes, 0.3, np.ones(200), _log_norm(0.3))
    extra = np.r_[X, [[1e6, 0.0], [0.0, 1e9], [np.nan, 0.0]]]
    got = binned_product_sums(extra, np.array([0, 203]), axes, 0.3, np.ones(203), _log_norm(0.3))
    # The same terms, but not the same bits: the far points widen the cells to the band's
    # end, so the products K_x^T G run over other shapes, which BLAS may block into other
    # summation orders (bit-identical with OpenBLAS's SkylakeX kernels, 385 of 930 entries
    # 1 ulp off with its Haswell ones). Every term is positive, so any order of a sum over
    # c cells is within (c - 1) u of the value: twice that (either side) relative.
    cells = binning_cells(extra, axes, 0.3, BAND_RADIUS * 0.3)[0][2]
    assert cells > binning_cells(X, axes, 0.3, BAND_RADIUS * 0.3)[0][2]  # (other shapes)
    np.testing.assert_allclose(got, base, rtol=2 * cells * np.finfo(float).eps, atol=0)
    far = binned_product_sums(
        X + 100.0, np.array([0, 200]), axes, 0.3, np.ones(200), _log_norm(0.3)
    )
    assert far.shape == (1, 30, 31) and not far.any()


def test_unevenly_spaced_axis_factors_fall_back_to_exponentials():
    """An axis the recurrence refuses (nodes off an even step) gets direct exponentials:
    the same sums."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 2))
    even = [np.linspace(-3, 3, 25), np.linspace(-3, 3, 20)]
    bumped = [even[0].copy(), even[1]]
    bumped[0][7] += 1e-9
    a = binned_product_sums(X, np.array([0, 300]), even, 0.5, np.ones(300), _log_norm(0.5))
    b = binned_product_sums(X, np.array([0, 300]), bumped, 0.5, np.ones(300), _log_norm(0.5))
    np.testing.assert_allclose(a, b, rtol=1e-7)


def test_auto_takes_it_for_one_large_block_and_not_for_hundreds_of_tiny_ones():
    """The cost model: a KDE of many points on a plot grid goes to the binned product;
    MoM-KDE's hundreds of blocks of a few points keep the batched exact product."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20000, 2))
    axes = [np.linspace(-7, 7, 128)] * 2
    assert costs.choose_backend(X, np.array([0, 20000]), axes, GAUSS, 0.2) == "binned"
    tiny = np.linspace(0, 1000, 334).astype(int)
    assert costs.choose_backend(X[:1000], tiny, axes, GAUSS, 0.2) == "separable"


def test_exact_tails_through_block_grid_sums():
    """With exact=True the faint nodes are recomputed: 1e-6 relative where the median of
    the blocks is below 1e-7 of the peak, though the binned value is percents off there."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((4000, 2))
    h = 0.25
    axes = [np.linspace(X[:, k].min() - 15 * h, X[:, k].max() + 15 * h, 50) for k in (0, 1)]
    bounds = np.array([0, 2000, 4000])
    mesh = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    ref = np.exp(block_log_sums(X, bounds, mesh, GAUSS, h)).reshape(2, 50, 50)
    rough = block_grid_sums(X, bounds, axes, GAUSS, h, backend="binned")
    got = block_grid_sums(X, bounds, axes, GAUSS, h, backend="binned", exact=True)
    faint = tails._lower_median(ref) < 1e-8 * ref.max()
    assert faint.sum() > 300
    assert np.max(np.abs(rough[:, faint] / ref[:, faint] - 1)) > 1e-3  # binned: off there
    np.testing.assert_allclose(got[:, faint], ref[:, faint], rtol=1e-6)
    assert np.max(np.abs(got - ref)) <= 1e-3 * ref.max()


def test_no_points_give_zeros_and_a_bad_layout_is_refused():
    """No points: zeros (as the other backends), by the cost model's choice or forced; the
    compiled loop never sees bounds beyond the rows or a weight missing."""
    axes = [np.linspace(0, 1, 5), np.linspace(0, 1, 4)]
    for backend in ("auto", "binned"):
        got = block_grid_sums(np.zeros((0, 2)), np.array([0, 0]), axes, GAUSS, 0.3, backend=backend)
        assert got.shape == (1, 5, 4) and not got.any()
    X = np.zeros((1000, 2))
    with pytest.raises(ValueError, match="block bounds"):
        binned_product_sums(X, np.array([0, 10**7]), axes, 0.3, np.ones(1000), 0.0)
    with pytest.raises(ValueError, match="one weight per row"):
        binned_product_sums(X, np.array([0, 1000]), axes, 0.3, np.ones(10), 0.0)


def test_exact_tails_on_a_grid_far_beyond_the_data_price_the_underflowing_nodes():
    """Nodes beyond ~38.6 h of every point underflow and are redone in log space, per block
    and node: with exact tails the cost model keeps the exact separable product for
    MoM-KDE's 20 blocks on such a grid (the faster of the two there, by the benchmarks) and
    takes the binned product for one block; without exact tails the binned product either
    way."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((10000, 2))
    axes = [np.linspace(-12, 12, 200)] * 2
    one, twenty = np.array([0, 10000]), np.linspace(0, 10000, 21).astype(int)
    assert costs.choose_backend(X, twenty, axes, GAUSS, 0.2, exact=True) == "separable"
    assert costs.choose_backend(X, one, axes, GAUSS, 0.2, exact=True) == "binned"
    assert costs.choose_backend(X, one, axes, GAUSS, 0.2) == "binned"
    assert costs.choose_backend(X, twenty, axes, GAUSS, 0.2) == "binned"
