"""Exact Gaussian block sums on a 2-D mesh as matrix products of per-axis factors.

The Gaussian is the one radial kernel that is a product of per-axis factors
(``Kernel.separable``): K_h(g - x) = exp(-(g_x - x_1)^2 / 2h^2) exp(-(g_y - x_2)^2 / 2h^2)
/ c_2 h^2. On the mesh of axes g_x (n_x nodes) and g_y (n_y nodes), block s's sum is
therefore the matrix product

    F_s = A_x^T diag(w) A_y,   A_x[i, a] = exp(-(g_x[a] - x_i1)^2 / 2h^2) (A_y likewise),

one BLAS call per block of n (n_x + n_y) factors instead of n n_x n_y kernel values. The
factors come from the two-multiplication recurrence of
:mod:`momkde_core._engine._axis_factors`. Many small blocks (MoM-KDE's) share one batched
product, each block's factors padded with zero rows to the largest block's size, so that no
Python-level call runs per block.
"""

from __future__ import annotations

import numpy as np

from .._config import chunk_elements
from ..kernels import EXP_FLOOR
from ._axis_factors import gaussian_factors

SEPARABLE_BATCH_POINTS = 64  # blocks up to this size share one batched separable product


def _batch_width(bounds: np.ndarray) -> int:
    """The padded block size of :func:`_separable_sums`' batched product, or 0 when the
    blocks take one product each (one block, or a block over ``SEPARABLE_BATCH_POINTS``, or
    no points at all). :func:`choose_backend` prices the path this says will run."""
    widest = int(np.diff(bounds).max(initial=0))
    return widest if len(bounds) > 2 and 0 < widest <= SEPARABLE_BATCH_POINTS else 0


def _separable_sums(
    X, bounds, axes, kernel, h, w, max_elements: int | None = None, floor: float = EXP_FLOOR
):
    """Exact Gaussian sums on a 2-D mesh: per block, A_x^T diag(w) A_y (BLAS products), in
    chunks of points so that the factors never exceed ``max_elements`` entries each.
    Factors below e^``floor`` are 0: with the binned product's BAND_FLOOR (e^-40, when no
    exact tails are asked for) a node beyond ~9 h of a block's points gets an exact 0 from
    it, which the median's skipping of mostly-zero nodes relies on.

    Many small blocks (at most ``SEPARABLE_BATCH_POINTS`` points each, as MoM-KDE's
    2 ceil(eps n) + 1 blocks are) go through one batched product per group of blocks, each
    block's factors padded with zero rows to the largest block's size: a Python-level
    product per block would cost more in Python overhead than in arithmetic."""
    log_norm = kernel.log_norm(2) + 2 * np.log(h)
    n_blocks = len(bounds) - 1
    sizes = np.diff(bounds)
    out = np.zeros((n_blocks, len(axes[0]), len(axes[1])))
    max_elements = max_elements or chunk_elements()

    def factors(lo, hi):
        ax, ay = (gaussian_factors(X[lo:hi, k], axes[k], h, floor) for k in range(2))
        ay *= w[lo:hi, None]
        return ax, ay

    widest = _batch_width(bounds)
    if widest:
        slot = np.arange(bounds[-1]) - np.repeat(bounds[:-1], sizes)  # rank in its block
        block_of = np.repeat(np.arange(n_blocks), sizes)
        per = max(1, max_elements // (widest * max(len(axes[0]), len(axes[1]))))
        for s0 in range(0, n_blocks, per):
            s1 = min(n_blocks, s0 + per)
            lo, hi = bounds[s0], bounds[s1]
            where = (block_of[lo:hi] - s0, slot[lo:hi])
            pad_x = np.zeros((s1 - s0, widest, len(axes[0])))
            pad_y = np.zeros((s1 - s0, widest, len(axes[1])))
            pad_x[where], pad_y[where] = factors(lo, hi)
            np.matmul(pad_x.transpose(0, 2, 1), pad_y, out=out[s0:s1])
        out *= np.exp(-log_norm)  # (in place: a second S x grid array costs page faults)
        return out
    step = max(1, max_elements // max(len(axes[0]), len(axes[1])))
    for s in range(n_blocks):
        for lo in range(bounds[s], bounds[s + 1], step):
            hi = min(bounds[s + 1], lo + step)
            ax, ay = factors(lo, hi)
            out[s] += ax.T @ ay
    out *= np.exp(-log_norm)
    return out
