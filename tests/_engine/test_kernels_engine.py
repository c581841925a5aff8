"""Kernels and the engine against independent references (scikit-learn, direct sums)."""

import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import logsumexp
from sklearn.datasets import load_digits
from sklearn.neighbors import KernelDensity

from momkde_core import KDE, MoMKDE, get_kernel
from momkde_core._config import chunk_elements, memo_bytes
from momkde_core._engine import _disc_pairs as disc_pairs
from momkde_core._engine import _exact_tails as tails
from momkde_core._engine import _grid_sums as grid_sums
from momkde_core._engine import _memo as memo
from momkde_core._engine import _point_sums as point_sums
from momkde_core._engine import _separable as separable
from momkde_core._engine import _threads as threads
from momkde_core._engine import block_grid_sums, block_log_sums
from momkde_core.kernels import KERNELS

ALL_KERNELS = sorted(KERNELS)


@pytest.mark.parametrize("kernel", ALL_KERNELS)
@pytest.mark.parametrize("d", [1, 2, 5])
def test_kde_matches_sklearn_kerneldensity(kernel, d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(300, d))
    Y = rng.normal(scale=1.2, size=(200, d))
    h = 0.7
    ours = KDE(bandwidth=h, kernel=kernel).fit(X).score_samples(Y)
    ref = KernelDensity(bandwidth=h, kernel=kernel).fit(X).score_samples(Y)
    # scikit-learn's tree sometimes returns ~1e-16 instead of an exact 0 for compact kernels
    both = np.isfinite(ref) & np.isfinite(ours)
    assert np.all(np.exp(ref[~both]) < 1e-12) and np.all(np.exp(ours[~both]) < 1e-12)
    if kernel == "cosine" and d == 2:
        # scikit-learn's cosine constant is wrong in 2-D (its 2-D kernel integrates to
        # 0.363, see test_kernel_integrates_to_one_in_1d_and_2d for ours): same shape only
        ratio = np.exp(ours[both] - ref[both])
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-6)
        assert not np.isclose(ratio[0], 1.0)
        return
    np.testing.assert_allclose(np.exp(ours[both]), np.exp(ref[both]), rtol=1e-8)


@pytest.mark.parametrize("kernel", ALL_KERNELS)
def test_kernel_integrates_to_one_in_1d_and_2d(kernel):
    """Riemann sums of K_h on fine grids (independent of the closed-form constants)."""
    k = get_kernel(kernel)
    h = 0.5
    reach = min(k.radius, 40.0) * h
    x = np.linspace(-reach, reach, 400_001)
    one_d = np.exp(k.log_kernel_sq(x * x, h, 1)).sum() * (x[1] - x[0])
    assert one_d == pytest.approx(1.0, abs=1e-4)
    reach2 = min(k.radius, 30.0) * h
    g = np.linspace(-reach2, reach2, 2001)
    sq = g[:, None] ** 2 + g[None, :] ** 2
    two_d = np.exp(k.log_kernel_sq(sq, h, 2)).sum() * (g[1] - g[0]) ** 2
    assert two_d == pytest.approx(1.0, abs=2e-3)


def test_unknown_kernel_message():
    with pytest.raises(ValueError, match="unknown kernel 'box'.*gaussian"):
        get_kernel("box")


def test_aliases():
    assert get_kernel("uniform") is KERNELS["tophat"]
    assert get_kernel("triangular") is KERNELS["linear"]


