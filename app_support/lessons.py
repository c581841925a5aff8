"""The computations of the Home and Learn pages: the paper's Example 1, MoM-KDE as a curve and
as a screen, and the timing of each estimator. Without Streamlit: :mod:`app_support.cache`
caches them for the pages.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from momkde_core import KDE, MoMKDE, ScreenedKDE, config_context
from momkde_core._engine._gram import GRAM_GRID_MIN_PAIRS
from momkde_core.synthetic import make_contaminated

from .compute import Settings, choose_bandwidth, make_estimator, one_at_a_time, plot_grid

#: Example 1 (Home and Learn): its inliers, and the point x0, where the true density is 0.
EXAMPLE_INLIERS, X0 = 200, 2.0
#: Example 1's figure axis: first and last node, and the count.
EXAMPLE_AXIS: tuple[float, float, int] = (-3.5, 3.5, 701)
#: Home's opening |O|, its bandwidth, and the top of its zoom on the tails (a tenth of the
#: inliers' density, 0.5).
HOME_OUTLIERS, HOME_H, HOME_ZOOM = 6, 0.4, 0.05
#: The most outliers Home's slider adds.
HOME_MAX_OUTLIERS = 20
#: Learn's opening |O|, h, S and seed for Example 1 (seed 0: an outlier near x0), and the
#: largest S of its error curve.
LEARN_OPENING, MAX_BLOCKS = (10, 0.5, 11, 0), 60
#: The construction's sample (inliers, outliers placed, their place), S, h and seed: blocks
#: of about 11 rows, a colour each; 4 outliers, fewer than S / 2.
BUILD = (96, 4, 3.0, 9, 0.5, 0)
#: The curve-and-screen figure's sample: inliers, share of outliers (stated as ε too), seed,
#: and the scheme it opens on (the thin spike between the modes).
SCREEN_INLIERS, SCREEN_RATIO, SCREEN_SEED, SCREEN_OPENING = 700, 0.1, 0, "thin_gaussian"
#: The stored run of docs/reproduction.md, "Choosing S and h without an oracle": 1-D, 1000
#: inliers, 10 repetitions, the robust defaults told the true ratio (``--contamination true``).
MEASURED_JS_FILE = "synthetic_1d_honest_auto_true.csv.gz"
#: The stored run of clean densities (docs/reproduction.md, the same protocol, no outliers).
CLEAN_JS_FILE = "clean_1d_honest.csv.gz"
#: The largest n whose n x n Gram matrix RKDE and SPKDE compute exactly; beyond it, in 1-D,
#: a grid convolution makes each of their products O(n) (docs/guide/performance.md).
EXACT_GRAM_MAX = math.isqrt(GRAM_GRID_MIN_PAIRS)
#: The sizes timed: doubling from 1,000 (smaller, the estimators' costs are the size of the
#: timer's noise) up to the exact Gram path's end, where the paper's O(n²) is what runs.
TIMED_SIZES = (1000, 2000, 4000, EXACT_GRAM_MAX)
#: The methods with a learning step; the KDE's and MoM-KDE's fit only store (and shuffle) rows.
LEARNING = ("rkde", "spkde", "screened_kde")
#: The evaluation points of the timing.
N_EVAL = 1000
#: The schemes of the Learn page's table, as it names them, in the paper's order.
MEASURED_SCHEMES = {
    "uniform": "(a) uniform",
    "regular_gaussian": "(b) Gaussian between the modes",
    "thin_gaussian": "(c) thin spike between the modes",
    "adversarial": "(d) spike on an inlier mode",
}
#: The ratios of the table.
MEASURED_RATIOS = (0.05, 0.1, 0.2)


def measured_js(
    rows: pd.DataFrame, robust_h_on: tuple[str, ...] = ("adversarial",)
) -> pd.DataFrame:
    """Mean JS x 1000 per scheme and ratio of the KDE with the CV h (``kde``), MoM-KDE with
    the robust defaults (``mom_kde_auto``) and, on the schemes ``robust_h_on``, the KDE with
    the robust h (``kde_robust``), from a stored run of the library's runner.

    Parameters
    ----------
    rows : DataFrame
        The tidy results (columns ``source, ratio, method, metric, value``), e.g.
        ``docs/results/`` + :data:`MEASURED_JS_FILE`.
    robust_h_on : tuple of str, default ("adversarial",)
        The schemes whose ``kde_robust`` the table gives (NaN elsewhere).

    Returns
    -------
    js : DataFrame
        Columns ``scheme, ratio, kde, mom_kde, kde_robust``, one row per scheme of
        :data:`MEASURED_SCHEMES` (named as the page names them) and ratio of
        :data:`MEASURED_RATIOS`.

    Examples
    --------
    >>> rows = pd.DataFrame({"source": "uniform", "ratio": 0.1, "metric": "js",
    ...                      "method": ["kde", "mom_kde_auto", "kde_robust"] * 2,
    ...                      "value": [0.02, 0.01, 0.03, 0.04, 0.01, 0.03]})
    >>> print(measured_js(rows).round(3).to_string(index=False))
         scheme  ratio  kde  mom_kde  kde_robust
    (a) uniform    0.1 30.0     10.0         NaN
    """
    kept = rows[
        (rows["metric"] == "js")
        & rows["source"].isin(list(MEASURED_SCHEMES))
        & rows["method"].isin(["kde", "mom_kde_auto", "kde_robust"])
        & np.isin(rows["ratio"].round(6), MEASURED_RATIOS)
    ]
    js = (
        kept.assign(ratio=kept["ratio"].round(6))
        .groupby(["source", "ratio", "method"])["value"]
        .mean()
        .mul(1000)
        .unstack("method")
        .rename(columns={"mom_kde_auto": "mom_kde"})
        .reset_index()
    )
    js["kde_robust"] = js["kde_robust"].where(js["source"].isin(robust_h_on))
    js["scheme"] = pd.Categorical(
        js["source"].map(MEASURED_SCHEMES), categories=list(MEASURED_SCHEMES.values())
    )
    js = js.sort_values(["scheme", "ratio"]).reset_index(drop=True)
    js["scheme"] = js["scheme"].astype(str)
    return js[["scheme", "ratio", "kde", "mom_kde", "kde_robust"]].rename_axis(columns=None)


def clean_cost(rows: pd.DataFrame) -> tuple[float, float]:
    """What MoM-KDE's robust defaults cost on clean data: its mean JS over the KDE's (CV h),
    the least and the most over the clean densities of a stored run.

    Parameters
    ----------
    rows : DataFrame
        The tidy results (columns ``source, method, metric, value``), e.g.
        ``docs/results/`` + :data:`CLEAN_JS_FILE`.

    Returns
    -------
    low, high : float
        The least and the most ratio ``mom_kde_auto / kde`` of mean JS.

    Examples
    --------
    >>> rows = pd.DataFrame({"source": ["a", "a", "b", "b"], "metric": "js",
    ...                      "method": ["kde", "mom_kde_auto"] * 2, "value": [1, 1.5, 2, 3.4]})
    >>> clean_cost(rows)
    (1.5, 1.7)
    """
    js = rows[rows["metric"] == "js"].groupby(["source", "method"])["value"].mean().unstack()
    ratio = js["mom_kde_auto"] / js["kde"]
    return float(ratio.min()), float(ratio.max())


def example_one_sample(n_inliers: int, n_outliers: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Example 1's sample: inliers U[-1, 1], then outliers U[-3, 3] (X, is_outlier). The
    outliers are a ``RandomState``'s draws one after the other, so those of a smaller |O|
    are the first of a larger one's (Home's live figure draws every |O| from the largest)."""
    rng = np.random.RandomState(seed)
    X = np.concatenate([rng.uniform(-1, 1, n_inliers), rng.uniform(-3, 3, n_outliers)])[:, None]
    return X, np.arange(len(X)) >= n_inliers


