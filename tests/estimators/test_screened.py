"""ScreenedKDE: MoM-KDE's screen, then a KDE of the rows kept (momkde_core/screened.py).

Its scikit-learn citizenship (the estimator checks, feature names, weights, sampling, pickling,
hostile input) runs with the other estimators in test_sklearn_contract.py and
test_hostile_input.py; here: what the screen sets aside and what is fitted after it.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from sklearn.base import clone

from momkde_core import KDE, MoMKDE, OutlierDetector, ScreenedKDE, make_contaminated, make_detector
from momkde_core.estimators import _screened
from momkde_core.estimators._screened import (
    MIN_EXCESS,
    MIN_SAMPLED_MASS,
    NULL_MIN_BLOCKS,
    NULL_NEIGHBOURS,
    NULL_ROWS,
    NULL_SAMPLES,
    _beyond_null,
)


def _clustered(n_in: int = 950, n_out: int = 50, seed: int = 0) -> np.ndarray:
    """N(0, 1) inliers, then a tight cluster N(6, 0.01) (the last n_out rows)."""
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(0.0, 1.0, n_in), rng.normal(6.0, 0.01, n_out)][:, None]


def test_a_tight_cluster_is_set_aside_and_the_final_kde_is_that_of_the_rows_kept():
    X = _clustered()
    est = ScreenedKDE(contamination=0.05, random_state=0).fit(X)
    assert not est.inlier_mask_[950:].any()  # every row of the cluster
    assert est.inlier_mask_[:950].mean() > 0.98  # and hardly an inlier
    ref = KDE("cv", random_state=0).fit(X[est.inlier_mask_])
    # the same KDE: the weighted path (unit weights of the rows kept) sums the same terms in
    # another order, so a few ulps of each log density
    assert est.bandwidth_ == pytest.approx(ref.bandwidth_, rel=1e-12)
    ys = np.linspace(-4, 8, 50)[:, None]
    np.testing.assert_allclose(est.score_samples(ys), ref.score_samples(ys), rtol=1e-10)
    assert est.pdf([[6.0]])[0] < 1e-3 < KDE("cv", random_state=0).fit(X).pdf([[6.0]])[0]


def test_the_estimate_is_a_density_and_close_to_the_inliers_one():
    X = _clustered(seed=1)
    est = ScreenedKDE(contamination=0.05, random_state=1).fit(X)
    mass, _ = integrate.quad(lambda x: est.pdf([[x]])[0], -10, 12, limit=200)
    assert mass == pytest.approx(1.0, abs=1e-6)  # quad's tolerance on a smooth integrand
    xs = np.linspace(-5, 9, 1401)
    truth = stats.norm.pdf(xs)
    l1_screened = np.abs(est.pdf(xs[:, None]) - truth).sum() * 0.01
    l1_kde = np.abs(KDE("cv", random_state=1).fit(X).pdf(xs[:, None]) - truth).sum() * 0.01
    # the KDE puts 5 % of its mass (L1 0.1) on the cluster: at least half of that is gone
    assert l1_screened < l1_kde - 0.05


def test_contamination_zero_is_the_plain_kde():
    X = _clustered()
    est = ScreenedKDE(contamination=0.0, random_state=0).fit(X)
    assert est.inlier_mask_.all() and est.screen_ is None and est.contamination_ == 0.0
    ref = KDE("cv", random_state=0).fit(X)
    ys = np.linspace(-3, 7, 21)[:, None]
    np.testing.assert_allclose(est.score_samples(ys), ref.score_samples(ys), rtol=1e-12)


def test_share_cut_sets_aside_the_stated_share_of_lowest_screen_scores():
    X = np.random.default_rng(2).standard_normal((400, 2))
    est = ScreenedKDE(contamination=0.1, cut="share", random_state=2).fit(X)
    assert (~est.inlier_mask_).sum() == 40
    scores = est.screen_.score_samples(X)
    assert scores[~est.inlier_mask_].max() <= scores[est.inlier_mask_].min()


def test_ratio_cut_keeps_almost_every_row_of_clean_data():
    """No outliers: the pilot KDE exceeds the screen ten-fold at few rows (their tails)."""
    X = np.random.default_rng(3).standard_normal((1000, 1))
    est = ScreenedKDE(contamination=0.1, cut="ratio", random_state=3).fit(X)
    assert est.inlier_mask_.mean() > 0.9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_calibrated_cut_keeps_clean_data_and_most_of_its_extreme_rows(seed):
    """No outliers and a share stated 0.1 (blocks of ~5 rows): inside the tails, the excess
    the small blocks give is what the null's blocks give at the same screen density, so
    those rows stay (the ratio cut takes ~5 % of them). The most extreme rows, where the
    screen's density is below anything drawn from it, are set aside only when they are far
    beyond the null's range (BEYOND_RANGE_EXCESS): fewer than without that margin."""
    X = np.random.default_rng(seed).standard_normal((1000, 1))
    est = ScreenedKDE(contamination=0.1, random_state=seed).fit(X)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_screened, "BEYOND_RANGE_EXCESS", 0.0)
        unguarded = ScreenedKDE(contamination=0.1, random_state=seed).fit(X)
    aside, unguarded_aside = ~est.inlier_mask_, ~unguarded.inlier_mask_
    # without the margin 10-13 rows of the outer 5 % go at these seeds; with it, 2-4
    assert np.abs(X[unguarded_aside, 0]).min() > 2.0 and unguarded_aside.sum() >= 8
    assert (aside <= unguarded_aside).all() and aside.sum() <= unguarded_aside.sum() / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_far_scattered_outliers_beyond_the_nulls_range_are_still_set_aside(seed):
    """Outliers uniform on [8, 30] beside N(0, 1): the screen's density there is below every
    null row's and their excess is far beyond the null's (it grows with the squared
    distance), so the margin for rows beyond the null's range does not keep them."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, 1900), rng.uniform(8, 30, 100)][:, None]
    est = ScreenedKDE(contamination=0.05, random_state=seed).fit(X)
    assert (~est.inlier_mask_[1900:]).mean() > 0.9
    assert est.inlier_mask_[:1900].mean() > 0.99
    assert np.isfinite(est.screen_.score_samples(X[1900:])).all()  # finite levels: the margin
    with pytest.MonkeyPatch.context() as patch:  # decides, and an infinite one keeps them all
        patch.setattr(_screened, "BEYOND_RANGE_EXCESS", np.inf)
        never = ScreenedKDE(contamination=0.05, random_state=seed).fit(X)
    assert (~never.inlier_mask_[1900:]).mean() < 0.1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_calibrated_cut_finds_a_cluster_in_the_inliers_own_tail(seed):
    """A fifth of the rows in a cluster N(2.5, 0.15) on the flank of N(0, 1): the KDE rises
    there only a few-fold above the screen (the inliers' own density is high), below the
    ratio cut's ten-fold, but far above what the null's blocks give at that density."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, 800), rng.normal(2.5, 0.15, 200)][:, None]
    est = ScreenedKDE(contamination=0.2, random_state=seed).fit(X)
    assert (~est.inlier_mask_[800:]).mean() > 0.75
    assert est.inlier_mask_[:800].mean() > 0.97
    xs = np.linspace(-5, 5, 1001)
    truth = stats.norm.pdf(xs)
    l1 = {
        name: np.abs(e.pdf(xs[:, None]) - truth).sum() * 0.01
        for name, e in {"screened": est, "kde": KDE("cv", random_state=seed).fit(X)}.items()
    }
    assert l1["screened"] < 0.5 * l1["kde"]  # the KDE puts a fifth of its mass (L1 0.4) there


def test_a_screen_too_thin_to_draw_from_leaves_the_first_pass_to_the_ratio_cut(monkeypatch):
    """Blocks of ~1.2 points (a stated 0.4): the median keeps < 1 % of the blocks' mass, so
    rejection from it would keep < 1 candidate in 200; the screen is not drawn from."""
    X = make_contaminated("uniform", n_inliers=1000, ratio=0.4, random_state=0).X
    drawn = []
    original = MoMKDE.sample
    monkeypatch.setattr(
        MoMKDE, "sample", lambda self, *args, **kw: drawn.append(1) or original(self, *args, **kw)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the thin median's own warning
        est = ScreenedKDE(contamination=0.4, random_state=0).fit(X)
    assert np.exp(est.screen_.log_norm_) < MIN_SAMPLED_MASS and not drawn
    assert 0 < (~est.inlier_mask_).sum() <= (len(X) - 1) // 2


def test_calibrated_cut_is_reproducible_and_its_null_window_is_the_nearest_levels():
    X = _clustered(seed=4)
    one, two = (ScreenedKDE(contamination=0.05, random_state=4).fit(X) for _ in range(2))
    np.testing.assert_array_equal(one.inlier_mask_, two.inlier_mask_)  # the same draws
    rng = np.random.default_rng(0)
    null_levels, null_excess = rng.normal(size=300), rng.exponential(size=300)
    levels, excess = rng.normal(size=200) * 1.5, rng.exponential(size=200) * 2
    order = np.argsort(null_levels)
    for beyond_range in (0.0, 1.5):
        got = _beyond_null(levels, excess, null_levels, null_excess, beyond_range)
        for level, e, flag in zip(levels, excess, got):  # brute force: the 50 nearest levels
            start = int(
                np.clip(
                    np.searchsorted(null_levels[order], level) - NULL_NEIGHBOURS // 2,
                    0,
                    len(order) - NULL_NEIGHBOURS,
                )
            )
            window = null_excess[order][start : start + NULL_NEIGHBOURS]
            # beyond the null's range (below its lowest level), beyond_range more
            bound = window.max() + (beyond_range if level < null_levels.min() else 0.0)
            assert flag == (e > bound and e > MIN_EXCESS)
    # rows below the null's range whose excess beats the lowest window's by less than the
    # margin: set aside without it, kept with it
    lowest = null_excess[order[:NULL_NEIGHBOURS]].max()
    below = np.full(3, null_levels.min() - 1.0)
    between = np.full(3, max(lowest, MIN_EXCESS) + 0.75)
    assert _beyond_null(below, between, null_levels, null_excess, 0.0).all()
    assert not _beyond_null(below, between, null_levels, null_excess, 1.5).any()
    assert _beyond_null(below, between + 1.5, null_levels, null_excess, 1.5).all()


def test_a_custom_screen_is_cloned_seeded_and_keeps_the_stated_share():
    X = _clustered(seed=4)
    screen = KDE(bandwidth=0.5)
    est = ScreenedKDE(contamination=0.05, screen=screen, cut="share", random_state=0).fit(X)
    assert est.screen_ is not screen and not hasattr(screen, "bandwidth_")
    assert (~est.inlier_mask_).sum() == 50
    twin = clone(est)
    assert twin.get_params()["screen"] is not screen and not hasattr(twin, "inlier_mask_")
    # a screen's own share does not replace the stated one; its seed is ScreenedKDE's
    mom = ScreenedKDE(
        contamination=0.05, screen=MoMKDE(contamination=0.3), cut="share", random_state=7
    ).fit(X)
    assert mom.contamination_ == 0.05 and (~mom.inlier_mask_).sum() == 50
    assert mom.screen_.random_state == 7


def test_the_cut_never_sets_aside_half_of_the_rows():
    """A screen far flatter than the pilot everywhere (h = 100: ~0.004 against ~0.3) makes
    every row a candidate of the ratio cut: (n - 1) // 2 are set aside, the highest excess
    first."""
    X = np.random.default_rng(5).standard_normal((101, 1))
    est = ScreenedKDE(
        contamination=0.1, screen=KDE(bandwidth=100.0), cut="ratio", random_state=0
    ).fit(X)
    assert (~est.inlier_mask_).sum() == 50
    tiny = ScreenedKDE(contamination=0.3, bandwidth=0.5).fit([[0.0], [1.0]])
    assert tiny.inlier_mask_.all()  # fewer than 3 rows: nothing to screen


def test_weights_reach_the_screen_and_rows_of_weight_zero_are_not_kept():
    X = _clustered(seed=5)
    w = np.ones(len(X))
    w[:100] = 0.0
    est = ScreenedKDE(contamination=0.05, random_state=0).fit(X, sample_weight=w)
    assert not est.inlier_mask_[:100].any() and not est.inlier_mask_[950:].any()
    assert est.screen_.n_blocks_ == 2 * int(np.ceil(0.05 * 900)) + 1  # the 900 rows weighed


def test_auto_contamination_is_estimated_by_the_screen():
    X = _clustered(seed=6)
    est = ScreenedKDE(contamination="auto", random_state=0).fit(X)
    assert est.contamination_ == est.screen_.contamination_ > 0
    assert not est.inlier_mask_[950:].any()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"cut": "gap"}, "cut must be one of"),
        ({"ratio": 1.0}, "ratio must be a finite number above 1"),
        ({"ratio": True}, "ratio"),
        ({"contamination": 0.5}, "contamination"),
    ],
)
def test_bad_parameters_are_refused_before_any_work(params, match):
    with pytest.raises(ValueError, match=match):
        ScreenedKDE(**params).fit(_clustered())


