"""Explore: one contaminated sample, the estimators overlaid, metrics updated live, and a
caption computed from the figure (who wins here, by how much, which failure mode applies)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_support.cache import explore_view, select_bandwidth, synthetic_sample
from app_support.captions.density import (
    compare_to_kde,
    mom_kde_wins,
    reasons,
    screened_note,
    thin_median,
)
from app_support.choices import MAX_SHARE
from app_support.compute import (
    DEFAULT_METHODS,
    Settings,
    metric_table,
    own_bandwidth,
    require_fitted,
)
from app_support.figures import explore_figure
from app_support.views import RATIO_STEP, ExploreView, drawn_ratio
from app_support.widgets import (
    bandwidth_and_blocks,
    methods_select,
    scheme_select,
    share_kernel_seed,
    show_warnings,
    url,
    user_errors,
)
from momkde_core.methods import method_label

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
    """The h of ``rule`` on the sample drawn with ``seed`` (cached: the page reuses it; its
    warnings are shown with the view's, computed with the same arguments)."""
    sample = synthetic_sample(scheme, n_inliers, true_ratio, dim, seed)
    return select_bandwidth(sample.X, rule, kernel, seed, eps).h


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


def _axis_controls() -> tuple[bool, bool]:
    """In 1-D, the density axis' switch (log by default) and the block KDEs' toggle; in 2-D
    neither (False, False)."""
    if dim != 1:
        return False, False
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
    return log_y, show_blocks


def _metrics(view: ExploreView, settings: Settings, table: pd.DataFrame) -> None:
    """h, S, n and |O|, the screened KDE's own h and rows set aside, and the metric table."""
    rule = settings.bandwidth if isinstance(settings.bandwidth, str) else "slider"
    st.markdown(
        f"**h = {view.h:.3g}** ({rule}) · S = {settings.n_blocks} · n = {len(view.data.X)}"
        f" · |O| = {view.data.n_outliers}"
    )
    if "screened_kde" in view.results:
        st.caption(screened_note(view.results["screened_kde"], own_bandwidth(settings)))
    table.index = [method_label(m) for m in table.index]
    st.table(table.style.format("{:.3f}", na_rep="—"))
    st.caption(
        "JS and both KLs compare each estimate with the true density (lower is better)"
        + (
            "; AUC uses the density as an outlier score (higher is better, 0.5 is chance; below "
            "0.5 the outliers are denser than the inliers, as a spike is)."
            if view.data.n_outliers
            else "."
        )
    )


def _figure_and_metrics(settings: Settings) -> None:
    """The estimates of ``settings`` drawn over the truth, their metrics, and the captions."""
    log_y, show_blocks = _axis_controls()
    view = explore_view(
        scheme, n_inliers, true_ratio, dim, settings, methods, with_blocks=show_blocks
    )
    show_warnings(view.warnings)
    for method, message in view.failures.items():
        st.warning(f"{method_label(method)} is not shown: {message}")
    require_fitted(view.results)
    data = view.data
    outliers = data.is_outlier if data.n_outliers else None
    table = metric_table(view.results, view.truth, view.grid.cell, outliers)
    js = table["JS"].to_dict()
    # a thin median (the library warns): no win claimed, the small blocks named
    thin = thin_median(view.results.get("mom_kde"))
    verdict = compare_to_kde(js, median_mass=thin)
    why = reasons(
        scheme,
        len(data.X),
        data.n_outliers,
        settings.n_blocks,
        view.h,
        view.h_robust,
        mom_kde_wins(js) and thin is None,
    )
    fig, reading = explore_figure(view, scheme, log_y, js)

    # 1-D: the figure with the metrics beside it; 2-D: the maps need the full width
    fig_col, metric_col = (
        st.columns([5, 2], vertical_alignment="top")
        if dim == 1
        else (st.container(), st.container())
    )
    with metric_col:
        _metrics(view, settings, table)
    with fig_col:
        chart_slot = st.empty()
        st.caption(" ".join([verdict, *why, reading]))
    # the figure is sent last, into its slot above the caption: every element sent after a
    # Plotly chart made the browser draw the chart again
    chart_slot.plotly_chart(fig, key="explore_figure", config={"displaylogo": False})


controls_and_figure()