def _tophat_mom(X: np.ndarray, n_blocks: int, h: float, seed: int) -> MoMKDE:
    """Example 1's MoM-KDE: the plain median of the block KDEs (``normalize=False``), as in
    the paper's example: with many blocks and a small h that median can be 0 everywhere, and
    dividing by its integral would be undefined."""
    return MoMKDE(
        n_blocks=n_blocks, bandwidth=h, kernel="tophat", normalize=False, random_state=seed
    ).fit(X)


@one_at_a_time
def example_one_errors(
    n_inliers: int, n_outliers: int, h: float, max_blocks: int, x0: float, seed: int
) -> dict[str, np.ndarray]:
    """|f̂(x0) - f(x0)| of the KDE and of MoM-KDE for every S in 1..``max_blocks``
    (f(x0) = 0 outside [-1, 1]): ``blocks``, the values of S, and each method's errors."""
    X, _ = example_one_sample(n_inliers, n_outliers, seed)
    f_x0 = 0.5 if abs(x0) <= 1 else 0.0
    blocks = np.arange(1, max_blocks + 1)
    mom_err = np.array([abs(_tophat_mom(X, int(S), h, seed).pdf([[x0]])[0] - f_x0) for S in blocks])
    kde_err = abs(KDE(bandwidth=h, kernel="tophat").fit(X).pdf([[x0]])[0] - f_x0)
    return {"blocks": blocks, "kde": np.full(len(blocks), kde_err), "mom_kde": mom_err}


