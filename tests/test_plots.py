"""The figure builders: right traces, colours shared across figures, readable errors."""

import numpy as np
import pandas as pd
import pytest

from momkde_core import plots
from momkde_core.plots._style import _rgba


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
    assert fig.data[0].line.color == _rgba(plots.BLOCK_COLOR, 0.35)  # not MoM-KDE's hue


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
    assert 10 ** fig.data[0].zmax == pytest.approx(0.25)  # z is log10 of the density
    assert fig.layout.annotations[0].text == "KDE · JS 0.21"


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
    assert sum(t.type == "heatmap" for t in fig2.data) == 2


def test_density_2d_figure_wraps_panels_and_puts_the_legend_in_the_free_one():
    xs = np.linspace(0, 1, 11)
    surfaces = {m: np.ones((11, 11)) for m in ("truth", "kde", "mom_kde", "rkde", "spkde")}
    X = np.random.default_rng(0).random((20, 2))
    fig = plots.density_2d_figure(xs, xs, surfaces, X, X[:, 0] > 0.8)
    maps = [t for t in fig.data if t.type == "heatmap"]
    assert [c.name for c in maps] == ["True density", "KDE", "MoM-KDE", "RKDE", "SPKDE"]
    assert [c.xaxis for c in maps] == ["x", "x2", "x3", "x4", "x5"]  # 3 per row, 2 rows
    assert sum(c.showscale for c in maps) == 1
    assert fig.layout.legend.x > 2 / 3  # in the empty sixth slot
    n_out = int((X[:, 0] > 0.8).sum())
    assert sorted(t.name for t in fig.data if t.showlegend) == [
        f"inliers ({20 - n_out})",
        f"outliers ({n_out})",
    ]
    # the sample on the first map only (#26: no dots over the estimates' bumps), SVG markers
    markers = [t for t in fig.data if t.type != "heatmap"]
    assert [t.xaxis for t in markers if t.name.startswith("inliers")] == ["x"]
    assert [t.xaxis for t in markers if t.name.startswith("outliers")] == ["x"]
    assert {t.type for t in markers} == {"scatter"}


@pytest.mark.parametrize("n_maps", [4, 5, 6])
def test_every_column_of_2d_maps_has_x_tick_labels(n_maps):
    """Shared x axes put tick labels on the bottom row only: a column whose last map sits
    above an empty cell labels that map's axis itself."""
    xs = np.linspace(0, 1, 11)
    methods = ("truth", "kde", "mom_kde", "rkde", "spkde", "screened_kde")[:n_maps]
    fig = plots.density_2d_figure(xs, xs, {m: np.ones((11, 11)) for m in methods})
    maps = [t for t in fig.data if t.type == "heatmap"]
    for col in range(3):  # the last map of each column: the lowest one
        axis = [t.xaxis for t in maps][col::3][-1].replace("x", "xaxis")
        assert fig.layout[axis].showticklabels is not False, (n_maps, col, axis)
    # the title once, under the first column's lowest map (narrow maps' titles would overlap)
    titled = [a for a in fig.layout if a.startswith("xaxis") and fig.layout[a].title.text]
    assert titled == [[t.xaxis for t in maps][0::3][-1].replace("x", "xaxis")]
    assert fig.layout[titled[0]].title.text == "x₁"


def test_density_2d_figure_draws_many_points_with_webgl():
    xs = np.linspace(0, 1, 11)
    X = np.random.default_rng(0).random((plots.SVG_MARKERS + 1, 2))
    fig = plots.density_2d_figure(xs, xs, {"kde": np.ones((11, 11))}, X)
    assert [(t.type, t.name) for t in fig.data if t.type != "heatmap"] == [
        ("scattergl", f"sample ({plots.SVG_MARKERS + 1})")
    ]


def _two_bumps(n=41):
    """A Gaussian bump with a plateau ~1e-3 of its peak (a KDE's uniform outliers) on the
    right half: what a linear colour scale drew in its lowest step."""
    xs = np.linspace(-4, 4, n)
    r2 = xs[:, None] ** 2 + xs[None, :] ** 2
    clean = np.exp(-r2 / 2) / (2 * np.pi)
    plateau = clean + np.where(xs[:, None] > 2.5, 2e-4, 0.0) * np.ones(n)[None, :]
    return xs, clean, plateau


