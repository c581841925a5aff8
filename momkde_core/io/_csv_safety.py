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
LINE_END = "\r\n"
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def is_formula_like(cell: object) -> bool:
    """True for a string that a spreadsheet could run as a formula: it starts with one of
    :data:`FORMULA_STARTS` and is not a plain number (``-2+3`` is a formula, ``-1.5`` not)."""
    return (
        isinstance(cell, str)
        and cell.startswith(FORMULA_STARTS)
        and _NUMBER.fullmatch(cell) is None
    )


def escape_cell(cell: Hashable) -> Hashable:
    """``cell`` with a leading single quote if it is formula-like, else unchanged."""
    return "'" + cell if is_formula_like(cell) else cell


def escape_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose formula-like text cells and column names start with a single
    quote (the index is not written by this module, so it is left as it is)."""
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
    """Write ``df`` without its index, formula-like cells escaped. To a file opened with
    ``newline=""`` (so that the CRLF line ends are kept as they are), the rows are appended
    where it stands: ``header=False`` for the chunks after the first."""
    escape_formulas(df).to_csv(path_or_buffer, index=False, header=header, lineterminator=LINE_END)


def to_csv_text(df: pd.DataFrame) -> str:
    """The CSV text of ``df`` without its index, formula-like cells escaped (for downloads)."""
    return escape_formulas(df).to_csv(index=False, lineterminator=LINE_END)
