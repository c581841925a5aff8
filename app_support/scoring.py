"""Scoring every row of an uploaded table, and what the Your data page says about it.

The page fits each detector on a uniform sample of at most :data:`MAX_FIT` rows (RKDE and
SPKDE learn in O(n^2)) and scores **every** row of the file with its ``decision_function``,
in chunks of :data:`SCORE_CHUNK` rows, cached on the file's identity and the settings (not
on the arrays, which would be hashed at every rerun). The figure draws a uniform sample of at
most :data:`MAX_DRAWN` rows and says so; the tables and the download hold every row, named
by the file's own data row (1 = the first line below the header, as the library's error
messages count rows) or by the file's id column.

A file over the page's limits (:func:`upload_limit_bytes`, :data:`MAX_SCORED_ROWS`) is
pointed to ``momkde score``, which reads a file of any size in chunks
(:func:`score_command` writes the command for the page's choices).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from momkde_core import OutlierDetector

from .compute import Settings, make_estimator
from .tables import ColumnRoles, guess_roles

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


def upload_limit_bytes() -> int:
    """The largest upload, in bytes: ``server.maxUploadSize`` of ``.streamlit/config.toml``
    (megabytes of 2^20 bytes, as Streamlit counts them; 200 by default)."""
    return int(st.get_option("server.maxUploadSize")) * 2**20


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


@st.cache_data(max_entries=16, show_spinner=False)
def score_every_row(
    key: Hashable,
    method: str,
    h: float,
    s: Settings,
    contamination: float,
    _X_fit: np.ndarray,
    _X: np.ndarray,
) -> dict[str, np.ndarray]:
    """``method`` as an :class:`~momkde_core.OutlierDetector` fitted on ``_X_fit`` and applied
    to every row of ``_X`` in chunks of :data:`SCORE_CHUNK` rows.

    Cached on ``key`` (which must determine ``_X_fit`` and ``_X``: the file's identity, its
    columns, missing-value and scaling choices, the fit sample's seed) and the settings; the
    arrays are not hashed. No Streamlit element is drawn here (a cached function replays its
    elements on a hit, and one drawn into a placeholder of the page cannot be replayed): the
    page wraps the call in a spinner.

    Returns ``score`` (the decision function: log density minus the threshold, negative for
    outliers, the lower the more anomalous), ``flagged`` (score < 0) and ``order`` (the rows
    from the most anomalous, a stable sort). The threshold is the ``contamination`` quantile of
    the scores of ``_X_fit``, so that share of the fitted rows is flagged, up to ties.

    The detector wraps the estimator the page draws (same h, S, kernel), so the figure, the
    tables and the flags all follow the sidebar; ``momkde score`` builds its own from the
    method name (:func:`~momkde_core.make_detector`).
    """
    detector = OutlierDetector(make_estimator(method, h, s), contamination=contamination)
    detector.fit(_X_fit)
    n = len(_X)
    score = np.empty(n)
    for start in range(0, n, SCORE_CHUNK):
        stop = min(start + SCORE_CHUNK, n)
        score[start:stop] = detector.decision_function(_X[start:stop])
    return {"score": score, "flagged": score < 0, "order": np.argsort(score, kind="stable")}


def scored_table(
    frame: pd.DataFrame,
    analysed: pd.Index,
    detections: Mapping[str, Mapping[str, np.ndarray]],
    key: Hashable | None,
    notes: pd.Series | None = None,
) -> pd.DataFrame:
    """Every row of ``frame`` with, per method, ``score_<method>`` and ``is_outlier_<method>``.

    ``frame`` is the table read (its index + 1 is the data row: the file's RangeIndex, kept
    when rows are sampled); ``analysed`` the index of the rows scored, in the order of the
    detections' arrays. Without an id column (``key`` None) a first column ``row`` holds the
    data row number. Rows not scored keep empty scores and flags, and their ``notes`` (a text
    per row not scored, by index) in a last column ``note``, added only when there are such
    rows. A file column whose name an output takes is kept as ``<name> (file)``.
    """
    outputs = {f"{p}_{m}" for m in detections for p in ("score", "is_outlier")}
    out = frame.rename(columns=lambda c: f"{c} (file)" if str(c) in outputs else c)
    if key is None:
        out.insert(0, free_name(ROW, out.columns), frame.index + 1)
    where = out.index.get_indexer(analysed)
    complete = len(analysed) == len(frame)
    for method, d in detections.items():
        score = np.full(len(frame), np.nan)
        score[where] = d["score"]
        out[f"score_{method}"] = score
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


@st.cache_data(max_entries=4, show_spinner=False)
def roles_of(identity: str, _frame: pd.DataFrame) -> ColumnRoles:
    """The default column roles of the file ``identity`` (guessed once per file, on every row:
    ``guess_roles`` counts distinct values, which costs seconds on a large file)."""
    return guess_roles(_frame)


@st.cache_data(max_entries=2, show_spinner=False)
def scored_csv(key: Hashable, _build: Callable[[], pd.DataFrame]) -> str:
    """The download's CSV text (formula-like cells escaped, ``momkde_core.io.to_csv_text``),
    cached on ``key`` (the scores' keys: everything the table depends on)."""
    from momkde_core.io import to_csv_text

    return to_csv_text(_build())


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
