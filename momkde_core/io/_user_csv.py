"""Reading a user's CSV for the app's upload page and ``momkde score``.

Every check ends in a ``ValueError`` a person can act on: the separator and decimal mark are
sniffed, the encoding is decoded or refused, text in numeric columns, missing values and
constant columns are named, and the chosen columns are turned into a float matrix.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Literal, overload

import numpy as np
import pandas as pd
from numpy.typing import NDArray


def read_user_csv(
    file_or_buffer: str | os.PathLike[str] | IO[bytes] | IO[str], max_bytes: int = 200 * 2**20
) -> pd.DataFrame:
    """Read a user's CSV (a path or an open file, e.g. Streamlit's upload) into a DataFrame.

    The first line is the header. The text encoding is found by :func:`_decode` (UTF-8,
    UTF-16 / UTF-32 with or without a byte-order mark, else Windows-1252, the Latin-1 of
    spreadsheets saved on Windows), the separator is guessed among ``, ; tab |`` from the
    start of the file (comma when unsure), and with a separator other than the comma a
    decimal comma (``1,5``) is read as a number when the data hold more of those than of
    decimal points (European spreadsheets).

    Parameters
    ----------
    file_or_buffer : str, path-like or file
        A path, or an open file in binary or text mode.
    max_bytes : int, default 200 MiB
        The largest file accepted.

    Returns
    -------
    frame : DataFrame
        The table. What was found is in ``frame.attrs`` (``encoding``, ``separator``,
        ``decimal``) so the app can say it. Columns with text are kept:
        :func:`numeric_matrix` reports them if they are selected.

    Raises
    ------
    ValueError
        With a message for the user, when the file is larger than ``max_bytes``, empty,
        binary, not parseable as CSV (including data rows with more fields than the header),
        has no data rows, or has no numeric column.

    See Also
    --------
    sniff_csv_file, read_csv_chunks : Read a file on disk the same way in chunks, without
        the size limit.
    numeric_matrix : The chosen columns as a float matrix.

    Examples
    --------
    >>> import io
    >>> from momkde_core.io import read_user_csv
    >>> raw = "température;débit\\n1,5;2\\n3,0;4\\n2,5;1\\n".encode("cp1252")
    >>> frame = read_user_csv(io.BytesIO(raw))
    >>> frame.shape, frame["température"].tolist()
    ((3, 2), [1.5, 3.0, 2.5])
    >>> frame.attrs
    {'encoding': 'cp1252', 'separator': ';', 'decimal': ','}
    """
    if isinstance(file_or_buffer, (str, os.PathLike)):
        with open(file_or_buffer, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    else:
        raw = file_or_buffer.read(max_bytes + 1)
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if len(raw) > max_bytes:
        raise ValueError(
            f"the file is larger than the limit of {max_bytes:,} bytes; use a smaller extract"
        )
    if not raw.strip():
        raise _empty_file()
    text, encoding = _decode(raw)
    if "\x00" in text:
        raise _binary_file()
    sep = _guess_separator(text)
    decimal = _guess_decimal(text, sep)
    frame = next(_parsed_chunks(io.StringIO(text), sep, decimal, chunksize=None))
    check_data_rows(len(frame))
    check_has_numeric_column(frame)
    frame.attrs.update(encoding=encoding, separator=sep, decimal=decimal)
    return frame


@dataclass(frozen=True)
class CsvFormat:
    """How a CSV file is written, as :func:`read_user_csv` finds it.

    Made by :func:`sniff_csv_file`, read by :func:`read_csv_chunks`.

    Attributes
    ----------
    encoding : str
        The name reported to the user.
    codec : str
        The Python codec that decodes the file (``utf-8-sig`` drops a byte-order mark that
        ``encoding`` calls ``utf-8``).
    separator : str
        One of ``, ; tab |``.
    decimal : str
        The decimal mark, ``"."`` or ``","``.

    Examples
    --------
    >>> from momkde_core.io import CsvFormat
    >>> CsvFormat("utf-8", "utf-8-sig", ",", ".").codec
    'utf-8-sig'
    """

    encoding: str
    codec: str
    separator: str
    decimal: str


_SNIFF_CHARS = 65536  # the separator and the decimal mark are guessed from this many characters
_SCAN_BLOCK = 2**20  # bytes read at a time when a file on disk is scanned


def sniff_csv_file(path: str | os.PathLike[str]) -> CsvFormat:
    """The encoding, separator and decimal mark of a CSV file on disk.

    The file is read in blocks (so a file larger than memory is fine): the choices and
    errors of :func:`read_user_csv`, whose UTF-8 test and binary test cover the whole file,
    without its size limit.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    fmt : CsvFormat
        What :func:`read_csv_chunks` needs to parse it.

    Raises
    ------
    ValueError
        When the file is empty or binary.
    OSError
        When it cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from momkde_core.io import sniff_csv_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "data.csv"
    ...     _ = path.write_bytes("température;débit\\n1,5;2\\n3,0;4\\n".encode("cp1252"))
    ...     fmt = sniff_csv_file(path)
    >>> fmt
    CsvFormat(encoding='cp1252', codec='cp1252', separator=';', decimal=',')
    """
    with open(path, "rb") as fh:
        head = fh.read(4 * _SNIFF_CHARS + 4)  # at least _SNIFF_CHARS characters in any codec
        marked = _marked_encoding(head)
        # marked: its decoder finds the NULs; else a NUL byte is a NUL, and UTF-8 is checked
        text = codecs.getincrementaldecoder(marked[0])(errors="replace") if marked else None
        utf8 = None if marked else codecs.getincrementaldecoder("utf-8")()
        blank, block = True, head
        while block:
            blank = blank and not block.strip()
            if ("\x00" in text.decode(block)) if text else (b"\x00" in block):
                raise _binary_file()
            utf8 = _still_utf8(utf8, block)
            block = fh.read(_SCAN_BLOCK)
    if blank:
        raise _empty_file()
    if marked:
        codec, encoding = marked
    else:
        codec = encoding = "utf-8" if _still_utf8(utf8, b"", final=True) else "cp1252"
    text_head = head.decode(codec, errors="replace")
    sep = _guess_separator(text_head)
    return CsvFormat(encoding, codec, sep, _guess_decimal(text_head, sep))


def _still_utf8(
    decoder: codecs.IncrementalDecoder | None, block: bytes, final: bool = False
) -> codecs.IncrementalDecoder | None:
    """``decoder`` if the bytes so far and ``block`` are valid UTF-8, else None."""
    if decoder is None:
        return None
    try:
        decoder.decode(block, final=final)
    except UnicodeDecodeError:
        return None
    return decoder


def read_csv_chunks(
    path: str | os.PathLike[str], fmt: CsvFormat, chunksize: int, dtype: dict | None = None
) -> Iterator[pd.DataFrame]:
    """The data rows of a CSV file in DataFrames of at most ``chunksize`` rows.

    Parsed as :func:`read_user_csv` parses, with the same ValueErrors for rows it cannot
    parse.

    Parameters
    ----------
    path : str or path-like
        The file.
    fmt : CsvFormat
        Its format, from :func:`sniff_csv_file`.
    chunksize : int
        The most rows per chunk.
    dtype : dict, optional
        Column types, as pandas' ``dtype``.

    Yields
    ------
    chunk : DataFrame
        The next rows. The index counts the data rows from 0 across chunks. A file with a
        header and no data rows gives one empty chunk.

    Raises
    ------
    ValueError
        For rows it cannot parse (including data rows with more fields than the header).

    Notes
    -----
    pandas infers each column's type per chunk: a column of integers is read as floats in
    the chunks where it has missing values, unless ``dtype`` fixes it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from momkde_core.io import read_csv_chunks, sniff_csv_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "data.csv"
    ...     _ = path.write_text("a,b\\n1,2\\n3,4\\n5,6\\n")
    ...     chunks = list(read_csv_chunks(path, sniff_csv_file(path), chunksize=2))
    >>> [chunk.shape for chunk in chunks], chunks[1].index.tolist()
    ([(2, 2), (1, 2)], [2])
    """
    with open(path, encoding=fmt.codec, errors="replace", newline="") as fh:
        yield from _parsed_chunks(fh, fmt.separator, fmt.decimal, chunksize, dtype)


def _parsed_chunks(
    source: IO[str], sep: str, decimal: str, chunksize: int | None, dtype: dict | None = None
) -> Iterator[pd.DataFrame]:
    """pandas' parse of ``source`` in chunks (one chunk: None), its errors as ValueErrors."""
    first = 0
    try:
        reader = pd.read_csv(source, sep=sep, decimal=decimal, dtype=dtype, chunksize=chunksize)
        for chunk in [reader] if chunksize is None else reader:
            # pandas moves extra fields into the index
            if not chunk.index.equals(pd.RangeIndex(first, first + len(chunk))):
                raise ValueError(
                    f"the data rows have more fields than the header ({chunk.shape[1]} names); "
                    "is there a separator at the end of the lines, or a missing column name?"
                )
            first += len(chunk)
            yield chunk
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ValueError(f"the file could not be read as CSV: {exc}") from exc


