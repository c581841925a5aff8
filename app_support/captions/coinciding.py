"""Curves and lines that would hide another: which to dash, and the caption's note (1-D
densities on Explore, the experiments' figures)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from momkde_core.plots import (
    COINCIDE,
    DASHES,
    density_twin_curves,
    method_label,
    sweep_twin_lines,
    twin_dashes,
)

from .sweep import METRIC_NAMES
from .text import listed

# the rule (which lines coincide, their dashes) is the library's, which momkde figures
# draws with too: COINCIDE and DASHES are re-exported for the pages and their tests
__all__ = ["COINCIDE", "DASHES", "CoincidingLines", "coinciding_curves", "coinciding_lines"]


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
        return twin_dashes(self.twins)

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
    """The lines of a sweep figure that coincide with one drawn before them
    (:func:`momkde_core.plots.sweep_twin_lines`).

    Parameters
    ----------
    results, metric
        As for :func:`~momkde_core.plots.sweep_twin_lines`: the figure's table and metric.

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
    twins, tolerance = sweep_twin_lines(results, metric)
    return CoincidingLines(twins, tolerance, metric)


def coinciding_curves(
    curves: Mapping[str, np.ndarray], log_floor: float | None = None
) -> tuple[dict[str, str], str]:
    """The density curves of a 1-D figure that would hide an earlier one, their dashes and
    the caption's note.

    The rule is :func:`momkde_core.plots.density_twin_curves`: within :data:`COINCIDE` of the
    axis' height at every point (a log axis' decades with ``log_floor``), the true density
    left out.

    Parameters
    ----------
    curves, log_floor
        As for :func:`~momkde_core.plots.density_twin_curves`: the curves in drawing order,
        the bottom of a log axis (None: a linear axis).

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
    twins = density_twin_curves(curves, log_floor)
    if not twins:
        return {}, ""
    where = "of the axis' height" if log_floor is None else "of the log axis' decades"
    notes = " ".join(
        f"{method_label(m)}'s curve is dashed: it stays within {COINCIDE:.1%} {where} of "
        f"{method_label(e)}'s, which a solid line would hide."
        for m, e in twins.items()
    )
    return twin_dashes(twins), notes
