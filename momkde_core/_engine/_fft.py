"""Binned block sums on an evenly spaced grid by one batched FFT convolution.

Binning replaces the n points by weights on a regular grid of fine cells, and the sum of
kernels at the nodes becomes a discrete convolution of those weights with the kernel
sampled at the cells' offsets, which an FFT computes for all nodes at once (Silverman
1982; Wand 1994; KDEpy's ``FFTKDE``). Here all S blocks are binned in one compiled pass
(:func:`momkde_core._engine._binning.bin_blocks`) straight into arrays of the FFT's
lengths, and transformed in batches of blocks, so that memory is bounded by the batch. The
binning grid spans the nodes plus the kernel's reach L on each side; a circular
convolution of length >= size + L is then exact on the nodes.

Two binnings:

* **Taylor moments** (kernels with ``hermite_derivatives``, the Gaussian, in 1-D): cells
  of at most h / 20, each holding the moments of order 0..3 of its points' offsets, are
  convolved with the kernel's scaled derivatives (fine / h)^j / j! He_j(y / h) K_h(y) (the
  Taylor expansion of K_h(g - c - t fine) in t, as in the fast Gauss transform's Hermite
  expansions, Greengard and Strain 1991). The remainder is below 1.1 (1/40)^4 / 24
  max |He_4| K_h, about 5e-8 of a node's value near the data, and is bounded at every node
  by convolving each cell's largest mass over the blocks with a bound kernel.
* **Linear binning** (other kernels, and the plane; Wand 1994, Hall and Wand 1996): each
  point's weight split between the 2^d corners of its cell. A smooth kernel is then off by
  (delta / h)^2 / 8 of its peak per axis, (delta / h)^2 / 4 in the plane; kernels with a
  kink converge only as delta / h, hence their finer ``cells_per_bandwidth``.

With ``exact`` the nodes where the remainder's bound or the FFT's round-off (taken as
1e-13 K_h(0) times the block's weight) could exceed 1e-6 of the value are recomputed
(:mod:`momkde_core._engine._exact_tails`).

References
----------
Greengard, L. and Strain, J. (1991). The fast Gauss transform. *SIAM Journal on Scientific
and Statistical Computing* 12(1), 79-94.

Hall, P. and Wand, M. P. (1996). On the accuracy of binned kernel density estimators.
*Journal of Multivariate Analysis* 56(2), 165-184.

Silverman, B. W. (1982). Algorithm AS 176: Kernel density estimation using the fast
Fourier transform. *Journal of the Royal Statistical Society C* 31(1), 93-99.

Wand, M. P. (1994). Fast computation of multivariate kernel estimators. *Journal of
Computational and Graphical Statistics* 3(4), 433-445.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from scipy import fft as sp_fft
from scipy import special

from .._config import n_threads
from ..kernels import Kernel
from ._binning import bin_blocks
from ._exact_tails import MAX_CELL_TABLE, _lower_median, _redo_faint, _round_off

MAX_FFT_ELEMENTS = 2**24  # cap on the FFT backend's grid x moments; batches of blocks hold 1/8
FFT_THREADED_ELEMENTS = 2**20  # scipy.fft runs a batch on n_threads() from this many elements
TAYLOR_ORDER = 3  # the Gaussian 1-D FFT bins the moments of order 0..3 of each cell
TAYLOR_CELLS_PER_BANDWIDTH = 20.0  # cells of at most h / 20 for those moments
_SPECTRA: OrderedDict = OrderedDict()  # the last few kernel spectra of the FFT backend
_SPECTRA_LOCK = threading.Lock()  # (the app evaluates in several threads)


def _taylor(kernel: Kernel, d: int) -> bool:
    """Whether the FFT backend bins Taylor moments (the Gaussian in 1-D) or bins linearly."""
    return kernel.hermite_derivatives and d == 1


def _fft_plan(axes: list[np.ndarray], kernel: Kernel, h: float) -> list[tuple[int, int, float]]:
    """Per axis: (refinement k, margin L in fine cells, fine spacing) for the FFT backend."""
    per_h = TAYLOR_CELLS_PER_BANDWIDTH if _taylor(kernel, len(axes)) else kernel.cells_per_bandwidth
    plan = []
    for axis in axes:
        step = (axis[-1] - axis[0]) / (len(axis) - 1)
        refine = max(1, int(np.ceil(step * per_h / h)))
        fine = step / refine
        plan.append((refine, int(np.ceil(kernel.radius * h / fine)) + 1, fine))
    return plan


def _fft_shape(axes, plan) -> tuple[list[int], list[int]]:
    """(binning grid sizes, FFT lengths from scipy.fft.next_fast_len) per axis: the binning
    grid spans the nodes plus L fine cells on each side; a circular convolution of length
    >= size + L is exact on the nodes."""
    sizes = _fft_sizes(axes, plan)
    lengths = [sp_fft.next_fast_len(s + L, real=True) for s, (_, L, _) in zip(sizes, plan)]
    return sizes, lengths


def _fft_sizes(axes, plan) -> list[int]:
    """The binning grid's size per axis (Python ints: unbounded when the nodes lie
    astronomically many bandwidths apart, which :func:`choose_backend` checks first)."""
    return [(len(a) - 1) * k + 1 + 2 * L for a, (k, L, _) in zip(axes, plan)]


def _hermite(u: np.ndarray, order: int) -> list[np.ndarray]:
    """Probabilists' Hermite polynomials He_0 .. He_order at u (He_j K is (-h)^j K^(j))."""
    he = [np.ones_like(u), u.copy()]
    for j in range(1, order):
        he.append(u * he[j] - j * he[j - 1])
    return he[: order + 1]


