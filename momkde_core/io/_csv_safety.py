"""CSV files that are safe to open in a spreadsheet (no CSV injection).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (tab and
carriage return can hide such a start), so a text cell like ``=HYPERLINK("http://evil", "x")``
in a user's upload would run on the computer of whoever opens the scores we write.
Following OWASP's recommendation ("CSV Injection"), every text cell and column name that
starts with one of these characters and is not a plain number is prefixed with a single
quote, which spreadsheets show as text. Numbers, and text that is a plain number such as
``"-1.5"``, are written unchanged, so numeric columns read back as the same numbers.

Every CSV the project writes goes through :func:`write_csv` or :func:`to_csv_text`. Lines end
with CRLF, as RFC 4180 says: then a cell holding a carriage return is quoted (with "\n" line
ends, Python's csv writer leaves it bare, and a reader splits the row there).
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable
from typing import IO

import pandas as pd

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
#: The line end of every CSV written here: CRLF, as RFC 4180 says.
LINE_END = "\r\n"
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def is_formula_like(cell: object) -> bool:
    """Whether a spreadsheet could run ``cell`` as a formula.

    Parameters
    ----------
    cell : object
        A cell value or a column name.

    Returns
    -------
    formula_like : bool
        True for a string that starts with one of :data:`FORMULA_STARTS` (``=``, ``+``,
        ``-``, ``@``, tab, carriage return) and is not a plain number (``-2+3`` is a
        formula, ``-1.5`` not); False for anything that is not a string.

    See Also
    --------
    escape_cell : Escapes such a cell.

    Examples
    --------
    >>> from momkde_core.io import is_formula_like
    >>> is_formula_like("=1+1"), is_formula_like("-2+3"), is_formula_like("-1.5")
    (True, True, False)
    >>> is_formula_like(-1.5)
    False
    """
    return (
        isinstance(cell, str)
        and cell.startswith(FORMULA_STARTS)
        and _NUMBER.fullmatch(cell) is None
    )


def escape_cell(cell: Hashable) -> Hashable:
    """``cell`` with a leading single quote if it is formula-like, else unchanged.

    Spreadsheets show a cell that starts with a single quote as text (OWASP's
    recommendation against CSV injection).

    Parameters
    ----------
    cell : hashable
        A cell value or a column name.

    Returns
    -------
    cell : hashable
        The escaped string, or ``cell`` itself.

    See Also
    --------
    is_formula_like : What is escaped.
    escape_formulas : The same for a whole DataFrame.

    Examples
    --------
    >>> from momkde_core.io import escape_cell
    >>> escape_cell("=HYPERLINK(A1)")
    "'=HYPERLINK(A1)"
    >>> escape_cell("-1.5"), escape_cell(7)
    ('-1.5', 7)
    """
    return "'" + cell if is_formula_like(cell) else cell


def escape_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose formula-like text cells and column names start with a single quote.

    The index is not written by this module, so it is left as it is. Numeric (and boolean)
    columns are never formulas and are left unchanged, so they read back as the same
    numbers.

    Parameters
    ----------
    df : DataFrame
        The table.

    Returns
    -------
    escaped : DataFrame
        A copy, ``df`` itself unchanged.

    See Also
    --------
    write_csv, to_csv_text : Write a table escaped.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import escape_formulas
    >>> out = escape_formulas(pd.DataFrame({"=a": ["+1+1", "b"], "x": [-1.5, 2.0]}))
    >>> out.columns.tolist(), out["'=a"].tolist(), out["x"].tolist()
    (["'=a", 'x'], ["'+1+1", 'b'], [-1.5, 2.0])
    """
    out = df.copy()
    out.columns = [escape_cell(name) for name in df.columns]
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if pd.api.types.is_numeric_dtype(column):  # numbers and booleans are never formulas
            continue
        risky = column.map(is_formula_like, na_action="ignore").fillna(False).astype(bool)
        if risky.any():
            fixed = column.astype(object)
            fixed[risky] = "'" + fixed[risky]
            out.isetitem(position, fixed)
    return out


def write_csv(
    df: pd.DataFrame, path_or_buffer: str | os.PathLike[str] | IO[str], header: bool = True
) -> None:
    """Write ``df`` as CSV without its index, formula-like cells escaped.

    Parameters
    ----------
    df : DataFrame
        The table (:func:`escape_formulas` is applied to a copy).
    path_or_buffer : str, path-like or text file
        Where to write. To a file opened with ``newline=""`` (so that the CRLF line ends
        are kept as they are), the rows are appended where it stands.
    header : bool, default True
        Write the column names; False for the chunks after the first.

    See Also
    --------
    to_csv_text : The same CSV as a string.

    Examples
    --------
    >>> import io
    >>> import pandas as pd
    >>> from momkde_core.io import write_csv
    >>> buffer = io.StringIO()
    >>> write_csv(pd.DataFrame({"name": ["=cmd"], "x": [1.5]}), buffer)
    >>> write_csv(pd.DataFrame({"name": ["ok"], "x": [2.0]}), buffer, header=False)
    >>> buffer.getvalue()
    "name,x\\r\\n'=cmd,1.5\\r\\nok,2.0\\r\\n"
    """
    escape_formulas(df).to_csv(path_or_buffer, index=False, header=header, lineterminator=LINE_END)


def to_csv_text(df: pd.DataFrame) -> str:
    """The CSV text of ``df`` without its index, formula-like cells escaped (for downloads).

    Parameters
    ----------
    df : DataFrame
        The table.

    Returns
    -------
    text : str
        The CSV, lines ending with :data:`LINE_END` (CRLF).

    See Also
    --------
    write_csv : The same CSV to a file.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.io import to_csv_text
    >>> to_csv_text(pd.DataFrame({"name": ["@SUM(A1)", "ok"], "x": [-1.5, 2.0]}))
    "name,x\\r\\n'@SUM(A1),-1.5\\r\\nok,2.0\\r\\n"
    """
    return escape_formulas(df).to_csv(index=False, lineterminator=LINE_END)
