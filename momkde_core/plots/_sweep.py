"""The experiments' figure: a metric against the outlier ratio, one line per method in a band
of its spread (the Sweep and Real data pages, ``momkde figures``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ._style import (
    _LAYOUT,
    CHANCE_AUC,
    COINCIDE,
    METRIC_LABELS,
    _rgba,
    legend_order,
    method_color,
    method_label,
    twin_lines,
)


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
        A tidy experiment table (columns ``ratio, rep, method, metric, value`` at least),
        its methods in the registry's names: read a table of
        :func:`momkde_core.experiments.run_experiments` or ``momkde reproduce`` through
        :func:`momkde_core.methods.with_registry_names` first (there ``mom_kde`` is the S
        rule and ``mom_kde_auto`` the library's MoM-KDE, which the labels and colours would
        otherwise both draw as MoM-KDE).
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
    stats = _stats(results, metric)
    spread = "± s.e." if band == "se" else "± std"
    fig = go.Figure()
    for method in legend_order(stats["method"].unique()):
        s = stats[stats["method"] == method]
        x = s["ratio"].to_numpy(dtype=float)
        mean = s["mean"].to_numpy(dtype=float)
        half = np.nan_to_num(s["std"].to_numpy(dtype=float))
        if band == "se":
            half = half / np.sqrt(s["count"].to_numpy(dtype=float))
        if (s["count"] > 1).any():
            fig.add_trace(_band_trace(x, mean, half, method, spread))
        fig.add_trace(
            go.Scatter(
                x=x,
                y=mean,
                mode="lines+markers",
                line=dict(
                    color=method_color(method), width=2.5, dash=(dashes or {}).get(method, "solid")
                ),
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


def sweep_twin_lines(results: pd.DataFrame, metric: str) -> tuple[dict[str, str], float]:
    """The lines of :func:`metric_vs_ratio_figure` that would hide one drawn before them.

    The lines are the methods' means at each ratio, in the figure's drawing order; two
    coincide when they stay within :data:`COINCIDE` of the axis of each other at every ratio
    both have. The axis is [0, 1] for the AUC (a tolerance of 0.015), 0 to the highest mean
    otherwise.

    Parameters
    ----------
    results : DataFrame
        The table the figure draws (columns ``method, ratio, metric, value`` at least).
    metric : str
        The figure's metric.

    Returns
    -------
    twins : dict of str to str
        Each such method mapped to the first earlier method it coincides with
        (:func:`twin_lines`); :func:`twin_dashes` gives their dashes.
    tolerance : float
        :data:`COINCIDE` times the axis' span.

    Raises
    ------
    ValueError
        As :func:`metric_vs_ratio_figure`: a column missing, or no row for ``metric``.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.plots import sweep_twin_lines
    >>> results = pd.DataFrame({"metric": "auc", "ratio": [0.1, 0.2] * 3,
    ...                         "method": ["kde"] * 2 + ["rkde"] * 2 + ["spkde"] * 2,
    ...                         "value": [0.80, 0.70, 0.81, 0.70, 0.60, 0.70]})
    >>> sweep_twin_lines(results, "auc")
    ({'rkde': 'kde'}, 0.015)
    """
    means = _stats(results, metric).pivot(index="ratio", columns="method", values="mean")
    means = means[legend_order(means.columns)]
    span = 1.0 if metric == "auc" else float(np.nanmax(means.to_numpy(), initial=0.0))
    tolerance = COINCIDE * span
    return twin_lines(means, tolerance), tolerance


def _stats(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric``'s mean, standard deviation and count per method and ratio, sorted by ratio;
    a ValueError when the table lacks a column or has no row for ``metric``."""
    missing = {"ratio", "method", "metric", "value"} - set(results.columns)
    if missing:
        raise ValueError(f"results table lacks the columns {sorted(missing)}")
    sub = results[results["metric"] == metric]
    if sub.empty:
        known = sorted(results["metric"].unique()) if len(results) else []
        raise ValueError(f"no rows for metric {metric!r}; the table has {known}")
    return (
        sub.groupby(["method", "ratio"])["value"]
        .agg(["mean", "std", "count"])
        .reset_index()
        .sort_values("ratio")
    )


def _band_trace(
    x: np.ndarray, mean: np.ndarray, half: np.ndarray, method: str, spread: str
) -> go.Scatter:
    """The shaded band mean ± ``half`` of ``method``, in its colour, without a legend entry."""
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([mean + half, (mean - half)[::-1]]),
        # (the default mode adds markers at the band's vertices, in plotly's colours)
        mode="lines",
        fill="toself",
        fillcolor=_rgba(method_color(method), 0.18),
        line=dict(width=0),
        hoverinfo="skip",
        showlegend=False,
        legendgroup=method,
        name=f"{method_label(method)} {spread}",
    )
