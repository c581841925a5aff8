"""Curves and lines that would hide another: which to dash, and the caption's note (1-D
densities on Explore, the experiments' figures)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import cycle

import numpy as np
import pandas as pd

from momkde_core.plots import method_label

from .sweep import METRIC_NAMES, axis_span, mean_curves
from .text import listed

#: Two lines whose means stay closer than this share of the figure's axis at every ratio both
#: have draw one line (about a line's width and its markers on a 460-pixel figure): the later
#: one is dashed. The axis is [0, 1] for the AUC (so 0.015), 0 to the highest mean otherwise.
COINCIDE = 0.015
#: The dashes of coinciding lines, in drawing order (the first line of a group stays solid; no
#: dotted line, the chance line's style).
DASHES = ("dash", "dashdot", "longdash", "longdashdot")


@dataclass(frozen=True)
class CoincidingLines:
    """The lines of a sweep figure that would hide another (:func:`coinciding_lines`).

    Attributes
    ----------
    twins : dict of str to str
        Each method whose mean stays within ``tolerance`` of that of a method drawn before
        it, at every ratio both have, mapped to the first such method (in drawing order).
    tolerance : float
        :data:`COINCIDE` times the figure's axis span.
    metric : str
        The figure's metric.
    """

    twins: dict[str, str]
    tolerance: float
    metric: str

    @property
    def dashes(self) -> dict[str, str]:
        """The dash of each twin (:data:`DASHES` in turn), for ``metric_vs_ratio_figure``."""
        return dict(zip(self.twins, cycle(DASHES)))

    def __str__(self) -> str:
        """The caption's note: "Dashed lines coincide with another: RKDE and SPKDE within
        0.015 of KDE's mean AUC at every ratio shown (...)", or "" when no line hides another."""
        if not self.twins:
            return ""
        groups: dict[str, list[str]] = {}
        for method, earlier in self.twins.items():
            groups.setdefault(earlier, []).append(method_label(method))
        parts = "; ".join(
            f"{listed(labels)} within {self.tolerance:.2g} of {method_label(earlier)}'s"
            for earlier, labels in groups.items()
        )
        share = f", under {COINCIDE:.1%} of the axis" if self.metric != "auc" else ""
        return (
            f"Dashed lines coincide with another: {parts} mean "
            f"{METRIC_NAMES.get(self.metric, self.metric)} at every ratio shown{share} (drawn "
            "solid, they would hide it)."
        )


def coinciding_lines(results: pd.DataFrame, metric: str) -> CoincidingLines:
    """The lines of a sweep figure that coincide with one drawn before them.

    Parameters
    ----------
    results : DataFrame
        The table the figure draws (columns ``method, ratio, metric, value`` at least).
    metric : str
        The figure's metric.

    Returns
    -------
    lines : CoincidingLines
        Its ``dashes`` style the figure (``metric_vs_ratio_figure(..., dashes=...)``);
        ``str(lines)`` is the caption's note.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"metric": "auc", "ratio": [0.1, 0.2] * 3,
    ...                         "method": ["kde"] * 2 + ["rkde"] * 2 + ["spkde"] * 2,
    ...                         "value": [0.80, 0.70, 0.81, 0.70, 0.60, 0.70]})
    >>> lines = coinciding_lines(results, "auc")
    >>> lines.dashes
    {'rkde': 'dash'}
    >>> print(lines)  # doctest: +NORMALIZE_WHITESPACE
    Dashed lines coincide with another: RKDE within 0.015 of KDE's mean AUC at every ratio
    shown (drawn solid, they would hide it).
    """
    means = mean_curves(results, metric)
    tolerance = COINCIDE * axis_span(means, metric)
    return CoincidingLines(_twins(means, tolerance), tolerance, metric)


def _twins(lines: pd.DataFrame, tolerance: float) -> dict[str, str]:
    """Each column of ``lines`` (in drawing order) that stays within ``tolerance`` of an
    earlier one wherever both are defined, mapped to the first such earlier column."""
    twins = {}
    for i, method in enumerate(lines):
        for earlier in lines.columns[:i]:
            gap = (lines[method] - lines[earlier]).abs().dropna()
            if len(gap) and gap.max() < tolerance:
                twins[method] = earlier
                break
    return twins


def coinciding_curves(
    curves: Mapping[str, np.ndarray], log_floor: float | None = None
) -> tuple[dict[str, str], str]:
    """The density curves of a 1-D figure that would hide an earlier one, their dashes and
    the caption's note.

    Two curves coincide when they stay within :data:`COINCIDE` of the axis' height of each
    other at every point: on a linear axis 0 to the highest peak, on a log axis (``log_floor``:
    its bottom, values below it drawn there) its decades, compared in log10. The true
    density (``"truth"``, drawn dashed) is left out.

    Parameters
    ----------
    curves : mapping of str to ndarray
        Method -> its values on the figure's grid, in drawing order.
    log_floor : float, optional
        The bottom of a log axis; None for a linear axis.

    Returns
    -------
    dashes : dict of str to str
        The dash of each curve that would hide an earlier one (``density_1d_figure``'s
        ``dashes``).
    note : str
        "SPKDE's curve is dashed: it stays within ... of RKDE's, ...", or "".

    Examples
    --------
    >>> import numpy as np
    >>> xs = np.linspace(-3, 3, 7)
    >>> bump = np.exp(-(xs**2))
    >>> coinciding_curves({"kde": bump, "rkde": bump * 1.001, "spkde": bump / 2})[0]
    {'rkde': 'dash'}
    """
    shown = {m: np.asarray(v, dtype=float) for m, v in curves.items() if m != "truth"}
    if not shown:
        return {}, ""
    frame = pd.DataFrame(shown)
    if log_floor is None:
        tolerance = COINCIDE * float(np.nanmax(frame.to_numpy(), initial=0.0))
        where = "of the axis' height"
    else:
        frame = np.log10(frame.clip(lower=log_floor))
        tolerance = COINCIDE * float(frame.to_numpy().max() - np.log10(log_floor))
        where = "of the log axis' decades"
    twins = _twins(frame, tolerance)
    if not twins:
        return {}, ""
    dashes = dict(zip(twins, cycle(DASHES)))
    notes = " ".join(
        f"{method_label(m)}'s curve is dashed: it stays within {COINCIDE:.1%} {where} of "
        f"{method_label(e)}'s, which a solid line would hide."
        for m, e in twins.items()
    )
    return dashes, notes