def _circular(kern: np.ndarray, margins: list[int], lengths: list[int]) -> np.ndarray:
    """A kernel sampled at offsets -L..L per axis, laid out for a circular convolution."""
    out = np.zeros(lengths)
    index = np.ix_(*[np.arange(-L, L + 1) % N for L, N in zip(margins, lengths)])
    out[index] = kern
    return out


def _fft_kernels(kernel: Kernel, h: float, plan, lengths) -> tuple[np.ndarray, np.ndarray | None]:
    """(spectra of the kernels to convolve the binned moments with, shape (moments, ...);
    the spectrum of the Taylor remainder's bound kernel, or None for linear binning).
    The last 8 are kept (read-only): a redraw or a sweep asks for the same ones."""
    key = (kernel.name, float(h), tuple(plan), tuple(lengths))
    with _SPECTRA_LOCK:
        cached = _SPECTRA.get(key)
    if cached is None:
        cached = _make_fft_kernels(kernel, h, plan, lengths)
        for a in cached:
            if a is not None:
                a.flags.writeable = False
        with _SPECTRA_LOCK:
            _SPECTRA[key] = cached
            while len(_SPECTRA) > 8:
                _SPECTRA.popitem(last=False)
    return cached


def _make_fft_kernels(kernel: Kernel, h: float, plan, lengths):
    """:func:`_fft_kernels`, computed."""
    d = len(plan)
    margins = [L for _, L, _ in plan]
    axes = tuple(range(-d, 0))
    if not _taylor(kernel, d):
        offsets = [np.arange(-L, L + 1) * fine for _, L, fine in plan]
        sq = sum(np.square(g) for g in np.meshgrid(*offsets, indexing="ij"))
        kern = _circular(kernel.kernel_sq(sq, h, d), margins, lengths)
        return sp_fft.rfftn(kern, axes=axes)[None], None
    ((_, L, fine),) = plan
    y = np.arange(-L, L + 1) * fine
    u = y / h
    peak = np.exp(-kernel.log_norm(1)) / h
    base = peak * np.exp(-0.5 * u * u)
    ratio = fine / h
    kernels = [
        ratio**j / special.factorial(j) * he * base
        for j, he in enumerate(_hermite(u, TAYLOR_ORDER))
    ]
    # the remainder of the Taylor expansion: |t fine|^(p+1) / (p+1)! max |K^(p+1)| over the
    # cell, |t| <= 1/2; the max over the cell is taken on 9 samples, with a 10 % margin
    p1 = TAYLOR_ORDER + 1
    shifts = np.linspace(-0.5, 0.5, 9) * ratio
    worst = np.max(
        [np.abs(_hermite(u - s, p1)[p1]) * np.exp(-0.5 * (u - s) ** 2) for s in shifts], axis=0
    )
    bound = 1.1 * (ratio / 2) ** p1 / special.factorial(p1) * peak * worst
    spectra = sp_fft.rfftn(np.stack([_circular(k, margins, lengths) for k in kernels]), axes=axes)
    return spectra, sp_fft.rfftn(_circular(bound, margins, lengths), axes=axes)