class _ScreenThatMustNotRun(KDE):
    def fit(self, X, y=None, sample_weight=None):
        raise AssertionError("the screen ran before the parameters were checked")


@pytest.mark.parametrize(
    "params, match",
    [
        ({"bandwidth": "bogus"}, "unknown bandwidth rule"),
        ({"bandwidth": -1.0}, "bandwidth"),
        ({"bandwidth": "isj"}, "1-D data only"),
        ({"contamination": "auto"}, "needs the default screen"),
    ],
)
def test_the_final_rule_and_auto_are_checked_before_the_screen_runs(params, match):
    X = np.random.default_rng(6).standard_normal((50, 2))
    with pytest.raises(ValueError, match=match):
        ScreenedKDE(screen=_ScreenThatMustNotRun(), **params).fit(X)


def test_a_screen_without_scores_is_a_type_error():
    with pytest.raises(TypeError, match="score_samples"):
        ScreenedKDE(screen=object()).fit(_clustered())


def test_the_calibrated_cut_needs_a_screen_it_can_draw_from():
    class ScoresOnly:  # a density screen with no sample()
        def fit(self, X, sample_weight=None):
            return self

        def score_samples(self, X):
            return np.zeros(len(X))

    with pytest.raises(TypeError, match="no sample"):
        ScreenedKDE(contamination=0.05, screen=ScoresOnly()).fit(_clustered())


