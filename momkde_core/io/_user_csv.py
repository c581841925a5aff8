"""Reading a user's CSV for the app's upload page and ``momkde score``.

Every problem ends in a ``ValueError`` a person can act on: the separator and decimal mark
are sniffed, the encoding is decoded or refused, an empty or binary file is named as such. The
checks of the table read (text in numeric columns, missing values, constant columns, the float
matrix of the chosen columns) are in :mod:`momkde_core.io._checks`.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import pandas as pd

from ._checks import check_data_rows, check_has_numeric_column


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
