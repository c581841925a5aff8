"""The four estimators against references, closed forms, the paper's Example 1 and properties."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate
from scipy.stats import gaussian_kde
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import KernelDensity

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, make_contaminated
from momkde_core._engine import _memo, block_grid_sums
from momkde_core.bandwidth import cv_grid, cv_scores
from momkde_core.kernels import get_kernel

ESTIMATORS = {
    "kde": lambda **kw: KDE(**kw),
    "mom": lambda **kw: MoMKDE(n_blocks=7, random_state=0, **kw),
    "rkde": lambda **kw: RKDE(**kw),
    "spkde": lambda **kw: SPKDE(contamination=0.1, **kw),
}


@pytest.fixture(scope="module")
def contaminated_1d():
    rng = np.random.default_rng(0)
    inliers = np.r_[rng.normal(0, 0.5, 300), rng.normal(6, 0.5, 300)]
    outliers = rng.uniform(12, 30, 30)  # far from the inliers and from each other
    return np.r_[inliers, outliers], np.r_[np.zeros(600, bool), np.ones(30, bool)]


def test_kde_matches_gaussian_kde_with_scott_and_silverman():
    X = np.random.default_rng(1).standard_t(5, size=500)
    ys = np.linspace(-6, 6, 300)
    for rule in ("scott", "silverman"):
        ref = gaussian_kde(X, bw_method=rule)
        est = KDE(bandwidth=rule).fit(X)
        assert est.bandwidth_ == pytest.approx(ref.factor * X.std(ddof=1), rel=1e-12)
        np.testing.assert_allclose(est.pdf(ys), ref(ys), rtol=1e-10)


def test_kfold_cv_picks_the_best_grid_value_and_uses_the_seed():
    from momkde_core.bandwidth import kfold_cv_bandwidth, scott

    rng = np.random.default_rng(2)
    X = np.r_[rng.normal(0, 0.5, 150), rng.normal(6, 0.5, 150)][:, None]
    h_fit = kfold_cv_bandwidth(X, get_kernel("gaussian"), scott(X), random_state=3)
    grid = cv_grid(X)
    scores = cv_scores(X, get_kernel("gaussian"), grid, random_state=3)
    assert h_fit == grid[np.argmax(scores)]  # (the search's own computation, redone)
    # independent check of the held-out likelihood with scikit-learn, fold by fold
    from sklearn.model_selection import KFold

    h = grid[5]
    total = 0.0
    for train, test in KFold(5, shuffle=True, random_state=3).split(X):
        total += KernelDensity(bandwidth=h).fit(X[train]).score_samples(X[test]).sum()
    assert scores[5] == pytest.approx(total / len(X), rel=1e-10)


def test_binned_cv_agrees_with_exact_cv():
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal(0, 0.5, 1000), rng.normal(6, 0.5, 1000)][:, None]
    grid = cv_grid(X)
    binned = cv_scores(X, get_kernel("gaussian"), grid, random_state=0)
    exact = []
    for h in grid[::6]:
        from sklearn.model_selection import KFold

        from momkde_core._engine import block_log_sums
        from momkde_core.bandwidth._cv import _held_out_loglik  # the exact path, forced

        folds = list(KFold(5, shuffle=True, random_state=0).split(X))
        order = np.concatenate([t for _, t in folds])
        sizes = np.array([len(t) for _, t in folds])
        bounds = np.r_[0, np.cumsum(sizes)]
        logs = block_log_sums(X[order], bounds, X[order], get_kernel("gaussian"), h)
        exact.append(_held_out_loglik(logs, np.repeat(np.arange(5), sizes), sizes, len(X)))
    np.testing.assert_allclose(binned[::6], exact, atol=5e-3)


def test_mom_with_one_block_is_exactly_the_kde(contaminated_1d):
    X, _ = contaminated_1d
    ys = np.linspace(-3, 32, 701)
    kde = KDE(bandwidth=0.3).fit(X)
    mom = MoMKDE(n_blocks=1, bandwidth=0.3, random_state=5).fit(X)
    # bit for bit: one block keeps the data's order and the KDE's weights, so both run the
    # same code on the same arrays (the property under test)
    assert np.array_equal(mom.pdf(ys), kde.pdf(ys))
    assert np.array_equal(mom.pdf_grid(ys), kde.pdf_grid(ys))


@pytest.mark.parametrize("n, S", [(10, 3), (101, 10), (1000, 7), (5, 5), (1000, 300)])
def test_mom_blocks_use_every_point_and_sizes_differ_by_at_most_one(n, S):
    """Few blocks are labelled block by block, many (S = 300) by one repeat: either way
    every row is in the block whose stored rows hold it, and the weights' logs (built on
    first read) are -log of the block's size."""
    X = np.arange(n, dtype=float)
    est = MoMKDE(n_blocks=S, bandwidth=1.0, random_state=0, normalize=False).fit(X)
    counts = np.bincount(est.block_of_, minlength=S)
    assert counts.sum() == n and counts.max() - counts.min() <= 1
    # the stored blocks hold exactly the training rows, each in its labelled block
    assert sorted(est._fitted.X.ravel()) == list(X)
    for s in range(S):
        rows = est._fitted.X[est._fitted.bounds[s] : est._fitted.bounds[s + 1], 0]
        assert np.array_equal(np.sort(rows), np.flatnonzero(est.block_of_ == s))
    sizes = np.diff(est._fitted.bounds)
    assert np.array_equal(est._fitted.log_w, np.repeat(-np.log(sizes), sizes))
    np.testing.assert_allclose(np.exp(est._fitted.log_w), est._fitted.w, rtol=1e-15)
    # the labels are those of the shuffle: block s holds the s-th run of the permutation
    order = np.random.RandomState(0).permutation(n) if S > 1 else np.arange(n)
    expected = np.empty(n, dtype=np.intp)
    for s in range(S):
        expected[order[est._fitted.bounds[s] : est._fitted.bounds[s + 1]]] = s
    assert np.array_equal(est.block_of_, expected)