def test_density_2d_colour_scale_spans_decades_and_is_shared():
    """#26: the colour scale reaches at most 1e-3 of the peak, the same on every map, and a
    plateau at ~1e-3 of the peak gets a colour well above the floor."""
    xs, clean, plateau = _two_bumps()
    surfaces = {"truth": clean, "kde": plateau, "mom_kde": clean, "rkde": np.zeros_like(clean)}
    fig = plots.density_2d_figure(xs, xs, surfaces)
    maps = [t for t in fig.data if t.type == "heatmap"]
    peak = clean.max()
    for c in maps:
        assert 10**c.zmin <= 1e-3 * peak and 10**c.zmax >= peak
    scales = {(c.zmin, c.zmax) for c in maps}
    assert len(scales) == 1  # one scale for all maps, so they compare
    zmin, zmax = scales.pop()
    kde = next(c for c in maps if c.name == "KDE")
    mom = next(c for c in maps if c.name == "MoM-KDE")
    # at (3.6, 3.6) the KDE's plateau (2e-4, ~1e-3 of the peak) sits a quarter of the scale
    # above the floor, where MoM-KDE's map is below it
    i = np.searchsorted(xs, 3.5)
    assert mom.z[i][i] < zmin and kde.z[i][i] - zmin >= 0.25 * (zmax - zmin)
    # zeros stay drawable (below the floor, lowest colour), the hover shows the density
    rkde = next(c for c in maps if c.name == "RKDE")
    assert np.isfinite(np.asarray(rkde.z)).all() and np.max(rkde.z) < zmin
    # float32 values: relative rounding 6e-8, far below the hover's 3 digits
    assert np.allclose(kde.customdata, plateau.T, rtol=1e-6) and "customdata" in kde.hovertemplate
    assert np.asarray(kde.z).dtype == np.float32
    # the colour bar is labelled in density values at whole decades
    bar = maps[0].colorbar
    assert all(float(t) == pytest.approx(10.0**v) for t, v in zip(bar.ticktext, bar.tickvals))
    assert len(bar.tickvals) >= 4


def test_density_2d_markers_only_on_the_first_map_and_outliers_hollow():
    """#26: the sample's markers never cover an estimate's bump: drawn on the first map
    only, the outliers as small hollow circles; few traces (one per group)."""
    xs, clean, plateau = _two_bumps(21)
    X = np.random.default_rng(1).normal(size=(30, 2))
    out = np.arange(30) < 5
    fig = plots.density_2d_figure(
        xs, xs, {"truth": clean, "kde": plateau, "mom_kde": clean, "rkde": clean}, X, out
    )
    markers = [t for t in fig.data if t.type != "heatmap"]
    assert len(markers) == 2 and {t.xaxis for t in markers} == {"x"}
    outliers = next(t for t in markers if t.name.startswith("outliers"))
    assert outliers.marker.symbol == "circle-open" and outliers.marker.size <= 6


def test_density_1d_log_axis_spans_decades_and_keeps_the_rug_apart():
    """log_y: the axis spans COLOUR_DECADES decades below 1.3 x the peak, labelled at whole
    decades in densities, and the rug (and the flagged row) gets its own strip under it."""
    xs = np.linspace(-4, 4, 81)
    truth = np.exp(-(xs**2) / 2) / np.sqrt(2 * np.pi)
    X = np.array([-1.0, 0.0, 3.5])
    fig = plots.density_1d_figure(
        xs, {"truth": truth}, X, np.array([False, False, True]), flagged=X > 3, log_y=True
    )
    low, high = fig.layout.yaxis.range
    assert high == pytest.approx(np.log10(1.3 * truth.max()))
    assert high - low == pytest.approx(plots.COLOUR_DECADES)
    assert all(
        float(t) == pytest.approx(v)
        for t, v in zip(fig.layout.yaxis.ticktext, fig.layout.yaxis.tickvals)
    )
    assert {s.yref for s in fig.layout.shapes} == {"y2"} and len(fig.layout.shapes) == 3
    assert fig.layout.xaxis.anchor == "y2" and fig.layout.yaxis2.range[0] == -2.5


