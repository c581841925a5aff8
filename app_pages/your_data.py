"""Your data: upload a CSV (or try a bundled sample), see where KDE grows bumps that MoM-KDE
does not, rank the most anomalous rows by every method, download the scores."""

from __future__ import annotations

import hashlib

from pathlib import Path

import numpy as np
import streamlit as st

from app_support.compute import (
    fit_all,
    metric_table,
    plot_grid,
    read_csv_bytes,
    relevant,
    row_sample,
    score_rows,
    select_bandwidth,
    standardized,
)
from app_support.widgets import (
    estimator_controls,
    methods_select,
    url,
    user_errors,
)
from momkde_core.datasets import numeric_matrix, text_in_numeric_columns
from momkde_core.plots import METHOD_LABELS, density_1d_figure, density_2d_figure

ASSETS = Path(__file__).resolve().parent.parent / "assets"
MAX_BYTES = 200 * 2**20  # the upload limit of .streamlit/config.toml
LABEL_NAMES = {"label", "labels", "class", "target", "y", "outlier", "is_outlier", "anomaly",
               "is_anomaly", "fraud", "is_fraud", "status"}
MAX_ROWS = 20_000  # rows scored; larger files are sampled, with a notice
MAX_FIT = 2_000  # rows the estimators are fitted on (RKDE and SPKDE learn in O(n^2))
UPLOAD = "(upload a file)"

st.title("Your data")
st.markdown("Upload a CSV with a header line, or pick a sample. Choose 1 or 2 columns to draw, any numeric "
            "columns to score; a label column, if you have one, gives each method's AUC.")

side = st.sidebar
samples = sorted(p.name for p in ASSETS.glob("*.csv"))


def reset_columns_on_new_file(identity: str, defaults: dict[str, object]) -> None:
    """When the file changes, set the column widgets to the new file's defaults.

    Setting their session state (not just dropping it) is what makes the browser show the new
    choices: a dropped key left the old file's columns on screen while the script used the
    new defaults. The first file of a session keeps what its URL says (a shared link).
    """
    if st.session_state.get("_columns_of") not in (None, identity):
        st.session_state.pop("outlier", None)
        st.session_state.update(defaults)
    st.session_state["_columns_of"] = identity


def default_unless_set(key: str, **kwargs) -> dict[str, object]:
    """``kwargs`` (a widget's default) unless its session state already holds the value:
    Streamlit warns when a widget gets both."""
    return {} if key in st.session_state else kwargs


source = side.selectbox("Data", [UPLOAD, *samples], **url("sample"))
raw = None
if source == UPLOAD:
    upload = side.file_uploader("CSV file (up to 200 MB)", key="upload")
    raw = upload.getvalue() if upload is not None else None
else:
    raw = (ASSETS / source).read_bytes()

if raw is None:
    st.info("Upload a CSV in the sidebar, or choose one of the samples to start.")
    st.stop()

