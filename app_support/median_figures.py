"""The figures of the median at work: the S block KDEs at a locked point as a strip of dots,
the point marked on Explore's figure, and the frames of MoM-KDE's construction. Without
Streamlit; the captions that say what each shows are in :mod:`app_support.captions.median`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from momkde_core.plots import BLOCK_COLOR, density_1d_figure, method_color

from .captions.median import NEGLIGIBLE
from .mechanism import BlockValues, Construction

#: The blocks holding an outlier near the point: the outliers' red of the rugs.
RED = "#D62728"
#: The locked point's line and cross.
POINT_COLOR = "#1F2430"
#: One colour per block in the construction's frames (Plotly's qualitative "Safe", without
#: its red and grey, which mean outliers and clean blocks elsewhere), in turn beyond ten.
BLOCK_PALETTE = (
    "#88CCEE",
    "#DDCC77",
    "#117733",
    "#332288",
    "#AA4499",
    "#44AA99",
    "#999933",
    "#882255",
    "#661100",
    "#6699CC",
)
#: The construction's steps, by the code the URL holds.
STEPS: dict[str, str] = {
    "sample": "1 the sample",
    "split": "2 split into S blocks",
    "blocks": "3 each block's KDE",
    "median": "4 the pointwise median",
    "compare": "5 MoM-KDE and the KDE",
}
_LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.3, xanchor="left", x=0)
_MARGIN = dict(l=10, r=10, t=30, b=10)


def _layout(fig: go.Figure, height: int, **axes) -> go.Figure:
    """The layout these figures share (legend below, closest hover), with ``axes``."""
    return fig.update_layout(
        height=height,
        margin=_MARGIN,
        legend=_LEGEND_BELOW,
        font=dict(family="sans-serif"),
        hovermode="closest",
        **axes,
    )


def _dodge(values: np.ndarray, bins: int = 80) -> np.ndarray:
    """A height per dot so that dots of close values stack instead of hiding each other (a
    beeswarm): the dots of each of ``bins`` slices of the range alternate above and below 0,
    scaled into [-1, 1]."""
    span = float(np.ptp(values)) or 1.0
    slot = np.minimum(((values - values.min()) / span * bins).astype(int), bins - 1)
    y = np.zeros(len(values))
    for s in np.unique(slot):
        members = np.flatnonzero(slot == s)
        rank = np.arange(len(members))
        y[members] = np.where(rank % 2, -(rank + 1) // 2, rank // 2 + rank % 2)
    top = max(1.0, float(np.abs(y).max()))
    return y / top


def strip_figure(at: BlockValues, height: int = 280) -> go.Figure:
    """The S block KDEs at a point as a strip of dots, the blocks holding an outlier near it
    red, with their median and their mean (the KDE) marked.

    Parameters
    ----------
    at : BlockValues
        The blocks' values at the point (:func:`~app_support.mechanism.block_values`).
    height : int, default 280
        The height in pixels.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        Two vertical lines, the median (MoM-KDE's colour) and the mean (the KDE's), under
        two dot traces (blocks without an outlier within reach, grey; with one, red) on a
        linear axis of the block's density at the point.

    Examples
    --------
    >>> import numpy as np
    >>> from app_support.mechanism import BlockValues
    >>> at = BlockValues((3.0,), np.array([0.0, 0.0, 0.3]), np.array([5, 5, 5]),
    ...                  np.array([False, False, True]), np.array([False, False, True]),
    ...                  0.0, 0.1, 0.9)
    >>> [trace.name for trace in strip_figure(at).data]
    ['median of the blocks', 'mean of the blocks = KDE', '2 blocks without an outlier near x₀', '1 block with an outlier near x₀']
    """
    y = _dodge(at.values)
    fig = go.Figure()
    blocks = np.arange(1, len(at.values) + 1)
    for value, method, name, dash in (
        (at.median, "mom_kde", "median of the blocks", "solid"),
        (at.mean, "kde", "mean of the blocks = KDE", "dash"),
    ):
        fig.add_trace(
            go.Scatter(
                x=[value, value],
                y=[-1.25, 1.25],
                mode="lines",
                name=name,
                line=dict(color=method_color(method), width=3, dash=dash),
                hovertemplate=f"{name}: %{{x:.3g}}<extra></extra>",
            )
        )
    for mask, colour, what in (
        (~at.near, BLOCK_COLOR, "without an outlier near x₀"),
        (at.near, RED, "with an outlier near x₀"),
    ):
        count = int(mask.sum())
        fig.add_trace(
            go.Scatter(
                x=at.values[mask],
                y=y[mask],
                mode="markers",
                name=f"{count} block{'s' * (count != 1)} {what}",
                marker=dict(size=9, color=colour, line=dict(width=0.5, color="white")),
                customdata=np.stack([blocks[mask], at.sizes[mask]], axis=1),
                hovertemplate="block %{customdata[0]} (%{customdata[1]} rows)<br>"
                "its KDE at x₀: %{x:.3g}<extra></extra>",
            )
        )
    # every block ≈ 0 at x₀ (the captions' NEGLIGIBLE): an axis from 0 to that level, not one
    # stretched over values of 1e-21, which would make the dots look meaningfully spread
    top = max(float(at.values.max()), at.mean, at.median, NEGLIGIBLE)
    _layout(
        fig,
        height,
        xaxis=dict(
            title="each block's KDE at x₀ (density)",
            range=[-0.04 * top, 1.06 * top],
            exponentformat="power",
        ),
        yaxis=dict(visible=False, range=[-1.4, 1.4], fixedrange=True),
    )
    # the legend above the dots: below, it ran into the axis title
    return fig.update_layout(
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
        margin=dict(l=10, r=10, t=60, b=40),
    )


def mark_point(fig: go.Figure, point: tuple[float, ...]) -> go.Figure:
    """Mark the locked point on Explore's figure: a dotted vertical line labelled x₀ in 1-D,
    a cross on every map in 2-D.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Explore's figure (:func:`~app_support.figures.explore_figure`).
    point : tuple of float
        The point: one coordinate (1-D) or two.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The same figure, marked.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = mark_point(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), (0.5,))
    >>> fig.layout.shapes[0].x0, fig.layout.annotations[0].text
    (0.5, 'x₀')
    """
    if len(point) == 1:  # (up to 90 % of the axis: the legend sits on its top)
        fig.add_shape(
            type="line",
            x0=point[0],
            x1=point[0],
            xref="x",
            yref="y domain",
            y0=0,
            y1=0.9,
            line=dict(color=POINT_COLOR, dash="dot", width=1.5),
        )
        return fig.add_annotation(
            x=point[0],
            xref="x",
            y=0.9,
            yref="y domain",
            yanchor="bottom",
            text="x₀",
            showarrow=False,
        )
    maps = [trace for trace in fig.data if hasattr(trace, "z")]
    for trace in maps:
        fig.add_trace(
            go.Scatter(
                x=[point[0]],
                y=[point[1]],
                mode="markers",
                name="x₀",
                legendgroup="x0",
                showlegend=False,
                marker=dict(
                    size=14, symbol="x-thin", color="white", line=dict(width=3, color="white")
                ),
                hovertemplate="x₀ = (%{x:.3g}, %{y:.3g})<extra></extra>",
                xaxis=trace.xaxis or "x",
                yaxis=trace.yaxis or "y",
            )
        )
    # (its legend entry dark: a white cross is invisible on the legend's white)
    return fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name="x₀ (white cross)",
            legendgroup="x0",
            marker=dict(size=12, symbol="x-thin", line=dict(width=3, color=POINT_COLOR)),
            hoverinfo="skip",
        )
    )


def click_targets(
    fig: go.Figure, xs: np.ndarray, ys: np.ndarray | None = None, every: int = 1
) -> go.Figure:
    """Make Explore's figure clickable: invisible markers a click selects (Plotly selects
    points of traces with markers only, not of curves or maps), whose coordinates the page
    reads as the clicked place.

    In 1-D one marker per node of ``xs``, on the highest curve (at least a thousandth of its
    peak, inside a log axis), so that a click anywhere above an x selects it under the
    figure's "x" hover (the curves' values at that x in its label, the curves' own hover
    off: Plotly selects the first point hovered); in 2-D a grid of markers over the first map
    (``xs`` by ``ys``; markers on every map slowed each redraw, docs/benchmarks.md).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Explore's figure.
    xs : ndarray
        The nodes (1-D), or the grid's first axis (2-D).
    ys : ndarray, optional
        The grid's second axis (2-D).
    every : int, default 1
        In 1-D, a marker on every ``every``-th node only (fewer markers to draw; a click
        still lands within ``every`` nodes).

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The same figure, with the targets and, in 1-D, the "x" hover.

    Examples
    --------
    >>> import numpy as np
    >>> import plotly.graph_objects as go
    >>> xs = np.linspace(0, 1, 5)
    >>> fig = click_targets(go.Figure(go.Scatter(x=xs, y=xs + 1, mode="lines")), xs)
    >>> fig.data[-1].mode, fig.data[-1].marker.opacity, fig.layout.hovermode
    ('markers', 0, 'x')
    """
    target = dict(mode="markers", marker=dict(size=8, opacity=0), showlegend=False, name="click")
    if ys is None:  # (Plotly selects the first point hovered: the curves hand theirs over)
        curves = [
            t for t in fig.data if t.mode == "lines" and t.y is not None and len(t.y) == len(xs)
        ]
        values = [
            np.asarray(t.customdata if t.customdata is not None else t.y, float) for t in curves
        ]
        top = np.nanmax([np.asarray(t.y, dtype=float) for t in curves], axis=0)
        lines = "".join(f"<br>{t.name}: %{{customdata[{i}]:.3g}}" for i, t in enumerate(curves))
        for trace in curves:
            trace.update(hoverinfo="skip", hovertemplate=None)
        fig.add_trace(
            go.Scatter(
                x=xs[::every],
                y=np.maximum(top, 1e-3 * np.nanmax(top))[::every],
                customdata=np.stack(values, axis=1)[::every],
                hovertemplate="x = %{x:.3g}" + lines + "<br>(a click sets x₀ or the outliers' "
                "place here)<extra></extra>",
                **target,
            )
        )
        return fig.update_layout(hovermode="x")
    gx, gy = (a.ravel() for a in np.meshgrid(xs, ys, indexing="ij"))
    for trace in [t for t in fig.data if hasattr(t, "z")][:1]:  # (the first map: markers cost)
        fig.add_trace(
            go.Scatter(
                x=gx,
                y=gy,
                hovertemplate="(%{x:.2f}, %{y:.2f}): a click sets x₀ (or the outliers' place)"
                "<extra></extra>",
                xaxis=trace.xaxis or "x",
                yaxis=trace.yaxis or "y",
                **target,
            )
        )
    return fig


def _block_colour(block: int) -> str:
    return BLOCK_PALETTE[block % len(BLOCK_PALETTE)]


def _rows_by_block(steps: Construction) -> list[go.Scatter]:
    """The sample's rows on one line per block, coloured by block, the outliers ringed red."""
    traces = []
    for b in range(steps.n_blocks):
        rows = steps.block_of == b
        out = rows & steps.is_outlier
        traces.append(
            go.Scatter(
                x=steps.X[rows],
                y=np.full(int(rows.sum()), b + 1),
                mode="markers",
                name=f"block {b + 1}",
                showlegend=False,
                marker=dict(
                    size=8,
                    color=_block_colour(b),
                    line=dict(width=np.where(steps.is_outlier[rows], 2.5, 0), color=RED),
                ),
                hovertemplate=f"block {b + 1}<br>x = %{{x:.3g}}<extra></extra>",
            )
        )
        if out.any():
            traces[-1].update(name=f"block {b + 1} (holds an outlier)")
    traces.append(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name="ringed red: an outlier",
            marker=dict(size=9, color="white", line=dict(width=2.5, color=RED)),
        )
    )
    return traces


