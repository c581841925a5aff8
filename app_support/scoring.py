"""Scoring every row of an uploaded table, and what the Your data page says about it.

The page fits each detector on a uniform sample of at most :data:`MAX_FIT` rows (RKDE and
SPKDE learn in O(n^2)) and scores **every** row of the file with its ``decision_function``,
in chunks of :data:`SCORE_CHUNK` rows (cached on the file's identity and the settings, not on
the arrays, which would be hashed at every rerun: :func:`app_support.cache.score_every_row`).
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

import math
import shlex
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

from momkde_core import OutlierDetector
from momkde_core.bandwidth import n_blocks_for

from .choices import MAX_SHARE, block_options
from .compute import Settings, make_estimator

#: Rows the estimators are fitted on at most (a uniform sample; RKDE and SPKDE learn in O(n^2)).
MAX_FIT = 2_000
#: Rows the page scores at most. A larger file is scored on a uniform sample of this many rows,
#: with a notice pointing to ``momkde score``. The limit keeps the first view of a file within
#: half a minute or so on a small machine (measured: docs/guide/app.md, "Large files").
MAX_SCORED_ROWS = 500_000
#: Rows drawn in the density figure at most (ticks or dots; thousands more only slow the
#: browser and hide nothing a sample does not show). The tables and the download have all.
MAX_DRAWN = 5_000
#: Rows scored per call of ``decision_function`` (a progress step; the detector batches
#: MoM-KDE's block values inside each call).
SCORE_CHUNK = 50_000
#: The name of the file's row number in the tables and the download (unless taken).
ROW = "row"
#: Flagged rows circled on the 2-D maps at most (the lowest-scored ones): thousands of
#: circles hide the maps; the ranking and the download list them all.
MAX_CIRCLED = 200
#: Rows per MoM-KDE block below which a block's KDE is a handful of separate bumps and their
#: median is uneven (a zig-zag curve, a jagged map); the page then says which ε or S to try.
MIN_BLOCK_ROWS = 10
#: The step of the page's ε slider: the grid of the ε it suggests.
SHARE_STEP = 0.01


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


def score_rows(
    method: str,
    h: float,
    s: Settings,
    contamination: float,
    X: np.ndarray,
    fit_rows: np.ndarray,
) -> dict[str, np.ndarray]:
    """``method`` as an :class:`~momkde_core.OutlierDetector` fitted on the rows ``fit_rows``
    of ``X`` and applied to every row of ``X`` in chunks of :data:`SCORE_CHUNK` rows.

    Returns ``score`` (the decision function: log density minus the threshold, negative for
    outliers, the lower the more anomalous, on the method's own scale), ``percentile`` (its
    :func:`percentile_among` the fitted rows' scores: one scale for every method),
    ``flagged`` (score < 0) and ``order`` (the rows from the most anomalous, a stable sort).
    The threshold is the ``contamination`` quantile of the fitted rows' scores, so that share
    of the fitted rows is flagged, up to ties.

    The detector wraps the estimator the page draws (same h, S, kernel), so the figure, the
    tables and the flags all follow the sidebar; ``momkde score`` builds its own from the
    method name (:func:`~momkde_core.make_detector`).
    """
    detector = OutlierDetector(make_estimator(method, h, s), contamination=contamination)
    detector.fit(X[fit_rows])
    n = len(X)
    score = np.empty(n)
    for start in range(0, n, SCORE_CHUNK):
        stop = min(start + SCORE_CHUNK, n)
        score[start:stop] = detector.decision_function(X[start:stop])
    return {
        "score": score,
        "percentile": percentile_among(score, score[fit_rows]),
        "flagged": score < 0,
        "order": np.argsort(score, kind="stable"),
    }


def scored_table(
    frame: pd.DataFrame,
    analysed: pd.Index,
    detections: Mapping[str, Mapping[str, np.ndarray]],
    key: Hashable | None,
    notes: pd.Series | None = None,
) -> pd.DataFrame:
    """Every row of ``frame`` with, per method, ``percentile_<method>``, ``score_<method>`` and
    ``is_outlier_<method>``.

    ``frame`` is the table read (its index + 1 is the data row: the file's RangeIndex, kept
    when rows are sampled); ``analysed`` the index of the rows scored, in the order of the
    detections' arrays (:func:`score_every_row`). Without an id column (``key`` None) a first
    column ``row`` holds the data row number. Rows not scored keep empty percentiles, scores
    and flags, and their ``notes`` (a text per row not scored, by index) in a last column
    ``note``, added only when there are such rows. A file column whose name an output takes
    is kept as ``<name> (file)``.
    """
    outputs = {f"{p}_{m}" for m in detections for p in ("percentile", "score", "is_outlier")}
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


def figure_sample_note(n_drawn: int, n_scored: int, n_file: int) -> str:
    """What the figure draws when it draws a sample, e.g. "Drawn from 5,000 of the 200,000
    rows (a uniform sample); every row is scored in the tables and the download."
    ``n_scored`` counts the rows scored, ``n_file`` the file's data rows (more when rows were
    left out or sampled); empty when every scored row is drawn."""
    if n_drawn >= n_scored:
        return ""
    if n_scored == n_file:
        return (
            f"Drawn from {n_drawn:,} of the {n_scored:,} rows (a uniform sample); every row is "
            "scored in the tables and the download."
        )
    return (
        f"Drawn from {n_drawn:,} of the {n_scored:,} rows scored (a uniform sample); all "
        f"{n_scored:,} are scored in the tables and the download."
    )


def column_problem(frame: pd.DataFrame, column: Hashable) -> str | None:
    """Why ``column`` of ``frame`` cannot be drawn or scored, or None.

    Checked on the column alone, missing values left out (:func:`~momkde_core.io.numeric_matrix`):
    text in it (naming the first such data row of the file, counted from 1 below the header:
    ``frame`` is the whole file, before any sampling), a constant column, fewer than 2 values.
    """
    from momkde_core.io import numeric_matrix

    try:
        numeric_matrix(frame, [column], drop_missing=True)
    except ValueError as err:
        return str(err)
    return None


def flag_share_note(
    label: str,
    flags: Mapping[str, np.ndarray],
    fit_rows: np.ndarray,
    eps: float,
    n_columns: int,
) -> str:
    """What share of the rows ``label`` flags, among the fitted rows and the others.

    Parameters
    ----------
    label : str
        The method the figure flags with, as the page names it (a key of ``flags``).
    flags : mapping of str to ndarray of bool, shape (n,)
        Every method's flags on every row scored, by name.
    fit_rows : ndarray of int
        The rows the methods were fitted on (a threshold is the ε-quantile of their scores).
    eps : float
        The stated share ε.
    n_columns : int
        The columns scored.

    Returns
    -------
    note : str
        The counts and shares; when rows were scored without being fitted on, their share
        too, and whether it differs from the fitted rows' by more than sampling error (two
        standard errors of the difference of two shares at ε). When it is higher, the reason
        (a fitted row counts its own kernel in its density) and every method's share of the
        other rows.
    """
    flagged = flags[label]
    n, n_fit = len(flagged), len(fit_rows)
    n_flagged = int(flagged.sum())
    text = (
        f"{label} flags {n_flagged:,} of {n:,} rows ({n_flagged / n:.1%}). Its threshold is "
        "the ε-quantile of the scores of the rows it was fitted on (as IsolationForest sets "
        f"it), so the stated share ε = {eps:g} of those rows is flagged, up to ties"
    )
    if n_fit == n:
        return text + "."
    others = np.ones(n, bool)
    others[fit_rows] = False
    share_fit, share_other = flagged[fit_rows].mean(), flagged[others].mean()
    noise = 2 * math.sqrt(eps * (1 - eps) * (1 / n_fit + 1 / (n - n_fit)))
    text += (
        f": {share_fit:.1%} of the {n_fit:,} fitted rows and {share_other:.1%} of the "
        f"{n - n_fit:,} others. "
    )
    if share_other - share_fit > noise:
        return text + (
            f"The others are flagged more often than sampling error explains (±{noise:.1%}): "
            "a fitted row counts its own kernel in its density and a row scored afresh does "
            "not, which lifts the fitted rows' scores, the more so the more columns (here "
            f"{n_columns}) and the smaller h, so a threshold set on them catches more of the "
            "others; a median over blocks is little moved by it (a row sits in one block of "
            "S). Share of the others flagged: "
            + ", ".join(f"{m} {f[others].mean():.1%}" for m, f in flags.items())
            + "."
        )
    if share_fit - share_other > noise:
        return (
            text + f"The others are flagged less often than sampling error explains (±{noise:.1%})."
        )
    return text + f"The difference is within sampling error (±{noise:.1%})."


def blocks_note(
    n: int, n_blocks: int, eps: float, auto: bool, n_outliers: int | None = None
) -> str:
    """Advice when MoM-KDE's blocks hold fewer than :data:`MIN_BLOCK_ROWS` rows, else "".

    Parameters
    ----------
    n : int
        The rows MoM-KDE is fitted on.
    n_blocks : int
        S, its blocks (S auto = 2⌈εn⌉+1 when ``auto``).
    eps : float
        The stated share ε (it also sets the share flagged).
    auto : bool
        Whether S is S auto.
    n_outliers : int, optional
        The label's outliers among the fitted rows, when a label is known.

    Returns
    -------
    note : str
        The rows per block n / S and what they do to the figure. Then, when the label's
        outliers need more blocks than smooth ones (S > 2|O| with at least
        :data:`MIN_BLOCK_ROWS` rows each is out of reach), that the unevenness is the price
        of robustness; otherwise, when S is auto, the largest ε of the page's slider (the
        most robust) whose S auto gives blocks of at least :data:`MIN_BLOCK_ROWS` rows, and,
        keeping ε, the largest S of the S slider that does, each with the outlying rows it
        can outvote (S > 2|O|); or that no S of 3 or more can.

    Examples
    --------
    >>> print(blocks_note(75, 17, 0.1, True))  # doctest: +ELLIPSIS
    MoM-KDE's S = 17 blocks hold 4.4 rows each (n / S = 75 / 17)... try ε = 0.04 (S auto = 7: 10.7 rows per block...
    """
    per_block = n / n_blocks
    if n_blocks < 3 or per_block >= MIN_BLOCK_ROWS:
        return ""
    text = (
        f"MoM-KDE's S = {n_blocks} blocks hold {per_block:.1f} rows each (n / S = {n:,} / "
        f"{n_blocks}), fewer than {MIN_BLOCK_ROWS}: the KDE of so few rows is a handful of "
        "separate bumps, and their median is uneven (a zig-zag curve, a jagged map with small "
        "peaks). "
    )
    smooth_blocks = [v for v in block_options(n) if v >= 3 and n / v >= MIN_BLOCK_ROWS]
    if not smooth_blocks:
        return text + (
            f"With {n:,} rows no S of 3 blocks or more gives {MIN_BLOCK_ROWS} rows per block: "
            "read MoM-KDE's curve as a rough outline."
        )
    blocks = smooth_blocks[-1]
    if n_outliers and blocks <= 2 * n_outliers:
        return text + (
            f"Smoother blocks cannot outvote the label's {n_outliers:,} outliers among the "
            f"fitted rows: that takes S > {2 * n_outliers:,}, blocks of at most "
            f"{n / (2 * n_outliers + 1):.1f} rows, so the unevenness is the price of "
            "robustness here."
        )
    keep = (
        f"keep ε and set S = {blocks} by hand (manual: {n / blocks:.1f} rows per block, "
        f"outvoting at most {(blocks - 1) // 2} outlying row(s), S > 2|O|"
        + (f", fewer than the εn = {eps * n:.3g} you state" if (blocks - 1) // 2 < eps * n else "")
        + ")"
    )
    shares = (round(k * SHARE_STEP, 2) for k in range(round(MAX_SHARE / SHARE_STEP), 0, -1))
    share = next((e for e in shares if n / n_blocks_for(n, e) >= MIN_BLOCK_ROWS), None)
    if not auto or share is None:
        return text + f"To smooth it, {keep}."
    s_auto = n_blocks_for(n, share)
    return text + (
        f"To smooth it, try ε = {share:g} (S auto = {s_auto}: {n / s_auto:.1f} rows per block, "
        f"outvoting at most {(s_auto - 1) // 2} outlying row(s); it also flags {share:.0%} of "
        f"the rows instead of {eps:.0%}), or {keep}."
    )
