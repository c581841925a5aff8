"""The checks of a user's table: numeric columns, enough rows, no missing values, no
constant column; each ends in a ``ValueError`` that names the row and column to fix, and the
chosen columns become a float matrix."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal, overload

import numpy as np
import pandas as pd
from numpy.typing import NDArray


def check_has_numeric_column(frame: pd.DataFrame) -> None:
    """Raise a ValueError naming the columns when none of them holds numbers only.

    Parameters
    ----------
    frame : DataFrame
        The table read.

    Raises
    ------
    ValueError
        When no column is numeric (cells with units or currency signs are text).

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import check_has_numeric_column
    >>> check_has_numeric_column(pd.DataFrame({"x": [1.0], "name": ["a"]}))
    >>> check_has_numeric_column(pd.DataFrame({"price": ["3 €"]}))
    Traceback (most recent call last):
        ...
    ValueError: the file has no numeric column (columns: price); ...
    """
    if frame.select_dtypes("number").columns.empty:
        raise ValueError(
            f"the file has no numeric column (columns: {', '.join(map(str, frame.columns))}); "
            "check that the cells hold plain numbers (no units or currency signs)"
        )


def check_data_rows(n_rows: int) -> None:
    """Raise a ValueError when a file has a header but no data rows.

    Parameters
    ----------
    n_rows : int
        The number of data rows read.

    Raises
    ------
    ValueError
        When ``n_rows`` is 0.

    Examples
    --------
    >>> from momkde_core.io import check_data_rows
    >>> check_data_rows(3)
    >>> check_data_rows(0)
    Traceback (most recent call last):
        ...
    ValueError: the file has a header but no data rows
    """
    if n_rows == 0:
        raise ValueError("the file has a header but no data rows")


@overload
def numeric_matrix(
    df: pd.DataFrame, columns: Sequence[Hashable], drop_missing: Literal[False] = False
) -> NDArray[np.float64]: ...
@overload
def numeric_matrix(
    df: pd.DataFrame, columns: Sequence[Hashable], drop_missing: Literal[True]
) -> tuple[NDArray[np.float64], pd.Index]: ...
def numeric_matrix(
    df: pd.DataFrame, columns: Sequence[Hashable], drop_missing: bool = False
) -> NDArray[np.float64] | tuple[NDArray[np.float64], pd.Index]:
    """The selected columns of ``df`` as a float matrix of shape (n, len(columns)), validated.

    Parameters
    ----------
    df : DataFrame
        The table (e.g. from :func:`read_user_csv`).
    columns : sequence of hashable
        The columns to use.
    drop_missing : bool, default False
        Drop the rows with a missing or infinite value instead of raising.

    Returns
    -------
    X : ndarray of shape (n, len(columns))
        The float matrix.
    kept_index : Index
        Only with ``drop_missing=True``, returned as ``(X, kept_index)``: the index labels
        of the rows kept.

    Raises
    ------
    ValueError
        Naming the column, when a column is unknown, holds text (with the first offending
        data row, counted from 1 below the header, and its value), has missing or infinite
        values (with their count), or is constant (its density is degenerate), or when
        fewer than 2 rows remain.

    See Also
    --------
    check_numeric_columns, missing_values_error, check_enough_rows, check_not_constant :
        The checks one by one, usable on a file read in chunks.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from momkde_core.io import numeric_matrix
    >>> df = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0], "y": [0.5, 0.1, 0.2, 0.3]})
    >>> X, kept = numeric_matrix(df, ["x", "y"], drop_missing=True)
    >>> X.shape, kept.tolist()
    ((3, 2), [0, 1, 3])
    >>> numeric_matrix(df, ["x", "y"])
    Traceback (most recent call last):
        ...
    ValueError: 1 row(s) have missing or infinite values (per column: 'x': 1); ...
    """
    columns = check_numeric_columns(df, columns)
    X = float_columns(df, columns)
    bad = ~np.isfinite(X)
    if bad.any() and not drop_missing:
        raise missing_values_error(columns, bad.sum(axis=0), int(bad.any(axis=1).sum()))
    keep = ~bad.any(axis=1)
    X = X[keep]
    check_enough_rows(len(X))
    check_not_constant(columns, np.ptp(X, axis=0))
    return (X, df.index[keep]) if drop_missing else X


def check_numeric_columns(
    df: pd.DataFrame,
    columns: Hashable | Sequence[Hashable],
    first_row: int = 0,
    partial: bool = False,
) -> list[Hashable]:
    """``columns`` as a list, after checking that each is in ``df`` and holds only numbers.

    Missing values are allowed.

    Parameters
    ----------
    df : DataFrame
        The table, or a chunk of a larger file.
    columns : hashable or sequence of hashable
        The columns (a string is one column).
    first_row : int, default 0
        For a chunk of a larger file, the number of data rows before it (the rows named in
        messages count from the file's header).
    partial : bool, default False
        True says that the count of text cells in the message is the chunk's.

    Returns
    -------
    columns : list
        The columns.

    Raises
    ------
    ValueError
        Naming the first column that is not in ``df`` or holds text (with the first such
        data row and its value), or when no column is given.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import check_numeric_columns
    >>> df = pd.DataFrame({"x": [1.0, None], "note": ["a", "2"]})
    >>> check_numeric_columns(df, "x")
    ['x']
    >>> check_numeric_columns(df, ["note"], first_row=10)
    Traceback (most recent call last):
        ...
    ValueError: column 'note' is not numeric: data row 11 holds 'a' (1 non-numeric value(s))
    """
    columns = [columns] if isinstance(columns, str) else list(columns)
    if not columns:
        raise ValueError("select at least one column")
    for column in columns:
        if column not in df.columns:
            raise ValueError(
                f"no column named {column!r}; columns are: {', '.join(map(str, df.columns))}"
            )
        as_numbers = pd.to_numeric(df[column], errors="coerce")
        text = as_numbers.isna() & df[column].notna()
        if text.any():
            row = int(np.argmax(text.to_numpy()))
            among = f" among data rows {first_row + 1}-{first_row + len(df)}" if partial else ""
            raise ValueError(
                f"column {column!r} is not numeric: data row {first_row + row + 1} holds "
                f"{df[column].iloc[row]!r} ({int(text.sum())} non-numeric value(s){among})"
            )
    return columns


def float_columns(df: pd.DataFrame, columns: list[Hashable]) -> NDArray[np.float64]:
    """Columns checked by :func:`check_numeric_columns` as a float matrix (NaN where missing).

    Parameters
    ----------
    df : DataFrame
        The table.
    columns : list of hashable
        Columns that hold only numbers or missing values.

    Returns
    -------
    X : ndarray of shape (len(df), len(columns))
        The values, NaN where missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import float_columns
    >>> X = float_columns(pd.DataFrame({"x": ["1", None], "y": [2, 3]}), ["x", "y"])
    >>> X.shape, X.dtype.name, X[1].tolist()
    ((2, 2), 'float64', [nan, 3.0])
    """
    return df[columns].apply(pd.to_numeric).to_numpy(dtype=float)


def missing_values_error(
    columns: list[Hashable],
    per_column: Sequence[int],
    n_rows: int,
    remedy: str = "drop_missing=True",
) -> ValueError:
    """The error for ``n_rows`` rows with missing or infinite values.

    Parameters
    ----------
    columns : list of hashable
        The columns checked.
    per_column : sequence of int
        The count of missing or infinite values in each column.
    n_rows : int
        The number of rows with at least one.
    remedy : str, default "drop_missing=True"
        The switch that drops them (``--drop-missing`` on the command line).

    Returns
    -------
    error : ValueError
        The error, to raise; it names the columns with a non-zero count.

    Examples
    --------
    >>> from momkde_core.io import missing_values_error
    >>> err = missing_values_error(["x", "y"], [2, 0], 2, remedy="--drop-missing")
    >>> print(err)
    2 row(s) have missing or infinite values (per column: 'x': 2); drop those rows ...
    >>> "(--drop-missing)" in str(err)
    True
    """
    counts = ", ".join(f"{col!r}: {n}" for col, n in zip(columns, per_column, strict=True) if n)
    return ValueError(
        f"{n_rows} row(s) have missing or infinite values "
        f"(per column: {counts}); drop those rows ({remedy}) or fill them in"
    )


def check_enough_rows(n_rows: int) -> None:
    """Raise a ValueError when fewer than 2 complete rows are left (a density needs a spread).

    Parameters
    ----------
    n_rows : int
        The number of complete rows.

    Raises
    ------
    ValueError
        When ``n_rows`` < 2.

    Examples
    --------
    >>> from momkde_core.io import check_enough_rows
    >>> check_enough_rows(2)
    >>> check_enough_rows(1)
    Traceback (most recent call last):
        ...
    ValueError: at least 2 complete rows are needed, 1 left
    """
    if n_rows < 2:
        raise ValueError(f"at least 2 complete rows are needed, {n_rows} left")


def check_not_constant(columns: list[Hashable], spread: Sequence[float]) -> None:
    """Raise a ValueError naming the constant columns.

    Parameters
    ----------
    columns : list of hashable
        The columns.
    spread : sequence of float
        max - min of each column.

    Raises
    ------
    ValueError
        When some spread is 0: a density needs spread in every column.

    Examples
    --------
    >>> from momkde_core.io import check_not_constant
    >>> check_not_constant(["x", "y"], [1.5, 2.0])
    >>> check_not_constant(["x", "y"], [1.5, 0.0])
    Traceback (most recent call last):
        ...
    ValueError: column(s) 'y' are constant; a density needs spread in every column
    """
    constant = [col for col, s in zip(columns, spread, strict=True) if s == 0]
    if constant:
        raise ValueError(
            f"column(s) {', '.join(map(repr, constant))} are constant; "
            "a density needs spread in every column"
        )


def text_in_numeric_columns(df: pd.DataFrame) -> list[Hashable]:
    """Text columns whose values are mostly numbers: numbers with a few typos or notes.

    pandas reads such a column as text, so it silently drops out of the numeric columns;
    the app names them (with :func:`numeric_matrix`'s message) instead of ignoring them.

    Parameters
    ----------
    df : DataFrame
        The table.

    Returns
    -------
    columns : list
        The non-numeric columns in which at least half of the non-missing values parse as
        numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import text_in_numeric_columns
    >>> df = pd.DataFrame({"v": ["1", "2", "3", "n/a?"], "w": ["a", "b", "c", "d"]})
    >>> text_in_numeric_columns(df)
    ['v']
    """
    flagged = []
    for column in df.columns:
        if not pd.api.types.is_numeric_dtype(df[column]):
            values = df[column].dropna()
            if len(values) and pd.to_numeric(values, errors="coerce").notna().mean() >= 0.5:
                flagged.append(column)
    return flagged
