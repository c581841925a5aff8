"""Explore: one contaminated sample, the estimators overlaid, metrics updated live, and a
caption computed from the figure (who wins here, by how much, which failure mode applies)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from app_support.captions import coinciding_curves, compare_to_kde, reasons, screened_note
from app_support.compute import (
    DEFAULT_METHODS,
    RATIO_STEP,
    drawn_ratio,
    explore_view,
    metric_table,
    own_bandwidth,
    require_fitted,
    select_bandwidth,
    synthetic_sample,
)
from app_support.widgets import (
    MAX_SHARE,
    bandwidth_and_blocks,
    methods_select,
    scheme_select,
    share_kernel_seed,
    url,
    user_errors,
)
from momkde_core.plots import (
    METHOD_LABELS,
    density_1d_figure,
    density_2d_figure,
    log_density_floor,
    shared_colour_cap,
)

st.title("Explore S, h and the outlier ratio")
side = st.sidebar
side.header("Sample")
scheme = scheme_select(side)
dim = side.segmented_control("Dimension", [1, 2], default=1, **url("dim")) or 1
n_inliers = side.select_slider(
    "Inliers",
    [100, 200, 500, 1000, 2000],
    value=1000,
    **url("n"),
    help="At most 2000: RKDE and SPKDE cost n² per iteration.",
)
ratio = side.slider(
    "Outlier ratio |O| / n",
    0.0,
    MAX_SHARE,
    0.1,
    RATIO_STEP,
    **url("ratio"),
    disabled=scheme == "none",
    help="The true share of outliers. At 0.5 they would be half the sample: no median "
    "can tell them apart, and S > 2|O| would need more blocks than points.",
)
side.header("Estimators")
methods = tuple(methods_select(side) or DEFAULT_METHODS)  # none chosen: the paper's four
true_ratio = drawn_ratio(scheme, ratio)
eps, kernel, seed = share_kernel_seed(side, true_share=true_ratio)


def _rule_h(rule: str, kernel: str, seed: int, eps: float) -> float:
    """The h of ``rule`` on the sample drawn with ``seed`` (cached: the page reuses it)."""
    sample = synthetic_sample(scheme, n_inliers, true_ratio, dim, seed)
    return select_bandwidth(sample.X, rule, kernel, seed, eps)


@st.fragment
def controls_and_figure() -> None:
    """The h and S controls, the figure and the metrics: a move of h or S, of the log axis or
    of the block KDEs' switch reruns this part alone, not the sidebar."""
    with user_errors():
        first = synthetic_sample(scheme, n_inliers, true_ratio, dim, seed)
        settings = bandwidth_and_blocks(
            st.container(),
            len(first.X),
            first.n_outliers,
            eps,
            kernel,
            seed,
            true_share=true_ratio,
            bandwidth_of=_rule_h,
            side_by_side=True,
        )
        _figure_and_metrics(settings)