@pytest.mark.parametrize("d", [1, 2])
def test_mom_grid_without_weights_builds_no_per_row_arrays_and_matches_them(d):
    """A MoM-KDE fit without weights and its grids leave the per-row weights, their logs
    and the block labels unbuilt (each block sums unit weights, scaled by 1 / its size):
    the same block sums as with the per-row weights, to round-off, and the same grid
    after the per-row weights were built (a grid does not depend on what ran before).
    block_of_ is built on first read and is not an attribute of an unfitted MoMKDE."""
    X = np.random.default_rng(3).standard_normal((3000, d))
    axes = [np.linspace(-6, 6, 97)] * d
    est = MoMKDE(n_blocks=7, bandwidth=0.3, random_state=1).fit(X)
    by_block = est.pdf_grid(*axes)
    assert est._fitted.w_values is None and est._fitted.log_w_values is None
    assert est._blocks[0] == "order"  # block_of_ not built yet
    sums, _ = est._fitted.grid_sums(axes, exact=True)
    fitted = est._fitted
    per_row = block_grid_sums(
        fitted.X, fitted.bounds, axes, fitted.kernel, fitted.h, fitted.w, exact=True
    )
    np.testing.assert_allclose(sums, per_row, rtol=1e-9, atol=0)  # (FFT round-off: 6e-12)
    _memo._MEMO.clear()
    assert np.array_equal(est.pdf_grid(*axes), by_block)  # (the same call again: to the bit)
    assert np.bincount(est.block_of_).tolist() == np.diff(est._fitted.bounds).tolist()
    assert not hasattr(MoMKDE(), "block_of_")
    with pytest.raises(NotFittedError):
        MoMKDE().block_of_  # noqa: B018


def test_mom_is_the_median_of_block_kdes_from_sklearn(contaminated_1d):
    X, _ = contaminated_1d
    ys = np.linspace(-2, 8, 50)[:, None]
    est = MoMKDE(n_blocks=6, bandwidth=0.4, random_state=1, normalize=False).fit(X)
    blocks = [
        np.exp(KernelDensity(bandwidth=0.4).fit(X[est.block_of_ == s, None]).score_samples(ys))
        for s in range(6)
    ]
    np.testing.assert_allclose(est.pdf(ys), np.median(blocks, axis=0), rtol=1e-9)