def _fft_sums(X, bounds, axes, kernel, h, w, exact: bool = False, box=None):
    """Binned block sums on the nodes by one batched FFT convolution (the binning:
    :func:`momkde_core._engine._binning.bin_blocks`).

    Taylor moments (the Gaussian in 1-D): the moments of order 0..3 of each cell are
    convolved with the kernel's scaled derivatives (fine / h)^j / j! He_j(y / h) K_h(y) (a
    Taylor expansion of K_h(g - c - t fine) in t), on cells of at most h / 20: the
    remainder is below 1.1 (1/40)^4 / 24 max |He_4| K_h, about 5e-8 of a node's value near
    the data. The remainder is bounded at every node by convolving each cell's largest
    mass over the blocks with its bound kernel; ``exact`` recomputes, from the points that matter
    there (:func:`momkde_core._engine._exact_tails.exact_at_nodes`), every node where that
    bound or the FFT's round-off (taken as 1e-13 K_h(0) times the block's weight) could
    exceed ``GRID_RTOL`` (1e-6) of the value. Other kernels and 2-D: linear binning (error
    (fine / h)^2 / 8 of the peak per axis, twice that in the plane), and ``exact``
    recomputes the nodes where round-off could exceed GRID_RTOL of the value.
    """
    d = X.shape[1]
    n_blocks = len(bounds) - 1
    taylor = _taylor(kernel, d)
    plan = _fft_plan(axes, kernel, h)
    sizes, lengths = _fft_shape(axes, plan)
    origins = [axis[0] - L * fine for axis, (_, L, fine) in zip(axes, plan)]
    spectra, bound_spectrum = _fft_kernels(kernel, h, plan, lengths)
    fft_axes = tuple(range(-d, 0))
    picks = tuple(slice(L, L + (len(a) - 1) * k + 1, k) for a, (k, L, _) in zip(axes, plan))
    out = np.empty((n_blocks, *(len(a) for a in axes)))
    moments = TAYLOR_ORDER + 1 if taylor else 1
    # blocks in batches, binned and convolved in turn: memory is bounded by the batch
    step = max(1, MAX_FFT_ELEMENTS // 8 // (int(np.prod(lengths)) * moments))
    heaviest = np.zeros(sizes) if taylor else None
    occupied = np.zeros((n_blocks, *sizes), dtype=bool) if taylor else None
    left_out = np.empty(n_blocks, dtype=np.int64)  # per block: points beyond the grid
    for lo in range(0, n_blocks, step):
        hi = min(n_blocks, lo + step)
        # binned straight into arrays of the FFT lengths (zeros beyond the grid): the
        # transform then pads nothing (a copy of every batch otherwise)
        binned = bin_blocks(
            X[bounds[lo] : bounds[hi]],
            bounds[lo : hi + 1] - bounds[lo],
            w[bounds[lo] : bounds[hi]],
            [fine for _, _, fine in plan],
            origins,
            sizes,
            TAYLOR_ORDER if taylor else None,
            left_out[lo:hi],
            lengths,
        )
        if taylor:
            grid = (slice(None), 0, *(slice(0, z) for z in sizes))
            np.maximum(heaviest, binned[grid].max(axis=0), out=heaviest)
            occupied[lo:hi] = binned[grid] != 0
        workers = n_threads() if binned.size >= FFT_THREADED_ELEMENTS else 1
        spec = sp_fft.rfftn(binned, axes=fft_axes, workers=workers)
        del binned
        spec *= spectra
        conv = sp_fft.irfftn(spec.sum(axis=1), s=lengths, axes=fft_axes, workers=workers)
        out[lo:hi] = conv[(slice(None), *picks)]
    if not exact:
        return np.maximum(out, 0.0)
    trust = _lower_median(out)
    slack = _round_off(w, bounds, kernel, h, d)
    if bound_spectrum is not None:
        remainder = sp_fft.irfftn(sp_fft.rfftn(heaviest, s=lengths) * bound_spectrum, s=lengths)[
            picks
        ]
        slack = slack + np.abs(remainder)
    cells = None
    if taylor and occupied.size <= MAX_CELL_TABLE and not left_out.any():
        cells = (origins[0], plan[0][2], occupied)  # every point was binned: its cells
    _redo_faint(out, X, bounds, w, axes, kernel, h, slack, cells, trust, box)
    return np.maximum(out, 0.0)
