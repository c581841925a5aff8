"""Mixed tables' columns: which are continuous, unordered or ordered, and their levels.

The reading half of :mod:`momkde_core.estimators._mixed` (which embeds the levels and smooths
them). Columns are typed as scikit-learn's HistGradientBoosting reads them
(``categorical_features="from_dtype"``): in a DataFrame, object, string, category and bool
columns are unordered, an ordered Categorical is ordered (its categories in their order are
the levels, seen or not); numpy input is continuous unless ``categorical_features`` names
columns (indices or a mask). A missing value (NaN, None) in an unordered column is a level
of its own; in an ordered column it is a ValueError (it has no place in the order).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import pandas as pd

from .._validation import InvalidParameterError, is_bool, is_int

MAX_LEVELS = 1000  # a categorical column may have at most this many levels
CONTINUOUS, UNORDERED, ORDERED = "c", "u", "o"


@dataclass
class Discrete:
    """One categorical column: its kind, levels (missing values excepted) and whether the
    missing value is a level (the last code)."""

    name: object
    kind: str
    levels: pd.Index
    has_missing: bool = False

    @property
    def n_levels(self) -> int:
        return len(self.levels) + self.has_missing

    @property
    def lambda_max(self) -> float:
        """The largest bandwidth: uniform over the levels (unordered), 1/2 (ordered, the rule's
        ceiling; the kernel allows up to 1)."""
        return (
            (max(self.n_levels, 2) - 1) / max(self.n_levels, 2) if self.kind == UNORDERED else 0.5
        )

    @property
    def width(self) -> int:
        """Embedded coordinates: one-hot, the unseen axis, and for ordered the thermometer."""
        c = self.n_levels
        return c + 1 + (c - 1 if self.kind == ORDERED else 0)

    def codes(self, column: pd.Series) -> np.ndarray:
        """The level codes of a column's values (-1: a level unseen at fit)."""
        missing = column.isna().to_numpy()
        values = column.to_numpy(dtype=object)
        codes = np.full(len(values), -1, dtype=np.intp)
        if (~missing).any():
            codes[~missing] = self.levels.get_indexer(pd.Index(values[~missing], dtype=object))
        if self.has_missing:
            codes[missing] = len(self.levels)
        return codes

    def labels(self, codes: np.ndarray) -> np.ndarray:
        """The level values of codes (NaN for the missing level)."""
        labels = np.append(np.asarray(self.levels, dtype=object), np.nan)
        return labels[codes]


def table_of(X) -> pd.DataFrame:
    """X as a DataFrame with positions as its index (a DataFrame's columns kept)."""
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True)
    return pd.DataFrame(as_2d_objects(X))


def as_2d_objects(X) -> np.ndarray:
    arr = np.asarray(X, dtype=object)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"X must have shape (n,) or (n, d), got {arr.ndim} dimensions")
    return arr


def column_kinds(table: pd.DataFrame, features) -> np.ndarray:
    """'c', 'u' or 'o' per column."""
    d = table.shape[1]
    ordered = np.array(
        [isinstance(t, pd.CategoricalDtype) and bool(t.ordered) for t in table.dtypes]
    )
    if isinstance(features, str):  # "from_dtype"
        chosen = np.array([_is_categorical_dtype(t) for t in table.dtypes], dtype=bool)
    else:
        values = list(features)
        if all(is_bool(v) for v in values) and values:
            if len(values) != d:
                raise InvalidParameterError(
                    f"categorical_features as a mask needs {d} values (one per column), got {len(values)}"
                )
            chosen = np.asarray(values, dtype=bool)
        else:
            chosen = np.zeros(d, dtype=bool)
            names = list(table.columns)
            for v in values:
                if isinstance(v, str):
                    if v not in names:
                        raise InvalidParameterError(
                            f"categorical_features names {v!r}, which is no column of X (columns: {names})"
                        )
                    chosen[names.index(v)] = True
                elif is_int(v) and -d <= v < d:
                    chosen[v] = True
                else:
                    raise InvalidParameterError(
                        f"categorical_features index {v!r} is out of range for {d} column(s)"
                    )
    return np.where(chosen, np.where(ordered, ORDERED, UNORDERED), CONTINUOUS)


def _is_categorical_dtype(dtype) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def read_column(column: pd.Series, kind: str) -> Discrete:
    """A categorical column's levels, checked: no mix of text and numbers, at most
    MAX_LEVELS levels, no missing value in an ordered column."""
    name = column.name
    if kind == ORDERED:
        if column.isna().any():
            raise ordered_missing(name, "X")
        levels = pd.Index(np.asarray(column.cat.categories, dtype=object), dtype=object)
        found = Discrete(name, kind, levels)
    else:
        present = column[column.notna()]
        values = pd.unique(present.to_numpy(dtype=object))
        text = [v for v in values if isinstance(v, (str, bytes))]
        numbers = [
            v
            for v in values
            if isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_))
        ]
        if text and numbers:
            raise ValueError(
                f"column {name!r} mixes text and numbers (such as {text[0]!r} and "
                f"{numbers[0]!r}): make it all text (a categorical column) or all numbers"
            )
        found = Discrete(name, kind, pd.Index(values, dtype=object), bool(column.isna().any()))
    if found.n_levels > MAX_LEVELS:
        raise ValueError(
            f"categorical column {name!r} has {found.n_levels} levels (at most {MAX_LEVELS}): "
            "a column with a distinct value in nearly every row (an id, free text) says "
            "nothing of a density; drop it, or group its levels"
        )
    return found


def ordered_missing(name, what: str) -> ValueError:
    return ValueError(
        f"{what} has missing values in the ordered column {name!r}: a missing level has no "
        "place in the order; fill them, or make the column unordered (where a missing value "
        "is a level of its own)"
    )


def finite_floats(part: pd.DataFrame, names: list, what: str) -> np.ndarray:
    """The continuous columns as floats, finite, with messages that name the column."""
    out = np.empty(part.shape)
    for j, name in enumerate(names):
        try:
            out[:, j] = pd.to_numeric(part.iloc[:, j], errors="raise").to_numpy(
                dtype=float, na_value=np.nan
            )
        except (TypeError, ValueError):
            raise ValueError(
                f"{what}'s continuous column {name!r} holds values that are no numbers: name "
                "it in categorical_features, or clean it"
            ) from None
    bad = ~np.isfinite(out)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        kind = "NaN" if np.isnan(out).any() else "inf"
        raise ValueError(
            f"{what} contains {kind} values in {len(rows)} row(s) (first: row {rows[0]}) of "
            "its continuous columns; all values must be finite: drop or impute those rows"
        )
    return out
