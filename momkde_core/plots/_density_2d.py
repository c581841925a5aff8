"""2-D densities, one heatmap panel per method on a shared log colour scale (the Explore and
Your data pages)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import (
    _LAYOUT,
    COLOUR_DECADES,
    SVG_MARKERS,
    _decade_ticks,
    _sample_groups,
    legend_order,
    method_label,
)


def density_2d_figure(
    xs: np.ndarray,
    ys: np.ndarray,
    surfaces: dict[str, np.ndarray],
    X: np.ndarray | None = None,
    is_outlier: np.ndarray | None = None,
    axis_titles: tuple[str, str] = ("x₁", "x₂"),
    max_cols: int = 3,
    panel_height: int = 300,
    panel_notes: dict[str, str] | None = None,
    flagged: np.ndarray | None = None,
) -> go.Figure:
    """2-D densities, one panel per method, as heatmaps of log10 density.

    All panels share one colour scale, so a bump of outliers reads the same in each: the top
    is :func:`shared_colour_cap` (values above it, a spike, take the top colour instead of
    darkening every panel), the bottom :data:`COLOUR_DECADES` decades lower.
    A linear scale hid a KDE's outlier mass (~1e-3 of the peak under uniform outliers) in
    its lowest step, so S = 3 and S = 225 looked alike. The colour bar is labelled in
    density values and the hover shows each map's density as it is. The maps are images
    (heatmaps of float32 values), which a browser draws faster than filled
    contours and which halve what the page sends.

    The sample is drawn on the first panel only (the "data" map: the truth in Explore), so
    every estimate's bumps stay visible and the browser does not draw thousands of markers
    per panel (much slower to draw, measured in headless Chromium): inliers (or an
    unlabelled sample) as faint dots, outliers as small hollow red circles. The rows an
    outlier detector ``flagged`` are thin rings on every panel. Markers are SVG up to
    :data:`SVG_MARKERS` per trace (no WebGL context to start).

    Parameters
    ----------
    xs, ys : ndarray of shape (mx,) and (my,)
        The axes of the mesh (increasing).
    surfaces : dict of str to ndarray of shape (mx, my)
        Maps a method to its values on the mesh of ``xs`` and ``ys`` in "ij" indexing (what
        ``pdf_grid`` returns).
    X : ndarray of shape (n, 2), optional
        The sample.
    is_outlier : ndarray of bool, shape (n,), optional
        The labels: outliers as hollow red circles on the first panel.
    axis_titles : tuple of two str, default ("x₁", "x₂")
        The axes' titles.
    max_cols : int, default 3
        The most panels per row.
    panel_height : int, default 300
        The height of one row of panels, in pixels.
    panel_notes : dict of str to str, optional
        Method -> short text (e.g. its JS) added to the panel titles, since two maps can
        look alike where their divergences differ 50-fold.
    flagged : ndarray of bool, shape (n,), optional
        The rows an outlier detector flagged (a mask), circled on every panel.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        One heatmap trace per method (z is log10 of the density, ``customdata`` the
        density), and the marker traces.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import density_2d_figure
    >>> xs = np.linspace(-3, 3, 21)
    >>> Z = np.exp(-(xs[:, None] ** 2 + xs[None, :] ** 2) / 2)
    >>> fig = density_2d_figure(
    ...     xs, xs, {"truth": Z, "kde": 0.9 * Z}, X=np.zeros((5, 2)), panel_notes={"kde": "JS 0.01"}
    ... )
    >>> [trace.name for trace in fig.data]
    ['True density', 'sample (5)', 'KDE']
    >>> [a.text for a in fig.layout.annotations]
    ['True density', 'KDE · JS 0.01']
    """
    from plotly.subplots import make_subplots

    methods = legend_order(surfaces)
    cols = min(max_cols, len(methods))
    rows = -(-len(methods) // cols)
    notes = panel_notes or {}
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            method_label(m) + (f" · {notes[m]}" if notes.get(m) else "") for m in methods
        ],
        shared_xaxes=True,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        vertical_spacing=0.08,
    )
    cap, capped = shared_colour_cap(surfaces)
    top = float(np.log10(cap))
    pts = None if X is None else np.asarray(X, dtype=float)
    samples = [] if pts is None else _sample_traces(pts, is_outlier)
    ring = (
        None if pts is None or flagged is None or not np.any(flagged) else np.asarray(flagged, bool)
    )
    for i, method in enumerate(methods):
        at = dict(row=i // cols + 1, col=i % cols + 1)
        fig.add_trace(_heatmap(xs, ys, surfaces[method], method, top, capped, i == 0), **at)
        for trace in samples if i == 0 else ():
            fig.add_trace(trace, **at)
        if ring is not None:
            fig.add_trace(_ring_trace(pts[ring], showlegend=i == 0), **at)
    legend, bottom = _legend_place(rows, cols, len(methods), panel_height)
    fig.update_layout(
        **{
            **_LAYOUT,
            "margin": dict(l=60, r=80, t=40, b=bottom + 45, autoexpand=False),
            "legend": legend,
        },
        height=panel_height * rows + 60 + bottom,
    )
    fig.update_xaxes(range=[float(xs[0]), float(xs[-1])])
    # the x title once, under the first column: narrow panels' titles would run into each
    # other (the y title is once too, beside the first column)
    fig.update_xaxes(title_text=axis_titles[0], row=rows, col=1)
    for col in range(len(methods) - (rows - 1) * cols + 1, cols + 1):
        # a column whose last panel is above an empty cell of the bottom row: shared axes
        # put tick labels on the bottom row only, so that panel shows its own
        fig.update_xaxes(showticklabels=True, row=rows - 1, col=col)
    fig.update_yaxes(range=[float(ys[0]), float(ys[-1])])
    fig.update_yaxes(title_text=axis_titles[1], col=1)
    return fig


def _heatmap(
    xs: np.ndarray,
    ys: np.ndarray,
    surface: np.ndarray,
    method: str,
    top: float,
    capped: bool,
    showscale: bool,
) -> go.Heatmap:
    """One panel's map: log10 of the density (``customdata`` the density) on the shared scale
    from ``top`` down :data:`COLOUR_DECADES` decades (``capped``: it cuts off higher values),
    with the colour bar when ``showscale``."""
    bottom = top - COLOUR_DECADES
    density = np.asarray(surface, dtype=float).T
    with np.errstate(divide="ignore", invalid="ignore"):
        # zeros and negatives (SPKDE's rounding) below the scale: the lowest colour
        logz = np.where(density > 0, np.log10(np.maximum(density, 1e-300)), bottom - 1.0)
    colorbar = dict(
        title="density<br>(capped)" if capped else "density",
        # at the plot's right edge in pixels, not 2 % of its width beyond it: the fixed right
        # margin holds it on any screen
        x=1.0,
        xanchor="left",
        xpad=6,
        thickness=12,
        **_decade_ticks(bottom, top),
    )
    return go.Heatmap(
        x=xs,
        y=ys,
        z=np.maximum(logz, bottom - 1.0).astype(np.float32),
        customdata=density.astype(np.float32),
        name=method_label(method),
        colorscale="Viridis",
        zmin=bottom,
        zmax=top,
        showscale=showscale,
        colorbar=colorbar,
        hovertemplate="(%{x:.2f}, %{y:.2f})<br>density %{customdata:.3g}<extra>"
        + method_label(method)
        + "</extra>",
    )


def _sample_traces(pts: np.ndarray, is_outlier: np.ndarray | None) -> list:
    """The sample's markers for the first panel: inliers (or an unlabelled sample) as faint
    dots, outliers as small hollow red circles, one legend entry per group."""
    faint = dict(size=2, color="rgba(225,230,240,0.5)")
    hollow = dict(size=5, symbol="circle-open", color="rgba(255,70,70,0.9)", line=dict(width=1))
    marker = {"sample": faint, "inliers": faint, "outliers": hollow}
    return [
        _markers(int(m.sum()))(
            x=pts[m, 0],
            y=pts[m, 1],
            mode="markers",
            name=f"{name} ({int(m.sum())})",
            marker=marker[name],
            legendgroup=name,
            showlegend=True,
            hoverinfo="skip",
        )
        for name, m in _sample_groups(len(pts), is_outlier)
    ]


def _ring_trace(pts: np.ndarray, showlegend: bool) -> go.Scatter | go.Scattergl:
    """The flagged rows ``pts`` as thin rings (every panel; one legend entry)."""
    return _markers(len(pts))(
        x=pts[:, 0],
        y=pts[:, 1],
        mode="markers",
        name=f"flagged ({len(pts)})",
        legendgroup="flagged",
        showlegend=showlegend,
        marker=dict(
            size=8, symbol="circle-open", color="rgba(243,229,245,0.8)", line=dict(width=1)
        ),
        hoverinfo="skip",
    )


def _legend_place(rows: int, cols: int, panels: int, panel_height: int) -> tuple[dict, int]:
    """The legend's place and the bottom margin it needs: the free panel at the bottom right
    when there is one, else below the plots, under the axis titles."""
    if rows * cols > panels:
        legend = dict(
            orientation="v",
            yanchor="middle",
            y=0.5 / rows,
            xanchor="left",
            x=(cols - 1) / cols + 0.03,
        )
        return legend, 10
    legend = dict(
        orientation="h", yanchor="top", y=-70 / (panel_height * rows), xanchor="left", x=0
    )
    return legend, 80  # two rows of legend, on a narrow window


def _markers(count: int) -> type:
    """The marker trace for ``count`` points: SVG (cheap to start) or WebGL (many points)."""
    return go.Scatter if count <= SVG_MARKERS else go.Scattergl


def shared_colour_cap(
    surfaces: dict[str, np.ndarray], headroom: float = 1.25
) -> tuple[float, bool]:
    """The top of the colour scale the panels of :func:`density_2d_figure` share.

    ``headroom`` times the true density's peak when ``"truth"`` is among ``surfaces``, else
    times the lowest of the panels' peaks (the estimate that did not grow a spike), and at
    most the highest peak: one spike of height 55 must not turn every other map
    (peak ~0.3) dark. Values above the cap are drawn in the top colour; the hover shows them
    as they are.

    Parameters
    ----------
    surfaces : dict of str to ndarray
        The panels' values.
    headroom : float, default 1.25
        The cap's margin above the reference peak.

    Returns
    -------
    cap : float
        The top of the colour scale (1.0 when no value is positive).
    capped : bool
        Whether it cuts off higher values.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import shared_colour_cap
    >>> cap, capped = shared_colour_cap({"truth": np.array([0.4]), "kde": np.array([55.0])})
    >>> round(cap, 2), capped
    (0.5, True)
    """
    peaks = {m: float(np.nanmax(v)) for m, v in surfaces.items() if np.size(v)}
    positive = [p for p in peaks.values() if p > 0]
    if not positive:
        return 1.0, False
    reference = peaks["truth"] if peaks.get("truth", 0) > 0 else min(positive)
    cap = min(headroom * reference, max(positive))
    return cap, cap < max(positive)
