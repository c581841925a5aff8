"""OutlierDetector.explain (momkde_core._explain): Shapley values of -log f_S against a
brute-force reference from the definition, their sum, planted outliers, the sampled
approximation's error and the refusals."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import KernelDensity

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, OutlierDetector, ScreenedKDE
from momkde_core._explain import MAX_EXACT, explain_log_density

# the bound on the sampled approximation's mean absolute error, as a share of the mean
# absolute contribution, that docs/guide/outlier-detection.md states for the default 256
# orders (measured there: 0.8 % at d = 10 on flagged rows)
STATED_RELATIVE_MAE = 0.02


def _log_marginal(x, centres, log_w, H, subset) -> float:
    """log of sum_i w_i prod_{j in subset} N(x_j; centres_ij, H_j^2), in log space."""
    terms = log_w.copy()
    for j in subset:
        z = (x[j] - centres[:, j]) / H[j]
        terms = terms - 0.5 * z * z - 0.5 * np.log(2 * np.pi) - np.log(H[j])
    return float(logsumexp(terms))


def _blocks(estimator):
    """(centres, log weights) of each block, in the data's units: the fit's rows."""
    fitted = estimator._fitted
    centres = estimator._frame.outer(fitted.X)
    b = fitted.bounds
    return [(centres[b[s] : b[s + 1]], fitted.log_w[b[s] : b[s + 1]]) for s in range(len(b) - 1)]


def _brute_force(blocks, H, X, combine="median") -> np.ndarray:
    """Shapley values from the definition: v(S) = -log median_s f_{s,S}(x) (numpy's median of
    the linear values; ``combine="mean_log"``: -mean_s log f_{s,S}(x)), every subset with
    itertools, each feature's weighted increments."""
    d = X.shape[1]
    out = np.zeros(X.shape)
    for q, x in enumerate(X):
        v = {}
        for r in range(d + 1):
            for S in itertools.combinations(range(d), r):
                logs = np.array([_log_marginal(x, c, lw, H, S) for c, lw in blocks])
                top = logs.max()
                if combine == "mean_log":
                    v[S] = -logs.mean()
                else:
                    v[S] = -(top + np.log(np.median(np.exp(logs - top))))
        for j in range(d):
            for S, value in v.items():
                if j not in S:
                    k = len(S)
                    weight = factorial(k) * factorial(d - k - 1) / factorial(d)
                    out[q, j] += weight * (v[tuple(sorted(S + (j,)))] - value)
    return out


