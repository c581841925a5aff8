"""OutlierDetector: scikit-learn's outlier-detector contract over any density estimator."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import KernelDensity
from sklearn.utils.estimator_checks import check_estimator

import momkde_core._rows as rows_module
import momkde_core.detector as detector_module
from momkde_core import (
    KDE,
    RKDE,
    SPKDE,
    MoMKDE,
    OutlierDetector,
    make_contaminated,
    make_detector,
    metrics,
)

ESTIMATORS = {
    "kde": lambda: KDE(bandwidth=0.4),
    "mom_kde": lambda: MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0),
    "rkde": lambda: RKDE(bandwidth=0.4),
    "spkde": lambda: SPKDE(bandwidth=0.4, contamination=0.1),
    "sklearn": lambda: KernelDensity(bandwidth=0.4),
}


@pytest.fixture(scope="module")
def sample():
    return make_contaminated("uniform", n_inliers=360, ratio=0.1, dim=2, random_state=0)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_wraps_each_estimator_and_flags_the_stated_share(sample, name):
    original = ESTIMATORS[name]()
    det = OutlierDetector(original, contamination=0.1).fit(sample.X)
    labels = det.predict(sample.X)
    assert set(np.unique(labels)) == {-1, 1}
    assert abs(np.mean(labels == -1) - 0.1) <= 1 / len(sample.X)
    assert det.n_features_in_ == 2
    assert det.estimator_ is not original and type(det.estimator_) is type(original)
    assert not hasattr(original, "n_features_in_")  # the clone was fitted, not the original
    np.testing.assert_allclose(det.score_samples(sample.X), det.estimator_.score_samples(sample.X))
    assert metrics.auc(det.score_samples(sample.X), sample.is_outlier) > 0.9


@pytest.mark.parametrize("contamination", [0.01, 0.05, 0.25, 0.5])
def test_share_flagged_on_the_training_data_is_the_contamination(sample, contamination):
    det = OutlierDetector(KDE(bandwidth=0.4), contamination=contamination).fit(sample.X)
    share = np.mean(det.predict(sample.X) == -1)
    assert abs(share - contamination) <= 1 / len(sample.X)
    assert det.offset_ == pytest.approx(
        np.percentile(det.score_samples(sample.X), 100 * contamination)
    )


def test_decision_function_is_negative_exactly_for_outliers(sample):
    det = OutlierDetector(MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0)).fit(sample.X)
    grid = np.random.default_rng(1).uniform(-4, 10, size=(500, 2))
    for X in (sample.X, grid):
        decision = det.decision_function(X)
        np.testing.assert_array_equal(decision < 0, det.predict(X) == -1)
        np.testing.assert_allclose(decision, det.score_samples(X) - det.offset_)


def test_fit_predict_is_fit_then_predict(sample):
    det = OutlierDetector(MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0), contamination=0.05)
    # (the same fit and scores twice in this process: exact)
    np.testing.assert_array_equal(
        det.fit_predict(sample.X), clone(det).fit(sample.X).predict(sample.X)
    )


def test_default_is_mom_kde_21_scott_without_normalisation(sample):
    det = OutlierDetector(contamination=0.05, random_state=0).fit(sample.X)
    est = det.estimator_
    assert isinstance(est, MoMKDE)
    assert (est.n_blocks, est.bandwidth, est.normalize) == (21, "scott", False)
    assert est.n_blocks_ == 21
    assert metrics.auc(det.score_samples(sample.X), sample.is_outlier) > 0.9


def test_default_score_is_the_mean_of_its_blocks_log_densities(sample):
    """Against an independent reference: each block's rows refitted as a plain KDE at the
    fitted bandwidth (scipy-free, momkde's KDE), the mean of their log densities."""
    det = OutlierDetector(random_state=0).fit(sample.X)
    est = det.estimator_
    queries = np.vstack([sample.X[:30], [[10.0, -10.0]]])
    fitted_rows = sample.X  # (360 + 36 rows: fewer than max_samples="auto", all fitted)
    logs = [
        KDE(bandwidth=est.bandwidth_).fit(fitted_rows[est.block_of_ == s]).score_samples(queries)
        for s in range(est.n_blocks_)
    ]
    # the same sums by two routes (BLAS and log space): agreement to round-off, 1e-9 nats
    np.testing.assert_allclose(det.score_samples(queries), np.mean(logs, axis=0), atol=1e-9)
    assert det.scoring_ == "block_log_mean"
    assert OutlierDetector(MoMKDE(n_blocks=21)).fit(sample.X).scoring_ == "estimator"


def test_default_takes_a_block_per_row_on_fewer_than_21_rows(sample):
    det = OutlierDetector(random_state=0).fit(sample.X[:8])
    assert det.estimator_.n_blocks_ == 8
    assert np.isfinite(det.score_samples(sample.X)).all()


def test_default_ranking_reads_no_share(sample):
    """The stated share moves the threshold only: the default's scores are the same for
    every contamination (same seed, same fit)."""
    scores = [
        OutlierDetector(contamination=c, random_state=0).fit(sample.X).score_samples(sample.X)
        for c in (0.01, 0.1, 0.5)
    ]
    # (the same computation each time, in this process: exact)
    np.testing.assert_array_equal(scores[0], scores[1])
    np.testing.assert_array_equal(scores[0], scores[2])


def test_normalisation_is_switched_off_in_the_clone_only(sample):
    original = MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0)
    det = OutlierDetector(original).fit(sample.X)
    assert original.normalize is True and det.estimator_.normalize is False
    normalised = clone(original).fit(sample.X).score_samples(sample.X)
    # normalising shifts every log density by one constant: no ranking changes
    np.testing.assert_allclose(
        normalised - det.score_samples(sample.X),
        -clone(original).fit(sample.X).log_norm_,
        rtol=1e-12,
    )


