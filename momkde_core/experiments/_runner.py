"""The paper's experiments (section 5): sweeps of schemes or data sets x ratios x repetitions x
methods, with MoM-KDE's number of blocks S chosen by an oracle or by a rule, as a tidy table.

One *task* is one contaminated sample (a source, a ratio, a repetition). Its ``seed`` is
derived with :class:`numpy.random.SeedSequence` from the master seed and the task's identity
(source name, ratio, repetition), so the same task gets the same seed whatever else is in the
sweep, and the seed alone regenerates the sample (:func:`regenerate_sample`) and every random
choice made on it (CV folds, block shuffles, the split of the S rule). Tasks run in parallel
with joblib, locally or on a Dask cluster, and give the same table either way.

Protocols
---------
``"paper"`` (what the paper and the authors' code did; it uses knowledge a user lacks):
    the bandwidth is cross-validated on the clean inliers only, and SPKDE is given the true
    contamination ratio.
``"honest"`` (default; what a user can do): the bandwidth is cross-validated on the
    contaminated sample, and the methods that ask for the expected share of outliers (SPKDE
    and the robust defaults below) are given ``contamination``: a stated guess (default 0.2,
    the middle of the swept range 0.05 .. 0.5), or ``None`` for the true ratio (what a user
    who knows the share would state; still no labels and no true density).

In both protocols one bandwidth h (one CV per sample) is shared by all methods but those that
choose their own (``*_auto*`` and ``kde_robust``), and both older rules for S are reported:
``mom_kde`` (the label-free rule below) and ``mom_kde_oracle``.

Robust defaults (:mod:`momkde_core.bandwidth._robust`; methods :data:`AUTO_METHODS`)
----------------------------------------------------------------------------------
``mom_kde_auto`` is ``MoMKDE(n_blocks="auto", bandwidth="robust", contamination=c)``: S =
2 ceil(c n) + 1 and the trimmed leave-own-block-out bandwidth. To separate the two levers, the
same S is also run with the shared CV h (``mom_kde_auto_cv``), Scott's h
(``mom_kde_auto_scott``) and the block-aware h_S (``mom_kde_auto_blockh``); ``kde_robust`` is the
plain KDE with the robust h, and ``mom_kde_auto_est`` is ``contamination="auto"`` (estimated).

Screen, then refit (``screened_kde``): :class:`~momkde_core.ScreenedKDE` with the stated
``contamination`` and its own CV bandwidth on the rows its MoM-KDE screen keeps.

Clean densities (kind ``"clean"``): :data:`~momkde_core.synthetic.CLEAN_DENSITIES`, no
outliers (ratio 0), with ``contamination`` stated as :data:`CLEAN_CONTAMINATION` (0.01): what a
robust default costs where there is nothing to resist.

Choosing S
----------
Oracle (the paper's): S in ``oracle_grid(|O|, n)``, 20 values on a regular grid from 1 to
2|O| + 1 (capped at n), keeping the lowest JS divergence to the true density. Real data have no
true density: there the oracle keeps the best AUC (it reads the labels).

Rule (:func:`select_n_blocks`, "held-out median likelihood"): split the sample in two halves A
and B at random, fit MoM-KDE on A for each S in a geometric grid from 1 to |A| / 2, and keep the
S whose density gives the largest *median* log-likelihood on B; S is then scaled by n / |A|
(twice as many points hold twice as many outliers, hence twice as many blocks). Why the
median: a mean held-out likelihood rewards the estimator that fits the held-out outliers too,
so it prefers the KDE (S = 1); the median over B is the likelihood of a typical point, an
inlier as long as the ratio is below 1/2, and it drops both when outliers take probability mass
away from the inliers (small S) and when blocks get too small to estimate anything (large S):
the bias-variance trade-off that S is about. It uses neither the labels nor the true density.

Block-aware bandwidth (opt-in methods ``mom_kde_blockh`` and ``mom_kde_oracle_blockh``)
----------------------------------------------------------------------------------------
With one bandwidth for all blocks, each block KDE is built from n / S points with a bandwidth
chosen for n: too small, so the blocks (and their median) get noisier as S grows, and the
oracle ends up at S = 1 on the spiky schemes. The paper's rate for MoM-KDE,
h ~ (S log n / n)^(1 / (2 alpha + d)), is the KDE rate for a sample of n / S points. With
alpha = 2 (second-order kernel, smooth density) this gives, from the CV bandwidth h of the full
sample, :func:`block_bandwidth` h_S = h * S^(1 / (4 + d)) (S = 1 gives h back). The same two S
rules are applied with h_S in place of h.

Metrics
-------
Synthetic data: each estimator is evaluated once on an evenly spaced grid covering inliers and
outliers (1-D: 2048 points on [-5, 11]; 2-D: 256 x 256 on [-5, 11]^2) with ``pdf_grid``; all
grid metrics (js, js_distance, kl_fhat_f = KL(f_hat || f), kl_f_fhat = KL(f || f_hat), l1,
linf) come from that one array. ``auc`` uses ``pdf`` at the sample points (low density =
outlier). MoM-KDE is fitted with ``normalize=False`` and its grid values divided by their
Riemann sum on that grid (which covers all the mass), instead of the estimator's own
normalising integral: the same density, without a second grid per fit; scores at the points
are left unnormalised (the AUC is scale-free). With many blocks and a small bandwidth the
median of the block KDEs can be 0 on the whole grid (most blocks have no point near any node):
that estimate is not a density, the oracle skips it and a rule that picks it gets NaN grid
metrics. Real data: AUC only.

For the two KLs the estimate is floored at the smallest positive double, :data:`KL_FLOOR`:
Gaussian-kernel estimates are positive everywhere, and their exact zeros on the grid (e.g. at
x = -5, 30 bandwidths from the nearest point) are floating-point underflow, which would make
KL(f || f_hat) infinite for every estimator although the true density there is ~1e-22. With
the floor, such nodes add ~f log(f / 1e-308), negligible where f is negligible and large where
the estimate truly misses mass. (A MoM median that is exactly 0 can be a real zero; it is
floored the same way.)

The table has exactly the columns :data:`COLUMNS`; ``n_blocks`` is 1 for kde, rkde and spkde,
``bandwidth`` the one the method used (the geometric mean of its per-feature bandwidths where a
rule in d > 1 gave one per feature). The protocol is in ``df.attrs["protocol"]``.
"""

