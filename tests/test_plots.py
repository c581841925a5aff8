"""The figure builders: right traces, colours shared across figures, readable errors."""

import numpy as np
import pandas as pd
import pytest

from momkde_core import plots


def _results() -> pd.DataFrame:
    rows = [dict(source="uniform", ratio=r, rep=k, seed=k, method=m, n_blocks=1, bandwidth=0.3, metric="js",
                 value=r + k) for r in (0.1, 0.2) for k in range(3) for m in ("kde", "mom_kde")]
    return pd.DataFrame(rows)


def test_metric_vs_ratio_mean_and_band():
    fig = plots.metric_vs_ratio_figure(_results(), "js")
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.name for t in lines] == ["KDE", "MoM-KDE"]
    np.testing.assert_allclose(lines[0].y, [1.1, 1.2])  # mean over reps 0, 1, 2
    assert lines[1].line.color == plots.METHOD_COLORS["mom_kde"]
    assert sum(t.fill == "toself" for t in fig.data) == 2


def test_metric_vs_ratio_unknown_metric():
    with pytest.raises(ValueError, match="no rows for metric"):
        plots.metric_vs_ratio_figure(_results(), "auc")


def test_density_figures():
    xs = np.linspace(0, 1, 11)
    fig = plots.density_1d_figure(xs, {"truth": xs, "kde": xs}, X=np.array([0.2, 0.5]),
                                  is_outlier=np.array([False, True]), block_curves=np.ones((3, 11)))
    assert [t.name for t in fig.data][:3] == ["S = 3 block KDEs", "True density", "KDE"]
    fig2 = plots.density_2d_figure(xs, xs, {"kde": np.ones((11, 11)), "rkde": np.ones((11, 11))})
    assert sum(t.type == "contour" for t in fig2.data) == 2
