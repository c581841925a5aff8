"""Cached calls into ``momkde_core`` for the pages: sample, fit, evaluate, score, time.

Every function here only orchestrates the library (build an estimator, call ``fit``,
``pdf_grid``, ``score_samples``, the metrics) and is wrapped in ``st.cache_data`` so that a
widget change recomputes only what depends on it: moving S refits MoM-KDE alone, the other
estimators come from the cache. Return values are plain arrays and dicts (cheap to
pickle), never fitted estimators.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE, metrics
from momkde_core import bandwidth as bandwidth_rules
from momkde_core._engine._grid import Grid, grid_around
from momkde_core.bandwidth import n_blocks_for
from momkde_core.kernels import get_kernel
from momkde_core.synthetic import SCHEMES, ContaminatedSample, make_contaminated

#: The estimators the app compares, in display order.
METHODS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde", "screened_kde")
#: The methods a page shows until the user picks others: the paper's four (the screened KDE,
#: a MoM-KDE fit and two cross-validations, is one click away).
DEFAULT_METHODS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde")
#: Methods told the stated share of outliers (MoM-KDE gets it through S, resolved in Settings).
TOLD_THE_SHARE: tuple[str, ...] = ("spkde", "screened_kde")
#: Methods drawing at random: MoM-KDE's blocks; the screened KDE's screen and its CV folds.
SEEDED: tuple[str, ...] = ("mom_kde", "screened_kde")
#: The screened KDE's own bandwidth rule, applied to the rows it keeps, unless h is set on
#: the slider (the page's rules select h on all the rows, outliers included).
SCREENED_RULE = "cv"
#: Grid resolution per dimension for plots and metrics (1-D, 2-D).
GRID_POINTS: dict[int, int] = {1: 512, 2: 110}
#: The repository's stored reproduction results (``momkde reproduce ... --out``).
RESULTS_DIR = Path(__file__).resolve().parent.parent / "docs" / "results"


@dataclass(frozen=True)
class Settings:
    """What the estimators are asked to do: shared by every method of one view."""

    bandwidth: str | float  # "robust", "cv", "scott" or a float h
    kernel: str
    n_blocks: int  # S, already resolved when the user chose "auto"
    contamination: float  # the stated outlier share: S auto, the robust h, SPKDE, the detector
    seed: int
    auto_blocks: bool = False  # S = 2 ceil(contamination n) + 1, as MoMKDE(n_blocks="auto")


def own_bandwidth(s: Settings) -> bool:
    """Whether the screened KDE chooses its own h (:data:`SCREENED_RULE` on the rows it keeps):
    yes for every rule, no when h is a number (the slider's, or a fixed h such as the timing's)."""
    return isinstance(s.bandwidth, str)


def relevant(method: str, s: Settings) -> Settings:
    """``s`` with the settings ``method`` ignores reset, so that moving S (or the stated share,
    for the methods not told it) does not invalidate the cached fits of the methods it does not
    concern. The screened KDE keeps the bandwidth only as "its own rule" or the slider's h."""
    bandwidth = (
        "" if method != "screened_kde" else SCREENED_RULE if own_bandwidth(s) else s.bandwidth
    )
    return replace(
        s,
        bandwidth=bandwidth,
        n_blocks=s.n_blocks if method == "mom_kde" else 1,
        contamination=s.contamination if method in TOLD_THE_SHARE else 0.0,
        seed=s.seed if method in SEEDED else 0,
        auto_blocks=False,
    )


def make_estimator(method: str, h: float, s: Settings):
    """The estimator ``method`` with bandwidth ``h`` (already selected) and the settings ``s``.

    The screened KDE is told the stated share and uses its own rule on the rows it keeps
    (:func:`own_bandwidth`), ``h`` only when the settings hold a number; its screen is
    ScreenedKDE's default (MoM-KDE with S auto and the robust h for that share).
    """
    if method == "kde":
        return KDE(bandwidth=h, kernel=s.kernel)
    if method == "mom_kde":
        return MoMKDE(n_blocks=s.n_blocks, bandwidth=h, kernel=s.kernel, random_state=s.seed)
    if method == "rkde":
        return RKDE(bandwidth=h, kernel=s.kernel)
    if method == "spkde":
        return SPKDE(bandwidth=h, kernel=s.kernel, contamination=s.contamination)
    if method == "screened_kde":
        return ScreenedKDE(
            contamination=s.contamination,
            bandwidth=SCREENED_RULE if own_bandwidth(s) else h,
            kernel=s.kernel,
            random_state=s.seed,
        )
    raise ValueError(f"unknown method {method!r}; allowed: {', '.join(METHODS)}")


