"""Tests of the grid metrics (KL, JS, L1, Linf) and the anomaly AUC."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import jensenshannon
from scipy.stats import norm

from momkde_core import metrics

XS = np.linspace(-15, 15, 6001)
DX = XS[1] - XS[0]


def gaussian(mean: float, sd: float) -> np.ndarray:
    return norm.pdf(XS, mean, sd)


@pytest.mark.parametrize(
    ("m1", "s1", "m2", "s2"), [(0, 1, 1, 2), (0, 0.5, 0, 1), (2, 1.5, -1, 0.8)]
)
def test_kl_of_two_gaussians_matches_the_closed_form(
    m1: float, s1: float, m2: float, s2: float
) -> None:
    expected = math.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5
    assert metrics.kl_divergence(gaussian(m1, s1), gaussian(m2, s2), DX) == pytest.approx(
        expected, abs=1e-4
    )


def test_divergences_of_a_density_with_itself_are_zero() -> None:
    p = gaussian(0, 1)
    assert metrics.kl_divergence(p, p, DX) == 0.0
    assert metrics.js_divergence(p, p, DX) == 0.0
    assert metrics.js_distance(p, p, DX) == 0.0


def test_js_is_one_for_disjoint_supports() -> None:
    p = np.array([1.0, 2.0, 0.0, 0.0])
    q = np.array([0.0, 0.0, 3.0, 1.0])
    assert metrics.js_divergence(p, q, 0.5) == pytest.approx(1.0, abs=1e-12)
    assert metrics.js_distance(p, q, 0.5) == pytest.approx(math.sqrt(math.log(2)), abs=1e-12)


def test_kl_is_infinite_without_warning_where_q_vanishes_and_p_does_not() -> None:
    p = np.array([1.0, 1.0, 1.0])
    q = np.array([1.0, 1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert metrics.kl_divergence(p, q, 1.0) == np.inf
        assert math.isfinite(metrics.js_divergence(p, q, 1.0))
    # the other way round, 0 * log(0 / q) = 0: finite, and equal to log(3/2)
    assert metrics.kl_divergence(q, p, 1.0) == pytest.approx(math.log(1.5))


def test_divergences_renormalise_but_norms_do_not() -> None:
    p, q = gaussian(0, 1), gaussian(1, 1.5)
    assert metrics.kl_divergence(3 * p, 0.5 * q, DX) == pytest.approx(
        metrics.kl_divergence(p, q, DX)
    )
    assert metrics.js_divergence(3 * p, q, DX) == pytest.approx(metrics.js_divergence(p, q, DX))
    # a truncated grid: the halves of one density on [0, inf) agree after renormalising
    half = XS >= 0
    assert metrics.js_divergence(p[half], 2 * p[half], DX) == pytest.approx(0.0, abs=1e-15)
    assert metrics.l1_distance(p, 2 * p, DX) == pytest.approx(1.0, abs=1e-6)
    assert metrics.linf_distance(p, 2 * p) == pytest.approx(norm.pdf(0))


def test_l1_and_linf_on_known_vectors() -> None:
    p = np.array([[0.0, 1.0], [2.0, 3.0]])
    q = np.array([[1.0, 1.0], [0.0, 3.5]])
    assert metrics.l1_distance(p, q, 0.25) == pytest.approx(0.25 * 3.5)
    assert metrics.linf_distance(p, q) == 2.0


def test_js_distance_equals_scipy_jensenshannon() -> None:
    rng = np.random.default_rng(0)
    for _ in range(5):
        p, q = rng.random(50), rng.random(50)
        p[rng.random(50) < 0.2] = 0.0
        assert metrics.js_distance(p, q, 0.3) == pytest.approx(jensenshannon(p, q), rel=1e-10)
        assert metrics.js_divergence(p, q, 0.3) == pytest.approx(
            jensenshannon(p, q, base=2) ** 2, rel=1e-10
        )


def test_two_dimensional_grids_are_accepted() -> None:
    axis = np.linspace(-8, 8, 161)
    xx, yy = np.meshgrid(axis, axis, indexing="ij")
    p = norm.pdf(xx) * norm.pdf(yy)
    q = norm.pdf(xx, 1) * norm.pdf(yy)
    assert metrics.kl_divergence(p, q, (axis[1] - axis[0]) ** 2) == pytest.approx(0.5, abs=1e-4)


@pytest.mark.parametrize(
    ("p", "q", "cell", "message"),
    [
        ([1.0, -0.1], [1.0, 1.0], 1.0, "p contains negative values"),
        ([1.0, 1.0], [np.nan, 1.0], 1.0, "q contains NaN or infinite"),
        ([1.0, np.inf], [1.0, 1.0], 1.0, "p contains NaN or infinite"),
        ([0.0, 0.0], [1.0, 1.0], 1.0, "p is zero everywhere"),
        ([1.0, 1.0], [1.0, 1.0, 1.0], 1.0, "same grid"),
        ([], [], 1.0, "empty"),
        ([1.0], [1.0], 0.0, "cell"),
        ([1.0], [1.0], float("nan"), "cell"),
    ],
)
@pytest.mark.parametrize(
    "metric", [metrics.kl_divergence, metrics.js_divergence, metrics.js_distance]
)
def test_divergences_reject_bad_input(metric, p: list, q: list, cell: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        metric(p, q, cell)


def test_norms_reject_bad_input() -> None:
    with pytest.raises(ValueError, match="negative"):
        metrics.l1_distance([1.0, -1.0], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="NaN"):
        metrics.linf_distance([1.0, np.nan], [1.0, 1.0])


densities = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        *(
            arrays(np.float64, n, elements=st.floats(0, 1e6)).filter(lambda a: a.sum() > 0)
            for _ in range(2)
        )
    )
)
cells = st.floats(1e-3, 1e3)


@settings(max_examples=200, deadline=None)
@given(pq=densities, cell=cells)
def test_js_is_bounded_and_symmetric(pq: tuple[np.ndarray, np.ndarray], cell: float) -> None:
    p, q = pq
    js = metrics.js_divergence(p, q, cell)
    assert 0.0 <= js <= 1.0
    assert js == pytest.approx(metrics.js_divergence(q, p, cell), abs=1e-12)
    assert metrics.js_distance(p, q, cell) == pytest.approx(
        metrics.js_distance(q, p, cell), abs=1e-12
    )
    assert math.isfinite(metrics.js_distance(p, q, cell))


@settings(max_examples=200, deadline=None)
@given(pq=densities, cell=cells)
def test_kl_is_non_negative(pq: tuple[np.ndarray, np.ndarray], cell: float) -> None:
    p, q = pq
    assert metrics.kl_divergence(p, q, cell) >= -1e-12


def test_auc_ranks_low_density_as_outlier() -> None:
    scores = np.array([0.9, 0.8, 0.7, 0.1, 0.05])
    is_outlier = np.array([False, False, False, True, True])
    assert metrics.auc(scores, is_outlier) == 1.0
    assert metrics.auc(-scores, is_outlier) == 0.0
    assert metrics.auc(scores, is_outlier.astype(int)) == 1.0


def test_auc_handles_zero_density_minus_infinity_and_ties() -> None:
    is_outlier = np.array([False, False, True, True])
    with np.errstate(divide="ignore"):
        log_density = np.log([0.5, 0.4, 0.0, 0.0])  # score_samples gives -inf where pdf is 0
    assert metrics.auc(log_density, is_outlier) == 1.0
    assert metrics.auc([0.5, 0.4, 0.0, 0.0], is_outlier) == 1.0
    # outlier 0.0 vs inliers 0.5, 0.0: 1 + 1/2 (tie); outlier 0.1 vs inliers 0.5, 0.0: 1 + 0
    assert metrics.auc([0.5, 0.0, 0.0, 0.1], is_outlier) == 2.5 / 4
    assert metrics.auc([1.0, 1.0, 1.0, 1.0], is_outlier) == 0.5


def test_auc_is_invariant_to_the_log() -> None:
    rng = np.random.default_rng(1)
    density = rng.random(200)
    is_outlier = rng.random(200) < 0.3
    assert metrics.auc(density, is_outlier) == metrics.auc(np.log(density), is_outlier)


@pytest.mark.parametrize(
    ("scores", "is_outlier", "message"),
    [
        ([0.1, 0.2], [False, False], "only one class"),
        ([0.1, 0.2], [True, True], "only one class"),
        ([0.1, np.nan], [True, False], "NaN"),
        ([0.1, 0.2, 0.3], [True, False], "same length"),
        ([0.1, 0.2], [2, 0], "boolean or 0/1"),
    ],
)
def test_auc_rejects_bad_input(scores: list, is_outlier: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        metrics.auc(scores, is_outlier)


def test_js_is_finite_with_subnormal_values() -> None:
    """A density with a subnormal node (the far tail of a KDE) is not 'disjoint': halving the
    smallest subnormal underflows to 0, which must not make KL(q || m) infinite."""
    x = np.linspace(-5.0, 5.0, 201)
    p = np.exp(-(x**2) / 2)
    p[0] = 0.0
    q = p.copy()
    q[0] = 5e-324  # the smallest positive double
    assert metrics.js_divergence(p, q, cell=0.05) < 1e-12
    assert np.isfinite(metrics.js_distance(p, q, cell=0.05))
