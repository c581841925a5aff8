"""Explore: one contaminated sample, the estimators overlaid, metrics updated live, and a
caption computed from the figure (who wins here, by how much, which failure mode applies)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_support.cache import (
    block_values,
    explore_sample,
    explore_view,
    select_bandwidth,
)
from app_support.captions.density import (
    metrics_note,
    mom_kde_wins,
    reasons,
    screened_note,
    thin_median,
)
from app_support.captions.lesson import SCHEME_CENTRE, view_headline
from app_support.captions.median import placement_note, strip_caption
from app_support.choices import MAX_SHARE
from app_support.compute import (
    DEFAULT_METHODS,
    Settings,
    metric_table,
    own_bandwidth,
    relevant,
    require_fitted,
)
from app_support.figures import explore_figure
from app_support.keys import MEDIAN
from app_support.live_lesson.mount import draws_live, live_lesson, live_switch
from app_support.live_lesson.payload import LIVE_KERNELS
from app_support.mechanism import PLACE_RANGE, BlockValues, point_from_click
from app_support.median_figures import click_targets, mark_point, strip_figure
from app_support.present import notes, presenting, sized
from app_support.views import RATIO_STEP, ExploreView, drawn_ratio
from app_support.widgets import (
    bandwidth_and_blocks,
    methods_select,
    scheme_select,
    share_kernel_seed,
    show_warnings,
    unless_held,
    url,
    url_choice,
    user_errors,
)
from momkde_core.methods import method_label

#: The key of Explore's figure (its click selection is read from the session state under it).
FIGURE_KEY = "explore_figure"
#: The most outliers the user can place.
MAX_PLACED = 200
#: The click targets per axis of each 2-D map (a click snaps to the nearest).
CLICK_GRID = 25
#: What the dotted line or cross of the locked point is, in the figure's caption.
#: What the live figure shows (its drawing is fixed: the curves, the rug, the handles, the strip
#: under the curves), by its density axis (log or not).
LIVE_READING = {
    log: "Dashed: the true density; "
    + ("log axis over four decades below the peak. " if log else "linear axis. ")
    + "Ticks below the axis: inliers grey, outliers red; the red triangle is their place and "
    "the dark knob x₀: drag either (or use the sliders above the curves) and the curves and "
    "the strip redraw as you move. The strip under the curves: MoM-KDE's S block KDEs at x₀, "
    "red where a block holds an outlier within reach; RKDE and SPKDE, when shown, are those of "
    "the last release."
    for log in (True, False)
}
LIVE_READING_2D = (
    "Colour: log10 of each method's density on one scale (the bar; above its top, the top "
    "colour). On the true density's map, the sample: inliers as faint dots, outliers as red "
    "circles. The red triangle is the placed outliers' place and the ringed cross x₀, on "
    "every map: drag either (or use the sliders above the maps) and the KDE's and MoM-KDE's "
    "maps and the strip redraw as you move. The strip under the maps: MoM-KDE's S block KDEs "
    "at x₀, red where a block holds an outlier within reach; RKDE and SPKDE, when shown, are "
    "those of the last release."
)
POINT_NOTE = {
    1: "Dotted line: the locked point x₀ of the strip below.",
    2: "White cross: the locked point x₀ of the strip below.",
}

st.title("Explore S, h and the outlier ratio")
side = st.sidebar
side.header("Sample")
scheme = scheme_select(side)
dim = side.segmented_control("Dimension", [1, 2], **url_choice("dim", 1)) or 1
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


@st.fragment
def controls_and_figure() -> None:
    """The h and S controls, the outliers placed, the locked point, the figure, the metrics
    and the blocks at the point: a move of any of them (or a click on the figure) reruns
    this part alone, not the sidebar."""
    with user_errors():
        # presenting: the headline and the figures; the controls behind an expander (a
        # fragment cannot write to the sidebar)
        top = st.expander("h and S", expanded=False) if presenting() else st.container()
        main = st.container()
        st.subheader("The median at work: the S blocks at x₀")
        moves, strip = (
            (st.expander("The outliers placed and x₀", expanded=False), st.container())
            if presenting()
            else st.columns([2, 3], gap="large")
        )
        # the figure and the strip redrawn as the hand moves (the switch: live or plotly; the
        # live figure draws the Gaussian kernel, in 1-D and 2-D)
        live_asked = kernel in LIVE_KERNELS and live_switch(moves)
        if kernel not in LIVE_KERNELS:
            moves.caption(
                f"The live figure computes the {' and '.join(LIVE_KERNELS)} kernel only: with "
                f"the {kernel} kernel the figure is the server's (a click on it sets x₀ or the "
                "place, and it redraws when you let go of a slider)."
            )
        placed, point = _placement_and_point(moves, clicks=not live_asked)
        first = explore_sample(scheme, n_inliers, true_ratio, dim, seed, placed)

        def rule_h(rule: str, kernel: str, seed: int, eps: float) -> float:
            # the rule's h on the sample drawn, placed outliers included: the h the view uses
            # (the same cached call), shown on the h slider
            return select_bandwidth(first.X, rule, kernel, seed, eps).h

        settings = bandwidth_and_blocks(
            top,
            len(first.X),
            first.n_outliers,
            eps,
            kernel,
            seed,
            true_share=true_ratio,
            bandwidth_of=rule_h,
            side_by_side=True,
        )
        if not presenting():
            moves.caption(
                placement_note(placed[0], placed[1], settings.n_blocks, settings.auto_blocks)
            )
        with main:
            view, chart_slot, fig, live = _figure_and_metrics(settings, placed, point, live_asked)
        with strip:
            _blocks_at_point(view, settings, point, draw=not live)
        if live:
            with chart_slot.container():
                live_lesson(
                    view,
                    settings,
                    placed[0],
                    point,
                    max_placed=MAX_PLACED,
                    log_y=fig.layout.yaxis.type == "log",
                )
            return
        # the figure is sent last, into its slot above its caption: every element sent after
        # a Plotly chart made the browser draw the chart again
        chart_slot.plotly_chart(
            sized(fig),
            key=FIGURE_KEY,
            config={"displaylogo": False},
            on_select="rerun",
            selection_mode="points",
        )


def _take_click() -> None:
    """A click on the figure (its selected point, once) sets the locked point or the
    outliers' place, as the click control says: written into those controls' state before
    they are drawn."""
    event = st.session_state.get(FIGURE_KEY)
    points = list(event["selection"]["points"]) if event and event.get("selection") else []
    if not points or st.session_state.get(MEDIAN.clicked) == repr(points[0]):
        return
    st.session_state[MEDIAN.clicked] = repr(points[0])
    clicked = point_from_click(points, dim)
    if clicked is None:
        return
    place = st.session_state.get(MEDIAN.click) == "place"
    keys = (MEDIAN.at, MEDIAN.at_y) if place else (MEDIAN.x0, MEDIAN.y0)
    st.session_state.update(dict(zip(keys, clicked)))


def _coordinates(
    container, keys: tuple[str, str], label: str, help: str, default: float = 3.0
) -> tuple[float, ...]:
    """A point's sliders (one per dimension) over :data:`PLACE_RANGE`, at ``default`` on
    every axis by default."""
    low, high, step = PLACE_RANGE
    names = ("", "") if dim == 1 else (" (x₁)", " (x₂)")
    return tuple(
        float(
            container.slider(
                label + name,
                low,
                high,
                step=step,
                **unless_held(key, value=default),
                **url(key),
                help=help,
            )
        )
        for key, name in zip(keys[:dim], names)
    )


def _placement_and_point(
    container, clicks: bool = True
) -> tuple[tuple[int, tuple[float, ...]], tuple[float, ...]]:
    """The outliers placed (k and their place) and the locked point x₀, in ``container``;
    with ``clicks`` (the Plotly figure), a click on the figure sets one of the two places
    (``click``); the live figure has handles instead."""
    if clicks:
        _take_click()
    k = int(
        container.slider(
            "Place k outliers",
            0,
            MAX_PLACED,
            **unless_held(MEDIAN.k, value=0),
            **url(MEDIAN.k),
            help="A tight cluster of k outliers (red ticks in 1-D, red circles on the first "
            "2-D map), added to the sample where the place says (or a click on the figure, "
            "below). The estimators are not told they are outliers: ε stays the share stated, "
            "while S auto = 2⌈εn⌉+1 grows with them, since n counts their rows.",
        )
    )
    at = _coordinates(
        container, (MEDIAN.at, MEDIAN.at_y), "Their place", "Where the cluster is centred."
    )
    point = _coordinates(
        container,
        (MEDIAN.x0, MEDIAN.y0),
        "Locked point x₀",
        "The point where the strip under the figure shows the S block KDEs' values.",
        # (on the scheme's outliers when they gather: the adversarial spike sits at 0, where
        # x₀ = 3 showed an empty strip)
        SCHEME_CENTRE.get(scheme, 3.0),
    )
    if not clicks:
        return (k, at if k else ()), point
    container.segmented_control(
        "A click on the figure sets",
        ["x0", "place"],
        **url_choice(MEDIAN.click, "x0"),
        help="Click above a curve (1-D) or on the first map, the true density (2-D): x0, its "
        "x (and y) becomes the locked point x₀; place, the outliers' place.",
    )
    return (k, at if k else ()), point


def _axis_controls(container) -> tuple[bool, bool]:
    """In 1-D, the density axis' switch (log by default) and the block KDEs' toggle, in
    ``container`` (under the figure); in 2-D neither (False, False)."""
    if dim != 1:
        return False, False
    log_col, blocks_col = container.columns(2)
    log_y = (
        log_col.segmented_control(
            "Density axis",
            ["log", "linear"],
            **url_choice("yscale", "log"),
            help="log: four decades below the peak, so a small mass (a KDE's plateau over "
            "spread-out outliers, ~1 % of the peak) shows as clearly as a mode.",
        )
        or "log"
    ) == "log"
    show_blocks = blocks_col.toggle(
        "Block KDEs",
        **url("blocks"),
        help="Draw the S block KDEs the median is taken over (grey), behind the curves.",
    )
    return log_y, show_blocks


def _metrics(view: ExploreView, settings: Settings, table: pd.DataFrame) -> None:
    """h, S, n and |O|, the screened KDE's own h and rows set aside, and the metric table,
    with what its columns are and what an infinite KL means."""
    rule = settings.bandwidth if isinstance(settings.bandwidth, str) else "slider"
    st.markdown(
        f"**h = {view.h:.3g}** ({rule}) · S = {settings.n_blocks} · n = {len(view.data.X)}"
        f" · |O| = {view.data.n_outliers}"
    )
    if "screened_kde" in view.results:
        st.caption(screened_note(view.results["screened_kde"], own_bandwidth(settings)))
    note = metrics_note(table, bool(view.data.n_outliers))
    table = table.copy()
    table.index = [method_label(m) for m in table.index]
    st.table(table.style.format(lambda v: "∞" if v == np.inf else f"{v:.3f}", na_rep="—"))
    st.caption(note)


def _figure_and_metrics(
    settings: Settings,
    placed: tuple[int, tuple[float, ...]],
    point: tuple[float, ...],
    live_asked: bool,
) -> tuple[ExploreView, object, go.Figure, bool]:
    """The headline, the estimates of ``settings`` drawn over the truth with their caption,
    the axis controls, the metrics and the reasons behind an expander; the locked point
    marked: the view, the figure's slot above its caption, the Plotly figure (sent last by the
    caller) and whether the live figure replaces it (``live_asked`` and it can draw the view)."""
    # the figure first (at 1024 x 768 it starts above the fold), then the headline
    chart_slot, head, under = st.empty(), st.empty(), st.container()
    log_y, show_blocks = _axis_controls(
        st.expander("Axis and blocks", expanded=False) if presenting() else st.container()
    )
    view = explore_view(
        scheme,
        n_inliers,
        true_ratio,
        dim,
        settings,
        methods,
        with_blocks=show_blocks,
        placed=placed,
    )
    show_warnings(view.warnings)
    for method, message in view.failures.items():
        st.warning(f"{method_label(method)} is not shown: {message}")
    require_fitted(view.results)
    data = view.data
    outliers = data.is_outlier if data.n_outliers else None
    table = metric_table(view.results, view.truth, view.grid.cell, outliers)
    js = table["JS"].to_dict()
    held = None
    if "mom_kde" in view.results and data.n_outliers:
        held = int(_blocks_at(view, settings, point).holds.sum())
    why = reasons(
        scheme,
        len(data.X),
        data.n_outliers,
        settings.n_blocks,
        view.h,
        view.h_robust,
        mom_kde_wins(js) and thin_median(view.results.get("mom_kde")) is None,
        held,
    )
    fig, reading = explore_figure(view, scheme, log_y, js)
    mark_point(fig, point)
    low, high, _ = PLACE_RANGE
    if dim == 1:  # (every other node: a click still lands within two nodes, half the markers)
        click_targets(fig, view.grid.axes[0], every=2)
    else:
        click_targets(fig, *(np.linspace(low, high, CLICK_GRID) for _ in range(2)))
    said = view_headline(
        view,
        scheme,
        placed,
        settings.n_blocks,
        js,
        lambda at: _blocks_at(view, settings, at),
    )
    if said:
        head.info(said, icon=":material/campaign:")
    live = live_asked and draws_live(view, settings)
    with under, notes():
        if live:
            st.caption(LIVE_READING[log_y] if dim == 1 else LIVE_READING_2D)
        else:
            st.caption(" ".join([reading, POINT_NOTE[dim]]))
    if why:
        with st.expander("Why: the failure modes (or the success) that apply here"):
            for sentence in why:
                st.markdown(f"- {sentence}")
    with notes("The metrics"):
        _metrics(view, settings, table)
    return view, chart_slot, fig, live


def _blocks_at(view: ExploreView, settings: Settings, point: tuple[float, ...]) -> BlockValues:
    """The page's MoM-KDE's S block KDEs at ``point`` (cached: the headline's place, the
    strip's x₀ and the reasons' count share their calls)."""
    data = view.data
    return block_values(data.X, data.is_outlier, view.h, relevant("mom_kde", settings), point)


def _blocks_at_point(
    view: ExploreView, settings: Settings, point: tuple[float, ...], draw: bool = True
) -> None:
    """The S block KDEs of MoM-KDE at the locked point, as a strip of dots (unless the live
    figure draws it: ``draw`` False), and what it shows."""
    if "mom_kde" not in view.results:
        st.info("Choose MoM-KDE among the methods to see its blocks at x₀.")
        return
    at = _blocks_at(view, settings, point)
    if draw:
        st.plotly_chart(sized(strip_figure(at)), key="strip_figure", config={"displaylogo": False})
    with notes():
        st.caption(strip_caption(at, view.results["mom_kde"]["median_mass"]))


controls_and_figure()