@st.cache_data(max_entries=256, show_spinner=False)
def synthetic_sample(
    scheme: str, n_inliers: int, ratio: float, dim: int, seed: int
) -> ContaminatedSample:
    """The paper's contaminated sample (cached: the same controls give the same points)."""
    return make_contaminated(scheme, n_inliers=n_inliers, ratio=ratio, dim=dim, random_state=seed)


#: Held while a bandwidth is chosen with the library's warnings recorded (select_bandwidth).
_WARNINGS_LOCK = threading.Lock()


@st.cache_data(max_entries=256, show_spinner="Choosing the bandwidth…")
def select_bandwidth(
    X: np.ndarray, rule: str | float, kernel: str, seed: int, contamination: float = 0.1
) -> float:
    """h for ``rule`` ("robust", "cv", "scott" or a float), then shared by the estimators (the
    screened KDE's own rule aside: :func:`own_bandwidth`) so the comparison is about
    robustness alone. "robust" is the h that ``MoMKDE(n_blocks="auto",
    contamination=contamination)`` selects (a spike of outliers cannot capture it); "cv" is
    the paper's cross-validation of the plain KDE. A warning of the library (CV running into
    its smallest candidate on tied data) is shown on the page (st.cache_data replays it on
    cached runs)."""
    # catch_warnings swaps process-wide state: two threads inside it at once (two sessions, or
    # a session and the warm-up) could lose each other's warnings or leave the recording on
    with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = float(
            bandwidth_rules.select_bandwidth(
                np.asarray(X, dtype=float),
                rule,
                get_kernel(kernel),
                random_state=seed,
                contamination=contamination,
            )
        )
    for warning in caught:
        st.warning(str(warning.message), icon=":material/warning:")
    return h


def plot_grid(X: np.ndarray, h: float) -> Grid:
    """The evaluation grid of a view: the data's box widened by 3 h, ``GRID_POINTS`` per axis."""
    X = np.asarray(X, dtype=float)
    return grid_around(X, 3.0 * h, GRID_POINTS[min(X.shape[1], 2)])


@st.cache_data(max_entries=1024, show_spinner=False)
def fit_evaluate(
    method: str,
    X: np.ndarray,
    axes: tuple[np.ndarray, ...],
    h: float,
    s: Settings,
    with_blocks: bool = False,
    score_points: bool = True,
) -> dict[str, np.ndarray]:
    """Fit ``method`` on X; its density on the grid ``axes``, log density at X, (for MoM-KDE
    with ``with_blocks``) the S block KDEs on the normalised median's scale, and (for the
    screened KDE) its own bandwidth ``bandwidth`` (one per feature) and the rows it kept,
    ``kept``."""
    est = make_estimator(method, h, s).fit(X)
    out = {"grid": est.pdf_grid(*axes)}
    if score_points:
        out["scores"] = est.score_samples(X)
    if with_blocks and method == "mom_kde":
        out["blocks"] = est.block_pdf_grid(*axes) / np.exp(est.log_norm_)
    if method == "screened_kde":
        out["bandwidth"] = np.broadcast_to(est.bandwidth_, X.shape[1]).astype(float)
        out["kept"] = np.asarray(est.inlier_mask_, bool)
    return out


def fit_all(
    methods: list[str],
    X: np.ndarray,
    axes: tuple[np.ndarray, ...],
    h: float,
    s: Settings,
    with_blocks: bool = False,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, str]]:
    """``fit_evaluate`` for each method; a method whose parameters are invalid (e.g. SPKDE
    with a non-Gaussian kernel) lands in the second dict with its message, not in an error."""
    results, failures = {}, {}
    for method in methods:
        try:
            results[method] = fit_evaluate(method, X, axes, h, relevant(method, s), with_blocks)
        except ValueError as err:
            failures[method] = str(err)
    return results, failures


@dataclass(frozen=True)
class ExploreView:
    """Everything the Explore page draws for one choice of its controls."""

    data: ContaminatedSample
    h: float
    h_robust: float | None  # the robust rule's h beside a cross-validated one, else None
    grid: Grid
    results: dict[str, dict[str, np.ndarray]]
    failures: dict[str, str]
    truth: np.ndarray


