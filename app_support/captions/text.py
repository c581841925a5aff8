"""Sentence helpers shared by the captions: lists and runs of ratios, written as people read
them."""

from __future__ import annotations

import math
from collections.abc import Iterable


def listed(items: Iterable[str]) -> str:
    """``items`` as a sentence lists them: "a", "a and b", "a, b and c".

    Parameters
    ----------
    items : iterable of str
        The words, in order.

    Returns
    -------
    text : str
        The words joined by commas, the last two by "and" ("" when there are none).

    Examples
    --------
    >>> listed(["MoM-KDE", "RKDE", "SPKDE"])
    'MoM-KDE, RKDE and SPKDE'
    """
    words = list(items)
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def ratio_span(ratios: list[float]) -> str:
    """ "0.3-0.5" for a sorted run of ratios, "0.5" for one."""
    lo, hi = min(ratios), max(ratios)
    return f"{lo:g}" if math.isclose(lo, hi) else f"{lo:g}-{hi:g}"


def ratio_list(ratios: Iterable[float], grid: Iterable[float]) -> str:
    """ "0.1, 0.4-0.5": ``ratios`` written as runs of neighbours on ``grid``, the figure's ratios.

    Parameters
    ----------
    ratios : iterable of float
        Ratios taken from ``grid``.
    grid : iterable of float
        Every ratio of the figure, sorted.

    Returns
    -------
    text : str
        Runs joined by commas, each as :func:`ratio_span` writes it.

    Examples
    --------
    >>> ratio_list([0.1, 0.4, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5])
    '0.1, 0.4-0.5'
    """
    chosen = set(ratios)
    runs: list[list[float]] = [[]]
    for ratio in grid:
        if ratio in chosen:
            runs[-1].append(ratio)
        elif runs[-1]:
            runs.append([])
    return ", ".join(ratio_span(run) for run in runs if run)
