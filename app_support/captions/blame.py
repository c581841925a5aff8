"""The captions of the Your data page's explanations: how to read the bars of the flagged
rows, and where a chosen row sits in the columns most to blame."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from numbers import Real

import numpy as np

from momkde_core.detector import DEFAULT_PERMUTATIONS, MAX_AUTO_EXACT
from momkde_core.methods import DEFAULT_DETECTOR, method_label

from .text import listed


def bars_caption(
    label: str,
    counts: dict[str, int],
    n_columns: int,
    standardised: bool,
) -> str:
    """How to read the bars: which rows they are, what a segment is, what its length means.

    ``counts``: ``flagged`` (the rows the method flags), ``explained`` (the lowest-scored of
    them explained), ``bars`` (those drawn), ``typical`` (the fitted rows the typical row's
    medians are over) and ``beyond`` (bars of rows beyond every kernel's reach).

    Examples
    --------
    >>> counts = dict(flagged=30, explained=30, bars=20, typical=200, beyond=0)
    >>> bars_caption("MoM-KDE", counts, 4, True)[:60]
    'Each bar is one of the 30 rows MoM-KDE flags, the 20 lowest-'
    """
    n_flagged, n_explained, n_bars = counts["flagged"], counts["explained"], counts["bars"]
    which = (f"the {n_bars} lowest-scored" if n_bars < n_flagged else "all of them") + (
        ", from the most anomalous at the top" if n_bars > 1 else ""
    )
    rest = _in_the_ranking(n_columns, n_explained, n_bars)
    beyond = (
        f" {counts['beyond']} bar(s) have density 0: the row is beyond every kernel's reach in "
        "the columns named, which take the whole blame, and no finite split exists."
        if counts["beyond"]
        else ""
    )
    if n_columns == 1:
        return (
            f"Each bar is one of the {n_flagged:,} rows {label} flags, {which}: with one "
            f"column scored, the row's whole {_abnormality(label)}, in nats, is that "
            "column's. "
            f"The top bar is a typical row's (the median over {counts['typical']} fitted "
            f"rows).{rest}{beyond}"
        )
    return (
        f"Each bar is one of the {n_flagged:,} rows {label} flags, {which}: each column's "
        f"contribution to the row's {_abnormality(label)} in nats, end to end, summing to "
        f"the black tick; the top bar is a typical row's.{beyond}"
    )


def _abnormality(label: str) -> str:
    """What the detector named ``label`` splits among the columns: minus its score, -log f(x),
    where the default detector's score is the mean of its blocks' log densities.

    Examples
    --------
    >>> _abnormality("KDE")
    'abnormality -log f(x)'
    >>> _abnormality("MoM-KDE (S = 21, Scott h)")[:40]
    'abnormality -(1/S) Σ_b log f_b(x) (minus'
    """
    if label == method_label(DEFAULT_DETECTOR):
        return "abnormality -(1/S) Σ_b log f_b(x) (minus the mean of its blocks' log densities)"
    return "abnormality -log f(x)"


def _in_the_ranking(n_columns: int, n_explained: int, n_bars: int) -> str:
    """That the ranking names the columns most to blame for more rows than the bars show."""
    named = "the column" if n_columns == 1 else "the two columns"
    return (
        f" The ranking above names {named} most to blame for each of the "
        f"{n_explained:,} lowest-scored flagged rows, and the download too."
        if n_explained > n_bars
        else ""
    )


def bars_details(
    label: str,
    counts: dict[str, int],
    n_columns: int,
    standardised: bool,
) -> str:
    """How the bars of :func:`bars_caption` are computed and read, at length (several
    columns; "" for one, whose caption says it all).

    Examples
    --------
    >>> counts = dict(flagged=30, explained=30, bars=20, typical=200, beyond=0)
    >>> bars_details("MoM-KDE", counts, 4, True)[:52]
    'A segment to the right is a column to blame (c nats '
    >>> bars_details("MoM-KDE", counts, 1, True)
    ''
    """
    if n_columns == 1:
        return ""
    how = (
        "exact Shapley values over every subset of the columns"
        if n_columns <= MAX_AUTO_EXACT
        else f"Shapley values estimated from {DEFAULT_PERMUTATIONS} random orders of the "
        "columns (seeded)"
    )
    rest = _in_the_ranking(n_columns, counts["explained"], counts["bars"])
    return (
        "A segment to the right is a column to blame (c nats divide the row's density by "
        "about e^c); one to the left makes the row more typical. The top bar is a typical "
        f"row's: each column's median contribution over {counts['typical']} fitted rows (its "
        "tick, the sum of these medians). Every row has some abnormality, so a column is to "
        f"blame where its segment is longer than there. The segments are {how} of the "
        f"estimate {label} fitted"
        + (", on the standardised columns" if standardised else "")
        + f": a column is to blame alone or with the others it breaks away from.{rest}"
    )


def row_caption(
    row_name: str,
    top: Sequence[Hashable],
    values: Sequence[float],
    shares: Sequence[float],
    contributions: Sequence[float],
    n_drawn: int | None = None,
    n_rows: int | None = None,
) -> str:
    """Where the chosen row sits: each top column's value, its contribution and where that
    value falls among the rows; whether the pair is what is odd; the pair view's dots a
    sample of ``n_drawn`` of the ``n_rows`` rows when fewer.

    Examples
    --------
    >>> text = row_caption("row 3", ["a", "b"], [9.0, 1.0], [1.0, 0.6], [6.0, 2.5])
    >>> text[text.index("Its"):][:47]
    'Its values: a = 9 (+6.0 nats; no row above it) '
    >>> text = row_caption("row 3", ["salary"], [95000.0], [1.0], [6.0])
    >>> text[text.index("Its"):][:28]
    'Its values: salary = 95000 ('
    >>> text = row_caption("row 3", ["role", "b"], ["intern", 1.0], [0.2, 0.6], [6.0, 2.5])
    >>> text[text.index("Its"):][:62]
    'Its values: role = intern (+6.0 nats; 20.0% of the rows at thi'
    """
    levels = [c for c, value in zip(top, values) if not isinstance(value, Real)]
    parts = [
        f"{column} = {value} ({_nats(contribution)}; {share:.1%} of the rows at this level)"
        if column in levels
        else f"{column} = {value:.6g} ({_nats(contribution)}; {_place(share)})"  # (95000 as 95000)
        for column, value, share, contribution in zip(top, values, shares, contributions)
    ]
    finite = all(np.isfinite(contributions))
    typical = [str(c) for c, share in zip(top, shares) if 0.05 <= share <= 0.95 and finite]
    pair = len(top) == 2 and not levels
    note = ""
    if len(top) == 2 and len(typical) == 2:
        note = (
            " Both values are common on their own: what is rare is how they go together (or "
            "with the other columns)"
            + (": in the pair view, the star away from the rows' cloud." if pair else ".")
        )
    elif typical:
        note = (
            f" {listed(typical)} is common on its own: its contribution comes from how it "
            "goes with the other columns."
        )
    return (
        f"Top left: {row_name}'s contributions, largest first, a black tick at a typical row's. "
        f"Its values: {listed(parts)}."
        + (
            f" Top right: the rows in {top[0]} and {top[1]} (grey dots"
            + (
                f", a uniform sample of {n_drawn:,} of the {n_rows:,}"
                if n_drawn is not None and n_rows is not None and n_drawn < n_rows
                else ""
            )
            + f"; flagged rows ringed), {row_name} the red star."
            if pair
            else ""
        )
        + (
            " Below: each column's histogram over every row, the red line at "
            + f"{row_name}'s value."
            if len(levels) < len(top)
            else ""
        )
        + (
            f" Below, for {listed([str(c) for c in levels])}: the rows at each level (the "
            f"most common first), {row_name}'s level in red."
            if levels
            else ""
        )
        + note
    )


def missing_row_note(name: str, asked: str, options: Sequence[str], n_rows: int) -> str:
    """That the row ``asked`` (by a link, or chosen before ε changed) is not among the flagged
    rows explained (``options``, from the most anomalous) and which is shown instead; ``name``
    is what names the rows (``row``, the data row, or an id column), ``n_rows`` the rows
    scored.

    Examples
    --------
    >>> print(missing_row_note("row", "999999", ["145", "823", "585"], 960))
    row 999999 is not among the 3 flagged rows explained here (rows 145, 823 and 585; the file's rows scored are numbered 1 to 960 at most): showing row 145, the most anomalous.
    """
    shown = listed(options) if len(options) <= 5 else f"{', '.join(options[:5])}, ..."
    numbered = (
        f"; the file's rows scored are numbered 1 to {n_rows:,} at most" if name == "row" else ""
    )
    return (
        f"{name} {asked} is not among the {len(options):,} flagged rows explained here "
        f"({name}s {shown}{numbered}): showing {name} {options[0]}, the most anomalous."
    )


def _nats(contribution: float) -> str:
    """A contribution as the caption writes it."""
    if np.isposinf(contribution):
        return "beyond every kernel's reach: the whole blame"
    if np.isnan(contribution):
        return "no finite share: the row is beyond reach in another column"
    return f"{contribution:+.1f} nats"


def _place(share: float) -> str:
    """Where a value falls among the rows, from the share at or below it."""
    if np.isnan(share):
        return "no other value"
    if share >= 0.5:
        return "no row above it" if share == 1 else f"{1 - share:.1%} of the rows above it"
    return f"{share:.1%} of the rows at or below it"


def download_columns_note(label: str, n_explained: int, top: int) -> str:
    """What the download's blame columns are.

    Examples
    --------
    >>> download_columns_note("MoM-KDE", 12, 3).split(":")[0]
    ' Columns blame_1, blame_1_nats ... blame_3, blame_3_nats'
    """
    names = "blame_1, blame_1_nats" + (f" ... blame_{top}, blame_{top}_nats" if top > 1 else "")
    which = "column" if top == 1 else f"{top} columns"
    return (
        f" Columns {names}: the {which} most to blame for each of the {n_explained:,} "
        f"lowest-scored rows {label} flags, with their contributions in nats, as "
        f"`momkde score --explain {top}` writes them (empty for the other rows)."
    )