def explore_view(
    scheme: str,
    n_inliers: int,
    ratio: float,
    dim: int,
    s: Settings,
    methods: tuple[str, ...] = DEFAULT_METHODS,
    with_blocks: bool = False,
) -> ExploreView:
    """The Explore page's sample, bandwidth, fits and true density on the plot grid, for the
    seed, rule, kernel, S and stated share of ``s``. Its steps are cached one by one, so a
    move of S refits MoM-KDE alone, and the views :func:`warm_views` computed at server
    start are cache hits."""
    data = synthetic_sample(scheme, n_inliers, ratio, dim, s.seed)
    h = select_bandwidth(data.X, s.bandwidth, s.kernel, s.seed, s.contamination)
    # the robust rule's h, to tell whether the cross-validated h followed a spike of outliers
    h_robust = (
        select_bandwidth(data.X, "robust", s.kernel, s.seed, s.contamination)
        if s.bandwidth == "cv"
        else None
    )
    grid = plot_grid(data.X, h)
    results, failures = fit_all(list(methods), data.X, grid.axes, h, s, with_blocks)
    truth = data.true_pdf(grid.points).reshape(grid.shape)
    return ExploreView(data, h, h_robust, grid, results, failures, truth)


#: The Explore page's controls at their defaults (the robust h, S auto, ε the true ratio).
EXPLORE_DEFAULTS: dict[str, object] = {
    "scheme": "uniform",
    "n_inliers": 1000,
    "ratio": 0.1,
    "kernel": "gaussian",
}
#: The outlier-ratio slider's step and its values (rounded, as the page rounds the slider's).
RATIO_STEP = 0.05
#: The environment variable that turns :func:`warm_views` off ("0"): the tests, which start
#: many servers, set it.
WARM_ENV = "MOMKDE_APP_WARM"


def ratio_values(max_share: float) -> list[float]:
    """The outlier ratios the page's slider offers, rounded to its step's two decimals."""
    return [round(k * RATIO_STEP, 2) for k in range(int(round(max_share / RATIO_STEP)) + 1)]


def drawn_ratio(scheme: str, ratio: float) -> float:
    """The outlier ratio a view draws: 0 without outliers (scheme "none"), else the slider's
    value rounded to its step (a float sum of steps may differ in its last bits), so that
    the page and :func:`default_views` name the same cached views."""
    return 0.0 if scheme == "none" else round(ratio, 2)


def default_settings(n: int, eps: float, kernel: str = "gaussian", seed: int = 0) -> Settings:
    """The settings of the page's estimator controls left at their defaults, for ``n`` rows
    and the stated share ``eps``: the robust h, S auto = 2 ceil(eps n) + 1."""
    return Settings(
        bandwidth="robust",
        kernel=kernel,
        n_blocks=n_blocks_for(n, eps),
        contamination=float(eps),
        seed=seed,
        auto_blocks=True,
    )


def default_views(max_share: float, kernels: tuple[str, ...]) -> Iterator[tuple]:
    """The arguments of :func:`explore_view` one move away from Explore's opening view, most
    likely first: in 1-D then 2-D, every outlier ratio, every scheme, every kernel (the other
    controls at their defaults: ε follows the ratio, the paper's four methods)."""
    base = EXPLORE_DEFAULTS
    for dim in (1, 2):
        moves = [(base["scheme"], r, base["kernel"]) for r in ratio_values(max_share)]
        moves.sort(key=lambda m: abs(m[1] - base["ratio"]))  # nearest ratios first
        moves += [(scheme, base["ratio"], base["kernel"]) for scheme in SCHEMES]
        moves += [(base["scheme"], base["ratio"], kernel) for kernel in kernels]
        seen = set()
        for scheme, ratio, kernel in moves:
            ratio = drawn_ratio(scheme, ratio)
            if (scheme, ratio, kernel) in seen:
                continue
            seen.add((scheme, ratio, kernel))
            n = len(synthetic_sample(scheme, base["n_inliers"], ratio, dim, 0).X)
            settings = default_settings(n, ratio, kernel)
            yield scheme, base["n_inliers"], ratio, dim, settings, DEFAULT_METHODS


