"""MoM-KDE's robust defaults: S and h from the stated contamination (no labels, no truth)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm

from momkde_core import KDE, MoMKDE, config_context, make_contaminated, metrics
from momkde_core import experiments as ex
from momkde_core.bandwidth import (
    estimate_contamination,
    leave_own_block_out_scores,
    n_blocks_for,
    select_bandwidth,
)
from momkde_core.bandwidth._robust import BlockDistances, _subsample
from momkde_core.experiments import _tasks
from momkde_core.kernels import get_kernel
from momkde_core.synthetic import CLEAN_DENSITIES, make_clean

GAUSS = get_kernel("gaussian")


@given(n=st.integers(1, 10**6), eps=st.floats(0.0, 0.4999))
def test_auto_s_exceeds_twice_the_expected_outliers(n: int, eps: float) -> None:
    S = n_blocks_for(n, eps)
    assert 1 <= S <= n
    assert S > 2 * eps * n - 1e-6 or S == n
    assert S % 2 == 1 or S == n


def test_no_contamination_gives_one_block_and_the_kde() -> None:
    X = np.random.default_rng(0).normal(size=(300, 1))
    est = MoMKDE(contamination=0.0, random_state=0).fit(X)
    assert est.n_blocks_ == 1
    kde = KDE(est.bandwidth_).fit(X)
    # bit for bit: one block is the KDE (the same arrays through the same code)
    np.testing.assert_array_equal(est.score_samples(X[:20]), kde.score_samples(X[:20]))


def test_leave_own_block_out_matches_a_dense_computation() -> None:
    X = np.random.default_rng(1).normal(size=(61, 1))
    S, h = 7, 0.4
    scores = leave_own_block_out_scores(X, S, h, GAUSS, random_state=3)
    est = MoMKDE(S, h, random_state=3).fit(X)  # the same partition and normaliser
    k = norm.pdf((X[:, 0][:, None] - X[:, 0][None, :]) / h) / h  # k[i, j] = K_h(X_i - X_j)
    expected = []
    for i in range(len(X)):
        blocks = [k[i, est.block_of_ == b].mean() for b in range(S) if b != est.block_of_[i]]
        expected.append(np.log(np.median(blocks)) - est.log_norm_)
    np.testing.assert_allclose(scores, expected, rtol=1e-10)


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov", "exponential"])
@pytest.mark.parametrize("n, S", [(23, 4), (50, 17), (200, 67)])
def test_block_distances_log_sums_against_a_direct_logsumexp(kernel, n, S) -> None:
    """The slot layout's per-block sums (blocks of unequal sizes, the own point left out)
    against scipy's logsumexp of each block's kernel logs. The sums are taken relative to
    the row's nearest other point, as documented: a block whose terms are all beyond exp's
    range from it (a small h, the far points) is -inf, one within 700 of it exact."""
    from scipy.special import logsumexp

    rng = np.random.default_rng(n)
    X = np.r_[rng.normal(size=(n - 3, 2)), [[40.0, 40.0], [40.1, 40.0], [-30.0, 5.0]]]
    k = get_kernel(kernel)
    by_block = BlockDistances(X, S, random_state=5)
    assert sorted(set(np.bincount(by_block.block_of, minlength=S))) in (
        [n // S],
        [n // S, n // S + 1],
    )
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    for h in (0.02, 0.3, 2.0):
        got = by_block.log_sums(h, k, 2)
        log_k = k.log_kernel_sq(sq, h, 2)
        np.fill_diagonal(log_k, -np.inf)
        with np.errstate(divide="ignore"):
            expected = np.stack(
                [logsumexp(log_k[:, by_block.block_of == b], axis=1) for b in range(S)], axis=1
            )
        nearest = log_k.max(axis=1, keepdims=True)
        lonely = np.isneginf(nearest[:, 0])  # (compact kernels: no other point in reach)
        assert np.isneginf(got[lonely]).all()
        with np.errstate(invalid="ignore"):
            below = expected - nearest  # to the row's nearest term
        assert np.isneginf(got[below < -746]).all()
        near = below > -700
        assert near.sum() >= (~lonely).sum()  # (every row with a neighbour: its nearest block)
        # (rtol: the distances come from scikit-learn's BLAS expansion, which loses
        # digits for the close pair far from the origin)
        np.testing.assert_allclose(got[near], expected[near], rtol=1e-9, atol=1e-12)


def test_scores_stay_finite_when_h_squared_overflows() -> None:
    """h = 1e160 (h^2 overflows to inf, the Gaussian's -1/(2 h^2) to -0): the own point and
    the empty slots still count for nothing, and every score is the flat kernel's."""
    X = np.random.default_rng(0).normal(size=(30, 1))
    peak = GAUSS.log_kernel_sq(np.zeros(1), 1e160, 1)[0]
    np.testing.assert_allclose(leave_own_block_out_scores(X, 1, 1e160, GAUSS, 0), peak)
    by_block = BlockDistances(X, 7, random_state=0)
    logs = by_block.log_sums(1e160, GAUSS, 1)
    assert np.isfinite(logs).all()
    np.testing.assert_allclose(
        logs,
        peak
        + np.log(
            np.bincount(by_block.block_of)[None, :] - (by_block.block_of[:, None] == np.arange(7))
        ),
    )


def test_one_block_score_is_the_leave_one_out_kde() -> None:
    X = np.random.default_rng(2).normal(size=(40, 1))
    h = 0.5
    k = norm.pdf((X[:, 0][:, None] - X[:, 0][None, :]) / h) / h
    loo = (k.sum(axis=1) - k.diagonal()) / (len(X) - 1)
    np.testing.assert_allclose(
        leave_own_block_out_scores(X, 1, h, GAUSS, 0), np.log(loo), rtol=1e-10
    )


def test_a_spike_does_not_capture_the_robust_bandwidth() -> None:
    """The app's thin-Gaussian demo: CV shrinks h to the spike; "robust" keeps the inliers'
    scale, and MoM-KDE with the defaults beats the KDE with CV by a wide margin."""
    data = make_contaminated("thin_gaussian", n_inliers=1000, ratio=0.1, random_state=0)
    h_cv = select_bandwidth(data.X, "cv", GAUSS, random_state=0)
    est = MoMKDE(contamination=0.1, random_state=0).fit(data.X)
    assert est.n_blocks_ == n_blocks_for(len(data.X), 0.1)
    assert est.bandwidth_ > 4 * h_cv
    xs = np.linspace(-5, 11, 2048)
    cell = xs[1] - xs[0]
    truth = data.true_pdf(xs)
    js_auto = metrics.js_divergence(est.pdf_grid(xs), truth, cell)
    js_kde = metrics.js_divergence(KDE(h_cv).fit(data.X).pdf_grid(xs), truth, cell)
    assert js_auto < js_kde / 3


def test_defaults_cost_a_bounded_factor_on_a_clean_gaussian() -> None:
    """The price of the median on clean data, averaged over 4 samples: measured ~1.5-2x the
    KDE's JS for a contamination of 0.01 (docs/reproduction.md); a rule that erased tails or
    modes would cost 10x and more."""
    xs = np.linspace(-6, 6, 1024)
    cell = xs[1] - xs[0]
    truth = norm.pdf(xs)
    js_auto, js_kde = [], []
    for seed in range(4):
        X = np.random.default_rng(seed).normal(size=(800, 1))
        js_auto.append(
            metrics.js_divergence(
                MoMKDE(contamination=0.01, random_state=0).fit(X).pdf_grid(xs), truth, cell
            )
        )
        js_kde.append(
            metrics.js_divergence(KDE("cv", random_state=0).fit(X).pdf_grid(xs), truth, cell)
        )
    assert np.mean(js_auto) < 3.0 * np.mean(js_kde)


def test_auto_never_reads_labels_and_is_deterministic_for_a_seed() -> None:
    data = make_contaminated("regular_gaussian", n_inliers=300, ratio=0.1, random_state=4)
    fits = [
        MoMKDE(contamination=c, random_state=7).fit(data.X, y)
        for c, y in [
            (0.1, None),
            (0.1, data.is_outlier),
            (0.1, ~data.is_outlier),
            ("auto", None),
            ("auto", data.is_outlier),
        ]
    ]
    # (exact: the labels are not read, so the same computation runs)
    for a, b in [(fits[0], fits[1]), (fits[0], fits[2]), (fits[3], fits[4])]:
        assert (a.n_blocks_, a.bandwidth_, a.contamination_) == (
            b.n_blocks_,
            b.bandwidth_,
            b.contamination_,
        )
        np.testing.assert_array_equal(a.pdf(data.X[:50]), b.pdf(data.X[:50]))
    assert 0.0 <= fits[3].contamination_ < 0.5


@pytest.mark.parametrize("bad", [-0.1, 0.5, 0.7, 1, "most", True, None, float("nan")])
def test_contamination_outside_the_allowed_range_is_refused(bad) -> None:
    X = np.random.default_rng(0).normal(size=(50, 1))
    with pytest.raises(ValueError, match=r"\[0, 0\.5\) or 'auto'"):
        MoMKDE(contamination=bad).fit(X)


@pytest.mark.parametrize("bad", [0, 51, 2.5, "many", True])
def test_bad_n_blocks_is_refused(bad) -> None:
    X = np.random.default_rng(0).normal(size=(50, 1))
    with pytest.raises(ValueError, match="n_blocks must be 'auto' or an integer"):
        MoMKDE(n_blocks=bad).fit(X)


def test_integer_blocks_and_numeric_bandwidth_are_used_as_given() -> None:
    X = np.random.default_rng(0).normal(size=(100, 2))
    est = MoMKDE(n_blocks=9, bandwidth=0.3, random_state=0).fit(X)
    assert (est.n_blocks_, est.bandwidth_) == (9, 0.3)
    assert np.bincount(est.block_of_).tolist() == [12] + [11] * 8


def test_large_samples_choose_h_on_a_subsample_with_the_same_block_size() -> None:
    X = np.random.default_rng(0).normal(size=(10_000, 1))
    Xs, S = _subsample(X, n_blocks_for(10_000, 0.1), 2000, np.random.RandomState(0))
    assert len(Xs) == 2000 and S == round(2001 * 2000 / 10_000)
    assert abs(len(X) / n_blocks_for(10_000, 0.1) - len(Xs) / S) < 0.1
    est = MoMKDE(contamination=0.1, normalize=False, random_state=0).fit(X)
    assert est.n_blocks_ == 2001 and 0.1 < est.bandwidth_ < 1.0


def test_estimated_contamination_sees_a_spike_and_its_known_failure_mode() -> None:
    """A 10 % thin spike is seen (the estimate is within a factor 2); a clean density with a
    20 % minor mode is reported as contaminated too: why "auto" is never the default."""
    spiky = make_contaminated("thin_gaussian", n_inliers=900, ratio=0.1, random_state=0)
    eps = estimate_contamination(spiky.X, GAUSS, select_bandwidth(spiky.X, "scott", GAUSS), 0)
    assert 0.05 < eps < 0.2
    clean = make_clean("two_modes_80_20", 1000, random_state=0)
    eps_clean = estimate_contamination(clean.X, GAUSS, select_bandwidth(clean.X, "scott", GAUSS), 0)
    assert eps_clean > 0.05


@pytest.mark.parametrize("name", CLEAN_DENSITIES)
def test_clean_densities_integrate_to_one_and_match_their_samples(name: str) -> None:
    data = make_clean(name, 4000, random_state=1)
    xs = np.linspace(-60, 60, 200_001)
    assert math.isclose(np.trapezoid(data.true_pdf(xs), xs), 1.0, abs_tol=2e-4)
    # the sample's histogram follows the density (within sampling noise)
    counts, edges = np.histogram(data.X[:, 0], bins=40, range=(-4, 10))
    fine = np.linspace(edges[:-1], edges[1:], 201)  # (201, bins): each bin's own nodes
    expected = np.trapezoid(data.true_pdf(fine.ravel()).reshape(fine.shape), fine, axis=0)
    expected *= len(data.X)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected + 4))
    assert not data.is_outlier.any()


