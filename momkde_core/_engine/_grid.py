"""Evenly spaced evaluation grids (axes, mesh points, cell volume) for plots, integrals, metrics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._columns import bounding_box


@dataclass(frozen=True)
class Grid:
    """The mesh of 1 or 2 evenly spaced axes ("ij" indexing, as ``pdf_grid`` returns)."""

    axes: tuple[np.ndarray, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a) for a in self.axes)

    @property
    def cell(self) -> float:
        """Volume of one cell: the product of the axis spacings (the Riemann-sum weight)."""
        return float(np.prod([a[1] - a[0] for a in self.axes]))

    @property
    def points(self) -> np.ndarray:
        """The mesh as an (N, d) array of points, in the order of ``ravel()`` of a grid value."""
        return np.stack([m.ravel() for m in np.meshgrid(*self.axes, indexing="ij")], axis=1)

    def integrate(self, values: np.ndarray) -> float:
        """Riemann sum of ``values`` (shape ``self.shape``) over the grid."""
        return float(np.sum(values) * self.cell)


def grid_around(X: np.ndarray, margin: float | np.ndarray, n_points: int | list[int]) -> Grid:
    """A grid spanning the data's bounding box widened by ``margin`` on every side."""
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    d = X.shape[1]
    margins = np.broadcast_to(np.asarray(margin, dtype=float), (d,))
    counts = np.broadcast_to(np.asarray(n_points, dtype=int), (d,))
    lo, hi = bounding_box(X)
    lo, hi = lo - margins, hi + margins
    return Grid(tuple(np.linspace(a, b, int(k)) for a, b, k in zip(lo, hi, counts)))


def is_evenly_spaced(axis: np.ndarray) -> bool:
    """True when ``axis`` is strictly increasing with constant spacing (to 1e-6)."""
    axis = np.asarray(axis, dtype=float)
    if axis.ndim != 1 or len(axis) < 2:
        return False
    steps = np.diff(axis)
    # (|step - step_0| <= 1e-6 |step_0| for all, as np.allclose would say, in two reductions)
    return bool(steps[0] > 0 and np.abs(steps - steps[0]).max() <= 1e-6 * steps[0])