def warm_views(max_share: float, kernels: tuple[str, ...]) -> int:
    """Compute :func:`default_views` into the caches, one after the other; returns how many
    views were computed (a view whose settings a method refuses, e.g. SPKDE with another
    kernel than the Gaussian, is computed without it, as the page does).

    Run once per server process in a background thread (``app.py``), so that the first moves
    of a class from the opening view redraw from the cache. Off when the environment sets
    ``MOMKDE_APP_WARM=0``. Streamlit warns once per cached call made outside a session
    ("missing ScriptRunContext"); that logger is raised to errors for the server's lifetime,
    since these calls are outside a session on purpose.
    """
    if os.environ.get(WARM_ENV, "1") == "0":
        return 0
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(
        logging.ERROR
    )
    count = 0
    for args in default_views(max_share, kernels):
        try:
            explore_view(*args)
        except ValueError:  # a view the page shows as an error: nothing to keep
            continue
        count += 1
    return count


def require_fitted(results: dict[str, dict[str, np.ndarray]]) -> None:
    """Raise a ValueError when :func:`fit_all` fitted no method (each failure is shown as a
    warning by the page), so that the page shows an error instead of an empty figure."""
    if not results:
        raise ValueError(
            "none of the chosen methods can be fitted with these settings (see the warnings "
            "above): choose another method or the Gaussian kernel"
        )


def _safe(fn, *args) -> float:
    """fn(*args), or NaN when the metric is undefined for these inputs (e.g. AUC, one class)."""
    try:
        return float(fn(*args))
    except ValueError:
        return float("nan")


