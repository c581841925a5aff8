"""Explore: one contaminated sample, the four estimators overlaid, metrics updated live."""

from __future__ import annotations

import streamlit as st

from app_support.compute import fit_all, metric_table, plot_grid, select_bandwidth, synthetic_sample
from app_support.widgets import (
    estimator_controls,
    methods_select,
    scheme_select,
    url,
    user_errors,
)
from momkde_core.plots import METHOD_LABELS, density_1d_figure, density_2d_figure

st.title("Explore S, h and the outlier ratio")

side = st.sidebar
side.header("Sample")
scheme = scheme_select(side)
dim = side.segmented_control("Dimension", [1, 2], default=1, **url("dim")) or 1
n_inliers = side.select_slider("Inliers", [100, 200, 500, 1000, 2000], value=1000, **url("n"),
                              help="At most 2000: RKDE and SPKDE cost n² per iteration.")
ratio = side.slider("Outlier ratio |O| / n", 0.0, 0.5, 0.1, 0.05, **url("ratio"), disabled=scheme == "none")
side.header("Estimators")
methods = methods_select(side)

with user_errors():
    data = synthetic_sample(scheme, n_inliers, 0.0 if scheme == "none" else ratio, dim, 0)
    settings = estimator_controls(side, len(data.X), data.n_outliers)
    data = synthetic_sample(scheme, n_inliers, 0.0 if scheme == "none" else ratio, dim, settings.seed)
    h = select_bandwidth(data.X, settings.bandwidth, settings.kernel, settings.seed)
    grid = plot_grid(data.X, h)
    show_blocks = dim == 1 and st.toggle("Show the S block KDEs behind the median", **url("blocks"))
    results, failures = fit_all(methods, data.X, grid.axes, h, settings, with_blocks=show_blocks)
    truth = data.true_pdf(grid.points).reshape(grid.shape)
    for method, message in failures.items():
        st.warning(f"{METHOD_LABELS[method]} is not shown: {message}")

    # 1-D: the figure with the metrics beside it; 2-D: the maps need the full width
    fig_col, metric_col = (st.columns([5, 2], vertical_alignment="top") if dim == 1
                           else (st.container(), st.container()))
    with fig_col:
        curves = {"truth": truth, **{m: r["grid"] for m, r in results.items()}}
        if dim == 1:
            blocks = results["mom_kde"].get("blocks") if "mom_kde" in results else None
            fig = density_1d_figure(grid.axes[0], curves, data.X[:, 0], data.is_outlier, block_curves=blocks)
            st.plotly_chart(fig, key="explore_figure", config={"displaylogo": False})
            st.caption(
                "Each outlier adds a small bump to the KDE; MoM-KDE takes the median of S block KDEs, "
                "so a bump present in fewer than half of the blocks disappears. Ticks below the axis: "
                + ("inliers grey, outliers red." if data.n_outliers else "the sample (no outliers).")
            )
        else:
            fig = density_2d_figure(*grid.axes, curves, data.X, data.is_outlier)
            st.plotly_chart(fig, key="explore_figure", config={"displaylogo": False})
            st.caption("The same estimators as density maps over the sample (outliers red): "
                       "a robust estimate shows no hill where only outliers are.")
    with metric_col:
        st.markdown(f"**h = {h:.3g}** · n = {len(data.X)} · |O| = {data.n_outliers}")
        table = metric_table(results, truth, grid.cell, data.is_outlier if data.n_outliers else None)
        table.index = [METHOD_LABELS[m] for m in table.index]
        st.table(table.style.format("{:.3f}", na_rep="—"))
        st.caption("JS and both KLs compare each estimate with the true density (lower is better)"
                   + ("; AUC uses the density as an outlier score (higher is better)."
                      if data.n_outliers else "."))
