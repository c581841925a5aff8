"""The "cv" rule: leave-one-out likelihood with ties left out together, deterministic."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KernelDensity

from momkde_core import KDE, get_kernel
from momkde_core.bandwidth import _loo_cv, cv_bandwidth, loo_scores, scott

GAUSS = get_kernel("gaussian")


def _reference_loo(X: np.ndarray, h: float, kernel: str = "gaussian") -> float:
    """Mean log density of each row under scikit-learn's KDE of the rows not equal to it."""
    out = []
    for i in range(len(X)):
        others = X[~np.all(X == X[i], axis=1)]
        out.append(
            KernelDensity(bandwidth=h, kernel=kernel).fit(others).score_samples(X[i : i + 1])
        )
    return float(np.mean(out))


@pytest.mark.parametrize("d", [1, 2])
def test_loo_scores_match_scikit_learn_row_by_row(d):
    rng = np.random.default_rng(d)
    X = rng.normal(size=(60, d))
    X = np.r_[X, X[:7], rng.uniform(-8, 8, (3, d))]  # repeated rows and isolated ones
    for h in (0.05, 0.4, 1.5):  # at 0.05 the isolated rows' sums are mostly their own term
        assert loo_scores(X, GAUSS, np.array([h]))[0] == pytest.approx(
            _reference_loo(X, h), rel=1e-9
        )


def test_weighted_loo_scores_follow_the_definition():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 1))
    w = rng.uniform(0.5, 2.0, 40)
    w /= w.sum()
    h = 0.3
    k = GAUSS.kernel_sq((X - X.T) ** 2, h, 1)
    held = (k * w).sum(axis=1) - w * k[0, 0]
    expected = float(w @ np.log(held / (1 - w)))
    assert loo_scores(X, GAUSS, np.array([h]), w)[0] == pytest.approx(expected, rel=1e-10)


def test_binned_loo_scores_agree_with_the_exact_ones(monkeypatch):
    X = np.random.default_rng(4).normal(size=(3000, 1))
    hs = np.array([0.02, 0.2, 1.0])
    binned = loo_scores(X, GAUSS, hs)  # above LOO_EXACT_MAX_N: binned sums
    monkeypatch.setattr(_loo_cv, "LOO_EXACT_MAX_N", 10**9)
    exact = loo_scores(X, GAUSS, hs)
    # linear interpolation on an h / 8 grid: ~0.2 % per density, a mean log off by < 0.01
    np.testing.assert_allclose(binned, exact, atol=0.01)


def test_cv_finds_the_maximiser_of_the_loo_likelihood():
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 0.5, 150), rng.normal(6, 0.5, 150)][:, None]
    h = KDE(bandwidth="cv").fit(X).bandwidth_
    dense = np.geomspace(0.02, 2, 400) * scott(X)
    best = dense[np.argmax(loo_scores(X, GAUSS, dense))]
    assert h == pytest.approx(best, rel=0.03)  # the search's 1 % plus the dense grid's step


def test_cv_is_the_same_whatever_the_seed():
    X = np.random.default_rng(0).gamma(3.0, size=(1000, 1))
    hs = {KDE("cv", random_state=seed).fit(X).bandwidth_ for seed in (None, 0, 1, 2)}
    assert len(hs) == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda g: g.poisson(3.0, 500).astype(float),  # counts
        lambda g: np.round(g.normal(0, 1, 500), 1),  # rounded data
        lambda g: np.repeat(g.normal(0, 1, 125), 4),  # every value four times
    ],
    ids=["counts", "rounded", "repeated"],
)
def test_ties_do_not_shrink_the_cv_bandwidth(make, recwarn):
    X = make(np.random.default_rng(0))[:, None]
    h = cv_bandwidth(X, GAUSS, scott(X))
    assert h > 0.1 * scott(X)  # not the collapse of a held-out copy (h -> 0)
    distinct = np.unique(X)[:, None]  # repeated values: the search on the distinct values
    if len(distinct) == len(X) // 4:
        assert h == pytest.approx(cv_bandwidth(distinct, GAUSS, scott(X)), rel=0.05)
    assert not [w for w in recwarn if "smallest" in str(w.message)]


def test_compact_kernel_cv_has_finite_scores():
    X = np.random.default_rng(1).normal(size=(400, 2))
    tophat = get_kernel("tophat")
    h = cv_bandwidth(X, tophat, scott(X))
    assert np.isfinite(loo_scores(X, tophat, np.array([h]))[0])


def test_cv_above_the_subsample_size_is_deterministic(monkeypatch):
    monkeypatch.setattr(_loo_cv, "CV_MAX_SAMPLES", 300)
    X = np.random.default_rng(4).standard_normal((1200, 3))
    h = cv_bandwidth(X, GAUSS, 0.5)
    assert h == cv_bandwidth(X, GAUSS, 0.5)
    rows = np.sort(np.random.default_rng(_loo_cv.SUBSAMPLE_SEED).choice(1200, 300, False))
    factor = (1200 / 300) ** (1 / 7)
    assert h == pytest.approx(cv_bandwidth(X[rows], GAUSS, 0.5 * factor) / factor, rel=1e-12)


def test_the_reference_leaves_copies_out():  # rows 0, 1, 1: each sees only the other value
    X = np.array([[0.0], [1.0], [1.0]])
    assert _reference_loo(X, 1.0) == pytest.approx(-0.5 - 0.5 * np.log(2 * np.pi), rel=1e-12)