def test_runner_measures_the_auto_methods_on_clean_and_contaminated_samples() -> None:
    clean = ex.run_experiments(
        ex.make_tasks(
            "clean",
            ["gamma_2_1"],
            reps=1,
            n_inliers=300,
            methods=["kde", "mom_kde_auto", "kde_robust"],
        )
    )
    assert set(clean["method"]) == {"kde", "mom_kde_auto", "kde_robust"}
    auto_s = clean.loc[clean["method"] == "mom_kde_auto", "n_blocks"].iloc[0]
    assert auto_s == n_blocks_for(300, ex.CLEAN_CONTAMINATION)
    assert clean.loc[clean["metric"] == "js", "value"].between(0, 0.2).all()
    tasks = ex.make_tasks(
        "synthetic",
        ["thin_gaussian"],
        [0.2],
        reps=1,
        n_inliers=200,
        contamination=None,
        methods=_tasks.AUTO_METHODS,
    )
    table = ex.run_experiments(tasks)
    s = table.groupby("method")["n_blocks"].first()
    n = 250  # 200 inliers + 50 outliers
    assert s["mom_kde_auto"] == s["mom_kde_auto_cv"] == n_blocks_for(n, 0.2)
    assert s["kde_robust"] == 1


def test_runner_auto_is_the_estimator_a_user_would_fit() -> None:
    task = ex.make_tasks(
        "synthetic",
        ["uniform"],
        [0.1],
        reps=1,
        n_inliers=200,
        methods=["mom_kde_auto", "kde_robust"],
    )[0]
    rows = ex.run_task(task)
    X, _, _ = ex.regenerate_sample(task)
    user = MoMKDE(
        contamination=ex.CONTAMINATION_GUESS,
        random_state=_tasks._stream(task.seed, "blocks"),
        normalize=False,
    ).fit(X)
    auto = [r for r in rows if r[4] == "mom_kde_auto"][0]
    robust = [r for r in rows if r[4] == "kde_robust"][0]
    # (exact: the runner and the user run the same code on the same sample, in this process)
    assert (auto[5], auto[6]) == (user.n_blocks_, user.bandwidth_)
    assert robust[6] == user.bandwidth_


