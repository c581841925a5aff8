"""The paper's six real data sets, its contamination protocol, and reading a user's CSV.

Data sets (``load_dataset``)
    ``iris``, ``breast_cancer``, ``digits`` come with scikit-learn (no download).
    ``banana``, ``german``, ``titanic`` are files of the IDA benchmark repository that are not
    bundled: they are read from a data directory, the first of

    1. the ``data_dir`` argument,
    2. the environment variable ``MOMKDE_DATA_DIR``,
    3. the user data folder :func:`default_data_dir` (``~/.local/share/momkde`` on Linux).

    Each is a gzip'd CSV ``<name>.csv.gz`` with header ``x1,...,xd,label`` and labels -1/+1,
    checked against the SHA-256 in :data:`IDA_SHA256` before it is parsed.

Outlier class
    Kim & Scott's protocol, which the paper follows: "the class labelled 0 is the outlier
    class". For iris that is setosa, for digits the digit 0, and for breast_cancer class 0 of
    scikit-learn's encoding, which is **malignant** (212 of 569): the malignant tumours are
    the outliers. For the IDA sets, whose labels are -1/+1, class -1 plays the role of class
    0 (banana -1; german -1 = good credit; titanic -1 = died). Another choice, such as the
    paper's digits variant with outlier class 1, is ``dataclasses.replace(ds, outlier_label=1)``.

Contamination (``contaminated_sample``)
    The paper's protocol: downsample the outlier class until |O| / n reaches the ratio; when
    there are too few outliers for it, keep them all and downsample the inliers instead;
    then standardise the features.

User files (``read_user_csv``, ``numeric_matrix``)
    For the app's upload page: read a CSV with checks that end in a ValueError a person can
    act on, then turn the chosen columns into a float matrix.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, NamedTuple, overload

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.preprocessing import StandardScaler
from sklearn.utils import Bunch, check_random_state

from momkde_core.synthetic import outlier_count

DATA_DIR_ENV = "MOMKDE_DATA_DIR"

#: SHA-256 of the IDA files this module reads (the files of ``../shared/data/ida``).
IDA_SHA256: dict[str, str] = {
    "banana": "30b73612443328fb491c493c26be3facc137621b66cc8e91f5846d1c4e6f39b2",
    "german": "69664efcb71548722574950e1b483caddf4e9053a0eed4957197311572c6259f",
    "titanic": "e2df651029296d40ac6595c8b33a8841762023a9f58c2182bc99aa6253bdb8f4",
}
_IDA_OUTLIER_LABEL = -1
_SKLEARN_OUTLIER_LABEL = 0
_SKLEARN_LOADERS: dict[str, Callable[[], Bunch]] = {
    "breast_cancer": load_breast_cancer,
    "iris": load_iris,
    "digits": load_digits,
}


class _About(NamedTuple):
    """Where a data set comes from, and what to cite."""

    source: str
    citation: str


_IDA_REPOSITORY = "the IDA benchmark repository of G. Rätsch (http://www.raetschlab.org/Members/raetsch/benchmark/)"
_ABOUT: dict[str, _About] = {
    "banana": _About(
        source=f"Banana, synthetic 2-D set from {_IDA_REPOSITORY}; also redistributed under "
        "BSD-3-Clause with the MoM-KDE authors' code (https://github.com/lminvielle/mom-kde)",
        citation="G. Rätsch, T. Onoda, K.-R. Müller. Soft margins for AdaBoost. "
        "Machine Learning 42(3):287-320, 2001.",
    ),
    "german": _About(
        source=f"UCI Statlog German Credit, in the version of {_IDA_REPOSITORY}: categorical "
        "codes Axyz as the integers xyz, every column z-scored; label -1 = good credit, "
        "+1 = bad credit",
        citation="H. Hofmann. Statlog (German Credit Data). UCI Machine Learning Repository, "
        "1994. doi:10.24432/C5NC77 (CC BY 4.0).",
    ),
    "titanic": _About(
        source=f"Titanic, the 2201 people aboard (Dawson 1995), in the version of "
        f"{_IDA_REPOSITORY}: x1 = class, x2 = age, x3 = sex; label -1 = died, +1 = survived",
        citation="R. J. M. Dawson. The 'Unusual Episode' Data Revisited. Journal of Statistics "
        "Education 3(3), 1995.",
    ),
    "breast_cancer": _About(
        source="scikit-learn's load_breast_cancer: UCI Breast Cancer Wisconsin (Diagnostic); "
        "class 0 = malignant",
        citation="W. N. Street, W. H. Wolberg, O. L. Mangasarian. Nuclear feature extraction for "
        "breast tumor diagnosis. IS&T/SPIE Biomedical Image Processing and Biomedical "
        "Visualization, 1993.",
    ),
    "iris": _About(
        source="scikit-learn's load_iris: Fisher's iris data; class 0 = setosa",
        citation="R. A. Fisher. The use of multiple measurements in taxonomic problems. Annals "
        "of Eugenics 7(2):179-188, 1936.",
    ),
    "digits": _About(
        source="scikit-learn's load_digits: test set of UCI Optical Recognition of Handwritten "
        "Digits, 8x8 images",
        citation="E. Alpaydin, C. Kaynak. Optical Recognition of Handwritten Digits. UCI Machine "
        "Learning Repository, 1998. doi:10.24432/C50P49.",
    ),
}
DATASETS: tuple[str, ...] = tuple(_ABOUT)


class DatasetNotFoundError(FileNotFoundError, ValueError):
    """A data set file is not in the data directory.

    Also a ValueError, the project's error for "the input cannot be used as it is", so a
    caller that reports ValueErrors to a person reports this one too.
    """


@dataclass(frozen=True, eq=False)
class Dataset:
    """A labelled data set with one class playing the outliers.

    Attributes
    ----------
    name : canonical name (one of :data:`DATASETS`).
    X : features, float, shape (n, d).
    y : class labels, shape (n,).
    outlier_label : the label of the outlier class.
    source : where the data come from.
    citation : the reference to cite.
    """

    name: str
    X: NDArray[np.float64]
    y: NDArray[np.int64]
    outlier_label: int
    source: str
    citation: str

    @property
    def is_outlier(self) -> NDArray[np.bool_]:
        """Boolean mask of the rows of the outlier class."""
        return self.y == self.outlier_label


def default_data_dir() -> Path:
    """The per-user folder searched last for data files.

    ``%LOCALAPPDATA%\\momkde`` on Windows, ``~/Library/Application Support/momkde`` on macOS,
    ``$XDG_DATA_HOME/momkde`` (default ``~/.local/share/momkde``) elsewhere.
    """
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or "~/AppData/Local"
    elif sys.platform == "darwin":
        base = "~/Library/Application Support"
    else:
        base = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return Path(base).expanduser() / "momkde"


def load_dataset(name: str, data_dir: str | os.PathLike[str] | None = None) -> Dataset:
    """Load one of :data:`DATASETS` (case-insensitive; ``"breast-cancer"`` is accepted).

    ``data_dir`` is only used by banana, german and titanic (see the module docstring).
    Raises ValueError for an unknown name or a file whose SHA-256 does not match, and
    :class:`DatasetNotFoundError` (a FileNotFoundError and ValueError) for a missing file.
    """
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in _ABOUT:
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(DATASETS)}")
    if key in IDA_SHA256:
        X, y = _read_ida_file(key, data_dir)
        outlier_label = _IDA_OUTLIER_LABEL
    else:
        bunch = _SKLEARN_LOADERS[key]()
        X, y = np.asarray(bunch.data, dtype=float), bunch.target
        outlier_label = _SKLEARN_OUTLIER_LABEL
    about = _ABOUT[key]
    return Dataset(
        name=key,
        X=X,
        y=y,
        outlier_label=outlier_label,
        source=about.source,
        citation=about.citation,
    )


def contaminated_sample(
    ds: Dataset, ratio: float, random_state: int | np.random.RandomState | None = None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Subsample ``ds`` to the outlier share |O| / n = ``ratio`` and standardise, as in the paper.

    All inliers are kept and round(ratio |I| / (1 - ratio)) outliers drawn without
    replacement; when the data set has fewer outliers than that, all outliers are kept and
    round(|O| (1 - ratio) / ratio) inliers are drawn instead. Rows are shuffled, then every
    feature is standardised on the resulting sample (scikit-learn's StandardScaler; a
    constant feature becomes 0). Deterministic for a given ``random_state`` (None, int or
    RandomState, as in scikit-learn).

    Returns ``(X, is_outlier)``. Raises ValueError when ``ratio`` is not in (0, 1), when ``ds``
    lacks one of the classes, or when the sample would hold no inlier or no outlier.
    """
    if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real) or not 0.0 < ratio < 1.0:
        raise ValueError(
            f"ratio must be a number in (0, 1) (the share of outliers in the sample), got {ratio!r}"
        )
    rng = check_random_state(random_state)
    outliers = np.flatnonzero(ds.is_outlier)
    inliers = np.flatnonzero(~ds.is_outlier)
    if len(inliers) == 0 or len(outliers) == 0:
        raise ValueError(
            f"{ds.name!r} needs rows of both classes, but has {len(inliers)} inliers and "
            f"{len(outliers)} outliers (outlier_label={ds.outlier_label!r})"
        )
    n_out = outlier_count(len(inliers), ratio)
    n_in = len(inliers)
    if n_out > len(outliers):
        n_out = len(outliers)
        n_in = math.floor(n_out * (1.0 - ratio) / ratio + 0.5)
    if n_in == 0 or n_out == 0:
        raise ValueError(
            f"ratio {ratio} cannot be reached on {ds.name!r} ({len(inliers)} inliers, "
            f"{len(outliers)} outliers): the sample would hold {n_in} inliers and {n_out} outliers"
        )
    rows = rng.permutation(
        np.concatenate(
            [rng.choice(inliers, n_in, replace=False), rng.choice(outliers, n_out, replace=False)]
        )
    )
    return StandardScaler().fit_transform(ds.X[rows]), ds.is_outlier[rows]


