"""The "isj" rule: the Improved Sheather-Jones bandwidth (Botev, Grotowski & Kroese 2010).

For the Gaussian kernel and 1-D data only: the algorithm, and how it differs from KDEpy's,
are in the Notes of :func:`isj`.
"""

from __future__ import annotations

import numpy as np
from scipy.fft import dct
from scipy.optimize import brentq

from ._thumb import effective_size

ISJ_GRID_SIZE = 2**14  # nodes of the "isj" grid (a power of two, for the DCT)
ISJ_PAD = 0.5  # the "isj" grid extends this share of the data's range beyond each end
ISJ_ORDER = 7  # l, the order of the functional the fixed point starts from (the paper's choice)


def _isj_functional(j: int, t: float, k2: np.ndarray, a2: np.ndarray) -> float:
    """||f_t^(j)||^2 on [0, 1] from the squared cosine coefficients a2 (:func:`isj`, Notes)."""
    return 0.5 * np.pi ** (2 * j) * float(np.sum(k2**j * a2 * np.exp(-(np.pi**2) * k2 * t)))


def _isj_equation(t: float, N: float, k2: np.ndarray, a2: np.ndarray) -> float:
    """t - xi gamma^[l](t): negative below the fixed point, positive above it."""
    with np.errstate(divide="ignore", over="ignore"):
        norm = _isj_functional(ISJ_ORDER, t, k2, a2)
        for j in range(ISJ_ORDER - 1, 1, -1):
            odd = float(np.prod(np.arange(1, 2 * j, 2)))  # (2j - 1)!!
            t_j = ((1.0 + 2.0 ** (-j - 0.5)) / 3.0 * odd / (N * np.sqrt(np.pi / 2.0) * norm)) ** (
                2.0 / (3.0 + 2.0 * j)
            )
            norm = _isj_functional(j, t_j, k2, a2)
        return t - (2.0 * N * np.sqrt(np.pi) * norm) ** (-0.4)


