"""Your data: a bundled sample or an uploaded CSV; where the KDE grows bumps that MoM-KDE
does not; the rows each method flags (share ε), ranked, and a download of the scores.

Every row of the file is scored (up to :data:`~app_support.scoring.MAX_SCORED_ROWS`; a larger
file is scored on a sample, with the ``momkde score`` command that scores all of it); the
estimators are fitted on a sample of at most :data:`~app_support.scoring.MAX_FIT` rows and the
figure draws at most :data:`~app_support.scoring.MAX_DRAWN`, which its caption says; the 2-D
maps circle at most :data:`~app_support.scoring.MAX_CIRCLED` flagged rows, the lowest-scored
(the ranking lists the rest). Rows are named by the file's data row (1 = the first line below
the header) or its id, and ranked by their percentile among the fitted rows.

Defaults are the library's: the default detector flags rows, and the density figure uses
S auto and the robust h for ε. Columns scored are those ``momkde score`` scores (numbers,
text and bool columns as categories, dates as days since 1970-01-01; no id, no free text, a
label only when named like one with few classes). A column chosen that cannot be used is
named in an error and left out. Categorical columns are scored by the mixed estimators
(Gaussian kernel only); RKDE and SPKDE, which read numbers only, are not run on them. Every
caption is computed from what the figure shows.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from app_support.cache import (
    fit_all,
    prepared_table,
    read_csv_bytes,
    roles_of,
    score_every_row,
    scored_csv,
    select_bandwidth,
)
from app_support.captions.blame import download_columns_note
from app_support.captions.columns import kinds_note, left_out_note, spread_warning
from app_support.captions.density import reasons, screened_note
from app_support.captions.your_data import (
    PERCENTILE_NOTE,
    auc_note,
    blocks_note,
    density_caption,
    density_notes,
    download_note,
    flag_columns_note,
    flag_share_note,
    ranking_note,
    sample_banner,
    sample_outcome,
    sampled_file_note,
    thin_blocks_note,
    too_few_rows_note,
)
from app_support.choices import SAMPLE_LESSONS
from app_support.compute import (
    YOUR_DATA_DEFAULTS,
    YOUR_DATA_METHODS,
    Settings,
    metric_table,
    own_bandwidth,
    plot_grid,
    relevant,
    require_fitted,
    row_sample,
)
from app_support.figures import Flags, your_data_figure
from app_support.keys import YOUR_DATA as KEY
from app_support.prepare import fingerprint
from app_support.scoring import (
    BLAMED,
    MAX_CIRCLED,
    MAX_DRAWN,
    MAX_FIT,
    MAX_SCORED_ROWS,
    blamed_text,
    highlight_flagged,
    missing_notes,
    pointer_to_cli,
    ranking_table,
    row_key,
    row_names,
    score_command,
    scored_table,
    too_few_rows,
)
from app_support.sections import explain_flags, mixed_choices, usable_columns, why_section
from app_support.tables import ColumnRoles
from app_support.widgets import (
    choose_file,
    estimator_controls,
    methods_select,
    outlier_labels,
    reset_on_change,
    show_warnings,
    unless_held,
    upload_limit_bytes,
    url,
    user_errors,
)
from momkde_core.cli._scan import dates_as_days
from momkde_core.detector import most_blamed
from momkde_core.methods import DEFAULT_DETECTOR, method_label

#: Unflagged rows listed after a method's flagged ones: the ranking just above its threshold.
ROWS_PAST_THRESHOLD = 5
#: The ranking table's height in pixels: 7 rows in view, the rest one scroll away.
RANKING_HEIGHT = 280
#: Rows listed per method at most (a shaded table is sent cell by cell; the download has all).
MAX_LISTED = 500


def choose_columns(
    side, identity: str, columns: list[Hashable], roles: ColumnRoles
) -> tuple[list, list, Hashable | None, object]:
    """The columns to draw and to score and the label column, defaulting to the file's
    guessed ``roles`` (reset when the file changes), with the columns left out and why; and
    the sidebar's slot for how the columns scored are read (filled once the kernel is known:
    with another kernel than the Gaussian, the categorical columns are not scored)."""
    reset_on_change(
        KEY.file,
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
        placeholder="none",  # no label chosen reads "none", not "Choose an option"
    )
    if note := left_out_note(columns, roles):
        side.caption(note)
    return plot_cols, score_cols, label_col, side.empty()


def bandwidth(X: np.ndarray, rule: str | float, settings: Settings) -> float:
    """The h of ``rule`` on ``X`` for the settings' kernel, seed and share (the robust rule's
    alone: the others' h is cached apart from ε, so a move of ε does not search it again);
    the library's warnings shown here."""
    share = (settings.contamination,) if rule == "robust" else ()
    chosen = select_bandwidth(X, rule, settings.kernel, settings.seed, *share)
    show_warnings(chosen.warnings)
    return chosen.h


