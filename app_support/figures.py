"""The figures of the Explore and Your data pages, each with the sentence that says how to read
it: drawn by ``momkde_core.plots`` from a view's results, then marked with what the page adds
(dashed curves that would hide another, the flagged rows' circles). Without Streamlit.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from momkde_core.plots import (
    FLAG_COLOR,
    density_1d_figure,
    density_2d_figure,
    legend_order,
    log_density_floor,
    shared_colour_cap,
)

from .captions.coinciding import coinciding_curves
from .scoring import RING_COLOR
from .views import ExploreView

#: The legend's marker of the rows drawn as faint dots on the first map (they stay faint there,
#: so as not to cover it; on the legend's white a faint dot is invisible).
LEGEND_DOT = dict(size=8, color="rgb(150,155,165)")
#: The flagged rows' legend marker: their ring in the flag colour of the 1-D rug
#: (:data:`~momkde_core.plots.FLAG_COLOR`), visible on the legend's white.
#: What the axes of standardised columns count, said in the reading.
STANDARDISED = "axes in standard deviations from each column's mean (standardised columns)"
LEGEND_RING = dict(size=9, symbol="circle-open", color=FLAG_COLOR, line=dict(width=2))


def _peak(curves: Mapping[str, np.ndarray]) -> float:
    """The highest value of ``curves``."""
    return max(float(np.nanmax(v)) for v in curves.values())


def explore_figure(
    view: ExploreView, scheme: str, log_y: bool, js: Mapping[str, float]
) -> tuple[go.Figure, str]:
    """The figure of an Explore view and the sentence that says how to read it.

    Parameters
    ----------
    view : ExploreView
        The view's sample, grid, fits and true density.
    scheme : str
        The contamination scheme.
    log_y : bool
        In 1-D, a log density axis.
    js : mapping of str to float
        Each method's JS to the truth, named in the 2-D maps' titles.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        In 1-D the curves over the rug (curves that would hide an earlier one dashed), in
        2-D one map per method.
    reading : str
        What the lines, ticks, colours and circles are.
    """
    curves = {"truth": view.truth, **{m: r["grid"] for m, r in view.results.items()}}
    if view.data.X.shape[1] == 1:
        return _explore_1d(view, curves, scheme, log_y)
    return _explore_2d(view, curves, js)


def _explore_1d(
    view: ExploreView, curves: dict[str, np.ndarray], scheme: str, log_y: bool
) -> tuple[go.Figure, str]:
    data = view.data
    blocks = next((r["blocks"] for r in view.results.values() if "blocks" in r), None)
    dashes, twins_note = coinciding_curves(
        {m: curves[m] for m in legend_order(curves)},
        log_density_floor(_peak(curves)) if log_y else None,
    )
    fig = density_1d_figure(
        view.grid.axes[0],
        curves,
        data.X[:, 0],
        data.is_outlier,
        block_curves=blocks,
        log_y=log_y,
        dashes=dashes,
    )
    log_note = (
        "; log axis over four decades below the peak, so "
        + (
            "the KDE's plateau over the spread-out outliers shows"
            if scheme == "uniform" and data.n_outliers
            else "small masses show as clearly as the modes"
        )
        if log_y
        else ""
    )
    ticks = "inliers grey, outliers red." if data.n_outliers else "the sample (no outliers)."
    grey = (
        " Grey curves: the block KDEs the median is taken over"
        + (" (clearer on the linear axis)." if log_y else ".")
        if blocks is not None
        else ""
    )
    reading = (
        f"Dashed: the true density{log_note}. Ticks below the axis: {ticks}"
        + (" " + twins_note if twins_note else "")
        + grey
    )
    return fig, reading


def _explore_2d(
    view: ExploreView, curves: dict[str, np.ndarray], js: Mapping[str, float]
) -> tuple[go.Figure, str]:
    notes = {m: f"JS {v:.3f}" for m, v in js.items() if np.isfinite(v)}
    # only the outliers are drawn: the true density's map shows where the inliers are, and a
    # thousand SVG markers cost the browser more than the five maps
    out = view.data.is_outlier
    fig = density_2d_figure(*view.grid.axes, curves, view.data.X[out], out[out], panel_notes=notes)
    cap, capped = shared_colour_cap(curves)
    reading = (
        "One colour scale for all maps"
        + (f", capped at {cap:.3g} (a spike reaches {_peak(curves):.3g})" if capped else "")
        + ("; red circles (first map): the outliers" if view.data.n_outliers else "")
        + "; each title gives the map's JS to the truth."
    )
    return fig, reading


@dataclass(frozen=True)
class Flags:
    """The rows one method flags, as the Your data figure marks them.

    Attributes
    ----------
    label : str
        The method's name.
    flagged : ndarray of bool
        Every row's flag.
    circled : ndarray of int
        The rows circled on the maps: the method's lowest, at most the page's limit.
    names : pandas.Index
        Every row's name (the hover of a circle).
    """

    label: str
    flagged: np.ndarray
    circled: np.ndarray
    names: pd.Index


def your_data_figure(
    axes: tuple[np.ndarray, ...],
    curves: dict[str, np.ndarray],
    X: np.ndarray,
    drawn: np.ndarray,
    is_outlier: np.ndarray | None,
    columns: Sequence[str],
    standardised: bool,
    flags: Flags | None,
) -> tuple[go.Figure, str]:
    """The Your data figure and the sentence that says how to read it.

    Parameters
    ----------
    axes : tuple of ndarray
        The grid's axes (one or two).
    curves : dict of str to ndarray
        Each method's density on the grid.
    X : ndarray of shape (n, 1) or (n, 2)
        Every row, in the columns drawn.
    drawn : ndarray of int
        The rows drawn (ticks or dots).
    is_outlier : ndarray of bool or None
        The label's outliers, every row.
    columns : sequence of str
        The columns drawn: the axes' titles.
    standardised : bool
        Whether the columns are standardised (said on a 1-D axis' title).
    flags : Flags or None
        The flag method's rows: a row of the rug in 1-D, circles on every map in 2-D.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The densities over the rug, or one map per method.
    reading : str
        What the ticks, dots and circles are.
    """
    outlier = is_outlier[drawn] if is_outlier is not None else None
    labelled = bool(outlier is not None and outlier.sum())
    n_flagged = int(flags.flagged.sum()) if flags else 0
    if X.shape[1] == 1:
        fig = density_1d_figure(
            axes[0],
            curves,
            X[drawn, 0],
            outlier,
            flagged=flags.flagged[drawn] if flags else None,
        )
        fig.update_xaxes(title_text=_axis_title(columns[0], standardised))
        reading = (
            "Ticks below the axis: the rows"
            + (", the label's outliers red" if labelled else "")
            + (f"; the lowest row (purple): the rows {flags.label} flags" if n_flagged else "")
            + (f"; {STANDARDISED}." if standardised else ".")
        )
        return fig, reading
    titles = tuple(_axis_title(c, standardised) for c in columns)
    fig = density_2d_figure(*axes, curves, X[drawn], outlier, axis_titles=titles)
    visible_legend_dots(fig)
    circles = ""
    if flags:
        circles = _circle_flags(fig, X, flags, len(drawn) < len(X))
        visible_legend_dots(fig, ("flagged",), LEGEND_RING, rank=1000)
    reading = (
        "One colour scale for all maps (a spike above it takes the top colour)"
        + ("; grey dots (first map): the rows" + (" the label calls inliers" if labelled else ""))
        + ("; red circles (first map): the label's outliers" if labelled else "")
        + circles
        + (f"; {STANDARDISED}" if standardised else "")
        + "."
    )
    return fig, reading


def _axis_title(column: Hashable, standardised: bool) -> str:
    """An axis' title: the column's name, and "(standardised)" when the page standardised it
    (the reading says what that unit is: :data:`STANDARDISED`)."""
    return str(column) + (" (standardised)" if standardised else "")


def _circle_flags(fig: go.Figure, X: np.ndarray, flags: Flags, sampled: bool) -> str:
    """Circle the flag method's rows (its lowest, ``flags.circled``) on every map; the
    reading's clause about them (``sampled``: the figure draws a sample of the rows)."""
    n_flagged, circled = int(flags.flagged.sum()), flags.circled
    if not n_flagged:
        return f"; {flags.label} flags no row"
    every = len(circled) == n_flagged
    label = (
        f"flagged ({n_flagged:,})"
        if every
        else f"flagged: the {len(circled):,} lowest of {n_flagged:,}"
    )
    circle_rows(fig, X[circled], flags.names[circled], label)
    among = f" among all {len(X):,} rows (drawn in the sample or not)" if sampled else ""
    if every:
        return f"; circled (every map): the {n_flagged:,} rows {flags.label} flags{among}"
    return (
        f"; circled (every map): the {len(circled):,} rows {flags.label} scores lowest"
        f"{among}, of the {n_flagged:,} it flags (thousands of circles would hide the "
        "maps; the ranking below lists the others, the download has them all)"
    )


def circle_rows(fig: go.Figure, xy: np.ndarray, names: pd.Index, label: str) -> None:
    """Circle the rows ``xy`` (2 columns) on every map of the 2-D figure ``fig``, with one
    legend entry ``label``; hovering a circle shows the row's name (``names``)."""
    maps = [trace for trace in fig.data if hasattr(trace, "z")]  # a map: heatmap or contours
    for i, trace in enumerate(maps):
        fig.add_trace(
            go.Scatter(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers",
                name=label,
                legendgroup="flagged",
                showlegend=i == 0,
                marker=dict(size=8, symbol="circle-open", color=RING_COLOR, line=dict(width=1)),
                customdata=names.astype(str),
                hovertemplate=f"{names.name} %{{customdata}}<extra>{label}</extra>",
                xaxis=trace.xaxis or "x",
                yaxis=trace.yaxis or "y",
            )
        )


def visible_legend_dots(
    fig: go.Figure,
    groups: tuple[str, ...] = ("sample", "inliers"),
    marker: dict = LEGEND_DOT,
    rank: int = 999,
) -> None:
    """Give the faint markers of the 2-D figure ``fig`` in the legend groups ``groups`` (by
    default its rows, or the label's inliers) a visible legend marker, ``marker``: a
    legend-only trace of the same name and group takes their entry, at ``rank`` (999: first
    in the legend, as the dots' was; clicking it still hides the markers); the markers keep
    their colour on the map (the flagged rows' light rings, :data:`LEGEND_RING`, show on the
    dark maps and would be white on white in the legend)."""
    for trace in [t for t in fig.data if t.legendgroup in groups and t.showlegend]:
        trace.showlegend = False
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=trace.name,
                legendgroup=trace.legendgroup,
                legendrank=rank,
                marker=marker,
                hoverinfo="skip",
            )
        )


