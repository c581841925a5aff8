"""Which features make a row abnormal: Shapley values of a fitted estimate's log density.

A row's abnormality is -log f(x), f the fitted estimate (for the detector's default, the
median over its blocks of the block KDEs, not normalised). It is split among the features
by the Shapley values of the game v(S) = -log f_S(x_S) + log f_{}, where f_S is the
estimate's marginal density over the features in S and f_{} its total mass (1 for every
estimator here, so v(empty) = 0 to round-off). A feature's value is its average
increase of v when it joins the others, over every order in which the features can join;
the values of a row sum to v(all) - v(empty) = -log f(x).

The marginals come from the fit itself, not from refits. With a product (separable) kernel,
the Gaussian, a block's kernel sum at x is sum_i w_i prod_j K_{h_j}(x_j - X_ij), and its
marginal over S drops the factors of the other features (each integrates to 1). For
MoM-KDE f_S is the median over the blocks of the block KDEs' marginals: the median of
marginals, which is what the median estimate restricted to S means here (the marginal of the
median itself is an integral of a median, which no block structure gives). KDE, RKDE, SPKDE
and ScreenedKDE are weighted KDEs of one block: f_S is that block's marginal. The default
detector scores by the mean of the blocks' log densities (:mod:`momkde_core._block_mean`):
its game is v(S) = -(1/S) sum_s log f_{s,S}(x), the blocks' marginals combined the same way.

Computation, per row: each factor is shifted by its largest value over the fitted rows (the
shifts add up over S: their Shapley part is exact, -shift_j per feature), so the products
stay in [0, 1]. Exactly, every subset's block sums at once: the features are split in two
halves, the 2^(d/2) products of each half built by doubling, and each block's 2^d sums are
one matrix product of the halves (2^d x rows multiply-adds per row). By sampling: orders of
the features drawn at random, each with its reverse (antithetic pairs), the prefixes' sums
built one factor at a time. The factors of a chunk of rows come from numpy's vectorised exp;
the products, sums and medians are compiled (numba), a row at a time, the rows split over
the engine's threads. A median below 1e-290 (where flushed terms could matter) is recomputed
in log space.

:func:`most_blamed` turns a row's values into the columns ``momkde score --explain`` writes:
its most-blamed features by name.
"""

from __future__ import annotations

from math import factorial
from numbers import Integral

import numpy as np
from numba import njit
from numpy.typing import ArrayLike
from scipy.special import logsumexp
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._config import n_threads
from ._engine import median
from ._engine._scaling import FAR
from ._engine._threads import map_on_pool
from .estimators._base import _BaseKDE
from .kernels import SAFE_LINEAR

#: ``method="auto"`` computes the exact values up to this many features, samples above.
MAX_AUTO_EXACT = 10
#: ``method="exact"`` is refused above this many features (2^d subsets per row).
MAX_EXACT = 16
#: Orders of the features sampled by default above :data:`MAX_AUTO_EXACT` features.
DEFAULT_PERMUTATIONS = 256
#: Values held per chunk of rows (32 MiB of float64).
CHUNK_VALUES = 2**22
#: Kernel factors computed at once per worker thread (512 KiB of float64: within a core's L2
#: cache, where numpy's passes over them run).
FACTOR_VALUES = 2**16
#: The algorithms of ``method``: exact Shapley values, sampled orders, or by the features' count.
ALGORITHMS = ("auto", "exact", "permutation")
#: How the blocks' marginal densities are combined: their median (MoM-KDE), or the mean of
#: their logs (the default detector's score, :mod:`momkde_core._block_mean`).
COMBINES = ("median", "mean_log")