def construction_figure(steps: Construction, step: str, height: int = 420) -> go.Figure:
    """One frame of MoM-KDE's construction (:data:`STEPS`), drawn from one sample.

    Parameters
    ----------
    steps : Construction
        The sample, its blocks and the curves (:func:`~app_support.mechanism.construction`).
    step : str
        A key of :data:`STEPS`: ``sample`` (the rows, outliers red), ``split`` (the rows on
        one line per block, a colour per block), ``blocks`` (each block's KDE in its colour),
        ``median`` (their pointwise median over them), ``compare`` (MoM-KDE, the KDE and the
        true density).
    height : int, default 420
        The height in pixels.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The frame, on the x-range of the construction's grid whatever the step.

    Raises
    ------
    ValueError
        When ``step`` is not one of :data:`STEPS`.

    Examples
    --------
    >>> from app_support.mechanism import construction
    >>> steps = construction(60, 3, 3.0, 7, 0.4, 0)
    >>> [t.name for t in construction_figure(steps, "median").data][-1]
    'median of the 7 blocks'
    """
    if step not in STEPS:
        raise ValueError(f"unknown step {step!r}; allowed: {', '.join(STEPS)}")
    if step == "sample":
        fig = density_1d_figure(steps.xs, {"truth": steps.truth}, steps.X, steps.is_outlier)
    elif step == "split":
        fig = go.Figure(_rows_by_block(steps))
        fig.update_yaxes(title="block", dtick=1, autorange="reversed")
    elif step == "compare":
        curves = {"truth": steps.truth, "kde": steps.kde, "mom_kde": steps.mom_kde}
        fig = density_1d_figure(steps.xs, curves, steps.X, steps.is_outlier)
    else:
        fig = go.Figure()
        faint = step == "median"
        for b, curve in enumerate(steps.blocks):
            fig.add_trace(
                go.Scatter(
                    x=steps.xs,
                    y=curve,
                    mode="lines",
                    name=f"block {b + 1}",
                    showlegend=not faint,
                    line=dict(color=_block_colour(b), width=1.2 if faint else 2),
                    opacity=0.45 if faint else 1.0,
                    hovertemplate=f"block {b + 1}: %{{y:.3g}}<extra></extra>",
                )
            )
        if faint:
            fig.add_trace(
                go.Scatter(
                    x=steps.xs,
                    y=steps.median,
                    mode="lines",
                    name=f"median of the {steps.n_blocks} blocks",
                    line=dict(color=method_color("mom_kde"), width=3.5),
                    hovertemplate="median: %{y:.3g}<extra></extra>",
                )
            )
        fig.update_yaxes(title="density", rangemode="tozero")
    # one x-range for every frame (the grid's), so that stepping through them moves nothing
    return _layout(fig, height, xaxis=dict(title="x", range=[steps.xs[0], steps.xs[-1]]))