def score_bandwidth(
    X: np.ndarray | pd.DataFrame, fit_rows: np.ndarray, settings: Settings
) -> float:
    """The h of the columns scored: that of their numeric columns (the categorical ones have
    bandwidths of their own, the library's rule); 1 when every one is categorical (no
    continuous kernel: h is not used)."""
    if isinstance(X, pd.DataFrame):
        numbers = X.select_dtypes("number")
        if not numbers.shape[1]:
            return 1.0
        X = numbers.to_numpy()
    return bandwidth(X[fit_rows], settings.bandwidth, settings)


def score_methods(
    key: str,
    methods: list[str],
    h: float,
    settings: Settings,
    X: np.ndarray,
    fit_rows: np.ndarray,
) -> dict[str, dict[str, np.ndarray]]:
    """Every row of ``X`` scored by each method fitted on ``fit_rows`` (cached on
    ``key``, :attr:`~app_support.prepare.PreparedTable.key`); a method that gives no scores is named in a warning."""
    detections = {}
    for i, method in enumerate(methods):
        task = f"Scoring {len(X):,} rows with {method_label(method)} ({i + 1} of {len(methods)})…"
        try:
            with st.spinner(task):  # shown only while it computes (a cache hit is instant)
                detections[method] = score_every_row(
                    key,
                    method,
                    h,
                    relevant(method, settings),
                    settings.contamination,
                    X,
                    fit_rows,
                )
            show_warnings(detections[method]["warnings"])
        except (ValueError, ArithmeticError) as err:  # SPKDE's Gram matrix underflows in
            # hundreds of dimensions
            st.warning(
                f"{method_label(method)} gives no scores on these {X.shape[1]} column(s): {err}"
            )
    return detections


def flag_picker(side, detections: dict) -> str | None:
    """The method whose flags the figure marks, None when no method scored.

    The picker must show the method the page flags with. Its default (the library's default
    detector, :data:`~momkde_core.methods.DEFAULT_DETECTOR`, else MoM-KDE, else the first
    method) is its first option, so no default index is passed (one passed on its
    first run only showed the first option later on). The choice it holds is set again
    before it: a picker that comes back after runs without it (no file, no column scored)
    otherwise shows its default while the page flags with the choice (a link's first run
    holds none: its URL sets it).
    """
    options = sorted(detections, key=lambda m: (m != DEFAULT_DETECTOR, m != "mom_kde"))
    if st.session_state.get(KEY.flag) in options:
        st.session_state[KEY.flag] = st.session_state[KEY.flag]
    if not detections:
        return None
    return side.selectbox(
        "Flag rows with",
        options,
        **url(KEY.flag),
        help="The method whose flagged rows the figure marks and whose ranking opens "
        "first; the tables and the download carry every method's flags.",
    )


