"""The roles a new user would give the columns of an uploaded table: label, ids, features.

Defaults matter on the upload page: an id column scored as a feature makes every row look
unique, a continuous column taken as the label gives a meaningless AUC, and a numeric column
of a few repeated values (a year, a count, a code) is a category: its density is a comb of
spikes, which ranks rows by how common their value is, not by how far out they lie. The
guesses here only pick defaults; every one can be changed in the sidebar, and the page says
what it left out and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

#: Names that make a column the label, when it also has few distinct values (not "y": in many
#: tables y is a coordinate or a continuous target).
LABEL_NAMES = frozenset(
    {
        "label",
        "labels",
        "class",
        "target",
        "outlier",
        "is_outlier",
        "anomaly",
        "is_anomaly",
        "fraud",
        "is_fraud",
        "status",
    }
)
#: A label names classes: a column with more distinct values is not taken (nor scored) as one.
MAX_LABEL_VALUES = 20
#: A numeric column with at most this many distinct values (each repeated) is a category, not
#: scored by default.
MAX_CATEGORY_VALUES = 10
#: Features scored by default: a density in hundreds of dimensions says nothing (every point
#: is isolated), so a wide table starts with the first ones and the user adds more.
MAX_DEFAULT_FEATURES = 20
_ID_NAME = re.compile(
    r"(^|[_\s-])(id|ids|idx|index|key|uuid|row)$|^(id|index|row_?id|row_?number)$", re.I
)


@dataclass(frozen=True)
class ColumnRoles:
    """Default choices for a table: its label (or None), the id columns left out, the numeric
    features to score, the features to draw (both of exactly two, else one), whether the
    features were cut, the numeric columns left out as categories, each with its number
    of distinct values, the constant columns (one value: no spread for a density) and the
    text columns (not numeric: not scored)."""

    label: str | None
    ids: tuple[str, ...]
    features: tuple[str, ...]
    draw: tuple[str, ...]
    truncated: bool
    categorical: tuple[tuple[str, int], ...] = ()
    constant: tuple[str, ...] = ()
    text: tuple[str, ...] = ()


def is_id_column(column: pd.Series) -> bool:
    """An identifier: named like one (``id``, ``row_id``, ``customer_key``...) with distinct
    values, or integers that are all distinct and fill a range (1, 2, 3... in any order)."""
    values = column.dropna()
    if len(values) < 2 or values.nunique() < len(values):
        return False
    if _ID_NAME.search(str(column.name).strip()):
        return True
    if pd.api.types.is_integer_dtype(values):
        return int(values.max()) - int(values.min()) + 1 == len(values)
    return False


def category_values(column: pd.Series) -> int | None:
    """The number of distinct values of a numeric column that holds a category, else None.

    A category has 2 to :data:`MAX_CATEGORY_VALUES` distinct values, each present twice on
    average at least (missing values left out): ``year`` with 3 values over 344 rows is one,
    a column of 4 different numbers in a 4-row table is not, nor a constant column (left to
    the page's check, which names it).
    """
    values = column.dropna()
    distinct = int(values.nunique())
    is_category = 2 <= distinct <= MAX_CATEGORY_VALUES and 2 * distinct <= len(values)
    return distinct if is_category else None


def label_values(column: pd.Series) -> int:
    """The number of distinct values of a label candidate (missing values left out)."""
    return int(column.dropna().astype(str).nunique())


def guess_roles(frame: pd.DataFrame) -> ColumnRoles:
    """Default label, ids, categories and features of ``frame`` (see the module docstring).

    Ids, categories (:func:`category_values`), constant columns (at most one distinct value,
    missing values left out: a density needs spread) and text columns are left out of the
    features. Exactly two
    features are both drawn (a 2-D map shows a row unusual in either, the way the scores see
    it); of more, the one with the most distinct values is drawn (not a count, an hour or a
    flag, whose ties make cross-validated bandwidths collapse).
    """
    label = next(
        (
            c
            for c in frame.columns
            if str(c).strip().lower() in LABEL_NAMES
            and 2 <= label_values(frame[c]) <= MAX_LABEL_VALUES
        ),
        None,
    )
    numeric = [c for c in frame.select_dtypes("number").columns if c != label]
    text = tuple(c for c in frame.columns if c not in numeric and c != label)
    constant = tuple(c for c in numeric if frame[c].nunique() <= 1)
    ids = tuple(c for c in numeric if is_id_column(frame[c]))
    counts = {c: category_values(frame[c]) for c in numeric if c not in ids + constant}
    categorical = tuple((c, k) for c, k in counts.items() if k is not None)
    features = [c for c, k in counts.items() if k is None]
    scored = features[:MAX_DEFAULT_FEATURES]
    draw = scored if len(scored) == 2 else sorted(features, key=lambda c: -frame[c].nunique())[:1]
    return ColumnRoles(
        label=label,
        ids=ids,
        features=tuple(scored),
        draw=tuple(draw),
        truncated=len(features) > MAX_DEFAULT_FEATURES,
        categorical=categorical,
        constant=constant,
        text=text,
    )