def explain_log_density(
    estimator: _BaseKDE,
    X: ArrayLike,
    *,
    method: str = "auto",
    n_permutations: int = DEFAULT_PERMUTATIONS,
    random_state: int | np.random.RandomState | None = None,
    combine: str = "median",
) -> np.ndarray:
    """Each feature's share of each row's -log density under a fitted estimator (nats).

    Parameters
    ----------
    estimator : KDE, MoMKDE, RKDE, SPKDE or ScreenedKDE
        Fitted, with the Gaussian kernel.
    X : array-like of shape (m, d)
        The rows to explain, with the features of the fit.
    method : {"auto", "exact", "permutation"}, default "auto"
        "exact": every subset of features (up to :data:`MAX_EXACT` features); "permutation":
        ``n_permutations`` sampled orders; "auto": exact up to :data:`MAX_AUTO_EXACT`.
    n_permutations : int, default DEFAULT_PERMUTATIONS
        The orders sampled (half of them drawn, the other half their reverses).
    random_state : int, RandomState or None, default None
        Seeds the orders sampled.
    combine : {"median", "mean_log"}, default "median"
        v(S) = -log median_s f_{s,S}(x) (the estimate's own), or -(1/S) sum_s log
        f_{s,S}(x), the default detector's score (:mod:`momkde_core._block_mean`), whose
        Shapley values are the mean of the blocks'.

    Returns
    -------
    contributions : ndarray of shape (m, d)
        Row q, feature j: the Shapley value of the feature in the game -log f_S(x_q).
        Each row sums to -log f(x_q) (the estimator's ``-score_samples``, up to its
        ``log_norm_``) to round-off. A row beyond every kernel's reach (density 0) gets
        +inf on its features out of reach and NaN on the others.

    Raises
    ------
    ValueError
        An estimator that is not one of momkde's kernel estimators, a kernel that is not a
        product over the features, bad ``method`` or ``n_permutations``, or X unlike the
        fit's rows. ``sklearn.exceptions.NotFittedError`` (a ValueError) before ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import KDE
    >>> X = np.random.default_rng(0).standard_normal((200, 3))
    >>> kde = KDE(bandwidth=0.5).fit(X)
    >>> phi = explain_log_density(kde, [[0.0, 6.0, 0.0]])
    >>> int(np.argmax(phi[0]))  # the shifted feature is to blame
    1
    >>> bool(np.isclose(phi.sum(), -kde.score_samples([[0.0, 6.0, 0.0]])[0]))
    True
    """
    fitted = _check_estimator(estimator)
    if not (isinstance(method, str) and method in ALGORITHMS):
        raise ValueError(f"method must be one of {', '.join(ALGORITHMS)}; got {method!r}")
    if not isinstance(n_permutations, Integral) or isinstance(n_permutations, bool):
        raise ValueError(f"n_permutations must be an integer >= 1, got {n_permutations!r}")
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be an integer >= 1, got {n_permutations!r}")
    if not (isinstance(combine, str) and combine in COMBINES):
        raise ValueError(f"combine must be one of {', '.join(COMBINES)}; got {combine!r}")
    Y = estimator._query_rows(X)  # (a mixed fit's levels embedded: module estimators._mixed)
    d = estimator.n_features_in_
    if method == "exact" and d > MAX_EXACT:
        raise ValueError(
            f"method='exact' takes at most {MAX_EXACT} features (2^d subsets per row); "
            f"X has {d}: use method='permutation'"
        )
    exact = method == "exact" or (method == "auto" and d <= MAX_AUTO_EXACT)
    frame = estimator._frame
    with np.errstate(over="ignore", invalid="ignore"):
        Z = frame.inner(Y)
    layout = _Layout(fitted, d, estimator._mixed, combine == "mean_log")
    if layout.starts is not None:  # (a mixed fit: its columns in the features' order)
        Z = Z[:, layout.columns_order]
    out = np.full((len(Y), d), np.nan)
    reach = np.abs(Z) <= FAR  # (NaN and inf compare False)
    orders = None if exact else _orders(d, int(n_permutations), random_state)
    per_row = 4 * 2**d if exact else 2 * len(orders) * (d + 1)
    step = max(1, CHUNK_VALUES // per_row)
    for lo in range(0, len(Z), step):
        rows = slice(lo, lo + step)
        out[rows] = _explain_chunk(layout, Z[rows], reach[rows], orders)
    return out


def _check_estimator(estimator) -> object:
    """The estimator's FittedBlocks; ValueError for what cannot be explained."""
    if not isinstance(estimator, _BaseKDE):
        raise ValueError(
            "explanations need one of momkde's kernel estimators (KDE, MoMKDE, RKDE, SPKDE, "
            f"ScreenedKDE), whose marginal densities the fit gives; got "
            f"{type(estimator).__name__}"
        )
    check_is_fitted(estimator, "bandwidth_")
    kernel = estimator._fitted.kernel
    if not kernel.separable:
        raise ValueError(
            f"explanations need a kernel that is a product of one factor per feature (the "
            f"Gaussian), so that a marginal drops the other features' factors; the "
            f"{kernel.name!r} kernel is not: fit with kernel='gaussian'"
        )
    return estimator._fitted


class _Layout:
    """The fitted rows by block, each block padded to the largest (weight 0) so that the
    blocks stack: ``X`` of shape (S, L, k), weights ``w`` (S, L), and the per-feature log
    normalising constants of the factors in the data's units.

    A mixed fit (``mixed``) has k > d columns: a categorical feature is a group of embedded
    columns (:mod:`momkde_core.estimators._mixed`), laid out in the features' order
    (``columns_order``), each group starting at ``starts``; its factor is the product of its
    columns' (:meth:`group`), its constant log(1 - lambda). Without it the groups are the
    columns themselves and nothing is regrouped."""

    def __init__(self, fitted, d: int, mixed=None, mean_log: bool = False):
        self.d, self.mean_log = d, mean_log
        k = fitted.X.shape[1]
        self.columns_order, self.starts = (
            (np.arange(k), None) if mixed is None else mixed.table_layout()
        )
        sizes = np.diff(fitted.bounds)
        self.n_blocks, width = len(sizes), int(sizes.max())
        self.n_slots = self.n_blocks * width
        slot = np.arange(width)
        index = np.minimum(fitted.bounds[:-1, None] + slot, fitted.bounds[1:, None] - 1)
        self.X = fitted.X[index] if mixed is None else fitted.X[:, self.columns_order][index]
        self.XT = np.ascontiguousarray(self.X.transpose(0, 2, 1))  # (S, d, L): rows last
        self.w = np.where(slot < sizes[:, None], fitted.w[index], 0.0)
        with np.errstate(divide="ignore"):
            self.log_w = np.log(self.w)
        self.columns = np.sort(self.X.reshape(-1, k), axis=0).T  # (each column's values, sorted)
        self.h = fitted.h
        H = np.broadcast_to(fitted.frame.outer_bandwidth(fitted.h), k)
        self.log_c = -0.5 * np.log(2.0 * np.pi) - np.log(H)
        if mixed is not None:
            self.log_c = self.log_c[self.columns_order][self.starts]
            self.log_c[mixed.kinds != "c"] = np.log1p(-mixed.lambdas)

    def group(self, values: np.ndarray, axis: int, ufunc=np.add) -> np.ndarray:
        """Per-column values reduced to one per feature along ``axis`` (the identity
        without groups)."""
        return values if self.starts is None else ufunc.reduceat(values, self.starts, axis=axis)


def _explain_chunk(
    layout: _Layout, Z: np.ndarray, reach: np.ndarray, orders: np.ndarray | None
) -> np.ndarray:
    """The contributions of the rows Z (in the frame); ``orders``: None for the exact
    values, else the sampled orders of the features."""
    scale = -0.5 / (layout.h * layout.h)
    with np.errstate(over="ignore", invalid="ignore"):
        shift = scale * _nearest(np.where(reach, Z, 0.0), layout.columns)  # (each log factor's max)
    reach = layout.group(reach & np.isfinite(shift), 1, np.logical_and)
    ok = reach.all(axis=1)
    out = np.where(reach, np.nan, np.inf)
    if not ok.any():
        return out
    Z, shift = Z[ok], shift[ok]
    if orders is None:
        values = _exact_values(layout, Z, shift)
    else:
        values = _sampled_values(layout, Z, shift, orders)
    out[ok] = values - (layout.group(shift, 1) + layout.log_c)
    return out


def _log_factors(layout: _Layout, Z: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """log K_h(z_j - X_ij) per feature, up to its constant, minus ``shift``: (m, S, L, d)."""
    A = np.subtract(Z[:, None, None, :], layout.X)
    A *= A
    A *= -0.5 / (layout.h * layout.h)
    A -= shift[:, None, None, :]
    return A


def _exact_values(layout: _Layout, Z: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Shapley values of v(T) = -log median_s sum_i w_i prod_{j in T} E_ij for every row,
    E_ij the shifted factors (``layout.mean_log``: -(1/S) sum_s log of the block sums), from
    all 2^d subsets (bit j of a subset's index: feature j)."""
    m, d = len(Z), layout.d
    V = np.empty((m, 2**d))  # (NaN where untrusted: redone in log space below)

    def run(rows: np.ndarray) -> None:
        for chunk in _factor_chunks(layout, rows):
            E = layout.group(_shifted_factors(layout, Z[chunk], shift[chunk]), 2, np.multiply)
            part = np.empty((len(chunk), 2**d))
            if layout.mean_log:
                _mean_log_subset_sums(E, layout.w, (d + 1) // 2, part)
                V[chunk] = part
            else:
                _median_subset_sums(E, layout.w, (d + 1) // 2, part)
                with np.errstate(divide="ignore"):
                    V[chunk] = np.where(part >= SAFE_LINEAR, -np.log(part), np.nan)

    map_on_pool(run, np.array_split(np.arange(m), min(m, n_threads())))
    for q, subsets in _untrusted(V):
        A = layout.group(_log_factors(layout, Z[q : q + 1], shift[q : q + 1])[0], -1)
        V[q, subsets] = -_log_combined(layout, A, _masks(subsets, d))
    return V @ _shapley_weights(d)


def _factor_chunks(layout: _Layout, rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` in chunks whose factors (:func:`_shifted_factors`) hold at most
    :data:`FACTOR_VALUES` values."""
    per_row = layout.XT.size
    return np.array_split(rows, max(1, -(-len(rows) * per_row // FACTOR_VALUES)))


def _shifted_factors(layout: _Layout, Z: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """E[q, s, j, i] = exp(-(z_qj - X_sij)^2 / (2 h^2) - shift_qj): each feature's kernel
    factor between row q and fitted row i of block s, shifted so that each feature's largest
    is 1; shape (m, S, d, L), the fitted rows last (numpy's vectorised exp)."""
    E = np.subtract(Z[:, None, :, None], layout.XT)
    E *= E
    E *= -0.5 / (layout.h * layout.h)
    E -= shift[:, None, :, None]
    return np.exp(E, out=E)


def _nearest(Z: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """min over the fitted rows of (Z_qj - X_ij)^2, per row q and feature j: (m, d), from
    each feature's sorted fitted values (``columns``, shape (d, n)): the nearest value is
    one of the two around z_qj's place among them."""
    out = np.empty(Z.shape)
    last = columns.shape[1] - 1
    for j, column in enumerate(columns):
        place = np.searchsorted(column, Z[:, j])
        below = Z[:, j] - column[np.maximum(place - 1, 0)]
        above = Z[:, j] - column[np.minimum(place, last)]
        out[:, j] = np.minimum(below * below, above * above)
    return out


@njit(cache=True, nogil=True)
def _row_subset_sums(
    E: np.ndarray, w: np.ndarray, q: int, d1: int, P1: np.ndarray, P2: np.ndarray, sums
) -> None:  # pragma: no cover (compiled)
    """sums[s, T] = sum_i w_si prod_{j in T} E[q, s, j, i] for every block s and subset T
    (bit j: feature j). Each block's 2^d sums are one matrix product: the products over the
    subsets of the first d1 features (times w) by those of the others, each built by
    doubling along the rows (P1, P2: work arrays of 2^d1 and 2^(d - d1) rows)."""
    S, d, L = E.shape[1], E.shape[2], E.shape[3]
    for s in range(S):
        for i in range(L):
            P1[0, i] = w[s, i]
            P2[0, i] = 1.0
        size = 1
        for j in range(d1):
            for t in range(size):
                for i in range(L):
                    P1[size + t, i] = P1[t, i] * E[q, s, j, i]
            size *= 2
        size = 1
        for j in range(d1, d):
            for t in range(size):
                for i in range(L):
                    P2[size + t, i] = P2[t, i] * E[q, s, j, i]
            size *= 2
        np.dot(P2, P1.T, sums[s].reshape((P2.shape[0], P1.shape[0])))  # (into sums: no copy)


@njit(cache=True, nogil=True)
def _minus_mean_log(values: np.ndarray) -> float:  # pragma: no cover (compiled)
    """-(1/S) sum_s log values[s] for values in [0, 1], NaN if one is below SAFE_LINEAR
    (the caller redoes it in log space). A product carried in linear space, its log taken
    when it nears underflow: a log or two per call, not S."""
    total, product = 0.0, 1.0
    for v in values:
        if v < 1e-100:
            if v < SAFE_LINEAR:
                return np.nan
            total += np.log(v)
        else:
            product *= v  # (>= 1e-200 x 1e-100: no underflow)
            if product < 1e-200:
                total += np.log(product)
                product = 1.0
    return -(total + np.log(product)) / len(values)


@njit(cache=True, nogil=True)
def _mean_log_subset_sums(
    E: np.ndarray, w: np.ndarray, d1: int, out: np.ndarray
) -> None:  # pragma: no cover (compiled)
    """out[q, T] = -(1/S) sum_s log sum_i w_si prod_{j in T} E[q, s, j, i] for every subset
    T (:func:`_minus_mean_log` of the block sums of :func:`_row_subset_sums`)."""
    m, S, d, L = E.shape
    P1 = np.empty((1 << d1, L))
    P2 = np.empty((1 << (d - d1), L))
    sums = np.empty((S, 1 << d))
    column = np.empty(S)
    for q in range(m):
        _row_subset_sums(E, w, q, d1, P1, P2, sums)
        for t in range(1 << d):
            for s in range(S):
                column[s] = sums[s, t]
            out[q, t] = _minus_mean_log(column)


@njit(cache=True, nogil=True)
def _median_subset_sums(
    E: np.ndarray, w: np.ndarray, d1: int, out: np.ndarray
) -> None:  # pragma: no cover (compiled)
    """out[q, T] = median_s sum_i w_si prod_{j in T} E[q, s, j, i] for every subset T (bit
    j: feature j), as numpy's median (the mean of the two middle values for an even count);
    the block sums from :func:`_row_subset_sums`."""
    m, S, d, L = E.shape
    k1, k2 = 1 << d1, 1 << (d - d1)
    K = k1 * k2
    P1 = np.empty((k1, L))
    P2 = np.empty((k2, L))
    sums = np.empty((S, K))
    low = np.empty(((S + 2) // 2, K))  # the smallest hi + 1 sums of each subset, sorted
    carry = np.empty(K)
    lo, hi = (S - 1) // 2, S // 2
    for q in range(m):
        _row_subset_sums(E, w, q, d1, P1, P2, sums)
        # the median of each column of sums: an insertion of each block's row into the
        # sorted smallest hi + 1 rows (the larger value carried on, the last dropped),
        # branch-free along the subsets
        for s in range(S):
            for t in range(K):
                carry[t] = sums[s, t]
            for r in range(min(s, hi + 1)):
                for t in range(K):
                    a, c = low[r, t], carry[t]
                    low[r, t] = a if a < c else c
                    carry[t] = c if a < c else a
            if s <= hi:
                for t in range(K):
                    low[s, t] = carry[t]
        for t in range(K):
            out[q, t] = low[lo, t] if lo == hi else (low[lo, t] + low[hi, t]) / 2.0


def _sampled_values(
    layout: _Layout, Z: np.ndarray, shift: np.ndarray, orders: np.ndarray
) -> np.ndarray:
    """Mean over ``orders`` of each feature's increase of v when it joins the features
    before it (v as in :func:`_exact_values`)."""
    m, d = len(Z), layout.d
    V = np.empty((m, len(orders), d + 1))

    def run(rows: np.ndarray) -> None:
        for chunk in _factor_chunks(layout, rows):
            E = layout.group(_shifted_factors(layout, Z[chunk], shift[chunk]), 2, np.multiply)
            part = np.empty((len(chunk), len(orders), d + 1))
            _prefix_values(E, layout.w, orders, layout.mean_log, part)
            V[chunk] = part

    map_on_pool(run, np.array_split(np.arange(m), min(m, n_threads())))
    for q, t, k in zip(*np.nonzero(np.isnan(V)), strict=True):
        mask = np.zeros((1, d), dtype=bool)
        mask[0, orders[t, :k]] = True
        A = layout.group(_log_factors(layout, Z[q : q + 1], shift[q : q + 1])[0], -1)
        V[q, t, k] = -_log_combined(layout, A, mask)[0]
    phi = np.zeros((m, d))
    for t, order in enumerate(orders):
        phi[:, order] += np.diff(V[:, t], axis=1)
    return phi / len(orders)


@njit(cache=True, nogil=True)
def _prefix_values(
    E: np.ndarray, w: np.ndarray, orders: np.ndarray, mean_log: bool, out: np.ndarray
) -> None:  # pragma: no cover (compiled)
    """out[q, t, k] = v of the first k features of orders[t]: -log median_s sum_i w_si
    prod_{j in them} E[q, s, j, i] (numpy's median), or with ``mean_log`` -(1/S) sum_s log
    of those block sums; NaN where a value below SAFE_LINEAR makes the log untrusted (the
    caller redoes it in log space). The block sums of each order's prefixes, one factor at
    a time."""
    m, S, d, L = E.shape
    P = np.empty((S, L))
    column = np.empty(S)
    lo, hi = (S - 1) // 2, S // 2
    for q in range(m):
        for t in range(orders.shape[0]):
            P[:] = w
            for k in range(d + 1):
                if k > 0:
                    j = orders[t, k - 1]
                    for s in range(S):
                        for i in range(L):
                            P[s, i] *= E[q, s, j, i]
                for s in range(S):  # (insertion sort of the block sums: S is small)
                    v = P[s].sum()
                    r = s
                    while r > 0 and column[r - 1] > v:
                        column[r] = column[r - 1]
                        r -= 1
                    column[r] = v
                if mean_log:
                    out[q, t, k] = _minus_mean_log(column)
                else:
                    value = column[lo] if lo == hi else (column[lo] + column[hi]) / 2.0
                    out[q, t, k] = -np.log(value) if value >= SAFE_LINEAR else np.nan


def _untrusted(V: np.ndarray):
    """(row, subsets) whose value is NaN: a value that was combined (the median, or a block
    sum for the mean of logs) is below SAFE_LINEAR, where flushed terms may matter."""
    bad = np.isnan(V)
    for q in np.flatnonzero(bad.any(axis=1)):
        yield q, np.flatnonzero(bad[q])


def _masks(subsets: np.ndarray, d: int) -> np.ndarray:
    """The feature masks (k, d) of subsets given by their bit indices."""
    return (subsets[:, None] >> np.arange(d)) & 1 == 1


def _log_combined(layout: _Layout, A: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """log median_s sum_i w_i exp(sum_{j in S} A_ij) for each subset mask (k, d), or with
    ``layout.mean_log`` the mean over s of those logs, in log space (no underflow); A: one
    row's shifted log factors, shape (S, L, d)."""
    G = np.where(masks[None, None], A[:, :, None, :], 0.0).sum(axis=-1)  # (S, L, k)
    logs = logsumexp(G + layout.log_w[:, :, None], axis=1)  # (S, k)
    if layout.mean_log:
        return logs.mean(axis=0)
    return median(logs, axis=0, log=True) if layout.n_blocks > 1 else logs[0]


def _shapley_weights(d: int) -> np.ndarray:
    """C of shape (2^d, d) with phi = v @ C: C[S, j] = (|S|-1)! (d-|S|)! / d! when j is in S,
    -|S|! (d-|S|-1)! / d! when it is not."""
    subsets = np.arange(2**d)
    inside = _masks(subsets, d)
    size = inside.sum(axis=1)
    join = np.array(
        [factorial(k - 1) * factorial(d - k) / factorial(d) if k else 0.0 for k in range(d + 1)]
    )
    stay = np.array(
        [
            -factorial(k) * factorial(d - k - 1) / factorial(d) if k < d else 0.0
            for k in range(d + 1)
        ]
    )
    return np.where(inside, join[size][:, None], stay[size][:, None])


def _orders(d: int, n: int, random_state) -> np.ndarray:
    """n orders of the d features: ceil(n / 2) drawn with ``random_state``, each followed
    by its reverse (antithetic pairs), the first n kept."""
    rng = check_random_state(random_state)
    drawn = np.array([rng.permutation(d) for _ in range((n + 1) // 2)])
    return np.stack([drawn, drawn[:, ::-1]], axis=1).reshape(-1, d)[:n]


def most_blamed(
    contributions: ArrayLike, feature_names: ArrayLike, top: int = 1
) -> dict[str, np.ndarray]:
    """Each row's ``top`` most-blamed features and their contributions, as named columns.

    The columns ``momkde score --explain`` writes and the app's download carries, from the
    output of :meth:`OutlierDetector.explain`.

    Parameters
    ----------
    contributions : array-like of shape (n, d)
        Each row's contributions (nats), as :meth:`OutlierDetector.explain` returns them.
    feature_names : array-like of shape (d,)
        The features' names, in the columns' order.
    top : int, default 1
        How many features to name per row, from the most blamed; at most d.

    Returns
    -------
    columns : dict of str to ndarray of shape (n,)
        ``blame_1``, ``blame_1_nats``, ..., ``blame_<top>``, ``blame_<top>_nats``, in that
        order: the k-th largest contribution's feature name (text) and its value. A row
        beyond every kernel's reach has +inf on the features out of reach (named first) and
        NaN on the others: a NaN contribution comes last and is left unnamed ("").

    Raises
    ------
    ValueError
        ``contributions`` not 2-D, names not one per feature, or ``top`` not in 1 .. d.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.detector import most_blamed
    >>> columns = most_blamed(np.array([[0.5, 7.0, -0.2]]), ["a", "b", "c"], top=2)
    >>> list(columns)
    ['blame_1', 'blame_1_nats', 'blame_2', 'blame_2_nats']
    >>> columns["blame_1"][0], float(columns["blame_1_nats"][0])
    ('b', 7.0)
    """
    values = np.asarray(contributions, dtype=float)
    names = np.array([str(name) for name in np.asarray(feature_names, dtype=object)], dtype=object)
    if values.ndim != 2 or names.shape != values.shape[1:]:
        raise ValueError(
            f"contributions must be of shape (n, d) with one name per feature; got shape "
            f"{values.shape} and {names.size} name(s)"
        )
    if not isinstance(top, Integral) or isinstance(top, bool) or not 1 <= top <= values.shape[1]:
        raise ValueError(f"top must be an integer from 1 to {values.shape[1]}, got {top!r}")
    order = np.argsort(-values, axis=1, kind="stable")[:, :top]  # (NaN last)
    columns = {}
    for k in range(top):
        value = np.take_along_axis(values, order[:, k : k + 1], 1)[:, 0]
        columns[f"blame_{k + 1}"] = np.where(np.isnan(value), "", names[order[:, k]])
        columns[f"blame_{k + 1}_nats"] = value
    return columns