def isj(
    x: np.ndarray,
    weights: np.ndarray | None = None,
    grid_size: int = ISJ_GRID_SIZE,
    bounds: tuple[float, float] | None = None,
) -> float:
    """The Improved Sheather-Jones bandwidth of the 1-D sample ``x``.

    The plug-in rule of Botev, Grotowski & Kroese (2010), for the Gaussian kernel and 1-D
    data only. It is scale-equivariant and translation-invariant.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The sample (flattened).
    weights : ndarray of shape (n,), optional
        Positive, summing to 1 (None: equal). N is then Kish's effective size and the bins
        are weighted.
    grid_size : int, default 2**14
        The number of grid nodes, a power of two (for the DCT).
    bounds : tuple of two floats, optional
        The interval (lo, hi) mapped to [0, 1], which must hold the data strictly inside
        (default: the data's range R widened by R/2 on each side, [min - R/2, max + R/2]); the
        nodes are the centres of its ``grid_size`` cells.

    Returns
    -------
    h : float
        The bandwidth, in the units of ``x``.

    Raises
    ------
    ValueError
        When ``grid_size`` is not a power of two, ``bounds`` do not hold the data, the
        fixed-point equation has no positive root (too few points, or too few distinct
        values), or the root is below the grid's spacing (discrete data).

    See Also
    --------
    select_bandwidth : ``bandwidth="isj"`` (1-D only; d > 1 is a ``ValueError``).

    Notes
    -----
    The data are mapped to [0, 1] with the interval ``bounds``, binned linearly on the
    ``grid_size`` cell centres, and the DCT-II of the bins gives the cosine coefficients
    ``a_k = 2 E[cos(k pi X)]`` of the empirical measure. The squared norm of the j-th
    derivative of the Gaussian-smoothed density at time t (variance t, on [0, 1]) is then
    ``||f_t^(j)||^2 = (pi^(2j) / 2) sum_k k^(2j) a_k^2 exp(-k^2 pi^2 t)``. The fixed-point
    equation ``t = xi gamma^[l](t)`` with l = 7 (the paper's recommendation) is solved by
    :func:`scipy.optimize.brentq`: starting from ``||f^(7)||^2`` at t, each step estimates
    the optimal time of the functional of one order lower,
    ``t_j = (c_j (2j - 1)!! / (N sqrt(pi / 2) ||f^(j+1)||^2))^(2 / (3 + 2j))`` with
    ``c_j = (1 + 2^(-j - 1/2)) / 3``, down to ``||f''||^2``, and the equation is
    ``t = (2 N sqrt(pi) ||f''||^2)^(-2/5)``. The root is the smallest positive one (the first
    sign change on a geometric scan, refined by brentq). The bandwidth is ``h = sqrt(t*)``
    times the length of the interval mapped to [0, 1] (as in the paper). N is the number of
    rows (with sample weights: Kish's effective size, and the bins weighted).

    KDEpy's ``improved_sheather_jones`` (1.1.x) differs in three documented ways: it
    multiplies sqrt(t*) by the data's range R instead of its grid's length (so its h is
    smaller by the factor R / grid length, 1/2 when R >= 12), pads the grid by max(R/2, 6)
    in absolute units (not scale-equivariant below R = 12) and uses 2^10 nodes; with its
    grid, our h times R / grid length is its value
    (``tests/bandwidth/test_bandwidth_isj.py``).

    References
    ----------
    Z. I. Botev, J. F. Grotowski, D. P. Kroese. Kernel density estimation via diffusion.
    Annals of Statistics 38(5), 2916-2957, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.bandwidth import isj
    >>> x = np.random.default_rng(2).normal(size=200)
    >>> round(isj(x), 2)
    0.42
    >>> bool(np.isclose(isj(10 * x + 3), 10 * isj(x)))
    True
    """
    x = np.asarray(x, dtype=float).ravel()
    if grid_size < 2 or grid_size & (grid_size - 1):
        raise ValueError(f"grid_size must be a power of two >= 2, got {grid_size!r}")
    lo, hi = float(x.min()), float(x.max())
    if bounds is None:
        pad = ISJ_PAD * (hi - lo)
        bounds = (lo - pad, hi + pad)
    if not bounds[0] < lo <= hi < bounds[1]:
        raise ValueError(f"bounds {bounds!r} must hold the data strictly inside")
    length = bounds[1] - bounds[0]
    step = length / grid_size
    # linear binning on the cell centres bounds[0] + (i + 1/2) step
    pos = np.clip((x - bounds[0]) / step - 0.5, 0.0, grid_size - 1.0)
    left = np.minimum(np.floor(pos).astype(np.intp), grid_size - 2)
    frac = pos - left
    mass = np.full(len(x), 1.0 / len(x)) if weights is None else np.asarray(weights, float)
    bins = np.bincount(left, mass * (1.0 - frac), minlength=grid_size) + np.bincount(
        left + 1, mass * frac, minlength=grid_size
    )
    coef = dct(bins, type=2)  # a_k = 2 sum_i bins_i cos(k pi (i + 1/2) / n)
    k2 = np.arange(1, grid_size, dtype=float) ** 2
    a2 = coef[1:] ** 2
    N = effective_size(x, None if weights is None else np.asarray(weights, float))
    # the first sign change on a geometric scan of t (t = (h / length)^2), then brentq
    previous = 0.0
    for upper in np.geomspace(1e-14, 1.0, 113):
        if _isj_equation(upper, N, k2, a2) > 0:
            t = brentq(_isj_equation, previous, upper, args=(N, k2, a2), xtol=1e-300, rtol=1e-12)
            break
        previous = upper
    else:
        raise ValueError(
            "bandwidth='isj' did not converge: the fixed-point equation of Botev et al. has "
            f"no root for these {len(x)} points (too few, or too few distinct values); pass "
            "a positive number or another rule ('scott', 'silverman', 'cv')"
        )
    if np.sqrt(t) < 1.0 / grid_size:
        raise ValueError(
            f"bandwidth='isj' found h = {np.sqrt(t) * length:.3g}, below the spacing of its "
            f"grid ({step:.3g}): the data look discrete (repeated values); pass a positive "
            "number or another rule ('scott', 'silverman')"
        )
    return float(np.sqrt(t) * length)