@one_at_a_time
def example_one(
    n_inliers: int, n_outliers: int, h: float, x0: float, seed: int, n_blocks: int
) -> dict[str, object]:
    """The paper's Example 1: inliers U[-1, 1], outliers U[-3, 3], tophat kernel, point x0.

    Returns the sample (``X``, ``is_outlier``), the grid ``xs`` and the ``curves`` of the
    truth, the KDE and MoM-KDE (``n_blocks`` blocks, the plain median) on it, and
    ``n_blocks_with_outlier_near_x0``: the blocks holding an outlier within h of x0.
    """
    X, is_outlier = example_one_sample(n_inliers, n_outliers, seed)
    xs = np.linspace(*EXAMPLE_AXIS)
    truth = np.where(np.abs(xs) <= 1, 0.5, 0.0)
    kde = KDE(bandwidth=h, kernel="tophat").fit(X)
    mom = _tophat_mom(X, n_blocks, h, seed)
    near_x0 = is_outlier & (np.abs(X[:, 0] - x0) <= h)
    return {
        "X": X,
        "is_outlier": is_outlier,
        "xs": xs,
        "curves": {"truth": truth, "kde": kde.pdf_grid(xs), "mom_kde": mom.pdf_grid(xs)},
        "n_blocks_with_outlier_near_x0": int(np.unique(mom.block_of_[near_x0]).size),
    }


@one_at_a_time
def curve_and_screen(scheme: str, n_inliers: int, ratio: float, seed: int) -> dict[str, object]:
    """MoM-KDE as a curve and as a screen, fitted with the library's defaults for the stated
    share ε = ``ratio`` (the true one).

    Parameters
    ----------
    scheme : str
        The paper's contamination scheme of the 1-D sample.
    n_inliers : int
        Its inliers.
    ratio : float
        Its share of outliers, stated to both estimators.
    seed : int
        The sample's and the estimators' seed.

    Returns
    -------
    view : dict
        ``X`` and ``is_outlier``, the sample and its labels; ``xs``, the grid; ``curves``,
        the truth, ``MoMKDE`` and ``ScreenedKDE`` on it; ``set_aside``, the rows the screen
        set aside; ``h``, each estimator's bandwidth.
    """
    data = make_contaminated(scheme, n_inliers=n_inliers, ratio=ratio, dim=1, random_state=seed)
    mom = MoMKDE(contamination=ratio, random_state=seed).fit(data.X)
    screened = ScreenedKDE(contamination=ratio, random_state=seed).fit(data.X)
    xs = plot_grid(data.X, float(mom.bandwidth_)).axes[0]
    return {
        "X": data.X[:, 0],
        "is_outlier": data.is_outlier,
        "xs": xs,
        "curves": {
            "truth": data.true_pdf(xs),
            "mom_kde": mom.pdf_grid(xs),
            "screened_kde": screened.pdf_grid(xs),
        },
        "set_aside": ~screened.inlier_mask_,
        "h": {"mom_kde": float(mom.bandwidth_), "screened_kde": float(screened.bandwidth_)},
    }