def read_user_csv(
    file_or_buffer: str | os.PathLike[str] | IO[bytes] | IO[str], max_bytes: int = 200 * 2**20
) -> pd.DataFrame:
    """Read a user's CSV (a path or an open file, e.g. Streamlit's upload) into a DataFrame.

    The first line is the header. The text encoding is found by :func:`_decode` (UTF-8,
    UTF-16 / UTF-32 with or without a byte-order mark, else Windows-1252, the Latin-1 of
    spreadsheets saved on Windows), the separator is guessed among ``, ; tab |`` from the
    start of the file (comma when unsure), and with a separator other than the comma a
    decimal comma (``1,5``) is read as a number when the data hold more of those than of
    decimal points (European spreadsheets). What was found is in ``frame.attrs``
    (``encoding``, ``separator``, ``decimal``) so the app can say it. Raises ValueError, with
    a message for the user, when the file is larger than ``max_bytes``, empty, binary, not
    parseable as CSV (including data rows with more fields than the header), has no data
    rows, or has no numeric column. Columns with text are kept: :func:`numeric_matrix`
    reports them if they are selected. :func:`sniff_csv_file` and :func:`read_csv_chunks`
    read a file on disk the same way in chunks, without the size limit.
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

    ``encoding`` is the name reported to the user, ``codec`` the Python codec that decodes the
    file (``utf-8-sig`` drops a byte-order mark that ``encoding`` calls ``utf-8``).
    """

    encoding: str
    codec: str
    separator: str
    decimal: str


