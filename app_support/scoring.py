"""Scoring every row of an uploaded table, and the Your data page's tables of the scores.

The page fits each detector on a uniform sample of at most :data:`MAX_FIT` rows (RKDE and
SPKDE learn in O(n^2)) and scores **every** row of the file with its ``decision_function``,
in chunks of :data:`SCORE_CHUNK` rows (cached on the digest of the rows scored and the settings,
not on the arrays, which would be hashed at every rerun: :func:`app_support.cache.score_every_row`);
the threshold of the share ε is put on the cached scores (:func:`flag_share`), so a move of ε
refits only the methods whose fit depends on it.
The figure draws a uniform sample of at
most :data:`MAX_DRAWN` rows and says so; the tables and the download hold every row, named
by the file's own data row (1 = the first line below the header, as the library's error
messages count rows) or by the file's id column.

Each method's log densities are on a scale of their own (MoM-KDE's is not even normalised:
the detector drops that constant), so a score of one method says nothing about another's;
the page ranks every row on a common scale, its **percentile** among the fitted rows
(:func:`percentile_among`): the share of the rows the method was fitted on whose score is as
low or lower, 0.1 meaning "as low as the lowest 10 %". The download keeps each method's
score too (the log density minus its threshold, as ``momkde score`` writes it).

A file over the page's limits (:func:`app_support.widgets.upload_limit_bytes`,
:data:`MAX_SCORED_ROWS`) is
pointed to ``momkde score``, which reads a file of any size in chunks
(:func:`score_command` writes the command for the page's choices).
"""

from __future__ import annotations

import shlex
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from momkde_core import OutlierDetector, make_detector
from momkde_core.bandwidth import n_blocks_for
from momkde_core.detector import DEFAULT_PERMUTATIONS, MAX_AUTO_EXACT, _lower_quantile, most_blamed
from momkde_core.estimators._base import TINY_BLOCKS
from momkde_core.methods import DEFAULT_DETECTOR, METHODS, build_estimator, method_label

from .compute import Settings, library_warnings, make_estimator

#: Rows the estimators are fitted on at most (a uniform sample; RKDE and SPKDE learn in O(n^2)).
MAX_FIT = 2_000
#: Rows the page scores at most. A larger file is scored on a uniform sample of this many rows,
#: with a notice pointing to ``momkde score``. The limit keeps the first view of a file short
#: on a small machine (docs/guide/app.md, "Large files").
MAX_SCORED_ROWS = 500_000
#: Rows drawn in the density figure at most (ticks or dots; thousands more only slow the
#: browser and hide nothing a sample does not show). The tables and the download have all.
MAX_DRAWN = 5_000
#: The light tone of the flagged rows: their rings on the maps, their background in the tables.
RING_COLOR = "#F3E5F5"
#: Rows scored per call of ``decision_function`` (a progress step; the detector batches
#: MoM-KDE's block values inside each call).
SCORE_CHUNK = 50_000
#: The name of the file's row number in the tables and the download (unless taken).
ROW = "row"
#: Flagged rows circled on the 2-D maps at most (the lowest-scored ones): thousands of
#: circles hide the maps; the ranking and the download list them all.
MAX_CIRCLED = 200
#: Flagged rows explained at most (the lowest-scored ones, as many as the ranking lists):
#: explaining costs more than scoring per row; the ranking shows no more.
MAX_EXPLAINED = 500
#: The block sums over feature subsets one explanation may compute per fitted row, summed
#: over the flagged rows explained (:func:`rows_to_explain`): MAX_EXPLAINED rows at 10
#: features (every one of the 1,024 subsets), fewer rows with more features. The typical
#: rows explained beside them add at most as many again.
EXPLAIN_BUDGET = MAX_EXPLAINED * 2**10
#: Flagged rows explained at least, however many features (the bars draw 20).
MIN_EXPLAINED = 20
#: The most-blamed features named per flagged row in the ranking and the download.
BLAMED = 3
#: Fitted rows explained to show a typical row's contributions (their median per feature), at
#: most, and no more than the flagged rows explained (:func:`rows_to_explain`).
TYPICAL_ROWS = 200


