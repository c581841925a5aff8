"""Plotly figure builders shared by the Streamlit app and the command line.

Every figure of the project is built here so that the app, the CLI and the tests draw the
same thing. Nothing here imports streamlit: a builder takes arrays or tidy tables and
returns a ``plotly.graph_objects.Figure``. Each method keeps one colour in every figure
(``METHOD_COLORS``) so that a reader can match curves across pages at a glance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

#: One colour per method, used by every figure (colour-blind friendly, Okabe-Ito based).
METHOD_COLORS: dict[str, str] = {
    "kde": "#E69F00",
    "mom_kde": "#C2185B",
    "mom_kde_oracle": "#8E24AA",
    "rkde": "#0072B2",
    "spkde": "#009E73",
    "truth": "#1F2430",
}

#: Human-readable names of the methods, in the order legends list them.
METHOD_LABELS: dict[str, str] = {
    "truth": "True density",
    "kde": "KDE",
    "mom_kde": "MoM-KDE",
    "mom_kde_oracle": "MoM-KDE (oracle S)",
    "rkde": "RKDE",
    "spkde": "SPKDE",
}

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

_LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=10, r=10, t=50, b=10),
    legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0),
    font=dict(family="sans-serif"),
)


def method_color(method: str) -> str:
    """Colour of ``method`` (grey for a method without an assigned colour)."""
    return METHOD_COLORS.get(method, "#7F7F7F")


def method_label(method: str) -> str:
    """Display name of ``method`` (the raw name when unknown)."""
    return METHOD_LABELS.get(method, method)


def _rgba(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` as a CSS ``rgba()`` string with opacity ``alpha`` (for shaded bands)."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _ordered_methods(methods) -> list[str]:
    """Methods in the canonical legend order, unknown ones last in their given order."""
    known = [m for m in METHOD_LABELS if m in set(methods)]
    return known + [m for m in dict.fromkeys(methods) if m not in METHOD_LABELS]


def metric_vs_ratio_figure(
    results: pd.DataFrame, metric: str, title: str | None = None
) -> go.Figure:
    """Mean +- one standard deviation of ``metric`` against the outlier ratio, per method.

    ``results`` is a tidy experiment table (columns ``ratio, rep, method, metric, value``
    at least). Repetitions are averaged at each ratio; the shaded band is mean +- std over
    repetitions (no band with a single repetition). This is the paper's figure layout, so
    the CLI and the app's sweep page draw the same picture.
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
    fig = go.Figure()
    for method in _ordered_methods(stats["method"].unique()):
        s = stats[stats["method"] == method]
        color = method_color(method)
        x = s["ratio"].to_numpy(dtype=float)
        mean = s["mean"].to_numpy(dtype=float)
        std = np.nan_to_num(s["std"].to_numpy(dtype=float))
        if (s["count"] > 1).any():
            fig.add_trace(
                go.Scatter(
                    x=np.concatenate([x, x[::-1]]),
                    y=np.concatenate([mean + std, (mean - std)[::-1]]),
                    fill="toself",
                    fillcolor=_rgba(color, 0.18),
                    line=dict(width=0),
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=method,
                    name=f"{method_label(method)} ± std",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=mean,
                mode="lines+markers",
                line=dict(color=color, width=2.5),
                marker=dict(size=6),
                name=method_label(method),
                legendgroup=method,
                customdata=std,
                hovertemplate="ratio %{x:.2f}<br>mean %{y:.4g} ± %{customdata:.2g}"
                "<extra>" + method_label(method) + "</extra>",
            )
        )
    fig.update_layout(
        **_LAYOUT,
        title=title or METRIC_LABELS.get(metric, metric),
        xaxis_title="outlier ratio |O| / n",
        yaxis_title=METRIC_LABELS.get(metric, metric),
        hovermode="x unified",
    )
    return fig