def _correlated(n, d, seed, rho=0.9):
    """n rows of d standard normal features, features 0 and 1 correlated (rho)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[:, 1] = rho * X[:, 0] + np.sqrt(1 - rho**2) * X[:, 1]
    return X


ESTIMATORS = {
    "mom_kde_odd": lambda: MoMKDE(n_blocks=5, bandwidth="scott", normalize=False, random_state=0),
    "mom_kde_even": lambda: MoMKDE(n_blocks=4, bandwidth=0.6, normalize=False, random_state=1),
    "kde_per_feature": lambda: KDE(bandwidth=[0.5, 0.7, 0.4]),
    "kde_scalar": lambda: KDE(bandwidth=0.5),
    "rkde": lambda: RKDE(bandwidth=0.6),
    "spkde": lambda: SPKDE(bandwidth=0.6, contamination=0.1),
    "screened_kde": lambda: ScreenedKDE(contamination=0.1, random_state=0),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_exact_values_match_the_brute_force_definition(name) -> None:
    X = _correlated(150, 3, seed=3)
    X[:5] += [0.0, 0.0, 6.0]  # a few outliers for the robust fits to weigh down
    estimator = ESTIMATORS[name]().fit(X)
    H = np.broadcast_to(estimator.bandwidth_, 3)
    queries = np.array([[0.0, 0.0, 0.0], [1.5, -1.5, 0.2], [0.3, 0.1, 5.0], [-2.0, 3.0, -4.0]])
    expected = _brute_force(_blocks(estimator), H, queries)
    got = explain_log_density(estimator, queries)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    # the contributions of a row sum to its abnormality, -log f(x)
    np.testing.assert_allclose(got.sum(axis=1), -estimator.score_samples(queries), atol=1e-10)


def test_detector_explain_is_the_default_scores_shapley_values() -> None:
    """The default scores by the mean of its blocks' log densities: v(S) = -mean_s log
    f_{s,S}(x)."""
    X = _correlated(400, 4, seed=4) * [1.0, 1.0, 30.0, 0.01]  # per-feature bandwidths
    detector = OutlierDetector(random_state=0).fit(X)
    queries = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, -2.0, 10.0, 0.0], [0.0, 0.0, 200.0, 0.05]])
    H = detector.estimator_.bandwidth_
    expected = _brute_force(_blocks(detector.estimator_), H, queries, "mean_log")
    blame = detector.explain(queries)
    np.testing.assert_allclose(blame, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(blame.sum(axis=1), -detector.score_samples(queries), atol=1e-9)


def test_flushed_products_are_recomputed_in_log_space() -> None:
    """A broken pair far out: every block's joint sum underflows in linear space (below
    1e-290 after the per-feature shifts), so those subsets go through log space."""
    X = _correlated(200, 2, seed=5, rho=0.9999)
    estimator = MoMKDE(n_blocks=3, bandwidth=0.2, normalize=False, random_state=0).fit(X)
    queries = np.array([[30.0, -30.0], [0.0, 0.0]])
    expected = _brute_force(_blocks(estimator), np.full(2, 0.2), queries)
    got = explain_log_density(estimator, queries)
    assert expected[0].sum() > 1000  # beyond linear space
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    sampled = explain_log_density(estimator, queries, method="permutation", n_permutations=2)
    np.testing.assert_allclose(sampled, expected, rtol=1e-12, atol=1e-9)  # d = 2: exact


@pytest.mark.parametrize("n_blocks", [4, 5])
def test_mean_log_values_match_the_brute_force_definition(n_blocks) -> None:
    X = _correlated(150, 3, seed=3)
    X[:5] += [0.0, 0.0, 6.0]
    estimator = MoMKDE(n_blocks=n_blocks, bandwidth="scott", normalize=False, random_state=0)
    estimator.fit(X)
    H = np.broadcast_to(estimator.bandwidth_, 3)
    queries = np.array([[0.0, 0.0, 0.0], [1.5, -1.5, 0.2], [0.3, 0.1, 5.0], [-2.0, 3.0, -4.0]])
    expected = _brute_force(_blocks(estimator), H, queries, "mean_log")
    got = explain_log_density(estimator, queries, combine="mean_log")
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    # sampled orders: the values are estimates, but each order's increments telescope, so
    # every row's values sum to its abnormality whatever orders were drawn
    sampled = explain_log_density(
        estimator, queries, method="permutation", combine="mean_log", random_state=0
    )
    np.testing.assert_allclose(sampled.sum(axis=1), expected.sum(axis=1), atol=1e-10)


def test_mean_log_flushed_products_are_recomputed_in_log_space() -> None:
    """As for the median: block sums below 1e-290 go through log space."""
    X = _correlated(200, 2, seed=5, rho=0.9999)
    estimator = MoMKDE(n_blocks=3, bandwidth=0.2, normalize=False, random_state=0).fit(X)
    queries = np.array([[30.0, -30.0], [0.0, 0.0]])
    expected = _brute_force(_blocks(estimator), np.full(2, 0.2), queries, "mean_log")
    assert expected[0].sum() > 1000  # beyond linear space
    for method in ("exact", "permutation"):  # (d = 2: both orders, exact)
        got = explain_log_density(
            estimator, queries, method=method, n_permutations=2, combine="mean_log"
        )
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("d", [1, 5, 12])
def test_contributions_sum_to_the_abnormality(d) -> None:
    X = _correlated(300, max(d, 2), seed=d)[:, :d]
    detector = OutlierDetector(random_state=1).fit(X)
    queries = np.vstack([X[:20], X[:20] + 3.0])
    blame = detector.explain(queries, random_state=0)  # d = 12: sampled orders
    np.testing.assert_allclose(blame.sum(axis=1), -detector.score_samples(queries), atol=1e-9)


def test_rows_of_zero_density_get_inf_on_the_features_out_of_reach() -> None:
    detector = OutlierDetector(random_state=0).fit(_correlated(200, 3, seed=6))
    blame = detector.explain([[1e300, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert blame[0, 0] == np.inf and np.isnan(blame[0, 1:]).all()
    assert np.isfinite(blame[1]).all()


# Planted outliers of four kinds, in a training set of 2,000 inliers with a correlated pair
# (features 0, 1) among 6 features. Each kind's planted features must be the most blamed
# (the top one, or the top two for two features) for at least 90 % of its planted rows. A
# planted row's other features are clipped to 2.5 standard deviations: an unplanted value
# beyond that (3.4 sd, say) is itself as rare as a broken pair, and blaming it is right.
KINDS = ("one_shifted", "two_shifted", "pair_broken", "clustered")


def _planted(seed: int):
    rng = np.random.default_rng(seed)
    d, per_kind = 6, 20
    X = _correlated(2000, d, seed)
    rows, blamed = [], []
    for kind in KINDS:
        if kind == "clustered":  # 8 rows at one spot: fewer than the median outvotes
            j = int(rng.integers(2, d))
            centre = np.zeros(d)
            centre[j] = 6.0
            block = centre + 0.05 * rng.standard_normal((8, d))
            rows.append(block)
            blamed += [(kind, {j})] * 8
            continue
        block = np.clip(_correlated(per_kind, d, seed + 1000 + len(rows)), -2.5, 2.5)
        for r in block:
            if kind == "one_shifted":
                cols = {int(rng.integers(d))}
            elif kind == "two_shifted":
                cols = set(rng.choice(d, 2, replace=False).tolist())
            else:  # the pair broken apart: each value plausible, their pair is not
                cols = {0, 1}
                r[0] = rng.choice([-1.0, 1.0]) * rng.uniform(1.5, 2.0)
                r[1] = -r[0]
            if kind != "pair_broken":
                for j in cols:
                    r[j] = rng.choice([-1.0, 1.0]) * 6.0
            blamed.append((kind, cols))
        rows.append(block)
    planted = np.vstack(rows)
    return np.vstack([X, planted]), planted, blamed


def _hits(seed: int) -> dict[str, float]:
    X, planted, blamed = _planted(seed)
    detector = OutlierDetector(random_state=seed).fit(X)
    blame = detector.explain(planted)
    hits = {kind: [] for kind in KINDS}
    for row, (kind, cols) in zip(blame, blamed, strict=True):
        top = set(np.argsort(-row)[: len(cols)].tolist())
        hits[kind].append(top == cols)
    return {kind: float(np.mean(h)) for kind, h in hits.items()}


@pytest.mark.parametrize("seed", [101, 202])
def test_planted_features_are_the_most_blamed(seed) -> None:
    shares = _hits(seed)
    assert all(share >= 0.9 for share in shares.values()), shares


def test_sampled_orders_are_within_the_stated_error() -> None:
    """Above 10 features explain samples orders of the features: at d = 12 its values are
    within the stated share of the exact ones' mean absolute value (method="exact")."""
    X = _correlated(1500, 12, seed=12)
    detector = OutlierDetector(random_state=0).fit(X)
    queries = np.vstack([X[:10], X[10:20] + np.eye(12)[:10] * 5.0])
    exact = detector.explain(queries, method="exact")
    sampled = detector.explain(queries, random_state=0)  # auto: sampled above d = 10
    assert np.abs(sampled - exact).mean() <= STATED_RELATIVE_MAE * np.abs(exact).mean()
    again = detector.explain(queries, random_state=0)
    np.testing.assert_array_equal(sampled, again)  # seeded


