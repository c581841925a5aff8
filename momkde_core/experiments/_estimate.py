"""One task's rows: every method fitted on its sample, every metric of each estimate.

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

How each method chooses S and h is the registry's (:mod:`momkde_core.methods`:
``sweep_blocks``, ``sweep_bandwidth``); S by the rule and the oracle is described in
:mod:`momkde_core.experiments._n_blocks`.

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
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import metrics
from .._engine import Grid, replay_limits
from ..bandwidth import MAX_CONTAMINATION, n_blocks_for, select_bandwidth
from ..estimators import MoMKDE
from ..kernels import get_kernel
from ..methods import METHODS, Method, build_estimator, from_table
from ._n_blocks import block_bandwidth, oracle_grid, select_n_blocks
from ._tasks import Task, _stream, regenerate_sample

METRICS: tuple[str, ...] = ("js", "js_distance", "kl_fhat_f", "kl_f_fhat", "l1", "linf", "auc")
GRID_RANGE = (-5.0, 11.0)
GRID_POINTS = {1: 2048, 2: 256}
CLEAN_GRID = (-15.0, 20.0, 4096)  # wide enough for the Gamma and Student-t tails
RUNNER_REPLAY = (2**25, 2**29)  # kernel values kept per evaluation and in all (512 MiB)
KL_FLOOR = np.finfo(float).tiny  # estimates are floored here for the KLs (see module docstring)


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
    # the paper's 5-fold search (the stored tables were computed with it)
    h = select_bandwidth(cv_data, "cv", kernel, n_folds=5, random_state=_stream(task.seed, "cv"))
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
        est = build_estimator(method.name, contamination=contamination, random_state=seed, **params)
        if "normalize" in est.get_params(deep=False):
            est.set_params(normalize=False)
        return est

    def fit(name: str) -> _Fitted:
        method = METHODS[from_table(name)]
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
