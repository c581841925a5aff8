"""The four estimators as scikit-learn citizens: the estimator checks, input validation and
feature names, one-sample fits, sample weights and sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.stats import gaussian_kde
from sklearn.model_selection import KFold
from sklearn.neighbors import KernelDensity
from sklearn.utils.estimator_checks import check_fit2d_1sample, parametrize_with_checks

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE
from momkde_core._engine import GramOperator
from momkde_core.bandwidth import cv_scores
from momkde_core.estimators._kirwls import kirwls_with_params
from momkde_core.kernels import get_kernel

# check_fit1d asks fit to refuse a 1-D X with a ValueError; these estimators read it as one
# feature, on purpose (a 1-D sample is the commonest density estimation input, and scipy's
# gaussian_kde and KDEpy take it too).
EXPECTED_FAILED_CHECKS = {
    "check_fit1d": "by design: a 1-D X is read as n rows of one feature, not refused",
}


@parametrize_with_checks(
    [KDE(), MoMKDE(), RKDE(), SPKDE(), ScreenedKDE()],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


ALL = {"kde": KDE, "mom": MoMKDE, "rkde": RKDE, "spkde": SPKDE, "screened": ScreenedKDE}


def _sample(n: int = 200, d: int = 1, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(0, 0.5, (n // 2, d)), rng.normal(4, 0.5, (n - n // 2, d))]


# ---- validation and feature names -------------------------------------------------------


def test_a_dataframe_sets_feature_names_and_reordered_or_missing_columns_are_refused():
    frame = pd.DataFrame(_sample(60, 2), columns=["height", "weight"])
    est = MoMKDE(n_blocks=3, bandwidth=0.5, random_state=0).fit(frame)
    assert list(est.feature_names_in_) == ["height", "weight"]
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(est.pdf(frame), est.pdf(frame.to_numpy()))  # (same values in)
    with pytest.raises(ValueError, match="same order as they were in fit"):
        est.pdf(frame[["weight", "height"]])
    with pytest.raises(ValueError, match="yet now missing:\n- weight"):
        est.score_samples(frame[["height"]])
    est.fit(frame.to_numpy())  # a refit without names forgets them
    assert not hasattr(est, "feature_names_in_")


def test_clear_messages_are_kept_for_nan_empty_and_wrong_width():
    est = KDE(bandwidth=0.5).fit(_sample(20, 2))
    with pytest.raises(
        ValueError,
        match=r"X has 1 features, but KDE is expecting 2 features"
        r".*fitted on 2",
    ):
        est.pdf(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="inf values in 1 row"):
        est.pdf([[np.inf, 0.0]])
    with pytest.raises(ValueError, match=r"0 row\(s\).*at least 1"):
        KDE(bandwidth=0.5).fit(np.empty((0, 2)))
    with pytest.raises(TypeError, match="numeric array.*argument must be"):
        KDE(bandwidth=0.5).fit(np.array([[1.0], [{"a": 1}]], dtype=object))


@pytest.mark.parametrize("name", sorted(ALL))
def test_one_sample_with_a_numeric_bandwidth_is_the_kernel_itself(name):
    est = ALL[name](bandwidth=0.7).fit([[1.0, -2.0]])
    ys = np.array([[1.0, -2.0], [2.0, -1.0]])
    expected = stats.multivariate_normal([1.0, -2.0], 0.49).pdf(ys)
    np.testing.assert_allclose(est.pdf(ys), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="n_samples = 1"):
        ALL[name](bandwidth="scott").fit([[1.0, -2.0]])


def test_more_blocks_than_rows_passes_scikit_learns_one_sample_check():
    """check_fit2d_1sample accepts an error that says the sample has one row: MoMKDE with
    S = 3 says so, and what to do."""
    check_fit2d_1sample("MoMKDE", MoMKDE(n_blocks=3))
    with pytest.raises(ValueError, match="3 blocks need at least 3 rows.*use fewer blocks"):
        MoMKDE(n_blocks=3, bandwidth=0.5).fit([[1.0], [2.0]])


# ---- sample weights ---------------------------------------------------------------------


def test_kde_integer_weights_are_duplicated_rows():
    X = _sample(80)
    w = np.random.default_rng(1).integers(0, 4, len(X))
    ys = np.linspace(-2, 6, 101)
    weighted = KDE(bandwidth=0.4, kernel="epanechnikov").fit(X, sample_weight=w)
    repeated = KDE(bandwidth=0.4, kernel="epanechnikov").fit(np.repeat(X, w, axis=0))
    np.testing.assert_allclose(weighted.pdf(ys), repeated.pdf(ys), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(weighted.pdf_grid(ys), repeated.pdf_grid(ys), rtol=1e-9, atol=1e-12)
    ref = KernelDensity(bandwidth=0.4, kernel="epanechnikov").fit(X, sample_weight=w)
    with np.errstate(divide="ignore"):  # scikit-learn's log(0) outside the support
        expected = ref.score_samples(ys[:, None])
    np.testing.assert_allclose(weighted.score_samples(ys), expected, rtol=1e-10)


def test_weighted_scott_and_silverman_are_gaussian_kde_with_weights():
    X = np.random.default_rng(2).standard_t(4, 300)
    w = np.random.default_rng(3).uniform(0.1, 5.0, 300)
    ys = np.linspace(-6, 6, 50)
    for rule in ("scott", "silverman"):
        ref = gaussian_kde(X, bw_method=rule, weights=w)
        est = KDE(bandwidth=rule).fit(X, sample_weight=w)
        assert est.bandwidth_ == pytest.approx(np.sqrt(ref.covariance[0, 0]), rel=1e-12)
        np.testing.assert_allclose(est.pdf(ys), ref(ys), rtol=1e-10)


def test_weighted_cv_is_the_weighted_held_out_likelihood():
    X = _sample(120)
    w = np.random.default_rng(4).uniform(0.5, 3.0, len(X))
    h = 0.3
    score = cv_scores(
        X, get_kernel("gaussian"), np.array([h]), random_state=5, weights=w / w.sum()
    )[0]
    total = 0.0
    for train, test in KFold(5, shuffle=True, random_state=5).split(X):
        kde = KernelDensity(bandwidth=h).fit(X[train], sample_weight=w[train])
        total += w[test] @ kde.score_samples(X[test])
    assert score == pytest.approx(total / w.sum(), rel=1e-10)
    est = KDE(bandwidth="cv", random_state=5).fit(X, sample_weight=w)
    assert est.bandwidth_ > 0


@pytest.mark.parametrize("name", sorted(ALL))
def test_unit_weights_are_the_unweighted_fit_and_zero_weights_drop_rows(name):
    X = _sample(90, 2)
    ys = _sample(20, 2, seed=9)
    make = (
        (lambda: ALL[name](bandwidth=0.5, random_state=0))
        if name in ("mom", "screened")
        else (lambda: ALL[name](bandwidth=0.5))
    )
    plain = make().fit(X)  # (the weighted arithmetic differs in the last bits)
    np.testing.assert_allclose(
        make().fit(X, sample_weight=np.ones(len(X))).pdf(ys), plain.pdf(ys), rtol=1e-12
    )
    w = np.r_[np.ones(60), np.zeros(30)]
    dropped = make().fit(X, sample_weight=w)
    np.testing.assert_allclose(dropped.pdf(ys), make().fit(X[:60]).pdf(ys), rtol=1e-12)
    if name == "mom":
        assert np.all(dropped.block_of_[60:] == -1)
    if name in ("rkde", "spkde"):
        assert len(dropped.weights_) == 90 and np.all(dropped.weights_[60:] == 0.0)


def test_mom_integer_weights_are_duplicated_rows_within_their_block():
    X = _sample(60)
    w = np.random.default_rng(6).integers(1, 5, len(X))
    ys = np.linspace(-2, 6, 41)[:, None]
    est = MoMKDE(n_blocks=5, bandwidth=0.4, normalize=False, random_state=1).fit(X, sample_weight=w)
    blocks = [
        np.exp(
            KernelDensity(bandwidth=0.4)
            .fit(np.repeat(X[est.block_of_ == s], w[est.block_of_ == s], axis=0))
            .score_samples(ys)
        )
        for s in range(5)
    ]
    np.testing.assert_allclose(est.pdf(ys), np.median(blocks, axis=0), rtol=1e-10)
    assert np.all(np.bincount(est.block_of_) == 12)  # blocks count rows, not weight


def test_rkde_base_measure_with_integer_weights_is_kirwls_on_duplicated_rows():
    X = np.r_[_sample(50, 2), np.random.default_rng(7).uniform(-4, 8, (10, 2))]
    w = np.random.default_rng(8).integers(1, 4, len(X))
    kernel, params = get_kernel("gaussian"), (0.05, 0.08, 0.12)
    weighted, _, history = kirwls_with_params(
        GramOperator(X, kernel, 0.5), "hampel", params, 100, 1e-10, base=w / w.sum()
    )
    rows = np.repeat(np.arange(len(X)), w)
    repeated, _, history_rep = kirwls_with_params(
        GramOperator(X[rows], kernel, 0.5), "hampel", params, 100, 1e-10
    )
    np.testing.assert_allclose(np.bincount(rows, repeated), weighted, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(history, history_rep, rtol=1e-10)
    est = RKDE(bandwidth=0.5).fit(X, sample_weight=w)  # the estimator runs the same solver
    assert est.weights_.sum() == pytest.approx(1.0) and np.all(est.weights_ >= 0)


def test_spkde_integer_weights_are_duplicated_rows():
    """The same QP (same target, same convex hull): the same density, up to how far FISTA
    gets in 2000 iterations (4.5e-4 of the peak here, 1.4e-4 after 20000)."""
    X = np.r_[
        np.random.default_rng(9).normal(0, 0.5, 30), np.random.default_rng(9).uniform(-4, 8, 6)
    ]
    w = np.random.default_rng(10).integers(1, 4, len(X))
    ys = np.linspace(-4, 8, 61)
    make = lambda: SPKDE(bandwidth=0.4, contamination=0.2, max_iter=2000, tol=1e-14)  # noqa: E731
    weighted = make().fit(X, sample_weight=w).pdf(ys)
    repeated = make().fit(np.repeat(X, w)).pdf(ys)
    np.testing.assert_allclose(weighted, repeated, atol=1e-3 * repeated.max())


@pytest.mark.parametrize(
    "weights, message",
    [
        (-np.ones(10), "Negative"),
        (np.ones(9), "shape"),
        (np.zeros(10), "non-zero|every row"),
        (np.r_[np.nan, np.ones(9)], "NaN"),
        (np.ones((10, 1)), "1D array or scalar, got 2D"),
        (-2.0, "Negative"),
        (0, "every row"),
        ("abc", "could not convert"),
    ],
)
def test_bad_weights_raise_a_value_error(weights, message):
    with pytest.raises(ValueError, match=message):
        KDE(bandwidth=0.5).fit(np.arange(10.0), sample_weight=weights)


@pytest.mark.parametrize("weight", [3, 0.5, [2.0] * 10])
def test_equal_weights_a_number_included_are_the_unweighted_fit(weight):
    X = _sample(10)
    ys = np.linspace(-2, 6, 7)
    unweighted = MoMKDE(3, 0.5, random_state=0).fit(X).pdf(ys)
    weighted = MoMKDE(3, 0.5, random_state=0).fit(X, sample_weight=weight).pdf(ys)
    np.testing.assert_allclose(weighted, unweighted, rtol=1e-12)


# ---- sampling ---------------------------------------------------------------------------


def _cdf_of(est, lo: float, hi: float):
    """The estimate's CDF on [lo, hi], by the trapezoid rule on a fine grid (normalised)."""
    xs = np.linspace(lo, hi, 40001)
    cdf = integrate.cumulative_trapezoid(est.pdf(xs), xs, initial=0.0)
    return lambda t: np.interp(t, xs, cdf / cdf[-1])


