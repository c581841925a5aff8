"""Plotly figure builders shared by the Streamlit app and the command line.

Every figure of the project is built here so that the app, the CLI and the tests draw the
same thing. Nothing here imports streamlit: a builder takes arrays or tidy tables and
returns a ``plotly.graph_objects.Figure``. Each method keeps one colour in every figure
(``METHOD_COLORS``) so that a reader can match curves across pages at a glance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .methods import METHODS
from .methods import method_label as _registry_label

#: One colour per method, used by every figure (colour-blind friendly, Okabe-Ito based).
METHOD_COLORS: dict[str, str] = {
    "kde": "#E69F00",
    "kde_robust": "#B07800",
    "mom_kde": "#C2185B",
    "mom_kde_auto": "#C2185B",  # the library's default MoM-KDE: what the app calls MoM-KDE
    "mom_kde_rule": "#F06292",
    "mom_kde_oracle": "#8E24AA",
    "mom_kde_blockh": "#D55E00",
    "mom_kde_oracle_blockh": "#CE93D8",
    "rkde": "#0072B2",
    "spkde": "#009E73",
    "screened_kde": "#56B4E9",  # Okabe-Ito sky blue: lighter than RKDE's blue
    "truth": "#1F2430",
}
#: The block KDEs behind MoM-KDE's median: a neutral grey, so they are not read as MoM-KDE.
BLOCK_COLOR = "#7A8194"
#: Rows an outlier detector flagged (Your data page): a colour no method uses.
FLAG_COLOR = "#6A1B9A"
#: AUC of a score that ranks at random: the line an AUC figure is read against.
CHANCE_AUC = 0.5
#: Marker traces up to this many points are SVG, larger ones WebGL (density_2d_figure).
SVG_MARKERS = 2000
#: Decades of density the 2-D maps' colour scale spans below its top (density_2d_figure):
#: a KDE's plateau over uniform outliers, ~1e-3 of the peak, gets a colour of its own.
COLOUR_DECADES = 4

#: The name legends give the true density (``"truth"`` among a figure's curves).
TRUTH_LABEL = "True density"

#: Human-readable names of the metrics of the experiment tables.
METRIC_LABELS: dict[str, str] = {
    "js": "Jensen-Shannon divergence (base 2)",
    "js_distance": "Jensen-Shannon distance",
    "kl_fhat_f": "KL(f̂ ‖ f)",
    "kl_f_fhat": "KL(f ‖ f̂)",
    "l1": "L1 error",
    "linf": "L∞ error",
    "auc": "ROC AUC",
}

# No template: in the app Streamlit's theme styles the charts (and building a figure with
# a template adds to each redraw); standalone HTML sets STANDALONE_TEMPLATE.
#: The Plotly template of standalone figures (HTML and static files); the builders set none.
STANDALONE_TEMPLATE = "plotly_white"
_LAYOUT = dict(
    margin=dict(l=10, r=10, t=50, b=10),
    legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0),
    font=dict(family="sans-serif"),
)


def log_density_floor(peak: float) -> float:
    """The bottom of :func:`density_1d_figure`'s log axis for curves peaking at ``peak``.

    The axis spans :data:`COLOUR_DECADES` decades below its top, 1.3 times the peak; values
    below the floor (a compact kernel's zeros) are drawn at it.

    Parameters
    ----------
    peak : float
        The highest value drawn (1 is used when it is not positive).

    Returns
    -------
    floor : float
        The axis' bottom, in density units.

    Examples
    --------
    >>> from momkde_core.plots import log_density_floor
    >>> round(log_density_floor(0.4), 8)
    5.2e-05
    """
    return 10.0 ** (_log_top(peak) - COLOUR_DECADES)


def _log_top(peak: float) -> float:
    """log10 of the top of a log axis over curves peaking at ``peak``: 1.3 times it."""
    return float(np.log10(1.3 * peak)) if peak > 0 else 0.0


def _decade_ticks(bottom: float, top: float) -> dict[str, list]:
    """Tick values at the whole decades between ``bottom`` and ``top`` (log10), on an axis
    of log10 values, labelled as densities (0.1, 0.01 ...)."""
    decades = list(range(int(np.ceil(bottom)), int(np.floor(top)) + 1))
    return {"tickvals": decades, "ticktext": [f"{10.0**k:g}" for k in decades]}


def method_color(method: str) -> str:
    """Colour of ``method`` (grey for a method without an assigned colour).

    Parameters
    ----------
    method : str
        A method name (a key of :data:`METHOD_COLORS`).

    Returns
    -------
    color : str
        A ``#RRGGBB`` colour.

    Examples
    --------
    >>> from momkde_core.plots import method_color
    >>> method_color("rkde"), method_color("unknown")
    ('#0072B2', '#7F7F7F')
    """
    return METHOD_COLORS.get(method, "#7F7F7F")


def method_label(method: str) -> str:
    """Display name of ``method``: the registry's label (:func:`momkde_core.methods.method_label`),
    :data:`TRUTH_LABEL` for ``"truth"``, the raw name when unknown.

    Parameters
    ----------
    method : str
        A name of :data:`momkde_core.methods.METHODS`, or ``"truth"``.

    Returns
    -------
    label : str
        The name legends show.

    Examples
    --------
    >>> from momkde_core.plots import method_label
    >>> method_label("mom_kde_auto"), method_label("truth"), method_label("my_method")
    ('MoM-KDE (auto)', 'True density', 'my_method')
    """
    return TRUTH_LABEL if method == "truth" else _registry_label(method)


def _rgba(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` as a CSS ``rgba()`` string with opacity ``alpha`` (for shaded bands)."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def legend_order(methods: Iterable[str]) -> list[str]:
    """``methods`` in the order figures draw and legends list them: the truth, then the
    registry's order (:data:`momkde_core.methods.METHODS`), unknown names last as given.

    Parameters
    ----------
    methods : iterable of str
        Method names (repeats are dropped).

    Returns
    -------
    ordered : list of str
        The same names, ordered.

    Examples
    --------
    >>> from momkde_core.plots import legend_order
    >>> legend_order(["spkde", "mine", "kde", "truth"])
    ['truth', 'kde', 'spkde', 'mine']
    """
    given = list(dict.fromkeys(methods))
    known = [m for m in ("truth", *METHODS) if m in given]
    return known + [m for m in given if m not in known]


def metric_vs_ratio_figure(
    results: pd.DataFrame,
    metric: str,
    title: str | None = None,
    band: Literal["std", "se"] = "std",
    dashes: Mapping[str, str] | None = None,
) -> go.Figure:
    """Mean of ``metric`` against the outlier ratio, per method, in a band of its spread.

    Repetitions are averaged at each ratio; the shaded band is the mean ± one standard
    deviation over the repetitions (``band="std"``, the paper's figure layout, which the CLI
    draws) or ± the standard error of the mean, std / sqrt(repetitions) (``band="se"``, the
    app's: its captions call a gap a win only beyond the standard errors). No band with a
    single repetition. For the AUC a dotted line marks chance (:data:`CHANCE_AUC`) and the
    axis spans [0, 1]; other metrics start at 0.

    Parameters
    ----------
    results : DataFrame
        A tidy experiment table (columns ``ratio, rep, method, metric, value`` at least;
        :func:`momkde_core.experiments.run_experiments`).
    metric : str
        The metric to draw (a key of :data:`METRIC_LABELS`, e.g. ``"js"``).
    title : str, optional
        The title (default: the metric's label).
    band : {"std", "se"}, default "std"
        The band's half-width: one standard deviation or one standard error of the mean. The
        hover gives the same number.
    dashes : mapping of str to str, optional
        A Plotly dash style (``"dash"``, ``"dashdot"``...) per method, e.g. for lines that
        coincide with another; the others are solid.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        One line per method (and its band).

    Raises
    ------
    ValueError
        When the table lacks one of the columns ``ratio, method, metric, value``, or has no
        row for ``metric``.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.plots import metric_vs_ratio_figure
    >>> results = pd.DataFrame({
    ...     "ratio": [0.1, 0.1, 0.2, 0.2] * 2, "rep": [0, 1] * 4,
    ...     "method": ["kde"] * 4 + ["mom_kde"] * 4, "metric": "js",
    ...     "value": [0.10, 0.12, 0.20, 0.22, 0.05, 0.06, 0.07, 0.08],
    ... })
    >>> fig = metric_vs_ratio_figure(results, "js")
    >>> len(fig.data), fig.layout.title.text  # per method: a band and a line
    (4, 'Jensen-Shannon divergence (base 2)')
    >>> fig = metric_vs_ratio_figure(results, "js", band="se", dashes={"mom_kde": "dash"})
    >>> fig.data[1].customdata.round(3).tolist(), fig.data[3].line.dash  # std / sqrt(2)
    ([0.01, 0.01], 'dash')
    """
    missing = {"ratio", "method", "metric", "value"} - set(results.columns)
    if missing:
        raise ValueError(f"results table lacks the columns {sorted(missing)}")
    sub = results[results["metric"] == metric]
    if sub.empty:
        known = sorted(results["metric"].unique()) if len(results) else []
        raise ValueError(f"no rows for metric {metric!r}; the table has {known}")
    stats = (
        sub.groupby(["method", "ratio"])["value"]
        .agg(["mean", "std", "count"])
        .reset_index()
        .sort_values("ratio")
    )
    spread = "± s.e." if band == "se" else "± std"
    fig = go.Figure()
    for method in legend_order(stats["method"].unique()):
        s = stats[stats["method"] == method]
        color = method_color(method)
        x = s["ratio"].to_numpy(dtype=float)
        mean = s["mean"].to_numpy(dtype=float)
        half = np.nan_to_num(s["std"].to_numpy(dtype=float))
        if band == "se":
            half = half / np.sqrt(s["count"].to_numpy(dtype=float))
        if (s["count"] > 1).any():
            fig.add_trace(
                go.Scatter(
                    x=np.concatenate([x, x[::-1]]),
                    y=np.concatenate([mean + half, (mean - half)[::-1]]),
                    # (the default mode adds markers at the band's vertices, in plotly's colours)
                    mode="lines",
                    fill="toself",
                    fillcolor=_rgba(color, 0.18),
                    line=dict(width=0),
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=method,
                    name=f"{method_label(method)} {spread}",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=mean,
                mode="lines+markers",
                line=dict(color=color, width=2.5, dash=(dashes or {}).get(method, "solid")),
                marker=dict(size=6),
                name=method_label(method),
                legendgroup=method,
                customdata=half,
                hovertemplate="ratio %{x:.2f}<br>mean %{y:.4g} "
                + spread.replace("±", "± %{customdata:.2g}")
                + "<extra>"
                + method_label(method)
                + "</extra>",
            )
        )
    # the legend goes under the axis: above, once it wraps (five methods in a half-width
    # column), it covered the title
    fig.update_layout(
        **{**_LAYOUT, "legend": dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)},
        title=title or METRIC_LABELS.get(metric, metric),
        xaxis_title="outlier ratio |O| / n",
        yaxis_title=METRIC_LABELS.get(metric, metric),
        hovermode="x unified",
        height=460,
    )
    if metric == "auc":  # read against chance: below 0.5 the density ranks outliers as normal
        fig.add_hline(
            y=CHANCE_AUC,
            line=dict(color="#1F2430", dash="dot", width=1.5),
            annotation_text="chance (0.5)",
            annotation_position="bottom right",
        )
        fig.update_yaxes(range=[0.0, 1.02])
    else:
        fig.update_yaxes(rangemode="nonnegative")  # every metric is >= 0
    return fig


def _sample_groups(n: int, is_outlier: np.ndarray | None) -> list[tuple[str, np.ndarray]]:
    """(name, mask) of the non-empty groups a plot draws apart: "inliers" and "outliers"
    when labels are given, else one "sample"."""
    if is_outlier is None:
        return [("sample", np.ones(n, bool))] if n else []
    mask = np.asarray(is_outlier, bool).ravel()
    return [(name, m) for name, m in (("inliers", ~mask), ("outliers", mask)) if m.any()]


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
    floor = log_density_floor(peak)
    for method in legend_order(curves):
        is_truth = method == "truth"
        values = np.asarray(curves[method], dtype=float)
        fig.add_trace(
            go.Scatter(
                x=xs,
                # on a log axis a 0 (a compact kernel's median) would leave a gap: drawn at the
                # axis' floor, the hover giving the value itself
                y=np.maximum(values, floor) if log_y else values,
                customdata=values if log_y else None,
                mode="lines",
                name=method_label(method),
                line=dict(
                    color=method_color(method),
                    width=2 if is_truth else 2.5,
                    dash="dash" if is_truth else (dashes or {}).get(method, "solid"),
                ),
                hovertemplate="x = %{x:.3g}<br>density "
                + ("%{customdata:.3g}" if log_y else "%{y:.3g}")
                + "<extra>"
                + method_label(method)
                + "</extra>",
            )
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
        top = _log_top(peak)
        ticks = _decade_ticks(top - COLOUR_DECADES, top)
        fig.update_yaxes(
            type="log",
            range=[top - COLOUR_DECADES, top],
            domain=[0.1, 1.0],
            tickvals=[10.0**k for k in ticks["tickvals"]],  # a log axis takes the values
            ticktext=ticks["ticktext"],
        )
        if X is not None:  # the rug in a strip of its own: a log axis has no room below 0
            fig.update_layout(
                yaxis2=dict(
                    domain=[0.0, 0.07 if two_rows else 0.05],
                    range=[-2.5 if two_rows else -1.5, -0.5],
                    visible=False,
                    fixedrange=True,
                )
            )
            fig.update_xaxes(anchor="y2")  # the x axis under the rug
            _add_rug(fig, X, is_outlier, -1.0, flagged, yref="y2")
        return fig
    if X is not None:
        _add_rug(fig, X, is_outlier, -0.04 * peak, flagged)
    low = -0.12 if two_rows else -0.08
    fig.update_yaxes(range=[low * peak, 1.12 * peak], zeroline=True)
    return fig


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
    (heatmaps of float32 values), which a browser draws several times faster than filled
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
    titles = [method_label(m) + (f" · {notes[m]}" if notes.get(m) else "") for m in methods]
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        shared_xaxes=True,
        shared_yaxes=True,
        horizontal_spacing=0.03,
        vertical_spacing=0.08,
    )
    cap, capped = shared_colour_cap(surfaces)
    top = float(np.log10(cap))
    bottom = top - COLOUR_DECADES
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
    pts = None if X is None else np.asarray(X, dtype=float)
    faint = dict(size=2, color="rgba(225,230,240,0.5)")
    hollow = dict(size=5, symbol="circle-open", color="rgba(255,70,70,0.9)", line=dict(width=1))
    marker = {"sample": faint, "inliers": faint, "outliers": hollow}
    groups = [] if pts is None else _sample_groups(len(pts), is_outlier)
    ring = (
        None if pts is None or flagged is None or not np.any(flagged) else np.asarray(flagged, bool)
    )
    for i, method in enumerate(methods):
        row, col = i // cols + 1, i % cols + 1
        density = np.asarray(surfaces[method], dtype=float).T
        with np.errstate(divide="ignore", invalid="ignore"):
            # zeros and negatives (SPKDE's rounding) below the scale: the lowest colour
            logz = np.where(density > 0, np.log10(np.maximum(density, 1e-300)), bottom - 1.0)
        fig.add_trace(
            go.Heatmap(
                x=xs,
                y=ys,
                z=np.maximum(logz, bottom - 1.0).astype(np.float32),
                customdata=density.astype(np.float32),
                name=method_label(method),
                colorscale="Viridis",
                zmin=bottom,
                zmax=top,
                showscale=i == 0,
                colorbar=colorbar,
                hovertemplate="(%{x:.2f}, %{y:.2f})<br>density %{customdata:.3g}<extra>"
                + method_label(method)
                + "</extra>",
            ),
            row=row,
            col=col,
        )
        for name, m in groups if i == 0 else ():
            fig.add_trace(
                _markers(int(m.sum()))(
                    x=pts[m, 0],
                    y=pts[m, 1],
                    mode="markers",
                    name=f"{name} ({int(m.sum())})",
                    marker=marker[name],
                    legendgroup=name,
                    showlegend=True,
                    hoverinfo="skip",
                ),
                row=row,
                col=col,
            )
        if ring is not None:
            fig.add_trace(
                _markers(int(ring.sum()))(
                    x=pts[ring, 0],
                    y=pts[ring, 1],
                    mode="markers",
                    name=f"flagged ({int(ring.sum())})",
                    legendgroup="flagged",
                    showlegend=i == 0,
                    marker=dict(
                        size=8,
                        symbol="circle-open",
                        color="rgba(243,229,245,0.8)",
                        line=dict(width=1),
                    ),
                    hoverinfo="skip",
                ),
                row=row,
                col=col,
            )
    if rows * cols > len(methods):  # the legend takes the free panel at the bottom right
        legend = dict(
            orientation="v",
            yanchor="middle",
            y=0.5 / rows,
            xanchor="left",
            x=(cols - 1) / cols + 0.03,
        )
        bottom = 10
    else:  # below the plots, under the axis titles
        legend = dict(
            orientation="h", yanchor="top", y=-70 / (panel_height * rows), xanchor="left", x=0
        )
        bottom = 80  # two rows of legend, on a narrow window
    fig.update_layout(
        **{
            **_LAYOUT,
            "margin": dict(l=60, r=80, t=40, b=bottom + 45, autoexpand=False),
            "legend": legend,
        },
        height=panel_height * rows + 60 + bottom,
    )
    fig.update_xaxes(range=[float(xs[0]), float(xs[-1])])
    fig.update_xaxes(title_text=axis_titles[0], row=rows)
    fig.update_yaxes(range=[float(ys[0]), float(ys[-1])])
    fig.update_yaxes(title_text=axis_titles[1], col=1)
    return fig


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
    fig = go.Figure()
    sizes = np.sort(times["n"].unique()).astype(float)
    positive = times.loc[times["seconds"] > 0, "seconds"]
    if len(sizes) >= 2 and len(positive):
        fits = times[(times["phase"] == "fit") & (times["n"] == sizes[0])]
        anchor = float(fits["seconds"].max()) if len(fits) else float(positive.max())
        for slope, dash in ((1, "dot"), (2, "dash")):
            fig.add_trace(
                go.Scatter(
                    x=sizes,
                    y=anchor * (sizes / sizes[0]) ** slope,
                    mode="lines",
                    name=f"slope {slope} (n{'²' if slope == 2 else ''})",
                    line=dict(color="#9AA0AE", dash=dash, width=1.5),
                    hoverinfo="skip",
                )
            )
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
