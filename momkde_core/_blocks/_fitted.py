"""What a fit produces: the rows sorted into blocks inside the fit's frame, their weights,
and the rule that combines the block sums.

Every estimator (KDE, MoM-KDE, RKDE, SPKDE) reduces after ``fit`` to a :class:`FittedBlocks`:
one block for KDE, RKDE and SPKDE (the sum itself), S blocks for MoM-KDE (their pointwise
median). Evaluation at points, on grids and the draws of ``sample`` then go through this
one object, and so does the median's integral (:mod:`momkde_core._blocks._normalize`) and
the robust bandwidth search, which builds MoM-KDE's blocks without the estimator
(:func:`shuffled_blocks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from .._engine import (
    FAST_GAUSSIAN_PAIRS,
    LOG_SAFE_LINEAR,
    Frame,
    backend_costs,
    band_block_sums,
    band_pays_off,
    block_grid_sums,
    block_log_sums,
    exact_block_sums,
    exact_price,
    is_evenly_spaced,
    median,
    median_log_sums,
    working_frame,
)
from ..kernels import Kernel

MEDIAN_TILE_ELEMENTS = 2**16  # block sums per tile of the grid median (512 KiB: a core's L2)
LABEL_LOOP_BLOCKS = 256  # block labels are scattered one block at a time up to this many blocks


def grid_median(values: np.ndarray) -> np.ndarray:
    """Median over axis 0 of non-negative block sums, sorting only where it can be non-zero.

    Where at most (S - 1) // 2 of the S blocks are non-zero, both middle order statistics are
    zeros, so the median is exactly 0 without a partition: on grids far from the data, or
    with many small blocks and a small bandwidth, that is most nodes. The live nodes are
    selected in cache-sized tiles of nodes, each tile's blocks laid along the last axis
    (a partition along a strided axis 0 is slower for hundreds of blocks).
    """
    s = values.shape[0]
    flat = values.reshape(s, -1)
    out = np.zeros(flat.shape[1])
    step = max(1, MEDIAN_TILE_ELEMENTS // s)
    for a in range(0, flat.shape[1], step):
        tile = flat[:, a : a + step]
        # (a sum of the comparisons into int32: np.count_nonzero along an axis casts
        # them to intp first, which is slower)
        live = (tile != 0).sum(axis=0, dtype=np.int32) > (s - 1) // 2
        if live.any():  # (what np.median computes, bit for bit)
            out[a : a + step][live] = median(tile.T[live], axis=1)
    return out.reshape(values.shape[1:])


def equal_weights(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(log weights, weights) of n rows weighing 1/n each, as read-only views of one value:
    no n-long arrays (the weights are exp of the log, to the bit)."""
    return np.broadcast_to(-np.log(n), n), np.broadcast_to(np.exp(-np.log(n)), n)


