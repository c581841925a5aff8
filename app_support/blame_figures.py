"""The Your data page's figures of why rows are flagged: one bar of contributions per flagged
row, and where one chosen row sits in the marginal and pair views of the columns most to blame.
Without Streamlit.

The contributions are :meth:`~momkde_core.OutlierDetector.explain`'s: each column's share of a
row's abnormality, minus its score (-log f(x); for the default detector, minus the mean of
its blocks' log densities), in nats, summing to it. The views show the file's own values.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from momkde_core.plots import FLAG_COLOR

#: Flagged rows drawn as bars at most (the lowest-scored; the ranking names the rest's culprits).
MAX_BARS = 20
#: Columns with a colour of their own in the bars at most (those with the largest total
#: contribution over the rows drawn); the others are summed in one grey segment.
MAX_COLOURED = 8
#: Columns listed in a chosen row's own bar chart at most (the largest contributions).
MAX_ROW_BARS = 12
#: The colours of the columns' segments, then the grey of the others.
COLUMN_COLOURS = qualitative.Plotly
OTHERS_COLOUR = "rgb(190,190,190)"
#: The bins of a top column's histogram (counted over every row, not sent row by row).
HISTOGRAM_BINS = 60
#: Levels drawn in a categorical column's view at most (the most common; the row's always).
MAX_LEVEL_BARS = 30
#: A missing value's level, as the views name it.
MISSING_LEVEL = "(missing)"
#: The chosen row's marker in its views.
ROW_COLOUR = "#D62728"
#: The typical row's label (its contributions: the median over rows of each column's).
TYPICAL = "typical row"
#: What the bars' axis counts.
NATS_AXIS = "contribution to the row's abnormality (nats)"


def blame_bars(
    blame: np.ndarray,
    typical: np.ndarray,
    names: Sequence[Hashable],
    columns: Sequence[Hashable],
    row_label: str,
) -> go.Figure:
    """One horizontal bar per explained row, most anomalous at the top, under a typical
    row's: its columns' contributions end to end (positive to the right, negative to the
    left), a colour per column, and a black tick at their sum, the row's abnormality.

    Parameters
    ----------
    blame : ndarray of shape (m, d)
        The rows' contributions (nats), most anomalous first; at most :data:`MAX_BARS` drawn.
    typical : ndarray of shape (d,)
        A typical row's contributions (the first bar, "typical row").
    names : sequence of hashable
        The rows' names (the file's data row or id), in the same order.
    columns : sequence of hashable
        The columns' names.
    row_label : str
        What a row's name is ("row", or the id column's name): the bars' labels.

    Returns
    -------
    fig : plotly.graph_objects.Figure

    Examples
    --------
    >>> import numpy as np
    >>> blame, typical = np.array([[5.0, 0.5], [-0.2, 3.0]]), np.array([0.4, 0.6])
    >>> fig = blame_bars(blame, typical, [7, 2], ["a", "b"], "row")
    >>> [trace.name for trace in fig.data]
    ['a', 'b', 'abnormality (the sum)']
    >>> list(fig.data[0].y)
    ['typical row', 'row 7', 'row 2']
    """
    shown = np.vstack([typical, blame[:MAX_BARS]])
    labels = [TYPICAL, *(f"{row_label} {name}" for name in list(names)[:MAX_BARS])]
    reach = np.isfinite(shown).all(axis=1)  # (a row beyond every kernel's reach: +inf, NaN)
    drawn = np.where(reach[:, None], shown, 0.0)
    weight = np.abs(drawn[1:]).sum(axis=0)
    order = np.argsort(-weight, kind="stable")
    coloured, others = order[:MAX_COLOURED], order[MAX_COLOURED:]
    fig = go.Figure()
    for i, j in enumerate(coloured):
        _add_segments(fig, drawn[:, j], labels, str(columns[j]), COLUMN_COLOURS[i % 10])
    if len(others):
        _add_segments(
            fig,
            drawn[:, others].sum(axis=1),
            labels,
            f"the other {len(others)} columns",
            OTHERS_COLOUR,
        )
    fig.add_trace(
        go.Scatter(
            x=np.where(reach, drawn.sum(axis=1), np.nan),
            y=labels,
            mode="markers",
            name="abnormality (the sum)",
            marker=dict(symbol="line-ns", size=16, line=dict(width=3, color="black")),
            hovertemplate="%{y}: abnormality %{x:.2f} nats<extra></extra>",
        )
    )
    if not reach.all():
        out = [
            "density 0: beyond every kernel's reach in "
            + ", ".join(str(columns[j]) for j in np.flatnonzero(np.isposinf(row)))
            for row in shown[~reach]
        ]
        fig.add_trace(
            go.Scatter(
                x=np.zeros(len(out)),
                y=np.array(labels)[~reach],
                mode="text",
                text=out,
                textposition="middle right",
                showlegend=False,
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        barmode="relative",
        height=120 + 18 * len(labels),  # 21 bars: about 500 px, a projector's screen
        margin=dict(l=10, r=10, t=30, b=10),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, title_text=""),
        plot_bgcolor="white",
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(
        title_text=NATS_AXIS, zeroline=True, zerolinecolor="black", gridcolor="rgb(230,230,230)"
    )
    return fig


def _add_segments(fig: go.Figure, x: np.ndarray, labels: list[str], name: str, colour: str):
    """One column's segments of the bars (one per row)."""
    fig.add_trace(
        go.Bar(
            x=x,
            y=labels,
            orientation="h",
            name=name,
            marker_color=colour,
            hovertemplate=f"%{{y}}: {name} %{{x:+.2f}} nats<extra></extra>",
        )
    )


