"""``momkde score``'s first pass over the file: every check of the data, the columns to
score, a uniform sample of the rows to fit on, and the partitions.

The columns scored by default: the numeric ones; the text and bool ones as categorical
(:mod:`momkde_core.estimators._mixed`), but for a column with a distinct value in nearly
every row (an id, a free-text note: more than ``ID_SHARE`` of the first rows distinct,
and more than ``ID_MIN_LEVELS`` levels) or with one value, left out with a note; and date columns (every
value of the first rows a date), scored as days since 1970-01-01, with a note. A missing
value in a categorical column is a level of its own, not a missing row."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._progress import Progress
from ..io import (
    check_data_rows,
    check_enough_rows,
    check_has_numeric_column,
    check_not_constant,
    check_numeric_columns,
    float_columns,
    missing_values_error,
    text_in_numeric_columns,
)
from ._common import UsageError
from ._partitions import CsvSource, Part, scan_parts

ID_SHARE = 0.5  # a text column with more distinct values than this share of the rows ...
ID_MIN_LEVELS = 50  # ... and more levels than this is an id or free text: not scored
EPOCH = pd.Timestamp("1970-01-01")
ONE_VALUE = "it holds one value"  # why a text column of one value is not scored


@dataclass
class _Scan:
    """What ``score`` learns from its first pass over the file."""

    columns: list[Hashable]  # the columns scored, in the file's order
    n_rows: int  # data rows in the file
    n_scored: int  # rows without a missing value in the numeric columns scored
    sample: np.ndarray  # at most --fit-rows of those rows, a uniform random sample: numbers
    dtypes: dict[Hashable, object]  # one type for each column whose type varied by partition
    parts: list[Part]  # the partitions, in the file's order
    categorical: list[Hashable]  # of the columns scored, the categorical ones
    dates: list[Hashable]  # ... and the dates, scored as days since 1970-01-01
    text_sample: np.ndarray  # the sample's values in the categorical columns (objects)


class _Reservoir:
    """A uniform random sample of at most ``size`` rows of a stream of row blocks, in memory
    O(size): Vitter's Algorithm R (the t-th row takes a random slot with probability size/t),
    vectorised per block."""

    def __init__(self, size: int, n_columns: int, seed: int, n_text: int = 0):
        self.rows = np.empty((size, n_columns))
        self.text = np.empty((size, n_text), dtype=object)  # the same rows' text columns
        self.seen = 0
        self._rng = np.random.default_rng(seed)

    def add(self, X: np.ndarray, T: np.ndarray | None = None) -> None:
        size = len(self.rows)
        T = np.empty((len(X), 0), dtype=object) if T is None else T
        fill = min(len(X), max(size - self.seen, 0))
        self.rows[self.seen : self.seen + fill] = X[:fill]
        self.text[self.seen : self.seen + fill] = T[:fill]
        rest, rest_text = X[fill:], T[fill:]
        slot = self._rng.integers(0, self.seen + fill + np.arange(1, len(rest) + 1))
        kept = slot < size
        slot, rest, rest_text = slot[kept], rest[kept], rest_text[kept]
        # rows of one block that draw the same slot: the last keeps it, as one at a time
        last = len(slot) - 1 - np.unique(slot[::-1], return_index=True)[1]
        self.rows[slot[last]] = rest[last]
        self.text[slot[last]] = rest_text[last]
        self.seen += len(X)

    @property
    def sample(self) -> np.ndarray:
        return self.rows[: min(self.seen, len(self.rows))]

    @property
    def text_sample(self) -> np.ndarray:
        return self.text[: min(self.seen, len(self.text))]


def date_columns(chunk: pd.DataFrame, candidates: list[Hashable]) -> list[Hashable]:
    """The text columns among ``candidates`` whose every value (missing ones aside) reads as
    a date, and that hold something (not all missing)."""
    found = []
    for column in candidates:
        values = chunk[column].dropna()
        if len(values) and not pd.api.types.is_bool_dtype(chunk[column]):
            with warnings.catch_warnings():  # (pandas guesses the format: it may say so)
                warnings.simplefilter("ignore")
                parsed = pd.to_datetime(values.astype(str), errors="coerce", format="mixed")
            if parsed.notna().all():
                found.append(column)
    return found


def dates_as_days(rows: pd.DataFrame, dates: list[Hashable]) -> pd.DataFrame:
    """``rows`` with the date columns as days since 1970-01-01 (NaN where no date)."""
    if not dates:
        return rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        days = {
            column: (
                pd.to_datetime(rows[column].astype(str), errors="coerce", format="mixed") - EPOCH
            )
            / pd.Timedelta(days=1)
            for column in dates
        }
    return rows.assign(**days)


def _text_columns(chunk: pd.DataFrame, chosen: list[Hashable] | None) -> list[Hashable]:
    """The columns (among ``chosen``, or all) that are bool, or text but not mostly numbers
    (those are numbers with typos: :func:`~momkde_core.io.text_in_numeric_columns`)."""
    mostly_numbers = set(text_in_numeric_columns(chunk))
    found = []
    for column in chunk.columns if chosen is None else chosen:
        if column not in chunk.columns:
            continue
        values = chunk[column]
        if pd.api.types.is_bool_dtype(values) or (
            not pd.api.types.is_numeric_dtype(values) and column not in mostly_numbers
        ):
            found.append(column)
    return found


@dataclass(frozen=True)
class ColumnKinds:
    """What ``score`` makes of a table's columns by default (:func:`column_kinds`): the
    text and bool columns scored as categorical, the date columns (scored as days since
    1970-01-01), and the text columns left out, each with why."""

    categorical: list[Hashable]
    dates: list[Hashable]
    left_out: dict[Hashable, str]


def column_kinds(chunk: pd.DataFrame, chosen: list[Hashable] | None = None) -> ColumnKinds:
    """The kinds of ``chunk``'s text and bool columns (among ``chosen``, or all), as
    ``momkde score`` decides them: dates (every value a date), categorical (the others), and,
    unless ``chosen`` names them, left out: a column with a distinct value in nearly every
    row (an id, free text) or with one value (:func:`id_like_reason`).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"x": [1.0, 2.0, 3.0], "town": ["a", "b", "a"],
    ...                       "day": ["2024-01-01", "2024-01-02", "2024-01-05"],
    ...                       "one": ["k", "k", "k"]})
    >>> kinds = column_kinds(table)
    >>> kinds.categorical, kinds.dates, kinds.left_out
    (['town'], ['day'], {'one': 'it holds one value'})
    """
    text = _text_columns(chunk, chosen)
    dates = date_columns(chunk, text)
    categorical = [c for c in text if c not in dates]
    left_out = {}
    if chosen is None:
        left_out = {
            c: reason for c in categorical if (reason := id_like_reason(chunk[c])) is not None
        }
        categorical = [c for c in categorical if c not in left_out]
    return ColumnKinds(categorical, dates, left_out)


def _score_columns(
    chunk: pd.DataFrame, args: argparse.Namespace, outputs: list[str]
) -> tuple[list[Hashable], list[Hashable], list[Hashable]]:
    """(the columns to score, in the file's order; the categorical ones; the dates), from the
    file's first chunk (UsageError if they cannot be). Notes on stderr say which columns
    are left out, and which are read as dates."""
    check_data_rows(len(chunk))
    chosen = list(dict.fromkeys(args.columns)) if args.columns else None
    kinds = column_kinds(chunk, chosen)
    categorical, dates = kinds.categorical, kinds.dates
    for column in dates:
        print(
            f"momkde: note: column {column!r} holds dates: scored as days since 1970-01-01",
            file=sys.stderr,
        )
    for column, reason in kinds.left_out.items():
        hint = "" if reason == ONE_VALUE else "; name it with --columns to score it as categorical"
        print(f"momkde: note: column {column!r} is not scored: {reason}{hint}", file=sys.stderr)
    if not categorical:
        check_has_numeric_column(chunk)
    clash = [name for name in outputs if name in chunk.columns]
    if clash:
        raise UsageError(
            f"{args.data} already has a column named {clash[0]!r}, which the "
            "scores would take; rename it"
        )
    if chosen is not None:
        return chosen, categorical, dates
    for column in text_in_numeric_columns(chunk):
        try:
            check_numeric_columns(chunk, [column], partial=len(chunk) == args.chunksize)
        except ValueError as err:
            print(
                f"momkde: warning: {err}; it is not scored (fix the file, or name the "
                "columns with --columns)",
                file=sys.stderr,
            )
    scored = set(chunk.select_dtypes("number").columns) | set(categorical) | set(dates)
    return [c for c in chunk.columns if c in scored], categorical, dates


def id_like_reason(column: pd.Series) -> str | None:
    """Why a text column is left out of the default scores, or None: a distinct value in
    nearly every row (an id, free text: more than ``ID_SHARE`` of the rows and more than
    ``ID_MIN_LEVELS`` levels), or one value only.

    Examples
    --------
    >>> import pandas as pd
    >>> id_like_reason(pd.Series([f"E{k}" for k in range(60)]))
    '60 distinct values in 60 rows (an id or free text, which says nothing of a density)'
    >>> id_like_reason(pd.Series(["a", "b"] * 40)) is None
    True
    """
    values = column.dropna()
    distinct = values.nunique(dropna=False) if column.isna().any() else values.nunique()
    if distinct <= 1:
        return ONE_VALUE
    if distinct <= ID_MIN_LEVELS or distinct <= ID_SHARE * len(values):
        return None
    return (
        f"{distinct:,} distinct values in {len(values):,} rows (an id or free text, which "
        "says nothing of a density)"
    )


def _scan(args: argparse.Namespace, source: CsvSource, outputs: list[str], show: bool) -> _Scan:
    """First pass: every check of the data (the app's, over the whole file), the sample to
    fit on and the partitions, in memory bounded by --chunksize and --fit-rows. ValueError
    for the data."""
    parts: list[Part] = []
    reservoir: _Reservoir | None = None  # made at the first rows, with the columns to score
    n_rows = n_scored = n_bad = 0
    kinds: dict[Hashable, set[str]] = {}
    with Progress("reading", "rows", enabled=show, summary=True) as bar:
        for part, chunk in scan_parts(source, args.chunksize):
            parts.append(part)
            if not len(chunk):  # a header alone, or a range of blank lines
                continue
            if reservoir is None:
                columns, categorical, dates = _score_columns(chunk, args, outputs)
                numeric = [c for c in columns if c not in categorical]
                reservoir = _Reservoir(args.fit_rows, len(numeric), args.seed, len(categorical))
                missing = np.zeros(len(numeric), dtype=np.int64)
                low, high = np.full(len(numeric), np.inf), np.full(len(numeric), -np.inf)
            for column in chunk.columns:
                kinds.setdefault(column, set()).add(chunk[column].dtype.kind)
            more = part.end < source.size if source.ranged else len(chunk) == args.chunksize
            frame = dates_as_days(chunk, dates)
            try:
                check_numeric_columns(frame, numeric, first_row=n_rows, partial=n_rows > 0 or more)
            except ValueError as err:
                hint = "" if args.columns else "; name the columns to score with --columns"
                raise ValueError(f"{err}{hint}") from None
            X = float_columns(frame, numeric)
            bad = ~np.isfinite(X)
            missing += bad.sum(axis=0)
            n_bad += int(bad.any(axis=1).sum())
            X = X[~bad.any(axis=1)]
            if len(X):
                low, high = np.minimum(low, X.min(axis=0)), np.maximum(high, X.max(axis=0))
            reservoir.add(X, chunk[categorical].to_numpy(dtype=object)[~bad.any(axis=1)])
            n_rows += len(chunk)
            n_scored += len(X)
            bar.update(len(chunk))
    if reservoir is None:  # no data rows: the message of an empty table
        _score_columns(chunk, args, outputs)
    if n_bad and not args.drop_missing:
        raise missing_values_error(numeric, missing, n_bad, remedy="--drop-missing")
    check_enough_rows(n_scored)
    check_not_constant(numeric, high - low)
    # pandas types each partition on its own: where they disagreed, the second pass reads
    # the column as the whole file would be read (integers with gaps as floats, mixed as text)
    dtypes = {
        column: "float64" if found <= set("iuf") else str
        for column, found in kinds.items()
        if len(found) > 1
    }
    return _Scan(
        columns,
        n_rows,
        n_scored,
        reservoir.sample,
        dtypes,
        parts,
        categorical,
        dates,
        reservoir.text_sample,
    )
