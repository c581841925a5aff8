"""What Your data's sidebar says of a file's columns: those left out of the default choices
and why, and how the columns scored that are not numbers are read (categories, dates)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import pandas as pd

from ..tables import MAX_DEFAULT_FEATURES, ColumnRoles

#: Spreads (standard deviations) this many times apart: one h cannot suit both columns.
SPREAD_RATIO = 10.0


def left_out_note(columns: Sequence[Hashable], roles: ColumnRoles) -> str:
    """The columns not scored by default, each with why (an id, constant, an id or free
    text, too many levels, past the first features), or "".

    Parameters
    ----------
    columns : sequence
        The file's columns.
    roles : ColumnRoles
        The roles guessed for them (:func:`~app_support.tables.guess_roles`).

    Returns
    -------
    note : str
        "Not scored by default: ..." with how to score a text column left out anyway.

    Examples
    --------
    >>> from app_support.tables import ColumnRoles
    >>> roles = ColumnRoles(None, ("id",), ("x",), ("x",), False, constant=("c",),
    ...                     text=(("name", "it holds one value"),))
    >>> print(left_out_note(["id", "x", "c", "name"], roles))  # doctest: +ELLIPSIS
    Not scored by default: id (an id), c (constant), name (it holds one value). ...
    """
    reasons = {
        **{c: "an id" for c in roles.ids},
        **{c: "constant" for c in roles.constant},
        **dict(roles.text),
    }
    unscored = [c for c in columns if c not in roles.features and c != roles.label]
    left_out = [f"{c} ({reasons[c]})" for c in unscored if c in reasons]
    past = [str(c) for c in unscored if c not in reasons]
    if past:  # (one entry, not one per column: a wide file has hundreds)
        left_out.append(
            f"{past[0]}"
            + (f" to {past[-1]}, {len(past)} columns" if len(past) > 1 else "")
            + f" (past the first {MAX_DEFAULT_FEATURES} columns)"
        )
    if not left_out:
        return ""
    return (
        "Not scored by default: "
        + ", ".join(left_out)
        + "."
        + (
            " Choose a text column under Columns to score to score it anyway, as categorical."
            if roles.text
            else ""
        )
    )


def kinds_note(scored: Sequence[Hashable], roles: ColumnRoles) -> str:
    """How the columns ``scored`` that are not numbers are read: the categorical ones with
    their levels, the dates as days since 1970-01-01; "" when all are numbers.

    Examples
    --------
    >>> from app_support.tables import ColumnRoles
    >>> roles = ColumnRoles(None, (), ("x", "town", "day"), ("x",), False,
    ...                     levels=(("town", 3),), dates=("day",))
    >>> kinds_note(["x", "town", "day"], roles)
    'Scored as categories (a kernel over their levels, a missing value a level of its own): town (3 levels). Read as dates, scored as days since 1970-01-01: day.'
    """
    levels = dict(roles.levels)
    categories = [f"{c} ({levels[c]:,} levels)" for c in scored if c in levels]
    dates = [str(c) for c in scored if c in roles.dates]
    parts = []
    if categories:
        parts.append(
            "Scored as categories (a kernel over their levels, a missing value a level of its "
            "own): " + ", ".join(categories) + "."
        )
    if dates:
        parts.append("Read as dates, scored as days since 1970-01-01: " + ", ".join(dates) + ".")
    return " ".join(parts)


def spread_warning(frame: pd.DataFrame, columns: Sequence[Hashable]) -> str:
    """Why unstandardised ``columns`` of ``frame`` defeat one bandwidth: the widest and the
    narrowest spread (standard deviation) when they are :data:`SPREAD_RATIO` or more times
    apart; "" otherwise (or for fewer than two numeric columns that vary).

    Examples
    --------
    >>> frame = pd.DataFrame({"salary": [30e3, 45e3, 60e3, 90e3], "age": [25, 31, 40, 52]})
    >>> print(spread_warning(frame, ["salary", "age"]))
    Standardise is off, and the columns' spreads differ 2,181x ('salary': 2.56e+04, 'age':
    11.7): one bandwidth h cannot suit both, and an h for 'salary' smooths 'age' flat. Switch
    Standardise on.
    """
    numeric = [
        c
        for c in columns
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    ]
    spreads = frame[numeric].std()
    spreads = spreads[spreads > 0]
    if len(spreads) < 2 or spreads.max() < SPREAD_RATIO * spreads.min():
        return ""
    wide, narrow = spreads.idxmax(), spreads.idxmin()
    return (
        f"Standardise is off, and the columns' spreads differ "
        f"{spreads[wide] / spreads[narrow]:,.0f}x ({wide!r}: {spreads[wide]:.3g}, "
        f"{narrow!r}: {spreads[narrow]:.3g}): one bandwidth h cannot suit both, and an h for "
        f"{wide!r} smooths {narrow!r} flat. Switch Standardise on."
    )