def _naive_block_sums(X, bounds, Y, kernel, h, weights):
    k = get_kernel(kernel)
    d = X.shape[1]
    sq = ((Y[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    vals = np.exp(k.log_kernel_sq(sq, h, d)) * weights
    return np.stack([vals[:, lo:hi].sum(1) for lo, hi in zip(bounds[:-1], bounds[1:])])


@pytest.mark.parametrize("d", [1, 3])
def test_block_log_sums_chunked_equals_naive(d):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(257, d))
    Y = rng.normal(size=(131, d))
    bounds = np.array([0, 50, 51, 120, 257])
    w = rng.random(257)
    ref = _naive_block_sums(X, bounds, Y, "gaussian", 0.4, w)
    for max_elements in (64, 5000, 2**21):  # tiny chunks split blocks across chunks
        got = np.exp(
            block_log_sums(
                X, bounds, Y, get_kernel("gaussian"), 0.4, np.log(w), max_elements=max_elements
            )
        )
        np.testing.assert_allclose(got, ref, rtol=1e-10)


@pytest.mark.filterwarnings("ignore:feature.*zero spread")  # digits' blank pixels
@pytest.mark.parametrize("bandwidth", ["scott", 2.0])
def test_digits_d64_log_density_matches_sklearn(bandwidth):
    X = load_digits().data
    est = KDE(bandwidth=bandwidth).fit(X)
    ours = est.score_samples(X)
    # "scott" is per feature: scikit-learn's isotropic KDE on each feature divided by its h,
    # times the Jacobian 1 / prod(h)
    H = np.broadcast_to(est.bandwidth_, (X.shape[1],))
    ref = KernelDensity(bandwidth=1.0).fit(X / H).score_samples(X / H) - np.log(H).sum()
    assert np.all(np.isfinite(ours))
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-6)


def test_digits_d64_never_underflows():
    """Held-out digits at h = 0.5 have log densities near -1600: exp() of them is 0.0.

    The reference is a direct log-sum-exp (scikit-learn's tree loses accuracy this far out).
    """
    X = load_digits().data
    train, query = X[300:], X[:40]
    h = 0.5
    sq = ((query[:, None, :] - train[None]) ** 2).sum(-1)
    ref = (
        logsumexp(-0.5 * sq / h**2, axis=1)
        - np.log(len(train))
        - 64 * np.log(h)
        - 32 * np.log(2 * np.pi)
    )
    assert np.any(ref < -745)
    np.testing.assert_allclose(KDE(bandwidth=h).fit(train).score_samples(query), ref, rtol=1e-12)
    mom = MoMKDE(n_blocks=9, bandwidth=h, random_state=0).fit(train).score_samples(query)
    assert np.all(np.isfinite(mom))


def test_million_points_memory_stays_bounded():
    rng = np.random.default_rng(1)
    X = rng.normal(size=1_000_000)
    est = MoMKDE(n_blocks=20, bandwidth=0.05, random_state=0, normalize=False).fit(X)
    tracemalloc.start()
    dens = est.pdf(np.linspace(-3, 3, 200))
    grid = est.pdf_grid(np.linspace(-4, 4, 1024))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # an n x m float64 matrix alone would be 1.6 GB; the chunks stay near 2 x 16 MiB
    assert peak < 200 * 2**20
    assert np.all(np.isfinite(dens)) and dens.max() == pytest.approx(0.399, abs=0.01)
    assert grid.max() == pytest.approx(0.399, abs=0.01)


def test_cv_on_a_large_2d_sample_keeps_memory_bounded():
    """Above 4000 points 2-D CV bins on a grid whose step is several small bandwidths: the
    backend must not be forced to an FFT refined ~40x per axis (a 12 GB array)."""
    X = np.random.default_rng(9).standard_normal((4001, 2))
    tracemalloc.start()
    h = KDE(bandwidth="cv", random_state=0).fit(X).bandwidth_
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.all((0.05 < h) & (h < 1.0))  # (one h per feature)
    assert peak < 400 * 2**20


@pytest.mark.parametrize("kernel", ALL_KERNELS)
def test_grid_1d_within_1e3_of_peak(kernel):
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 0.5, 400), rng.normal(6, 0.5, 400), rng.normal(3, 0.01, 60)]
    xs = np.linspace(-3, 9, 1024)
    for h in (0.05, 0.3):
        est = MoMKDE(n_blocks=11, bandwidth=h, kernel=kernel, random_state=0).fit(X)
        exact = est.pdf(xs)
        fast = est.pdf_grid(xs)
        assert np.max(np.abs(fast - exact)) <= 1e-3 * exact.max()


