"""The Gram products v -> G v, G_ij = K_h(X_i - X_j), of RKDE's and SPKDE's solvers.

Dense and exact while n is small: the n x n matrix is built once, in cache-sized row
chunks, and kept (replayed to a refit on the same data and h,
:mod:`momkde_core._engine._memo`); larger, each product recomputes it by row chunks.

For the Gaussian in d <= 2 at large n, the grid path (:class:`_GridGram`) approximates
G v = W' (K * (W v)): the v-weighted points are spread onto an evenly spaced grid by
``order``-point Lagrange interpolation weights per axis (a sparse matrix W), convolved with
the kernel sampled at the grid's offsets by one FFT product, and read back at the points
with the same weights, as particle-mesh and NFFT-based fast summation do (Potts and Steidl
2003). The grid's spacing follows from the interpolation's error bound: the Lagrange
remainder with the derivatives of the Gaussian bounded by Cramer's inequality on Hermite
functions (Abramowitz and Stegun 1964, 22.14.17), amplified by the Lebesgue constant once
per interpolated coordinate (:func:`gram_grid_spacing`).

References
----------
Abramowitz, M. and Stegun, I. A. (1964). *Handbook of Mathematical Functions*. National
Bureau of Standards, formula 22.14.17.

Potts, D. and Steidl, G. (2003). Fast summation at nonequispaced knots by NFFTs. *SIAM
Journal on Scientific Computing* 24(6), 2013-2037.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import fft as sp_fft
from scipy import sparse, special

from .._columns import bounding_box
from .._config import chunk_elements
from ..kernels import Kernel
from ._memo import _limits, _replay
from ._point_sums import CACHE_CHUNK_ELEMENTS, _as_2d, _sq_dists

GRAM_GRID_ORDER = 10  # points per axis of the Lagrange interpolation of the grid Gram path
GRAM_GRID_RTOL = {"float64": 1e-10, "float32": 1e-8}  # its error bound / (K_h(0) ||v||_1)
GRAM_GRID_MIN_PAIRS = 6 * 10**7  # "auto" takes the grid path once n^2 exceeds this
GRAM_GRID_MIN_POINTS_1D = 1000  # ... and in 1-D, float64, from this many points (below)
GRAM_GRID_MAX_NODES = 2**22  # ... and while its FFT grid has at most this many nodes


@cache
def _lagrange_constants(order: int) -> tuple[float, float]:
    """(P, Lambda) of ``order``-point Lagrange interpolation on nodes 0 .. order-1 used on
    its central cell [order/2 - 1, order/2]: P = max |prod_m (t - m)| (the remainder's
    node polynomial) and Lambda = max sum_k |L_k(t)| (the Lebesgue constant), by sampling
    the cell at 20001 points (both are smooth inside it; P's maximum is at the midpoint, a
    sample, by symmetry)."""
    t = np.linspace(order / 2 - 1, order / 2, 20001)
    node_poly = np.max(np.abs(np.prod(t[:, None] - np.arange(order), axis=1)))
    lebesgue = np.max(np.abs(_lagrange_weights(t, order)).sum(axis=1))
    return float(node_poly), float(lebesgue)


def _lagrange_weights(t: np.ndarray, order: int) -> np.ndarray:
    """L_k(t) for nodes 0 .. order-1, shape (len(t), order)."""
    out = np.ones((len(t), order))
    for k in range(order):
        for m in range(order):
            if m != k:
                out[:, k] *= (t - m) / (k - m)
    return out


def gram_grid_spacing(h: float, d: int, rtol: float, order: int = GRAM_GRID_ORDER) -> float:
    """The largest grid spacing for which :class:`GramOperator`'s grid path is within
    ``rtol`` K_h(0) ||v||_1 of G v.

    The path replaces exp(-|x - y|^2 / 2h^2) by its interpolant in the 2d coordinates of x
    and y, each by ``order``-point Lagrange interpolation on the grid. One such
    interpolation of the 1-D Gaussian g(u) = exp(-u^2 / 2h^2) errs by at most
    max|g^(p)| / p! * P delta^p (p = order, P from :func:`_lagrange_constants`), and
    |g^(p)(u)| = h^-p |He_p(u/h)| e^{-u^2/2h^2} <= 1.0865 sqrt(p!) h^-p (Cramer's bound on
    Hermite functions). Interpolating the 2d coordinates one after the other multiplies the
    earlier errors by at most the Lebesgue constant Lambda each time: the kernel (peak 1 in
    these units) is off by at most E (1 + Lambda + ... + Lambda^(2d-1)), E the 1-D bound.
    """
    node_poly, lebesgue = _lagrange_constants(order)
    amplification = sum(lebesgue**k for k in range(2 * d))
    one_axis = 1.0865 * node_poly / np.sqrt(special.factorial(order))
    return h * float((rtol / (one_axis * amplification)) ** (1.0 / order))


class _GridGram:
    """G v ~ W' (K * (W v)): the v-weighted points spread onto an evenly spaced grid by
    Lagrange interpolation weights W (``order`` nodes per axis, ``order``^d per point, a
    sparse matrix), convolved with the kernel sampled at the grid's offsets (one FFT
    product; the kernel's transform is kept), and read back at the points with the same
    weights. Within ``rtol`` K_h(0) ||v||_1 of the exact product (:func:`gram_grid_spacing`;
    the FFT adds ~1e-15 of that). Build with :meth:`plan`, which returns None when the grid
    would exceed ``max_nodes``."""

    def __init__(self, weights: sparse.csr_matrix, kernel_hat: np.ndarray, sizes, lengths):
        self.weights = weights  # W' v below reads it column-wise: no transposed copy
        self.kernel_hat, self.sizes, self.lengths = kernel_hat, sizes, lengths

    @classmethod
    def plan(
        cls,
        X: np.ndarray,
        kernel: Kernel,
        h: float,
        rtol: float,
        max_nodes: int = GRAM_GRID_MAX_NODES,
        order: int = GRAM_GRID_ORDER,
    ):
        n, d = X.shape
        step = gram_grid_spacing(h, d, rtol, order)
        lo, hi = bounding_box(X)
        # the grid runs from order/2 - 1 cells below the lowest point to order/2 above the
        # highest, so that each point's interpolation nodes are on it
        sizes = [int(np.floor((hi[k] - lo[k]) / step)) + order for k in range(d)]
        reach = [min(s - 1, int(np.ceil(kernel.radius * h / step))) for s in sizes]
        lengths = [sp_fft.next_fast_len(s + r, real=True) for s, r in zip(sizes, reach)]
        if np.prod(np.array(lengths, dtype=float)) > max_nodes:
            return None
        origin = lo - (order // 2 - 1) * step
        rows = np.repeat(np.arange(n), order**d)
        flat = np.zeros((n, 1), dtype=np.int64)
        values = np.ones((n, 1))
        for k in range(d):
            t = (X[:, k] - origin[k]) / step
            first = np.clip(np.floor(t).astype(np.int64) - (order // 2 - 1), 0, sizes[k] - order)
            axis_weights = _lagrange_weights(t - first, order)
            nodes = first[:, None] + np.arange(order)
            flat = (flat[:, :, None] * sizes[k] + nodes[:, None, :]).reshape(n, -1)
            values = (values[:, :, None] * axis_weights[:, None, :]).reshape(n, -1)
        weights = sparse.csr_matrix(
            (values.ravel(), (rows, flat.ravel())), shape=(n, int(np.prod(sizes)))
        )
        # the kernel at every grid offset within the reach, wrapped for a circular convolution
        # of the FFT lengths (>= size + reach on each axis: no wrap-around reaches the grid)
        sq = 0.0
        for k in range(d):
            offsets = np.arange(lengths[k])
            offsets = np.where(offsets <= lengths[k] // 2, offsets, offsets - lengths[k])
            offsets = np.where(np.abs(offsets) <= reach[k], offsets, lengths[k])  # beyond: 0
            shape = [1] * d
            shape[k] = lengths[k]
            sq = sq + np.square(offsets * step).reshape(shape)
        kern = kernel.kernel_sq(np.broadcast_to(sq, lengths).copy(), h, d)
        return cls(weights, sp_fft.rfftn(kern), sizes, lengths)

    def matvec(self, v: np.ndarray) -> np.ndarray:
        spread = (self.weights.T @ v).reshape(self.sizes)
        conv = sp_fft.irfftn(sp_fft.rfftn(spread, self.lengths) * self.kernel_hat, self.lengths)
        return self.weights @ conv[tuple(slice(0, s) for s in self.sizes)].ravel()


class GramOperator:
    """The products v -> G v with G_ij = K_h(X_i - X_j), for RKDE and SPKDE.

    Dense and exact while n is small: the n x n matrix is built once and kept when it holds
    at most ``max_cached`` entries (n up to 7745; 5000 points take 200 MB in float64).
    Above that, for the Gaussian in d <= 2 (``method="auto"``), the grid path
    (:class:`_GridGram`: interpolation onto a grid and one FFT convolution, O(n) work
    where a dense product is O(n^2)) within ``GRAM_GRID_RTOL`` (1e-10 in
    float64, 1e-8 for float32) of K_h(0) ||v||_1; otherwise (or if its grid would be too
    large, e.g. for far outliers) each product recomputes the matrix in row chunks, so memory
    stays at the ``working_memory`` knob whatever n is. In 1-D "auto" takes the grid path in
    float64 from ``GRAM_GRID_MIN_POINTS_1D`` points already: its grid is short there (a few
    hundred nodes), each product some 50 times cheaper than the dense one at n = 2,000, and
    RKDE's weights move by about 3e-11 relative, its density by 1e-12 of its peak. float32
    products (SPKDE's QP) stay dense below ``GRAM_GRID_MIN_PAIRS``: that solver stops where
    their round-off lets it (``tests/test_pinned_values.py``), and the grid's more exact
    products would move its density (by up to 7e-5 of its peak, measured on Explore's
    samples). ``method="grid"`` or ``"dense"`` forces a
    path (the grid one when its grid fits). ``self.method`` says which path is used.
    ``dtype=np.float32`` halves the memory and the time of each dense product (7e-8
    relative error per entry): for SPKDE's QP, not for RKDE, whose residuals
    k(0) - 2 (G w)_i + w'G w cancel.
    """

    def __init__(
        self,
        X: np.ndarray,
        kernel: Kernel,
        h: float,
        max_cached: int = 6 * 10**7,
        dtype=np.float64,
        method: str = "auto",
    ):
        if method not in ("auto", "dense", "grid"):
            raise ValueError(f"unknown method {method!r}; allowed: 'auto', 'dense', 'grid'")
        self.X = _as_2d(X)
        self.kernel, self.h = kernel, float(h)
        n, d = self.X.shape
        self.diagonal = float(np.exp(kernel.log_kernel_sq(np.zeros(1), h, d))[0])
        self._matrix = self._grid = None
        self.method = "dense"
        grid_fits = kernel.hermite_derivatives and d <= 2
        short_grid = d == 1 and n >= GRAM_GRID_MIN_POINTS_1D and np.dtype(dtype) == np.float64
        auto_grid = n * n > GRAM_GRID_MIN_PAIRS or short_grid
        if grid_fits and (method == "grid" or (method == "auto" and auto_grid)):
            self._grid = _GridGram.plan(
                self.X, kernel, self.h, GRAM_GRID_RTOL[np.dtype(dtype).name]
            )
            if self._grid is not None:
                self.method = "grid"
                return
        self._Xc = self.X - self.X.mean(axis=0)
        self._sq = np.einsum("ij,ij->i", self._Xc, self._Xc)
        if n * n <= min(max_cached, _limits()[0]):  # replayed for a refit (same X, h)
            key = ("gram", self.X, kernel, h, np.dtype(dtype).name)
            (self._matrix,) = _replay(key, lambda: iter([self._full_matrix(dtype)]), n * n)
        elif n * n <= max_cached:
            self._matrix = self._full_matrix(dtype)

    def _full_matrix(self, dtype) -> np.ndarray:
        """The whole matrix, filled in cache-sized row chunks, read-only (it may be replayed
        to another fit on the same data and h). Entries below the dtype's smallest normal
        number are 0: subnormal entries (float32 below 1.2e-38, which the cast of e^-88 and
        below gives) slow every product down several-fold (each takes the processor's slow
        path) for a change below 1e-37 of the kernel's peak."""
        n = len(self.X)
        matrix = np.empty((n, n), dtype=dtype)
        tiny = np.finfo(dtype).tiny
        for lo, hi in self._row_chunks(CACHE_CHUNK_ELEMENTS):
            rows = self._rows(lo, hi)
            rows[rows < tiny] = 0.0
            matrix[lo:hi] = rows
        matrix.flags.writeable = False
        return matrix

    def _row_chunks(self, max_elements: int | None = None):
        n = len(self.X)
        step = max(1, (max_elements or chunk_elements()) // n)
        return [(lo, min(n, lo + step)) for lo in range(0, n, step)]

    def _rows(self, lo: int, hi: int) -> np.ndarray:
        sq = _sq_dists(self._Xc[lo:hi], self._Xc, self._sq[lo:hi], self._sq)
        return self.kernel.kernel_sq(sq, self.h, self.X.shape[1])

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """G @ v."""
        if self._grid is not None:
            return self._grid.matvec(np.asarray(v, dtype=np.float64))
        if self._matrix is not None:
            return np.asarray(
                self._matrix @ v.astype(self._matrix.dtype, copy=False), dtype=np.float64
            )
        return np.concatenate([self._rows(lo, hi) @ v for lo, hi in self._row_chunks()])
