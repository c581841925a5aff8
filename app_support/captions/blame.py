"""The captions of the Your data page's explanations: how to read the bars of the flagged
rows, and where a chosen row sits in the columns most to blame."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from momkde_core.detector import MAX_AUTO_EXACT

from ..scoring import TYPICAL_ROWS
from .text import listed


def bars_caption(
    label: str, n_flagged: int, n_explained: int, n_bars: int, n_columns: int, standardised: bool
) -> str:
    """How to read the bars: which rows they are, what a segment is, what its length means.

    Examples
    --------
    >>> bars_caption("MoM-KDE", 30, 30, 20, 4, True)[:60]
    'Each bar is one of the 30 rows MoM-KDE flags, the 20 lowest-'
    """
    which = (f"the {n_bars} lowest-scored" if n_bars < n_flagged else "all of them") + (
        ", from the most anomalous at the top" if n_bars > 1 else ""
    )
    rest = (
        f" The ranking above names the two columns most to blame for each of the "
        f"{n_explained:,} lowest-scored flagged rows"
        + (" (the download: for every one of those)" if n_explained == n_flagged else "")
        + "."
        if n_explained > n_bars
        else ""
    )
    how = (
        "exact Shapley values over every subset of the columns"
        if n_columns <= MAX_AUTO_EXACT
        else "Shapley values estimated from 256 random orders of the columns (seeded)"
    )
    return (
        f"Each bar is one of the {n_flagged:,} rows {label} flags, {which}. Its segments are "
        "the columns' contributions to the row's abnormality -log f(x) in nats, end to end: "
        "they add up to it (the black tick). A segment to the right is a column to blame "
        "(c nats divide the row's density by about e^c); one to the left makes the row more "
        "typical. The top bar is a typical row's (each column's median contribution over "
        f"{TYPICAL_ROWS} fitted rows): every row has some abnormality, so a column is to blame "
        f"where its segment is longer than there. They are {how} of the estimate {label} "
        "fitted"
        + (", on the standardised columns" if standardised else "")
        + f": a column is to blame alone or with the others it breaks away from.{rest}"
    )


def row_caption(
    row_name: str,
    top: Sequence[Hashable],
    values: Sequence[float],
    shares: Sequence[float],
    contributions: Sequence[float],
) -> str:
    """Where the chosen row sits: each top column's value, its contribution and where that
    value falls among the rows; whether the pair is what is odd.

    Examples
    --------
    >>> text = row_caption("row 3", ["a", "b"], [9.0, 1.0], [1.0, 0.6], [6.0, 2.5])
    >>> text[text.index("Its"):][:47]
    'Its values: a = 9 (+6.0 nats; no row above it) '
    """
    parts = [
        f"{column} = {value:.4g} ({contribution:+.1f} nats; {_place(share)})"
        for column, value, share, contribution in zip(top, values, shares, contributions)
    ]
    typical = [str(c) for c, share in zip(top, shares) if 0.05 <= share <= 0.95]
    pair = len(top) == 2
    note = ""
    if pair and len(typical) == 2:
        note = (
            " Both values are common on their own: what is rare is how they go together (or "
            "with the other columns): in the pair view, the star away from the rows' cloud."
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
            f" Top right: the rows in {top[0]} and {top[1]} (grey dots; flagged rows ringed), "
            f"{row_name} the red star."
            if pair
            else ""
        )
        + " Below: each column's histogram over the rows, the red line at "
        + f"{row_name}'s value.{note}"
    )


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
    return (
        f" Columns blame_1, blame_1_nats ... blame_{top}, blame_{top}_nats: the {top} columns "
        f"most to blame for each of the {n_explained:,} lowest-scored rows {label} flags, with "
        f"their contributions in nats, as `momkde score --explain {top}` writes them (empty "
        "for the other rows)."
    )