_SNIFF_CHARS = 65536  # the separator and the decimal mark are guessed from this many characters
_SCAN_BLOCK = 2**20  # bytes read at a time when a file on disk is scanned


def sniff_csv_file(path: str | os.PathLike[str]) -> CsvFormat:
    """The encoding, separator and decimal mark of a CSV file on disk, read in blocks (so a
    file larger than memory is fine): the choices and errors of :func:`read_user_csv`, whose
    UTF-8 test and binary test cover the whole file, without its size limit.

    Raises ValueError when the file is empty or binary, OSError when it cannot be read.
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
    """The data rows of a CSV file in DataFrames of at most ``chunksize`` rows, parsed as
    :func:`read_user_csv` parses (``fmt`` from :func:`sniff_csv_file`; ``dtype`` as pandas'),
    with the same ValueErrors for rows it cannot parse. The index counts the data rows from 0
    across chunks. A file with a header and no data rows gives one empty chunk.

    pandas infers each column's type per chunk: a column of integers is read as floats in the
    chunks where it has missing values, unless ``dtype`` fixes it.
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
    """ValueError naming the columns when none of them holds numbers only."""
    if frame.select_dtypes("number").columns.empty:
        raise ValueError(
            f"the file has no numeric column (columns: {', '.join(map(str, frame.columns))}); "
            "check that the cells hold plain numbers (no units or currency signs)"
        )


def check_data_rows(n_rows: int) -> None:
    """ValueError when a file has a header but no data rows."""
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

    Raises ValueError, naming the column, when a column is unknown, holds text (with the
    first offending data row, counted from 1 below the header, and its value), has missing or
    infinite values (with their count), or is constant (its density is degenerate), or when
    fewer than 2 rows remain. With ``drop_missing=True`` the rows with a missing or infinite
    value are dropped instead, and ``(X, kept_index)`` is returned, ``kept_index`` being the
    index labels of the rows kept. The checks are also usable one by one on a file read in
    chunks (:func:`check_numeric_columns`, :func:`missing_values_error`,
    :func:`check_enough_rows`, :func:`check_not_constant`).
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
    df: pd.DataFrame, columns: Hashable | Sequence[Hashable], first_row: int = 0,
    partial: bool = False
) -> list[Hashable]:
    """``columns`` as a list, after checking that each is in ``df`` and holds only numbers or
    missing values; ValueError naming the first column that does not.

    For a chunk of a larger file, ``first_row`` is the number of data rows before it (the
    rows named in messages count from the file's header) and ``partial=True`` says that the
    count of text cells is the chunk's.
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
    """Columns checked by :func:`check_numeric_columns` as a float matrix (NaN where missing)."""
    return df[columns].apply(pd.to_numeric).to_numpy(dtype=float)


def missing_values_error(
    columns: list[Hashable], per_column: Sequence[int], n_rows: int,
    remedy: str = "drop_missing=True"
) -> ValueError:
    """The error for ``n_rows`` rows with missing or infinite values (``per_column``: counts
    per column); ``remedy`` names the switch that drops them."""
    counts = ", ".join(
        f"{col!r}: {n}" for col, n in zip(columns, per_column, strict=True) if n
    )
    return ValueError(
        f"{n_rows} row(s) have missing or infinite values "
        f"(per column: {counts}); drop those rows ({remedy}) or fill them in"
    )


def check_enough_rows(n_rows: int) -> None:
    """ValueError when fewer than 2 complete rows are left (a density needs a spread)."""
    if n_rows < 2:
        raise ValueError(f"at least 2 complete rows are needed, {n_rows} left")


def check_not_constant(columns: list[Hashable], spread: Sequence[float]) -> None:
    """ValueError naming the constant columns (``spread``: max - min of each column)."""
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
    """
    flagged = []
    for column in df.columns:
        if not pd.api.types.is_numeric_dtype(df[column]):
            values = df[column].dropna()
            if len(values) and pd.to_numeric(values, errors="coerce").notna().mean() >= 0.5:
                flagged.append(column)
    return flagged


