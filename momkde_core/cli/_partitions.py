"""The partitions of a CSV file that ``momkde score`` reads, scores and writes one at a time.

Both passes of ``momkde score``, and every worker of its second pass, read the same
partitions, parsed the same way, so a run in one process and a run on many give the same
rows to the detectors in the same groups (the engine's sums round alike only for the same
groups) and the same output.

**Byte ranges.** For a file in an encoding where a byte below 128 is always that ASCII
character (UTF-8, with or without a byte-order mark, and Windows-1252: what
:func:`momkde_core.io.sniff_csv_file` finds for all but UTF-16 and UTF-32 files), the file
is cut into ranges of bytes of ``chunksize`` records each. A record ends at a line end
(``\\n``, ``\\r\\n`` or a lone ``\\r``, as pandas reads them) outside double quotes: the
count of ``"`` before it is even, which holds in every CSV file that quotes as RFC 4180 says
(a quoted field may hold separators, doubled quotes and line ends). The scan is done with
numpy over blocks of bytes during the first pass, which reads the file once. Each range is
parsed on its own with the header's column names (``header=None, names=...``): a worker
that knows the offsets seeks there and reads only its rows.

A stray quote inside an unquoted field (``5'10"``) breaks the count. Then a cut may fall
inside a quoted field that holds a line end; pandas refuses the range ("EOF inside string"),
and the range is joined with the next one and parsed again, so the file is still read as a
whole (such a range is longer than ``chunksize`` records). Without quoted line ends every
line end is a record end, and any cut is right.

**Read by the client.** Files in UTF-16 or UTF-32 (where the byte of ``\\n`` also occurs
inside other characters), and files whose header is not one record in the first MiB (blank
lines before it, a stray quote in it) are read by pandas from the start in chunks of
``chunksize`` rows, as :func:`momkde_core.io.read_csv_chunks` reads them, and a worker
receives its partition's rows from the client instead of reading them.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import CsvFormat, read_csv_chunks

ASCII_CODECS = frozenset({"utf-8", "utf-8-sig", "cp1252"})  # byte ranges can be cut in these
HEADER_BYTES = 2**20  # a header longer than this is read by the client (see the module doc)
_BLOCK = 2**20  # bytes scanned at a time
_QUOTE, _LF, _CR = ord('"'), ord("\n"), ord("\r")
_LINE = re.compile(r"\bline (\d+)")


@dataclass(frozen=True)
class Part:
    """One partition: its place in the file and its rows.

    ``start``/``end`` are byte offsets (``[start, end)``), both -1 when the client reads it;
    ``lines_before`` counts the file's records before it (the header's included), to give
    pandas' messages the file's line numbers.
    """

    index: int
    first_row: int  # data rows before it
    n_rows: int
    start: int = -1
    end: int = -1
    lines_before: int = 0

    def rows(self) -> str:
        """Its data rows as words, e.g. "data rows 101-200"."""
        if self.n_rows == 0:
            return "no data rows"
        return f"data rows {self.first_row + 1:,}-{self.first_row + self.n_rows:,}"


@dataclass(frozen=True)
class CsvSource:
    """A CSV file as the partitions see it: what a worker needs to read one.

    ``names`` is None when the partitions are read by the client (no byte ranges).
    ``size`` and ``mtime_ns`` are the file's when the first pass read it.
    """

    path: str
    fmt: CsvFormat
    names: tuple[Hashable, ...] | None
    header_end: int
    size: int
    mtime_ns: int

    @property
    def ranged(self) -> bool:
        """True when workers read their partition's byte range themselves."""
        return self.names is not None

    def check_unchanged(self) -> None:
        """ValueError unless the file has the size and time it had in the first pass."""
        stat = os.stat(self.path)
        if (stat.st_size, stat.st_mtime_ns) != (self.size, self.mtime_ns):
            raise ValueError(
                "the file changed since it was read (its size or time differ); run again"
            )

    def read(self, part: Part, dtype: dict | None = None) -> pd.DataFrame:
        """The rows of ``part`` (a byte range), parsed as in the first pass."""
        if os.path.getsize(self.path) != self.size:
            raise ValueError(
                f"{self.path} here is not the file that was read (its size differs): the "
                "workers need the file at the same path"
            )
        with open(self.path, "rb") as fh:
            fh.seek(part.start)
            raw = fh.read(part.end - part.start)
        return _parse_range(raw, self.fmt, self.names, part.lines_before, dtype)