def _figure_and_metrics(settings) -> None:
    """The estimates of ``settings`` drawn over the truth, their metrics, and the captions."""
    if dim == 1:
        log_col, blocks_col = st.columns(2)
        log_y = (
            log_col.segmented_control(
                "Density axis",
                ["log", "linear"],
                default="log",
                **url("yscale"),
                help="log: four decades below the peak, so a small mass (a KDE's plateau over "
                "spread-out outliers, ~1 % of the peak) shows as clearly as a mode.",
            )
            or "log"
        ) == "log"
        show_blocks = blocks_col.toggle(
            "Show the S block KDEs behind the median (grey)", **url("blocks")
        )
    else:
        log_y, show_blocks = False, False
    view = explore_view(
        scheme, n_inliers, true_ratio, dim, settings, methods, with_blocks=show_blocks
    )
    data, h, grid, results, truth = view.data, view.h, view.grid, view.results, view.truth
    for method, message in view.failures.items():
        st.warning(f"{METHOD_LABELS[method]} is not shown: {message}")
    require_fitted(results)
    table = metric_table(results, truth, grid.cell, data.is_outlier if data.n_outliers else None)
    js = table["JS"].to_dict()
    verdict = compare_to_kde(js)
    mom_wins = js.get("mom_kde", np.nan) < 0.8 * js.get("kde", np.nan) if verdict else None
    why = reasons(
        scheme, len(data.X), data.n_outliers, settings.n_blocks, h, view.h_robust, mom_wins
    )

    # 1-D: the figure with the metrics beside it; 2-D: the maps need the full width
    fig_col, metric_col = (
        st.columns([5, 2], vertical_alignment="top")
        if dim == 1
        else (st.container(), st.container())
    )
    with metric_col:
        st.markdown(
            f"**h = {h:.3g}** ({settings.bandwidth if isinstance(settings.bandwidth, str) else 'slider'})"
            f" · S = {settings.n_blocks} · n = {len(data.X)} · |O| = {data.n_outliers}"
        )
        if "screened_kde" in results:
            st.caption(screened_note(results["screened_kde"], own_bandwidth(settings)))
        table.index = [METHOD_LABELS[m] for m in table.index]
        st.table(table.style.format("{:.3f}", na_rep="—"))
        st.caption(
            "JS and both KLs compare each estimate with the true density (lower is better)"
            + (
                "; AUC uses the density as an outlier score (higher is better, 0.5 is chance; below "
                "0.5 the outliers are denser than the inliers, as a spike is)."
                if data.n_outliers
                else "."
            )
        )

    with fig_col:
        chart_slot = st.empty()
        curves = {"truth": truth, **{m: r["grid"] for m, r in results.items()}}
        if dim == 1:
            blocks = results["mom_kde"].get("blocks") if "mom_kde" in results else None
            peak = max(float(np.nanmax(v)) for v in curves.values())
            dashes, twins_note = coinciding_curves(
                {m: curves[m] for m in METHOD_LABELS if m in curves},
                log_density_floor(peak) if log_y else None,
            )
            fig = density_1d_figure(
                grid.axes[0],
                curves,
                data.X[:, 0],
                data.is_outlier,
                block_curves=blocks,
                log_y=log_y,
                dashes=dashes,
            )
            reading = (
                "Dashed: the true density"
                + (
                    "; log axis over four decades below the peak, so "
                    + (
                        "the KDE's plateau over the spread-out outliers shows"
                        if scheme == "uniform" and data.n_outliers
                        else "small masses show as clearly as the modes"
                    )
                    if log_y
                    else ""
                )
                + ". Ticks below the axis: "
                + (
                    "inliers grey, outliers red."
                    if data.n_outliers
                    else "the sample (no outliers)."
                )
                + (" " + twins_note if twins_note else "")
                + (
                    " Grey curves: the block KDEs the median is taken over"
                    + (" (clearer on the linear axis)." if log_y else ".")
                    if blocks is not None
                    else ""
                )
            )
        else:
            notes = {m: f"JS {v:.3f}" for m, v in js.items() if np.isfinite(v)}
            # only the outliers are drawn: the true density's map shows where the inliers are,
            # and a thousand SVG markers cost the browser more than the five maps
            out = data.is_outlier
            fig = density_2d_figure(*grid.axes, curves, data.X[out], out[out], panel_notes=notes)
            cap, capped = shared_colour_cap(curves)
            reading = (
                "One colour scale for all maps"
                + (
                    f", capped at {cap:.3g} (a spike reaches "
                    f"{max(float(np.nanmax(v)) for v in curves.values()):.3g})"
                    if capped
                    else ""
                )
                + ("; red circles (first map): the outliers" if data.n_outliers else "")
                + "; each title gives the map's JS to the truth."
            )
        st.caption(" ".join([verdict, *why, reading]))
    # the figure is sent last, into its slot above the caption: every element sent after a
    # Plotly chart made the browser draw the chart again (in 2-D, about 0.15 s each)
    chart_slot.plotly_chart(fig, key="explore_figure", config={"displaylogo": False})


controls_and_figure()
