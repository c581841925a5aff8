"""The grid backends' prices: which backend :func:`block_grid_sums` runs.

Each backend's price is a count of its operations (kernel terms, pairs, cells, transform
points, product entries) weighted by what one such operation costs, in units of a fixed
small time on one core; ``benchmarks/bench_core.py`` and ``benchmarks/bench_grid_speed.py``
time the backends these weights were fitted to. Every weight is named once, in
:data:`COSTS`. A backend that cannot run on the inputs (uneven
axes, a kernel it does not handle, a transform beyond its memory cap) has no price. The
choice depends on the inputs only, never on what ran before (a replayed evaluation costs
less, but the same call must give the same result whatever the history).

With exact tails asked for in the plane, the binned backends (and the band, for kernels
that are not compact) also pay for recomputing the faint nodes
(:mod:`momkde_core._engine._exact_tails`): per point, per block (its cell table and
distance transform), per block and node beyond the data's bounding box, and per block and
node beyond ``UNDERFLOW_BANDWIDTHS`` h of every point, where the sum underflows and is
redone in log space.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._columns import bounding_box
from ..kernels import Kernel
from ._band import _band_pair_estimate, _band_ranges
from ._binned_product import BAND_RADIUS, MAX_GATHERED, binning_cells
from ._fft import MAX_FFT_ELEMENTS, TAYLOR_ORDER, _fft_plan, _fft_shape, _fft_sizes, _taylor
from ._grid import is_evenly_spaced
from ._point_sums import _as_2d
from ._separable import _batch_width

UNDERFLOW_BANDWIDTHS = float(np.sqrt(2 * 745.0))  # exp(-r^2 / 2h^2) is 0 beyond this r / h


@dataclass(frozen=True)
class CostModel:
    """The weights of :func:`backend_costs` and :func:`band_pays_off`: the units one
    operation of each backend costs. A unit is a fixed small time on one core; only the
    ratios matter. They were fitted to the timings of ``benchmarks/bench_core.py`` and
    ``benchmarks/bench_grid_speed.py`` (tables in ``docs/benchmarks.md``): refit them
    together when a backend changes."""

    # exact: every point's term at every node
    exact_pair: float = 30.0  # one term: its distance, exponential and membership product
    # band: the (point, node) pairs within the kernel's radius
    band_pair: float = 100.0  # one pair: node index, distance, kernel value and scatter
    band_node: float = 12.0  # one node of one block's grid: zeroed, then summed by bincount
    band_vs_dense: float = 6.0  # band_pays_off: a band pair at 1-D points costs about five
    # dense ones (plus the points' sort), so the band runs below one pair in six in reach
    # separable: A_x^T diag(w) A_y per block (or one batched product)
    separable_entry: float = 0.1  # one multiply-add (padded point, node) of the product
    separable_factor: float = 30.0  # one axis factor (point, axis node) of the recurrence
    separable_call: float = 6e5  # one product call: the batched one, or one per block
    # binned: the Gaussian's linear binning summed at the nodes by axis factors (2-D)
    binned_gather: float = 10.0  # per point and y node of its band: its gathered entries
    binned_row: float = 2.0  # per block, x cell and y node: an entry of G_s, zeroed and read
    binned_entry: float = 0.3  # per block, x cell and mesh node: a multiply-add of K_x^T G_s
    binned_call: float = 2e5  # once per call: the cells' layout and the factor tables
    # fft: binning and a batched convolution
    fft_binning: float = 10.0  # per point and moment or cell corner: the binning pass
    fft_spectrum: float = 4.0  # per block, transform point and moment: the spectra's product
    fft_transform: float = 6.0  # per block and transform point, times log2 of their number
    # exact tails in the plane (added to the backends that leave them inexact)
    tails_point: float = 600.0  # per point: its place in its block's cell table
    tails_block: float = 5e6  # per block: its cell table and distance transform
    tails_faint_node: float = 2e3  # per block and node beyond the data's box: summed exactly
    tails_underflow_node: float = 1e4  # per block and node beyond UNDERFLOW_BANDWIDTHS h of
    # every point: summed in log space


COSTS = CostModel()


def exact_price(n: int, n_nodes: int) -> float:
    """:func:`backend_costs`' price of the exact backend: every one of ``n`` points' kernel
    terms at each of ``n_nodes`` nodes."""
    return COSTS.exact_pair * n * n_nodes


def choose_backend(X, bounds, axes, kernel, h, exact: bool = False, box=None) -> str:
    """The cheapest exact-enough backend of :func:`backend_costs`."""
    costs = backend_costs(X, bounds, axes, kernel, h, exact, box)
    return min(costs, key=costs.get)


def backend_costs(X, bounds, axes, kernel, h, exact: bool = False, box=None) -> dict[str, float]:
    """The price of each exact-enough backend: its operation counts weighted by
    :data:`COSTS`. ``exact``: the far tails will be recomputed (see
    :func:`momkde_core._engine._grid_sums.block_grid_sums`), which in the plane costs the
    binned backends per point, per block (its cell table and distance transform), per block
    and faint node (estimated: the nodes beyond the data's bounding box) and more per block
    and node beyond ``UNDERFLOW_BANDWIDTHS`` h of every point (redone in log space).
    ``box``: ``columns.bounding_box(X, skip_nan=True)`` when the caller has it (else it
    takes a pass over the data)."""
    n, d = X.shape
    if box is None and d == 2 and n and (exact or kernel.separable):
        box = bounding_box(X, skip_nan=True)
    n_blocks = len(bounds) - 1
    n_grid = int(np.prod([len(a) for a in axes]))
    costs = {"exact": exact_price(n, n_grid)}
    even = all(is_evenly_spaced(a) for a in axes)
    if even:
        # (a replayed band costs less, but the choice must not depend on what ran before:
        # the same call gives the same result whatever the history)
        pairs = _band_pair_estimate(n, axes, kernel.radius * h)
        costs["band"] = COSTS.band_pair * pairs + COSTS.band_node * n_blocks * n_grid
    if kernel.separable and d == 2:
        widest = _batch_width(bounds)
        if widest:  # one batched product
            products, overhead = n_blocks * widest, COSTS.separable_call
        else:  # a product per block
            products, overhead = n, COSTS.separable_call * n_blocks
        costs["separable"] = (
            COSTS.separable_entry * products * n_grid
            + COSTS.separable_factor * n * sum(len(a) for a in axes)
            + overhead
        )
        if even:
            cells = binning_cells(X, axes, h, BAND_RADIUS * h, box)
            columns = float(cells[0][2]) if cells else 0.0
            if columns * len(axes[1]) <= MAX_GATHERED:  # one block's rows fit in a batch
                step_y = (axes[1][-1] - axes[1][0]) / max(len(axes[1]) - 1, 1)
                band = min(len(axes[1]), 2.0 * BAND_RADIUS * h / step_y + 2.0)
                costs["binned"] = (
                    COSTS.binned_gather * n * band
                    + COSTS.binned_row * n_blocks * columns * len(axes[1])
                    + COSTS.binned_entry * n_blocks * columns * n_grid
                    + COSTS.binned_call
                )
    if kernel.cells_per_bandwidth is not None and even:
        plan = _fft_plan(axes, kernel, h)
        moments = TAYLOR_ORDER + 1 if _taylor(kernel, d) else 1
        fits = (
            float(np.prod([float(s) for s in _fft_sizes(axes, plan)])) * moments <= MAX_FFT_ELEMENTS
        )
        cells = float(np.prod(_fft_shape(axes, plan)[1])) if fits else np.inf
        if cells * moments <= MAX_FFT_ELEMENTS:  # (blocks are binned and convolved in batches)
            costs["fft"] = (
                COSTS.fft_binning * n * (moments + 2**d)
                + COSTS.fft_spectrum * n_blocks * cells * moments
                + COSTS.fft_transform * n_blocks * cells * np.log2(cells + 2)
            )
    if exact and d == 2 and n:
        lows, highs = box

        def within(reach: float) -> int:  # nodes within ``reach`` of the box on both axes
            return int(
                np.prod(
                    [
                        np.count_nonzero((a >= lo - reach) & (a <= hi + reach))
                        for a, lo, hi in zip(axes, lows, highs)
                    ]
                )
            )

        # beyond ~38.6 h of every point a sum underflows and is redone in log space from
        # the pairs within its reach (exact_at_nodes), at several times a faint node's cost
        underflow = n_grid - within(UNDERFLOW_BANDWIDTHS * h)
        redo = COSTS.tails_point * n + n_blocks * (
            COSTS.tails_block
            + COSTS.tails_faint_node * (n_grid - within(0.0))
            + COSTS.tails_underflow_node * underflow
        )
        for name in ("fft", "binned") if kernel.compact else ("fft", "binned", "band"):
            if name in costs:
                costs[name] += redo
    return costs


def band_pays_off(X: np.ndarray, Y: np.ndarray, kernel: Kernel, h: float) -> bool:
    """Whether :func:`momkde_core._engine._band.band_block_sums` beats
    :func:`momkde_core._engine._point_sums.exact_block_sums` at 1-D points Y: the band wins
    when fewer than one pair in ``COSTS.band_vs_dense`` is within the kernel's reach."""
    pairs = _band_ranges(_as_2d(X), [np.sort(_as_2d(Y)[:, 0])], kernel.radius * h)[2].sum()
    return bool(COSTS.band_vs_dense * pairs < len(X) * len(Y))