def metric_table(
    results: dict[str, dict[str, np.ndarray]],
    truth: np.ndarray | None,
    cell: float,
    is_outlier: np.ndarray | None,
) -> pd.DataFrame:
    """JS, both KLs (against the true density ``truth`` on the grid) and AUC per method.

    Rows are methods; a metric that cannot be computed (no true density, one class only)
    is NaN, which the page shows as an empty cell.
    """
    rows = {}
    for method, res in results.items():
        row = {}
        if truth is not None:
            row["JS"] = _safe(metrics.js_divergence, res["grid"], truth, cell)
            row["KL(f̂‖f)"] = _safe(metrics.kl_divergence, res["grid"], truth, cell)
            row["KL(f‖f̂)"] = _safe(metrics.kl_divergence, truth, res["grid"], cell)
        if is_outlier is not None:
            row["AUC"] = _safe(metrics.auc, res["scores"], is_outlier)
        rows[method] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def _example_one_sample(
    n_inliers: int, n_outliers: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Example 1's sample: inliers U[-1, 1], then outliers U[-3, 3] (X, is_outlier)."""
    rng = np.random.RandomState(seed)
    X = np.concatenate([rng.uniform(-1, 1, n_inliers), rng.uniform(-3, 3, n_outliers)])[:, None]
    return X, np.arange(len(X)) >= n_inliers


@st.cache_data(max_entries=32, show_spinner=False)
def example_one_errors(
    n_inliers: int, n_outliers: int, h: float, max_blocks: int, x0: float, seed: int
) -> dict[str, np.ndarray]:
    """|f̂(x0) - f(x0)| of the KDE and of MoM-KDE for every S in 1..``max_blocks`` (cached apart
    from S, so that moving the S slider does not refit the whole curve)."""
    X, _ = _example_one_sample(n_inliers, n_outliers, seed)
    f_x0 = 0.5 if abs(x0) <= 1 else 0.0
    blocks = np.arange(1, max_blocks + 1)
    mom_err = np.array(
        [
            abs(
                MoMKDE(
                    n_blocks=int(S),
                    bandwidth=h,
                    kernel="tophat",
                    normalize=False,
                    random_state=seed,
                )
                .fit(X)
                .pdf([[x0]])[0]
                - f_x0
            )
            for S in blocks
        ]
    )
    kde_err = abs(KDE(bandwidth=h, kernel="tophat").fit(X).pdf([[x0]])[0] - f_x0)
    return {"blocks": blocks, "kde": np.full(len(blocks), kde_err), "mom_kde": mom_err}


@st.cache_data(max_entries=32, show_spinner=False)
def example_one(
    n_inliers: int, n_outliers: int, h: float, max_blocks: int, x0: float, seed: int, n_blocks: int
) -> dict[str, object]:
    """The paper's Example 1: inliers U[-1, 1], outliers U[-3, 3], tophat kernel, point x0.

    Returns the sample, KDE and MoM-KDE (``n_blocks`` blocks) on a grid, and the error
    |f̂(x0) - f(x0)| of both for every S in 1..``max_blocks`` (f(x0) = 0 outside [-1, 1]).
    MoM-KDE is the plain median of the block KDEs (``normalize=False``), as in the paper's
    example: with many blocks and a small h that median can be 0 everywhere, and dividing
    by its integral would be undefined.
    """
    X, is_outlier = _example_one_sample(n_inliers, n_outliers, seed)
    xs = np.linspace(-3.5, 3.5, 701)
    truth = np.where(np.abs(xs) <= 1, 0.5, 0.0)
    errors = example_one_errors(n_inliers, n_outliers, h, max_blocks, x0, seed)
    kde = KDE(bandwidth=h, kernel="tophat").fit(X)
    mom = MoMKDE(
        n_blocks=n_blocks, bandwidth=h, kernel="tophat", normalize=False, random_state=seed
    ).fit(X)
    near_x0 = is_outlier & (np.abs(X[:, 0] - x0) <= h)
    return {
        "X": X,
        "is_outlier": is_outlier,
        "xs": xs,
        "curves": {"truth": truth, "kde": kde.pdf_grid(xs), "mom_kde": mom.pdf_grid(xs)},
        "blocks": errors["blocks"],
        "errors": {"kde": errors["kde"], "mom_kde": errors["mom_kde"]},
        "n_blocks_with_outlier_near_x0": int(np.unique(mom.block_of_[near_x0]).size),
    }


def measure_times(sizes: tuple[int, ...], n_eval: int, seed: int, _progress=None) -> pd.DataFrame:
    """Wall-clock seconds to fit and to evaluate (``n_eval`` points) each method, per n: the
    least of a few repetitions (:func:`_fit_and_evaluate_seconds`), so that a pause of a
    shared machine does not pass for a cost.

    The sample is the paper's uniform scheme with 10 % outliers in 1-D; the bandwidth is
    Scott's rule (no CV in the timing, so it measures the estimators only: the screened KDE
    uses that h too, and its fit includes its screen, MoM-KDE with the robust h). ``_progress``
    is called with the fraction done.

    Each (n, method) timing is cached (:func:`_fit_and_evaluate_seconds`), this loop is not:
    a cached function replays the elements it drew, and a progress bar of the page updated
    from inside one cannot be replayed (Streamlit raises on the next run that hits the cache).
    """
    rows = []
    total = len(sizes) * len(METHODS)
    for i, n in enumerate(sizes):
        for j, method in enumerate(METHODS):
            n_rows, fit, evaluate = _fit_and_evaluate_seconds(method, n, n_eval, seed)
            rows += [
                {"method": method, "n": n_rows, "phase": "fit", "seconds": fit},
                {"method": method, "n": n_rows, "phase": "evaluate", "seconds": evaluate},
            ]
            if _progress is not None:
                _progress((i * len(METHODS) + j + 1) / total)
    return pd.DataFrame(rows)


@st.cache_data(max_entries=64, show_spinner=False)
def _fit_and_evaluate_seconds(
    method: str, n: int, n_eval: int, seed: int, repeats: int = 5, budget: float = 1.0
) -> tuple[int, float, float]:
    """The least seconds, over a few new estimators, to fit ``method`` on :func:`measure_times`'
    sample for ``n`` and to evaluate it.

    The repetitions stop once they have taken ``budget`` seconds in all (a fit that slow is
    far above the timer's noise). The engine's replay memo is off while timing
    (``memo_size=0``), so that no repetition replays kernel values an earlier one computed.

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`.
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
    from momkde_core import config_context

    data = make_contaminated(
        "uniform", n_inliers=int(round(0.9 * n)), ratio=0.1, dim=1, random_state=seed
    )
    h = select_bandwidth(data.X, "scott", "gaussian", seed)
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


@st.cache_data(max_entries=4, show_spinner=False)
def read_csv_bytes(identity: str, _raw: bytes, max_bytes: int) -> pd.DataFrame:
    """A user's CSV, validated by ``momkde_core.io.read_user_csv``, cached on ``identity``
    (the file's SHA-256 or the bundled sample's name: hashing the bytes again at every rerun
    would cost as much, on a large file, as the rest of the run)."""
    import io

    from momkde_core.io import read_user_csv

    return read_user_csv(io.BytesIO(_raw), max_bytes=max_bytes)


def row_sample(n: int, max_rows: int, seed: int) -> np.ndarray:
    """Sorted indices of at most ``max_rows`` of ``n`` rows drawn without replacement (all
    rows when n <= max_rows): how the app keeps very large files and costly fits responsive."""
    if n <= max_rows:
        return np.arange(n)
    return np.sort(np.random.RandomState(seed).choice(n, max_rows, replace=False))


def standardized(X: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to unit variance (scikit-learn's StandardScaler), so one
    bandwidth suits every column of a user's table."""
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X)


