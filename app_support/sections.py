"""Sections of a page drawn with Streamlit, kept out of the page's script: the Your data
page's explanations of its flagged rows (why each is flagged, and one row in the views of its
columns most to blame). Beside :mod:`app_support.cache` and :mod:`app_support.widgets`, the
only module of ``app_support`` that imports Streamlit: what it draws comes from the compute
layer (:func:`app_support.scoring.explain_rows`, :mod:`app_support.blame_figures`,
:mod:`app_support.captions.blame`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from momkde_core.methods import method_label

from .blame_figures import MAX_BARS, blame_bars, column_values, row_views, share_of
from .cache import explain_flagged
from .captions.blame import bars_caption, bars_details, missing_row_note, row_caption
from .compute import Settings, relevant, row_sample
from .keys import YOUR_DATA as KEY
from .scoring import MAX_DRAWN, TYPICAL_ROWS, detector_h, rows_to_explain
from .widgets import show_warnings, url


def explain_flags(
    detection: dict,
    method: str,
    h: float,
    settings: Settings,
    X: np.ndarray,
    fit_rows: np.ndarray,
    data_key: tuple,
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
                data_key,
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