def block_order(n: int, n_blocks: int, random_state) -> tuple[np.ndarray | None, np.ndarray]:
    """MoM-KDE's partition of n rows into ``n_blocks`` blocks (paper, Definition 1):
    (the shuffled order of the rows, or None for one block; the block bounds).

    The rows are shuffled with ``random_state`` and cut into consecutive runs whose sizes
    differ by at most one (the first n % S blocks take one more row), as
    ``numpy.array_split`` would cut them; one block keeps the data order, so that its sums
    are the KDE's to the last bit.
    """
    order = None if n_blocks == 1 else check_random_state(random_state).permutation(n)
    sizes = np.full(n_blocks, n // n_blocks) + (np.arange(n_blocks) < n % n_blocks)
    return order, np.concatenate([[0], np.cumsum(sizes)])


def shuffled_blocks(
    X: np.ndarray, n_blocks: int, random_state, base: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """MoM-KDE's blocks of X (:func:`block_order`): (X sorted by block, block bounds, log
    weights, weights, the shuffled order or None).

    Without ``base`` (sample weights, positive, summing to 1) each row weighs 1 / its
    block's size and both weight arrays are None (built on first use by
    :class:`FittedBlocks`), but for one block, whose weights are the KDE's; with them, each
    row weighs its share of its block's weight.
    """
    n = len(X)
    order, bounds = block_order(n, n_blocks, random_state)
    sizes = np.diff(bounds)
    if base is None and n_blocks == 1:  # the KDE's weights, so that its sums are the KDE's
        log_w, w = equal_weights(n)
    elif base is None:  # each row weighs 1 / its block's size: built when first read
        log_w = w = None
    else:  # each row's share of its block's weight
        w = base if order is None else base[order]
        log_w = np.log(w) - np.repeat(np.log(np.add.reduceat(w, bounds[:-1])), sizes)
        w = np.exp(log_w)
    # (np.take gathers rows faster than X[order] on (n, d) arrays, same values)
    return (X if order is None else np.take(X, order, axis=0)), bounds, log_w, w, order


def median_of_blocks(
    X: np.ndarray, n_blocks: int, h: float, kernel: Kernel, random_state
) -> FittedBlocks:
    """The fit of ``MoMKDE(n_blocks, h, kernel=kernel.name, random_state=random_state)`` on
    X (a float (n, d) array), unweighted, without its normalisation: what the robust
    bandwidth search scores for each candidate h."""
    frame = working_frame(X, np.full(X.shape[1], float(h)), kernel)
    Z, bounds, log_w, w, _ = shuffled_blocks(frame.inner(X), n_blocks, random_state)
    return FittedBlocks(
        Z, bounds, kernel, frame.h, frame, median=True, log_w_values=log_w, w_values=w
    )


def block_labels(order: np.ndarray | None, bounds: np.ndarray) -> np.ndarray:
    """The block of each row in the data's order, from :func:`shuffled_blocks`' order and
    bounds (block by block up to :data:`LABEL_LOOP_BLOCKS` blocks: no n-long temporary)."""
    labels = np.zeros(bounds[-1], dtype=np.intp)
    if order is not None and len(bounds) - 1 <= LABEL_LOOP_BLOCKS:
        for s in range(1, len(bounds) - 1):
            labels[order[bounds[s] : bounds[s + 1]]] = s
    elif order is not None:
        labels[order] = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    return labels


@dataclass(eq=False)
class FittedBlocks:
    """The fitted representation shared by every estimator.

    The estimate is combine_s sum_{i in s} w_i K_h(x - X_i), in the fit's frame
    (:mod:`momkde_core._engine._scaling`): the single block's sum, or the median of the
    block sums (``median``).

    Attributes
    ----------
    X : ndarray of shape (n, d)
        The fitted rows sorted by block, inside the frame.
    bounds : ndarray of shape (S + 1,)
        Block s holds ``X[bounds[s]:bounds[s + 1]]``.
    kernel : Kernel
    h : float
        The scalar bandwidth inside the frame.
    frame : Frame
        The affine map between the data's units and the frame.
    median : bool
        Combine the blocks by their pointwise median (MoM-KDE); else the one block.
    weighted : bool
        Whether the fit had sample weights.
    log_w_values, w_values : ndarray of shape (n,) or None
        The rows' weights (log and linear) in the order of ``X``; None when each block's
        rows weigh one over its size, built on first use by :attr:`log_w` and :attr:`w`.
    """

    X: np.ndarray
    bounds: np.ndarray
    kernel: Kernel
    h: float
    frame: Frame
    median: bool = False
    weighted: bool = False
    log_w_values: np.ndarray | None = None
    w_values: np.ndarray | None = None
    equal_in_blocks: bool = field(init=False)

    def __post_init__(self) -> None:
        self.equal_in_blocks = self.w_values is None  # see grid_weights

    @property
    def n_blocks(self) -> int:
        return len(self.bounds) - 1

    @property
    def log_w(self) -> np.ndarray:
        """log of the rows' weights in the order of ``X``, built on first use when the fit
        left them out (-log of the block's size per row): an n-long array that a fit
        drawing only grids never reads."""
        if self.log_w_values is None:
            sizes = np.diff(self.bounds)
            self.log_w_values = np.repeat(-np.log(sizes), sizes)
        return self.log_w_values

    def block_weights(self) -> np.ndarray:
        """One over each block's size (as exp(-log size): the values of :attr:`w`), when the
        fit gave each block's rows equal weights (``equal_in_blocks``)."""
        return np.exp(-np.log(np.diff(self.bounds)))

    @property
    def w(self) -> np.ndarray:
        """The rows' weights in linear space (exp of :attr:`log_w`), built on first use."""
        if self.w_values is None:
            self.w_values = np.repeat(self.block_weights(), np.diff(self.bounds))
        return self.w_values

    def grid_weights(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(the weights the grid engine sums with, a factor per block to multiply its sums
        by, or None). Without per-row weights (one value per block: MoM-KDE without
        weights) the engine sums unit weights, a read-only view of one value, and each
        block's sums are scaled by its weight after: no n-long weights on the grid path
        (whether or not :attr:`w` was built since: a grid does not depend on what ran
        before)."""
        if self.equal_in_blocks:
            return np.broadcast_to(1.0, len(self.X)), self.block_weights()
        return self.w_values, None

    def combine(self, block_values: np.ndarray) -> np.ndarray:
        """The estimate from the block sums (axis 0), in linear space."""
        return grid_median(block_values) if self.median else block_values[0]

    def combine_log(self, block_logs: np.ndarray) -> np.ndarray:
        """The estimate's log from the block sums' logs (axis 0)."""
        return median(block_logs, log=True) if self.median else block_logs[0]

    def block_log_sums(self, Y: np.ndarray) -> np.ndarray:
        """log of each block's weighted kernel sum at Y (in the frame), shape (S, m)."""
        return block_log_sums(self.X, self.bounds, Y, self.kernel, self.h, self.log_w)

    def mean_block_logs(self, Y: np.ndarray) -> np.ndarray:
        """The mean over the blocks of the log of each block's weighted kernel sum at Y (in the
        frame), shape (m,): with the Gaussian kernel in d >= 2 at many pairs, through the
        median's slot path (:func:`momkde_core._engine.median_log_sums`, exact where every
        block's sum is above 1e-280, redone in log space elsewhere); else from
        :meth:`block_log_sums`."""
        if self._gaussian_at_many_pairs(Y):
            args = (self.X, self.bounds, Y, self.kernel, self.h, self.log_w)
            return median_log_sums(*args, statistic="mean_log")
        return self.block_log_sums(Y).mean(axis=0)

    def _gaussian_at_many_pairs(self, Y: np.ndarray) -> bool:
        """Whether Y is scored by the BLAS / slot paths: a separable (Gaussian) kernel in
        d >= 2, and enough pairs of Y and fitted rows for them to pay."""
        return (
            self.kernel.separable
            and self.X.shape[1] >= 2
            and len(self.X) * len(Y) >= FAST_GAUSSIAN_PAIRS
        )

    def log_values(self, Y: np.ndarray) -> np.ndarray:
        """log of the combined block sums at Y (in the frame, not normalised).

        Exact (to ~1e-12 relative) at every point, by the cheapest sums that are exact
        there: in 1-D with a small h, the pairs within the kernel's radius (trusted where
        above 1e-5 of the kernel's peak; everywhere for a compact kernel); in d <= 2, linear
        sums over all points (trusted above 1e-290, where no term was lost to underflow);
        else, and for the points left, log space, which never underflows. With the
        Gaussian kernel in d >= 2 at many pairs, a median of many blocks takes the median
        path (:func:`momkde_core._engine.median_log_sums`) and one or two blocks the BLAS
        path of :func:`momkde_core._engine.block_log_sums`: both exact where the value is
        above 1e-280, redone in log space elsewhere.
        """
        if self._gaussian_at_many_pairs(Y):
            if self.median and self.n_blocks > 2:
                return median_log_sums(self.X, self.bounds, Y, self.kernel, self.h, self.log_w)
            return self.combine_log(self.block_log_sums(Y))  # (its BLAS path, checked)
        d = self.X.shape[1]
        out = np.full(len(Y), -np.inf)
        todo = np.arange(len(Y))
        args = (self.X, self.bounds)
        stages = []
        if d == 1 and band_pays_off(self.X, Y, self.kernel, self.h):
            peak = self.kernel.log_kernel_sq(np.zeros(1), self.h, 1)[0]
            stages.append(
                (band_block_sums, -np.inf if self.kernel.compact else peak + np.log(1e-5))
            )
        if d <= 2:
            stages.append((exact_block_sums, LOG_SAFE_LINEAR))
        for block_sums, trusted_above in stages:
            with np.errstate(divide="ignore"):
                logs = np.log(self.combine(block_sums(*args, Y[todo], self.kernel, self.h, self.w)))
            ok = logs >= trusted_above
            out[todo[ok]] = logs[ok]
            todo = todo[~ok]
            if not todo.size:
                return out
        out[todo] = self.combine_log(
            block_log_sums(*args, Y[todo], self.kernel, self.h, self.log_w)
        )
        return out

    def grid_plan(
        self, axes: list[np.ndarray], exact: bool = False
    ) -> tuple[str, float, tuple | None]:
        """(the backend that computes the block sums on the mesh of ``axes`` in the frame, its
        price in the engine's units (:func:`momkde_core._engine.backend_costs`), the data's
        box for it): the cheapest backend on evenly spaced axes in d <= 2, else the exact
        sums."""
        if self.X.shape[1] <= 2 and all(is_evenly_spaced(a) for a in axes):
            box = self.frame.box  # (the backends' prices and the binned product need it)
            costs = backend_costs(self.X, self.bounds, axes, self.kernel, self.h, exact, box)
            backend = min(costs, key=costs.get)
            return backend, costs[backend], box
        return "exact", exact_price(len(self.X), int(np.prod([len(a) for a in axes]))), None

    def grid_sums(
        self,
        axes: list[np.ndarray],
        exact: bool = False,
        plan: tuple[str, float, tuple | None] | None = None,
    ) -> tuple[np.ndarray, str]:
        """(block sums on the mesh of ``axes``, in the frame; the backend that computed
        them). ``plan``: :meth:`grid_plan` for the same axes and ``exact``, when the caller
        has it."""
        backend, _, box = self.grid_plan(axes, exact) if plan is None else plan
        weights, block_factors = self.grid_weights()
        sums = block_grid_sums(
            self.X,
            self.bounds,
            axes,
            self.kernel,
            self.h,
            weights,
            backend=backend,
            exact=exact,
            box=box,
        )
        if block_factors is not None:
            sums *= block_factors.reshape((-1,) + (1,) * len(axes))
        return sums, backend

    def sample_rows(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` rows drawn as q's centres: row i with probability w_i / S."""
        return rng.choice(len(self.X), size, p=self.w / self.w.sum())

    def sample_block_mean(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws from q = (1/S) sum_s f_s (each block's weights sum to 1, so row i
        is picked with probability w_i / S), plus h times kernel noise, in the frame."""
        n, d = self.X.shape
        rows = self.sample_rows(size, rng)
        directions = rng.standard_normal((size, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        radii = self.kernel.sample_radius(d, size, rng)
        return self.X[rows] + self.h * radii[:, None] * directions
