"""Mixed tables: continuous, unordered and ordered columns in KDE, MoM-KDE and the detector
(module ``momkde_core.estimators._mixed``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from momkde_core import KDE, InvalidParameterError, MoMKDE, OutlierDetector, ScreenedKDE
from momkde_core.estimators._mixed_columns import MAX_LEVELS

statsmodels_kd = pytest.importorskip("statsmodels.nonparametric.kernel_density")

CITY = {"FR": "Paris", "DE": "Berlin", "US": "NYC"}
LEVELS = ["lo", "mid", "hi", "top"]


def _staff(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """A role sets the salary, a country the city; age is independent."""
    rng = np.random.default_rng(seed)
    role = rng.choice(["intern", "engineer", "manager"], n, p=[0.3, 0.5, 0.2])
    salary = np.select([role == "intern", role == "engineer"], [20.0, 60.0], 100.0)
    country = rng.choice(list(CITY), n)
    return pd.DataFrame(
        {
            "salary": salary + rng.normal(0, 5, n),
            "age": rng.normal(40, 8, n),
            "role": role,
            "country": country,
            "city": pd.Series(country).map(CITY).to_numpy(),
        }
    )


def _four_kinds(n: int = 250, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "role": rng.choice(["a", "b", "c"], n),
            "y": 3 * rng.normal(size=n),
            "level": pd.Categorical(rng.choice(LEVELS, n), categories=LEVELS, ordered=True),
        }
    )


# ---- the reference: statsmodels' KDEMultivariate ----------------------------------------


def test_the_kde_of_a_mixed_table_is_statsmodels_kdemultivariate_for_the_same_bandwidths():
    table = _four_kinds()
    est = KDE(bandwidth=[0.4, 1.1], categorical_bandwidth=[0.2, 0.3]).fit(table)
    codes = pd.Index(est.categories_[0]).get_indexer(table["role"])
    data = np.column_stack([table["x"], codes, table["y"], table["level"].cat.codes])
    reference = statsmodels_kd.KDEMultivariate(data, var_type="cuco", bw=[0.4, 0.2, 1.1, 0.3])
    # (two summation orders of the same terms: round-off only)
    np.testing.assert_allclose(est.pdf(table), reference.pdf(data), rtol=1e-10)
    assert est.is_categorical_.tolist() == [False, True, False, True]
    np.testing.assert_array_equal(est.categorical_bandwidth_, [0.2, 0.3])


def test_mom_kde_of_a_mixed_table_is_the_median_of_its_block_kdes():
    table = _four_kinds(300)
    mom = MoMKDE(
        n_blocks=3, bandwidth=0.5, categorical_bandwidth=[0.2, 0.3], normalize=False, random_state=0
    ).fit(table)
    blocks = [
        KDE(bandwidth=0.5, categorical_bandwidth=[0.2, 0.3]).fit(table[mom.block_of_ == s])
        for s in range(3)
    ]
    median = np.median([b.score_samples(table) for b in blocks], axis=0)
    # (every block holds every level, so each block KDE has the fit's kernels; round-off only)
    np.testing.assert_allclose(mom.score_samples(table), median, rtol=1e-10)


def test_categorical_columns_alone_give_a_probability_table_that_sums_to_one():
    rng = np.random.default_rng(1)
    table = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], 400, p=[0.6, 0.3, 0.1]),
            "b": rng.choice([True, False], 400),
        }
    )
    kde = KDE(categorical_bandwidth=0.1).fit(table)
    grid = pd.DataFrame(
        [(a, b) for a in ["x", "y", "z"] for b in [True, False]], columns=["a", "b"]
    )
    assert kde.pdf(grid).sum() == pytest.approx(1.0, rel=1e-12)  # (six round-off terms)
    assert kde.bandwidth_.shape == (0,)  # no continuous column
    # MoM-KDE's median divided by its integral (importance sampling: 4096 draws of a
    # ratio bounded by 2, a standard error near 1 %)
    mom = MoMKDE(n_blocks=5, categorical_bandwidth=0.1, random_state=0).fit(table)
    assert mom.pdf(grid).sum() == pytest.approx(1.0, rel=0.05)


def test_mom_kde_of_a_mixed_table_integrates_to_one_over_the_levels_and_the_line():
    rng = np.random.default_rng(2)
    group = rng.choice(["a", "b"], 400)
    table = pd.DataFrame(
        {"x": np.where(group == "a", 0.0, 5.0) + rng.normal(0, 1, 400), "g": group}
    )
    mom = MoMKDE(n_blocks=5, bandwidth=0.5, categorical_bandwidth=0.2, random_state=0).fit(table)

    x = np.linspace(-10.0, 15.0, 5001)
    mass = sum(
        integrate.trapezoid(mom.pdf(pd.DataFrame({"x": x, "g": level})), x) for level in "ab"
    )
    # (the integral divided out is an importance-sampling estimate, standard error ~1 %)
    assert mass == pytest.approx(1.0, rel=0.05)


# ---- column types, unseen levels, missing values ---------------------------------------


def test_column_types_are_read_from_the_dtypes_as_histgradientboosting_reads_them():
    n = 60
    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        {
            "num": rng.normal(size=n),
            "obj": pd.Series(rng.choice(["a", "b"], n), dtype=object),
            "text": pd.Series(rng.choice(["u", "v"], n), dtype="string"),
            "cat": pd.Categorical(rng.choice(["p", "q"], n)),
            "flag": rng.choice([True, False], n),
            "rank": pd.Categorical(rng.choice(LEVELS, n), categories=LEVELS, ordered=True),
        }
    )
    est = KDE().fit(table)
    assert est.is_categorical_.tolist() == [False, True, True, True, True, True]
    assert list(est.categories_[-1]) == LEVELS  # an ordered column: all its categories
    assert list(est.feature_names_in_) == list(table.columns)
    # overrides: names, indices, a mask
    numeric = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.normal(size=n)})
    for chosen in (["a"], [0], [True, False]):
        assert KDE(categorical_features=chosen).fit(numeric).is_categorical_.tolist() == [
            True,
            False,
        ]
    # numpy input is continuous unless columns are named
    assert not hasattr(KDE().fit(numeric.to_numpy()), "is_categorical_")
    assert KDE(categorical_features=[0]).fit(numeric.to_numpy()).is_categorical_[0]


def test_a_table_without_categorical_columns_takes_the_continuous_path_unchanged():
    X = np.random.default_rng(0).normal(size=(200, 2))
    frame = pd.DataFrame(X, columns=["a", "b"])
    est = KDE(bandwidth=0.5).fit(frame)
    assert est._mixed is None and not hasattr(est, "categorical_bandwidth_")
    # (one path, the same inputs: the same bits)
    np.testing.assert_array_equal(
        est.score_samples(frame), KDE(bandwidth=0.5).fit(X).score_samples(X)
    )


def test_an_unseen_level_gets_the_off_level_value_and_nan_is_a_level_of_its_own():
    table = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "g": ["a", "b", None, "a"]})
    kde = KDE(bandwidth=1.0, categorical_bandwidth=0.3).fit(table)
    assert len(kde.categories_[0]) == 3 and pd.isna(kde.categories_[0][-1])
    x = np.array([0.0, 1.0, 2.0, 3.0])
    gauss = np.exp(-0.5 * (1.5 - x) ** 2) / np.sqrt(2 * np.pi)
    off = 0.3 / 2  # lambda / (c - 1), c = 3 levels: a, b and the missing one
    unseen = kde.pdf(pd.DataFrame({"x": [1.5], "g": ["never seen"]}))[0]
    assert unseen == pytest.approx(gauss.mean() * off, rel=1e-12)  # (round-off only)
    missing = kde.pdf(pd.DataFrame({"x": [1.5], "g": [np.nan]}))[0]
    expected = np.mean(gauss * np.where([False, False, True, False], 0.7, off))
    assert missing == pytest.approx(expected, rel=1e-12)


def test_an_unseen_level_of_an_ordered_column_sits_at_the_centre_of_the_levels():
    table = pd.DataFrame(
        {"level": pd.Categorical(["lo", "hi", "top"], categories=LEVELS, ordered=True)}
    )
    kde = KDE(categorical_bandwidth=0.3).fit(table)
    value = kde.pdf(pd.DataFrame({"level": ["??"]}))[0]
    # (1 - lambda) / 2 lambda^((c - 1) / 4), c = 4 categories, for every row (round-off only)
    assert value == pytest.approx(0.7 / 2 * 0.3**0.75, rel=1e-12)


def test_bad_mixed_input_gets_a_message_that_says_what_to_fix():
    n = 50
    rng = np.random.default_rng(0)
    mixed = pd.DataFrame({"x": rng.normal(size=n), "m": ["a", 1] * (n // 2)})
    with pytest.raises(ValueError, match="mixes text and numbers"):
        KDE().fit(mixed)
    many = pd.DataFrame(
        {"x": rng.normal(size=MAX_LEVELS + 5), "id": [f"r{i}" for i in range(MAX_LEVELS + 5)]}
    )
    with pytest.raises(ValueError, match="levels \\(at most 1000\\)"):
        KDE().fit(many)
    ordered = pd.DataFrame(
        {
            "x": rng.normal(size=3),
            "o": pd.Categorical(["lo", None, "hi"], categories=LEVELS, ordered=True),
        }
    )
    with pytest.raises(ValueError, match="missing values in the ordered column 'o'"):
        KDE().fit(ordered)
    table = _staff(60)
    with pytest.raises(InvalidParameterError, match="kernel='gaussian'"):
        KDE(kernel="epanechnikov").fit(table)
    with pytest.raises(InvalidParameterError, match="categorical_bandwidth must be"):
        KDE(categorical_bandwidth="silverman").fit(table)
    with pytest.raises(InvalidParameterError, match="above its largest"):
        KDE(categorical_bandwidth=0.9).fit(table)
    with pytest.raises(InvalidParameterError, match="no column of X"):
        KDE(categorical_features=["nope"]).fit(table)
    with pytest.raises(
        ValueError, match="continuous column 'salary' holds values that are no numbers"
    ):
        KDE().fit(table).score_samples(table.assign(salary="high"))
    with pytest.raises(ValueError, match="grids are for continuous features"):
        KDE().fit(table).pdf_grid(np.linspace(0, 1, 5))


# ---- bandwidths -------------------------------------------------------------------------


def test_cv_smooths_a_noise_column_more_and_a_telling_column_less_than_the_rule():
    rng = np.random.default_rng(3)
    n = 600
    tell = rng.choice(["a", "b", "c"], n)
    table = pd.DataFrame(
        {
            "x": pd.Series(tell).map({"a": 0.0, "b": 10.0, "c": 20.0}).to_numpy()
            + rng.normal(0, 1, n),
            "tell": tell,
            "noise": rng.choice(["p", "q", "r"], n),
        }
    )
    rule = KDE(categorical_bandwidth="rule").fit(table).categorical_bandwidth_
    cv = KDE(categorical_bandwidth="cv").fit(table).categorical_bandwidth_
    assert cv[0] < rule[0] and cv[1] > rule[1]
    assert (cv > 0).all() and (cv <= 2 / 3).all()
    again = KDE(categorical_bandwidth="cv").fit(table).categorical_bandwidth_
    np.testing.assert_array_equal(cv, again)  # deterministic: the same search, the same rows


def test_integer_weights_are_repeated_rows_for_a_mixed_table():
    table = _four_kinds(120)
    w = np.arange(120) % 3
    options = {"bandwidth": 0.5, "categorical_bandwidth": [0.2, 0.3]}
    weighted = KDE(**options).fit(table, sample_weight=w)
    repeated = KDE(**options).fit(table.loc[table.index.repeat(w)])
    # (the same terms summed in another order)
    np.testing.assert_allclose(
        weighted.score_samples(table[:10]), repeated.score_samples(table[:10]), rtol=1e-10
    )


# ---- sampling ---------------------------------------------------------------------------


def test_draws_follow_the_kernel_of_the_levels():
    table = pd.DataFrame({"g": ["a"] * 300 + ["b"] * 100})
    kde = KDE(categorical_bandwidth=0.2).fit(table)
    draws = kde.sample(20000, random_state=0)
    assert list(draws.columns) == ["g"]
    expected = kde.pdf(pd.DataFrame({"g": ["a"]}))[0]  # 0.75 * 0.8 + 0.25 * 0.2
    share = (draws["g"] == "a").mean()
    assert share == pytest.approx(expected, abs=4 * np.sqrt(expected * (1 - expected) / 20000))


def test_mom_kde_draws_a_mixed_table_with_its_columns_and_levels():
    table = _staff(400)
    mom = MoMKDE(n_blocks=5, categorical_bandwidth=0.05, random_state=0).fit(table)
    draws = mom.sample(300, random_state=0)
    assert list(draws.columns) == list(table.columns) and len(draws) == 300
    assert set(draws["role"]) <= set(table["role"])
    # the city follows the country but for the kernel's moves, 5 % per column: about 90 %
    # of the draws keep the pair (300 draws: a standard error near 2 %)
    assert (draws["country"].map(CITY) == draws["city"]).mean() > 0.8


# ---- explanations -----------------------------------------------------------------------


def _explained(rows: pd.DataFrame) -> np.ndarray:
    detector = OutlierDetector(random_state=0).fit(_staff(1500))
    blame = detector.explain(rows)
    np.testing.assert_allclose(blame.sum(axis=1), -detector.score_samples(rows), rtol=1e-8)
    return blame


def test_an_impossible_pair_of_levels_blames_both_columns():
    rows = pd.DataFrame(
        {
            "salary": [60.0, 60.0],
            "age": [40.0, 40.0],
            "role": ["engineer", "engineer"],
            "country": ["FR", "FR"],
            "city": ["Paris", "NYC"],  # typical, then a city of another country
        }
    )
    rise = np.diff(_explained(rows), axis=0)[0]  # each column's blame, odd row minus typical
    assert set(np.argsort(rise)[-2:]) == {3, 4}  # country and city
    assert rise[3] > 1.0 and rise[4] > 1.0  # each divides the density by more than e


def test_a_salary_odd_for_its_role_blames_the_salary():
    rows = pd.DataFrame(
        {
            "salary": [20.0, 100.0],  # an intern's, then a manager's
            "age": [40.0, 40.0],
            "role": ["intern", "intern"],
            "country": ["FR", "FR"],
            "city": ["Paris", "Paris"],
        }
    )
    rise = np.diff(_explained(rows), axis=0)[0]
    assert int(np.argmax(rise)) == 0 and rise[0] > 1.0


def test_screened_kde_sets_aside_a_cluster_of_impossible_pairs():
    table = _staff(800)
    table.loc[:29, ["salary", "age", "role", "country", "city"]] = [
        50.0,
        40.0,
        "intern",
        "FR",
        "NYC",
    ]
    est = ScreenedKDE(contamination=0.05, random_state=0).fit(table)
    assert est.is_categorical_.tolist() == [False, False, True, True, True]
    assert (~est.inlier_mask_[:30]).all()  # the planted cluster set aside
    assert est.inlier_mask_[30:].mean() > 0.9
    rows = table.iloc[[0, 40]]
    assert est.score_samples(rows)[0] < est.score_samples(rows)[1]