@pytest.mark.parametrize("backend", ["fft", "binned", "separable", "band", "exact"])
def test_grid_2d_backends_within_1e3_of_peak(backend):
    rng = np.random.default_rng(3)
    X = np.r_[rng.normal(0, 0.5, (300, 2)), rng.normal(3, 0.3, (60, 2))]
    bounds = np.array([0, 120, 240, 360])
    xs, ys = np.linspace(-3, 5, 90), np.linspace(-2.5, 4.5, 70)
    k = get_kernel("gaussian")
    mesh = np.stack([m.ravel() for m in np.meshgrid(xs, ys, indexing="ij")], axis=1)
    exact = np.exp(block_log_sums(X, bounds, mesh, k, 0.25)).reshape(3, 90, 70)
    got = block_grid_sums(X, bounds, [xs, ys], k, 0.25, backend=backend)
    assert got.shape == (3, 90, 70)
    assert np.max(np.abs(got - exact)) <= 1e-3 * exact.max()


@pytest.mark.parametrize("group", [1, 615, 10**6])
def test_separable_batches_of_small_blocks_are_exact(group):
    """Many small blocks (sizes 2-5 and one empty, weighted, as MoM-KDE's 2 ceil(eps n) + 1
    blocks are) take one batched product per group of blocks (``group``: the elements
    a group may hold: one block per group, three, all at once): every node, far tails
    included, equals the log-space sums to 1e-12 relative, as the per-block product does
    (but for terms below e^-700, flushed to 0 by both)."""
    rng = np.random.default_rng(31)
    sizes = np.r_[rng.integers(2, 6, 150), 0, 3]
    bounds = np.r_[0, np.cumsum(sizes)]
    X = rng.standard_normal((bounds[-1], 2)) * [1.0, 3.0]
    w = rng.uniform(0.5, 2.0, len(X))
    axes = [np.linspace(-6, 6, 41), np.linspace(-14, 14, 37)]
    k = get_kernel("gaussian")
    mesh = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    ref = np.exp(block_log_sums(X, bounds, mesh, k, 0.4, np.log(w))).reshape(len(sizes), 41, 37)
    got = separable._separable_sums(X, bounds, axes, k, 0.4, w, max_elements=group)
    assert sizes.max() <= separable.SEPARABLE_BATCH_POINTS
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-290)
    assert np.all(got[-2] == 0)


def test_separable_sums_of_empty_blocks_are_zero():
    """Blocks without points (all of them here) give zero sums, not an error."""
    axes = [np.linspace(0, 1, 5), np.linspace(0, 1, 4)]
    got = block_grid_sums(
        np.zeros((0, 2)),
        np.array([0, 0, 0]),
        axes,
        get_kernel("gaussian"),
        0.3,
        backend="separable",
    )
    assert got.shape == (2, 5, 4) and not got.any()


@pytest.mark.parametrize("kernel", ["epanechnikov", "tophat", "exponential"])
def test_grid_2d_other_kernels(kernel):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2))
    xs = np.linspace(-3, 3, 64)
    est = MoMKDE(n_blocks=5, bandwidth=0.6, kernel=kernel, random_state=1).fit(X)
    exact = est.pdf(np.stack([m.ravel() for m in np.meshgrid(xs, xs, indexing="ij")], 1))
    fast = est.pdf_grid(xs, xs).ravel()
    assert np.max(np.abs(fast - exact)) <= 1e-3 * exact.max()