from __future__ import annotations

import json
import os
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from .. import metrics
from .._engine import Grid, replay_limits
from .._progress import Progress
from ..bandwidth._robust import MAX_CONTAMINATION, check_contamination, n_blocks_for
from ..bandwidth._rules import select_bandwidth
from ..datasets import DATASETS, contaminated_sample, load_dataset
from ..estimators import MoMKDE
from ..io import LINE_END, write_csv
from ..kernels import get_kernel
from ..methods import EXPERIMENT_METHODS, Method, from_table
from ..methods import METHODS as REGISTRY
from ..synthetic import CLEAN_DENSITIES, SCHEMES, ContaminatedSample, make_clean, make_contaminated


def _table_names(*names: str) -> tuple[str, ...]:
    """The results tables' names of registry methods."""
    return tuple(REGISTRY[name].table_name for name in names)


COLUMNS: tuple[str, ...] = (
    "source",
    "ratio",
    "rep",
    "seed",
    "method",
    "n_blocks",
    "bandwidth",
    "metric",
    "value",
)
#: The methods run by default (results tables' names: the S rule is ``mom_kde`` there).
METHODS: tuple[str, ...] = _table_names(
    "kde", "mom_kde_rule", "mom_kde_oracle", "mom_kde_auto", "rkde", "spkde", "screened_kde"
)
#: MoM-KDE with the block-aware bandwidth, both S rules.
BLOCKH_METHODS: tuple[str, ...] = _table_names("mom_kde_blockh", "mom_kde_oracle_blockh")
#: The robust defaults and the variants that separate their two levers (S and h).
AUTO_METHODS: tuple[str, ...] = _table_names(
    "mom_kde_auto",
    "mom_kde_auto_cv",
    "mom_kde_auto_scott",
    "mom_kde_auto_blockh",
    "mom_kde_auto_est",
    "kde_robust",
)
#: Every method a task accepts: the results tables' names of the registry's
#: :data:`~momkde_core.methods.EXPERIMENT_METHODS`, in the same order.
ALL_METHODS: tuple[str, ...] = _table_names(*EXPERIMENT_METHODS)
METRICS: tuple[str, ...] = ("js", "js_distance", "kl_fhat_f", "kl_f_fhat", "l1", "linf", "auc")
PROTOCOLS: tuple[str, ...] = ("honest", "paper")
SYNTHETIC_SCHEMES: tuple[str, ...] = tuple(s for s in SCHEMES if s != "none")
RATIOS: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 11))
DEFAULT_REPS = {"synthetic": 10, "real": 50, "clean": 10}
CLEAN_CONTAMINATION = 0.01  # the share stated on clean densities
ORACLE_GRID_SIZE = 20
RULE_GRID_SIZE = 10
GRID_RANGE = (-5.0, 11.0)
GRID_POINTS = {1: 2048, 2: 256}
CLEAN_GRID = (-15.0, 20.0, 4096)  # wide enough for the Gamma and Student-t tails
CONTAMINATION_GUESS = 0.2
RUNNER_REPLAY = (2**25, 2**29)  # kernel values kept per evaluation and in all (512 MiB)
MIN_INLIERS = 5  # synthetic samples: the 5-fold CV of the bandwidth needs a point per fold
KL_FLOOR = np.finfo(float).tiny  # estimates are floored here for the KLs (see module docstring)


@dataclass(frozen=True)
class Task:
    """One contaminated sample to draw and estimate, with everything needed to redo it.

    Made by :func:`make_tasks`, which validates the fields; the ``seed`` alone regenerates
    the sample (:func:`regenerate_sample`) and every random choice made on it.

    Attributes
    ----------
    kind : {"synthetic", "clean", "real"}
        The kind of source.
    source : str
        The scheme, clean density or data set name.
    ratio : float
        The share of outliers |O| / n (0.0 for clean densities).
    rep : int
        The repetition.
    seed : int
        The sample's seed (:func:`task_seed`).
    protocol : {"honest", "paper"}, default "honest"
        "paper": the bandwidth cross-validated on the clean inliers, SPKDE given the true
        ratio; "honest": what a user can do, the bandwidth cross-validated on the
        contaminated sample and the stated ``contamination`` given to the methods that ask
        for one.
    methods : tuple of str, default METHODS
        The methods to run (names of :data:`ALL_METHODS`).
    dim : {1, 2}, default 1
        The dimension of synthetic data.
    n_inliers : int, default 1000
        Inliers per synthetic sample (clean: the sample size).
    scale : {"std", "variance"}, default "std"
        The reading of the paper's N(mu, s) (:func:`momkde_core.make_contaminated`).
    contamination : float or None, default 0.2
        The stated share of outliers; None: the true ratio.
    data_dir : str or None, default None
        The folder of the IDA data sets (:func:`momkde_core.load_dataset`).

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], reps=1)[0]
    >>> task.kind, task.source, task.ratio, task.rep, task.protocol, task.contamination
    ('synthetic', 'uniform', 0.1, 0, 'honest', 0.2)
    """

    kind: str  # "synthetic", "clean" or "real"
    source: str  # scheme or data set name
    ratio: float
    rep: int
    seed: int
    protocol: str = "honest"
    methods: tuple[str, ...] = METHODS
    dim: int = 1
    n_inliers: int = 1000
    scale: str = "std"
    contamination: float | None = CONTAMINATION_GUESS  # stated share; None: the true ratio
    data_dir: str | None = None


