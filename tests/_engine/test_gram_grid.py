"""The grid path of the Gram products (RKDE's and SPKDE's G @ v at large n in d <= 2) and the
robust estimators' ``verbose`` progress log.

The grid path is checked against the direct sum (scipy's cdist + exp) within its a-priori
bound, and whole fits at n = 3000 (forced onto the grid path) against the dense path.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from momkde_core._engine import GramOperator
from momkde_core._engine import _gram as gram_engine
from momkde_core._engine._gram import GRAM_GRID_RTOL
from momkde_core.estimators import RKDE, SPKDE
from momkde_core.kernels import get_kernel

GAUSSIAN = get_kernel("gaussian")


def _direct(X: np.ndarray, h: float, v: np.ndarray) -> np.ndarray:
    """sum_j v_j K_h(X_i - X_j), straight from the definition."""
    d = X.shape[1]
    return np.exp(-0.5 * cdist(X, X, "sqeuclidean") / h**2) @ v / (2 * np.pi * h * h) ** (d / 2)


def _contaminated(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = n // 10
    return np.vstack([rng.standard_normal((n - m, d)), rng.uniform(-6, 6, (m, d))])


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("h", [0.1, 0.4, 1.5])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grid_products_within_their_bound(d, h, dtype):
    X = _contaminated(1500, d, seed=d)
    gram = GramOperator(X, GAUSSIAN, h, dtype=dtype, method="grid")
    assert gram.method == "grid"
    rng = np.random.default_rng(7)
    for v in (
        np.full(len(X), 1.0 / len(X)),
        rng.standard_normal(len(X)),
        rng.dirichlet(np.ones(len(X))),
    ):
        bound = GRAM_GRID_RTOL[np.dtype(dtype).name] * gram.diagonal * np.abs(v).sum()
        error = np.max(np.abs(gram.matvec(v) - _direct(X, h, v)))
        assert error <= bound
        assert error > 0  # an approximation indeed (the test would not see a silent dense path)


def test_auto_keeps_the_dense_path_for_small_n_and_other_kernels():
    X = _contaminated(500, 2, seed=0)
    assert GramOperator(X, GAUSSIAN, 0.3).method == "dense"
    assert GramOperator(X, get_kernel("epanechnikov"), 0.3, method="grid").method == "dense"
    assert GramOperator(np.hstack([X, X[:, :1]]), GAUSSIAN, 0.3, method="grid").method == "dense"


def test_grid_too_large_falls_back_to_dense():
    X = _contaminated(500, 2, seed=0)
    X[0] = [1e5, -1e5]  # a far outlier: a grid of step ~h / 12 over 2e5 would not fit
    gram = GramOperator(X, GAUSSIAN, 0.3, method="grid")
    assert gram.method == "dense"
    v = np.random.default_rng(0).standard_normal(len(X))
    # (the dense path's BLAS distances lose ~eps * 1e10 to the outlier's coordinates)
    np.testing.assert_allclose(
        gram.matvec(v), _direct(X, 0.3, v), rtol=0, atol=1e-8 * gram.diagonal * np.abs(v).sum()
    )


def test_unknown_method_is_a_value_error():
    with pytest.raises(ValueError, match="unknown method"):
        GramOperator(np.zeros((3, 1)), GAUSSIAN, 1.0, method="fast")


def _fit(est, X, grid: bool, monkeypatch):
    """Fit with the grid path forced (as "auto" takes it from n = 7746 on) or not."""
    with monkeypatch.context() as patch:
        if grid:
            patch.setattr(gram_engine, "GRAM_GRID_MIN_PAIRS", 0)
        return est.fit(X)


@pytest.mark.parametrize("scale_from", ["absolute", "kde"])
def test_rkde_on_the_grid_path_matches_the_dense_fit(scale_from, monkeypatch):
    X = _contaminated(3000, 2, seed=1)
    Y = np.random.default_rng(2).uniform(-4, 4, (400, 2))
    dense = _fit(RKDE(bandwidth=0.3, scale_from=scale_from), X, False, monkeypatch)
    grid = _fit(RKDE(bandwidth=0.3, scale_from=scale_from), X, True, monkeypatch)
    assert (grid.n_iter_, grid.scale_n_iter_) == (dense.n_iter_, dense.scale_n_iter_)
    # measured: weights within 1.5e-10 of the largest, densities within 2e-12 of the peak
    np.testing.assert_allclose(
        grid.weights_, dense.weights_, rtol=0, atol=1e-8 * dense.weights_.max()
    )
    np.testing.assert_allclose(grid.loss_params_, dense.loss_params_, rtol=1e-9)
    pdf_dense = np.exp(dense.score_samples(Y))
    np.testing.assert_allclose(
        np.exp(grid.score_samples(Y)), pdf_dense, rtol=0, atol=1e-9 * pdf_dense.max()
    )


def test_spkde_on_the_grid_path_matches_the_dense_fit_within_the_solvers_precision(monkeypatch):
    X = _contaminated(3000, 2, seed=1)
    Y = np.random.default_rng(2).uniform(-4, 4, (400, 2))
    dense = _fit(SPKDE(bandwidth=0.3), X, False, monkeypatch)
    grid = _fit(SPKDE(bandwidth=0.3), X, True, monkeypatch)
    # SPKDE's QP is flat along many directions: at tol = 1e-5 the dense fit's own weights
    # are 0.045 (L1) and its density 1e-3 of the peak from the QP's solution (measured
    # against tol = 1e-10 on this sample), so the two fits are compared at that precision,
    # by the QP's objective (computed exactly, in float64) and by the densities
    gram = GramOperator(X, GAUSSIAN, np.sqrt(2) * dense._fitted.h)
    target = np.full(len(X), dense.beta_ / len(X))
    q_target = gram.matvec(target)

    def terms(a):
        return a @ gram.matvec(a), 2 * a @ q_target, target @ q_target

    def objective(a):
        quadratic, linear, constant = terms(a)
        return quadratic - linear + constant

    # Where the solver stops is set by the round-off of its float32 Gram products: the
    # objective J = a'Qa - 2 a'q + c is ~3000 times smaller than its terms here, so a few
    # float32 roundings of them (eps32 = 1.2e-7 each) move J by ~1e-3 relative, above the
    # stopping rule's tol = 1e-5 of J: the fits stop wherever that noise lets them (within
    # 1.4e-3 of each other with OpenBLAS's SSE kernels, 2.2e-4 with its AVX ones). Allowed:
    # 8 float32 roundings of the terms, relative to J.
    resolution = np.finfo(np.float32).eps * sum(terms(dense.weights_)) / objective(dense.weights_)
    assert objective(grid.weights_) == pytest.approx(objective(dense.weights_), rel=8 * resolution)
    pdf_dense = np.exp(dense.score_samples(Y))
    np.testing.assert_allclose(
        np.exp(grid.score_samples(Y)), pdf_dense, rtol=0, atol=1e-3 * pdf_dense.max()
    )


@pytest.mark.parametrize(
    "make", [lambda v: RKDE(bandwidth=0.5, verbose=v), lambda v: SPKDE(bandwidth=0.5, verbose=v)]
)
def test_verbose_logs_every_iteration(make, caplog):
    X = _contaminated(200, 2, seed=3)
    with caplog.at_level(logging.INFO, logger="momkde_core.estimators"):
        quiet = make(0).fit(X)
    assert caplog.records == []
    with caplog.at_level(logging.INFO, logger="momkde_core.estimators"):
        loud = make(1).fit(X)
    messages = [r.getMessage() for r in caplog.records]
    name = type(loud).__name__
    assert messages[0] == f"{name}: 200 points in 2-D, Gram products by the dense path"
    iterations = [m for m in messages[1:] if " iteration " in m]
    assert len(iterations) == len(messages) - 1
    expected = loud.n_iter_ + getattr(loud, "scale_n_iter_", 0)
    assert len(iterations) == expected
    assert iterations[-1].startswith(f"{name} ") and f"iteration {loud.n_iter_} " in iterations[-1]
    # logging changes nothing (the same fit twice in this process: to the bit)
    np.testing.assert_array_equal(loud.weights_, quiet.weights_)
    if name == "RKDE":  # the logged objectives are the recorded history
        logged = [float(m.rsplit(" ", 1)[1]) for m in iterations[-loud.n_iter_ :]]
        np.testing.assert_allclose(logged, loud.objective_[1:], rtol=1e-9)


def test_dense_float32_matrix_holds_no_subnormal_entries():
    """The float32 dense matrix (SPKDE's) flushes entries below float32's smallest normal
    number to 0 (subnormal operands slow every product down), and its products stay within
    float32's rounding of the direct sum."""
    X = _contaminated(600, 2, seed=3)
    h = 0.5  # far pairs give e^-88 .. e^-745: float32 subnormals before the flush
    gram = GramOperator(X, GAUSSIAN, h, dtype=np.float32, method="dense")
    matrix = gram._matrix
    assert matrix.dtype == np.float32
    nonzero = np.abs(matrix[matrix != 0])
    assert nonzero.min() >= np.finfo(np.float32).tiny
    exact = np.exp(-0.5 * cdist(X, X, "sqeuclidean") / h**2) / (2 * np.pi * h * h)
    assert ((exact > 0) & (exact < np.finfo(np.float32).tiny)).sum() > 1000  # flushed ones
    v = np.random.default_rng(1).dirichlet(np.ones(len(X)))
    np.testing.assert_allclose(
        gram.matvec(v), _direct(X, h, v), rtol=1e-6, atol=1e-7 * gram.diagonal
    )