def test_blocks_of_fewer_than_two_points_are_warned_about() -> None:
    X = np.random.default_rng(0).normal(size=(200, 1))
    with pytest.warns(UserWarning, match="fewer than 2 points"):
        MoMKDE(contamination=0.3, bandwidth=0.5, random_state=0).fit(X)
    with pytest.warns(UserWarning, match="fewer than 2 points"):
        MoMKDE(n_blocks=150, bandwidth=0.5, random_state=0).fit(X)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MoMKDE(contamination=0.2, bandwidth=0.5, random_state=0).fit(X)


@pytest.mark.parametrize("kernel", ["epanechnikov", "tophat"])
def test_compact_kernels_get_a_robust_bandwidth_with_small_blocks(kernel) -> None:
    """With S = 2 ceil(0.1 n) + 1 blocks of ~5 points, a compact kernel's median of block KDEs
    is exactly 0 at more than the trimmed share of points for every h up to 2 Scott
    bandwidths; the search goes on above that span instead of refusing the defaults (it
    raised a ValueError on plain N(0, 1) data at n = 1000). The estimate is then a density
    about as close to the truth as the Gaussian kernel's."""
    X = np.random.default_rng(5).standard_normal(1000)
    xs = np.linspace(-6, 6, 2401)
    truth = np.exp(-(xs**2) / 2) / np.sqrt(2 * np.pi)
    errors = {}
    for name in (kernel, "gaussian"):
        est = MoMKDE(kernel=name, random_state=0).fit(X)
        f = est.pdf_grid(xs)
        assert abs(f.sum() * (xs[1] - xs[0]) - 1.0) < 5e-3
        errors[name] = np.abs(f - truth).sum() * (xs[1] - xs[0])
    assert est.n_blocks_ == 201
    assert errors[kernel] < 1.5 * errors["gaussian"]