def test_density_1d_log_axis_draws_zeros_at_its_floor():
    """A compact kernel's median is exactly 0 in places: on the log axis it is drawn at the
    axis' floor (not a gap), and the hover gives the value itself."""
    xs = np.linspace(-2, 2, 41)
    mom = np.where(np.abs(xs) < 1, 0.5, 0.0)
    fig = plots.density_1d_figure(xs, {"mom_kde": mom}, log_y=True)
    (trace,) = fig.data
    floor = 10 ** fig.layout.yaxis.range[0]
    assert np.allclose(np.asarray(trace.y)[mom == 0], floor)
    assert np.array_equal(trace.customdata, mom) and "customdata" in trace.hovertemplate


def test_identical_lines_of_a_sweep_figure_are_told_apart_by_a_dash():
    """kde and mom_kde have the same means in ``_results``: the later one is dashed, on an
    axis from 0 to the highest mean (1.2)."""
    twins, tolerance = plots.sweep_twin_lines(_results(), "js")
    assert twins == {"mom_kde": "kde"}
    assert tolerance == pytest.approx(plots.COINCIDE * 1.2)
    fig = plots.metric_vs_ratio_figure(_results(), "js", dashes=plots.twin_dashes(twins))
    assert [t.line.dash for t in fig.data if t.mode == "lines+markers"] == ["solid", "dash"]
    apart = _results().assign(value=lambda d: d["value"] + (d["method"] == "kde") * 0.1)
    assert plots.sweep_twin_lines(apart, "js")[0] == {}


def test_twin_lines_compare_where_both_are_defined_and_dash_in_turn():
    nan = np.nan
    lines = pd.DataFrame(
        {"a": [1.0, 2.0, nan], "b": [nan, 2.0, 3.0], "c": [1.0, 2.0, 3.0], "d": [nan, nan, 9.0]}
    )
    # b meets a at one point, c meets a where a is defined; d meets no earlier line closely
    assert plots.twin_lines(lines, 0.01) == {"b": "a", "c": "a"}
    assert plots.twin_lines({"a": [nan], "b": [1.0]}, 1.0) == {}  # no point in common
    assert plots.twin_dashes("bcdef") == dict(zip("bcdef", [*plots.DASHES, "dash"]))


def test_density_twin_curves_on_linear_and_log_axes():
    xs = np.linspace(-4, 4, 81)
    bump = np.exp(-(xs**2) / 2)
    tail = {"truth": bump, "kde": bump, "rkde": bump + 1e-9, "spkde": bump * 1.5}
    assert plots.density_twin_curves(tail) == {"rkde": "kde"}  # truth left out
    # tails 10x apart look alike on a linear axis, not on a log one
    curves = {"kde": bump, "mom_kde": np.where(np.abs(xs) > 3.8, bump * 10, bump)}
    assert plots.density_twin_curves(curves) == {"mom_kde": "kde"}
    assert plots.density_twin_curves(curves, log_floor=1e-6) == {}
    assert plots.density_twin_curves({"truth": bump}) == {}


def test_the_default_detector_has_a_colour_of_its_own():
    """Its density on Your data was drawn in the fallback grey, beside grey inlier ticks."""
    from momkde_core.methods import DEFAULT_DETECTOR

    colour = plots.method_color(DEFAULT_DETECTOR)
    assert colour not in {"#7F7F7F", plots.BLOCK_COLOR}
    others = {m: c for m, c in plots.METHOD_COLORS.items() if m != DEFAULT_DETECTOR}
    assert colour not in others.values()
    fig = plots.density_1d_figure(
        np.linspace(-3, 3, 50),
        {DEFAULT_DETECTOR: np.ones(50) / 6},
        X=np.array([-1.0, 0.0, 1.0, 2.5]),
        is_outlier=np.array([False, False, False, True]),
    )
    curve = next(t for t in fig.data if t.name and "S = 21" in t.name)
    assert curve.line.color == colour
    ticks = {shape.line.color for shape in fig.layout.shapes}
    assert ticks and colour not in ticks
