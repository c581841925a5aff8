"""The Learn page's figures: the error at a point against the number of blocks S, and the
measured cost of each estimator against n."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._style import _LAYOUT, legend_order, method_color, method_label


def error_vs_blocks_figure(
    blocks: np.ndarray,
    errors: dict[str, np.ndarray],
    threshold: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Error of each method at one point against the number of blocks S.

    Parameters
    ----------
    blocks : ndarray of shape (k,)
        The values of S.
    errors : dict of str to ndarray of shape (k,)
        Maps a method to its error for each S in ``blocks``.
    threshold : float, optional
        Drawn as a vertical line (e.g. 2|O|): the theory's S > 2|O| guide.
    title : str, optional
        The title.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        One step line per method.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import error_vs_blocks_figure
    >>> S = np.arange(1, 6)
    >>> errors = {"kde": np.ones(5), "mom_kde": np.linspace(1.0, 0.1, 5)}
    >>> fig = error_vs_blocks_figure(S, errors, threshold=4)
    >>> len(fig.data), len(fig.layout.shapes)  # two methods, the S = 2|O| line
    (2, 1)
    """
    fig = go.Figure()
    for method in legend_order(errors):
        fig.add_trace(
            go.Scatter(
                x=blocks,
                y=errors[method],
                mode="lines+markers",
                name=method_label(method),
                line=dict(color=method_color(method), width=2.5, shape="hv"),
            )
        )
    if threshold is not None:
        fig.add_vline(
            x=threshold,
            line=dict(color="#1F2430", dash="dot"),
            annotation_text="S = 2|O|",
            annotation_position="top right",
        )
    fig.update_layout(
        **_LAYOUT,
        title=title,
        xaxis_title="number of blocks S",
        yaxis_title="|f̂(x₀) − f(x₀)|",
        height=360,
    )
    fig.update_yaxes(rangemode="nonnegative")  # an error is >= 0 (all zero with |O| = 0)
    return fig


def timing_slopes(times: pd.DataFrame, phase: str = "fit") -> dict[str, float]:
    """Per method, the slope of log(seconds) against log(n) for ``phase``.

    Least squares over the measured sizes: 1 is linear cost, 2 quadratic. Methods measured at
    fewer than two sizes are left out, and so are rows of 0 seconds.

    Parameters
    ----------
    times : DataFrame
        Columns ``method, n, phase, seconds``.
    phase : str, default "fit"
        The phase (``"fit"`` or ``"evaluate"``).

    Returns
    -------
    slopes : dict of str to float
        The slope per method, in legend order.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.plots import timing_slopes
    >>> times = pd.DataFrame({
    ...     "method": ["kde", "kde", "rkde", "rkde"], "n": [100, 1000, 100, 1000],
    ...     "phase": "fit", "seconds": [0.01, 0.1, 0.01, 1.0],
    ... })
    >>> {method: round(slope, 2) for method, slope in timing_slopes(times).items()}
    {'kde': 1.0, 'rkde': 2.0}
    """
    slopes = {}
    for method in legend_order(times["method"].unique()):
        s = times[(times["method"] == method) & (times["phase"] == phase) & (times["seconds"] > 0)]
        if s["n"].nunique() >= 2:
            slopes[method] = float(np.polyfit(np.log(s["n"]), np.log(s["seconds"]), 1)[0])
    return slopes


def _log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks covering [low, high] (positive): labelled log axes even when the data span
    less than one decade (Plotly then labels only minor ticks such as "2" and "5")."""
    ticks = [
        m * 10.0**e
        for e in range(int(np.floor(np.log10(low))) - 1, int(np.ceil(np.log10(high))) + 1)
        for m in (1, 2, 5)
    ]
    inside = [t for t in ticks if low / 1.5 <= t <= high * 1.5]
    return inside or ticks


def timing_figure(times: pd.DataFrame, title: str | None = None) -> go.Figure:
    """Measured seconds against n on log-log axes: one colour per method, one dash per phase.

    Two grey reference lines through the slowest fit at the smallest n show the slopes 1
    (linear cost) and 2 (quadratic, the O(n_iter n^2) of RKDE and SPKDE in theory), so a
    measured slope can be read off; the ticks are the measured n and 1-2-5 steps of seconds.
    The legend is under the axis, clear of Plotly's toolbar.

    Parameters
    ----------
    times : DataFrame
        Columns ``method, n, phase, seconds`` (phase ``fit`` or ``evaluate``).
    title : str, optional
        The title.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The reference lines (with two sizes or more), then one line per method and phase.

    See Also
    --------
    timing_slopes : The measured slopes.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.plots import timing_figure
    >>> times = pd.DataFrame({
    ...     "method": ["kde", "kde", "rkde", "rkde"], "n": [100, 1000, 100, 1000],
    ...     "phase": "fit", "seconds": [0.01, 0.1, 0.01, 1.0],
    ... })
    >>> [trace.name for trace in timing_figure(times, title="fit").data]
    ['slope 1 (n)', 'slope 2 (n²)', 'KDE fit', 'RKDE fit']
    """
    sizes = np.sort(times["n"].unique()).astype(float)
    positive = times.loc[times["seconds"] > 0, "seconds"]
    fig = go.Figure(_slope_lines(times, sizes, positive))
    dashes = {"fit": "solid", "evaluate": "dot"}
    for method in legend_order(times["method"].unique()):
        for phase, dash in dashes.items():
            s = times[(times["method"] == method) & (times["phase"] == phase)].sort_values("n")
            if s.empty:
                continue
            fig.add_trace(
                go.Scatter(
                    x=s["n"],
                    y=s["seconds"],
                    mode="lines+markers",
                    name=f"{method_label(method)} {phase}",
                    legendgroup=method,
                    line=dict(color=method_color(method), dash=dash, width=2.5),
                    hovertemplate="n = %{x}<br>%{y:.3g} s<extra>"
                    + f"{method_label(method)} {phase}"
                    + "</extra>",
                )
            )
    # the legend goes under the axis: above, its rows of a dozen entries ran under Plotly's
    # toolbar (top right)
    fig.update_layout(
        **{**_LAYOUT, "legend": dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0)},
        title=title,
        xaxis_title="n (points)",
        yaxis_title="seconds",
        height=500,
    )
    fig.update_xaxes(type="log", tickvals=list(sizes), ticktext=[f"{int(n):,}" for n in sizes])
    if len(positive):
        yticks = _log_ticks(float(positive.min()), float(positive.max()))
        fig.update_yaxes(
            type="log",
            tickvals=yticks,
            ticktext=[f"{t:g}" for t in yticks],
            range=[np.log10(positive.min()) - 0.15, np.log10(positive.max()) + 0.15],
        )
    else:
        fig.update_yaxes(type="log")
    return fig


def _slope_lines(times: pd.DataFrame, sizes: np.ndarray, positive: pd.Series) -> list[go.Scatter]:
    """The grey lines of slopes 1 and 2 through the slowest fit at the smallest n (none with
    fewer than two sizes or no positive time)."""
    if len(sizes) < 2 or not len(positive):
        return []
    fits = times[(times["phase"] == "fit") & (times["n"] == sizes[0])]
    anchor = float(fits["seconds"].max()) if len(fits) else float(positive.max())
    return [
        go.Scatter(
            x=sizes,
            y=anchor * (sizes / sizes[0]) ** slope,
            mode="lines",
            name=f"slope {slope} (n{'²' if slope == 2 else ''})",
            line=dict(color="#9AA0AE", dash=dash, width=1.5),
            hoverinfo="skip",
        )
        for slope, dash in ((1, "dot"), (2, "dash"))
    ]