def density_section(
    X: np.ndarray,
    fit_rows: np.ndarray,
    methods: list[str],
    settings: Settings,
    is_outlier: np.ndarray | None,
    columns: tuple[Sequence, Sequence],
    standardised: bool,
    flags: Flags | None,
    n_outliers: int | None,
    n_file: int,
) -> None:
    """Where the density grows bumps: every method's density of the columns drawn
    (``columns``: those drawn and those scored), the rows over it, and its caption."""
    st.subheader("Where the density grows bumps")
    h = bandwidth(X[fit_rows], settings.bandwidth, settings)
    grid = plot_grid(X, h)  # the box of every row, drawn or not
    results, failures = fit_all(methods, X[fit_rows], grid.axes, h, settings)
    show_warnings(dict.fromkeys(m for r in results.values() for m in r["warnings"]))
    for method, message in failures.items():
        st.warning(f"{method_label(method)} is not shown: {message}")
    require_fitted(results)
    n, n_fit = len(X), len(fit_rows)
    drawn = row_sample(n, MAX_DRAWN, 0)
    curves = {m: r["grid"] for m, r in results.items()}
    fig, reading = your_data_figure(
        grid.axes, curves, X, drawn, is_outlier, columns[0], standardised, flags
    )
    st.plotly_chart(fig, key="data_figure", config={"displaylogo": False})
    h_robust = bandwidth(X[fit_rows], "robust", settings) if settings.bandwidth == "cv" else None
    why = reasons(None, n_fit, n_outliers or 0, settings.n_blocks, h, h_robust, None)
    # why a flagged row can sit anywhere in the figure: the rows are flagged on the columns scored
    where = flag_columns_note(flags.label, columns[1], columns[0]) if flags else ""
    screened = (
        screened_note(results["screened_kde"], own_bandwidth(settings))
        if "screened_kde" in results
        else ""
    )
    where = where if where and flags.flagged.any() else ""
    st.caption(
        density_caption(h, settings.n_blocks, reading, n_fit, n, len(drawn), n_file, methods)
    )
    small = (
        blocks_note(
            n_fit, settings.n_blocks, settings.contamination, settings.auto_blocks, n_outliers
        )
        if "mom_kde" in methods
        else ""
    )
    with st.expander("How to read it" + (": MoM-KDE's blocks are small" if small else "")):
        st.caption(density_notes([*why, screened, where]))
        if small:
            st.info(small, icon=":material/grain:")


def label_aucs(detections: dict, is_outlier: np.ndarray) -> dict[str, float]:
    """Each method's AUC of its scores against the label's outliers (NaN: one class only)."""
    scores = {m: {"scores": d["score"]} for m, d in detections.items()}
    return metric_table(scores, None, 1.0, is_outlier)["AUC"].to_dict()


def ranking_section(
    detections: dict,
    data: pd.DataFrame,
    names: pd.Index,
    key_col: Hashable | None,
    aucs: dict[str, float] | None,
    flag_by: str,
    explained: dict | None,
) -> None:
    """Most anomalous rows: the AUCs against the label (``aucs``, None without one), then one
    tab per method listing its flagged rows and a few above its threshold, opened on the flag
    method, whose tab names the columns most to blame for each row ``explained``."""
    st.subheader("Most anomalous rows")
    n = len(data)
    if aucs is not None:
        table = pd.DataFrame({"AUC": aucs}).rename(index=method_label)
        st.table(table.T.style.format("{:.3f}", na_rep="—"))
        st.caption(auc_note(aucs, n))
    # the ranking opens on the method the figure flags with (a new one opens its tab)
    tabs = st.tabs(
        [method_label(m) for m in detections],
        default=method_label(flag_by),
        key=f"ranking_{flag_by}",
    )
    for tab, (method, d) in zip(tabs, detections.items()):
        with tab:
            listed = min(int(d["flagged"].sum()) + ROWS_PAST_THRESHOLD, MAX_LISTED, n)
            rows = ranking_table(data, d, names, key_col, listed)
            blame_column = "most to blame (nats)"  # (a file's own column of that name kept)
            if method == flag_by and explained is not None:
                blamed = pd.Series(
                    blamed_text(explained["blame"], explained["columns"]),
                    index=explained["rows"],
                )
                to_blame = blamed.reindex(d["order"][:listed]).fillna("").to_numpy()
                rows = rows.rename(columns={blame_column: f"{blame_column} (file)"})
                rows.insert(3, blame_column, to_blame)
            st.dataframe(
                highlight_flagged(rows),
                height=RANKING_HEIGHT,
                column_config={
                    **dict.fromkeys(("percentile", "flagged", "score"), {"width": "small"}),
                    blame_column: {"width": "medium"},
                },
            )
            st.caption(
                ranking_note(
                    method_label(method), d["flagged"], d["percentile"], listed, MAX_LISTED, key_col
                )
            )
    with st.expander("What the percentile, the shading and the score are"):
        st.caption(PERCENTILE_NOTE)


