"""``momkde score``'s first pass over the file: every check of the data, the columns to
score, a uniform sample of the rows to fit on, and the partitions."""

from __future__ import annotations

import argparse
import sys
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


@dataclass
class _Scan:
    """What ``score`` learns from its first pass over the file."""

    columns: list[Hashable]  # the columns scored
    n_rows: int  # data rows in the file
    n_scored: int  # rows without a missing value in the columns scored
    sample: np.ndarray  # at most --fit-rows of those rows, a uniform random sample
    dtypes: dict[Hashable, object]  # one type for each column whose type varied by partition
    parts: list[Part]  # the partitions, in the file's order


class _Reservoir:
    """A uniform random sample of at most ``size`` rows of a stream of row blocks, in memory
    O(size): Vitter's Algorithm R (the t-th row takes a random slot with probability size/t),
    vectorised per block."""

    def __init__(self, size: int, n_columns: int, seed: int):
        self.rows = np.empty((size, n_columns))
        self.seen = 0
        self._rng = np.random.default_rng(seed)

    def add(self, X: np.ndarray) -> None:
        size = len(self.rows)
        fill = min(len(X), max(size - self.seen, 0))
        self.rows[self.seen : self.seen + fill] = X[:fill]
        rest = X[fill:]
        slot = self._rng.integers(0, self.seen + fill + np.arange(1, len(rest) + 1))
        kept = slot < size
        slot, rest = slot[kept], rest[kept]
        # rows of one block that draw the same slot: the last keeps it, as one at a time
        last = len(slot) - 1 - np.unique(slot[::-1], return_index=True)[1]
        self.rows[slot[last]] = rest[last]
        self.seen += len(X)

    @property
    def sample(self) -> np.ndarray:
        return self.rows[: min(self.seen, len(self.rows))]


def _score_columns(
    chunk: pd.DataFrame, args: argparse.Namespace, outputs: list[str]
) -> list[Hashable]:
    """The columns to score, from the file's first chunk (UsageError if they cannot be)."""
    check_data_rows(len(chunk))
    check_has_numeric_column(chunk)
    clash = [name for name in outputs if name in chunk.columns]
    if clash:
        raise UsageError(
            f"{args.data} already has a column named {clash[0]!r}, which the "
            "scores would take; rename it"
        )
    if args.columns:
        return list(dict.fromkeys(args.columns))
    for column in text_in_numeric_columns(chunk):
        try:
            check_numeric_columns(chunk, [column], partial=len(chunk) == args.chunksize)
        except ValueError as err:
            print(
                f"momkde: warning: {err}; it is not scored (fix the file, or name the "
                "columns with --columns)",
                file=sys.stderr,
            )
    return list(chunk.select_dtypes("number").columns)


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
                columns = _score_columns(chunk, args, outputs)
                reservoir = _Reservoir(args.fit_rows, len(columns), args.seed)
                missing = np.zeros(len(columns), dtype=np.int64)
                low, high = np.full(len(columns), np.inf), np.full(len(columns), -np.inf)
            for column in chunk.columns:
                kinds.setdefault(column, set()).add(chunk[column].dtype.kind)
            more = part.end < source.size if source.ranged else len(chunk) == args.chunksize
            try:
                check_numeric_columns(chunk, columns, first_row=n_rows, partial=n_rows > 0 or more)
            except ValueError as err:
                hint = "" if args.columns else "; name the columns to score with --columns"
                raise ValueError(f"{err}{hint}") from None
            X = float_columns(chunk, columns)
            bad = ~np.isfinite(X)
            missing += bad.sum(axis=0)
            n_bad += int(bad.any(axis=1).sum())
            X = X[~bad.any(axis=1)]
            if len(X):
                low, high = np.minimum(low, X.min(axis=0)), np.maximum(high, X.max(axis=0))
            reservoir.add(X)
            n_rows += len(chunk)
            n_scored += len(X)
            bar.update(len(chunk))
    if reservoir is None:  # no data rows: the message of an empty table
        _score_columns(chunk, args, outputs)
    if n_bad and not args.drop_missing:
        raise missing_values_error(columns, missing, n_bad, remedy="--drop-missing")
    check_enough_rows(n_scored)
    check_not_constant(columns, high - low)
    # pandas types each partition on its own: where they disagreed, the second pass reads
    # the column as the whole file would be read (integers with gaps as floats, mixed as text)
    dtypes = {
        column: "float64" if found <= set("iuf") else str
        for column, found in kinds.items()
        if len(found) > 1
    }
    return _Scan(columns, n_rows, n_scored, reservoir.sample, dtypes, parts)