#: The peers' markers on the ADBench dot plot: colours that differ on a projector (Okabe and
#: Ito's, no yellow on white) and a symbol each, so two detectors never rely on a hue alone.
ADBENCH_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#56B4E9",
    "#000000",
    "#CC79A7",
    "#7F7F7F",
    "#8C510A",
)
ADBENCH_SYMBOLS = (
    "circle",
    "square",
    "triangle-up",
    "x",
    "triangle-down",
    "cross",
    "star",
    "pentagon",
    "hexagon",
)


def adbench_figure(
    per_set: pd.DataFrame, highlight: str, twins: dict[str, str] | None = None
) -> go.Figure:
    """ADBench's mean AUC-ROC per set (rows) and detector (columns) as a dot plot: the sets on
    the y axis, one marker per detector (its own colour and symbol), ``highlight`` (the
    library's default) drawn larger and on top; dotted line at chance (0.5). Detectors of
    ``twins`` (detector -> an earlier one with the same AUC-ROC on every set,
    :func:`~app_support.results.adbench_twins`) share the earlier one's marker, named
    "a & b"."""
    twins = twins or {}
    fig = go.Figure()
    sets = list(per_set.index)
    drawn = [d for d in per_set.columns if d not in twins]
    order = [d for d in drawn if d != highlight] + ([highlight] if highlight in drawn else [])
    for k, detector in enumerate(order):
        main = detector == highlight
        same = [detector, *(d for d, earlier in twins.items() if earlier == detector)]
        fig.add_trace(
            go.Scatter(
                x=per_set[detector].tolist(),
                y=sets,
                mode="markers",
                name=" & ".join(same),
                marker=dict(
                    size=13 if main else 9,
                    symbol="diamond" if main else ADBENCH_SYMBOLS[k % len(ADBENCH_SYMBOLS)],
                    color="#C2185B" if main else ADBENCH_COLOURS[k % len(ADBENCH_COLOURS)],
                    line=dict(width=1, color="black") if main else dict(width=0),
                ),
            )
        )
    fig.add_vline(x=0.5, line_dash="dot", line_color="grey")
    fig.update_layout(
        title="ADBench: AUC-ROC per set (mean over the seeds)",
        xaxis_title="AUC-ROC (higher is better)",
        yaxis=dict(autorange="reversed", title=None),
        height=max(420, 28 * len(sets) + 200),
        legend=dict(orientation="h", yanchor="top", y=-0.1, x=0, xanchor="left"),
        margin=dict(l=10, r=10, t=50, b=10),
    )
    return fig