def take(X: np.ndarray | pd.DataFrame, rows) -> np.ndarray | pd.DataFrame:
    """The rows ``rows`` (positions, or a slice) of an array or of a mixed table.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> take(pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]}), np.array([2]))
         a  b
    2  3.0  z
    >>> take(np.arange(3.0), slice(1, 3))
    array([1., 2.])
    """
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


def numbers_only(methods: Sequence[str]) -> list[str]:
    """The methods of ``methods`` that read numeric columns only (no ``categorical_features``:
    RKDE, SPKDE), which ``momkde score`` refuses for categorical columns.

    Examples
    --------
    >>> numbers_only(["mom_kde_21", "kde", "rkde", "spkde"])
    ['rkde', 'spkde']
    """
    return [
        m
        for m in methods
        if m != DEFAULT_DETECTOR
        and "categorical_features" not in build_estimator(m, contamination=0.1).get_params()
    ]


def score_command(
    file_name: str,
    columns: Sequence[Hashable],
    methods: Sequence[str],
    contamination: float,
    seed: int,
    drop_missing: bool,
) -> str:
    """The ``momkde score`` command that scores every row of ``file_name`` with the page's
    columns, methods, share and seed, reading the file in chunks (any size)."""
    words = [
        "momkde",
        "score",
        file_name or "FILE.csv",
        "--columns",
        *map(str, columns),
        "--method",
        *methods,
        "--contamination",
        f"{contamination:g}",
        *(["--seed", str(seed)] if seed else []),
        *(["--drop-missing"] if drop_missing else []),
        "--out",
        "scored.csv",
    ]
    return shlex.join(words)


def pointer_to_cli(command: str) -> str:
    """Markdown: how to score every row of a file the page does not, with ``command``."""
    return (
        "To score every row of a file of any size, run on your computer (it reads the file in "
        f"chunks):\n\n```\n{command}\n```\n\n`momkde score` fits the library's detectors "
        "(`make_detector`: the cross-validated h for kde, rkde and spkde) on a larger sample, "
        "so its scores can differ a little from this page's."
    )


def size_text(n_bytes: int) -> str:
    """A file size as people read it: "200 MB" (MB of 2^20 bytes, as Streamlit counts), or
    bytes below one MB."""
    if n_bytes < 2**20:
        return f"{n_bytes:,} bytes"
    return f"{n_bytes / 2**20:,.1f}".removesuffix(".0") + " MB"


def row_key(frame: pd.DataFrame, ids: Sequence[Hashable]) -> Hashable | None:
    """The id column that names each row in the tables and the download (the first of the
    page's guessed ``ids`` without a missing value), or None: rows are then named by their
    data row number."""
    return next((c for c in ids if c in frame.columns and frame[c].notna().all()), None)


def free_name(name: str, taken) -> str:
    """``name``, or ``name`` with ``_2``, ``_3``... appended until no column of ``taken`` has it."""
    taken = set(map(str, taken))
    found, k = name, 1
    while found in taken:
        k += 1
        found = f"{name}_{k}"
    return found