def _integral_1d(est, lo, hi):
    xs = np.linspace(lo, hi, 20001)
    return integrate.trapezoid(est.pdf(xs), xs)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_integrates_to_one_in_1d(name, contaminated_1d):
    X, _ = contaminated_1d
    est = ESTIMATORS[name](bandwidth=0.3).fit(X)
    assert _integral_1d(est, -6, 35) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_integrates_to_one_in_2d(name):
    rng = np.random.default_rng(6)
    X = np.r_[rng.normal(0, 0.5, (300, 2)), rng.normal(3, 0.5, (40, 2))]
    est = ESTIMATORS[name](bandwidth=0.35).fit(X)
    xs = np.linspace(-4, 7, 301)
    mesh = np.stack([m.ravel() for m in np.meshgrid(xs, xs, indexing="ij")], 1)
    total = est.pdf(mesh).sum() * (xs[1] - xs[0]) ** 2
    assert total == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("kernel", ["tophat", "epanechnikov", "exponential"])
def test_mom_normalised_for_other_kernels(kernel, contaminated_1d):
    X, _ = contaminated_1d
    est = MoMKDE(n_blocks=8, bandwidth=0.4, kernel=kernel, random_state=2).fit(X)
    assert _integral_1d(est, -20, 40) == pytest.approx(1.0, abs=1e-3)


def test_mom_normalisation_by_importance_sampling_in_3d():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 3))
    est = MoMKDE(n_blocks=9, bandwidth=0.5, random_state=0).fit(X)
    # Monte-Carlo check with many more draws than the estimator used, from a wide Gaussian
    draws = rng.normal(scale=2.0, size=(200_000, 3))
    proposal = np.exp(-0.5 * (draws**2).sum(1) / 4.0) / (2 * np.pi * 4.0) ** 1.5
    estimate = np.mean(est.pdf(draws) / proposal)
    assert estimate == pytest.approx(1.0, abs=0.02)


def test_example_1_tophat_mom_is_exact_at_x0():
    """Paper, Example 1: inliers U[-1, 1], outliers U[-3, 3], x0 = 2, h in (0, 1), S > 2|O|."""
    rng = np.random.default_rng(8)
    n_out = 10
    X = np.r_[rng.uniform(-1, 1, 500), rng.uniform(1.5, 2.5, n_out)]  # outliers near x0
    for h in (0.3, 0.6, 0.9):
        kde = KDE(bandwidth=h, kernel="tophat").fit(X)
        mom = MoMKDE(n_blocks=2 * n_out + 1, bandwidth=h, kernel="tophat", random_state=0).fit(X)
        assert mom.pdf([2.0])[0] == 0.0  # the true density f(2) = 0
        assert kde.pdf([2.0])[0] > 0.0


def test_rkde_and_spkde_put_near_zero_weight_on_far_outliers(contaminated_1d):
    X, is_out = contaminated_1d
    rkde = RKDE(bandwidth=0.3).fit(X)
    spkde = SPKDE(bandwidth=0.3, contamination=0.1).fit(X)  # a stated over-estimate
    for est in (rkde, spkde):
        assert est.weights_.sum() == pytest.approx(1.0)
        assert est.weights_.min() >= 0.0
        assert est.weights_[is_out].sum() < 0.01  # uniform weights would give 0.048


def test_rkde_weights_are_elementwise_not_positional(contaminated_1d):
    """The authors' code misplaces Hampel weights; ours must follow the points when shuffled."""
    X, _ = contaminated_1d
    perm = np.random.default_rng(9).permutation(len(X))
    w = RKDE(bandwidth=0.3).fit(X).weights_
    w_perm = RKDE(bandwidth=0.3).fit(X[perm]).weights_
    np.testing.assert_allclose(w_perm, w[perm], rtol=1e-9, atol=1e-15)


def test_rkde_and_spkde_reduce_to_the_kde_on_clean_data():
    X = np.random.default_rng(10).normal(size=(300, 2))
    ys = np.random.default_rng(11).normal(size=(50, 2))
    kde = KDE(bandwidth=0.5).fit(X).pdf(ys)
    rkde = RKDE(bandwidth=0.5, scale_from="kde", percentiles=(100, 100, 100)).fit(X)
    spkde = SPKDE(bandwidth=0.5, contamination=0.0).fit(X)
    np.testing.assert_allclose(rkde.weights_, 1 / 300, rtol=1e-12)
    np.testing.assert_allclose(spkde.weights_, 1 / 300, rtol=1e-9)
    np.testing.assert_allclose(rkde.pdf(ys), kde, rtol=1e-10)
    np.testing.assert_allclose(spkde.pdf(ys), kde, rtol=1e-8)