def test_uneven_axis_is_evaluated_exactly():
    X = np.random.default_rng(5).normal(size=200)
    est = KDE(bandwidth=0.3).fit(X)
    xs = np.array([-2.0, -0.5, 0.0, 0.1, 1.7])
    np.testing.assert_allclose(est.pdf_grid(xs), est.pdf(xs), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    kernel=st.sampled_from(ALL_KERNELS),
    h=st.floats(0.005, 2.0),
    n_blocks=st.integers(1, 60),
    seed=st.integers(0, 2**16),
)
def test_score_samples_paths_agree_with_log_space(kernel, h, n_blocks, seed):
    """The banded, linear and log-space sums are three routes to the same exact values."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, 150), rng.normal(6, 0.01, 30)]
    Y = np.r_[X[:40], rng.uniform(-8, 14, 60), [-300.0, 500.0]]  # far points: underflow
    est = MoMKDE(n_blocks, h, kernel=kernel, normalize=False, random_state=seed).fit(X)
    got = est.score_samples(Y)
    ref = est._fitted.combine_log(est.block_score_samples(Y))
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref))
    finite = np.isfinite(ref)
    np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-11, atol=1e-11)


def test_replayed_kernel_values_give_the_same_results():
    """MoM-KDE for several S on the same data reuses kernel values (memo._replay): the
    results must be bit-identical to a fresh computation (in this process, by the same code:
    bit-identity is the property)."""
    rng = np.random.default_rng(8)
    X = np.r_[rng.normal(0, 1, 800), rng.uniform(-5, 11, 200)]
    xs = np.linspace(-5, 11, 2048)
    fits = [MoMKDE(s, 0.03, normalize=False, random_state=2).fit(X) for s in (1, 7, 40, 300)]
    memo._MEMO.clear()
    fresh = [(e.pdf_grid(xs), e.score_samples(X[::3])) for e in fits]
    assert len(memo._MEMO) > 0
    for est, (grid, scores) in zip(fits, fresh):
        np.testing.assert_array_equal(est.pdf_grid(xs), grid)
        np.testing.assert_array_equal(est.score_samples(X[::3]), scores)
        memo._MEMO.clear()
        np.testing.assert_array_equal(est.pdf_grid(xs), grid)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_blocks", [1, 20])
def test_gaussian_1d_grid_is_exact_to_1e6_relative_everywhere(weighted, n_blocks):
    """A wide grid (data range + 15 h) in log space: every node, bulk and far tails (values
    down to e^-120), within 1e-6 relative of the direct log-space sum; the KDE against
    scipy's gaussian_kde as well."""
    rng = np.random.default_rng(11)
    X = np.r_[rng.standard_normal(20_000), rng.normal(6, 0.01, 300)]
    w = rng.uniform(0.5, 2.0, len(X)) if weighted else None
    h = 0.2
    xs = np.linspace(X.min() - 15 * h, X.max() + 15 * h, 1024)
    est = MoMKDE(n_blocks, h, random_state=0, normalize=False).fit(X, sample_weight=w)
    grid = est.pdf_grid(xs)
    ref = est._fitted.combine_log(
        block_log_sums(
            est._fitted.X, est._fitted.bounds, xs, est._fitted.kernel, h, est._fitted.log_w
        )
    )
    assert ref.min() < -100
    np.testing.assert_allclose(np.log(grid), ref, rtol=0, atol=1e-6)
    if n_blocks == 1:
        kde = stats.gaussian_kde(X, weights=w)
        kde.set_bandwidth(h / np.sqrt(kde.covariance[0, 0] / kde.factor**2))  # h itself
        scipy_ref = kde.logpdf(xs)
        np.testing.assert_allclose(np.log(grid), scipy_ref, rtol=0, atol=1e-6)


@pytest.mark.parametrize("backend", ["fft", "binned", "band", "separable"])
def test_2d_far_tails_are_exact(backend):
    """In 2-D the nodes where the binned value is round-off (the far tails of a wide grid)
    are recomputed exactly: 1e-6 relative there, 1e-3 of the peak elsewhere."""
    rng = np.random.default_rng(12)
    X = rng.standard_normal((3000, 2))
    h = 0.3
    axes = [np.linspace(X[:, k].min() - 15 * h, X[:, k].max() + 15 * h, 60) for k in (0, 1)]
    bounds = np.array([0, 1000, 2000, 3000])
    k = get_kernel("gaussian")
    mesh = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    ref = np.exp(block_log_sums(X, bounds, mesh, k, h)).reshape(3, 60, 60)
    got = block_grid_sums(X, bounds, axes, k, h, backend=backend, exact=True)
    assert np.max(np.abs(got - ref)) <= 1e-3 * ref.max()
    faint = tails._lower_median(ref) < 1e-9 * ref.max()
    assert faint.sum() > 500
    np.testing.assert_allclose(got[:, faint], ref[:, faint], rtol=1e-6)


@pytest.mark.parametrize("kernel", ALL_KERNELS)
def test_exact_at_nodes_matches_the_direct_sum(kernel):
    """The windowed exact sums (1-D sorted cells; 2-D compiled cell table) against all pairs,
    weighted, several blocks, nodes inside, beside and far from the data."""
    rng = np.random.default_rng(13)
    k = get_kernel(kernel)
    for d in (1, 2):
        X = np.r_[rng.normal(0, 1, (500, d)), rng.normal(5, 0.1, (50, d))]
        w = rng.uniform(0.1, 1.0, len(X))
        bounds = np.array([0, 100, 101, 400, 550])
        nodes = rng.uniform(-12, 16, (300, d))
        got = tails.exact_at_nodes(X, bounds, w, nodes, k, 0.4)
        ref = _naive_block_sums(X, bounds, nodes, kernel, 0.4, w)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("d", [3, 10, 64])