st.title("Your data")
st.markdown(
    "The page opens on a bundled sample: upload your own CSV (with a header line) in the sidebar "
    "to replace it, or pick another sample. Choose 1 or 2 numeric columns to draw, any columns "
    "to score (text and bool columns as categories, dates as days); a label column, if you "
    "have one, gives each method's AUC."
)
side = st.sidebar
limit = upload_limit_bytes()
banner = st.empty()  # a sample's lesson, then what it shows with the settings (its numbers)
raw, file_name, identity = choose_file(side, limit, banner)

with user_errors():
    frame = read_csv_bytes(identity, raw, limit)
    if frame.attrs.get("encoding") not in (None, "utf-8") or frame.attrs.get("decimal") == ",":
        st.caption(
            f"Read as {frame.attrs['encoding']} text, separator {frame.attrs['separator']!r}, "
            f"decimal {frame.attrs['decimal']!r}."
        )
    n_file = len(frame)
    if n_file < 2:  # one message, before any column is checked
        st.error(too_few_rows_note(n_file), icon=":material/error:")
        st.stop()
    roles = roles_of(identity, frame)  # on every row (an id fills its range only there)
    key_col = row_key(frame, roles.ids)
    too_many = st.empty()  # the notice of a file over the page's limit, with its command
    plot_cols, score_cols, label_col, kinds_slot = choose_columns(
        side, identity, list(frame.columns), roles
    )
    drop_missing = side.toggle("Drop rows with missing values", value=True, **url(KEY.drop_missing))
    scale = side.toggle(
        "Standardise columns",
        value=True,
        **url(KEY.standardise),
        help="Centre and scale every column so that one bandwidth suits all of them.",
    )
    side.header("Estimators")
    # none chosen: the default detector and the paper's four
    methods = methods_select(
        side,
        YOUR_DATA_METHODS,
        YOUR_DATA_DEFAULTS,
        help=f"{method_label(DEFAULT_DETECTOR)}: the library's default detector (its own S "
        "and h, no share needed to rank the rows), which flags the rows unless you pick "
        "another below.",
    ) or list(YOUR_DATA_DEFAULTS)
    # the columns are checked on every row of the file: messages name the file's rows
    plot_cols, score_cols = usable_columns(identity, frame, roles, plot_cols, score_cols)
    choices = (identity, frame, roles, plot_cols)  # (the file and the columns drawn)
    scored = score_cols
    table = prepared_table(*choices, scored, drop_missing, scale, MAX_SCORED_ROWS)
    data, unscored = frame.loc[table.kept], table.unscored
    n = len(data)
    if not scale and (spread := spread_warning(data, table.used)):
        st.warning(spread, icon=":material/straighten:")
    if len(unscored):
        st.caption(
            f"{len(unscored):,} row(s) with a missing value in the columns drawn or scored are "
            "not scored: the download keeps them, with empty scores and a note."
        )
    is_outlier = outlier_labels(side, identity, data, label_col)
    n_fit = min(n, MAX_FIT)

    def outliers_fitted(seed: int) -> int | None:
        """The label's outliers among the rows fitted with ``seed`` (what S must outnumber)."""
        return None if is_outlier is None else int(is_outlier[row_sample(n, MAX_FIT, seed)].sum())

    settings = estimator_controls(side, n_fit, outliers_fitted, default_blocks=15, min_share=0.01)
    score_cols, methods = mixed_choices(score_cols, roles, settings.kernel, methods)
    if note := kinds_note(score_cols, roles):  # (the columns scored with this kernel)
        kinds_slot.caption(note)
    if score_cols != scored:  # another kernel left the categorical columns out of the scores
        # (the rows are those above: no categorical column leaves a row out)
        table = prepared_table(*choices, score_cols, drop_missing, scale, MAX_SCORED_ROWS)
    X_score = table.X_score
    n_outliers = outliers_fitted(settings.seed)
    fit_rows = row_sample(n, MAX_FIT, settings.seed)
    if thin := too_few_rows(methods, settings, n_fit):  # one notice, not a warning per fit
        methods = [m for m in methods if m not in thin]
        (st.warning if methods else st.error)(
            thin_blocks_note(thin, n_fit, methods), icon=":material/warning:"
        )
        if not methods:
            st.stop()
    if len(fit_rows) < n:
        st.caption(f"The estimators are fitted on {MAX_FIT:,} random rows and score all {n:,}.")

    eps = settings.contamination
    h_score = score_bandwidth(X_score, fit_rows, settings) if score_cols else None
    detections = (
        score_methods(table.key, methods, h_score, settings, X_score, fit_rows)
        if score_cols
        else {}
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
            sampled_file_note(n_file, MAX_SCORED_ROWS) + pointer_to_cli(command),
            icon=":material/terminal:",
        )
    flag_by = flag_picker(side, detections)
    names = row_names(data, key_col)  # as the file names its rows: its id, or the data row
    flags = None
    if flag_by:
        found = detections[flag_by]
        circled = found["order"][: min(int(found["flagged"].sum()), MAX_CIRCLED)]
        flags = Flags(method_label(flag_by), found["flagged"], circled, names)
    if plot_cols:
        density_section(
            table.X_plot,
            fit_rows,
            methods,
            settings,
            is_outlier,
            (plot_cols, score_cols),
            scale,
            flags,
            n_outliers,
            n_file,
        )
    if flag_by:
        st.caption(
            flag_share_note(
                flags.label,
                {method_label(m): d["flagged"] for m, d in detections.items()},
                fit_rows,
                eps,
                len(score_cols),
            )
            + " Move ε in the sidebar to flag more or fewer rows."
        )
    if not detections:
        st.stop()
    aucs = label_aucs(detections, is_outlier) if is_outlier is not None else None
    if aucs is not None and identity in SAMPLE_LESSONS:  # the sample's banner, with its numbers
        caught = {m: int((d["flagged"] & is_outlier).sum()) for m, d in detections.items()}
        outcome = sample_outcome(
            aucs,
            caught,
            int(is_outlier.sum()),
            str(st.session_state.get(KEY.outlier)),
            settings.n_blocks,
        )
        banner.info(sample_banner(identity, outcome), icon=":material/lightbulb:")
    explained = explain_flags(
        detections[flag_by], flag_by, h_score, settings, X_score, fit_rows, table.key, score_cols
    )
    ranking_section(detections, data, names, key_col, aucs, flag_by, explained)
    if explained is not None:
        why_section(
            explained,
            detections[flag_by],
            flags.label,
            dates_as_days(data, list(roles.dates)),
            names,
            scale,
        )
    top = min(BLAMED, len(score_cols))
    blamed = (
        (explained["rows"], most_blamed(explained["blame"], score_cols, top))
        if explained is not None
        else None
    )
    with st.expander("What the download holds"):
        st.caption(
            download_note(
                len(score_cols),
                h_score,
                "screened_kde" in detections and own_bandwidth(settings),
                n_file,
                len(table.rows),
                key_col,
                len(unscored),
                list(detections),
            )
            + (download_columns_note(flags.label, len(explained["rows"]), top) if blamed else "")
        )
    csv_key = (
        identity,
        table.key,
        fingerprint(fit_rows),
        tuple((m, h_score, relevant(m, settings)) for m in detections),
        eps,
        None if key_col is None else str(key_col),
        None if blamed is None else (flag_by, len(explained["rows"]), top),
    )
    st.download_button(
        "Download the data with every method's score and flags (CSV)",
        scored_csv(
            csv_key,
            lambda: scored_table(
                frame.loc[table.rows],
                data.index,
                detections,
                key_col,
                missing_notes(dates_as_days(frame, list(roles.dates)), table.used, unscored)
                if len(unscored)
                else None,
                blamed,
            ),
        ),
        file_name="momkde_scores.csv",
        mime="text/csv",
        key="download",
    )
