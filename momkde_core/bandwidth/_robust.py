"""S and h for MoM-KDE from the share of outliers the user expects: no labels, no true density.

Why (measured in ``docs/reproduction.md``, "Choosing S and h without an oracle"): with the
bandwidth of plain cross-validation, a spike of outliers captures h (CV shrinks it to fit the
spike), every block KDE is then spiky and the median cannot help; with a fixed S the blocks
are either too few to outvote the outliers or so small that the median shatters the modes.

The rule, given the expected contamination eps:

* **S** = 2 ceil(eps n) + 1 (:func:`n_blocks_for`): the fewest blocks for which the outliers,
  even one per block, hold fewer than half of them (the paper's condition S > 2|O|).
  eps = 0 gives S = 1, the KDE.
* **h** (:func:`robust_bandwidth`, the bandwidth rule ``"robust"``): the candidate that
  maximises the *leave-own-block-out* likelihood of MoM-KDE with those S blocks, trimmed of
  the eps share of lowest scores. Each point is scored by the median, over the S - 1 blocks
  that do not hold it, of the block KDEs at that point, divided by the integral of the full
  median (:func:`leave_own_block_out_scores`). A spike of outliers cannot capture h through
  that score: a spike point's own block is left out and the other blocks holding outliers
  are a minority, so the median at the spike is the inliers' density there, which a small h
  does not raise; uniform outliers (scored low at any h) are the trimmed share.
  With S = 1 the score is the leave-one-out KDE, i.e. likelihood cross-validation.

Only the block size n / S matters for h, so beyond ``max_samples`` points h is chosen on a
random subsample with the same block size.

``contamination="auto"`` (:func:`estimate_contamination`) is a research option, never a
default: it counts the points that a robust pilot explains much worse than the KDE does, and
so it also counts a true minor mode (below ~25 % of the mass) as contamination.
"""

from __future__ import annotations

import math
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state

from .._blocks import block_labels, block_order, importance_price, log_integral, median_of_blocks
from .._columns import per_column
from .._config import n_threads, with_callers_config
from .._engine import CACHE_CHUNK_ELEMENTS, LOG_SAFE_LINEAR, median, slot_layout
from .._validation import Rule, is_auto, is_number
from ..kernels import Kernel, exp_in_place

CANDIDATE_SPAN = (0.05, 2.0)  # candidates from 0.05 to 2 times Scott's rule (log-spaced)
COARSE_CANDIDATES = 10
MAX_SAMPLES = 2000  # h is chosen on at most this many points (the block size is kept)
MAX_CONTAMINATION = 0.5  # exclusive: at 1/2 no median can tell the outliers from the inliers
PILOT_CONTAMINATION = 0.2  # the share assumed by the pilot of "auto"
FLAG_RATIO = 0.3  # "auto" flags a point whose robust density is below 0.3 x its KDE density
# importance-sampling draws of the median's integral per candidate, where no grid is used:
# d > 2, a grid too large (normalize.GRID_MAX_POINTS, MAX_BLOCK_CELLS) or too dear (below)
SELECTION_DRAWS = 1024
SELECTION_GRID_PRICE = 4.0  # a candidate's grid may cost up to 4 of those samplings
CHUNK_ROWS_ELEMENTS = 2 * CACHE_CHUNK_ELEMENTS  # kernel values per row chunk (1 MiB)


def _is_share(value) -> bool:
    """A number in [0, MAX_CONTAMINATION), not a bool."""
    return is_number(value) and 0.0 <= value < MAX_CONTAMINATION


def _contamination_rule(allow_auto: bool) -> Rule:
    allowed = "a number in [0, 0.5)" + (" or 'auto'" if allow_auto else "")
    return Rule(
        lambda value, _: (allow_auto and is_auto(value)) or _is_share(value),
        f"contamination must be {allowed} (the expected share of outliers; at one half no "
        "median can tell the outliers from the inliers), got {value!r}",
    )


#: The ``contamination`` parameter's constraint (estimators' tables): a share or "auto".
CONTAMINATION = _contamination_rule(allow_auto=True)
_STATED_CONTAMINATION = _contamination_rule(allow_auto=False)


def check_contamination(contamination, allow_auto: bool = True) -> None:
    """Check the ``contamination`` parameter (internal).

    Raises InvalidParameterError (a ValueError and a TypeError) unless ``contamination`` is
    a number in [0, 0.5) (or "auto" if allowed); booleans are refused.
    """
    (CONTAMINATION if allow_auto else _STATED_CONTAMINATION).check(contamination, {})