def test_blas_gaussian_path_equals_log_space(d):
    """block_log_sums' linear BLAS path (used from FAST_GAUSSIAN_PAIRS pairs on) against the
    log-space sums: weighted, an empty block, and queries so far that every term underflows
    (redone in log space); in d = 64 with a small h most queries underflow and all go to
    log space."""
    rng = np.random.default_rng(d)
    X = rng.standard_normal((3000, d))
    Y = np.r_[rng.standard_normal((1500, d)), np.full((3, d), 40.0)]
    bounds = np.array([0, 1000, 1000, 2200, 3000])
    log_w = np.log(rng.uniform(0.1, 1.0, 3000))
    k = get_kernel("gaussian")
    assert len(X) * len(Y) >= point_sums.FAST_GAUSSIAN_PAIRS
    for h in (0.3, 1.5):
        got = point_sums.block_log_sums(X, bounds, Y, k, h, log_w)
        ref = point_sums._log_space_sums(X, bounds, Y, k, h, log_w, chunk_elements())
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(ref))
        finite = np.isfinite(ref)
        assert ref[finite].min() < -700  # the far queries underflow in linear space
        np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-12, atol=1e-11)


def test_replay_limits_keep_larger_evaluations_inside_the_block_only(monkeypatch):
    """The runner's wider replay limits: a 3000-point evaluation (9e6 kernel values, above the
    default limit) is kept and replayed to the same bits inside the block; outside, the
    default limits are back and the kept evaluations are trimmed to them. (The general
    point sums, which keep evaluations: MoM-KDE's median path for many pairs keeps none.)"""
    from momkde_core._blocks import _fitted

    monkeypatch.setattr(_fitted, "FAST_GAUSSIAN_PAIRS", 10**18)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 2))
    fits = [MoMKDE(s, 0.3, normalize=False, random_state=4).fit(X) for s in (5, 41)]
    assert len(X) ** 2 > memo.MAX_CACHED_PAIRS
    memo._MEMO.clear()
    fresh = [est.score_samples(X) for est in fits]
    assert not memo._MEMO  # too large to keep by default
    seen_by_other_thread = []
    with memo.replay_limits(2**24, 2**28):
        assert memo._limits() == (2**24, 2**28)
        other = threading.Thread(target=lambda: seen_by_other_thread.append(memo._limits()))
        other.start()
        other.join()
        kept = [est.score_samples(X) for est in fits]
        assert len(memo._MEMO) == 1  # one evaluation, shared by both S
    assert seen_by_other_thread == [(memo.MAX_CACHED_PAIRS, memo_bytes())]
    for a, b in zip(fresh, kept):  # (replayed: the same bits, the property under test)
        np.testing.assert_array_equal(a, b)
    assert memo._limits() == (memo.MAX_CACHED_PAIRS, memo_bytes()) != (2**24, 2**28)
    assert sum(size for _, size in memo._MEMO.values()) <= memo_bytes()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(0, 200),
    st.floats(0.0, 0.95),
    st.integers(0, 2**31),
    st.sampled_from([1, 7, 64, 2**16]),
)
def test_grid_median_is_numpys_median_bit_for_bit(n_blocks, n_nodes, zeros, seed, tile):
    """Whatever the tiling of the nodes (tiles of one node, ragged last tiles, one tile)."""
    from unittest import mock

    from momkde_core._blocks import _fitted

    rng = np.random.default_rng(seed)
    values = rng.lognormal(0, 3, (n_blocks, n_nodes))
    values[rng.random(values.shape) < zeros] = 0.0
    with mock.patch.object(_fitted, "MEDIAN_TILE_ELEMENTS", tile * n_blocks):
        got = _fitted.grid_median(values.copy())
    # exact on any machine: both select the middle value(s) and average two of them by the
    # same correctly rounded (a + b) / 2
    np.testing.assert_array_equal(got, np.median(values, axis=0))