@one_at_a_time
def fit_and_evaluate_seconds(
    method: str, n: int, n_eval: int, seed: int, repeats: int = 5, budget: float = 1.0
) -> tuple[int, float, float]:
    """The least seconds, over a few new estimators, to fit ``method`` on the timing's sample
    for ``n`` and to evaluate it.

    The sample is the paper's uniform scheme with 10 % outliers in 1-D; the bandwidth is
    Scott's rule (no CV in the timing, so it measures the estimators only: the screened KDE
    uses that h too, and its fit includes its screen, MoM-KDE with the robust h). The
    repetitions stop once they have taken ``budget`` seconds in all (a fit that slow is far
    above the timer's noise). The engine's replay memo is off while timing
    (``memo_size=0``), so that no repetition replays kernel values an earlier one computed.

    Parameters
    ----------
    method : str
        A key of :data:`~app_support.compute.COMPARED_METHODS`.
    n : int
        The size asked for: 0.9 n inliers and their 10 % of outliers.
    n_eval : int
        The points the density is evaluated at.
    seed : int
        The sample's seed (and the seeded methods').
    repeats : int, default 5
        The most repetitions.
    budget : float, default 1.0
        The seconds after which no repetition is started.

    Returns
    -------
    n_rows : int
        The sample's rows.
    fit, evaluate : float
        The least seconds to fit and to evaluate.
    """
    data = make_contaminated(
        "uniform", n_inliers=int(round(0.9 * n)), ratio=0.1, dim=1, random_state=seed
    )
    h = choose_bandwidth(data.X, "scott", "gaussian", seed).h
    Y = np.linspace(data.X.min(), data.X.max(), n_eval)[:, None]
    s = Settings(bandwidth=h, kernel="gaussian", n_blocks=21, contamination=0.1, seed=seed)
    fits, evaluations = [], []
    with config_context(memo_size=0):
        while len(fits) < repeats and sum(fits) + sum(evaluations) < budget:
            est = make_estimator(method, h, s)
            t0 = time.perf_counter()
            est.fit(data.X)
            t1 = time.perf_counter()
            est.pdf(Y)
            t2 = time.perf_counter()
            fits.append(t1 - t0)
            evaluations.append(t2 - t1)
    return len(data.X), min(fits), min(evaluations)


def when_it_helps_table(js: pd.DataFrame) -> pd.DataFrame:
    """The table of measured JS as the page shows it.

    Parameters
    ----------
    js : DataFrame
        Columns ``scheme, ratio, kde, mom_kde, kde_robust`` (:func:`~app_support.lessons.measured_js`).

    Returns
    -------
    table : DataFrame
        One row per scheme, one column per ratio: "KDE → MoM-KDE", with the KDE with the
        robust h in brackets where it was measured.
    """
    cells = js.assign(
        cell=[
            f"{r.kde:.0f} → {r.mom_kde:.0f}"
            + (f" ({r.kde_robust:.0f})" if pd.notna(r.kde_robust) else "")
            for r in js.itertuples()
        ],
        column=[f"ratio {ratio:g}" for ratio in js["ratio"]],
    )
    table = cells.pivot(index="scheme", columns="column", values="cell")
    table = table.reindex(index=js["scheme"].unique(), columns=cells["column"].unique())
    return table.rename_axis(index=None, columns=None)