with user_errors():
    frame = read_csv_bytes(raw, MAX_BYTES)
    keep = row_sample(len(frame), MAX_ROWS, 0)
    if len(keep) < len(frame):
        st.warning(f"The file has {len(frame):,} rows: a random sample of {MAX_ROWS:,} of them is used "
                   "to keep the page responsive.")
        frame = frame.iloc[keep]
    columns = list(frame.columns)
    numeric = list(frame.select_dtypes("number").columns)
    for column in text_in_numeric_columns(frame):
        try:
            numeric_matrix(frame, [column])
        except ValueError as err:
            st.warning(f"{err}: fix the file, or drop that column; it is left out of the "
                       "default choices.", icon=":material/warning:")
    # defaults a new user would pick: a column named like a label is the label, not a feature,
    # and the column drawn first is the one with the most distinct values (not a count, an
    # hour or a flag, whose ties make the CV bandwidth collapse)
    label_guess = next((c for c in columns if str(c).strip().lower() in LABEL_NAMES), None)
    features = [c for c in numeric if c != label_guess]
    spread = sorted(features, key=lambda c: -frame[c].nunique())
    identity = source if source != UPLOAD else hashlib.sha256(raw).hexdigest()
    reset_columns_on_new_file(identity, {"plot": spread[:1], "score": features, "label": label_guess})
    plot_cols = side.multiselect("Columns to draw (1 or 2)", columns, max_selections=2, **url("plot"),
                                 **default_unless_set("plot", default=spread[:1]))
    score_cols = side.multiselect("Columns to score", columns, **url("score"),
                                  **default_unless_set("score", default=features))
    label_col = side.selectbox("Label column (optional)", [None, *columns], **url("label"),
                               **default_unless_set("label", index=[None, *columns].index(label_guess)),
                               format_func=lambda c: "none" if c is None else str(c))
    drop_missing = side.toggle("Drop rows with missing values", value=True, **url("dropna"))
    scale = side.toggle("Standardise columns", value=True, **url("std"),
                        help="Centre and scale every column so that one bandwidth suits all of them.")
    side.header("Estimators")
    methods = methods_select(side)

    if not plot_cols or not score_cols:
        st.info("Choose at least one column to draw and one to score.")
        st.stop()
    used = list(dict.fromkeys([*plot_cols, *score_cols]))
    _, kept = numeric_matrix(frame, used, drop_missing=True) if drop_missing else (None, frame.index)
    data = frame.loc[kept]
    if len(data) < len(frame):
        st.caption(f"{len(frame) - len(data):,} row(s) with missing values dropped.")
    is_outlier = None
    if label_col is not None:
        counts = data[label_col].dropna().astype(str).value_counts()
        values = sorted(counts.index)
        rarest = values.index(counts.idxmin())  # outliers are the minority, by default
        outlier_value = side.selectbox("Label of the outliers", values, index=rarest, **url("outlier"))
        is_outlier = (data[label_col].astype(str) == outlier_value).to_numpy()
    X_plot = numeric_matrix(data, plot_cols)
    X_score = numeric_matrix(data, score_cols)
    if scale:
        X_plot, X_score = standardized(X_plot), standardized(X_score)
    settings = estimator_controls(side, min(len(data), MAX_FIT),
                                  int(is_outlier.sum()) if is_outlier is not None else None, default_blocks=15)
    fit_rows = row_sample(len(data), MAX_FIT, settings.seed)
    if len(fit_rows) < len(data):
        st.caption(f"The estimators are fitted on {MAX_FIT:,} random rows and score all {len(data):,}.")

    st.subheader("Where the density grows bumps")
    h = select_bandwidth(X_plot[fit_rows], settings.bandwidth, settings.kernel, settings.seed)
    grid = plot_grid(X_plot, h)
    results, failures = fit_all(methods, X_plot[fit_rows], grid.axes, h, settings)
    for method, message in failures.items():
        st.warning(f"{METHOD_LABELS[method]} is not shown: {message}")
    curves = {m: r["grid"] for m, r in results.items()}
    if X_plot.shape[1] == 1:
        fig = density_1d_figure(grid.axes[0], curves, X_plot[:, 0], is_outlier)
        fig.update_xaxes(title_text=str(plot_cols[0]) + (" (standardised)" if scale else ""))
    else:
        fig = density_2d_figure(*grid.axes, curves, X_plot, is_outlier, axis_titles=tuple(map(str, plot_cols)))
    st.plotly_chart(fig, key="data_figure", config={"displaylogo": False})
    st.caption(f"h = {h:.3g}. Where the KDE (orange) rises over a small group of points and MoM-KDE (pink) "
               "stays low, the group is in too few blocks to move the median: a likely cluster of outliers.")

    st.subheader("Most anomalous rows")
    h_score = select_bandwidth(X_score[fit_rows], settings.bandwidth, settings.kernel, settings.seed)
    scores = {}
    for method in methods:
        try:
            scores[method] = score_rows(method, X_score[fit_rows], X_score, h_score, relevant(method, settings))
        except ValueError as err:
            st.warning(f"{METHOD_LABELS[method]} gives no scores: {err}")
    scored = data.copy()
    for method, s in scores.items():
        scored[f"log_density_{method}"] = s
    if is_outlier is not None:
        aucs = metric_table({m: {"scores": s} for m, s in scores.items()}, None, 1.0, is_outlier)
        aucs.index = [METHOD_LABELS[m] for m in aucs.index]
        st.table(aucs.T.style.format("{:.3f}", na_rep="—"))
        st.caption("AUC of the density as an outlier score against your label (1: every outlier scored "
                   "lower than every inlier, 0.5: chance).")
    top = st.slider("Rows per method", 5, 50, 10, 5, **url("top"))
    tabs = st.tabs([METHOD_LABELS[m] for m in scores])
    for tab, (method, s) in zip(tabs, scores.items()):
        with tab:
            st.dataframe(scored.iloc[np.argsort(s, kind="stable")[:top]])
    st.caption(f"The {top} rows of lowest log density (in {len(score_cols)} column(s), h = {h_score:.3g}) "
               "for each method: the most anomalous first.")
    st.download_button("Download the data with every method's score (CSV)", scored.to_csv(index=False),
                       file_name="momkde_scores.csv", mime="text/csv", key="download")