@given(
    st.lists(
        st.one_of(
            st.floats(-2000.0, 800.0),
            st.sampled_from(
                [
                    -np.inf,
                    np.inf,
                    np.nan,
                    -745.13,
                    -745.14,
                    -745.2,
                    -745.21,
                    -708.4,
                    -700.0,
                    -699.99,
                ]
            ),
        ),
        min_size=1,
        max_size=200,
    )
)
def test_exp_in_place_is_numpys_exp_bit_for_bit(values):
    """The fast underflow handling changes no result: 0 where exp is 0, the exact subnormal
    in the band, NaN and inf as numpy gives them (bit for bit: every value it keeps is
    numpy's own exp of it, in this process)."""
    from momkde_core.kernels import exp_in_place

    x = np.array(values)
    got = x.copy()
    with np.errstate(over="ignore"):
        exp_in_place(got)
        np.testing.assert_array_equal(got, np.exp(x))
    view = np.tile(x, (3, 1))[:, ::2]  # a strided view is exponentiated in place too
    with np.errstate(over="ignore"):
        expected = np.exp(view)
        exp_in_place(view)
    np.testing.assert_array_equal(view, expected)


@pytest.mark.parametrize("lengths", [[5] * 80 + [6] * 21, [1, 2, 3, 2, 1, 3] * 12, [4, 0, 4, 4]])
def test_slot_log_sums_equal_a_logsumexp_per_segment(lengths):
    """MoM-KDE's many small blocks, summed by slot, against scipy's logsumexp of each
    segment's rows: far terms (exp's underflow), a row of -inf and empty-looking columns."""
    rng = np.random.default_rng(len(lengths))
    lengths = np.array(lengths)
    keep = lengths > 0
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])[keep]
    lengths = lengths[keep]
    log_k = rng.normal(-300.0, 400.0, (int(lengths.sum()), 37))
    log_k[0] = -np.inf
    log_k[:, 5] = -np.inf
    got = point_sums._slot_log_sums(log_k.copy(), starts, lengths)
    with np.errstate(divide="ignore"):
        expected = np.stack([logsumexp(log_k[a : a + k], axis=0) for a, k in zip(starts, lengths)])
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-13)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 4),
    kernel=st.sampled_from(sorted(KERNELS)),
    h=st.sampled_from([0.02, 0.3, 2.0]),
    n_blocks=st.integers(1, 40),
    chunk=st.sampled_from([7, 2**21]),
)
def test_block_shifted_sums_are_the_log_sums_relative_to_each_querys_largest_term(
    seed, d, kernel, h, n_blocks, chunk
):
    """log(sums) + shift is block_log_sums (to 1e-10) wherever a block sum is above e^-690
    of the query's largest term; below, the shifted sum is at most that (0 or tiny). The
    shift is the largest log term (-inf where no point is within a compact kernel's reach),
    in chunks of any size."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_blocks, 200))
    X = rng.standard_normal((n, d)) * rng.choice([1.0, 5.0], (n, 1))
    bounds = (
        np.r_[0, np.sort(rng.choice(np.arange(1, n), n_blocks - 1, replace=False)), n]
        if n_blocks > 1
        else np.array([0, n])
    )
    Y = rng.standard_normal((50, d)) * 4
    log_w = np.log(rng.uniform(0.1, 2.0, n))
    k = get_kernel(kernel)
    shift, sums = point_sums.block_shifted_sums(X, bounds, Y, k, h, log_w, max_elements=chunk)
    logs = block_log_sums(X, bounds, Y, k, h, log_w)
    terms = k.log_kernel_sq(((Y[None] - X[:, None]) ** 2).sum(axis=2), h, d) + log_w[:, None]
    # (the engine's distances come from centred data: the last bits may differ)
    np.testing.assert_allclose(shift, terms.max(axis=0), rtol=0, atol=1e-9)
    kept = np.isfinite(shift) & (logs >= shift - 690.0)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(
            np.log(sums[kept]) + np.broadcast_to(shift, logs.shape)[kept],
            logs[kept],
            rtol=0,
            atol=1e-10,
        )
    assert np.all(sums[~kept] <= np.exp(-690.0))
    assert np.all(sums[:, ~np.isfinite(shift)] == 0)


@pytest.mark.parametrize("kernel, h", [("gaussian", 0.1), ("exponential", 0.006)])
def test_plane_tails_below_1e_290_are_the_log_space_sums(kernel, h):
    """Exact 2-D tails where a block's sum underflows linear space (nodes ~38 h and more
    from the block): redone in log space from the pairs within each node's reach, they
    equal the log-space sums over the whole block (block_log_sums) to 1e-9."""
    rng = np.random.default_rng(12)
    X = rng.standard_normal((3000, 2))
    bounds = np.array([0, 1000, 1700, 3000])
    axes = [np.linspace(4, 9, 201), np.linspace(-8, 8, 41)]  # (fine along x: sums at
    # every magnitude from the data's edge down past 1e-300)
    k = get_kernel(kernel)
    mesh = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    redo = np.ones((201, 41), dtype=bool)
    got = tails.exact_at_nodes(X, bounds, np.ones(len(X)), mesh, k, h, mesh=(axes, redo))
    ref = block_log_sums(X, bounds, mesh, k, h)
    tiny = (got > 1e-300) & (got < 1e-290)  # (normal floats: full precision)
    assert tiny.sum() > 20  # the case under test: sums below linear space's reach
    np.testing.assert_allclose(np.log(got[tiny]), ref[tiny], rtol=0, atol=1e-9)
    # subnormal sums are as exact as their representation (~1e-323 absolute), others 1e-9
    np.testing.assert_allclose(got[~tiny], np.exp(ref[~tiny]), rtol=1e-9, atol=2e-323)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
@pytest.mark.parametrize("n, S, backend", [(3000, 5, "separable"), (20000, 1, "binned")])
def test_2d_grid_tails_are_exact_far_from_the_origin(offset, n, S, backend):
    """Exact 2-D tails (nodes below 1e-7 of the peak) equal the median of the block sums
    taken by brute force to 1e-9 relative whatever the data's distance to the origin, by
    the exact separable product and by the binned product's tiled tails: near 1e9 the
    nodes' own ulps are ~1e-7 (1e-6 h), so both take one exponential per factor there."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((n, 2)) + offset
    h = 0.25
    est = MoMKDE(n_blocks=S, bandwidth=h, normalize=False, random_state=0).fit(X)
    xs = np.linspace(offset - 9.0, offset + 9.0, 61)
    assert est._fitted.grid_sums([xs, xs], exact=True)[1] == backend
    grid = est.pdf_grid(xs, xs)
    faint = (grid < 1e-7 * grid.max()) & (grid > 1e-290)
    i, j = np.nonzero(faint)
    pick = rng.choice(len(i), 200, replace=False)
    nodes = np.stack([xs[i[pick]], xs[j[pick]]], axis=1)
    # (brute force on the stored coordinates: differences taken directly, as the tails do;
    # an expansion around the data's mean would round the nodes near 1e9 by ~1e-7)
    sq = ((nodes[:, None, :] - est._fitted.X[None]) ** 2).sum(axis=2)
    terms = -sq / (2 * h * h) - np.log(2 * np.pi * h * h) + est._fitted.log_w
    logs = [
        logsumexp(terms[:, a:b], axis=1) for a, b in zip(est._fitted.bounds, est._fitted.bounds[1:])
    ]
    ref = np.exp(np.median(logs, axis=0))
    np.testing.assert_allclose(grid[i[pick], j[pick]], ref, rtol=1e-9, atol=0)


