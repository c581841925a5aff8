"""Radial kernels K(u) = k(||u||) / c_d normalised to integrate to 1 on R^d.

The profiles and their names follow scikit-learn's ``KernelDensity`` so that results agree
with it for the same kernel and bandwidth (except the cosine kernel for d = 2, whose
constant is wrong in scikit-learn: its 2-D kernel integrates to 0.363; ours to 1). Every function works in log space, because in
high dimension (Digits: d = 64) the normalising constants and the kernel values themselves
under- or overflow in linear space.

``Kernel.log_profile(r)`` is log k(r) for the scaled distance r = ||x - y|| / h (``-inf``
outside the support); ``Kernel.log_norm(d)`` is log c_d = log of the integral of k(||u||)
over R^d, so that log K_h(x - y) = log_profile(r) - log_norm(d) - d log h.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import integrate, special
from sklearn.utils._param_validation import InvalidParameterError

KERNEL_ALIASES = {"uniform": "tophat", "triangular": "linear"}
EXP_FLOOR = -700.0  # linear kernel values below e^-700 are flushed to 0 (see flushed_exp)
ZERO_EXP_BELOW = -745.2  # exp of any float64 below this is exactly 0


def _log_unit_ball_volume(d: int) -> float:
    """log of the volume of the unit Euclidean ball in R^d: pi^(d/2) / Gamma(d/2 + 1)."""
    return 0.5 * d * np.log(np.pi) - special.gammaln(0.5 * d + 1.0)


def _log_sphere_area(d: int) -> float:
    """log of the surface area of the unit sphere in R^d: 2 pi^(d/2) / Gamma(d/2)."""
    return np.log(2.0) + 0.5 * d * np.log(np.pi) - special.gammaln(0.5 * d)


@dataclass(frozen=True)
class Kernel:
    """A radial kernel: its log profile, its support radius and its normalising constant."""

    name: str
    log_profile: Callable[[np.ndarray], np.ndarray]
    radius: float  # r beyond which k(r) is 0 (compact) or below 1e-17 * k(0) (gaussian, exp)
    log_norm_closed: Callable[[int], float] | None  # closed form of log c_d, when one exists
    smooth: bool  # True only for the gaussian: its binned approximation converges as (delta/h)^2

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
        if self.name == "gaussian":  # the hot path: no square root, one temporary
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

    def sample_radius(self, d: int, size: int, rng: np.random.Generator) -> np.ndarray:
        """Radii r of points drawn from K on R^d: density proportional to k(r) r^(d-1)."""
        if self.name == "gaussian":
            return np.sqrt(rng.chisquare(d, size))
        if self.name == "exponential":
            return rng.gamma(d, 1.0, size)
        if self.name == "tophat":
            return rng.random(size) ** (1.0 / d)
        grid = np.linspace(0.0, 1.0, 4097)
        density = np.exp(self.log_profile(grid)) * grid ** (d - 1)
        cdf = integrate.cumulative_trapezoid(density, grid, initial=0.0)
        return np.interp(rng.random(size) * cdf[-1], cdf, grid)


def flushed_exp(log_values: np.ndarray) -> np.ndarray:
    """exp of ``log_values`` in place, results below e^-700 (~1e-304) flushed to exactly 0.

    exp is ~5x slower where its result is subnormal (below ~2e-308), which the far tails of
    every kernel sum hit; clamping the argument and zeroing those entries avoids it. Sums of
    such terms lose at most n * 1e-304, nothing next to the values that are trusted in
    linear space (score_samples redoes anything below 1e-290 in log space), and a sum whose
    terms are all flushed is 0, as with plain underflow, never a made-up positive value.
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
    without numpy's slow path for most underflowing arguments (5-90x longer than for a
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
    "gaussian": Kernel("gaussian", _gaussian, 8.8, lambda d: 0.5 * d * np.log(2.0 * np.pi), True),
    "tophat": Kernel("tophat", _tophat, 1.0, _log_unit_ball_volume, False),
    "epanechnikov": Kernel(
        "epanechnikov",
        _epanechnikov,
        1.0,
        lambda d: _log_unit_ball_volume(d) + np.log(2.0 / (d + 2.0)),
        False,
    ),
    "linear": Kernel(
        "linear", _linear, 1.0, lambda d: _log_unit_ball_volume(d) - np.log(d + 1.0), False
    ),
    "cosine": Kernel("cosine", _cosine, 1.0, None, False),
    "exponential": Kernel(
        "exponential",
        _exponential,
        40.0,
        lambda d: _log_unit_ball_volume(d) + special.gammaln(d + 1.0),
        False,
    ),
}


def get_kernel(name: str) -> Kernel:
    """The kernel called ``name`` (aliases: uniform = tophat, triangular = linear)."""
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"kernel must be a string, got {name!r}; allowed: {sorted(KERNELS)}"
        )
    key = KERNEL_ALIASES.get(name.lower(), name.lower())
    if key not in KERNELS:
        allowed = sorted(KERNELS) + sorted(KERNEL_ALIASES)
        raise InvalidParameterError(f"unknown kernel {name!r}; allowed: {', '.join(allowed)}")
    return KERNELS[key]