def test_finds_planted_outliers():
    data = make_contaminated("uniform", n_inliers=500, ratio=0.1, random_state=3)
    det = OutlierDetector(contamination=0.1).fit(data.X)
    assert metrics.auc(det.score_samples(data.X), data.is_outlier) > 0.85
    flagged = det.predict(data.X) == -1
    assert data.is_outlier[flagged].mean() > 0.6  # most flagged rows are planted outliers


def test_clone_and_params():
    det = OutlierDetector(KDE(bandwidth=0.3), contamination=0.2)
    twin = clone(det)
    assert twin.get_params()["contamination"] == 0.2
    assert twin.get_params()["estimator__bandwidth"] == 0.3
    assert twin.estimator is not det.estimator


def test_pickle_round_trip_gives_the_same_predictions(sample):
    det = OutlierDetector(MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0)).fit(sample.X)
    again = pickle.loads(pickle.dumps(det))  # (same state, same calls: exact)
    np.testing.assert_array_equal(again.predict(sample.X), det.predict(sample.X))
    np.testing.assert_array_equal(
        again.decision_function(sample.X), det.decision_function(sample.X)
    )


def test_scores_in_batches_equal_scores_at_once(sample, monkeypatch):
    det = OutlierDetector(MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0)).fit(sample.X)
    whole = det.score_samples(sample.X)
    monkeypatch.setattr(rows_module, "BATCH_VALUES", 15 * 7)  # batches of 7 rows
    # The same sums, but BLAS forms the squared distances |x|^2 + |y|^2 - 2 x.y in products
    # of other shapes (7 queries, not 165, a chunk), which another kernel may round
    # otherwise: a few ulps of |x|^2 + |y|^2 (at most 4 max |x_k|^2 in 2-D, the data
    # centred) in an exponent divided by 2 h^2, the same in the log score. Allowed: 8 such
    # ulps (7.8e-13 here).
    exponent = 4 * np.max(np.abs(sample.X - sample.X.mean(axis=0))) ** 2 / (2 * 0.4**2)
    atol = 8 * np.finfo(float).eps * exponent
    np.testing.assert_allclose(det.score_samples(sample.X), whole, rtol=0, atol=atol)
    batched = OutlierDetector(MoMKDE(n_blocks=15, bandwidth=0.4, random_state=0)).fit(sample.X)
    assert batched.offset_ == pytest.approx(det.offset_, rel=0, abs=atol)  # (a score)