@pytest.mark.parametrize("n_blocks", [1, 4])
def test_plane_tails_on_threads_equal_the_serial_ones_bit_for_bit(monkeypatch, n_blocks):
    """The plane's tiled exact tails from PLANE_THREADED_NODES nodes run on FFT_WORKERS
    threads (blocks on threads; one block: its tiles' columns): the same sums to the bit as
    one thread, weighted."""
    rng = np.random.default_rng(31)
    X = rng.standard_normal((1200, 2))
    w = rng.uniform(0.2, 1.0, len(X))
    bounds = np.linspace(0, len(X), n_blocks + 1).astype(int)
    axes = [np.linspace(-7, 7, 37), np.linspace(-6, 8, 29)]
    mesh = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    redo = np.hypot(*np.meshgrid(*axes, indexing="ij")) > 3.0
    nodes, k = mesh[redo.ravel()], get_kernel("gaussian")
    monkeypatch.setattr(tails, "PLANE_THREADED_NODES", 10**9)
    serial = tails.exact_at_nodes(X, bounds, w, nodes, k, 0.3, mesh=(axes, redo))
    monkeypatch.setattr(tails, "PLANE_THREADED_NODES", 1)
    calls = []
    monkeypatch.setattr(
        tails, "map_on_pool", lambda fn, items: calls.append(1) or threads.map_on_pool(fn, items)
    )
    monkeypatch.setattr(
        disc_pairs,
        "map_on_pool",
        lambda fn, items: calls.append(2) or threads.map_on_pool(fn, items),
    )
    threaded = tails.exact_at_nodes(X, bounds, w, nodes, k, 0.3, mesh=(axes, redo))
    assert calls == ([2] if n_blocks == 1 else [1])  # (the threaded path ran)
    assert serial.min() >= 0 and np.count_nonzero(serial) > 100
    # bit for bit on any machine: each tile is summed by one thread, in the same order, by
    # the same compiled loop (no BLAS), whichever thread runs it
    np.testing.assert_array_equal(threaded, serial)
    # the blocks' tables and distance maps built first, over the whole mesh (as the binned
    # backend does beside its product): the same sums
    box = (X.min(axis=0), X.max(axis=0))
    tables = tails._plane_tables(X, bounds, w, axes, 0.3, box)
    prepared = tails.exact_at_nodes(
        X, bounds, w, nodes, k, 0.3, mesh=(axes, redo), box=box, tables=tables
    )
    np.testing.assert_array_equal(prepared, serial)  # (the same tables and distances: exact)