def row_views(
    values: pd.DataFrame,
    row: int,
    blame_row: np.ndarray,
    typical: np.ndarray,
    flagged: np.ndarray,
    drawn: np.ndarray,
    row_name: str,
) -> tuple[go.Figure, list[Hashable]]:
    """A chosen row's contributions beside where it sits among the other rows, in the
    columns most to blame: the pair view (its two top columns, every drawn row a dot, the
    flagged ones ringed, the row a red star; two numeric columns only) and each top column's
    histogram with the row's value marked (a categorical column: its levels' rows as bars,
    the row's level in red).

    Parameters
    ----------
    values : pandas.DataFrame
        Every scored row in the scored columns, in the file's units.
    row : int
        The chosen row's position in ``values``.
    blame_row : ndarray of shape (d,)
        Its contributions (nats).
    typical : ndarray of shape (d,)
        A typical row's contributions (grey ticks beside the row's bars).
    flagged : ndarray of bool
        Every row's flag (ringed in the pair view).
    drawn : ndarray of int
        The rows drawn as dots (a sample of a large file).
    row_name : str
        The row's name as the page writes it ("row 17").

    Returns
    -------
    fig : plotly.graph_objects.Figure
        Contributions and the pair view on top, the histograms below (one column scored:
        its contribution and its histogram).
    top : list
        The columns shown, most to blame first.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> values = pd.DataFrame({"a": [0.0, 1.0, 9.0], "b": [1.0, 0.0, 1.0], "c": [2.0, 2, 2]})
    >>> blame, typical = np.array([6.0, 0.1, 0.0]), np.array([0.2, 0.2, 0.2])
    >>> flagged = np.array([0, 0, 1], bool)
    >>> fig, top = row_views(values, 2, blame, typical, flagged, np.arange(3), "row 3")
    >>> top
    ['a', 'b']
    """
    columns = list(values.columns)
    finite = np.nan_to_num(blame_row, nan=-np.inf)
    ranked = np.argsort(-finite, kind="stable")
    top = [columns[j] for j in ranked[: min(2, len(columns))]]
    categorical = [c for c in top if not pd.api.types.is_numeric_dtype(values[c])]
    pair = len(top) == 2 and not categorical  # (a pair view of two numeric columns only)
    fig = make_subplots(
        rows=2,
        cols=len(top),
        row_heights=[0.58, 0.42],
        horizontal_spacing=0.12,
        vertical_spacing=0.16,
        # short titles: two side by side fit half a projector's column (the row is named
        # in the legend and the caption)
        subplot_titles=[
            "contributions (nats)",
            *(["the two columns together"] if pair else [""] if len(top) == 2 else []),
            *[f"{column}: every row" for column in top],
        ],
    )
    listed = ranked[:MAX_ROW_BARS][::-1]
    fig.add_trace(
        go.Bar(
            x=np.where(np.isfinite(blame_row[listed]), blame_row[listed], np.nan),
            y=[str(columns[j]) for j in listed],
            orientation="h",
            marker_color=[ROW_COLOUR if v > 0 else "rgb(120,150,200)" for v in blame_row[listed]],
            showlegend=False,
            hovertemplate="%{y}: %{x:+.2f} nats<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=typical[listed],
            y=[str(columns[j]) for j in listed],
            mode="markers",
            name=f"{TYPICAL}'s contribution",
            marker=dict(symbol="line-ns", size=18, line=dict(width=3, color="black")),
            hovertemplate=f"%{{y}}: {TYPICAL} %{{x:+.2f}} nats<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.update_xaxes(title_text="nats", zeroline=True, zerolinecolor="black", row=1, col=1)
    if pair:
        x = values[top].to_numpy(dtype=float)
        _pair_view(fig, x, 0, 1, row, flagged, drawn, row_name, (str(top[0]), str(top[1])))
    for k, column in enumerate(top):
        position = dict(row=2, col=k + 1)
        if column in categorical:
            _level_bars(fig, values[column], values[column].iat[row], position)
            continue
        xj = values[column].to_numpy(dtype=float)
        kept = xj[~np.isnan(xj)]
        counts, edges = np.histogram(kept, bins=HISTOGRAM_BINS)  # (every row, binned here)
        fig.add_trace(
            go.Bar(
                x=(edges[:-1] + edges[1:]) / 2,
                y=counts,
                width=np.diff(edges),
                marker_color="rgb(170,175,185)",
                showlegend=False,
                hovertemplate=f"{column} %{{x:.4g}}: %{{y}} rows<extra></extra>",
            ),
            **position,
        )
        if np.isfinite(xj[row]):
            fig.add_vline(x=xj[row], line=dict(color=ROW_COLOUR, width=3), **position)
        fig.update_xaxes(title_text=str(column), **position)
        fig.update_yaxes(title_text="rows", **position)
    fig.update_layout(
        height=680,
        margin=dict(l=10, r=10, t=40, b=60),
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="top", y=-0.1, x=0),
        bargap=0.05,
    )
    return fig, top


def _level_bars(fig: go.Figure, column: pd.Series, level, position: dict) -> None:
    """A categorical column's view: a bar per level, its rows (every row, the most common
    first, at most :data:`MAX_LEVEL_BARS` levels), the row's level in red."""
    counts = column.astype(object).fillna(MISSING_LEVEL).value_counts()
    shown = counts.iloc[:MAX_LEVEL_BARS]
    level = MISSING_LEVEL if pd.isna(level) else level
    if level not in shown.index and level in counts.index:  # the row's level always drawn
        shown = pd.concat([shown.iloc[: MAX_LEVEL_BARS - 1], counts.loc[[level]]])
    fig.add_trace(
        go.Bar(
            x=[str(v) for v in shown.index],
            y=shown.to_numpy(),
            marker_color=[ROW_COLOUR if v == level else "rgb(170,175,185)" for v in shown.index],
            showlegend=False,
            hovertemplate=f"{column.name} %{{x}}: %{{y}} rows<extra></extra>",
        ),
        **position,
    )
    fig.update_xaxes(title_text=f"{column.name} (levels)", type="category", **position)
    fig.update_yaxes(title_text="rows", **position)


def column_values(data: pd.DataFrame, columns: list[Hashable]) -> pd.DataFrame:
    """The ``columns`` of ``data`` as the row views draw them: numeric ones as floats, the
    others (categorical) as they are.

    Examples
    --------
    >>> table = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    >>> column_values(table, ["a", "b"]).dtypes.astype(str).tolist()
    ['float64', 'object']
    """
    return pd.DataFrame(
        {
            c: data[c].astype(float)
            if pd.api.types.is_numeric_dtype(data[c]) and not pd.api.types.is_bool_dtype(data[c])
            else data[c].astype(object)
            for c in columns
        },
        index=data.index,
    )


def share_of(values: pd.Series, value) -> float:
    """Where ``value`` sits among ``values``: for numbers, the share at or below it
    (:func:`share_below`); for a categorical column, the share of rows at its level (a
    missing value a level of its own).

    Examples
    --------
    >>> share_of(pd.Series(["a", "b", "a", None], dtype=object), "a")
    0.5
    >>> share_of(pd.Series([1.0, 2.0]), 1.0)
    0.5
    """
    if pd.api.types.is_numeric_dtype(values):
        return share_below(values.to_numpy(dtype=float), float(value))
    filled = values.astype(object).fillna(MISSING_LEVEL)
    return float(np.mean(filled == (MISSING_LEVEL if pd.isna(value) else value)))


def _pair_view(
    fig: go.Figure,
    x: np.ndarray,
    a: int,
    b: int,
    row: int,
    flagged: np.ndarray,
    drawn: np.ndarray,
    row_name: str,
    titles: tuple[str, str],
) -> None:
    """The pair view's dots (the drawn rows), rings (the flagged ones among them) and star
    (the chosen row), in the top-right panel."""
    position = dict(row=1, col=2)
    common = dict(x=x[drawn, a], y=x[drawn, b], mode="markers", hoverinfo="skip")
    fig.add_trace(
        go.Scatter(**common, name="rows", marker=dict(size=4, color="rgb(170,175,185)")),
        **position,
    )
    ringed = drawn[flagged[drawn]]
    fig.add_trace(
        go.Scatter(
            x=x[ringed, a],
            y=x[ringed, b],
            mode="markers",
            name="flagged rows",
            hoverinfo="skip",
            marker=dict(size=8, symbol="circle-open", color=FLAG_COLOR, line=dict(width=1.5)),
        ),
        **position,
    )
    fig.add_trace(
        go.Scatter(
            x=[x[row, a]],
            y=[x[row, b]],
            mode="markers",
            name=row_name,
            marker=dict(
                size=16, symbol="star", color=ROW_COLOUR, line=dict(width=1, color="white")
            ),
            hovertemplate=f"{row_name}: {titles[0]} %{{x}}, {titles[1]} %{{y}}<extra></extra>",
        ),
        **position,
    )
    fig.update_xaxes(title_text=titles[0], **position)
    fig.update_yaxes(title_text=titles[1], **position)


def share_below(values: np.ndarray, value: float) -> float:
    """The share of ``values`` (NaN left out) at or below ``value``.

    Examples
    --------
    >>> share_below(np.array([1.0, 2.0, 3.0, np.nan]), 2.0)
    0.6666666666666666
    """
    kept = values[~np.isnan(values)]
    return float(np.mean(kept <= value)) if len(kept) else float("nan")