def test_rkde_objective_decreases_and_huber_runs(contaminated_1d):
    X, is_out = contaminated_1d
    for loss in ("hampel", "huber"):
        est = RKDE(bandwidth=0.3, loss=loss).fit(X)
        assert np.all(np.diff(est.objective_) <= 1e-12)
        assert est.weights_[is_out].mean() < est.weights_[~is_out].mean()


def _dense_reference_rkde(X, h, loss, scale_from, percentiles, tol=1e-8, max_iter=100):
    """RKDE written plainly with the n x n Gaussian kernel matrix, after robkde.m (JooSeuk
    Kim, 2011; churchilln/oppni-code-nwc, addons/rkde_code): parameter_select's
    absolute-loss IRWLS (w = 1/r) or the KDE's residuals, the percentiles, then the
    Hampel / Huber IRWLS from w = 1/n with psi as in psi2.m (0 from r = c on)."""
    n, d = X.shape
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-sq / (2 * h * h)) / (2 * np.pi * h * h) ** (d / 2)

    def residuals(w):
        return np.sqrt(np.diag(K) + w @ K @ w - 2 * K @ w)

    w = np.ones(n) / n
    r = residuals(w)
    if scale_from == "absolute":
        J = r.mean()
        for _ in range(max_iter):
            w = (1 / r) / (1 / r).sum()
            r = residuals(w)
            J, J_old = r.mean(), J
            if abs(J - J_old) <= J_old * tol:
                break
    params = np.percentile(r, percentiles)
    a, b, c = params

    def psi(r):
        if loss == "huber":
            return np.minimum(r, a)
        out = np.zeros_like(r)
        i1, i2, i3 = r < a, (r >= a) & (r < b), (r >= b) & (r < c)
        out[i1], out[i2], out[i3] = r[i1], a, a * (c - r[i3]) / (c - b)
        return out

    def rho(r):
        if loss == "huber":
            return np.where(r <= a, r * r / 2, a * r - a * a / 2).mean()
        return np.mean(
            [
                integrate.quad(lambda t: psi(np.array([t]))[0], 0, ri, points=[a, b, c])[0]
                for ri in r
            ]
        )

    w = np.ones(n) / n
    r = residuals(w)
    J = rho(r)
    for _ in range(max_iter):
        w = psi(r) / r
        w = w / w.sum()
        r = residuals(w)
        J, J_old = rho(r), J
        if abs(J - J_old) <= J_old * tol:
            break
    return params if loss == "hampel" else params[:1], w


@pytest.mark.parametrize(
    "loss, scale_from", [("hampel", "absolute"), ("huber", "absolute"), ("hampel", "kde")]
)
def test_rkde_loss_params_and_weights_match_a_dense_reference(loss, scale_from):
    rng = np.random.default_rng(21)
    X = np.r_[rng.normal(0, 1, (120, 2)), rng.uniform(-6, 6, (30, 2))]
    default = {"absolute": (50, 95, 100), "kde": (50, 75, 95)}[scale_from]
    params, w = _dense_reference_rkde(X, 0.6, loss, scale_from, default)
    est = RKDE(bandwidth=0.6, loss=loss, scale_from=scale_from).fit(X)
    np.testing.assert_allclose(est.loss_params_, params, rtol=1e-9)
    np.testing.assert_allclose(est.weights_, w, rtol=1e-6, atol=1e-12)
    assert (est.scale_n_iter_ > 0) == (scale_from == "absolute")
    if loss == "hampel":  # c: the largest residual of the absolute-loss RKDE
        assert est.loss_params_[2] == pytest.approx(params[2], rel=1e-12)


def test_rkde_absolute_scale_is_the_default_and_percentiles_none_follow_it():
    X = np.random.default_rng(22).normal(size=(200, 1))
    ref = RKDE(bandwidth=0.4, scale_from="absolute", percentiles=(50, 95, 100)).fit(X)
    est = RKDE(bandwidth=0.4).fit(X)
    assert est.scale_from == "absolute" and est.percentiles is None
    # (exact: the same parameters spelled two ways, so the same computation)
    assert est.loss_params_ == ref.loss_params_
    np.testing.assert_array_equal(est.weights_, ref.weights_)
    old = RKDE(bandwidth=0.4, scale_from="kde").fit(X)
    old_ref = RKDE(bandwidth=0.4, scale_from="kde", percentiles=(50, 75, 95)).fit(X)
    assert old.loss_params_ == old_ref.loss_params_ and old.scale_n_iter_ == 0