@st.cache_data(max_entries=1024, show_spinner=False)
def sweep_rows(
    kind: str,
    source: str,
    ratio: float,
    reps: int,
    seed: int,
    methods: tuple[str, ...],
    dim: int = 1,
    n_inliers: int = 1000,
    data_dir: str | None = None,
    protocol: str = "honest",
    contamination: float | None | str = "guess",
) -> pd.DataFrame:
    """The experiment runner's rows for one source at one ratio (all repetitions), cached
    separately so that raising the repetitions or adding a ratio reruns only what is new.
    ``protocol`` and ``contamination`` (the share stated to SPKDE and the robust defaults:
    "guess" for 0.2, None for the true ratio) are those of ``make_tasks``."""
    from momkde_core.experiments._runner import make_tasks, run_experiments

    tasks = make_tasks(
        kind,
        [source],
        ratios=[ratio],
        reps=reps,
        seed=seed,
        methods=methods,
        dim=dim,
        n_inliers=n_inliers,
        data_dir=data_dir,
        protocol=protocol,
        contamination=contamination,
    )
    return run_experiments(tasks)


def display_names(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the runner's ``mom_kde`` (its held-out S rule with the shared CV h)
    renamed ``mom_kde_rule``: in the app "MoM-KDE" is the library's default (auto S, robust h,
    the runner's ``mom_kde_auto``), and legends and colours must tell the two apart."""
    return results.assign(method=results["method"].replace({"mom_kde": "mom_kde_rule"}))


def runner_methods(methods) -> tuple[str, ...]:
    """The experiment runner's names of the app's methods: the inverse of
    :func:`display_names` (the app's ``mom_kde_rule`` is the runner's ``mom_kde``)."""
    return tuple("mom_kde" if m == "mom_kde_rule" else m for m in methods)


def run_sweep(
    kind: str,
    sources: list[str],
    ratios: list[float],
    reps: int,
    seed: int,
    methods: tuple[str, ...],
    **options,
) -> pd.DataFrame:
    """``sweep_rows`` over sources x ratios with a progress bar; the concatenated tidy table,
    methods named for display (:func:`display_names`)."""
    from .widgets import SCHEME_LABELS  # widgets imports this module

    jobs = [(source, ratio) for source in sources for ratio in ratios]
    bar = st.progress(0.0, text="Running the sweep…")
    parts = []
    for i, (source, ratio) in enumerate(jobs):
        bar.progress(
            i / len(jobs),
            text=f"{SCHEME_LABELS.get(source, source.replace('_', ' '))}, ratio {ratio:.2f} "
            f"({i + 1} of {len(jobs)})",
        )
        parts.append(sweep_rows(kind, source, ratio, reps, seed, methods, **options))
    bar.empty()
    return display_names(pd.concat(parts, ignore_index=True))


def latest_results(prefix: str, directory: Path = RESULTS_DIR) -> Path | None:
    """The stored results file ``<prefix>_<k>reps.csv.gz`` with the most repetitions k (the
    newest reproduction: a 50-repetition run replaces a 10-repetition one), or None."""
    found = {
        int(m.group(1)): path
        for path in directory.glob(f"{prefix}_*reps.csv.gz")
        if (m := re.fullmatch(re.escape(prefix) + r"_(\d+)reps\.csv\.gz", path.name))
    }
    return found[max(found)] if found else None


@st.cache_data(max_entries=4, show_spinner=False)
def stored_results(path: Path) -> pd.DataFrame:
    """A stored results table (cached: the page opens on it instantly after the first read)."""
    return pd.read_csv(path)


@st.cache_data(show_spinner=False)
def dataset_problem(name: str, env_dir: str | None) -> str | None:
    """None when the data set ``name`` loads from where the library looks for it
    ($MOMKDE_DATA_DIR, else the user data folder), else the library's message: the folder it
    searched and why, and how to install the file. ``env_dir``, the variable's value, is an
    argument only so that the cache follows a change of the environment."""
    from momkde_core.datasets import load_dataset

    try:
        load_dataset(name)
    except ValueError as err:
        return str(err)
    return None
