"""Working frames: where the estimators compute, so that no magnitude over- or underflows.

The kernel sums of the engine (:mod:`momkde_core._engine._point_sums`,
:mod:`momkde_core._engine._grid_sums`) take one scalar bandwidth h and the data in
their own units. That is exact and fast for ordinary data, but h * h, the kernel's peak
h^-d / c_d and squared distances leave float64's range for data of magnitude 1e160 or
1e-300, for h = 1e-300, or in d = 200; and a per-feature bandwidth is no scalar at all.

So each fit chooses a :class:`Frame`, an affine map z = (x - shift) / H * h_in per feature
(H: the per-feature bandwidths in the data's units, h_in: the one scalar bandwidth inside):

* the **identity** (z = x, h_in = h) when every feature has the same bandwidth h and the
  data's own units are safe: |x| and h, 1/h at most 2^128 and the kernel's peak within
  [1/limit, limit] (limit 1e100, or 1e30 where a Gram matrix is kept in float32). Results
  are then those of the engine in the data's units, to the bit;
* otherwise the data **centred** on their mid-range and **divided by their bandwidth**, with
  h_in the bandwidth at which the kernel's peak is 1 (so the kernel's values stay in range in
  any dimension). The density in the data's units is the density inside times the Jacobian
  prod_j h_in / H_j: log densities are shifted by its log, grid axes are mapped through the
  same affine map, draws are mapped back.

A feature spanning more than ``MAX_SPAN`` bandwidths is a ``ValueError`` (its squared
distances in bandwidths would overflow). Query coordinates beyond ``FAR`` inside (or that
overflow on the way in) are beyond every kernel's reach: their density is 0 (log: -inf),
which is what float64 holds for exp of minus their squared distance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._columns import bounding_box
from ..kernels import Kernel

SAFE_SCALE = 2.0**128  # the identity frame needs |x|, h and 1/h at most this (~3.4e38)
MAX_SPAN = 1e100  # a feature may span at most this many of its bandwidths
FAR = 1e150  # inner coordinates beyond this are beyond every kernel's reach (squares stay finite)
PEAK_LIMIT = 1e100  # the identity frame keeps the kernel's peak within [1/limit, limit]
PEAK_LIMIT_FLOAT32 = 1e30  # the same where a Gram matrix is held in float32 (SPKDE)


@dataclass(frozen=True)
class Frame:
    """z = (x - shift) / H * h, per feature; ``shift`` None is the identity (z = x)."""

    h: float  # the scalar bandwidth inside the frame
    shift: np.ndarray | None = None
    H: np.ndarray | None = None  # the per-feature bandwidths in the data's units
    # the fit's data's per-feature (minima, maxima) inside the frame (working_frame): the
    # grids' engine needs them, and the frame's own check has just taken them
    box: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False)

    @property
    def identity(self) -> bool:
        return self.shift is None

    @property
    def log_jacobian(self) -> float:
        """log prod_j h / H_j: log density outside = log density inside + this."""
        if self.identity:
            return 0.0
        return float(len(self.H) * np.log(self.h) - np.sum(np.log(self.H)))

    def inner(self, X: np.ndarray) -> np.ndarray:
        """The data (finite, within the frame's span) in the frame."""
        if self.identity:
            return X
        return (X - self.shift) / self.H * self.h

    def outer(self, Z: np.ndarray) -> np.ndarray:
        """Points of the frame back in the data's units (inf beyond float64's range)."""
        if self.identity:
            return Z
        with np.errstate(over="ignore"):
            return Z / self.h * self.H + self.shift

    def inner_queries(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(queries in the frame, mask of those within reach); rows out of reach are set to 0
        in the returned array (their density is 0: see the module docstring)."""
        with np.errstate(over="ignore", invalid="ignore"):
            Z = self.inner(Y) if self.identity else (Y - self.shift) / self.H * self.h
        near = np.all(np.abs(Z) <= FAR, axis=1)  # (NaN and inf compare False)
        if not near.all():
            Z = np.where(near[:, None], Z, 0.0)
        return Z, near

    def inner_axis(self, axis: np.ndarray, feature: int) -> tuple[np.ndarray, np.ndarray]:
        """(the nodes of one grid axis within reach, in the frame; their mask on the axis)."""
        with np.errstate(over="ignore", invalid="ignore"):
            z = axis if self.identity else (axis - self.shift[feature]) / self.H[feature] * self.h
        near = np.abs(z) <= FAR
        return z[near], near

    def outer_bandwidth(self, h_inner: float) -> np.ndarray:
        """The per-feature bandwidths (data units) of the scalar bandwidth ``h_inner`` inside."""
        if self.identity:
            return np.array([float(h_inner)])
        return h_inner / self.h * self.H


def unit_bandwidth(kernel: Kernel, d: int, gram_scale: float = 1.0) -> float:
    """The h at which the kernel at scale ``gram_scale`` h peaks at 1 in d dimensions."""
    return float(np.exp(-kernel.log_norm(d) / d) / gram_scale)


def check_span(X: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ValueError when a feature spans more than ``MAX_SPAN`` of its bandwidths H_j; else
    the per-feature minima and maxima of X (which the caller needs too: one pass each)."""
    lo, hi = bounding_box(X)
    half = hi / 2 - lo / 2  # (no overflow)
    with np.errstate(divide="ignore"):
        log_ratio = np.log(half) + np.log(2.0) - np.log(H)
    bad = np.flatnonzero(log_ratio > np.log(MAX_SPAN))
    if bad.size:
        j = int(bad[0])
        raise ValueError(
            f"feature {j} spans 1e{log_ratio[j] / np.log(10):.0f} bandwidths (h = {H[j]:.3g}, "
            f"range {lo[j]:.3g} .. {hi[j]:.3g}); at most 1e{np.log10(MAX_SPAN):.0f} can be computed in "
            "float64: use a larger bandwidth, or remove the far rows"
        )
    return lo, hi


def working_frame(
    X: np.ndarray,
    H: np.ndarray,
    kernel: Kernel,
    gram_scale: float = 1.0,
    peak_limit: float = PEAK_LIMIT,
) -> Frame:
    """The frame of a fit on X with per-feature bandwidths H (module docstring).

    ``gram_scale`` and ``peak_limit``: the kernel scale whose peak the estimator holds in
    linear space (SPKDE's L2 Gram matrix: sqrt(2) h, in float32) and the range it needs.
    """
    n, d = X.shape
    H = np.asarray(H, dtype=float)
    lo, hi = check_span(X, H)
    if np.all(H == H[0]):
        h = float(H[0])
        log_peak = -kernel.log_norm(d) - d * np.log(gram_scale * h)
        if (
            1.0 / SAFE_SCALE <= h <= SAFE_SCALE
            and max(-lo.min(), hi.max()) <= SAFE_SCALE
            and abs(log_peak) <= np.log(peak_limit)
        ):
            return Frame(h, box=(lo, hi))
    frame = Frame(unit_bandwidth(kernel, d, gram_scale), lo / 2 + hi / 2, H.copy())
    # (inner is monotone, rounding included: it maps the extremes to the extremes)
    return Frame(frame.h, frame.shift, frame.H, (frame.inner(lo), frame.inner(hi)))


def selection_frame(X: np.ndarray, scales: np.ndarray) -> Frame:
    """The frame in which a bandwidth rule searches a multiple of the per-feature ``scales``
    (Scott's rule per feature): the identity (h = the common scale) when the scales are
    equal and the data's units are safe, else each feature centred and in units of its
    scale (h = 1). Candidates are multiples of the frame's h either way."""
    scales = np.asarray(scales, dtype=float)
    h = float(scales[0])
    lo, hi = bounding_box(X)
    if (
        np.all(scales == h)
        and 1.0 / SAFE_SCALE <= h <= SAFE_SCALE
        and max(-lo.min(), hi.max()) <= SAFE_SCALE
    ):
        return Frame(h)
    return Frame(1.0, lo / 2 + hi / 2, scales.copy())