def test_zero_density_rows_are_handled_without_nan():
    # with a compact kernel, MoM-KDE's median is 0 (log -inf) at rows that a minority of
    # blocks reach: here the ten isolated rows
    X = np.concatenate([np.linspace(0, 1, 90), 10.0 * np.arange(1, 11)])[:, None]
    est = MoMKDE(n_blocks=15, bandwidth=0.3, kernel="tophat", random_state=0)
    det = OutlierDetector(est, contamination=0.1).fit(X)
    assert (
        np.isneginf(det.score_samples(X)[-10:]).all()
        and np.isfinite(det.score_samples(X)[:90]).all()
    )
    assert np.isfinite(det.offset_)  # the finite neighbour of the quantile, not NaN
    np.testing.assert_array_equal(det.predict(X) == -1, np.arange(100) >= 90)
    # more zero-density rows than the share: the threshold is -inf, they are ties, not flagged
    det = OutlierDetector(est, contamination=0.05).fit(X)
    decision = det.decision_function(X)
    assert det.offset_ == -np.inf and not np.isnan(decision).any()
    np.testing.assert_array_equal(decision < 0, det.predict(X) == -1)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")  # array API: not set up
def test_follows_scikit_learns_estimator_checks():
    check_estimator(OutlierDetector(KernelDensity()))


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 0.51, 0.7, 1, True, "auto", None, np.nan])
def test_contamination_outside_0_to_half_is_refused(sample, bad):
    with pytest.raises(
        ValueError,
        match=r"'contamination' parameter of OutlierDetector must be a "
        r"float in the range \(0.0, 0.5\]",
    ):
        OutlierDetector(KDE(), contamination=bad).fit(sample.X)


def test_mom_kde_needs_a_share_below_half(sample):
    with pytest.raises(ValueError, match=r"contamination must be a number in \[0, 0.5\)"):
        make_detector("mom_kde", contamination=0.5)
    OutlierDetector(contamination=0.5).fit(sample.X)  # the default reads no share
    OutlierDetector(KDE(), contamination=0.5).fit(sample.X)  # nor does a KDE


def test_unfitted_detector_refuses_to_predict(sample):
    det = OutlierDetector(KDE())
    for method in (det.predict, det.decision_function, det.score_samples):
        with pytest.raises(NotFittedError):
            method(sample.X)
    assert not hasattr(det, "n_features_in_")


def test_estimator_without_score_samples_is_refused(sample):
    from sklearn.cluster import KMeans

    with pytest.raises(
        TypeError, match="estimator.*implementing 'fit' and 'score_samples'.*KMeans"
    ):
        OutlierDetector(KMeans(n_clusters=2)).fit(sample.X)


@pytest.mark.parametrize(
    "method, kind, params",
    [
        ("mom_kde", MoMKDE, {"n_blocks": "auto", "contamination": 0.05, "random_state": 7}),
        ("kde", KDE, {"bandwidth": "cv", "random_state": 7}),
        ("rkde", RKDE, {"bandwidth": "cv", "random_state": 7}),
        ("spkde", SPKDE, {"bandwidth": "cv", "contamination": 0.05, "random_state": 7}),
    ],
)
def test_make_detector_maps_method_names_to_estimators(method, kind, params):
    det = make_detector(method, contamination=0.05, random_state=7)
    assert isinstance(det, OutlierDetector) and det.contamination == 0.05
    assert type(det.estimator) is kind
    assert params.items() <= det.estimator.get_params().items()