def n_blocks_for(n: int, contamination: float) -> int:
    """MoM-KDE's number of blocks S for n points and an expected share of outliers eps.

    ``S = 2 ceil(eps n) + 1``, capped at n: more blocks than twice the expected outliers,
    the fewest for which the outliers, even one per block, hold fewer than half of them
    (the paper's condition S > 2|O|). eps = 0 gives S = 1, the KDE.

    Parameters
    ----------
    n : int
        The number of points.
    contamination : float
        The expected share of outliers eps, in [0, 0.5).

    Returns
    -------
    S : int
        The number of blocks, in [1, n].

    See Also
    --------
    robust_bandwidth : The bandwidth for those blocks.

    Notes
    -----
    The ceiling is taken with a tolerance of 1e-9, so that a product eps n that is an
    integer up to rounding (0.3 x 10 = 3.0000000000000004) counts as that integer.

    Examples
    --------
    >>> from momkde_core.bandwidth import n_blocks_for
    >>> n_blocks_for(1000, 0.1)
    201
    >>> n_blocks_for(1000, 0.0)
    1
    >>> n_blocks_for(10, 0.3)
    7
    >>> n_blocks_for(5, 0.4)  # capped at n
    5
    """
    return int(min(n, 2 * math.ceil(contamination * n - 1e-9) + 1))


def leave_own_block_out_scores(
    X: np.ndarray,
    n_blocks: int,
    h: float,
    kernel: Kernel,
    random_state: int,
    by_block: BlockDistances | None = None,
) -> np.ndarray:
    """The leave-own-block-out log density of MoM-KDE at each point of X.

    Per point, the log of the median, over the S - 1 blocks that do not hold it, of the
    block KDEs at the point, minus the log integral of the full median (so scores for
    different h compare as log densities). With S = 1 it is the leave-one-out KDE.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    n_blocks : int
        The number of blocks S; the blocks are those of
        ``MoMKDE(n_blocks, h, random_state=random_state)``.
    h : float
        The bandwidth.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    random_state : int
        The seed of the blocks (and of the importance sampling of the median's integral,
        where no grid is used).
    by_block : BlockDistances, optional
        X's squared distances regrouped by those blocks (:class:`BlockDistances` of the same
        X, n_blocks and random_state), passed to reuse them across bandwidths (the
        sample is at most ``MAX_SAMPLES`` = 2000 points in :func:`robust_bandwidth`).

    Returns
    -------
    scores : ndarray of shape (n,)
        The log densities (-inf where the median over the other blocks is 0).

    Raises
    ------
    ValueError
        When the median of the block KDEs is 0 everywhere (h too small for the blocks), or
        ``by_block`` was built for another X or S.

    See Also
    --------
    robust_bandwidth : The bandwidth that maximises the trimmed mean of these scores.

    Notes
    -----
    A spike of outliers cannot capture h through this score: a spike point's own block is
    left out and the other blocks holding outliers are a minority, so the median at the
    spike is the inliers' density there, which a small h does not raise.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import leave_own_block_out_scores
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> scores = leave_own_block_out_scores(X, 5, 0.4, get_kernel("gaussian"), 0)
    >>> scores.shape, bool(np.isfinite(scores).all())
    ((200,), True)

    With one block, the leave-one-out KDE:

    >>> loo = leave_own_block_out_scores(X, 1, 0.4, get_kernel("gaussian"), 0)
    >>> K = norm.pdf((X - X.T) / 0.4) / 0.4
    >>> bool(np.allclose(loo, np.log((K.sum(axis=1) - K[0, 0]) / 199)))
    True
    """
    n, d = X.shape
    if by_block is None:
        by_block = BlockDistances(X, n_blocks, random_state)
    elif len(by_block.block_of) != n or len(by_block.sizes) != n_blocks:
        raise ValueError(
            f"by_block holds {len(by_block.block_of)} points in "
            f"{len(by_block.sizes)} blocks, not {n} in {n_blocks}"
        )
    if n_blocks == 1:
        with np.errstate(divide="ignore"):
            return by_block.log_sums(h, kernel, d)[:, 0] - np.log(n - 1.0)
    fitted = median_of_blocks(X, n_blocks, h, kernel, random_state)
    log_norm = log_integral(
        fitted,
        np.random.default_rng(random_state),
        n_draws=SELECTION_DRAWS,
        grid_budget=SELECTION_GRID_PRICE * importance_price(n, SELECTION_DRAWS),
    )
    if not LOG_SAFE_LINEAR <= log_norm < np.inf:
        raise ValueError("the median of the block KDEs is 0 everywhere")
    logs = by_block.log_sums(h, kernel, d)
    with np.errstate(divide="ignore"):
        logs -= np.log(by_block.sizes)
    logs[np.arange(n), by_block.block_of] = np.inf  # the own block sorts last, out of the median
    return median(logs, axis=1, log=True, count=n_blocks - 1) - log_norm


