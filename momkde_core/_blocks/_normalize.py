"""The integral of MoM-KDE's median of block KDEs, which is divided out to make a density.

The median of densities is not a density (paper, Definition 1, after Devroye & Lugosi). For
d <= 2 its integral is a Riemann sum on a grid fine enough for the bandwidth (Gaussian:
spacing h/8 in 1-D, h/2 in 2-D, as Riemann sums of Gaussian mixtures converge very fast in
the spacing; kernels with kinks or jumps converge only linearly: h/64 and h/8).
Where such a grid would be too large (d > 2, or data spread over thousands of bandwidths),
it is estimated by defensive importance sampling, integral = E_q[median(x) / q(x)] with
``IS_SAMPLES`` draws from q = (KDE + broad Gaussian) / 2. This is a Monte-Carlo estimate: in
high dimension, or when the median holds its mass far from every data point, it can be poor;
``MoMKDE(normalize=False)`` skips it (rankings and AUC do not depend on it).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import logsumexp

from .._columns import per_column
from .._engine import block_shifted_sums, exact_price, grid_around
from ._fitted import FittedBlocks

IS_SAMPLES = 4096
GRID_STEP_PER_BANDWIDTH = {True: {1: 1 / 8, 2: 1 / 2}, False: {1: 1 / 64, 2: 1 / 8}}
GRID_MAX_POINTS = {1: 2**16, 2: 400}
MAX_BLOCK_CELLS = 2**24  # S x grid nodes held at once (128 MiB); beyond: importance sampling
IMPORTANCE_PRICE_PER_NODE = 2.0  # a draw's sum costs this many exact grid nodes' (importance_price)


def log_integral(
    fitted: FittedBlocks,
    rng: np.random.Generator,
    n_draws: int = IS_SAMPLES,
    grid_budget: float | None = None,
) -> float:
    """log of the integral of ``fitted``'s combined (un-normalised) block sums.

    Computed inside the fit's frame (:mod:`momkde_core._engine._scaling`): an affine map changes the
    median's values by its Jacobian and the volume by the inverse, so the integral is the same.

    ``n_draws``: importance-sampling draws where no grid is used (fewer for a cheaper,
    noisier estimate, as when only comparing bandwidths). ``grid_budget``: the grid is used
    only if the grid engine prices its sums at most this much (the engine's units,
    :func:`momkde_core._engine._costs.backend_costs`; :func:`importance_price` prices the sampling
    in the same units); beyond, importance sampling."""
    X, h, kernel = fitted.X, fitted.h, fitted.kernel  # inside the fit's frame (same integral)
    d = X.shape[1]
    if d in GRID_MAX_POINTS:
        margin = min(kernel.radius, 7.0) * h
        spans = per_column(np.ptp, X) + 2 * margin
        counts = np.ceil(spans / (GRID_STEP_PER_BANDWIDTH[kernel.smooth][d] * h)).astype(int) + 1
        counts = np.maximum(counts, 64)
        if (
            counts.max() <= GRID_MAX_POINTS[d]
            and fitted.n_blocks * counts.prod() <= MAX_BLOCK_CELLS
        ):
            grid = grid_around(X, margin, counts)
            axes = list(grid.axes)
            plan = fitted.grid_plan(axes)
            if grid_budget is None or plan[1] <= grid_budget:
                with np.errstate(divide="ignore"):
                    sums = fitted.grid_sums(axes, plan=plan)[0]
                    return float(np.log(grid.integrate(fitted.combine(sums))))
    return _log_integral_importance(fitted, rng, n_draws)


def importance_price(n: int, n_draws: int) -> float:
    """What :func:`log_integral`'s importance sampling of ``n_draws`` draws over ``n`` points
    costs, in the grid engine's units (:func:`momkde_core._engine._costs.backend_costs`): a draw's
    sum over the points costs IMPORTANCE_PRICE_PER_NODE exact grid nodes' (the shift by the
    largest term, the logs), as timed with the exponential kernel in 2-D."""
    return IMPORTANCE_PRICE_PER_NODE * exact_price(n, n_draws)


def _log_integral_importance(fitted: FittedBlocks, rng: np.random.Generator, n_draws: int) -> float:
    """Defensive importance sampling: half the draws from the KDE, half from a broad Gaussian.

    The broad component (the data's mean and per-axis variance plus h^2, axes independent so
    it is never singular) covers mass the median may hold away from the data points, where
    the KDE alone would rarely sample.
    """
    X, h, kernel, bounds = fitted.X, fitted.h, fitted.kernel, fitted.bounds
    n, d = X.shape
    half = n_draws // 2
    sizes = np.diff(bounds)
    if fitted.weighted:  # row i with its weight in its block times its block's share of rows
        centers = X[rng.choice(n, half, p=np.exp(fitted.log_w) * np.repeat(sizes, sizes) / n)]
    else:
        centers = X[rng.integers(0, n, half)]
    directions = rng.standard_normal((half, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radii = kernel.sample_radius(d, half, rng)
    broad = stats.norm(X.mean(axis=0), np.sqrt(X.var(axis=0) + h * h))  # independent axes
    draws = np.vstack(
        [
            centers + h * radii[:, None] * directions,
            broad.rvs((n_draws - half, d), random_state=rng),
        ]
    )
    # the block KDEs at each draw, relative to the draw's largest term (what a block sum
    # loses there, below e^-700 of that term, cannot move the median or the mixture)
    shift, blocks = block_shifted_sums(X, bounds, draws, kernel, h, fitted.log_w)
    with np.errstate(divide="ignore"):
        # the KDE as the size-weighted mixture of the block KDEs
        log_kde = np.log((sizes / n) @ blocks) + shift
        log_median = np.log(fitted.combine(blocks)) + shift
    log_proposal = np.logaddexp(log_kde, broad.logpdf(draws).sum(axis=1)) - np.log(2.0)
    return float(logsumexp(log_median - log_proposal) - np.log(n_draws))
