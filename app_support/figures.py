"""The figures of the Explore and Your data pages, each with the sentence that says how to read
it: drawn by ``momkde_core.plots`` from a view's results, then marked with what the page adds
(dashed curves that would hide another, the flagged rows' circles). Without Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from momkde_core.plots import (
    density_1d_figure,
    density_2d_figure,
    legend_order,
    log_density_floor,
    shared_colour_cap,
)

from .captions import coinciding_curves
from .views import ExploreView

#: The light tone of the flagged rows' rings on the maps: also the background of a flagged
#: row in the Your data tables.
RING_COLOR = "#F3E5F5"
#: The legend's marker of the rows drawn as faint dots on the first map (they stay faint there,
#: so as not to cover it; on the legend's white a faint dot is invisible).
LEGEND_DOT = dict(size=8, color="rgb(150,155,165)")


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
    blocks = view.results["mom_kde"].get("blocks") if "mom_kde" in view.results else None
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


def visible_legend_dots(fig: go.Figure) -> None:
    """Give the faint dots of the 2-D figure ``fig`` (its rows, or the label's inliers) a
    visible legend marker, :data:`LEGEND_DOT`: a legend-only trace of the same name and
    group takes their entry, first in the legend as theirs was (clicking it still hides the
    dots); the dots keep their faint colour on the map."""
    for trace in [t for t in fig.data if t.legendgroup in ("sample", "inliers") and t.showlegend]:
        trace.showlegend = False
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=trace.name,
                legendgroup=trace.legendgroup,
                legendrank=999,  # before the others (1000 by default)
                marker=LEGEND_DOT,
                hoverinfo="skip",
            )
        )