class BlockDistances:
    """The squared distances of X to itself, columns regrouped by MoM-KDE's blocks (internal).

    The blocks are those of ``MoMKDE(n_blocks, random_state=random_state)``; built once per
    bandwidth search and reused by every candidate h. Column ``k * S + s`` holds the k-th
    point of block s (+inf where block s has fewer points, and at each point's own column: a
    point never scores itself), so that the per-block sums of a row are a sum over k of
    contiguous slices (``log_sums``).
    """

    def __init__(self, X: np.ndarray, n_blocks: int, random_state: int):
        n = len(X)
        self.block_of = block_labels(*block_order(n, n_blocks, random_state))
        self.sizes = np.bincount(self.block_of, minlength=n_blocks)
        order = np.argsort(self.block_of, kind="stable")
        starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        rows, padding = slot_layout(starts, self.sizes)
        self.slots = rows.shape[0]
        flat, padding = order[rows.ravel()], padding.ravel()
        # (computed in the slot layout directly: no n x n matrix to regroup; clipped at 0 in
        # place: a second matrix of that size would cost its page faults)
        self.sq = euclidean_distances(X, X[flat], squared=True)
        np.maximum(self.sq, 0.0, out=self.sq)
        self.sq[:, padding] = np.inf
        own = np.empty(n, dtype=np.intp)
        own[flat[~padding]] = np.flatnonzero(~padding)
        self.sq[np.arange(n), own] = np.inf

    def log_sums(self, h: float, kernel: Kernel, d: int) -> np.ndarray:
        """log of sum_{j in block s, j != i} K_h(X_i - X_j) for each point i and block s,
        shape (n, S); -inf where every term is 0.

        In row chunks of about CHUNK_ROWS_ELEMENTS entries (one reused buffer): each
        chunk's kernel logs are shifted by their row maximum (the nearest other point: no
        underflow to 0), exponentiated (:func:`momkde_core.kernels.exp_in_place`) and
        summed over slots in cache; n x n temporaries would cost more in memory traffic
        and page faults than in arithmetic.
        """
        n, width = self.sq.shape
        n_blocks = width // self.slots
        out = np.empty((n, n_blocks))
        step = max(1, CHUNK_ROWS_ELEMENTS // width)
        buffer = np.empty((min(step, n), width))
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            with np.errstate(invalid="ignore"):  # (inf x 0: the NaN handled below)
                log_k = kernel.log_kernel_sq(self.sq[r0:r1], h, d, out=buffer[: r1 - r0])
            shift = log_k.max(axis=1, keepdims=True)
            if np.isnan(shift).any():  # h beyond ~1e154: h^2 overflows, inf x 0 is NaN
                log_k[np.isinf(self.sq[r0:r1])] = -np.inf
                shift = log_k.max(axis=1, keepdims=True)
            shift[~np.isfinite(shift)] = 0.0
            log_k -= shift
            exp_in_place(log_k)
            with np.errstate(divide="ignore"):
                out[r0:r1] = np.log(log_k.reshape(r1 - r0, self.slots, n_blocks).sum(axis=1))
            out[r0:r1] += shift
        return out


def _subsample(X: np.ndarray, n_blocks: int, max_samples: int, rng) -> tuple[np.ndarray, int]:
    """At most ``max_samples`` rows of X, with S scaled so that the block size is kept."""
    n = len(X)
    if n <= max_samples:
        return X, n_blocks
    rows = rng.choice(n, max_samples, replace=False)
    return X[rows], max(1, int(round(n_blocks * max_samples / n)))


def robust_bandwidth(
    X: np.ndarray,
    n_blocks: int,
    contamination: float,
    kernel: Kernel,
    base: float,
    random_state: int | np.random.RandomState | None = None,
    max_samples: int = MAX_SAMPLES,
) -> float:
    """The "robust" bandwidth: the best trimmed leave-own-block-out likelihood of MoM-KDE.

    The candidate that maximises the mean of :func:`leave_own_block_out_scores` with
    ``n_blocks`` blocks, trimmed of the ``contamination`` share of lowest scores, searched
    from 0.05 to 2 times ``base``. A spike of outliers cannot capture h through that score
    (with the bandwidth of plain cross-validation it does: CV shrinks h to fit the spike),
    and uniform outliers (scored low at any h) are the trimmed share.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    n_blocks : int
        The number of blocks S (:func:`n_blocks_for`); S = 1 makes the score the
        leave-one-out KDE, i.e. likelihood cross-validation.
    contamination : float
        The expected share of outliers: the lowest ``floor(contamination x n)`` scores are
        left out of the mean.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    base : float
        The reference bandwidth, Scott's rule for X (:func:`scott`).
    random_state : int, RandomState or None, default None
        The blocks and the subsample.
    max_samples : int, default 2000
        Only the block size n / S matters for h, so beyond ``max_samples`` points h is
        chosen on a random subsample of that many points with the same block size (S scaled
        to match).

    Returns
    -------
    h : float
        The bandwidth.

    Raises
    ------
    ValueError
        When no candidate gives a median of the block KDEs that is a density (too many
        blocks for any h tried).

    See Also
    --------
    n_blocks_for : S from the expected share of outliers.
    select_bandwidth : ``bandwidth="robust"``, in a frame safe at any magnitude.

    Notes
    -----
    Coarse to fine: 10 log-spaced candidates (ratio about 1.5 apart), then two more on each
    side of the best (ratio about 1.146 apart, the cube root of the coarse one): 14
    evaluations, finer than 20 evenly log-spaced ones. When every coarse candidate scores
    -inf (compact kernels with small blocks), the search continues above the span
    (:func:`_widen`). The candidates are scored on ``n_threads()`` threads
    (:func:`momkde_core.config_context`); the result does not depend on the threads.

    Examples
    --------
    A spike of outliers (10 % of the points at 5) captures the cross-validated bandwidth,
    not the robust one:

    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import cv_bandwidth, n_blocks_for, robust_bandwidth, scott
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, 180), rng.normal(5, 0.01, 20)].reshape(-1, 1)
    >>> kernel = get_kernel("gaussian")
    >>> S = n_blocks_for(len(X), 0.1)
    >>> S
    41
    >>> h = robust_bandwidth(X, S, 0.1, kernel, scott(X), random_state=0)
    >>> bool(h > 4 * cv_bandwidth(X, kernel, scott(X)))
    True
    """
    rng = check_random_state(random_state)
    seed = rng.randint(2**31)
    Xs, S = _subsample(X, n_blocks, max_samples, rng)
    keep_from = int(math.floor(contamination * len(Xs)))
    by_block = BlockDistances(Xs, S, seed)
    scores: dict[float, float] = {}

    def score(factor: float) -> float:
        try:
            values = leave_own_block_out_scores(
                Xs, S, float(base * factor), kernel, seed, by_block=by_block
            )
        except ValueError:  # the median vanishes everywhere: too many blocks for this h
            return -np.inf
        return float(np.mean(np.sort(values)[keep_from:]))

    def evaluate(*factors: float) -> None:
        """Score the candidates, on ``n_threads()`` threads (:func:`momkde_core.config_context`),
        each with the caller's settings.

        Each candidate's work is numpy, BLAS and compiled loops that release the GIL; its
        result does not depend on the threads, as the order of the scores does not.
        """
        if len(factors) == 1:
            scores[factors[0]] = score(factors[0])
            return
        # the tiny-blocks warning of each candidate's fit is silenced here, in this thread:
        # the filters are process-wide and catch_warnings is not thread-safe, so the
        # workers' own (nested) silencing may restore a state without it, never this one
        with warnings.catch_warnings(), ThreadPoolExecutor(n_threads()) as pool:
            warnings.simplefilter("ignore", UserWarning)
            scores.update(zip(factors, pool.map(with_callers_config(score), factors)))

    coarse = np.geomspace(*CANDIDATE_SPAN, COARSE_CANDIDATES)
    evaluate(*coarse)
    best = max(scores, key=scores.get)  # (the first of equal scores: coarse order)
    if not np.isfinite(scores[best]):
        best = _widen(evaluate, scores, coarse, float(per_column(np.ptp, Xs).max()) / base)
    step = (coarse[1] / coarse[0]) ** (1.0 / 3.0)
    evaluate(*(best * step**k for k in (-2, -1, 1, 2)))
    best = max(scores, key=scores.get)
    if not np.isfinite(scores[best]):
        raise ValueError(
            f"bandwidth='robust' found no bandwidth for which the median of the "
            f"{S} block KDEs is a density; use fewer blocks (a smaller "
            "contamination) or a numeric bandwidth"
        )
    return float(base * best)


def _widen(evaluate, scores: dict, coarse: np.ndarray, max_factor: float) -> float:
    """The best factor above the coarse span, when every coarse candidate scored -inf.

    That happens with kernels of compact support (epanechnikov, tophat) and the small
    blocks of S = 2 ceil(eps n) + 1: within 2 Scott bandwidths, more than the trimmed share
    of points have fewer than half of the other blocks within the kernel's reach, so the
    median of the block KDEs is exactly 0 there. The search goes on upwards by the coarse
    ratio until a candidate scores a finite value, then while the score improves (at most
    to the data's span): the best of those. Searches where some coarse candidate is finite
    (every Gaussian one measured) are left as they were.
    """
    ratio = coarse[1] / coarse[0]
    factor = coarse[-1]
    while factor < max_factor:
        factor *= ratio
        evaluate(factor)
        if np.isfinite(scores[factor]):
            break
    while np.isfinite(scores[factor]) and factor < max_factor:
        evaluate(factor * ratio)
        if scores[factor * ratio] <= scores[factor]:
            break
        factor *= ratio
    return max(scores, key=scores.get)


def estimate_contamination(
    X: np.ndarray,
    kernel: Kernel,
    base: float,
    random_state: int | np.random.RandomState | None = None,
    max_samples: int = MAX_SAMPLES,
) -> float:
    """A label-free guess of the share of outliers: ``contamination="auto"``.

    A research option, never a default: it counts the points that a robust pilot explains
    much worse than the KDE does, and so it also counts a true minor mode as contamination.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The data.
    kernel : Kernel
        The kernel (:func:`momkde_core.get_kernel`).
    base : float
        The reference bandwidth of the pilot's search, Scott's rule for X (:func:`scott`).
    random_state : int, RandomState or None, default None
        The subsample, the blocks and the pilot's search.
    max_samples : int, default 2000
        Beyond this many points, the share is estimated on a random subsample of that size.

    Returns
    -------
    contamination : float
        The share of points flagged, in [0, 0.5).

    See Also
    --------
    robust_bandwidth : The pilot's bandwidth.

    Notes
    -----
    Pilot: MoM-KDE with S and h chosen for a contamination of 0.2 (:func:`n_blocks_for`,
    :func:`robust_bandwidth`). A point is flagged when its leave-own-block-out density under
    the pilot is below 0.3 times its leave-one-out KDE density with the same h: the KDE
    explains it by points that the median treats as a minority (a spike, or isolated
    points). Known failure modes (measured in ``docs/reproduction.md``): a true minor mode
    holding less than ~25 % of the mass, and the tail of a skewed density, are counted as
    outliers.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import get_kernel
    >>> from momkde_core.bandwidth import estimate_contamination, scott
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, 180), rng.normal(5, 0.01, 20)].reshape(-1, 1)
    >>> eps = estimate_contamination(X, get_kernel("gaussian"), scott(X), random_state=0)
    >>> bool(0.0 <= eps < 0.5)
    True
    """
    rng = check_random_state(random_state)
    seed = rng.randint(2**31)
    Xs, _ = _subsample(X, 1, max_samples, rng)
    S = n_blocks_for(len(Xs), PILOT_CONTAMINATION)
    h = robust_bandwidth(Xs, S, PILOT_CONTAMINATION, kernel, base, random_state=seed)
    robust = leave_own_block_out_scores(Xs, S, h, kernel, seed)
    plain = leave_own_block_out_scores(Xs, 1, h, kernel, seed)
    share = float(np.mean(robust < np.log(FLAG_RATIO) + plain))
    return min(share, np.nextafter(MAX_CONTAMINATION, 0.0))