def test_binned_grid_tails_with_tables_built_beside_or_block_by_block_are_the_same(monkeypatch):
    """The binned backend's exact tails with several blocks: the cell tables built on the
    second thread beside the product, or (beyond PREPARED_TABLES_BYTES) block by block, give
    the same grid to the bit."""
    rng = np.random.default_rng(17)
    X = rng.standard_normal((6000, 2))
    bounds = np.array([0, 2000, 4000, 6000])
    axes = [np.linspace(-8, 8, 50), np.linspace(-7, 9, 44)]
    k = get_kernel("gaussian")
    beside = block_grid_sums(X, bounds, axes, k, 0.25, backend="binned", exact=True)
    monkeypatch.setattr(grid_sums, "PREPARED_TABLES_BYTES", 0)
    one_by_one = block_grid_sums(X, bounds, axes, k, 0.25, backend="binned", exact=True)
    # (the same product and the same tables, built on another thread or later: to the bit)
    np.testing.assert_array_equal(beside, one_by_one)


def test_the_tables_memory_estimate_bounds_what_the_tables_hold():
    """_plane_tables_bytes (which decides whether the blocks' tables are built at once,
    beside the binned product) is at least what they hold, on data whose outliers spread
    the cell grid over a box thousands of cells wide (the cell starts dominate)."""
    rng = np.random.default_rng(3)
    X = np.r_[rng.standard_normal((3800, 2)), rng.uniform(-150, 150, (200, 2))]
    X = X[rng.permutation(len(X))]  # (MoM-KDE's shuffled blocks: outliers in every one)
    bounds = np.array([0, 1000, 2000, 3000, 4000])
    w = np.ones(len(X))
    axes = [np.linspace(-160, 160, 90), np.linspace(-155, 165, 80)]
    box = (X.min(axis=0), X.max(axis=0))
    tables = tails._plane_tables(X, bounds, w, axes, 0.1, box)

    def closure_bytes(fn) -> int:  # the arrays a distance map keeps (its lookup's too)
        total = 0
        for cell in fn.__closure__ or ():
            value = cell.cell_contents
            if isinstance(value, np.ndarray):
                total += value.nbytes
            elif callable(value) and getattr(value, "__closure__", None):
                total += closure_bytes(value)
        return total

    held = 0
    for live, table, distances in tables:
        held += live.nbytes + table.px.nbytes + table.py.nbytes + table.order.nbytes
        held += table.starts.nbytes + closure_bytes(distances)
    estimate = tails._plane_tables_bytes(len(X), 4, axes, 0.1, box)
    assert held > 4 * 8 * 10**6  # (the starts of ~1000 x 1000 cells per block)
    assert held <= estimate <= 2 * held
