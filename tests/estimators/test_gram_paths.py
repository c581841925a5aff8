"""The Gram path RKDE and SPKDE take on Explore's 1-D samples: RKDE's products on the short
1-D grid from GRAM_GRID_MIN_POINTS_1D points (the same fit as the dense one up to
round-off of its iterations), SPKDE's float32 products dense, as before."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import momkde_core._engine._gram as gram_engine
from momkde_core import RKDE, SPKDE
from momkde_core.synthetic import make_contaminated


def _path(est, X, caplog) -> str:
    """The Gram path of ``est``'s fit on X, read from its verbose log."""
    with caplog.at_level(logging.INFO, logger="momkde_core.estimators"):
        est.set_params(verbose=1).fit(X)
    (line,) = [r.getMessage() for r in caplog.records if "Gram products" in r.getMessage()]
    caplog.clear()
    return line.split(" by the ")[1].split()[0]


@pytest.mark.parametrize("scheme", ["uniform", "thin_gaussian"])
def test_rkde_in_1d_takes_the_grid_path_with_the_dense_fits_results(scheme, caplog, monkeypatch):
    data = make_contaminated(scheme, 1000, 0.1, 1, 0)  # Explore's default sample: 1111 rows
    grid = RKDE(bandwidth=0.3)
    assert _path(grid, data.X, caplog) == "grid"
    with monkeypatch.context() as patch:
        patch.setattr(gram_engine, "GRAM_GRID_MIN_POINTS_1D", len(data.X) + 1)
        dense = RKDE(bandwidth=0.3)
        assert _path(dense, data.X, caplog) == "dense"
    assert (grid.n_iter_, grid.scale_n_iter_) == (dense.n_iter_, dense.scale_n_iter_)
    # measured: weights within 3e-11 relative, densities within 1e-12 of the peak
    np.testing.assert_allclose(grid.weights_, dense.weights_, rtol=1e-9)
    np.testing.assert_allclose(grid.loss_params_, dense.loss_params_, rtol=1e-10)
    xs = np.linspace(-4.0, 10.0, 301)
    pdf = dense.pdf_grid(xs)
    np.testing.assert_allclose(grid.pdf_grid(xs), pdf, rtol=0, atol=1e-10 * pdf.max())


def test_rkde_below_the_threshold_and_in_2d_and_spkde_stay_dense(caplog) -> None:
    X1 = make_contaminated("uniform", 1000, 0.1, 1, 0).X
    X2 = make_contaminated("uniform", 1000, 0.1, 2, 0).X
    assert _path(RKDE(bandwidth=0.3), X1[: gram_engine.GRAM_GRID_MIN_POINTS_1D - 1], caplog) == (
        "dense"
    )
    assert _path(RKDE(bandwidth=0.3), X2, caplog) == "dense"
    assert _path(SPKDE(bandwidth=0.3), X1, caplog) == "dense"  # float32: its solver's stop
