"""Gaussian factors exp(-(x_i - g_k)^2 / 2h^2) of points at the nodes of an evenly spaced
axis, by a two-multiplication recurrence instead of one exponential per entry (numba).

The exact separable product of the 2-D grid engine (``A_x^T diag(w) A_y``) needs these
factors for every point and node of both axes: n x (n_x + n_y) entries. Evaluated with numpy
that is six passes over n x m temporaries and an exp per entry, most of the product's time.

With t_k = (x - g_k) / h and nodes g_k = g_0 + k step (delta = step / h), the factor
e_k = exp(-t_k^2 / 2) satisfies e_(k+1) = e_k q_k with q_k = exp(t_k delta - delta^2 / 2) and
q_(k+1) = q_k exp(-delta^2); walking away from the node nearest to x, where e is largest,
the factors only decrease (q <= 1 there), so the walk stops at the first one below e^floor
(the engine's flush threshold, ``kernels.EXP_FLOOR``) and the rest of the row stays 0, as
:func:`momkde_core.kernels.flushed_exp` gives (entries within a few ulps of e^floor, ~1e-304,
may fall on the other side of it). Each product adds a rounding error, and q's own (its
argument t delta can be ~30) is repeated at every step, so every ``ANCHOR``-th factor is
recomputed by an exponential of the node's own coordinate. The steps assume nodes exactly
``step`` apart, and a node d off that puts t d / h (t up to ~37) into the exponent, where
the direct formula takes the stored coordinates' difference exactly: an axis is accepted
when its nodes, with their own rounding (4 ulps of the largest coordinate), are within
``EVEN_NODES`` h of even spacing (:func:`evenly_spaced`). The relative error to the direct
exponential is then below ~1e-11 plus 37 EVEN_NODES (tested, far tails included; ~1e-12 on
``numpy.linspace`` axes near 0); far from the origin (|x| / h beyond ~1e3 / ulp: the
ulps alone exceed EVEN_NODES h) every entry is a direct exponential.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..kernels import EXP_FLOOR, flushed_exp

ANCHOR = 32  # every 32nd factor of a walk is an exponential, the others two products
EVEN_NODES = 1e-12  # nodes within this many h of even spacing (their ulps included) are even


@njit(cache=True, nogil=True)
def _factors(x, axis, step, inv_h, floor, out):  # pragma: no cover (compiled)
    n, m = out.shape
    delta = step * inv_h
    decay = math.exp(-delta * delta)
    smallest = math.exp(floor)
    for i in range(n):
        # the nearest node, clamped in floating point before the cast (a point beyond
        # the int64 range must not wrap around); a NaN coordinate leaves its row at 0
        nearest = round((x[i] - axis[0]) / step) if step > 0.0 else 0.0
        if not nearest == nearest:
            continue
        k0 = int(min(max(nearest, 0.0), m - 1.0))
        # every exponential's argument is taken from the node's own coordinate,
        # (x - g_k) / h, as the direct formula does (an offset to the axis' origin would
        # lose digits far from it)
        t = (x[i] - axis[k0]) * inv_h
        if -0.5 * t * t < floor:  # the largest factor of the row is flushed: all are
            continue
        out[i, k0] = math.exp(-0.5 * t * t)
        for side in (1, -1):  # walk right, then left: away from x, q <= 1
            k = k0 + side
            while 0 <= k < m:
                # an anchor by exponentials, then ANCHOR - 1 steps of two products: the
                # rounding of the products (and of q, repeated at each step) cannot pile up
                tk = (x[i] - axis[k]) * inv_h
                if -0.5 * tk * tk < floor:
                    break
                e = math.exp(-0.5 * tk * tk)
                q = math.exp(side * tk * delta - 0.5 * delta * delta)
                out[i, k] = e
                k += side
                end = min(m, k + ANCHOR - 1) if side > 0 else max(-1, k - ANCHOR + 1)
                while k != end:
                    e *= q
                    q *= decay
                    if e < smallest:
                        break
                    out[i, k] = e
                    k += side
                if k != end:  # stopped below the floor: the rest of the walk is 0
                    break


def gaussian_axis_factors(
    x: np.ndarray, axis: np.ndarray, h: float, floor: float
) -> np.ndarray | None:
    """exp(-(x_i - axis_k)^2 / 2h^2), shape (len(x), len(axis)), entries below e^floor 0;
    None when ``axis`` is not increasing and evenly spaced to its ulps (:func:`evenly_spaced`:
    the recurrence needs g_k = g_0 + k step), for the caller to evaluate directly."""
    axis = np.asarray(axis, dtype=np.float64)
    m = len(axis)
    step = (axis[-1] - axis[0]) / (m - 1) if m > 1 else 0.0
    if m > 1 and not (step > 0 and evenly_spaced(axis, h)):
        return None
    out = np.zeros((len(x), m))
    if m == 0 or not len(x):
        return out
    _factors(
        np.ascontiguousarray(x, dtype=np.float64), axis, float(step), 1.0 / h, float(floor), out
    )
    return out


def gaussian_factors(x: np.ndarray, axis: np.ndarray, h: float, floor: float) -> np.ndarray:
    """exp(-(x_i - axis_k)^2 / 2h^2), shape (len(x), len(axis)), entries below e^floor
    (``floor`` >= the engine's EXP_FLOOR) 0: by the recurrence on an evenly spaced axis,
    else one flushed exponential per entry."""
    values = gaussian_axis_factors(x, axis, h, floor)
    if values is None:
        x = np.asarray(x, dtype=np.float64)
        values = flushed_exp(-0.5 * np.square((x[:, None] - np.asarray(axis)[None, :]) / h))
        if floor > EXP_FLOOR:
            values *= values >= np.exp(floor)
    return values


def evenly_spaced(axis: np.ndarray, h: float) -> bool:
    """Whether every node of ``axis`` lies within ``EVEN_NODES`` h of the evenly spaced
    nodes between its ends, its own rounding included (4 ulps of its largest coordinate,
    as a step or a centre computed from the nodes would be off by that much): then factors
    computed for evenly spaced nodes are within ~40 EVEN_NODES relative of those at the
    stored nodes (a point is within ~40 h of the nodes where its factor counts)."""
    axis = np.asarray(axis, dtype=np.float64)
    if not len(axis):
        return True
    ideal = np.linspace(axis[0], axis[-1], len(axis))
    rounding = 4.0 * np.spacing(np.abs(axis).max())
    return bool(np.abs(axis - ideal).max() + rounding <= EVEN_NODES * h)