CONTAMINATED = np.r_[_sample(300)[:, 0], np.random.default_rng(11).uniform(8, 14, 30)]

SAMPLERS = {
    "kde_gaussian": lambda: KDE(0.3),
    "kde_tophat": lambda: KDE(0.5, kernel="tophat"),
    "kde_epanechnikov": lambda: KDE(0.5, kernel="epanechnikov"),
    "kde_exponential_weighted": lambda: KDE(0.2, kernel="exponential"),
    "mom_gaussian": lambda: MoMKDE(61, 0.3, random_state=0),
    "mom_even_tophat": lambda: MoMKDE(20, 0.6, kernel="tophat", random_state=0),
    "mom_weighted": lambda: MoMKDE(31, 0.3, random_state=0),
    "rkde": lambda: RKDE(0.3),
    "spkde": lambda: SPKDE(0.3, contamination=0.1),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_samples_follow_the_estimated_density_in_1d(name):
    weights = (
        np.random.default_rng(12).uniform(0.2, 3.0, len(CONTAMINATED))
        if "weighted" in name
        else None
    )
    est = SAMPLERS[name]().fit(CONTAMINATED, sample_weight=weights)
    draws = est.sample(3000, random_state=13)
    assert draws.shape == (3000, 1)
    assert stats.kstest(draws[:, 0], _cdf_of(est, -25, 40)).pvalue > 0.01


def test_the_ks_test_tells_mom_kde_from_the_kde_it_samples_first():
    """The test above has power: MoM-KDE's draws are not the KDE's (the outliers' mass)."""
    mom = MoMKDE(61, 0.3, random_state=0).fit(CONTAMINATED)
    kde = KDE(0.3).fit(CONTAMINATED)
    draws = mom.sample(3000, random_state=13)[:, 0]
    assert stats.kstest(draws, _cdf_of(kde, -25, 40)).pvalue < 1e-6
    assert np.mean(draws > 7) < 0.005 < np.mean(kde.sample(3000, random_state=13) > 7)


def test_mom_samples_follow_the_estimated_density_in_2d():
    rng = np.random.default_rng(14)
    X = np.r_[rng.normal(0, 0.6, (300, 2)), rng.normal((3, 3), 0.05, (30, 2))]
    est = MoMKDE(61, 0.35, random_state=0).fit(X)
    draws = est.sample(4000, random_state=15)
    edges = np.linspace(-3, 4, 8)
    counts, _, _ = np.histogram2d(draws[:, 0], draws[:, 1], bins=[edges, edges])
    fine = np.linspace(-3, 4, 281)
    cell = (fine[1] - fine[0]) ** 2
    dens = est.pdf_grid(fine, fine)
    mass = (
        np.add.reduceat(
            np.add.reduceat(dens[:-1, :-1], np.arange(0, 280, 40), axis=0),
            np.arange(0, 280, 40),
            axis=1,
        )
        * cell
    )
    expected = mass / mass.sum() * counts.sum()
    live = expected > 5
    chi2 = np.sum((counts[live] - expected[live]) ** 2 / expected[live])
    assert stats.chi2.sf(chi2, live.sum() - 1) > 0.01
    assert counts.sum() > 3950  # almost nothing beyond the box


def test_the_rejection_bound_holds_everywhere():
    """median of S block densities <= S / (floor(S/2) + 1) times their mean (the proof in
    ``sample``), at points where the blocks disagree most, for odd and even S."""
    ys = np.linspace(-3, 15, 500)
    for S in (2, 3, 4, 9, 20):
        est = MoMKDE(S, 0.2, normalize=False, random_state=S).fit(CONTAMINATED)
        blocks = np.exp(est.block_score_samples(ys))
        bound = S / (S // 2 + 1) * blocks.mean(axis=0)
        assert np.all(np.median(blocks, axis=0) <= bound * (1 + 1e-12))


def test_sample_is_reproducible_and_checks_its_arguments():
    est = MoMKDE(7, 0.3, random_state=0).fit(_sample(100, 2))
    # (the same call twice in this process: bit-identity is the property)
    np.testing.assert_array_equal(est.sample(50, random_state=1), est.sample(50, random_state=1))
    assert est.sample(0).shape == (0, 2)
    with pytest.raises(ValueError, match="non-negative integer"):
        est.sample(-1)
    with pytest.raises(Exception, match="not fitted"):
        KDE().sample(3)