def open_source(path: Path, fmt: CsvFormat) -> CsvSource:
    """The file as partitions: byte ranges when its encoding and header allow (see the
    module's doc), else read by the client. OSError when it cannot be read."""
    stat = os.stat(path)
    names, header_end = None, 0
    if fmt.codec in ASCII_CODECS:
        with open(path, "rb") as fh:
            head = fh.read(HEADER_BYTES)
        ends = _record_ends(np.frombuffer(head, dtype=np.uint8), 0, len(head) == stat.st_size)[0]
        header_end = int(ends[0]) if len(ends) else len(head)
        if header_end < HEADER_BYTES or len(head) == stat.st_size:
            names = _header_names(head[:header_end], fmt)
    return CsvSource(str(path), fmt, names, header_end, stat.st_size, stat.st_mtime_ns)


def _header_names(raw: bytes, fmt: CsvFormat) -> tuple[Hashable, ...] | None:
    """The column names of a header record as pandas reads them, or None if these bytes are
    not exactly one record (blank lines first, or a stray quote that hid its end)."""
    try:
        frame = pd.read_csv(
            io.StringIO(raw.decode(fmt.codec, errors="replace")),
            sep=fmt.separator,
            decimal=fmt.decimal,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    return tuple(frame.columns) if len(frame) == 0 else None


def scan_parts(
    source: CsvSource, chunksize: int, dtype: dict | None = None
) -> Iterator[tuple[Part, pd.DataFrame]]:
    """The first pass: every partition in file order with its rows.

    Parameters
    ----------
    source : CsvSource
        The file, from :func:`open_source`.
    chunksize : int
        Records per byte range, or rows per chunk read by the client.
    dtype : dict, optional
        Column types, as pandas' ``dtype``.

    Yields
    ------
    part, rows : Part, DataFrame
        Rows indexed from 0 within the partition (a header alone: one empty partition).

    Raises
    ------
    ValueError
        For rows pandas cannot parse, with the file's line numbers.
    """
    if not source.ranged:
        yield from _client_parts(source, chunksize, dtype)
        return
    first_row, lines, index = 0, 1, 0
    held: tuple[int, bytes] | None = None  # a range refused for an open quote, to join
    for start, end, count, raw in _ranges(source.path, source.header_end, chunksize):
        if held is not None:
            start, raw, count = held[0], held[1] + raw, held[2] + count
            held = None
        try:
            rows = _parse_range(raw, source.fmt, source.names, lines, dtype)
        except _OpenQuote:
            if end < source.size:
                held = (start, raw, count)
                continue
            raise ValueError(
                "the file could not be read as CSV: a quoted field is not closed before "
                "the end of the file"
            ) from None
        part = Part(index, first_row, len(rows), start, end, lines)
        yield part, rows
        first_row, lines, index = first_row + len(rows), lines + count, index + 1
    if index == 0:  # a header alone
        names = list(source.names)
        yield Part(0, 0, 0, source.header_end, source.header_end, 1), pd.DataFrame(columns=names)


def client_parts(
    source: CsvSource, chunksize: int, dtype: dict | None = None
) -> Iterator[tuple[Part, pd.DataFrame]]:
    """The second pass of a file read by the client: the first pass's partitions again."""
    return _client_parts(source, chunksize, dtype)


def _client_parts(
    source: CsvSource, chunksize: int, dtype: dict | None
) -> Iterator[tuple[Part, pd.DataFrame]]:
    first_row = 0
    for index, chunk in enumerate(read_csv_chunks(source.path, source.fmt, chunksize, dtype)):
        yield Part(index, first_row, len(chunk)), chunk.reset_index(drop=True)
        first_row += len(chunk)


class _OpenQuote(ValueError):
    """pandas reached the end of a range inside a quoted field."""


def _parse_range(
    raw: bytes,
    fmt: CsvFormat,
    names: tuple[Hashable, ...] | None,
    lines_before: int,
    dtype: dict | None,
) -> pd.DataFrame:
    """One byte range's rows, parsed as pandas parses the whole file (its messages with
    the file's line numbers); _OpenQuote if it ends inside a quoted field."""
    codec = fmt.codec.removesuffix("-sig")  # a byte-order mark starts the file, not a range
    names = list(names or ())
    try:
        rows = pd.read_csv(
            io.StringIO(raw.decode(codec, errors="replace")),
            sep=fmt.separator,
            decimal=fmt.decimal,
            header=None,
            names=names,
            dtype=dtype,
        )
    except pd.errors.EmptyDataError:
        return pd.DataFrame(columns=names)
    except pd.errors.ParserError as err:
        if "EOF inside string" in str(err):
            raise _OpenQuote(str(err)) from None
        message = _LINE.sub(lambda m: f"line {int(m[1]) + lines_before}", str(err))
        raise ValueError(f"the file could not be read as CSV: {message}") from None
    if not rows.index.equals(pd.RangeIndex(len(rows))):  # pandas moves extra fields there
        raise ValueError(
            f"the data rows have more fields than the header ({len(names)} names); "
            "is there a separator at the end of the lines, or a missing column name?"
        )
    return rows


def _record_ends(buf: np.ndarray, parity: int, at_eof: bool) -> tuple[np.ndarray, int]:
    """Offsets just after each record end in ``buf`` (a line end outside double quotes),
    given the parity of the quotes before it; and the parity after it. A ``\\r`` at the end
    of ``buf`` is a lone line end only ``at_eof`` (the caller holds it back otherwise)."""
    quotes = np.flatnonzero(buf == _QUOTE)
    lone_cr = buf == _CR
    lone_cr[:-1] &= buf[1:] != _LF
    if not at_eof and len(buf) and buf[-1] == _CR:
        lone_cr[-1] = False
    ends = np.flatnonzero((buf == _LF) | lone_cr)
    outside = (parity + np.searchsorted(quotes, ends)) % 2 == 0
    return ends[outside] + 1, (parity + len(quotes)) % 2


def _ranges(path: str, start: int, records: int) -> Iterator[tuple[int, int, int, bytes]]:
    """Consecutive byte ranges from ``start`` to the end of the file: (start, end, records
    in it, its bytes), each ending after its ``records``-th record end (the last one at the
    end of the file). Memory: one range and one block."""
    pending = bytearray()  # the bytes of the range being filled, from range_start
    range_start, parity, count = start, 0, 0
    carry = b""
    with open(path, "rb") as fh:
        fh.seek(start)
        while True:
            block = fh.read(_BLOCK)
            eof = not block
            data = carry + block
            carry = b""
            if not eof and data.endswith(b"\r"):  # \r\n or a lone \r: told by the next block
                data, carry = data[:-1], data[-1:]
            base = len(pending)
            pending += data
            ends, parity = _record_ends(np.frombuffer(data, dtype=np.uint8), parity, eof)
            ends = ends + base  # offsets in pending
            first = records - count - 1
            cuts = ends[first::records] if first < len(ends) else ends[:0]
            count = (count + len(ends)) % records
            done = 0
            for cut in cuts:
                cut = int(cut)
                yield range_start, range_start + cut - done, records, bytes(pending[done:cut])
                range_start += cut - done
                done = cut
            del pending[:done]
            if eof:
                break
    if pending:
        yield range_start, range_start + len(pending), count, bytes(pending)