def test_make_detector_checks_its_arguments_at_once():
    with pytest.raises(
        ValueError, match="unknown method 'iforest'; allowed: mom_kde_21, kde, mom_kde, rkde, spkde"
    ):
        make_detector("iforest")
    with pytest.raises(ValueError, match=r"range \(0.0, 0.5\]"):
        make_detector("kde", contamination=0.7)
    with pytest.raises(ValueError, match=r"contamination must be a number in \[0, 0.5\)"):
        make_detector("mom_kde", contamination=0.5)
    assert make_detector("spkde", contamination=0.5).estimator.contamination == 0.5


def test_threshold_from_a_uniform_sample_of_many_training_rows(monkeypatch):
    """Beyond THRESHOLD_ROWS training rows the threshold is the quantile of that many rows
    drawn with random_state: the same detector for the same seed, and the share flagged
    among all training rows within 3 standard deviations of the quantile's sampling error."""
    monkeypatch.setattr(detector_module, "THRESHOLD_ROWS", 400)
    X = make_contaminated("uniform", n_inliers=1800, ratio=0.1, random_state=2).X
    first = OutlierDetector(KDE(bandwidth=0.3), contamination=0.1, random_state=5).fit(X)
    again = OutlierDetector(KDE(bandwidth=0.3), contamination=0.1, random_state=5).fit(X)
    assert first.offset_ == again.offset_
    everyone = OutlierDetector(KDE(bandwidth=0.3), contamination=0.1).fit(X[:400])
    assert everyone.offset_ == _lower_quantile_of(everyone, X[:400], 0.1)
    share = float(np.mean(first.predict(X) == -1))
    assert abs(share - 0.1) < 3 * np.sqrt(0.1 * 0.9 / 400)


def _lower_quantile_of(det, X, share):
    """The threshold a detector fitted on all of X sets (numpy's percentile of its scores)."""
    return float(np.percentile(det.score_samples(X), 100 * share))


def _kde_on(X, rows=None):
    """KDE(bandwidth=0.5)'s scores of X, fitted on X[rows] (every row when None)."""
    return KDE(bandwidth=0.5).fit(X if rows is None else X[rows]).score_samples(X)


def test_max_samples_fits_on_a_seeded_sample_of_the_rows(sample):
    n = len(sample.X)
    # (the same fit on the same rows in this process: exact)
    for max_samples, count in ((50, 50), (0.25, int(0.25 * n))):
        det = OutlierDetector(KDE(bandwidth=0.5), random_state=3, max_samples=max_samples)
        rows = np.sort(np.random.RandomState(3).choice(n, count, replace=False))
        np.testing.assert_array_equal(
            det.fit(sample.X).score_samples(sample.X), _kde_on(sample.X, rows)
        )


def test_max_samples_auto_keeps_every_row_of_an_estimator_given(sample):
    for max_samples in ("auto", None, 10**6):
        det = OutlierDetector(KDE(bandwidth=0.5), max_samples=max_samples).fit(sample.X)
        np.testing.assert_array_equal(det.score_samples(sample.X), _kde_on(sample.X))


def test_max_samples_auto_caps_the_default_estimator(sample, monkeypatch):
    monkeypatch.setattr(detector_module, "DEFAULT_MAX_SAMPLES", 100)
    auto = OutlierDetector(random_state=0).fit(sample.X)
    capped = OutlierDetector(random_state=0, max_samples=100).fit(sample.X)
    every = OutlierDetector(random_state=0, max_samples=None).fit(sample.X)
    np.testing.assert_array_equal(auto.score_samples(sample.X), capped.score_samples(sample.X))
    assert not np.array_equal(auto.score_samples(sample.X), every.score_samples(sample.X))
    # the threshold still comes from every training row: the stated share of them is flagged
    assert abs((auto.predict(sample.X) == -1).mean() - 0.1) <= 1 / len(sample.X)


@pytest.mark.parametrize("bad", [0, -3, 0.0, 1.5, "all", True])
def test_bad_max_samples_is_a_clear_error(sample, bad):
    with pytest.raises(ValueError, match="max_samples"):
        OutlierDetector(KDE(bandwidth=0.5), max_samples=bad).fit(sample.X)