@pytest.mark.parametrize("dim, ratio", [(1, 0.1), (2, 0.3)])
def test_candidates_on_two_threads_give_the_sequential_choice_silently(
    dim, ratio, monkeypatch
) -> None:
    """The candidate bandwidths are scored on n_threads() threads: the same h as one
    after the other, and none of the candidates' tiny-block warnings reaches the user
    (at ratio 0.3 the blocks hold fewer than two points: each candidate's fit warns)."""
    import warnings

    data = make_contaminated("uniform", n_inliers=800, ratio=ratio, dim=dim, random_state=3)
    gauss = get_kernel("gaussian")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threaded = select_bandwidth(data.X, "robust", gauss, random_state=1, contamination=ratio)
    with config_context(n_threads=1):
        sequential = select_bandwidth(data.X, "robust", gauss, random_state=1, contamination=ratio)
    assert threaded == sequential


def test_the_search_threads_keep_the_callers_replay_limits(monkeypatch) -> None:
    """The replay limits are per thread: the candidates' threads take the caller's, so a
    runner's larger memo is not trimmed to the defaults by the search."""
    from momkde_core._engine import _memo as engine
    from momkde_core.bandwidth import _robust as robust_defaults

    seen = []
    scores = robust_defaults.leave_own_block_out_scores

    def recording(*args, **kwargs):
        seen.append(engine._limits())
        return scores(*args, **kwargs)

    monkeypatch.setattr(robust_defaults, "leave_own_block_out_scores", recording)
    data = make_contaminated("uniform", n_inliers=300, ratio=0.1, random_state=0)
    with engine.replay_limits(2**23, 2**28):
        select_bandwidth(
            data.X, "robust", get_kernel("gaussian"), random_state=0, contamination=0.1
        )
    assert len(seen) == 14 and set(seen) == {(2**23, 2**28)}