def test_pickled_fit_scores_the_same():
    est = ScreenedKDE(contamination=0.05, random_state=0).fit(_clustered())
    twin = pickle.loads(pickle.dumps(est))
    ys = np.linspace(-3, 7, 11)[:, None]
    # the same fitted arrays through the same code path: bit-identical by construction
    np.testing.assert_array_equal(twin.score_samples(ys), est.score_samples(ys))
    np.testing.assert_array_equal(twin.inlier_mask_, est.inlier_mask_)


def test_detector_random_state_makes_the_default_reproducible():
    X = np.random.default_rng(7).standard_normal((300, 2))
    a = OutlierDetector(contamination=0.1, random_state=3).fit(X)
    b = OutlierDetector(contamination=0.1, random_state=3).fit(X)
    # the same seed, the same code path, one process: the same blocks and the same sums
    np.testing.assert_array_equal(a.score_samples(X), b.score_samples(X))
    assert a.estimator_.random_state == 3
    given = OutlierDetector(MoMKDE(random_state=9), random_state=None).fit(X)
    assert given.estimator_.random_state == 9  # None leaves the estimator's own seed
    seeded = OutlierDetector(MoMKDE(random_state=9), random_state=4)
    assert clone(seeded).fit(X).estimator_.random_state == 4


def test_make_detector_screened_kde_flags_the_cluster():
    X = _clustered(seed=8)
    det = make_detector("screened_kde", contamination=0.05, random_state=0).fit(X)
    assert isinstance(det.estimator_, ScreenedKDE)
    assert (det.predict(X[950:]) == -1).all()
    with pytest.raises(ValueError, match=r"contamination must be a number in \[0, 0.5\)"):
        make_detector("screened_kde", contamination=0.5)