def test_rkde_absolute_scale_stops_feeding_an_adversarial_cluster():
    """The KDE's residuals make a tight outlier cluster the best-fitted points, so a, b, c
    from them push weight onto it; from the absolute-loss RKDE's residuals (the RKDE
    author's choice) the cluster keeps about its share. A fixed h keeps this about a, b, c."""
    data = make_contaminated("adversarial", n_inliers=500, ratio=0.2, random_state=0)
    share = data.is_outlier.mean()  # 0.2: the plain KDE's weight on the outliers
    new = RKDE(bandwidth=0.3).fit(data.X).weights_[data.is_outlier].sum()
    old = RKDE(bandwidth=0.3, scale_from="kde").fit(data.X).weights_[data.is_outlier].sum()
    assert old > share + 0.15  # measured 0.435
    assert new < share + 0.05  # measured 0.201
    assert new < old - 0.15


def test_rkde_points_at_exactly_c_get_weight_zero():
    """Hampel's psi is 0 from r = c on, r = c included (as robkde.m's psi2.m:
    i4 = (in >= c), out(i4) = 0): with c = the largest KDE residual and one update, the
    point holding it has weight 0."""
    X = np.r_[np.random.default_rng(23).normal(size=100), 5.0]
    est = RKDE(bandwidth=0.5, scale_from="kde", percentiles=(50, 95, 100), max_iter=1).fit(X)
    assert est.n_iter_ == 1
    assert est.weights_[-1] == 0.0
    assert np.count_nonzero(est.weights_ == 0.0) == 1