def test_a_grid_over_budget_integrates_by_sampling() -> None:
    """``grid_budget``: a grid priced above it gives way to importance sampling (the same
    draws as sampling alone), close to the grid's integral; a budget of exactly the grid's
    price, or none, keeps the grid."""
    from momkde_core._blocks import _normalize as normalize

    data = make_contaminated("uniform", n_inliers=300, ratio=0.2, dim=2, random_state=0)
    est = MoMKDE(151, 0.5, kernel="exponential", normalize=False, random_state=0).fit(data.X)
    fitted = est._fitted
    grid = normalize.log_integral(fitted, np.random.default_rng(5))
    # (a grid, not the sampling used where none fits: 4096 draws give another value)
    assert grid != normalize._log_integral_importance(fitted, np.random.default_rng(5), 4096)
    calls = []
    plan = fitted.grid_plan

    def recording(axes, exact=False):
        calls.append(plan(axes, exact))
        return calls[-1]

    fitted.grid_plan = recording
    assert normalize.log_integral(fitted, np.random.default_rng(5), grid_budget=np.inf) == grid
    assert len(calls) == 1
    assert normalize.log_integral(fitted, np.random.default_rng(5), grid_budget=calls[0][1]) == grid
    sampled = normalize.log_integral(
        fitted, np.random.default_rng(5), n_draws=1024, grid_budget=np.nextafter(calls[0][1], 0)
    )
    assert sampled == normalize._log_integral_importance(fitted, np.random.default_rng(5), 1024)
    assert abs(sampled - grid) < 0.05


def test_the_search_samples_integrals_its_grid_would_price_too_high(monkeypatch) -> None:
    """With the exponential kernel in 2-D the finest grids are summed exactly over every
    point, a dear price per candidate; the search samples those integrals instead
    (README, "Benchmarks": the same h on the 38 searches measured per kernel). Here: more
    candidates sample than where only a grid too large makes them, and the search chooses
    the same h as with grids wherever they fit."""
    from momkde_core._blocks import _normalize as normalize
    from momkde_core.bandwidth import _robust as robust_defaults

    data = make_contaminated("uniform", n_inliers=400, ratio=0.05, dim=2, random_state=2)
    kernel = get_kernel("exponential")
    sampled = []
    importance = normalize._log_integral_importance

    def spy(*args, **kwargs):
        sampled.append(args[0].h)
        return importance(*args, **kwargs)

    monkeypatch.setattr(normalize, "_log_integral_importance", spy)
    priced = select_bandwidth(data.X, "robust", kernel, random_state=0, contamination=0.05)
    by_price = len(sampled)
    monkeypatch.setattr(robust_defaults, "SELECTION_GRID_PRICE", np.inf)
    sampled.clear()
    gridded = select_bandwidth(data.X, "robust", kernel, random_state=0, contamination=0.05)
    assert priced == gridded
    assert by_price > len(sampled)