def _empty_file() -> ValueError:
    return ValueError("the file is empty")


def _binary_file() -> ValueError:
    return ValueError("the file is binary, not CSV text (a spreadsheet? save it as CSV first)")


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


_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _decode(raw: bytes) -> tuple[str, str]:
    """The text of a CSV file and the name of its encoding.

    A byte-order mark names the encoding; UTF-16 without one shows as a NUL byte in every
    other position (ASCII text), which is told apart from a binary file's scattered NULs.
    Otherwise UTF-8 if the bytes are valid UTF-8, else Windows-1252 (a superset of Latin-1's
    printable characters: what spreadsheets on Windows write), so that "température" is
    not mangled into replacement characters. A binary file decodes to text holding NULs.
    """
    marked = _marked_encoding(raw)
    if marked:
        return raw.decode(marked[0], errors="replace"), marked[1]
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace"), "cp1252"


def _marked_encoding(head: bytes) -> tuple[str, str] | None:
    """(codec, name) of the encoding that the start of a file shows by itself (a byte-order
    mark, or UTF-16 without one), else None."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, name.removesuffix("-sig")
    head = head[:4096]
    if len(head) >= 4:
        even, odd = head[0::2], head[1::2]
        for zeros, other, name in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
            if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) <= 0.1 * len(other):
                return name, name
    return None


def _guess_decimal(text: str, sep: str) -> str:
    """ "," when the separator is not the comma and the first lines hold more decimal commas
    (a digit, a comma, a digit) than decimal points, else "."."""
    if sep == ",":
        return "."
    head = "\n".join(text[:_SNIFF_CHARS].splitlines()[1:50])
    return "," if len(re.findall(r"\d,\d", head)) > len(re.findall(r"\d\.\d", head)) else "."


def _guess_separator(text: str) -> str:
    """The CSV separator among , ; tab | guessed from the first complete lines (comma if unsure)."""
    head = "\n".join(text[:_SNIFF_CHARS].splitlines()[:50])
    try:
        return csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