def test_unsupported_estimators_and_arguments_are_refused() -> None:
    X = _correlated(100, 3, seed=7)
    with pytest.raises(ValueError, match="momkde's kernel estimators.*KernelDensity"):
        OutlierDetector(KernelDensity()).fit(X).explain(X[:2])
    with pytest.raises(ValueError, match="'epanechnikov' kernel is not"):
        OutlierDetector(MoMKDE(kernel="epanechnikov", bandwidth=1.0)).fit(X).explain(X[:2])
    with pytest.raises(NotFittedError):
        OutlierDetector().explain(X[:2])
    with pytest.raises(NotFittedError):
        explain_log_density(KDE(), X[:2])
    detector = OutlierDetector(random_state=0).fit(X)
    with pytest.raises(ValueError, match="combine must be one of"):
        explain_log_density(KDE(bandwidth=0.5).fit(np.zeros((5, 2))), [[0, 0]], combine="mean")
    with pytest.raises(ValueError, match="method must be one of"):
        detector.explain(X[:2], method="kernel_shap")
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="n_permutations must be an integer"):
            detector.explain(X[:2], n_permutations=bad)
    with pytest.raises(ValueError, match="features"):
        detector.explain(X[:2, :2])
    wide = OutlierDetector(KDE(bandwidth=1.0)).fit(np.zeros((3, MAX_EXACT + 1)) + np.eye(3, 17))
    with pytest.raises(ValueError, match="method='exact' takes at most 16"):
        wide.explain(np.zeros((1, MAX_EXACT + 1)), method="exact")


def test_most_blamed_names_the_largest_contributions_in_order() -> None:
    from momkde_core.detector import most_blamed

    blame = np.array([[0.5, 7.0, -0.2], [np.inf, np.nan, np.nan], [1.0, 1.0, 3.0]])
    columns = most_blamed(blame, ["a", "b", "c"], top=2)
    assert list(columns) == ["blame_1", "blame_1_nats", "blame_2", "blame_2_nats"]
    assert list(columns["blame_1"]) == ["b", "a", "c"]
    assert list(columns["blame_2"]) == ["a", "", "a"]  # NaN last, unnamed; ties in order
    np.testing.assert_array_equal(columns["blame_1_nats"], [7.0, np.inf, 3.0])
    with pytest.raises(ValueError, match="top must be"):
        most_blamed(blame, ["a", "b", "c"], top=4)
    with pytest.raises(ValueError, match="one name per feature"):
        most_blamed(blame, ["a", "b"], top=1)


def test_the_default_on_a_mixed_table_sums_to_the_abnormality() -> None:
    """A table with a categorical column: the default's mean of block logs carries the
    discrete kernels' constants, and the contributions still sum to -score."""
    import pandas as pd

    rng = np.random.default_rng(7)
    table = pd.DataFrame(
        {
            "x": rng.standard_normal(300),
            "y": rng.standard_normal(300),
            "level": pd.Categorical(rng.choice(["a", "b", "c"], 300, p=[0.6, 0.39, 0.01])),
        }
    )
    detector = OutlierDetector(random_state=0).fit(table)
    rows = table.iloc[:20]
    blame = detector.explain(rows)
    np.testing.assert_allclose(blame.sum(axis=1), -detector.score_samples(rows), atol=1e-9)
    rare = table[table["level"] == "c"].iloc[:1]
    assert int(np.argmax(detector.explain(rare)[0])) == 2  # the rare level is to blame
