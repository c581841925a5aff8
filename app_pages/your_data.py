"""Your data: upload a CSV (or try a bundled sample), see where the KDE grows bumps that
MoM-KDE does not, flag the stated share ε of rows as outliers with every method (in the
figure, the tables and the download), rank the most anomalous rows, download the scores.

Every row of the file is scored (up to :data:`~app_support.scoring.MAX_SCORED_ROWS`; a larger
file is scored on a sample, with the ``momkde score`` command that scores all of it); the
estimators are fitted on a sample of at most :data:`~app_support.scoring.MAX_FIT` rows and the
figure draws at most :data:`~app_support.scoring.MAX_DRAWN`, which its caption says; the 2-D
maps circle at most :data:`~app_support.scoring.MAX_CIRCLED` flagged rows, the lowest-scored
(the ranking lists the rest). Tables, the download and the messages name rows by the file's
data row (1 = the first line below the header) or its id. Rows are ranked on one scale for
every method, their percentile among the fitted rows; the download keeps each method's score.

Defaults are the library's robust ones (S auto and the robust h for the stated share ε) and
the columns a new user would pick (no id column, no category, a label only when a column is
named like one and holds few classes). A column chosen that cannot be used is named in an
error and left out; the page goes on with the others. Every caption is computed from what
the figure shows.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from app_support.cache import (
    column_problem,
    fit_all,
    read_csv_bytes,
    roles_of,
    score_every_row,
    scored_csv,
    select_bandwidth,
)
from app_support.captions import auc_verdict, flag_columns_note, reasons, screened_note
from app_support.compute import (
    DEFAULT_METHODS,
    metric_table,
    own_bandwidth,
    plot_grid,
    relevant,
    require_fitted,
    row_sample,
    standardized,
)
from app_support.figures import RING_COLOR, circle_rows, visible_legend_dots
from app_support.keys import YOUR_DATA as KEY
from app_support.scoring import (
    MAX_CIRCLED,
    MAX_DRAWN,
    MAX_FIT,
    MAX_SCORED_ROWS,
    blocks_note,
    figure_sample_note,
    flag_share_note,
    missing_notes,
    pointer_to_cli,
    row_key,
    score_command,
    scored_table,
    size_text,
)
from app_support.tables import (
    MAX_CATEGORY_VALUES,
    MAX_DEFAULT_FEATURES,
    MAX_LABEL_VALUES,
    label_values,
)
from app_support.widgets import (
    estimator_controls,
    methods_select,
    show_warnings,
    unless_held,
    upload_limit_bytes,
    url,
    user_errors,
)
from momkde_core.io import numeric_matrix, text_in_numeric_columns
from momkde_core.methods import method_label
from momkde_core.plots import density_1d_figure, density_2d_figure

ASSETS = Path(__file__).resolve().parent.parent / "assets"
UPLOAD = "(upload a file)"
#: What each bundled sample shows, in a few words (named under the picker), and what it
#: teaches (shown with it); assets/make_samples.py makes them.
SAMPLE_LESSONS = {
    "sensor_glitches.csv": (
        "where MoM-KDE wins",
        "A sensor stuck at one value for 60 readings makes a tight cluster: the KDE grows a "
        "hill on it and ranks it as normal, while the cluster sits in too few blocks to move "
        "MoM-KDE's median, which ranks every glitch first.",
    ),
    "spike_on_a_mode.csv": (
        "where every density method fails",
        "The outliers are a spike on top of an inlier mode (the paper's adversarial scheme): "
        "they sit where the inliers are densest, so any density, robust or not, scores them "
        "as the most normal points (every AUC below 0.5).",
    ),
    "card_transactions.csv": (
        "a real-looking table",
        "An id, a timestamp and text columns are left out of the scores, the label is found "
        "by its name; card-testing bursts and large night purchases are the fraud, and the "
        "densities rank them first.",
    ),
}
#: The background of a flagged row in the tables: the light tone of the maps' flag rings.
FLAGGED_ROW = f"background-color: {RING_COLOR}"
#: Unflagged rows listed after a method's flagged ones: the ranking just above its threshold.
ROWS_PAST_THRESHOLD = 5
#: Rows listed per method at most (a shaded table is sent cell by cell; the download has all).
MAX_LISTED = 500

st.title("Your data")
st.markdown(
    "Upload a CSV with a header line, or pick a sample. Choose 1 or 2 columns to draw, any numeric "
    "columns to score; a label column, if you have one, gives each method's AUC."
)

side = st.sidebar
samples = [name for name in SAMPLE_LESSONS if (ASSETS / name).exists()]


def reset_on_new_file(identity: str, defaults: dict[str, object]) -> None:
    """When the file changes, set the per-file widgets to the new file's defaults.

    Setting their session state (not just dropping it) is what makes the browser show the new
    choices: a dropped key left the old file's values on screen (the columns, and the label of
    the outliers) while the script used the new defaults. The first file of a session keeps
    what its URL says (a shared link).
    """
    if st.session_state.get(KEY.file) not in (None, identity):
        st.session_state.update(defaults)
    st.session_state[KEY.file] = identity


def highlight_flagged(rows: pd.DataFrame) -> Styler:
    """``rows`` (with a boolean column ``flagged`` and a column ``percentile``) with the
    flagged rows shaded, so the threshold shows where it cuts the ranking. A Styler replaces
    every cell by its text, so floats are written with 6 significant digits (pandas' default
    would pad them to 6 decimals), the percentiles with 3."""
    floats = [c for c in rows.columns if pd.api.types.is_float_dtype(rows[c])]
    return (
        rows.style.apply(lambda row: [FLAGGED_ROW if row["flagged"] else ""] * len(row), axis=1)
        .format("{:.6g}", subset=floats, na_rep="")
        .format("{:.3g}", subset=["percentile"])
    )


def file_identity(upload, raw: bytes) -> str:
    """The uploaded file's SHA-256, computed once per upload (a rerun would hash the whole
    file again, which takes long on the largest uploads)."""
    known = st.session_state.get(KEY.identity)
    if known is not None and known[0] == upload.file_id:
        return known[1]
    digest = hashlib.sha256(raw).hexdigest()
    st.session_state[KEY.identity] = (upload.file_id, digest)
    return digest


limit = upload_limit_bytes()
source = side.selectbox("Data", [UPLOAD, *samples], **url(KEY.sample))
if source == UPLOAD and samples:
    side.caption(
        "Or pick a sample above: "
        + "; ".join(f"**{name}**, {SAMPLE_LESSONS[name][0]}" for name in samples)
        + "."
    )
if source == UPLOAD:
    upload = side.file_uploader(f"CSV file (up to {size_text(limit)})", key=KEY.upload)
    side.caption(
        "A larger file: `momkde score FILE --out scored.csv` on the command line scores every "
        "row of a file of any size, read in chunks."
    )
    raw = upload.getvalue() if upload is not None else None
    file_name = upload.name if upload is not None else ""
else:
    raw = (ASSETS / source).read_bytes()
    file_name = source
    shows, lesson = SAMPLE_LESSONS[source]
    st.info(f"**{shows[:1].upper()}{shows[1:]}.** {lesson}", icon=":material/lightbulb:")

if raw is None:
    if set(st.query_params) & set(KEY.per_file):
        st.info(
            "This link was made with an uploaded file. Files are not part of links (they stay on the "
            "computer that uploaded them): upload the same file and the link's columns and settings apply.",
            icon=":material/link:",
        )
    st.info(
        "Upload a CSV in the sidebar, or pick one of the samples named there (in the Data list) "
        "to start."
    )
    st.stop()
if len(raw) > limit:  # Streamlit's uploader refuses these; a changed limit may let one through
    st.error(
        f"The file has {size_text(len(raw))}, over this page's limit of {size_text(limit)}. "
        + pointer_to_cli(shlex.join(["momkde", "score", file_name, "--out", "scored.csv"])),
        icon=":material/error:",
    )
    st.stop()

with user_errors():
    identity = source if source != UPLOAD else file_identity(upload, raw)
    frame = read_csv_bytes(identity, raw, limit)
    if frame.attrs.get("encoding") not in (None, "utf-8") or frame.attrs.get("decimal") == ",":
        st.caption(
            f"Read as {frame.attrs['encoding']} text, separator {frame.attrs['separator']!r}, "
            f"decimal {frame.attrs['decimal']!r}."
        )
    n_file = len(frame)
    roles = roles_of(identity, frame)  # on every row (an id fills its range only there)
    key_col = row_key(frame, roles.ids)
    too_many = st.empty()  # the notice of a file over the page's limit, with its command
    whole = frame  # the columns are checked on every row: messages name the file's rows
    if n_file > MAX_SCORED_ROWS:
        # the rows keep their index: data row = index + 1, in the tables and the download
        frame = frame.iloc[row_sample(n_file, MAX_SCORED_ROWS, 0)]
    columns = list(frame.columns)
    reset_on_new_file(
        identity,
        {KEY.plot: list(roles.draw), KEY.score: list(roles.features), KEY.label: roles.label},
    )
    plot_cols = side.multiselect(
        "Columns to draw (1 or 2)",
        columns,
        max_selections=2,
        **url(KEY.plot),
        **unless_held(KEY.plot, default=list(roles.draw)),
    )
    score_cols = side.multiselect(
        "Columns to score",
        columns,
        **url(KEY.score),
        **unless_held(KEY.score, default=list(roles.features)),
    )
    label_col = side.selectbox(
        "Label column (optional)",
        [None, *columns],
        **url(KEY.label),
        **unless_held(KEY.label, index=[None, *columns].index(roles.label)),
        format_func=lambda c: "none" if c is None else str(c),
    )
    categories = dict(roles.categorical)
    left_out = [
        *(f"{c} (an id)" for c in roles.ids),
        *(f"{c} ({k} values)" for c, k in categories.items()),
        *(
            str(c)
            for c in columns
            if c not in roles.features
            and c not in roles.ids
            and c not in categories
            and c != roles.label
        ),
    ]
    if left_out:
        side.caption(
            "Not scored by default: "
            + ", ".join(left_out)
            + (
                f" (the first {MAX_DEFAULT_FEATURES} numeric columns are)"
                if roles.truncated
                else ""
            )
            + "."
            + (
                f" A numeric column with at most {MAX_CATEGORY_VALUES} distinct values, each "
                "repeated, is taken as a category (a year, a count, a code): its density is a "
                "comb of spikes, which ranks rows by how common their value is, not by how far "
                "out they lie. Choose it under Columns to score to score it anyway."
                if categories
                else ""
            )
        )
    drop_missing = side.toggle("Drop rows with missing values", value=True, **url(KEY.drop_missing))
    scale = side.toggle(
        "Standardise columns",
        value=True,
        **url(KEY.standardise),
        help="Centre and scale every column so that one bandwidth suits all of them.",
    )
    side.header("Estimators")
    methods = methods_select(side) or list(DEFAULT_METHODS)  # none chosen: the paper's four

    # a column that cannot be used is named and left out; the page goes on with the others
    problems = {
        c: problem
        for c in dict.fromkeys([*plot_cols, *score_cols])
        if (problem := column_problem(identity, c, whole)) is not None
    }
    chosen = {"drawn": plot_cols, "scored": score_cols}
    plot_cols = [c for c in plot_cols if c not in problems]
    score_cols = [c for c in score_cols if c not in problems]
    for column, problem in problems.items():
        uses = [use for use, picked in chosen.items() if column in picked]
        others = [c for use in uses for c in chosen[use] if c not in problems]
        st.error(
            f"Left out of the columns {' and '.join(uses)}: {problem}."
            + (
                f" The page goes on with {', '.join(map(repr, dict.fromkeys(others)))}."
                if others
                else ""
            ),
            icon=":material/error:",
        )
    for column in text_in_numeric_columns(frame):
        if column not in problems:  # not chosen: a column of numbers with a few typos
            st.warning(
                f"{column_problem(identity, column, whole)}: fix the file, or drop that column; "
                "it is left out of the default choices.",
                icon=":material/warning:",
            )
    if not plot_cols and not score_cols:
        st.info("Choose at least one numeric column to draw or to score.")
        st.stop()
    if not plot_cols:
        st.info("No column to draw: choose 1 or 2 numeric columns to see the densities.")
    if not score_cols:
        st.info("No column to score: choose numeric columns to score to flag and rank rows.")
    used = list(dict.fromkeys([*plot_cols, *score_cols]))
    _, kept = (
        numeric_matrix(frame, used, drop_missing=True) if drop_missing else (None, frame.index)
    )
    data = frame.loc[kept]
    n = len(data)
    unscored = frame.index.difference(kept)
    if len(unscored):
        st.caption(
            f"{len(unscored):,} row(s) with a missing value in the columns drawn or scored are "
            "not scored: the download keeps them, with empty scores and a note."
        )
    is_outlier = None
    if label_col is not None and label_values(data[label_col]) > MAX_LABEL_VALUES:
        st.warning(
            f"{label_col!r} has {label_values(data[label_col]):,} distinct values: a label names a few "
            "classes (such as 0 / 1 or ok / fraud), so no AUC is computed.",
            icon=":material/warning:",
        )
    elif label_col is not None:
        counts = data[label_col].dropna().astype(str).value_counts()
        values = sorted(counts.index)
        rarest = counts.idxmin()  # outliers are the minority, by default
        if st.session_state.get(KEY.label_of) not in (None, (identity, label_col)) or (
            KEY.outlier in st.session_state and st.session_state[KEY.outlier] not in values
        ):
            st.session_state[KEY.outlier] = (
                rarest  # a new file or label: its rarest class, not the old value
            )
        st.session_state[KEY.label_of] = (identity, label_col)
        outlier_value = side.selectbox(
            "Label of the outliers",
            values,
            **url(KEY.outlier),
            **unless_held(KEY.outlier, index=values.index(rarest)),
        )
        is_outlier = (data[label_col].astype(str) == outlier_value).to_numpy()
    prepared = standardized if scale else np.asarray
    X_plot = prepared(numeric_matrix(data, plot_cols)) if plot_cols else None
    X_score = prepared(numeric_matrix(data, score_cols)) if score_cols else None
    n_fit = min(n, MAX_FIT)

    def outliers_fitted(seed: int) -> int | None:
        """The label's outliers among the rows fitted with ``seed`` (what S must outnumber)."""
        return None if is_outlier is None else int(is_outlier[row_sample(n, MAX_FIT, seed)].sum())

    settings = estimator_controls(side, n_fit, outliers_fitted, default_blocks=15, min_share=0.01)
    n_outliers = outliers_fitted(settings.seed)
    fit_rows = row_sample(n, MAX_FIT, settings.seed)
    if len(fit_rows) < n:
        st.caption(f"The estimators are fitted on {MAX_FIT:,} random rows and score all {n:,}.")

    eps = settings.contamination
    h_score = None
    if score_cols:
        chosen_h = select_bandwidth(
            X_score[fit_rows], settings.bandwidth, settings.kernel, settings.seed, eps
        )
        show_warnings(chosen_h.warnings)
        h_score = chosen_h.h
    # everything X_score and its fit rows depend on: the scores are cached on it, not on X
    data_key = (
        identity,
        MAX_SCORED_ROWS,
        tuple(map(str, used)),
        tuple(map(str, score_cols)),
        drop_missing,
        scale,
        MAX_FIT,
        settings.seed,
    )
    detections = {}
    for i, method in enumerate(methods if score_cols else []):
        task = f"Scoring {n:,} rows with {method_label(method)} ({i + 1} of {len(methods)})…"
        try:
            with st.spinner(task):  # shown only while it computes (a cache hit is instant)
                detections[method] = score_every_row(
                    data_key,
                    method,
                    h_score,
                    relevant(method, settings),
                    eps,
                    X_score,
                    fit_rows,
                )
        except (
            ValueError,
            ArithmeticError,
        ) as err:  # SPKDE's Gram matrix underflows in hundreds of dimensions
            st.warning(
                f"{method_label(method)} gives no scores on these {len(score_cols)} column(s): {err}"
            )
    if n_file > MAX_SCORED_ROWS:
        command = score_command(
            file_name,
            score_cols or plot_cols,
            list(detections) or methods,
            eps,
            settings.seed,
            drop_missing,
        )
        too_many.info(
            f"The file has {n_file:,} rows, more than the {MAX_SCORED_ROWS:,} this page scores: "
            f"it works on a uniform random sample of {MAX_SCORED_ROWS:,} of them (the tables and "
            "the download name each by its row number in the file). " + pointer_to_cli(command),
            icon=":material/terminal:",
        )
    # The picker must show the method the page flags with. Its default (MoM-KDE, else the
    # first method) is its first option, so no default index is passed (one passed on its
    # first run only showed the first option later on). The choice it holds is set again
    # before it: a picker that comes back after runs without it (no file, no column scored)
    # otherwise shows its default while the page flags with the choice (a link's first run
    # holds none: its URL sets it).
    flag_options = sorted(detections, key=lambda m: m != "mom_kde")
    if st.session_state.get(KEY.flag) in flag_options:
        st.session_state[KEY.flag] = st.session_state[KEY.flag]
    flag_by = (
        side.selectbox(
            "Flag rows with",
            flag_options,
            **url(KEY.flag),
            help="The method whose flagged rows the figure marks and whose ranking opens "
            "first; the tables and the download carry every method's flags.",
        )
        if detections
        else None
    )
    flagged = detections[flag_by]["flagged"] if flag_by else None
    n_flagged = int(flagged.sum()) if flag_by else 0
    # the rows the 2-D maps circle: the flag method's lowest, at most MAX_CIRCLED
    circled = detections[flag_by]["order"][: min(n_flagged, MAX_CIRCLED)] if flag_by else None
    # rows are named as the file names them: its id column, or the data row (1-based)
    names = (
        pd.Index(data[key_col].to_numpy(), name=str(key_col))
        if key_col is not None
        else pd.Index(data.index.to_numpy() + 1, name="row")
    )
    aucs = {}
    if is_outlier is not None and detections:
        aucs = metric_table(
            {m: {"scores": d["score"]} for m, d in detections.items()}, None, 1.0, is_outlier
        )["AUC"].to_dict()

    flagger = method_label(flag_by) if flag_by else ""
    if plot_cols:
        st.subheader("Where the density grows bumps")
        chosen_h = select_bandwidth(
            X_plot[fit_rows], settings.bandwidth, settings.kernel, settings.seed, eps
        )
        show_warnings(chosen_h.warnings)
        h = chosen_h.h
        grid = plot_grid(X_plot, h)  # the box of every row, drawn or not
        results, failures = fit_all(methods, X_plot[fit_rows], grid.axes, h, settings)
        for method, message in failures.items():
            st.warning(f"{method_label(method)} is not shown: {message}")
        require_fitted(results)
        curves = {m: r["grid"] for m, r in results.items()}
        drawn = row_sample(n, MAX_DRAWN, 0)
        shown_outlier = is_outlier[drawn] if is_outlier is not None else None
        n_drawn_outliers = int(shown_outlier.sum()) if shown_outlier is not None else 0
        flags_where = flag_columns_note(flagger, score_cols, plot_cols) if n_flagged else ""
        if X_plot.shape[1] == 1:
            fig = density_1d_figure(
                grid.axes[0],
                curves,
                X_plot[drawn, 0],
                shown_outlier,
                flagged=flagged[drawn] if flag_by else None,
            )
            fig.update_xaxes(title_text=str(plot_cols[0]) + (" (standardised)" if scale else ""))
            reading = (
                "Ticks below the axis: the rows"
                + (", the label's outliers red" if n_drawn_outliers else "")
                + (
                    f"; the lowest row (purple): the rows {flagger} flags."
                    if flag_by and n_flagged
                    else "."
                )
            )
        else:
            fig = density_2d_figure(
                *grid.axes,
                curves,
                X_plot[drawn],
                shown_outlier,
                axis_titles=tuple(map(str, plot_cols)),
            )
            visible_legend_dots(fig)
            if n_flagged:
                label = (
                    f"flagged ({n_flagged:,})"
                    if len(circled) == n_flagged
                    else f"flagged: the {len(circled):,} lowest of {n_flagged:,}"
                )
                circle_rows(fig, X_plot[circled], names[circled], label)
            among = f" among all {n:,} rows (drawn in the sample or not)" if len(drawn) < n else ""
            if not flag_by:
                circles = ""
            elif not n_flagged:
                circles = f"; {flagger} flags no row"
            elif len(circled) == n_flagged:
                circles = f"; circled (every map): the {n_flagged:,} rows {flagger} flags{among}"
            else:
                circles = (
                    f"; circled (every map): the {len(circled):,} rows {flagger} scores lowest"
                    f"{among}, of the {n_flagged:,} it flags (thousands of circles would hide the "
                    "maps; the ranking below lists the others, the download has them all)"
                )
            reading = (
                "One colour scale for all maps (a spike above it takes the top colour)"
                + (
                    "; grey dots (first map): the rows"
                    + (" the label calls inliers" if n_drawn_outliers else "")
                )
                + ("; red circles (first map): the label's outliers" if n_drawn_outliers else "")
                + circles
                + "."
            )
        st.plotly_chart(fig, key="data_figure", config={"displaylogo": False})
        h_robust = None
        if settings.bandwidth == "cv":
            robust = select_bandwidth(
                X_plot[fit_rows], "robust", settings.kernel, settings.seed, eps
            )
            show_warnings(robust.warnings)
            h_robust = robust.h
        why = reasons(None, n_fit, n_outliers or 0, settings.n_blocks, h, h_robust, None)
        st.caption(
            " ".join(
                [
                    f"h = {h:.3g}, S = {settings.n_blocks}: MoM-KDE ignores a group of rows that sits in fewer than half of "
                    "the blocks, so where the KDE rises over a small group and MoM-KDE stays low, that group is a likely "
                    "cluster of outliers.",
                    *why,
                    *(
                        [screened_note(results["screened_kde"], own_bandwidth(settings))]
                        if "screened_kde" in results
                        else []
                    ),
                    reading,
                    *([flags_where] if flags_where else []),
                    *(
                        [f"The curves are fitted on {n_fit:,} random rows."]
                        if n_fit < n and results
                        else []
                    ),
                    figure_sample_note(len(drawn), n, n_file),
                ]
            ).strip()
        )
    if "mom_kde" in methods and (
        note := blocks_note(n_fit, settings.n_blocks, eps, settings.auto_blocks, n_outliers)
    ):
        st.info(note, icon=":material/grain:")
    if flag_by:
        st.caption(
            flag_share_note(
                flagger,
                {method_label(m): d["flagged"] for m, d in detections.items()},
                fit_rows,
                eps,
                len(score_cols),
            )
            + " Move ε in the sidebar to flag more or fewer rows."
        )
    if not detections:
        st.stop()

    st.subheader("Most anomalous rows")
    if aucs:
        table = pd.DataFrame({"AUC": aucs}).rename(index=method_label)
        st.table(table.T.style.format("{:.3f}", na_rep="—"))
        st.caption(
            auc_verdict(aucs)
            + f" AUC of the density as an outlier score against your label, over the {n:,} rows "
            "scored (1: every outlier scored lower than every inlier, 0.5: chance)."
        )
    naming = (
        f"Rows are named by the file's id column {key_col!r}."
        if key_col is not None
        else "row: the row's number in the file (1 = the first line below the header)."
    )
    st.caption(
        "Percentile: the share of the rows a method was fitted on that it scores as low or "
        "lower (0.1: as low as its lowest 10 %): one scale for every method, where the scores "
        "are not (see below). The lower, the more anomalous; the shaded rows are flagged."
    )
    # the ranking opens on the method the figure flags with (a new one opens its tab)
    tabs = st.tabs([method_label(m) for m in detections], default=flagger, key=f"ranking_{flag_by}")
    for tab, (method, d) in zip(tabs, detections.items()):
        with tab:
            n_flags = int(d["flagged"].sum())
            listed = min(n_flags + ROWS_PAST_THRESHOLD, MAX_LISTED, n)
            ranked = d["order"][:listed]
            flags = pd.DataFrame(
                {
                    "percentile": d["percentile"][ranked],
                    "flagged": d["flagged"][ranked],
                    "score": d["score"][ranked],
                },
                index=names[ranked],
            )
            # a file's own "score" column (say, from momkde score) stays, named apart
            rows = (
                data.iloc[ranked]
                .drop(columns=[key_col] if key_col is not None else [])
                .rename(columns=lambda c: f"{c} (file)" if c in flags else c)
                .set_axis(flags.index)
            )
            st.dataframe(highlight_flagged(pd.concat([flags, rows], axis=1)))
            listed_flags = min(n_flags, listed)
            st.caption(
                f"The {listed:,} most anomalous of the {n:,} rows scored: "
                + (
                    f"all {n_flags:,} rows {method_label(method)} flags (shaded)"
                    if listed_flags == n_flags
                    else f"{listed_flags:,} of the {n_flags:,} rows {method_label(method)} flags "
                    f"(shaded; {MAX_LISTED:,} rows at most here, the download has them all)"
                )
                + (
                    f", percentiles up to {d['percentile'][d['flagged']].max():.3g}"
                    if n_flags
                    else ""
                )
                + (
                    f", then the {listed - listed_flags:,} rows just above its threshold"
                    if listed > listed_flags
                    else ""
                )
                + ". "
                + naming
            )
    in_download = (
        f"every one of the file's {n_file:,} rows"
        if n_file == len(frame)
        else f"the {len(frame):,} rows sampled from the file's {n_file:,}"
    )
    st.caption(
        f"Score: the method's log density (in {len(score_cols)} column(s), h = {h_score:.3g}"
        + (
            "; the screened KDE's own h, cross-validated on the rows it keeps"
            if "screened_kde" in detections and own_bandwidth(settings)
            else ""
        )
        + ") minus its threshold, negative for the flagged rows, on the method's own scale "
        "(MoM-KDE's density is not normalised), so two methods' scores do not compare. The "
        "download holds "
        + in_download
        + (
            f", named by {key_col!r}"
            if key_col is not None
            else ", with its row number in the file (row)"
        )
        + ", and each method's percentile_<method>, score_<method> (as momkde score writes "
        "it) and is_outlier_<method>"
        + (
            f"; the {len(unscored):,} row(s) not scored keep empty scores and a note"
            if len(unscored)
            else ""
        )
        + "."
    )
    csv_key = (
        data_key,
        tuple((m, h_score, relevant(m, settings)) for m in detections),
        eps,
        None if key_col is None else str(key_col),
    )
    st.download_button(
        "Download the data with every method's score and flags (CSV)",
        scored_csv(
            csv_key,
            lambda: scored_table(
                frame,
                data.index,
                detections,
                key_col,
                missing_notes(frame, used, unscored) if len(unscored) else None,
            ),
        ),
        file_name="momkde_scores.csv",
        mime="text/csv",
        key="download",
    )
