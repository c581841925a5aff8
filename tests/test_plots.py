"""The figure builders: right traces, colours shared across figures, readable errors."""

import numpy as np
import pandas as pd
import pytest

from momkde_core import plots


def _results() -> pd.DataFrame:
    rows = [
        dict(
            source="uniform",
            ratio=r,
            rep=k,
            seed=k,
            method=m,
            n_blocks=1,
            bandwidth=0.3,
            metric="js",
            value=r + k,
        )
        for r in (0.1, 0.2)
        for k in range(3)
        for m in ("kde", "mom_kde")
    ]
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
    fig = plots.density_1d_figure(
        xs,
        {"truth": xs, "kde": xs},
        X=np.array([0.2, 0.5]),
        is_outlier=np.array([False, True]),
        block_curves=np.ones((3, 11)),
    )
    assert [t.name for t in fig.data][:3] == ["S = 3 block KDEs (grey)", "True density", "KDE"]
    assert [t.name for t in fig.data][3:] == ["inliers (1)", "outliers (1)"]
    assert fig.data[0].line.color == plots._rgba(plots.BLOCK_COLOR, 0.35)  # not MoM-KDE's hue


def test_flagged_rows_get_their_own_rug_row_and_rings():
    xs = np.linspace(0, 1, 11)
    X = np.array([0.1, 0.5, 0.9])
    flagged = np.array([False, False, True])
    fig = plots.density_1d_figure(xs, {"kde": xs}, X=X, flagged=flagged)
    assert [t.name for t in fig.data][-1] == "flagged (1)"
    assert (
        fig.layout.shapes[-1].line.color == plots.FLAG_COLOR
        and fig.layout.shapes[-1].path.count("M") == 1
    )
    X2 = np.c_[X, X]
    fig2 = plots.density_2d_figure(xs, xs, {"kde": np.ones((11, 11))}, X2, flagged=flagged)
    assert [t.name for t in fig2.data if t.name.startswith("flagged")] == ["flagged (1)"]


def test_auc_figure_draws_the_chance_line():
    table = _results().assign(metric="auc", value=0.3)
    fig = plots.metric_vs_ratio_figure(table, "auc")
    (line,) = fig.layout.shapes
    assert line.y0 == line.y1 == 0.5 and "chance" in fig.layout.annotations[0].text
    assert tuple(fig.layout.yaxis.range) == (0.0, 1.02)
    assert not plots.metric_vs_ratio_figure(_results(), "js").layout.shapes


def test_colour_cap_ignores_a_spike():
    flat, spike = np.full((5, 5), 0.2), np.full((5, 5), 0.2)
    spike[2, 2] = 55.0
    assert plots.shared_colour_cap({"kde": spike, "mom_kde": flat}) == (0.25, True)
    assert plots.shared_colour_cap({"truth": flat * 2, "kde": spike})[0] == 0.5
    assert plots.shared_colour_cap({"kde": flat}) == (0.2, False)
    fig = plots.density_2d_figure(
        np.arange(5.0),
        np.arange(5.0),
        {"kde": spike, "mom_kde": flat},
        panel_notes={"kde": "JS 0.21"},
    )
    assert fig.data[0].zmax == 0.25 and fig.layout.annotations[0].text == "KDE · JS 0.21"


def test_timing_slopes_and_labelled_log_axes():
    n = np.array([125, 250, 500, 1000])
    times = pd.DataFrame(
        [
            {"method": m, "n": k, "phase": ph, "seconds": 1e-4 * (k / 125) ** p}
            for m, p in (("kde", 1.0), ("rkde", 2.0))
            for k in n
            for ph in ("fit", "evaluate")
        ]
    )
    slopes = plots.timing_slopes(times)
    assert slopes == pytest.approx({"kde": 1.0, "rkde": 2.0})
    fig = plots.timing_figure(times)
    assert [t.name for t in fig.data[:2]] == ["slope 1 (n)", "slope 2 (n²)"]
    assert list(fig.layout.xaxis.tickvals) == list(n) and fig.layout.yaxis.tickvals


def test_rug_is_one_path_per_group_with_a_tick_per_point():
    xs = np.linspace(0, 10, 51)
    X = np.array([1.0, 2.5, 2.5, 7.25, 9.0])
    out = np.array([False, False, True, True, False])
    fig = plots.density_1d_figure(xs, {"kde": np.ones(51)}, X=X, is_outlier=out)
    inliers, outliers = fig.layout.shapes
    assert inliers.line.color == "#5A6270" and outliers.line.color == "#D62728"
    assert inliers.path.count("M") == 3 and outliers.path.count("M") == 2
    ticks = [float(seg.split(",")[0]) for seg in outliers.path.split("M")[1:]]
    assert ticks == [2.5, 7.25]
    assert all(shape.yref == "y" and shape.xref == "x" for shape in fig.layout.shapes)


def test_density_2d_figure():
    xs = np.linspace(0, 1, 11)
    fig2 = plots.density_2d_figure(xs, xs, {"kde": np.ones((11, 11)), "rkde": np.ones((11, 11))})
    assert sum(t.type == "contour" for t in fig2.data) == 2


def test_density_2d_figure_wraps_panels_and_puts_the_legend_in_the_free_one():
    xs = np.linspace(0, 1, 11)
    surfaces = {m: np.ones((11, 11)) for m in ("truth", "kde", "mom_kde", "rkde", "spkde")}
    X = np.random.default_rng(0).random((20, 2))
    fig = plots.density_2d_figure(xs, xs, surfaces, X, X[:, 0] > 0.8)
    contours = [t for t in fig.data if t.type == "contour"]
    assert [c.name for c in contours] == ["True density", "KDE", "MoM-KDE", "RKDE", "SPKDE"]
    assert [c.xaxis for c in contours] == ["x", "x2", "x3", "x4", "x5"]  # 3 per row, 2 rows
    assert sum(c.showscale for c in contours) == 1
    assert fig.layout.legend.x > 2 / 3  # in the empty sixth slot
    n_out = int((X[:, 0] > 0.8).sum())
    assert sorted(t.name for t in fig.data if t.showlegend) == [
        f"inliers ({20 - n_out})",
        f"outliers ({n_out})",
    ]
    # inliers on the first map only, the outliers on every map, as SVG markers (few points)
    markers = [t for t in fig.data if t.type != "contour"]
    assert [t.xaxis for t in markers if t.name.startswith("inliers")] == ["x"]
    assert [t.xaxis for t in markers if t.name.startswith("outliers")] == [
        "x",
        "x2",
        "x3",
        "x4",
        "x5",
    ]
    assert {t.type for t in markers} == {"scatter"}


def test_density_2d_figure_draws_many_points_with_webgl():
    xs = np.linspace(0, 1, 11)
    X = np.random.default_rng(0).random((plots.SVG_MARKERS + 1, 2))
    fig = plots.density_2d_figure(xs, xs, {"kde": np.ones((11, 11))}, X)
    assert [(t.type, t.name) for t in fig.data if t.type != "contour"] == [
        ("scattergl", f"sample ({plots.SVG_MARKERS + 1})")
    ]