def task_seed(master_seed: int, source: str, ratio: float, rep: int) -> int:
    """The seed of one sample, from the master seed and the sample's identity.

    :class:`numpy.random.SeedSequence` of (master, crc32(source), ratio in 1/1000, rep): the
    same sample gets the same seed whatever else is in the sweep.

    Parameters
    ----------
    master_seed : int
        The sweep's seed (``momkde reproduce --seed``).
    source : str
        The scheme, clean density or data set name.
    ratio : float
        The share of outliers (rounded to 1/1000).
    rep : int
        The repetition.

    Returns
    -------
    seed : int
        A 32-bit seed.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, task_seed
    >>> seed = task_seed(0, "uniform", 0.1, 3)
    >>> seed == task_seed(0, "uniform", 0.1, 3), seed == task_seed(1, "uniform", 0.1, 3)
    (True, False)
    >>> make_tasks("synthetic", ratios=[0.1], reps=4)[3].seed == task_seed(0, "uniform", 0.1, 3)
    True
    """
    key = [int(master_seed), zlib.crc32(source.encode()), int(round(ratio * 1000)), int(rep)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _stream(seed: int, purpose: str) -> int:
    """An independent integer seed for one random choice made on the sample of ``seed``."""
    return int(np.random.SeedSequence([seed, zlib.crc32(purpose.encode())]).generate_state(1)[0])


def regenerate_sample(task: Task) -> tuple[np.ndarray, np.ndarray, ContaminatedSample | None]:
    """The sample of a task, from its seed alone.

    Parameters
    ----------
    task : Task
        The task.

    Returns
    -------
    X : ndarray of shape (n, d)
        The sample (real data: standardised, :func:`momkde_core.datasets.contaminated_sample`).
    is_outlier : ndarray of bool, shape (n,)
        The labels.
    synthetic : ContaminatedSample or None
        The synthetic or clean sample with its true density; None for real data.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, regenerate_sample
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], n_inliers=90)[0]
    >>> X, is_outlier, sample = regenerate_sample(task)
    >>> X.shape, int(is_outlier.sum()), sample.scheme
    ((100, 1), 10, 'uniform')
    >>> bool((regenerate_sample(task)[0] == X).all())  # the same sample again
    True
    """
    if task.kind in ("synthetic", "clean"):
        data = (
            make_clean(task.source, task.n_inliers, random_state=task.seed)
            if task.kind == "clean"
            else make_contaminated(
                task.source,
                task.n_inliers,
                task.ratio,
                task.dim,
                random_state=task.seed,
                scale=task.scale,
            )
        )
        return data.X, data.is_outlier, data
    X, is_outlier = contaminated_sample(
        _dataset(task.source, task.data_dir), task.ratio, random_state=task.seed
    )
    return X, is_outlier, None


@lru_cache(maxsize=16)
def _dataset(name: str, data_dir: str | None):
    """A real data set, loaded once per worker process."""
    return load_dataset(name, data_dir=data_dir)


def oracle_grid(n_outliers: int, n: int, size: int = ORACLE_GRID_SIZE) -> np.ndarray:
    """The paper's candidates for S: ``size`` values regularly spaced on [1, 2|O| + 1], <= n.

    Parameters
    ----------
    n_outliers : int
        |O|, the number of outliers in the sample.
    n : int
        The sample size (the cap).
    size : int, default 20
        The number of values before rounding.

    Returns
    -------
    candidates : ndarray of int
        The distinct rounded values, increasing (fewer than ``size`` when rounding merges
        some).

    See Also
    --------
    select_n_blocks : S without the oracle.

    Examples
    --------
    >>> from momkde_core.experiments import oracle_grid
    >>> grid = oracle_grid(50, 1000)
    >>> len(grid), int(grid[0]), int(grid[-1])
    (20, 1, 101)
    >>> oracle_grid(3, 5).tolist()
    [1, 2, 3, 4, 5]
    """
    top = min(2 * n_outliers + 1, n)
    return np.unique(np.round(np.linspace(1, top, size)).astype(int))


def block_bandwidth(h: float, n_blocks: int, dim: int) -> float:
    """h_S = h * S^(1/(4+d)): the bandwidth for blocks of n/S points, from h chosen for n.

    The paper's rate for MoM-KDE, h ~ (S log n / n)^(1 / (2 alpha + d)), is the KDE rate for a
    sample of n / S points; with alpha = 2 (second-order kernel, smooth density) it gives
    this factor (S = 1 gives h back).

    Parameters
    ----------
    h : float
        The bandwidth chosen for the whole sample.
    n_blocks : int
        S.
    dim : int
        d.

    Returns
    -------
    h_S : float
        The block-aware bandwidth.

    Examples
    --------
    >>> from momkde_core.experiments import block_bandwidth
    >>> block_bandwidth(0.5, 1, 1), block_bandwidth(0.5, 32, 1)
    (0.5, 1.0)
    """
    return float(h * n_blocks ** (1.0 / (4 + dim)))


def select_n_blocks(
    X: np.ndarray,
    bandwidth: float | Callable[[int], float],
    random_state: int,
    size: int = RULE_GRID_SIZE,
) -> int:
    """S by the held-out median likelihood; needs no label, no true density.

    Split the sample in two halves A and B at random, fit MoM-KDE on A for each S in a
    geometric grid from 1 to |A| / 2, and keep the S whose density gives the largest
    *median* log-likelihood on B; S is then scaled by n / |A| (twice as many points hold
    twice as many outliers, hence twice as many blocks).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The sample.
    bandwidth : float or callable
        The bandwidth, or a function of S (the block-aware bandwidth, :func:`block_bandwidth`).
    random_state : int
        The split and the blocks.
    size : int, default 10
        The number of candidates before rounding.

    Returns
    -------
    S : int
        S for the whole of X (the best S on half the sample, times n / |A|, about 2,
        capped at len(X)).

    See Also
    --------
    oracle_grid : The oracle's candidates.

    Notes
    -----
    Why the median: a mean held-out likelihood rewards the estimator that fits the held-out
    outliers too, so it prefers the KDE (S = 1); the median over B is the likelihood of a
    typical point, an inlier as long as the ratio is below 1/2, and it drops both when
    outliers take probability mass away from the inliers (small S) and when blocks get too
    small to estimate anything (large S): the bias-variance trade-off that S is about. A
    candidate whose median of the block KDEs vanishes everywhere (too many blocks for h)
    scores -inf.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.experiments import select_n_blocks
    >>> X = np.random.default_rng(0).normal(size=(200, 1))
    >>> S = select_n_blocks(X, 0.4, random_state=0)
    >>> isinstance(S, int), 1 <= S <= 200
    (True, True)
    """
    h_of = bandwidth if callable(bandwidth) else (lambda _s: bandwidth)
    n = len(X)
    order = np.random.default_rng(random_state).permutation(n)
    train, test = X[order[: n // 2]], X[order[n // 2 :]]
    candidates = np.unique(np.round(np.geomspace(1, max(1, len(train) // 2), size)).astype(int))
    scores = [_median_loglik(train, test, int(s), h_of(int(s)), random_state) for s in candidates]
    best = int(candidates[int(np.argmax(scores))])
    return int(min(n, round(best * n / len(train))))


def _median_loglik(
    train: np.ndarray, test: np.ndarray, n_blocks: int, h: float, random_state: int
) -> float:
    """Median log density on ``test`` of MoM-KDE fitted on ``train``; -inf when the median of
    the block KDEs vanishes everywhere (too many blocks for h: not a density)."""
    try:
        est = MoMKDE(n_blocks, h, random_state=random_state).fit(train)
    except ValueError:
        return -np.inf
    return float(np.median(est.score_samples(test)))


@dataclass
class _Fitted:
    """One method's estimate on one sample: its parameters and where it was evaluated."""

    method: str
    n_blocks: int
    bandwidth: float
    grid_pdf: np.ndarray | None  # density on the evaluation grid (synthetic only)
    scores: np.ndarray  # (possibly unnormalised) density at the sample points


def _evaluation_grid(kind: str, dim: int) -> Grid:
    if kind == "clean":
        return Grid((np.linspace(*CLEAN_GRID),))
    return Grid(tuple(np.linspace(*GRID_RANGE, GRID_POINTS[dim]) for _ in range(dim)))


class _Sample:
    """A sample with what its metrics need: the grid, the true density on it, the labels."""

    def __init__(self, task: Task):
        self.task = task
        self.X, self.is_outlier, self.synthetic = regenerate_sample(task)
        self.grid = _evaluation_grid(task.kind, task.dim) if self.synthetic is not None else None
        self.true_grid = (
            None
            if self.grid is None
            else self.synthetic.true_pdf(self.grid.points).reshape(self.grid.shape)
        )

    def evaluate(
        self, method: str, est, n_blocks: int = 1, scores: bool = True, exact_tails: bool = True
    ) -> _Fitted:
        """Grid values (normalised to integrate to 1) and scores at the points of a fitted est.

        ``exact_tails=False`` (the oracle's candidates, ranked by JS) leaves nodes below 1e-13
        of the peak as the fast grid gives them (see ``pdf_grid``): JS does not see them.
        """
        grid_pdf = None
        if self.grid is not None:
            grid_pdf = est.pdf_grid(*self.grid.axes, exact_tails=exact_tails)
            mass = self.grid.integrate(grid_pdf) if isinstance(est, MoMKDE) else 0.0
            if mass > 0:
                grid_pdf = grid_pdf / mass
        h = est.bandwidth_  # one per feature for a rule in d > 1: their geometric mean
        h = float(np.exp(np.mean(np.log(h)))) if np.ndim(h) else h
        return _Fitted(method, n_blocks, h, grid_pdf, est.pdf(self.X) if scores else np.empty(0))

    def metric_values(self, fitted: _Fitted) -> dict[str, float]:
        """All metrics of one estimate (only the AUC for real data)."""
        values = {}
        if self.grid is not None and not fitted.grid_pdf.any():  # degenerate: a median of 0
            values = dict.fromkeys(METRICS[:-1], np.nan)
        elif self.grid is not None:
            p, f, cell = fitted.grid_pdf, self.true_grid, self.grid.cell
            p_kl = np.maximum(p, KL_FLOOR)
            values = {
                "js": metrics.js_divergence(p, f, cell),
                "js_distance": metrics.js_distance(p, f, cell),
                "kl_fhat_f": metrics.kl_divergence(p_kl, f, cell),
                "kl_f_fhat": metrics.kl_divergence(f, p_kl, cell),
                "l1": metrics.l1_distance(p, f, cell),
                "linf": metrics.linf_distance(p, f),
            }
        values["auc"] = (
            metrics.auc(fitted.scores, self.is_outlier) if self.is_outlier.any() else np.nan
        )  # clean densities: no outlier to rank
        return values

    def oracle(self, method: str, make: Callable[[int], MoMKDE]) -> _Fitted:
        """MoM-KDE (``make(S)``, unfitted) with the S of :func:`oracle_grid` that is best on
        the true density (JS) or, for real data, on the labels (AUC)."""
        best_loss, best_est = np.inf, None
        for s in oracle_grid(int(self.is_outlier.sum()), len(self.X)):
            est = make(int(s)).fit(self.X)
            if self.grid is not None:
                fitted = self.evaluate(method, est, int(s), scores=False, exact_tails=False)
                loss = (
                    metrics.js_divergence(fitted.grid_pdf, self.true_grid, self.grid.cell)
                    if fitted.grid_pdf.any()
                    else np.inf
                )
            else:
                loss = -metrics.auc(est.pdf(self.X), self.is_outlier)
            if loss < best_loss:
                best_loss, best_est = loss, est
        return self.evaluate(method, best_est, best_est.n_blocks)


def run_task(task: Task) -> list[tuple]:
    """Every row (in :data:`COLUMNS` order) of one sample: all methods x all metrics.

    Parameters
    ----------
    task : Task
        The sample and its methods.

    Returns
    -------
    rows : list of tuple
        One row per method and metric (real data: the AUC only), in :data:`COLUMNS` order.

    See Also
    --------
    run_experiments : Runs many tasks, in parallel.

    Notes
    -----
    MoM-KDE's warnings about blocks of fewer than 2 points and about a median keeping less
    than half of the blocks' mass are silenced: the sweep asks for such S on purpose (the
    oracle's grid up to 2|O| + 1, the rules at high ratios). The kernel values of a sample
    are kept for replay up to n ~ 5800 points
    (:func:`~momkde_core._engine._memo.replay_limits`), so that the oracle's and the rule's
    refits for other S reuse them (the same numbers, computed once).

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, run_task
    >>> tasks = make_tasks(
    ...     "synthetic", sources=["uniform"], ratios=[0.1], reps=1, n_inliers=50, methods=["kde"]
    ... )
    >>> rows = run_task(tasks[0])
    >>> len(rows), rows[0][4], [row[7] for row in rows]
    (7, 'kde', ['js', 'js_distance', 'kl_fhat_f', 'kl_f_fhat', 'l1', 'linf', 'auc'])
    """
    with warnings.catch_warnings(), replay_limits(*RUNNER_REPLAY):
        warnings.filterwarnings("ignore", message=r".*blocks of fewer than", category=UserWarning)
        # ... and the thin medians of those S (the S rules score them as they are)
        warnings.filterwarnings("ignore", message=r".*holds only", category=UserWarning)
        return _run_task(task)


def _run_task(task: Task) -> list[tuple]:
    sample = _Sample(task)
    X, kernel = sample.X, get_kernel("gaussian")
    cv_data = X[~sample.is_outlier] if task.protocol == "paper" else X
    h = select_bandwidth(cv_data, "cv", kernel, random_state=_stream(task.seed, "cv"))
    seed = _stream(task.seed, "blocks")
    contamination = (
        task.ratio if task.protocol == "paper" or task.contamination is None else task.contamination
    )
    # at the swept ratio 0.5 no median can separate the halves; the robust defaults accept
    # shares below 1/2, so they are given the largest such share there
    contamination = min(contamination, float(np.nextafter(MAX_CONTAMINATION, 0.0)))
    auto_s = n_blocks_for(len(X), contamination)

    @lru_cache(maxsize=1)
    def robust_h() -> float:
        """The "robust" h for the stated share: what MoMKDE(contamination=c, random_state=seed)
        selects itself, computed once for mom_kde_auto and kde_robust."""
        return select_bandwidth(X, "robust", kernel, random_state=seed, contamination=contamination)

    def bandwidth(method: Method, s: int) -> float | None:
        """The h the sweep gives ``method`` for S = s; None: the estimator's own rule."""
        if method.sweep_bandwidth == "cv":
            return h
        if method.sweep_bandwidth == "block":
            return block_bandwidth(h, s, X.shape[1])
        return robust_h() if method.sweep_bandwidth == "robust" else None

    def estimator(method: Method, s: int | None = None):
        """The method's unfitted estimator on this sample: S = s if given, the sweep's h,
        MoM-KDE unnormalised (its grid values are normalised in :meth:`_Sample.evaluate`)."""
        params = {} if s is None else {"n_blocks": s}
        h_s = bandwidth(method, auto_s if s is None else s)
        if h_s is not None:
            params["bandwidth"] = h_s
        est = method.build(contamination=contamination, random_state=seed, **params)
        if "normalize" in est.get_params(deep=False):
            est.set_params(normalize=False)
        return est

    def fit(name: str) -> _Fitted:
        method = REGISTRY[from_table(name)]
        if method.sweep_blocks == "oracle":
            return sample.oracle(name, lambda s: estimator(method, s))
        if method.sweep_blocks == "rule":
            s = select_n_blocks(X, lambda s: bandwidth(method, s), _stream(task.seed, "rule"))
            return sample.evaluate(name, estimator(method, s).fit(X), s)
        est = estimator(method).fit(X)
        return sample.evaluate(name, est, est.n_blocks_ if method.sweep_blocks == "auto" else 1)

    rows = []
    for method in task.methods:
        fitted = fit(method)
        for metric, value in sample.metric_values(fitted).items():
            rows.append(
                (
                    task.source,
                    task.ratio,
                    task.rep,
                    task.seed,
                    method,
                    fitted.n_blocks,
                    fitted.bandwidth,
                    metric,
                    value,
                )
            )
    return rows


def make_tasks(
    kind: str,
    sources: Sequence[str] | None = None,
    ratios: Sequence[float] = RATIOS,
    reps: int | None = None,
    seed: int = 0,
    protocol: str = "honest",
    methods: Sequence[str] = METHODS,
    dim: int = 1,
    n_inliers: int = 1000,
    scale: str = "std",
    contamination: float | None | str = "guess",
    data_dir: str | None = None,
    first_rep: int = 0,
) -> list[Task]:
    """The tasks of a sweep, validated.

    One task per source, ratio and repetition, in that order (repetitions innermost).

    Parameters
    ----------
    kind : {"synthetic", "clean", "real"}
        "synthetic" (sources: schemes, default the paper's four), "clean" (sources:
        :data:`~momkde_core.synthetic.CLEAN_DENSITIES`, 1-D, no outliers: ``ratios`` is
        ignored) or "real" (sources: data set names, default all six).
    sources : sequence of str, optional
        The schemes, clean densities or data sets (a repeated name counts once).
    ratios : sequence of float, default RATIOS
        Shares of outliers in (0, 1) (default 0.05, 0.10, ..., 0.50).
    reps : int, optional
        Repetitions per source and ratio; default 10 (synthetic, clean) or 50 (real).
    seed : int, default 0
        The master seed (:func:`task_seed`).
    protocol : {"honest", "paper"}, default "honest"
        "paper": the bandwidth cross-validated on the clean inliers, SPKDE given the true
        ratio; "honest": what a user can do, the bandwidth cross-validated on the
        contaminated sample and the stated ``contamination`` given to the methods that ask
        for one.
    methods : sequence of str, default METHODS
        :data:`METHODS`; :data:`BLOCKH_METHODS` and ``AUTO_METHODS`` (all in
        :data:`ALL_METHODS`) are the other variants measured in the docs.
    dim : {1, 2}, default 1
        The dimension of synthetic data (clean densities: 1).
    n_inliers : int, default 1000
        Inliers per synthetic sample, at least 5 (the bandwidth's 5-fold CV needs a point
        per fold).
    scale : {"std", "variance"}, default "std"
        The reading of the paper's N(mu, s).
    contamination : float, None or "guess", default "guess"
        The share stated to SPKDE and the robust defaults under the honest protocol: a
        number in [0, 0.5), None for the true ratio, or "guess" for
        :data:`CONTAMINATION_GUESS` (clean: :data:`CLEAN_CONTAMINATION`).
    data_dir : str, optional
        The folder of the IDA data sets.
    first_rep : int, default 0
        The repetitions are ``first_rep .. first_rep + reps - 1``, the very samples (same
        seeds) that a sweep with more repetitions draws there: a stored table of repetitions
        0 .. 9 is extended to 50 by ``reps=40, first_rep=10``.

    Returns
    -------
    tasks : list of Task
        The tasks.

    Raises
    ------
    ValueError
        With an actionable message, for any parameter out of its range or an unknown name.

    See Also
    --------
    run_experiments, SweepFile : Run the tasks.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks
    >>> len(make_tasks("synthetic"))  # 4 schemes x 10 ratios x 10 repetitions
    400
    >>> tasks = make_tasks("real", sources=["iris"], ratios=[0.05, 0.1], reps=3)
    >>> [(t.source, t.ratio, t.rep) for t in tasks[:4]]
    [('iris', 0.05, 0), ('iris', 0.05, 1), ('iris', 0.05, 2), ('iris', 0.1, 0)]
    >>> extra = make_tasks("real", sources=["iris"], ratios=[0.05], reps=1, first_rep=2)
    >>> extra[0].seed == tasks[2].seed
    True
    """
    if kind not in DEFAULT_REPS:
        raise ValueError(f"kind must be 'synthetic', 'clean' or 'real', got {kind!r}")
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    allowed = {"synthetic": SYNTHETIC_SCHEMES, "clean": CLEAN_DENSITIES, "real": DATASETS}[kind]
    sources = tuple(allowed if sources is None else sources)
    unknown = [s for s in sources if s not in allowed]
    if unknown or not sources:
        noun = {"synthetic": "scheme", "clean": "clean density", "real": "data set"}[kind]
        raise ValueError(
            f"unknown {noun}(s) {', '.join(unknown) or '(none given)'}; "
            f"allowed: {', '.join(allowed)}"
        )
    bad_methods = [m for m in methods if m not in ALL_METHODS]
    if bad_methods or not methods:
        raise ValueError(
            f"unknown method(s) {', '.join(bad_methods) or '(none given)'}; "
            f"allowed: {', '.join(ALL_METHODS)}"
        )
    sources = tuple(dict.fromkeys(sources))  # a repeated name would repeat its samples
    ratios = (0.0,) if kind == "clean" else tuple(dict.fromkeys(float(r) for r in ratios))
    if kind != "clean" and (not ratios or any(not 0.0 < r < 1.0 for r in ratios)):
        raise ValueError(f"ratios must be numbers in (0, 1), got {list(ratios)}")
    reps = DEFAULT_REPS[kind] if reps is None else reps
    if int(reps) != reps or reps < 1:
        raise ValueError(f"reps must be a positive integer, got {reps!r}")
    if int(first_rep) != first_rep or first_rep < 0:
        raise ValueError(f"first_rep must be an integer >= 0, got {first_rep!r}")
    if int(n_inliers) != n_inliers or n_inliers < MIN_INLIERS:
        raise ValueError(
            f"n_inliers must be an integer >= {MIN_INLIERS} (the bandwidth's "
            f"5-fold CV needs a point per fold), got {n_inliers!r}"
        )
    if dim not in (1, 2) or (kind == "clean" and dim != 1):
        raise ValueError(f"dim must be 1 or 2 (clean densities: 1), got {dim!r}")
    if contamination == "guess":
        contamination = CLEAN_CONTAMINATION if kind == "clean" else CONTAMINATION_GUESS
    if contamination is not None:
        check_contamination(contamination, allow_auto=False)
    base = Task(
        kind=kind,
        source="",
        ratio=0.0,
        rep=0,
        seed=0,
        protocol=protocol,
        methods=tuple(methods),
        dim=int(dim),
        n_inliers=int(n_inliers),
        scale=scale,
        contamination=None if contamination is None else float(contamination),
        data_dir=data_dir,
    )
    return [
        replace(base, source=s, ratio=r, rep=k, seed=task_seed(seed, s, r, k))
        for s in sources
        for r in ratios
        for k in range(int(first_rep), int(first_rep) + int(reps))
    ]


def _attempt(index: int, task: Task) -> tuple[int, list[tuple] | None, Exception | None]:
    """(index, rows, None) of one task, or (index, None, the exception) if it failed: one
    failed sample does not stop the others, and the caller decides what a failure means."""
    try:
        return index, run_task(task), None
    except Exception as err:  # noqa: BLE001 - handed to the caller, which reports or raises it
        return index, None, err


def _iter_results(
    tasks: Sequence[Task], n_jobs: int, scheduler: str | None, progress: bool
) -> Iterator[tuple[int, list[tuple] | None, Exception | None]]:
    """:func:`_attempt` over the tasks with joblib (local processes, or Dask when
    ``scheduler`` is given), each result as soon as it is done (locally in the order the
    samples finish; on Dask in task order)."""
    from joblib import Parallel, delayed, parallel_config

    def results() -> Iterator[tuple[int, list[tuple] | None, Exception | None]]:
        order = "generator" if scheduler is not None else "generator_unordered"
        done = Parallel(n_jobs=n_jobs, return_as=order)(
            delayed(_attempt)(i, t) for i, t in enumerate(tasks)
        )
        with Progress("running", "samples", total=len(tasks), enabled=progress) as bar:
            for result in done:
                bar.update()
                yield result

    if scheduler is None:
        yield from results()
        return
    client = dask_client(scheduler)
    try:
        with parallel_config(backend="dask"):
            yield from results()
    finally:
        client.close()


def dask_client(address: str):
    """A ``distributed.Client`` on ``address``.

    Parameters
    ----------
    address : str
        The Dask scheduler's address (``tcp://host:8786``).

    Returns
    -------
    client : distributed.Client
        The connected client.

    Raises
    ------
    ImportError
        With the install command (``pip install 'momkde[distributed]'``) if dask.distributed
        is missing.

    Examples
    --------
    >>> from momkde_core.experiments import dask_client
    >>> client = dask_client("tcp://127.0.0.1:8786")  # doctest: +SKIP
    """
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            "running on a Dask cluster needs dask.distributed: pip install 'momkde[distributed]'"
        ) from None
    return Client(address)


def _table(rows: Sequence[tuple], protocol: str) -> pd.DataFrame:
    """The tidy table of rows in :data:`COLUMNS` order, with its column types."""
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    df = df.astype(
        {
            "source": str,
            "ratio": float,
            "rep": "int64",
            "seed": "int64",
            "method": str,
            "n_blocks": "int64",
            "bandwidth": float,
            "metric": str,
            "value": float,
        }
    )
    df.attrs["protocol"] = protocol
    return df


def run_experiments(
    tasks: Sequence[Task], n_jobs: int = 1, scheduler: str | None = None, progress: bool = False
) -> pd.DataFrame:
    """Run the tasks (see :func:`make_tasks`) and return the tidy results table.

    The table is the same, row for row, whatever ``n_jobs`` and ``scheduler``. To keep the
    finished samples of a long sweep on disk, and resume it, use :class:`SweepFile`.

    Parameters
    ----------
    tasks : sequence of Task
        The samples to run.
    n_jobs : int, default 1
        As in joblib (-1: all cores).
    scheduler : str, optional
        The address of a Dask scheduler (``tcp://host:8786``) to run on instead.
    progress : bool, default False
        Show the progress on stderr.

    Returns
    -------
    results : DataFrame
        Exactly the columns :data:`COLUMNS`, the rows in task order; the protocol is in
        ``results.attrs["protocol"]``. ``n_blocks`` is 1 for kde, rkde and spkde,
        ``bandwidth`` the one the method used (the geometric mean of its per-feature
        bandwidths where a rule in d > 1 gave one per feature).

    Raises
    ------
    Exception
        The first failed sample raises its exception.

    See Also
    --------
    summarize : Mean (std) per source, method and ratio.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, run_experiments
    >>> tasks = make_tasks(
    ...     "synthetic", sources=["uniform"], ratios=[0.1], reps=1, n_inliers=50, methods=["kde"]
    ... )
    >>> results = run_experiments(tasks)
    >>> results.shape, results.attrs["protocol"]
    ((7, 9), 'honest')
    """
    by_task: list[list[tuple]] = [[] for _ in tasks]
    for index, rows, error in _iter_results(tasks, n_jobs, scheduler, progress):
        if error is not None:
            raise error
        by_task[index] = rows
    return _table(
        [row for rows in by_task for row in rows], tasks[0].protocol if tasks else "honest"
    )


def task_key(task: Task) -> tuple[str, float, int, int]:
    """What identifies a task's rows in a table: (source, ratio, rep, seed).

    Parameters
    ----------
    task : Task
        The task.

    Returns
    -------
    key : tuple of (str, float, int, int)
        (source, ratio, rep, seed), as Python scalars.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, task_key
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], reps=1)[0]
    >>> task_key(task)[:3]
    ('uniform', 0.1, 0)
    """
    return task.source, float(task.ratio), int(task.rep), int(task.seed)


def _keys(df: pd.DataFrame) -> list[tuple[str, float, int, int]]:
    """The :func:`task_key` of every row of a table (as Python scalars)."""
    return list(
        zip(df["source"].tolist(), df["ratio"].tolist(), df["rep"].tolist(), df["seed"].tolist())
    )


class SweepIncomplete(RuntimeError):
    """Some samples of a sweep failed; the others' rows are kept in the partial file.

    Raised by :meth:`SweepFile.run`; its message names how many samples failed and the
    first one, with its error. Running the same sweep again computes only the missing
    samples.

    Attributes
    ----------
    failures : list of (Task, Exception)
        The failed samples in task order, with their errors.
    partial : Path
        The partial file that holds the finished samples.
    """

    def __init__(self, failures: list[tuple[Task, Exception]], partial: Path):
        self.failures, self.partial = failures, partial
        task, err = failures[0]
        first_line = (str(err).strip().splitlines() or [""])[0]
        super().__init__(
            f"{len(failures)} sample(s) failed, the first {task.source} ratio "
            f"{task.ratio:g} rep {task.rep} (seed {task.seed}): "
            f"{type(err).__name__}: {first_line}"
        )


class SweepFile:
    """A sweep written to a CSV file as it runs, so that no finished sample is lost.

    The rows of each finished sample are appended to ``<out>.partial`` (and flushed to the
    disk) as soon as it is done; the sweep's settings (kind, protocol, methods, dimension,
    sample size, stated contamination) are kept beside it in ``<out>.partial.json``. When all
    samples are done, the table is written in task order to a temporary file renamed to
    ``out`` (never a half-written ``out``), and the partial files are removed.

    Run again after an interruption (Ctrl-C, a killed process, a failed sample), the same
    sweep reads the partial file, keeps the samples whose rows are all there (a row cut
    short by a kill, and the other rows of its sample, are dropped) and computes only the
    others: the final table is the same, byte for byte, as that of an uninterrupted run
    (each sample's rows depend on its seed alone). A partial file of other settings is
    refused (ValueError), never mixed in. Every CSV is written by
    :func:`momkde_core.io._csv_safety.write_csv` (formula-like cells escaped).

    Parameters
    ----------
    out : str or path-like
        The CSV file to write.
    tasks : sequence of Task
        The sweep (:func:`make_tasks`), at least one task; its settings are those of the
        first.

    Raises
    ------
    ValueError
        When ``tasks`` is empty.

    See Also
    --------
    run_experiments : The same table, in memory only.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from momkde_core.experiments import SweepFile, make_tasks
    >>> tasks = make_tasks(
    ...     "synthetic", sources=["uniform"], ratios=[0.1], reps=1, n_inliers=50, methods=["kde"]
    ... )
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     sweep = SweepFile(Path(folder) / "results.csv", tasks)
    ...     done = sweep.open()
    ...     results = sweep.run()
    ...     written = sorted(p.name for p in Path(folder).iterdir())
    >>> done, results.shape, written
    (0, (7, 9), ['results.csv'])
    """

    SUFFIX = ".partial"

    def __init__(self, out: str | os.PathLike[str], tasks: Sequence[Task]):
        if not tasks:
            raise ValueError("a sweep needs at least one task")
        self.out = Path(out)
        self.tasks = list(tasks)
        self.partial = self.out.with_name(self.out.name + self.SUFFIX)
        self.meta = self.out.with_name(self.out.name + self.SUFFIX + ".json")
        settings = asdict(self.tasks[0])
        for field in ("source", "ratio", "rep", "seed", "data_dir"):
            del settings[field]
        settings["methods"] = list(settings["methods"])
        self.settings = settings
        self._done: set[tuple] = set()

    def _expected_rows(self) -> int:
        """Rows of one finished sample: one per method and metric (real data: AUC only)."""
        return len(self.settings["methods"]) * (
            1 if self.settings["kind"] == "real" else len(METRICS)
        )

    def _read(self) -> pd.DataFrame:
        """The complete rows of the partial file (a last line cut short is left out)."""
        text = self.partial.read_bytes().decode("utf-8")
        if not text.endswith(LINE_END):
            text = text[: text.rfind(LINE_END) + len(LINE_END)] if LINE_END in text else ""
        if not text:
            return _table([], self.settings["protocol"])
        # read as text and parsed by Python's float (exact round trip of what was written,
        # whatever pandas' own float parser does)
        df = pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)
        if tuple(df.columns) != COLUMNS:
            raise ValueError(f"{self.partial} is not a partial results table of momkde")
        for column in ("ratio", "bandwidth", "value"):
            df[column] = [float(v) if v else np.nan for v in df[column]]
        for column in ("rep", "seed", "n_blocks"):
            df[column] = [int(v) for v in df[column]]
        return _table(df.itertuples(index=False, name=None), self.settings["protocol"])

    def _write_atomically(self, df: pd.DataFrame, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                write_csv(df, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def open(self, restart: bool = False) -> int:
        """Start the partial file, or take up the one left by an interrupted run of the same sweep.

        Parameters
        ----------
        restart : bool, default False
            Discard the partial file of an earlier run instead of taking it up.

        Returns
        -------
        n_done : int
            The number of this sweep's samples already done.

        Raises
        ------
        ValueError
            If the partial file is of another sweep (its settings file missing or
            different).
        """
        if restart or not self.partial.exists():
            self.meta.write_text(json.dumps(self.settings, indent=1), encoding="utf-8")
            self._write_atomically(_table([], self.settings["protocol"]), self.partial)
            self._done = set()
            return 0
        try:
            found = json.loads(self.meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = None
        if found != self.settings:
            differ = (
                "its settings file is missing"
                if found is None
                else "its "
                + ", ".join(k for k in self.settings if found.get(k) != self.settings[k])
                + " differ"
            )
            raise ValueError(
                f"{self.partial} holds another sweep ({differ}); rerun with "
                "--restart to discard it, or write to another --out"
            )
        df = self._read()
        keys = _keys(df)
        complete = {k for k, n in Counter(keys).items() if n == self._expected_rows()}
        kept = np.array([k in complete for k in keys], dtype=bool)
        if not kept.all() or not self.partial.read_bytes().endswith(LINE_END.encode()):
            self._write_atomically(df[kept], self.partial)  # drop what a kill cut short
        self._done = complete
        return sum(task_key(t) in complete for t in self.tasks)

    def todo(self) -> list[Task]:
        """The tasks whose rows are not in the partial file yet, repetition by repetition.

        Every source and ratio of repetition 0, then of 1, ...: a sweep stopped early holds
        whole repetitions of every cell, not all repetitions of the first sources. (The
        table is written in task order whatever the order of computing.)

        Returns
        -------
        tasks : list of Task
            The tasks left.
        """
        left = [t for t in self.tasks if task_key(t) not in self._done]
        return sorted(left, key=lambda t: t.rep)  # stable: task order within a repetition

    def _append(self, rows: list[tuple]) -> None:
        with open(self.partial, "a", encoding="utf-8", newline="") as fh:
            write_csv(_table(rows, self.settings["protocol"]), fh, header=False)
            fh.flush()
            os.fsync(fh.fileno())

    def run(
        self, n_jobs: int = 1, scheduler: str | None = None, progress: bool = False
    ) -> pd.DataFrame:
        """Compute the samples not done yet; then write ``out`` and return the table.

        Each sample is appended to the partial file when it finishes.

        Parameters
        ----------
        n_jobs, scheduler, progress
            As for :func:`run_experiments`.

        Returns
        -------
        results : DataFrame
            The table of the whole sweep, in task order (as :func:`run_experiments`).

        Raises
        ------
        SweepIncomplete
            If some samples failed (the others are kept: run again to compute only the
            missing ones).
        """
        todo = self.todo()
        failures = []
        for index, rows, error in _iter_results(todo, n_jobs, scheduler, progress):
            if error is None:
                self._append(rows)
                self._done.add(task_key(todo[index]))
            else:
                failures.append((todo[index], error))
        if failures:
            raise SweepIncomplete(
                sorted(failures, key=lambda f: self.tasks.index(f[0])), self.partial
            )
        return self._finish()

    def finished(self) -> pd.DataFrame:
        """The rows of this sweep's samples finished so far, in task order.

        Read from the partial file without changing it (a running sweep may be appending to
        it).

        Returns
        -------
        results : DataFrame
            The complete samples' rows.
        """
        df = self._read()
        keys = _keys(df)
        complete = {k for k, n in Counter(keys).items() if n == self._expected_rows()}
        position = {task_key(t): i for i, t in enumerate(self.tasks)}
        order = np.array(
            [position[k] if k in complete and k in position else -1 for k in keys], dtype=np.int64
        )
        df = df[order >= 0].iloc[np.argsort(order[order >= 0], kind="stable")]
        df = df.reset_index(drop=True)
        df.attrs["protocol"] = self.settings["protocol"]
        return df

    def _finish(self) -> pd.DataFrame:
        df = self.finished()
        self._write_atomically(df, self.out)
        self.partial.unlink()
        self.meta.unlink()
        return df


def summarize(df: pd.DataFrame, metric: str, ratios: Sequence[float] | None = None) -> pd.DataFrame:
    """Mean (std) of ``metric`` per source x method, one column per ratio, as text cells.

    Parameters
    ----------
    df : DataFrame
        A results table (:func:`run_experiments`).
    metric : str
        One of the table's metrics (``"js"``, ``"auc"``, ...).
    ratios : sequence of float, optional
        Only these ratios (default: all).

    Returns
    -------
    table : DataFrame
        Indexed by (source, method), one column per ratio; cells ``"mean (std)"`` with three
        decimals (std over the repetitions; ``nan`` for one repetition).

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.experiments import summarize
    >>> df = pd.DataFrame({
    ...     "source": ["uniform"] * 2, "method": ["kde"] * 2, "ratio": [0.1] * 2,
    ...     "metric": ["js"] * 2, "value": [0.1, 0.3],
    ... })
    >>> summarize(df, "js").loc[("uniform", "kde"), 0.1]
    '0.200 (0.141)'
    """
    part = df[df["metric"] == metric]
    if ratios is not None:
        part = part[np.isclose(part["ratio"].to_numpy()[:, None], np.asarray(ratios)).any(axis=1)]
    stats = part.groupby(["source", "method", "ratio"], sort=False)["value"].agg(["mean", "std"])
    cells = stats.apply(lambda r: f"{r['mean']:.3f} ({r['std']:.3f})", axis=1)
    return cells.unstack("ratio")


def iter_sources(df: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """(source, its rows) in the order the sources appear in the table.

    Parameters
    ----------
    df : DataFrame
        A results table.

    Yields
    ------
    source : str
        The source's name.
    rows : DataFrame
        Its rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.experiments import iter_sources
    >>> df = pd.DataFrame({"source": ["b", "a", "b"], "value": [1.0, 2.0, 3.0]})
    >>> [(source, len(rows)) for source, rows in iter_sources(df)]
    [('b', 2), ('a', 1)]
    """
    for source in pd.unique(df["source"]):
        yield source, df[df["source"] == source]
