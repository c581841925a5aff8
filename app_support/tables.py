"""The roles a new user would give the columns of an uploaded table: label, ids, features.

Defaults matter on the upload page: an id column scored as a feature makes every row look
unique, and a continuous column taken as the label gives a meaningless AUC. The columns
scored by default are those ``momkde score`` scores
(:func:`momkde_core.cli._scan.column_kinds`): every numeric column, the text and bool
columns as categorical, the dates as days since 1970-01-01; but not a text column with a
distinct value in nearly every row (an id, free text) or with one value, nor a numeric id
(which names the rows), nor the label. The guesses here only pick defaults; every one can
be changed in the sidebar, and the page says what it left out and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from momkde_core.cli._scan import column_kinds
from momkde_core.estimators._mixed_columns import MAX_LEVELS

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
        "planted",
        "is_planted",
    }
)
#: A label names classes: a column with more distinct values is not taken (nor scored) as one.
MAX_LABEL_VALUES = 20
#: Features scored by default: a density in hundreds of dimensions says nothing (every point
#: is isolated), so a wide table starts with the first ones and the user adds more.
MAX_DEFAULT_FEATURES = 20
_ID_NAME = re.compile(
    r"(^|[_\s-])(id|ids|idx|index|key|uuid|row)$|^(id|index|row_?id|row_?number)$", re.I
)


@dataclass(frozen=True)
class ColumnRoles:
    """Default choices for a table: its label (or None), the numeric id columns left out,
    the features to score (numeric, categorical and date columns, in the file's order), the
    numeric features to draw (both of exactly two, else one), whether the features were
    cut, every column read as categorical when scored with its number of levels (a missing
    value one of them), the date columns (scored as days since 1970-01-01), the constant
    numeric columns (one value: no spread for a density) and the text columns left out of
    the defaults, each with why."""

    label: str | None
    ids: tuple[str, ...]
    features: tuple[str, ...]
    draw: tuple[str, ...]
    truncated: bool
    levels: tuple[tuple[str, int], ...] = ()
    dates: tuple[str, ...] = ()
    constant: tuple[str, ...] = ()
    text: tuple[tuple[str, str], ...] = ()

    @property
    def categorical(self) -> tuple[str, ...]:
        """The columns read as categorical when scored."""
        return tuple(c for c, _ in self.levels)


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


def label_values(column: pd.Series) -> int:
    """The number of distinct values of a label candidate (missing values left out)."""
    return int(column.dropna().astype(str).nunique())


def guess_roles(frame: pd.DataFrame) -> ColumnRoles:
    """Default label, ids, features and what is left out of ``frame`` (see the module
    docstring).

    Numeric ids, constant numeric columns (at most one distinct value, missing values left
    out: a density needs spread), text columns ``momkde score`` leaves out (an id, free
    text, one value) and categorical columns of more than the library's ``MAX_LEVELS``
    levels are left out of the features. Exactly two numeric features are both drawn (a
    2-D map shows a row unusual in either, the way the scores see it); of more, the one
    with the most distinct values is drawn (not a count, an hour or a flag, whose ties
    make cross-validated bandwidths collapse).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"x": [1.0, 2.5, 3.0, 4.0], "town": ["a", "b", "a", None],
    ...                       "flag": [True, False, True, True]})
    >>> roles = guess_roles(table)
    >>> roles.features, roles.levels
    (('x', 'town', 'flag'), (('town', 3), ('flag', 2)))
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
    others = [c for c in frame.columns if c != label]
    numeric = [c for c in frame[others].select_dtypes("number").columns]
    constant = tuple(c for c in numeric if frame[c].nunique() <= 1)
    ids = tuple(c for c in numeric if is_id_column(frame[c]))
    numbers = [c for c in numeric if c not in ids + constant]
    kinds = column_kinds(frame[others])
    every = column_kinds(frame[others], others)  # the kinds of the columns when chosen
    levels = {c: int(frame[c].nunique(dropna=False)) for c in every.categorical}
    left_out = dict(kinds.left_out)
    for c in kinds.categorical:
        if levels[c] > MAX_LEVELS:
            left_out[c] = f"{levels[c]:,} levels, over the {MAX_LEVELS:,} a category may have"
    for c in others:
        if c not in numeric and c not in left_out and c not in levels and c not in kinds.dates:
            left_out[c] = "numbers with text"  # (the page warns of them)
    scored = set(numbers) | set(kinds.categorical) | set(kinds.dates)
    features = [c for c in others if c in scored and c not in left_out]
    kept = features[:MAX_DEFAULT_FEATURES]
    drawable = [c for c in kept if c in numbers]
    draw = (
        drawable if len(drawable) == 2 else sorted(numbers, key=lambda c: -frame[c].nunique())[:1]
    )
    return ColumnRoles(
        label=label,
        ids=ids,
        features=tuple(kept),
        draw=tuple(draw),
        truncated=len(features) > MAX_DEFAULT_FEATURES,
        levels=tuple(levels.items()),
        dates=tuple(every.dates),
        constant=constant,
        text=tuple(left_out.items()),
    )