def percentile_among(scores: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The share of ``reference`` scores lower than or equal to each of ``scores``.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        The scores to place (any rows).
    reference : ndarray of shape (m,)
        The scores of the rows the method was fitted on.

    Returns
    -------
    percentile : ndarray of shape (n,)
        Values in [0, 1]: 0.1 means "as low as the lowest 10 % of the fitted rows". A fitted
        row is counted among its own reference, so its percentile is at least 1/m.

    Examples
    --------
    >>> import numpy as np
    >>> percentile_among(np.array([-5.0, 0.0, 2.0, 9.0]), np.array([0.0, 1.0, 2.0, 3.0]))
    array([0.  , 0.25, 0.75, 1.  ])
    """
    return np.searchsorted(np.sort(reference), scores, side="right") / len(reference)


def density_scores(
    method: str, h: float | None, s: Settings, X: np.ndarray, fit_rows: np.ndarray
) -> dict[str, np.ndarray]:
    """What ``method``'s detector, fitted on the rows ``fit_rows`` of ``X``, says of every row
    of ``X`` before any threshold: its log density (``score_samples``, in chunks of
    :data:`SCORE_CHUNK` rows), ``percentile`` (:func:`percentile_among` the fitted rows: one
    scale for every method), ``order`` (the rows from the most anomalous, a stable sort) and
    ``warnings``, what the library warned while fitting and scoring (each message after the
    method's name), for the page that asked to show.

    None of it depends on the share flagged unless the method is told the share (``s``
    then holds it): :func:`flag_share` puts the threshold for any share on it, so a move of
    ε refits only what ε changes (S auto, the robust h, the methods told the share).

    The detector wraps the estimator the page draws (same h, S, kernel), so the figure, the
    tables and the flags all follow the sidebar; the default detector is the library's
    ``make_detector()`` (``OutlierDetector()``: its own S, h and sample of at most 2,688
    fitted rows, ``h`` unused), as ``momkde score`` runs it.

    Examples
    --------
    >>> import numpy as np
    >>> from app_support.compute import Settings
    >>> X = np.r_[np.random.default_rng(0).standard_normal((99, 1)), [[9.0]]]
    >>> settings = Settings(0.5, "gaussian", n_blocks=1, contamination=0.0, seed=0)
    >>> found = density_scores("kde", 0.5, settings, X, np.arange(100))
    >>> int(found["order"][0]), float(found["percentile"][99])
    (99, 0.01)
    """
    with library_warnings() as said:
        detector = fitted_detector(method, h, s, take(X, fit_rows))
        n = len(X)
        log_density = np.empty(n)
        for start in range(0, n, SCORE_CHUNK):
            stop = min(start + SCORE_CHUNK, n)
            log_density[start:stop] = detector.score_samples(take(X, slice(start, stop)))
    return {
        "log_density": log_density,
        "percentile": percentile_among(log_density, log_density[fit_rows]),
        "order": np.argsort(log_density, kind="stable"),
        "warnings": tuple(f"{method_label(method)}: {message}" for message in said),
    }


def detector_h(method: str, h: float) -> float | None:
    """``h``, or None for the default detector, which keeps its own: what its cached fit is
    keyed on, so that a change of the page's h (a move of ε moves the robust h) does not
    refit it.

    Examples
    --------
    >>> detector_h("kde", 0.3), detector_h("mom_kde_21", 0.3)
    (0.3, None)
    """
    return None if method == DEFAULT_DETECTOR else h


def flag_share(
    found: Mapping[str, np.ndarray], fit_rows: np.ndarray, contamination: float
) -> dict[str, np.ndarray]:
    """:func:`density_scores`' ``found`` with the threshold of the share ``contamination``:
    the detector's own (``OutlierDetector.offset_``), the ``contamination`` quantile of the
    fitted rows' log densities, so that share of them is flagged, up to ties.

    Returns ``found``'s ``percentile``, ``order`` and ``warnings`` with ``score`` (the
    decision function: log density minus the threshold, negative for outliers, the lower
    the more anomalous, on the method's own scale; 0 at the threshold) and ``flagged``
    (score < 0).

    Examples
    --------
    >>> import numpy as np
    >>> found = {"log_density": np.array([-9.0, -1.0, -2.0, -3.0, -0.5]),
    ...          "percentile": None, "order": None, "warnings": ()}
    >>> flag_share(found, np.arange(5), 0.2)["flagged"].tolist()
    [True, False, False, False, False]
    """
    log_density = found["log_density"]
    offset = _lower_quantile(log_density[fit_rows], contamination)
    with np.errstate(invalid="ignore"):
        score = np.where(log_density == offset, 0.0, log_density - offset)
    return {**found, "score": score, "flagged": score < 0}


def fitted_detector(
    method: str, h: float | None, s: Settings, X_fit: np.ndarray
) -> OutlierDetector:
    """``method``'s detector as the page runs it, fitted on ``X_fit``: the library's
    ``make_detector()`` for the default detector (``OutlierDetector()``: its own S, h and
    sample of at most 2,688 fitted rows, as ``momkde score`` runs it), else the estimator the
    page draws (same h, S, kernel) wrapped in an :class:`~momkde_core.OutlierDetector`.
    Its threshold is that of the share ``s`` states, or of the detector's default share
    for a method not told it (:func:`~app_support.compute.relevant` zeroes it): the page
    sets its own (:func:`flag_share`)."""
    share = {"contamination": s.contamination} if s.contamination else {}
    if method == DEFAULT_DETECTOR:  # OutlierDetector() itself: its sample of fitted rows
        detector = make_detector(random_state=s.seed, **share)
    else:
        detector = OutlierDetector(make_estimator(method, h, s), **share)
    return detector.fit(X_fit)


def blocks_of(method: str, s: Settings, n: int) -> int:
    """S, the blocks of ``method`` as the page fits it on ``n`` rows: MoM-KDE the sidebar's,
    the default detector its own, the screened KDE's screen S auto; 1 for the others.

    Examples
    --------
    >>> from app_support.compute import Settings
    >>> settings = Settings("robust", "gaussian", n_blocks=7, contamination=0.1, seed=0)
    >>> [blocks_of(m, settings, 100) for m in ("mom_kde", "mom_kde_21", "screened_kde", "kde")]
    [7, 21, 21, 1]
    """
    if METHODS[method].auto_blocks:  # MoM-KDE: the S the page resolved
        return s.n_blocks
    if method == "screened_kde":
        return n_blocks_for(n, s.contamination)
    return int(METHODS[method].params.get("n_blocks", 1))


def too_few_rows(methods: Sequence[str], s: Settings, n: int) -> dict[str, int]:
    """The methods of ``methods`` whose S blocks ``n`` rows cannot fill (fewer than the
    library's 2 rows per block on average, where a median of block KDEs no longer estimates
    a density), with their S.

    Examples
    --------
    >>> from app_support.compute import Settings
    >>> settings = Settings("robust", "gaussian", n_blocks=2, contamination=0.1, seed=0)
    >>> too_few_rows(["mom_kde_21", "kde", "mom_kde"], settings, 2)
    {'mom_kde_21': 21, 'mom_kde': 2}
    """
    return {
        m: blocks
        for m in methods
        if (blocks := blocks_of(m, s, n)) > 1 and n < TINY_BLOCKS * blocks
    }


def rows_to_explain(n_features: int) -> int:
    """How many flagged rows the page explains with ``n_features`` columns scored: at most
    :data:`MAX_EXPLAINED`, and at most what :data:`EXPLAIN_BUDGET` allows, a row costing its
    2^d subsets (exact, up to 10 features) or 2 sums per sampled order and feature (above);
    never fewer than the bars drawn.

    Examples
    --------
    >>> rows_to_explain(3), rows_to_explain(10), rows_to_explain(30)
    (500, 500, 64)
    """
    if n_features <= MAX_AUTO_EXACT:
        per_row = 2**n_features
    else:
        per_row = DEFAULT_PERMUTATIONS * (n_features + 1)
    return int(min(MAX_EXPLAINED, max(MIN_EXPLAINED, EXPLAIN_BUDGET // per_row)))


def explain_rows(
    method: str,
    h: float | None,
    s: Settings,
    X: np.ndarray,
    fit_rows: np.ndarray,
    rows: np.ndarray,
    n_typical: int = TYPICAL_ROWS,
) -> dict[str, np.ndarray]:
    """Why ``method`` flags the rows ``rows`` of ``X``: each feature's contribution to each
    row's abnormality (:meth:`~momkde_core.OutlierDetector.explain`, in nats, summing to the
    row's -log density), from the detector :func:`score_rows` fits (the same fit: same rows,
    settings and seed, which also seeds the orders sampled above 10 features; no threshold
    enters it).

    Returns ``rows``, ``blame`` (shape (len(rows), d)), ``typical`` (shape (d,): a typical
    row's contributions, the median of each feature's over ``n_typical`` fitted rows drawn
    with the seed, or all of them when fewer: every row has some abnormality, -log f of a
    density below 1), ``n_typical`` (the rows it was taken over) and ``warnings``, as
    :func:`score_rows`.
    Raises ValueError for a detector that cannot be explained (a kernel that is not a product
    over the features: only the Gaussian is).

    Examples
    --------
    >>> import numpy as np
    >>> from app_support.compute import Settings
    >>> X = np.random.default_rng(0).standard_normal((300, 3))
    >>> X[0] = [0.0, 6.0, 0.0]  # feature 1 shifted
    >>> settings = Settings(0.5, "gaussian", n_blocks=1, contamination=0.05, seed=0)
    >>> out = explain_rows("kde", 0.5, settings, X, np.arange(300), np.array([0]))
    >>> int(np.argmax(out["blame"][0]))
    1
    """
    with library_warnings() as said:
        detector = fitted_detector(method, h, s, take(X, fit_rows))
        blame = detector.explain(take(X, rows), random_state=s.seed)
        some = np.random.default_rng(s.seed).permutation(fit_rows)[:n_typical]
        typical = np.nanmedian(detector.explain(take(X, some), random_state=s.seed), axis=0)
    return {
        "rows": rows,
        "blame": blame,
        "typical": typical,
        "n_typical": len(some),
        "warnings": tuple(f"{method_label(method)}: {message}" for message in said),
    }


def blamed_text(blame: np.ndarray, columns: Sequence[Hashable], top: int = 2) -> np.ndarray:
    """Each explained row's ``top`` most-blamed columns with their contributions, as the
    ranking shows them: "vibration (+12.3), flow (+1.2)" (nats; fewer when fewer columns).

    Examples
    --------
    >>> import numpy as np
    >>> blamed_text(np.array([[0.4, 9.25, -1.0], [np.inf, np.nan, np.nan]]), ["a", "b", "c"])
    array(['b (+9.2), a (+0.4)', 'a (beyond reach)'], dtype=object)

    A row beyond every kernel's reach names the columns out of reach ("beyond reach") and no
    other: the others have no finite contribution.
    """
    top = min(top, blame.shape[1])
    found = most_blamed(blame, columns, top)
    parts = [
        [
            (f"{name} (beyond reach)" if np.isinf(value) else f"{name} ({value:+.1f})")
            if name
            else ""
            for name, value in zip(found[f"blame_{k}"], found[f"blame_{k}_nats"])
        ]
        for k in range(1, top + 1)
    ]
    return np.array([", ".join(filter(None, row)) for row in zip(*parts)], dtype=object)


def scored_table(
    frame: pd.DataFrame,
    analysed: pd.Index,
    detections: Mapping[str, Mapping[str, np.ndarray]],
    key: Hashable | None,
    notes: pd.Series | None = None,
    blamed: tuple[np.ndarray, Mapping[str, np.ndarray]] | None = None,
) -> pd.DataFrame:
    """Every row of ``frame`` with, per method, ``percentile_<method>``, ``score_<method>`` and
    ``is_outlier_<method>``, then the explained rows' most-blamed columns, if ``blamed``.

    ``frame`` is the table read (its index + 1 is the data row: the file's RangeIndex, kept
    when rows are sampled); ``analysed`` the index of the rows scored, in the order of the
    detections' arrays (:func:`~app_support.cache.score_every_row`). Without an id column (``key`` None) a first
    column ``row`` holds the data row number. Rows not scored keep empty percentiles, scores
    and flags, and their ``notes`` (a text per row not scored, by index) in a last column
    ``note``, added only when there are such rows. A file column whose name an output takes
    is kept as ``<name> (file)``.

    ``blamed``: the positions (among ``analysed``) of the rows explained and their
    :func:`~momkde_core.detector.most_blamed` columns (``blame_1``, ``blame_1_nats``, ...,
    as ``momkde score --explain`` writes them), empty for the other rows.
    """
    outputs = {f"{p}_{m}" for m in detections for p in ("percentile", "score", "is_outlier")}
    outputs |= set(blamed[1]) if blamed else set()
    out = frame.rename(columns=lambda c: f"{c} (file)" if str(c) in outputs else c)
    if key is None:
        out.insert(0, free_name(ROW, out.columns), frame.index + 1)
    where = out.index.get_indexer(analysed)
    complete = len(analysed) == len(frame)
    for method, d in detections.items():
        for name in ("percentile", "score"):
            values = np.full(len(frame), np.nan)
            values[where] = d[name]
            out[f"{name}_{method}"] = values
        flags = np.zeros(len(frame), bool)
        flags[where] = d["flagged"]
        if not complete:  # empty (not False) where no score was computed
            unscored = np.ones(len(frame), bool)
            unscored[where] = False
            flags = pd.arrays.BooleanArray(flags, unscored)
        out[f"is_outlier_{method}"] = flags
    if blamed:
        rows, columns = blamed
        for name, values in columns.items():
            text = values.dtype == object
            filled = np.full(len(frame), "" if text else np.nan, dtype=object if text else float)
            filled[where[rows]] = values
            out[name] = filled
    if not complete:
        name = free_name("note", out.columns)
        out[name] = notes.reindex(out.index).fillna("").to_numpy() if notes is not None else ""
    return out


def missing_notes(frame: pd.DataFrame, columns: Sequence[Hashable], rows: pd.Index) -> pd.Series:
    """Per row of ``rows`` (left out for a missing or infinite value), why it is not scored:
    "not scored: no value in x, y" (the columns, among ``columns``, that lack one)."""
    from momkde_core.io import float_columns

    bad = ~np.isfinite(float_columns(frame.loc[rows], list(columns)))
    names = np.array([str(c) for c in columns], dtype=object)
    return pd.Series(
        ["not scored: no value in " + ", ".join(names[b]) for b in bad], index=rows, dtype=object
    )


def row_names(data: pd.DataFrame, key: Hashable | None) -> pd.Index:
    """Each row's name, as the file names it: its id column ``key``, or its data row (1 = the
    first line below the header: ``data`` keeps the file's RangeIndex)."""
    if key is not None:
        return pd.Index(data[key].to_numpy(), name=str(key))
    return pd.Index(data.index.to_numpy() + 1, name=ROW)


def ranking_table(
    data: pd.DataFrame,
    detection: Mapping[str, np.ndarray],
    names: pd.Index,
    key: Hashable | None,
    listed: int,
) -> pd.DataFrame:
    """The ``listed`` most anomalous rows of one method (:func:`score_rows`'s ``detection``):
    their percentile, flag and score, then the file's columns (the id column ``key`` names the
    rows instead; a file's own column named like one of the first three is kept as
    ``<name> (file)``), indexed by ``names``; an empty text cell is an empty string."""
    ranked = detection["order"][:listed]
    flags = pd.DataFrame(
        {
            "percentile": detection["percentile"][ranked],
            "flagged": detection["flagged"][ranked],
            "score": detection["score"][ranked],
        },
        index=names[ranked],
    )
    rows = (
        data.iloc[ranked]
        .drop(columns=[key] if key is not None else [])
        .rename(columns=lambda c: f"{c} (file)" if c in flags else c)
        .set_axis(flags.index)
    )
    # an empty text cell (read as None) shown empty, as in the file, not as "None"
    text = [
        c
        for c in rows.columns
        if pd.api.types.is_object_dtype(rows[c]) or pd.api.types.is_string_dtype(rows[c])
    ]
    rows[text] = rows[text].fillna("")
    return pd.concat([flags, rows], axis=1)


def highlight_flagged(rows: pd.DataFrame) -> Styler:
    """``rows`` (with a boolean column ``flagged`` and a column ``percentile``) with the
    flagged rows shaded (:data:`RING_COLOR`), so the threshold shows where it cuts the ranking.
    A Styler replaces every cell by its text, so floats are written with 6 significant digits
    (pandas' default would pad them to 6 decimals), the percentiles with 3, and a missing
    cell of any column (an empty text cell is read as None) is empty, as in the file."""
    shade = np.where(rows["flagged"].to_numpy(bool), f"background-color: {RING_COLOR}", "")
    styles = pd.DataFrame(
        np.repeat(shade[:, None], rows.shape[1], axis=1), rows.index, rows.columns
    )
    floats = [c for c in rows.columns if pd.api.types.is_float_dtype(rows[c])]
    return (
        rows.style.apply(lambda _: styles, axis=None)  # one table of styles, not a row at a time
        .format(na_rep="")
        .format("{:.6g}", subset=floats, na_rep="")
        .format("{:.3g}", subset=["percentile"])
    )
