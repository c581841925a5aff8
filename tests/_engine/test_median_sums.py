"""MoM-KDE's scoring path (median_log_sums) against the exact median of log-space sums, and
the default detector's mean of the blocks' logs through the same path."""

from __future__ import annotations

import numpy as np
import pytest

from momkde_core import MoMKDE
from momkde_core._block_mean import block_log_mean
from momkde_core._engine import FAST_GAUSSIAN_PAIRS, block_log_sums, median, median_log_sums
from momkde_core.kernels import get_kernel

GAUSS = get_kernel("gaussian")


def _blocks(n: int, n_blocks: int, rng: np.random.Generator) -> np.ndarray:
    sizes = np.full(n_blocks, n // n_blocks) + (np.arange(n_blocks) < n % n_blocks)
    sizes[rng.integers(n_blocks)] += 3  # one block of unlike size: padded slots
    return np.concatenate([[0], np.cumsum(sizes)])


def _case(seed: int, n: int, d: int, n_blocks: int, weighted: bool, far: float):
    """(X, bounds, Y, log_w): n rows in blocks of unlike sizes, 300 queries near them, two at
    ``far`` in every coordinate and one at 1e4; per-block normalised log weights or None."""
    rng = np.random.default_rng(seed)
    bounds = _blocks(n, n_blocks, rng)
    X = rng.standard_normal((bounds[-1], d))
    Y = np.vstack([rng.standard_normal((300, d)) * 2, np.full((2, d), far), [[1e4] * d]])
    log_w = None
    if weighted:
        w = rng.uniform(0.1, 1, len(X))
        log_w = np.log(w) - np.repeat(np.log(np.add.reduceat(w, bounds[:-1])), np.diff(bounds))
    return X, bounds, Y, log_w


@pytest.mark.parametrize("d, n_blocks, weighted", [(2, 41, False), (2, 40, True), (5, 7, True)])
def test_the_median_path_is_the_exact_median(d, n_blocks, weighted) -> None:
    """Odd and even S, unequal blocks, weights, queries near and very far (log space redo,
    -inf only where the exact median is -inf). Tolerance: both compute the same terms, the
    fast path through the BLAS expansion of the squared distances, whose round-off is a
    few ulps of |x|^2 / h^2 (about 1e-13 of the log here)."""
    X, bounds, Y, log_w = _case(d + n_blocks, 600, d, n_blocks, weighted, far=30.0)
    h = 0.3
    got = median_log_sums(X, bounds, Y, GAUSS, h, log_w)
    ref = median(block_log_sums(X, bounds, Y, GAUSS, h, log_w), log=True)
    assert got.shape == (len(Y),)
    finite = np.isfinite(ref)
    assert np.array_equal(finite, np.isfinite(got))
    np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-12, atol=1e-12)
    assert (ref[-3:-1] < np.log(1e-280)).all()  # (the far queries went through the redo)


@pytest.mark.parametrize("d, n_blocks, weighted", [(2, 21, False), (5, 8, True)])
def test_the_mean_of_the_block_logs_is_exact(d, n_blocks, weighted) -> None:
    """The default detector's statistic through the same slots: the mean over the blocks of
    their log sums, against the log-space sums' mean, near and far (where some block's sum
    is below 1e-280 the query is redone in log space; where the exact mean is -inf, so is
    the path's). Tolerance as above: the same terms through the BLAS expansion."""
    X, bounds, Y, log_w = _case(d * n_blocks, 500, d, n_blocks, weighted, far=10.0)
    got = median_log_sums(X, bounds, Y, GAUSS, 0.3, log_w, statistic="mean_log")
    logs = block_log_sums(X, bounds, Y, GAUSS, 0.3, log_w)
    ref = logs.mean(axis=0)
    finite = np.isfinite(ref)
    assert np.array_equal(finite, np.isfinite(got))
    np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-12, atol=1e-12)
    assert (logs[:, -3:-1].min(axis=0) < np.log(1e-280)).all()  # (the redo was needed there)
    with pytest.raises(ValueError, match="statistic must be one of"):
        median_log_sums(X, bounds, Y, GAUSS, 0.3, statistic="mean")


def test_the_median_path_refuses_other_kernels_and_empty_blocks() -> None:
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="separable kernel"):
        median_log_sums(X, np.array([0, 2, 4]), X, get_kernel("epanechnikov"), 1.0)
    with pytest.raises(ValueError, match="non-empty blocks"):
        median_log_sums(X, np.array([0, 2, 2, 4]), X, GAUSS, 1.0)


def test_mom_kde_scores_many_points_through_the_median_path(monkeypatch) -> None:
    """score_samples takes the path at many pairs in d >= 2 and agrees with the general
    one (forced by raising the pair threshold), at the same tolerance as above."""
    from momkde_core._blocks import _fitted

    rng = np.random.default_rng(1)
    X = rng.standard_normal((2100, 3))
    Y = rng.standard_normal((2100, 3)) * 1.5
    est = MoMKDE(contamination=0.1, random_state=0, normalize=False).fit(X)
    assert len(X) * len(Y) >= FAST_GAUSSIAN_PAIRS
    calls = []
    real = _fitted.median_log_sums
    monkeypatch.setattr(
        _fitted, "median_log_sums", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    fast = est.score_samples(Y)
    assert calls == [1]
    fast_mean = block_log_mean(est, Y)  # (the default detector's score: the same slots)
    assert calls == [1, 1]
    monkeypatch.setattr(_fitted, "FAST_GAUSSIAN_PAIRS", 10**18)
    general = est.score_samples(Y)
    general_mean = block_log_mean(est, Y)
    assert calls == [1, 1]
    np.testing.assert_allclose(fast, general, rtol=1e-12)
    np.testing.assert_allclose(fast_mean, general_mean, rtol=1e-12)


@pytest.mark.parametrize("count", [1, 2, 7, 8])
@pytest.mark.parametrize("axis", [0, 1])
def test_the_median_is_numpys_for_odd_and_even_counts(count, axis) -> None:
    """Linear values: numpy's median to the bit (the middle value, or the same correctly
    rounded (a + b) / 2). Log values: the log of numpy's median of their exps, computed in
    log space (a few ulps of round-off from logaddexp), -inf where that median is 0. With
    ``count``: the median of the ``count`` smallest, the others at +inf."""
    rng = np.random.default_rng(count)
    values = rng.lognormal(0, 3, (count, 50) if axis == 0 else (50, count))
    values[rng.random(values.shape) < 0.6] = 0.0  # (middle values of 0: -inf logs)
    expected = np.median(values, axis=axis)
    np.testing.assert_array_equal(median(values, axis=axis), expected)
    with np.errstate(divide="ignore"):
        logs = median(np.log(values), axis=axis, log=True)
        np.testing.assert_allclose(logs, np.log(expected), rtol=1e-14)
    padded = np.concatenate([values, np.full_like(values, np.inf)], axis=axis)
    np.testing.assert_array_equal(median(padded, axis=axis, count=count), expected)
