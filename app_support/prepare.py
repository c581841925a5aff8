"""Your data's table prepared for the estimators, and the key its scores are cached on.

The page reads a file and the user picks the columns drawn and scored and two toggles (drop
the rows missing a value, standardise); :func:`prepare_table` turns those into what the
estimators read: the rows scored (a sample of a file over the page's limit, without the rows
missing a value in a numeric column drawn or scored when asked), the matrix drawn, the input
scored (:func:`detector_input`, as ``momkde score`` builds it) and
:attr:`PreparedTable.key`, a digest of those rows and that input. No Streamlit here: the page
caches it with ``st.cache_data`` (:func:`app_support.cache.prepared_table`), so that every
choice is part of its cache key, and caches the scores on the digest, which changes with
anything they are computed from. The checks of a column chosen (:func:`column_problem`,
:func:`categorical_problem`: why it cannot be drawn or scored) are here too; the page says
them before it prepares the table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from momkde_core.cli._scan import dates_as_days
from momkde_core.estimators._mixed_columns import MAX_LEVELS
from momkde_core.io import numeric_matrix

from .compute import row_sample, standardized
from .tables import ColumnRoles


@dataclass(frozen=True, eq=False)
class PreparedTable:
    """What the estimators read of a file, and what the page says of it.

    Attributes
    ----------
    rows : Index
        The file's rows the page scores: every row, or a sample of a file over the page's
        limit (labels of the file's index: data row = label + 1).
    kept : Index
        The rows of ``rows`` scored: without those missing a value in ``used`` when the
        page drops them.
    used : tuple
        The columns whose missing values leave a row out: the numeric columns drawn or
        scored (a missing value of a categorical column is a level).
    X_plot : ndarray or None
        The columns drawn, of the rows ``kept`` (standardised when asked); None when none is
        drawn.
    X_score : ndarray, DataFrame or None
        The columns scored, of the rows ``kept``, as the detectors read them; None when none
        is.
    key : str
        The SHA-256 of ``rows``, ``kept`` and ``X_score`` (:func:`fingerprint`): with the
        fitted rows, it determines every score.

    The rows are labels, not copies of the file: the cache holds the matrices alone.
    """

    rows: pd.Index
    kept: pd.Index
    used: tuple[Hashable, ...]
    X_plot: np.ndarray | None
    X_score: np.ndarray | pd.DataFrame | None
    key: str

    @property
    def unscored(self) -> pd.Index:
        """The rows of ``rows`` left out for a missing value."""
        return self.rows.difference(self.kept)


def fingerprint(*parts: object) -> str:
    """The SHA-256 of ``parts``: arrays and tables by their shape, types and values (tables
    with their index and column names), anything else by its ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> fingerprint(np.zeros(3)) == fingerprint(np.zeros(3))
    True
    >>> fingerprint(np.zeros(3)) == fingerprint(np.zeros((3, 1)))
    False
    """
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, pd.DataFrame):
            described = (part.shape, [str(c) for c in part.columns], [str(t) for t in part.dtypes])
            digest.update(repr(described).encode())
            digest.update(pd.util.hash_pandas_object(part, index=True).to_numpy().tobytes())
        elif isinstance(part, np.ndarray):
            digest.update(repr((part.shape, part.dtype.str)).encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        elif isinstance(part, pd.Index):
            digest.update(repr((len(part), str(part.dtype))).encode())
            digest.update(pd.util.hash_pandas_object(part).to_numpy().tobytes())
        else:
            digest.update(repr(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def detector_input(
    data: pd.DataFrame,
    columns: Sequence[Hashable],
    categorical: Sequence[Hashable],
    dates: Sequence[Hashable],
    scale: bool,
) -> np.ndarray | pd.DataFrame:
    """What the detectors read of the ``columns`` scored of ``data``, as ``momkde score``
    builds it: the numbers (the ``dates`` among them as days since 1970-01-01) standardised
    when ``scale``, and with ``categorical`` columns a table of every column in the order
    of ``columns``, the categorical ones as strings (a missing value: a level); else an array.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"x": [1.0, 3.0], "town": ["a", None]})
    >>> detector_input(data, ["x", "town"], ["town"], [], scale=True)
         x  town
    0 -1.0     a
    1  1.0  <NA>
    """
    numbers = [c for c in columns if c not in categorical]
    read = dates_as_days(data, [c for c in dates if c in numbers])
    X = numeric_matrix(read, numbers) if numbers else np.empty((len(data), 0))
    X = standardized(X) if scale and numbers else X
    if not categorical:
        return X
    table = pd.DataFrame(X, columns=[str(c) for c in numbers])
    for column in categorical:
        table[str(column)] = pd.Series(data[column].to_numpy(dtype=object), dtype=object).astype(
            "string"
        )
    return table[[str(c) for c in columns]]


def categorical_problem(frame: pd.DataFrame, column: Hashable) -> str | None:
    """Why ``column`` of ``frame`` cannot be scored as categorical, or None: more levels
    than a categorical column may have (:data:`~momkde_core.estimators._mixed_columns.MAX_LEVELS`).

    Examples
    --------
    >>> import pandas as pd
    >>> categorical_problem(pd.DataFrame({"c": [f"k{i}" for i in range(1500)]}), "c")
    "'c' has 1,500 levels: a categorical column may have at most 1,000 (an id or free text says nothing of a density)"
    """
    levels = int(frame[column].nunique(dropna=False))
    if levels <= MAX_LEVELS:
        return None
    return (
        f"{column!r} has {levels:,} levels: a categorical column may have at most "
        f"{MAX_LEVELS:,} (an id or free text says nothing of a density)"
    )


def column_problem(frame: pd.DataFrame, column: Hashable) -> str | None:
    """Why ``column`` of ``frame`` cannot be drawn or scored, or None.

    Checked on the column alone, missing values left out (:func:`~momkde_core.io.numeric_matrix`):
    text in it (naming the first such data row of the file, counted from 1 below the header:
    ``frame`` is the whole file, before any sampling), a constant column, fewer than 2 values.
    """
    try:
        numeric_matrix(frame, [column], drop_missing=True)
    except ValueError as err:
        return str(err)
    return None


def prepare_table(
    frame: pd.DataFrame,
    roles: ColumnRoles,
    plot_columns: Sequence[Hashable],
    score_columns: Sequence[Hashable],
    drop_missing: bool,
    scale: bool,
    max_rows: int,
) -> PreparedTable:
    """The file ``frame`` prepared for the estimators with the page's choices.

    Parameters
    ----------
    frame : DataFrame
        The file, as read (every row).
    roles : ColumnRoles
        Its columns' roles (:func:`~app_support.tables.guess_roles`): which are categorical,
        which are dates.
    plot_columns, score_columns : sequence
        The columns drawn and scored (already checked: each can be used).
    drop_missing : bool
        Whether a row missing a value in a numeric column drawn or scored is left out (else
        such a value is an error of the library's, said by the page).
    scale : bool
        Whether the numeric columns are standardised.
    max_rows : int
        The most rows scored: a larger file is scored on a sample of that many (seed 0).

    Returns
    -------
    table : PreparedTable

    Raises
    ------
    ValueError
        When a numeric column drawn or scored misses a value and ``drop_missing`` is False.

    Examples
    --------
    >>> import pandas as pd
    >>> from app_support.tables import guess_roles
    >>> frame = pd.DataFrame({"x": [1.0, None, 3.0, 5.0], "y": [2.0, 4.0, 6.0, 9.0]})
    >>> table = prepare_table(frame, guess_roles(frame), ["x"], ["x", "y"], True, True, 10)
    >>> list(table.unscored), table.X_score.shape
    ([1], (3, 2))
    """
    if len(frame) > max_rows:  # the rows keep their index: data row = index + 1
        frame = frame.iloc[row_sample(len(frame), max_rows, 0)]
    columns = dict.fromkeys([*plot_columns, *score_columns])
    used = tuple(c for c in columns if c not in roles.categorical)
    kept = frame.index
    if drop_missing and used:
        read = dates_as_days(frame, list(roles.dates))
        _, kept = numeric_matrix(read, list(used), drop_missing=True)
    data = frame.loc[kept]
    X_plot = numeric_matrix(data, list(plot_columns)) if plot_columns else None
    if X_plot is not None and scale:
        X_plot = standardized(X_plot)
    X_score = (
        detector_input(data, score_columns, roles.categorical, roles.dates, scale)
        if score_columns
        else None
    )
    key = fingerprint(frame.index, kept, X_score)
    return PreparedTable(frame.index, kept, used, X_plot, X_score, key)
