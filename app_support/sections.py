"""Sections of a page drawn with Streamlit, kept out of the page's script: the Your data
page's explanations of its flagged rows (why each is flagged, and one row in the views of its
columns most to blame) and its checks of the columns chosen (those that cannot be used, the
categorical ones another kernel or a method leaves out), each said in a notice. Part of the
Streamlit side of ``app_support`` (docs/architecture.md): what it draws comes from the
compute layer (:func:`app_support.scoring.explain_rows`, :mod:`app_support.blame_figures`,
:mod:`app_support.captions.blame`, :func:`app_support.prepare.categorical_problem`).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd
import streamlit as st

from momkde_core.io import text_in_numeric_columns
from momkde_core.methods import DEFAULT_DETECTOR, method_label

from .blame_figures import MAX_BARS, blame_bars, column_values, row_views, share_of
from .cache import column_problem, explain_flagged
from .captions.blame import bars_caption, bars_details, missing_row_note, row_caption
from .compute import Settings, relevant, row_sample
from .keys import YOUR_DATA as KEY
from .prepare import categorical_problem
from .scoring import (
    MAX_DRAWN,
    TYPICAL_ROWS,
    detector_h,
    numbers_only,
    rows_to_explain,
)
from .tables import ColumnRoles
from .widgets import show_warnings, url


def explain_flags(
    detection: dict,
    method: str,
    h: float,
    settings: Settings,
    X: np.ndarray,
    fit_rows: np.ndarray,
    key: str,
    columns: list,
) -> dict | None:
    """Why ``method`` flags its rows: the explanation of its lowest-scored flagged rows (at
    most :func:`~app_support.scoring.rows_to_explain`), with ``columns`` (the columns
    scored); None when it flags none, or when its fit cannot be explained (said in a note)."""
    cap = rows_to_explain(len(columns))
    rows = detection["order"][: min(int(detection["flagged"].sum()), cap)]
    n_typical = min(TYPICAL_ROWS, cap)
    if not len(rows):
        return None
    try:
        with st.spinner(f"Explaining {len(rows):,} flagged rows…"):
            explained = explain_flagged(
                key,
                method,
                detector_h(method, h),
                relevant(method, settings),
                X,
                fit_rows,
                rows,
                n_typical,
            )
    except ValueError as err:
        reason = (
            "explanations need the Gaussian kernel (a product of one factor per column, "
            "whose marginals the fitted blocks give): pick it in the sidebar's Kernel"
            if settings.kernel != "gaussian"
            else str(err)
        )
        st.info(f"Why {method_label(method)} flags its rows is not shown: {reason}.")
        return None
    show_warnings(explained["warnings"])
    return {**explained, "columns": columns, "method": method_label(method)}


def why_section(
    explained: dict,
    detection: dict,
    label: str,
    data: pd.DataFrame,
    names: pd.Index,
    standardised: bool,
) -> None:
    """Why these rows are flagged: a bar of contributions per flagged row, then one row
    (chosen by name, bound to the URL) in the marginal and pair views of its top columns."""
    st.subheader("Why these rows are flagged")
    rows, blame, columns = explained["rows"], explained["blame"], explained["columns"]
    st.plotly_chart(
        blame_bars(blame, explained["typical"], names[rows], columns, names.name),
        key="blame_bars",
        config={"displaylogo": False},
    )
    reach = np.isfinite(blame[:MAX_BARS]).all(axis=1)
    counts = dict(
        flagged=int(detection["flagged"].sum()),
        explained=len(rows),
        bars=min(len(rows), MAX_BARS),
        typical=explained["n_typical"],
        beyond=int((~reach).sum()),
    )
    st.caption(bars_caption(label, counts, len(columns), standardised))
    if details := bars_details(label, counts, len(columns), standardised):
        with st.expander("How the contributions are computed and read"):
            st.caption(details)
    # one row's views, closed unless a link names the row
    with st.expander(
        f"One flagged {names.name} in its columns", expanded=KEY.why in st.query_params
    ):
        flagged_row_views(explained, detection["flagged"], data, names)


@st.fragment
def flagged_row_views(
    explained: dict, flagged: np.ndarray, data: pd.DataFrame, names: pd.Index
) -> None:
    """One flagged row, chosen by name (bound to the URL), in the marginal and pair views of
    its top columns; a fragment: choosing another row redraws this part alone."""
    rows, blame, columns = explained["rows"], explained["blame"], explained["columns"]
    options = [str(name) for name in names[rows]]
    # a link's row is in the URL until the select box reads it (an unknown one is dropped)
    asked = str(st.session_state.get(KEY.why, st.query_params.get(KEY.why, options[0])))
    # what the row chosen belongs to: a row asked by a link (no context yet) or chosen in
    # this view and gone from the options (a smaller ε) is named in a notice; another file
    # or method opens on its first row silently
    context = (explained["method"], len(data), tuple(map(str, columns)))
    if asked not in options:
        if st.session_state.get(KEY.why_of) in (None, context):
            st.warning(missing_row_note(names.name, asked, options, len(data)))
        st.session_state[KEY.why] = options[0]
    st.session_state[KEY.why_of] = context
    chosen = st.selectbox(
        f"A flagged {names.name} to look at (from the most anomalous)", options, **url(KEY.why)
    )
    i = options.index(chosen)
    values = column_values(data, columns)
    row_name = f"{names.name} {chosen}"
    drawn = row_sample(len(data), MAX_DRAWN, 0)  # (the density figure's sample)
    fig, top = row_views(values, rows[i], blame[i], explained["typical"], flagged, drawn, row_name)
    st.plotly_chart(fig, key="row_views", config={"displaylogo": False})
    at = [columns.index(c) for c in top]
    st.caption(
        row_caption(
            row_name,
            top,
            [values.iat[rows[i], j] for j in at],
            [share_of(values.iloc[:, j], values.iat[rows[i], j]) for j in at],
            [blame[i, j] for j in at],
            len(drawn),
            len(data),
        )
    )


def problem_of(
    identity: str, column: Hashable, whole: pd.DataFrame, roles: ColumnRoles, drawn: bool
) -> str | None:
    """Why ``column`` cannot be drawn (``drawn``) or scored, or None: a categorical or
    date column is scored as such, never drawn (the figure draws densities of numbers)."""
    if column in roles.categorical or column in roles.dates:
        if drawn:
            kind = "categorical" if column in roles.categorical else "a column of dates"
            return f"{column!r} is {kind}: the figure draws numeric columns only"
        return categorical_problem(whole, column) if column in roles.categorical else None
    return column_problem(identity, column, whole)


def usable_columns(
    identity: str,
    whole: pd.DataFrame,
    roles: ColumnRoles,
    plot_cols: list,
    score_cols: list,
) -> tuple[list, list]:
    """The columns drawn and scored without those that cannot be used, checked on every row
    of the file ``whole``: each is named in an error and left out, and the page goes on with
    the others (it stops when none is left). A column of numbers with a few typos, not
    chosen, is named in a warning."""
    chosen = {"drawn": plot_cols, "scored": score_cols}
    # per use: a categorical or date column cannot be drawn, yet is scored
    found = {
        use: {
            c: problem
            for c in picked
            if (problem := problem_of(identity, c, whole, roles, use == "drawn")) is not None
        }
        for use, picked in chosen.items()
    }
    problems = {**found["scored"], **found["drawn"]}
    for column, problem in problems.items():
        uses = [use for use in chosen if column in found[use]]
        others = [c for use in uses for c in chosen[use] if c not in found[use]]
        named = problem if repr(str(column)) in problem else f"{column!r}: {problem}"
        st.error(
            f"Left out of the columns {' and '.join(uses)}: {named}."
            + (
                f" The page goes on with {', '.join(map(repr, dict.fromkeys(others)))}."
                if others
                else ""
            ),
            icon=":material/error:",
        )
    for column in text_in_numeric_columns(whole):
        if column not in problems:  # not chosen: a column of numbers with a few typos
            st.warning(
                f"{column_problem(identity, column, whole)}: fix the file, or drop that column; "
                "it is left out of the default choices.",
                icon=":material/warning:",
            )
    plot_cols = [c for c in plot_cols if c not in found["drawn"]]
    score_cols = [c for c in score_cols if c not in found["scored"]]
    if not plot_cols and not score_cols:
        st.info("Choose at least one column to draw or to score.")
        st.stop()
    if not plot_cols:
        st.info("No column to draw: choose 1 or 2 numeric columns to see the densities.")
    if not score_cols:
        st.info("No column to score: choose columns to score to flag and rank rows.")
    return plot_cols, score_cols


def mixed_choices(
    score_cols: list, roles: ColumnRoles, kernel: str, methods: list[str]
) -> tuple[list, list[str]]:
    """The columns scored and the methods run once categorical columns are among them: the
    mixed estimators need the Gaussian kernel (another leaves the categorical columns out,
    said in a notice), and RKDE and SPKDE read numbers only (not run, said in a notice)."""
    categorical = [c for c in score_cols if c in roles.categorical]
    if not categorical:
        return score_cols, methods
    names = ", ".join(map(repr, map(str, categorical)))
    if kernel != "gaussian":
        kept = [c for c in score_cols if c not in categorical]
        st.info(
            f"Categorical columns ({names}) need the Gaussian kernel (a mixed table's kernel "
            f"is a Gaussian over the numbers times a kernel over the levels): with the "
            f"{kernel} kernel they are left out of the scores"
            + (", and no column is left to score." if not kept else ".")
            + " Pick the Gaussian kernel in the sidebar to score them.",
            icon=":material/info:",
        )
        return kept, methods
    refused = numbers_only(methods)
    if refused:
        kept = [m for m in methods if m not in refused]
        st.info(
            f"{' and '.join(map(method_label, refused))} read numeric columns only: not run "
            f"on this table, whose scored columns {names} are categorical"
            + (" (no other method chosen: the default detector is run)." if not kept else "."),
            icon=":material/info:",
        )
        methods = kept or [DEFAULT_DETECTOR]
    return score_cols, methods