_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"),
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
    """"," when the separator is not the comma and the first lines hold more decimal commas
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


def _read_ida_file(
    name: str, data_dir: str | os.PathLike[str] | None
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Features and -1/+1 labels of an IDA file, after checking that it exists and its hash."""
    if data_dir is not None:
        directory, chosen_by = Path(data_dir).expanduser(), "the data_dir argument"
    elif os.environ.get(DATA_DIR_ENV):
        directory, chosen_by = (
            Path(os.environ[DATA_DIR_ENV]).expanduser(),
            f"the environment variable {DATA_DIR_ENV}",
        )
    else:
        directory, chosen_by = default_data_dir(), "the default user data folder"
    path = directory / f"{name}.csv.gz"
    if not path.is_file():
        raise DatasetNotFoundError(
            f"data set {name!r} needs the file {path.name}, which is not in {directory} "
            f"(searched because of {chosen_by}). Put the file in that folder, pass data_dir=..., "
            f"or set {DATA_DIR_ENV} to the folder that holds it "
            f"(e.g. export {DATA_DIR_ENV}=/path/to/ida). The file is not bundled with momkde: "
            "it is a gzip'd CSV with header x1,...,xd,label (labels -1/+1) made from "
            f"{_ABOUT[name].source}. Expected SHA-256: {IDA_SHA256[name]}."
        )
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != IDA_SHA256[name]:
        raise ValueError(
            f"{path} has SHA-256 {digest}, expected {IDA_SHA256[name]}: the file is corrupt "
            "or a different version; replace it with the original"
        )
    frame = pd.read_csv(io.BytesIO(raw), compression="gzip")
    return frame.drop(columns="label").to_numpy(dtype=float), frame["label"].to_numpy(
        dtype=np.int64
    )