def test_momkde_warns_when_its_median_keeps_less_than_half_of_the_mass():
    """The median's integral measures the breakdown directly, whatever the dimension: 2-D
    blocks of 1.7 points keep ~0.3 of the blocks' mass; 1-D blocks of 5 keep ~0.8."""
    X = np.random.default_rng(0).standard_normal((1000, 2))
    with pytest.warns(UserWarning, match=r"holds only [0-9.e+-]+ % of their mass"):
        est = MoMKDE(contamination=0.3, random_state=0).fit(X)
    assert est.log_norm_ < np.log(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = MoMKDE(contamination=0.1, random_state=0).fit(X[:, :1])
    assert ok.log_norm_ > np.log(0.5)


def test_a_thin_screen_warns_with_screened_kde_s_own_advice():
    X = np.random.default_rng(0).standard_normal((1000, 2))
    with pytest.warns(UserWarning, match=r"the screen's median .* holds only .*state a smaller"):
        ScreenedKDE(contamination=0.3, random_state=0).fit(X)


def test_the_docstring_examples_run():
    import doctest

    import momkde_core.estimators._screened as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("contamination", "size", "blocks"),
    # S = 2 ceil(eps n) + 1 at n = 4000: 801 blocks of ~5 rows -> NULL_ROWS rows in 401 blocks;
    # 41 blocks of ~98 rows -> the rows of NULL_MIN_BLOCKS blocks of that size
    [(0.1, NULL_ROWS, 401), (0.005, int(np.ceil(NULL_MIN_BLOCKS * 4000 / 41)), NULL_MIN_BLOCKS)],
)
def test_a_large_sample_is_calibrated_on_null_samples_of_the_screens_block_size(
    monkeypatch, contamination, size, blocks
):
    """Above NULL_ROWS rows, the null twins are fitted on fewer rows with proportionally fewer
    blocks: the block size, which sets what the median ignores, is the screen's."""
    fitted = []
    fit = MoMKDE.fit

    def spy(self, X, sample_weight=None):
        fitted.append((len(X), self.n_blocks))
        return fit(self, X, sample_weight)

    monkeypatch.setattr(MoMKDE, "fit", spy)
    X = _clustered(n_in=3800, n_out=200)
    est = ScreenedKDE(contamination=contamination, random_state=0).fit(X)
    screen_blocks = est.screen_.n_blocks_
    twins = [(rows, S) for rows, S in fitted if rows != len(X)]
    assert twins and all(rows == size for rows, _ in twins[: 2 * NULL_SAMPLES])
    assert twins[0][1] == blocks and blocks % 2 == screen_blocks % 2 == 1  # an odd median
    # the block size is kept to within one block's share of the rounding (two blocks: parity)
    assert abs(size / blocks - len(X) / screen_blocks) <= 2 * len(X) / screen_blocks / blocks
    if contamination == 0.1:
        assert not est.inlier_mask_[3800:].any()  # and the cluster is still set aside


def test_a_fit_without_a_seed_is_reproducible():
    """random_state=None draws its seed from the rows: two fits of the same rows set aside the
    same rows and give the same density (the same computation twice: equal to round-off of
    the same BLAS calls, allowed 1e-12 relative), on a t(3) sample whose masks used to differ
    between two unseeded fits, and on a mixed table."""
    rng = np.random.default_rng(3)
    X = np.r_[rng.standard_t(3, 600), rng.normal(5, 0.05, 30)][:, None]
    fits = [ScreenedKDE(contamination=0.05).fit(X) for _ in range(2)]
    np.testing.assert_array_equal(fits[0].inlier_mask_, fits[1].inlier_mask_)
    grid = np.linspace(-6, 8, 50)[:, None]
    np.testing.assert_allclose(fits[0].pdf(grid), fits[1].pdf(grid), rtol=1e-12)
    table = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(["a", "b", "c"], 300)})
    masks = [ScreenedKDE(contamination=0.05).fit(table).inlier_mask_ for _ in range(2)]
    np.testing.assert_array_equal(*masks)