def test_simplex_projection_matches_a_qp_solver():
    from scipy.optimize import minimize

    from momkde_core.estimators._kirwls import project_simplex

    rng = np.random.default_rng(12)
    for _ in range(5):
        v = rng.normal(size=6)
        ref = minimize(
            lambda a: np.sum((a - v) ** 2),
            np.full(6, 1 / 6),
            method="SLSQP",
            bounds=[(0, None)] * 6,
            constraints={"type": "eq", "fun": lambda a: a.sum() - 1},
            options={"ftol": 1e-14},
        ).x
        np.testing.assert_allclose(project_simplex(v), ref, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_clone_and_params(name):
    est = ESTIMATORS[name](bandwidth=0.5)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    twin.set_params(bandwidth=0.7)
    assert twin.bandwidth == 0.7 and est.bandwidth == 0.5


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_score_samples_is_log_pdf_and_minus_inf_outside_support(name, contaminated_1d):
    X, _ = contaminated_1d
    est = (
        ESTIMATORS[name](bandwidth=0.3, kernel="epanechnikov")
        if name != "spkde"
        else ESTIMATORS[name](bandwidth=0.3)
    )
    est.fit(X)
    ys = np.array([-1.0, 0.0, 3.0, 100.0])
    logs = est.score_samples(ys)
    np.testing.assert_allclose(np.exp(logs), est.pdf(ys))
    if name != "spkde":
        assert logs[-1] == -np.inf


# ---- bad input: a ValueError that says what was wrong and what is allowed ----------------

BAD_FITS = [
    (KDE(), [[np.nan], [1.0], [2.0]], "NaN"),
    (KDE(), [[np.inf], [1.0], [2.0]], "inf"),
    (KDE(), np.empty((0, 1)), "0 row"),
    (KDE(), [[1.0, 2.0]], "1 row"),
    (KDE(), [["a"], ["b"]], "numeric"),
    (KDE(bandwidth=0.0), [1.0, 2.0, 3.0], "positive"),
    (KDE(bandwidth=-1.0), [1.0, 2.0, 3.0], "positive"),
    (KDE(bandwidth="wide"), [1.0, 2.0, 3.0], "scott, silverman, cv"),
    (KDE(bandwidth="scott"), [1.0, 1.0, 1.0], "zero spread"),
    (KDE(kernel="box"), [1.0, 2.0, 3.0], "unknown kernel"),
    (MoMKDE(n_blocks=0), [1.0, 2.0, 3.0], "between 1 and n = 3"),
    (MoMKDE(n_blocks=4), [1.0, 2.0, 3.0], "between 1 and n = 3"),
    (MoMKDE(n_blocks=2.5), [1.0, 2.0, 3.0], "integer"),
    (RKDE(loss="tukey"), [1.0, 2.0, 3.0], "hampel"),
    (RKDE(percentiles=(90, 50, 95)), [1.0, 2.0, 3.0], "non-decreasing"),
    (RKDE(percentiles=(50, 95)), [1.0, 2.0, 3.0], "three"),
    (RKDE(percentiles=(50, 95, 101)), [1.0, 2.0, 3.0], r"\[0, 100\]"),
    (RKDE(percentiles="abc"), [1.0, 2.0, 3.0], "percentiles must be None"),
    (RKDE(scale_from="median"), [1.0, 2.0, 3.0], "'absolute', 'kde'"),
    (RKDE(scale_from=None), [1.0, 2.0, 3.0], "scale_from"),
    (SPKDE(contamination=1.0), [1.0, 2.0, 3.0], r"\[0, 1\)"),
    (SPKDE(contamination=-0.1), [1.0, 2.0, 3.0], r"\[0, 1\)"),
    (SPKDE(beta=0.5), [1.0, 2.0, 3.0], ">= 1"),
    (SPKDE(kernel="tophat"), [1.0, 2.0, 3.0], "gaussian"),
]


@pytest.mark.parametrize("est, X, message", BAD_FITS)
def test_bad_fit_input_raises_a_clear_value_error(est, X, message):
    with pytest.raises(ValueError, match=message):
        est.fit(np.asarray(X, dtype=object) if message == "numeric" else np.asarray(X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_grid_tails_are_exact_not_round_off(name, contaminated_1d):
    """Far from the data the FFT is round-off; pdf_grid must stay positive and exact there
    (down to 1e-290: below, kernel values are flushed to 0 like underflow, see flushed_exp)."""
    X, _ = contaminated_1d
    est = ESTIMATORS[name](bandwidth=0.1).fit(X)
    xs = np.linspace(-6, 36, 2048)
    grid, exact = est.pdf_grid(xs), est.pdf(xs)
    assert np.all(grid[exact > 1e-290] > 0)
    tail = (exact < 1e-13 * exact.max()) & (exact > 1e-290)
    assert tail.sum() > 50
    np.testing.assert_allclose(grid[tail], exact[tail], rtol=1e-9)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_fitted_estimators_pickle(name, contaminated_1d):
    import pickle

    X, _ = contaminated_1d
    est = (
        ESTIMATORS[name](bandwidth=0.3, random_state=0)
        if name in ("kde", "rkde")
        else ESTIMATORS[name](bandwidth=0.3)
    )
    est.fit(X)
    twin = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(twin.pdf(X[:20]), est.pdf(X[:20]))  # (same state, same call)


def test_a_failed_refit_leaves_the_estimator_unfitted():
    from sklearn.exceptions import NotFittedError

    rng = np.random.default_rng(13)
    est = MoMKDE(n_blocks=5, random_state=0).fit(rng.normal(size=500))
    with pytest.raises(ValueError, match="between 1 and n = 50"):
        est.set_params(n_blocks=100).fit(rng.normal(scale=10, size=50))
    with pytest.raises(NotFittedError):
        est.pdf([0.0])
    with pytest.raises(ValueError, match="0 everywhere"):
        est.set_params(n_blocks=3, bandwidth=1.0, kernel="tophat").fit([0.0, 10.0, 20.0])
    with pytest.raises(NotFittedError):
        est.pdf([0.0])


def test_cv_warns_when_it_runs_into_the_smallest_bandwidth():
    # near-ties (exact copies leave together): a held-out value keeps a twin 1e-9 away
    X = np.repeat(np.arange(10.0), 30) + np.tile(np.arange(30) * 1e-9, 10)
    with pytest.warns(UserWarning, match="smallest bandwidth"):
        KDE(bandwidth="cv", random_state=0).fit(X)


def test_mom_with_disjoint_blocks_says_so():
    with pytest.raises(ValueError, match="0 everywhere.*fewer blocks"):
        MoMKDE(n_blocks=3, bandwidth=1.0, kernel="tophat").fit([0.0, 10.0, 20.0])


def test_bad_query_input():
    est = MoMKDE(n_blocks=3, bandwidth=0.5, random_state=0).fit(
        np.random.default_rng(0).random((30, 2))
    )
    with pytest.raises(ValueError, match="1 feature.*fitted on 2"):
        est.pdf(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="NaN"):
        est.pdf([[np.nan, 0.0]])
    with pytest.raises(ValueError, match="one axis per feature"):
        est.pdf_grid(np.linspace(0, 1, 10))
    with pytest.raises(Exception, match="not fitted"):
        KDE().pdf([0.0])


# ---- properties ------------------------------------------------------------------------

finite_floats = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    X=arrays(np.float64, st.tuples(st.integers(2, 60), st.integers(1, 3)), elements=finite_floats),
    h=st.floats(1e-2, 1e2),
    kernel=st.sampled_from(
        ["gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"]
    ),
    S=st.integers(1, 60),
    seed=st.integers(0, 2**16),
)
def test_any_valid_input_gives_finite_non_negative_densities(X, h, kernel, S, seed):
    S = min(S, len(X))
    ys = np.random.default_rng(seed).normal(scale=10, size=(20, X.shape[1]))
    for est in (
        KDE(bandwidth=h, kernel=kernel),
        MoMKDE(n_blocks=S, bandwidth=h, kernel=kernel, random_state=seed),
        RKDE(bandwidth=h, kernel=kernel, max_iter=20),
    ):
        try:
            est.fit(X)
        except ValueError as err:  # S blocks with no common support: said, not returned
            assert "0 everywhere" in str(err)
            continue
        for values in (est.pdf(ys), est.pdf(X)):
            assert np.all(np.isfinite(values)) and np.all(values >= 0)
        if X.shape[1] <= 2:
            axes = [np.linspace(-20, 20, 33)] * X.shape[1]
            grid = est.pdf_grid(*axes)
            assert np.all(np.isfinite(grid)) and np.all(grid >= 0)
    spkde = SPKDE(bandwidth=h, contamination=0.2, max_iter=50).fit(X)
    assert np.all(np.isfinite(spkde.pdf(ys))) and np.all(spkde.weights_ >= 0)
    assert spkde.weights_.sum() == pytest.approx(1.0)


def test_spkde_in_high_dimension_fits():
    """d = 100: the kernel's peak (2 sqrt(pi) h)^-d underflows in SPKDE's float32 Gram matrix
    in the data's units (it raised ZeroDivisionError, then a ValueError); in the fit's frame
    (momkde_core.scaling) the Gram matrix peaks at 1. Scott's h leaves the kernels of 400
    points in d = 100 almost disjoint (Q ~ a multiple of I), so the QP's minimiser is the
    projection of the uniform target onto the simplex: uniform weights."""
    X = np.random.default_rng(0).normal(size=(400, 100))
    est = SPKDE().fit(X)
    np.testing.assert_allclose(est.weights_, 1 / 400, rtol=1e-6)
    assert np.all(np.isfinite(est.score_samples(X[:10])))


def test_kfold_cv_in_more_than_one_dimension_runs_on_a_subsample(monkeypatch):
    """In d > 1 above CV_MAX_SAMPLES points, the k-fold search runs on that many points drawn
    with the seed and rescales the chosen h by the optimal rate (m / n)^(1 / (d + 4)): the
    same h as the search on that subsample, around the subsample's Scott bandwidth, rescaled."""
    from momkde_core.bandwidth import _cv

    monkeypatch.setattr(_cv, "CV_MAX_SAMPLES", 300)
    X = np.random.default_rng(4).standard_normal((1200, 3))
    gauss = get_kernel("gaussian")
    h = _cv.kfold_cv_bandwidth(X, gauss, 0.5, random_state=0)
    rng = np.random.RandomState(0)
    rows = np.sort(rng.choice(1200, 300, replace=False))
    factor = (1200 / 300) ** (1 / 7)
    assert h == _cv.kfold_cv_bandwidth(X[rows], gauss, 0.5 * factor, random_state=rng) / factor
    monkeypatch.setattr(_cv, "CV_MAX_SAMPLES", 10**9)
    full = _cv.kfold_cv_bandwidth(X, gauss, 0.5, random_state=0)
    # the same seed's subsample lands within two steps of the full search's grid (ratio
    # 100^(1/24) = 1.21 per step)
    assert abs(np.log(h / full)) <= 2 * np.log(100) / 24 + 1e-9
