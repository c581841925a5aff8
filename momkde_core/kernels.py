"""Radial kernels K(u) = k(||u||) / c_d normalised to integrate to 1 on R^d.

The profiles and their names follow scikit-learn's ``KernelDensity`` so that results agree
with it for the same kernel and bandwidth (except the cosine kernel for d = 2, whose
constant is wrong in scikit-learn: its 2-D kernel integrates to 0.363; ours to 1). Every
function works in log space, because in high dimension (Digits: d = 64) the normalising
constants and the kernel values themselves under- or overflow in linear space.

``Kernel.log_profile(r)`` is log k(r) for the scaled distance r = ||x - y|| / h (``-inf``
outside the support); ``Kernel.log_norm(d)`` is log c_d = log of the integral of k(||u||)
over R^d, so that log K_h(x - y) = log_profile(r) - log_norm(d) - d log h.

Besides its profile, a :class:`Kernel` states what the numeric engine may assume of it
(as KDEpy's kernels state their support and variance): whether it is compact, how fast its
log profile decays (``decay_power``), hence whether it factorises over the axes
(``separable``) and has Hermite derivatives (``hermite_derivatives``), and how fine a
binning it needs (``cells_per_bandwidth``). The engine reads these, never the name.

Examples
--------
>>> from momkde_core.kernels import KERNELS
>>> sorted(KERNELS)
['cosine', 'epanechnikov', 'exponential', 'gaussian', 'linear', 'tophat']
>>> [name for name, k in KERNELS.items() if k.compact]
['tophat', 'epanechnikov', 'linear', 'cosine']
>>> [name for name, k in KERNELS.items() if k.separable]
['gaussian']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import integrate, special

from ._validation import Rule, check_parameters

KERNEL_ALIASES = {"uniform": "tophat", "triangular": "linear"}
EXP_FLOOR = -700.0  # linear kernel values below e^-700 are flushed to 0 (see flushed_exp)
SAFE_LINEAR = 1e-290  # linear sums above this lost nothing to flushed terms (see flushed_exp)
ZERO_EXP_BELOW = -745.2  # exp of any float64 below this is exactly 0


def _log_unit_ball_volume(d: int) -> float:
    """log of the volume of the unit Euclidean ball in R^d: pi^(d/2) / Gamma(d/2 + 1)."""
    return 0.5 * d * np.log(np.pi) - special.gammaln(0.5 * d + 1.0)


def _log_sphere_area(d: int) -> float:
    """log of the surface area of the unit sphere in R^d: 2 pi^(d/2) / Gamma(d/2)."""
    return np.log(2.0) + 0.5 * d * np.log(np.pi) - special.gammaln(0.5 * d)


@dataclass(frozen=True)
class Kernel:
    """A radial kernel K(u) = k(||u||) / c_d and what the engine may assume of it.

    Get one by name with :func:`get_kernel`; :data:`KERNELS` holds them all. The kernel's
    values at a bandwidth h are K_h(x - y) = k(||x - y|| / h) / (c_d h^d).

    Parameters
    ----------
    name : str
        scikit-learn's name of the kernel: for messages, keys and pickling, never to decide
        how to compute (the attributes below say that).
    log_profile : callable
        log k(r) at scaled distances r = ||x - y|| / h, ``-inf`` outside the support.
    radius : float
        The scaled distance beyond which k(r) is 0 (the compact kernels: 1) or below
        1e-17 k(0) (the Gaussian: 8.8; the exponential: 40).
    log_norm_closed : callable or None
        log c_d as a function of d when it has a closed form; None: by quadrature.
    smooth : bool
        Whether the profile is smooth at every r, so that linear binning on cells of side
        delta errs by O((delta / h)^2) of the peak (the Gaussian); kernels with a kink or a
        jump converge as delta / h at best.
    decay_power : int or None
        p when log k(r) = -r^p / p at every r: 2 for the Gaussian, 1 for the exponential;
        None for the compact kernels. A point at distance r from a node then weighs e^-b
        times one at distance D when r^p - D^p = p b h^p: how far the engine's exact tails
        must look.
    cells_per_bandwidth : float or None
        The cells per bandwidth h for which linear binning is within about 1e-3 of the
        kernel's peak: 16 for the Gaussian ((delta / h)^2 / 8 per axis, twice that in the
        plane); 256 or 512 for the kernels with a kink, which converge only as delta / h.
        None: the kernel is not binned (the tophat's jump keeps an O(1) error at its edge).
    sample_radius_closed : callable or None
        ``(d, size, rng) -> radii`` drawn from the radial law k(r) r^(d-1) when a standard
        distribution gives it; None: by inverting the law's tabulated distribution.

    Attributes
    ----------
    compact : bool
        Whether k(r) is exactly 0 beyond the radius (all but the Gaussian and exponential).
    separable : bool
        Whether K_h(u) is a product of one factor per axis (among radial kernels, the
        Gaussian only): sums on a mesh then take products of per-axis factors, and
        log K_h(x - y) is x.y / h^2 plus terms of x alone and of y alone (one matrix
        product for all pairs).
    hermite_derivatives : bool
        Whether the profile's derivatives are Hermite polynomials times the profile,
        K_h^(j)(u) = (-1/h)^j He_j(u / h) K_h(u) (the Gaussian): Taylor moments of binned
        points have closed-form kernels and bounded remainders.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.kernels import get_kernel
    >>> gauss = get_kernel("gaussian")
    >>> gauss.compact, gauss.separable, gauss.decay_power
    (False, True, 2)
    >>> epa = get_kernel("epanechnikov")
    >>> epa.compact, epa.separable, epa.cells_per_bandwidth
    (True, False, 512.0)
    >>> round(float(np.exp(-gauss.log_norm(1))), 4)  # K(0) = 1 / sqrt(2 pi)
    0.3989
    >>> epa.log_profile(np.array([0.0, 0.5, 1.0])).round(4)
    array([ 0.    , -0.2877,    -inf])
    >>> get_kernel("exponential").kernel_sq(np.zeros(3), 1.0, 2).round(4)
    array([0.1592, 0.1592, 0.1592])
    """

    name: str
    log_profile: Callable[[np.ndarray], np.ndarray]
    radius: float
    log_norm_closed: Callable[[int], float] | None
    smooth: bool
    decay_power: int | None = None
    cells_per_bandwidth: float | None = None
    sample_radius_closed: Callable[[int, int, np.random.Generator], np.ndarray] | None = None

    def __reduce__(self):
        """Pickle by name (the profiles are module functions, the constants lambdas)."""
        return get_kernel, (self.name,)

    def log_norm(self, d: int) -> float:
        """log c_d, the integral of the profile over R^d (so K = k / c_d integrates to 1)."""
        if self.log_norm_closed is not None:
            return float(self.log_norm_closed(d))
        return _numeric_log_norm(self.name, d)

    def log_kernel_sq(
        self, sq_dist: np.ndarray, h: float, d: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """log K_h at squared distances: log k(sqrt(sq)/h) - log c_d - d log h (into
        ``out`` when given: a reused buffer spares a large temporary's page faults)."""
        if self.decay_power == 2:  # log k = -r^2 / 2: no square root, one temporary
            core = np.multiply(sq_dist, -0.5 / (h * h), out=out)
        else:
            core = self.log_profile(np.sqrt(np.maximum(sq_dist, 0.0)) / h)
            if out is not None:
                out[...] = core
                core = out
        core -= self.log_norm(d) + d * np.log(h)
        return core

    def kernel_sq(self, sq_dist: np.ndarray, h: float, d: int) -> np.ndarray:
        """K_h at squared distances (linear values; overwrites a temporary, not ``sq_dist``),
        with values below e^-700 (~1e-304) flushed to 0 (see :func:`flushed_exp`)."""
        return flushed_exp(self.log_kernel_sq(sq_dist, h, d))

    @property
    def compact(self) -> bool:
        """True when the kernel is exactly 0 beyond its radius (all but gaussian, exponential)."""
        return self.radius <= 1.0

    @property
    def separable(self) -> bool:
        """True when K_h(u) is a product of per-axis factors: log k(r) = -r^2 / 2."""
        return self.decay_power == 2

    @property
    def hermite_derivatives(self) -> bool:
        """True when K_h^(j)(u) = (-1/h)^j He_j(u / h) K_h(u): log k(r) = -r^2 / 2."""
        return self.decay_power == 2

    def sample_radius(self, d: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """Radii r of points drawn from K on R^d: density proportional to k(r) r^(d-1)."""
        if self.sample_radius_closed is not None:
            return self.sample_radius_closed(d, size, rng)
        grid = np.linspace(0.0, 1.0, 4097)
        density = np.exp(self.log_profile(grid)) * grid ** (d - 1)
        cdf = integrate.cumulative_trapezoid(density, grid, initial=0.0)
        return np.interp(rng.random(size) * cdf[-1], cdf, grid)


def flushed_exp(log_values: np.ndarray) -> np.ndarray:
    """exp of ``log_values`` in place, results below e^-700 (~1e-304) flushed to exactly 0.

    exp is several times slower where its result is subnormal (below ~2e-308), which the
    far tails of every kernel sum hit; clamping the argument and zeroing those entries
    avoids it. Sums of such terms lose at most n * 1e-304, nothing next to the values that
    are trusted in linear space (above SAFE_LINEAR: score_samples redoes the rest in log space),
    and a sum whose terms are all flushed is 0, as with plain underflow, never a made-up
    positive value.
    """
    log_values = np.asarray(log_values, dtype=float)  # a 0-d array for a scalar
    keep = log_values >= EXP_FLOOR
    flush = not keep.all()  # (else the clamp and the product change nothing)
    if flush:
        np.maximum(log_values, EXP_FLOOR, out=log_values)
    np.exp(log_values, out=log_values)
    if flush:
        log_values *= keep  # (a product: a boolean-mask assignment is several times slower)
    return log_values


def exp_in_place(values: np.ndarray) -> None:
    """exp of a float array, in place, the same values as ``np.exp(values, out=values)``
    without numpy's slow path for most underflowing arguments (many times longer than for a
    normal result; small bandwidths put ~20 % of the pairs there): :func:`flushed_exp`,
    then the thin band of results below e^-700 that are not 0 (arguments down to -745.2)
    computed exactly, subnormal as they are."""
    low = values < EXP_FLOOR
    band = np.flatnonzero(low & (values >= ZERO_EXP_BELOW)) if low.any() else None
    exact = None if band is None else np.exp(values.flat[band])
    flushed_exp(values)
    if band is not None:
        values.flat[band] = exact


def _log_where(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """log(values) where mask holds, -inf elsewhere, without warnings."""
    out = np.full(np.shape(values), -np.inf)
    np.log(values, out=out, where=mask)
    return out


def _gaussian(r):
    return -0.5 * np.square(r)


def _tophat(r):
    r = np.asarray(r, dtype=float)
    return np.where(r < 1.0, 0.0, -np.inf)


def _epanechnikov(r):
    r = np.asarray(r, dtype=float)
    return _log_where(r < 1.0, 1.0 - r * r)


def _linear(r):
    r = np.asarray(r, dtype=float)
    return _log_where(r < 1.0, 1.0 - r)


def _cosine(r):
    r = np.asarray(r, dtype=float)
    return _log_where(r < 1.0, np.cos(0.5 * np.pi * r))


def _exponential(r):
    return -np.asarray(r, dtype=float)


@cache
def _numeric_log_norm(name: str, d: int) -> float:
    """log of the integral of k(||u||) over R^d = area(S^(d-1)) * int_0^1 k(r) r^(d-1) dr."""
    profile = KERNELS[name].log_profile
    value, _ = integrate.quad(
        lambda r: np.exp(profile(r)) * r ** (d - 1), 0.0, 1.0, epsabs=0.0, epsrel=1e-13, limit=200
    )
    return _log_sphere_area(d) + np.log(value)


KERNELS: dict[str, Kernel] = {
    "gaussian": Kernel(
        "gaussian",
        _gaussian,
        8.8,
        lambda d: 0.5 * d * np.log(2.0 * np.pi),
        smooth=True,
        decay_power=2,
        cells_per_bandwidth=16.0,
        sample_radius_closed=lambda d, size, rng: np.sqrt(rng.chisquare(d, size)),
    ),
    "tophat": Kernel(
        "tophat",
        _tophat,
        1.0,
        _log_unit_ball_volume,
        smooth=False,
        sample_radius_closed=lambda d, size, rng: rng.random(size) ** (1.0 / d),
    ),
    "epanechnikov": Kernel(
        "epanechnikov",
        _epanechnikov,
        1.0,
        lambda d: _log_unit_ball_volume(d) + np.log(2.0 / (d + 2.0)),
        smooth=False,
        cells_per_bandwidth=512.0,
    ),
    "linear": Kernel(
        "linear",
        _linear,
        1.0,
        lambda d: _log_unit_ball_volume(d) - np.log(d + 1.0),
        smooth=False,
        cells_per_bandwidth=512.0,
    ),
    "cosine": Kernel("cosine", _cosine, 1.0, None, smooth=False, cells_per_bandwidth=512.0),
    "exponential": Kernel(
        "exponential",
        _exponential,
        40.0,
        lambda d: _log_unit_ball_volume(d) + special.gammaln(d + 1.0),
        smooth=False,
        decay_power=1,
        cells_per_bandwidth=256.0,
        sample_radius_closed=lambda d, size, rng: rng.gamma(d, 1.0, size),
    ),
}
"""The kernels by name: ``gaussian``, ``tophat``, ``epanechnikov``, ``linear``, ``cosine``,
``exponential`` (scikit-learn's names; :func:`get_kernel` also takes the aliases
``uniform`` and ``triangular``). The module's Examples list them by capability."""


def _names_a_kernel(value, _) -> bool:
    """A kernel of :data:`KERNELS` or an alias, in any case (a string)."""
    return KERNEL_ALIASES.get(value.lower(), value.lower()) in KERNELS


#: The ``kernel`` parameter's constraints (the estimators' tables): a string, naming a kernel.
KERNEL_CONSTRAINTS = (
    Rule(
        lambda value, _: isinstance(value, str),
        "kernel must be a string, got {value!r}; allowed: " + str(sorted(KERNELS)),
    ),
    Rule(
        _names_a_kernel,
        "unknown kernel {value!r}; allowed: " + ", ".join(sorted(KERNELS) + sorted(KERNEL_ALIASES)),
    ),
)


def get_kernel(name: str) -> Kernel:
    """The kernel called ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`KERNELS` or an alias (``uniform`` = tophat, ``triangular`` =
        linear), in any case.

    Returns
    -------
    Kernel
        The shared kernel object (pickled by name).

    Raises
    ------
    InvalidParameterError
        When ``name`` is not a string or names no kernel (the message lists the names).

    Examples
    --------
    >>> from momkde_core.kernels import get_kernel
    >>> get_kernel("Uniform").name
    'tophat'
    >>> k = get_kernel("triangular")
    >>> k.name, k.compact, k.radius
    ('linear', True, 1.0)
    >>> get_kernel("box")
    Traceback (most recent call last):
        ...
    momkde_core.InvalidParameterError: unknown kernel 'box'; ...
    """
    check_parameters({"kernel": KERNEL_CONSTRAINTS}, {"kernel": name})
    return KERNELS[KERNEL_ALIASES.get(name.lower(), name.lower())]
