"""Densities on one axis over a rug of the sample (the Home, Explore, Your data and Learn
pages), on a linear or a log density axis."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._style import (
    _LAYOUT,
    BLOCK_COLOR,
    COINCIDE,
    COLOUR_DECADES,
    FLAG_COLOR,
    _decade_ticks,
    _log_top,
    _rgba,
    _sample_groups,
    legend_order,
    log_density_floor,
    method_color,
    method_label,
    twin_lines,
)


def _add_rug(
    fig: go.Figure,
    x: np.ndarray,
    is_outlier: np.ndarray | None,
    y_level: float,
    flagged: np.ndarray | None = None,
    yref: str = "y",
) -> None:
    """Tick marks of the sample under a 1-D density: inliers grey, outliers red, and the
    rows an outlier detector ``flagged`` as a second row of ticks below them, centred on
    ``y_level`` (the second row on twice it) of the axis ``yref``.

    Each group is one SVG path shape (a tick per point), with an empty trace for its legend
    entry. Thousands of ticks drawn as a line trace (NaN-separated) or as markers slow every
    redraw in the browser (Plotly processes every point); a shape path is handed to SVG as
    is, which redraws faster (measured in headless Chromium).
    """
    x = np.asarray(x, dtype=float).ravel()
    colors = {"sample": "#5A6270", "inliers": "#5A6270", "outliers": "#D62728"}
    rows = [(name, m, colors[name], 1.0) for name, m in _sample_groups(len(x), is_outlier)]
    if flagged is not None and np.any(flagged):
        rows.append(("flagged", np.asarray(flagged, bool).ravel(), FLAG_COLOR, 2.0))
    for name, m, color, level in rows:
        low, high = f"{(level + 0.5) * y_level:.6g}", f"{(level - 0.5) * y_level:.6g}"
        path = "".join(f"M{v:.6g},{low}V{high}" for v in x[m])
        fig.add_shape(
            type="path",
            path=path,
            xref="x",
            yref=yref,
            layer="above",
            line=dict(color=color, width=1),
        )
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                line=dict(color=color, width=1),
                name=f"{name} ({int(m.sum())})",
                hoverinfo="skip",
            )
        )


def _block_trace(xs: np.ndarray, blocks: np.ndarray, max_blocks: int) -> go.Scatter:
    """The block KDEs as one thin trace (NaN-separated), at most ``max_blocks`` of them."""
    shown = blocks[:max_blocks]
    x = np.concatenate([np.append(xs, np.nan) for _ in shown])
    y = np.concatenate([np.append(b, np.nan) for b in shown])
    extra = f", {max_blocks} of {len(blocks)} shown" if len(blocks) > max_blocks else ""
    return go.Scatter(
        x=x,
        y=y,
        mode="lines",
        line=dict(color=_rgba(BLOCK_COLOR, 0.35), width=1),
        name=f"S = {len(blocks)} block KDEs (grey){extra}",
        hoverinfo="skip",
        connectgaps=False,
    )


def density_1d_figure(
    xs: np.ndarray,
    curves: dict[str, np.ndarray],
    X: np.ndarray | None = None,
    is_outlier: np.ndarray | None = None,
    block_curves: np.ndarray | None = None,
    title: str | None = None,
    max_blocks: int = 60,
    height: int = 460,
    flagged: np.ndarray | None = None,
    y_max: float | None = None,
    log_y: bool = False,
    dashes: dict[str, str] | None = None,
) -> go.Figure:
    """Densities of several methods on one axis, over a rug of the sample.

    On a linear axis the rug sits just below zero. With ``log_y`` the axis spans
    :data:`COLOUR_DECADES` decades below the peak, as the 2-D maps' colours do, so a mass
    of 1 % of the peak (a KDE's plateau over spread-out outliers) is as visible as a mode,
    and the rug gets a strip of its own under the plot.

    Parameters
    ----------
    xs : ndarray of shape (m,)
        The evaluation points.
    curves : dict of str to ndarray of shape (m,)
        Maps a method name (keys of :data:`METHOD_COLORS`; ``"truth"`` is drawn dashed) to
        its values on ``xs``; legends list them in :func:`legend_order`.
    X : ndarray of shape (n,) or (n, 1), optional
        The sample, drawn as a rug just below zero (inliers grey).
    is_outlier : ndarray of bool, shape (n,), optional
        The labels: outliers red in the rug.
    block_curves : ndarray of shape (S, m), optional
        MoM-KDE's block KDEs, drawn faintly in grey (:data:`BLOCK_COLOR`) behind the median
        so the mechanism is visible; at most ``max_blocks`` of them.
    title : str, optional
        The title.
    max_blocks : int, default 60
        The most block KDEs drawn.
    height : int, default 460
        The height in pixels.
    flagged : ndarray of bool, shape (n,), optional
        The rows an outlier detector flagged (a mask), in a row of the rug of their own
        (:data:`FLAG_COLOR`).
    y_max : float, optional
        Zooms the vertical axis (the curves' peak by default), e.g. onto small bumps under
        a tall mode.
    log_y : bool, default False
        A log density axis over :data:`COLOUR_DECADES` decades below the peak.
    dashes : dict of str to str, optional
        A Plotly dash for some methods' curves (solid otherwise; the truth is dashed), e.g.
        for a curve that would hide another.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        One trace per curve (and one for the block KDEs), one legend entry per rug row.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import density_1d_figure
    >>> xs = np.linspace(-3, 3, 61)
    >>> curves = {"truth": np.exp(-xs**2 / 2), "kde": 0.9 * np.exp(-xs**2 / 2)}
    >>> X, is_outlier = np.array([-1.0, 0.0, 1.0, 2.5]), np.array([False, False, False, True])
    >>> fig = density_1d_figure(xs, curves, X=X, is_outlier=is_outlier, title="two curves")
    >>> [trace.name for trace in fig.data]
    ['True density', 'KDE', 'inliers (3)', 'outliers (1)']
    >>> fig.layout.title.text
    'two curves'
    >>> density_1d_figure(xs, curves, X=X, log_y=True).layout.yaxis.type
    'log'
    """
    xs = np.asarray(xs, dtype=float)
    fig = go.Figure()
    if block_curves is not None and len(block_curves):
        fig.add_trace(_block_trace(xs, np.asarray(block_curves, dtype=float), max_blocks))
    peak = y_max or max((float(np.nanmax(v)) for v in curves.values() if np.size(v)), default=1.0)
    floor = log_density_floor(peak) if log_y else None
    for method in legend_order(curves):
        dash = (dashes or {}).get(method, "solid")
        fig.add_trace(
            _curve_trace(xs, np.asarray(curves[method], dtype=float), method, dash, floor)
        )
    fig.update_layout(
        **_LAYOUT,
        title=title,
        height=height,
        xaxis_title="x",
        yaxis_title="density" + (" (log scale)" if log_y else ""),
        hovermode="closest",
    )
    two_rows = flagged is not None and np.any(flagged)
    if log_y:
        _log_axis(fig, peak, None if X is None else bool(two_rows))
        if X is not None:  # the rug in a strip of its own: a log axis has no room below 0
            _add_rug(fig, X, is_outlier, -1.0, flagged, yref="y2")
        return fig
    if X is not None:
        _add_rug(fig, X, is_outlier, -0.04 * peak, flagged)
    low = -0.12 if two_rows else -0.08
    fig.update_yaxes(range=[low * peak, 1.12 * peak], zeroline=True)
    return fig


def _curve_trace(
    xs: np.ndarray, values: np.ndarray, method: str, dash: str, floor: float | None
) -> go.Scatter:
    """One method's curve (the truth dashed, the others ``dash``); on a log axis (``floor``,
    its bottom) a 0, a compact kernel's median, would leave a gap: it is drawn at the floor,
    the hover giving the value itself."""
    is_truth = method == "truth"
    return go.Scatter(
        x=xs,
        y=values if floor is None else np.maximum(values, floor),
        customdata=None if floor is None else values,
        mode="lines",
        name=method_label(method),
        line=dict(
            color=method_color(method),
            width=2 if is_truth else 2.5,
            dash="dash" if is_truth else dash,
        ),
        hovertemplate="x = %{x:.3g}<br>density "
        + ("%{y:.3g}" if floor is None else "%{customdata:.3g}")
        + "<extra>"
        + method_label(method)
        + "</extra>",
    )


def _log_axis(fig: go.Figure, peak: float, rug_rows: bool | None) -> None:
    """The log density axis over :data:`COLOUR_DECADES` decades below 1.3 times ``peak``,
    labelled at whole decades; with a rug (``rug_rows``: whether it has the flagged rows'
    second row, None without a rug), the rug's strip under it, the x axis below that."""
    top = _log_top(peak)
    ticks = _decade_ticks(top - COLOUR_DECADES, top)
    fig.update_yaxes(
        type="log",
        range=[top - COLOUR_DECADES, top],
        domain=[0.1, 1.0],
        tickvals=[10.0**k for k in ticks["tickvals"]],  # a log axis takes the values
        ticktext=ticks["ticktext"],
    )
    if rug_rows is not None:
        fig.update_layout(
            yaxis2=dict(
                domain=[0.0, 0.07 if rug_rows else 0.05],
                range=[-2.5 if rug_rows else -1.5, -0.5],
                visible=False,
                fixedrange=True,
            )
        )
        fig.update_xaxes(anchor="y2")  # the x axis under the rug


def density_twin_curves(
    curves: Mapping[str, np.ndarray], log_floor: float | None = None
) -> dict[str, str]:
    """The density curves of :func:`density_1d_figure` that would hide one drawn before them.

    Two curves coincide when they stay within :data:`COINCIDE` of the axis' height of each
    other at every point: on a linear axis 0 to the highest peak, on a log axis (``log_floor``:
    its bottom, values below it drawn there) its decades, compared in log10. The true
    density (``"truth"``, drawn dashed) is left out.

    Parameters
    ----------
    curves : mapping of str to ndarray
        Method -> its values on the figure's grid, in drawing order.
    log_floor : float, optional
        The bottom of a log axis; None for a linear axis.

    Returns
    -------
    twins : dict of str to str
        Each such curve mapped to the first earlier curve it coincides with
        (:func:`twin_lines`); :func:`twin_dashes` gives their dashes.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import density_twin_curves
    >>> xs = np.linspace(-3, 3, 7)
    >>> bump = np.exp(-(xs**2))
    >>> density_twin_curves({"kde": bump, "rkde": bump * 1.001, "spkde": bump / 2})
    {'rkde': 'kde'}
    >>> density_twin_curves({"kde": bump, "rkde": bump / 2}, log_floor=1e-6)
    {}
    """
    shown = {m: np.asarray(v, dtype=float) for m, v in curves.items() if m != "truth"}
    if not shown:
        return {}
    frame = pd.DataFrame(shown)
    if log_floor is None:
        tolerance = COINCIDE * float(np.nanmax(frame.to_numpy(), initial=0.0))
    else:
        frame = np.log10(frame.clip(lower=log_floor))
        tolerance = COINCIDE * float(frame.to_numpy().max() - np.log10(log_floor))
    return twin_lines(frame, tolerance)
