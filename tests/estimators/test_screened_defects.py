"""ScreenedKDE on repeated values and on tiny samples (the defects of issue #37)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from momkde_core import KDE, ScreenedKDE


@pytest.mark.parametrize(
    "make",
    [
        lambda g: g.poisson(3.0, 500).astype(float),  # counts
        lambda g: np.round(g.normal(0, 1, 500), 1),  # rounded data
        lambda g: np.repeat(g.normal(0, 1, 125), 4),  # every value four times
    ],
    ids=["counts", "rounded", "repeated"],
)
@pytest.mark.parametrize("seed", [0, 2])
def test_ties_do_not_look_like_outliers(make, seed):
    X = make(np.random.default_rng(seed))[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor a warning about the bandwidth
        est = ScreenedKDE(contamination=0.05, random_state=seed).fit(X)
    aside = X[~est.inlier_mask_, 0]
    # at most a few rows of the outer tails, as on continuous data (issue #37: 171-238 of
    # 500 counts, mostly threes and fours, the two most common values, were set aside)
    assert len(aside) <= 0.03 * len(X)
    lo, hi = np.quantile(X, [0.025, 0.975])
    assert np.all((aside <= lo) | (aside >= hi))


@pytest.mark.parametrize("n, d", [(3, 1), (5, 2), (6, 3)])
def test_tiny_samples_fit(n, d):
    for seed in range(10):
        X = np.random.default_rng(seed).standard_normal((n, d))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the screen's blocks are said to be too small
            est = ScreenedKDE(contamination=0.1, random_state=seed).fit(X)
        assert est.inlier_mask_.sum() >= 2
        assert np.all(np.isfinite(est.score_samples(X)))


def test_kept_copies_of_one_row_fall_back_to_all_rows():
    # two distinct values: whatever the screen says, the final rule needs two distinct rows
    X = np.r_[np.zeros(4), [1.0]][:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ScreenedKDE(contamination=0.2, random_state=0).fit(X)
    assert len(np.unique(X[est.inlier_mask_])) >= 2
    assert est.bandwidth_ == pytest.approx(KDE("cv").fit(X[est.inlier_mask_]).bandwidth_)


def test_a_tight_cluster_in_the_inliers_tail_is_found_at_the_true_share():
    # issue #37's sample: 105 rows N(4, 0.1) beside 2000 N(0, 1) rows, told the true 0.05
    g = np.random.default_rng(501)
    X = np.r_[g.normal(0, 1, (2000, 1)), g.normal(4, 0.1, (105, 1))]
    X = X[g.permutation(len(X))]
    est = ScreenedKDE(contamination=0.05, random_state=0).fit(X)
    cluster = np.abs(X[:, 0] - 4) < 0.5
    assert (~est.inlier_mask_[cluster]).mean() > 0.8  # (was: none of them)
    assert (~est.inlier_mask_[~cluster]).mean() < 0.005
    # the bump at 4 is at least ten times lower than the CV KDE's (0.146; was the same)
    assert est.pdf([[4.0]])[0] < 0.1 * KDE("cv").fit(X).pdf([[4.0]])[0]


def test_the_second_screen_adds_nothing_to_clean_data():
    from momkde_core.estimators import _screened

    X = np.random.default_rng(3).normal(size=(1000, 1))
    est = ScreenedKDE(contamination=0.1, random_state=0).fit(X)
    one = ScreenedKDE(contamination=0.1, random_state=0)
    with pytest.MonkeyPatch.context() as patch:  # the second screen switched off
        patch.setattr(_screened, "WIDE_FACTOR", 1.0)
        one.fit(X)
    np.testing.assert_array_equal(est.inlier_mask_, one.inlier_mask_)


@pytest.mark.parametrize("seed", [43, 75, 95, 144])
def test_a_null_twin_whose_median_is_zero_everywhere_does_not_raise(seed):
    """scikit-learn's check_sample_weights_shape (a few rows in 2-D): at these
    seeds a null sample's twin screen has a median 0 everywhere; it counts as a screen that
    sees no row (its excess +inf: nothing beats it), instead of failing the fit."""
    from sklearn.utils.estimator_checks import check_sample_weights_shape

    check_sample_weights_shape("ScreenedKDE", ScreenedKDE(random_state=seed))


def test_a_screen_whose_median_is_zero_everywhere_keeps_every_row(monkeypatch):
    from momkde_core.estimators import _screened

    def no_median(self, X, sample_weight=None):
        raise ValueError("the median of the 5 block KDEs is 0 everywhere (no point ...)")

    monkeypatch.setattr(_screened.MoMKDE, "fit", no_median)
    X = np.random.default_rng(0).standard_normal((40, 2))
    with pytest.warns(UserWarning, match="no row is set aside"):
        est = ScreenedKDE(contamination=0.1, random_state=0).fit(X)
    assert est.inlier_mask_.all() and est.screen_ is None
