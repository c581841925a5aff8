"""The app's computations on the library: build, fit, evaluate, score, without Streamlit.

Every function here only orchestrates ``momkde_core`` (build an estimator, call ``fit``,
``pdf_grid``, ``score_samples``, the metrics) and returns plain arrays, tables and records
(cheap to pickle), never fitted estimators. What a computation warns about is returned with
its result, as data (:class:`Bandwidth`), for the page that asked to show:
:mod:`app_support.cache` caches these functions for the pages, and a cached result must not
draw on whichever page happens to compute it first.
"""

from __future__ import annotations

import io
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import wraps

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from momkde_core import bandwidth as bandwidth_rules
from momkde_core import metrics
from momkde_core._engine import Grid, grid_around
from momkde_core.kernels import get_kernel
from momkde_core.methods import DEFAULT_DETECTOR, METHODS, build_estimator, method_label

#: The estimators the app compares, in display order: detector methods of the registry
#: (:data:`momkde_core.methods.DETECTOR_METHODS`) fitted with the page's shared h, kernel and S.
COMPARED_METHODS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde", "screened_kde")
#: The methods a page shows until the user picks others: the paper's four (the screened KDE,
#: a MoM-KDE fit and two cross-validations, is one click away).
DEFAULT_METHODS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde")
#: The Your data page's methods: the library's default detector
#: (:data:`momkde_core.methods.DEFAULT_DETECTOR`, MoM-KDE with its own S = 21 and Scott's h,
#: what ``OutlierDetector()`` and ``momkde score`` use) first, then the compared ones. Explore
#: keeps :data:`COMPARED_METHODS` (a comparison at one shared h).
YOUR_DATA_METHODS: tuple[str, ...] = (DEFAULT_DETECTOR, *COMPARED_METHODS)
#: The methods Your data scores until the user picks others: the default detector, which
#: flags the rows, and the paper's four.
YOUR_DATA_DEFAULTS: tuple[str, ...] = (DEFAULT_DETECTOR, *DEFAULT_METHODS)
#: Grid resolution per dimension for plots and metrics (1-D, 2-D).
GRID_POINTS: dict[int, int] = {1: 512, 2: 110}


@dataclass(frozen=True)
class Settings:
    """What the estimators are asked to do: shared by every method of one view.

    Attributes
    ----------
    bandwidth : str or float
        "robust", "cv", "scott" or a float h.
    kernel : str
        The kernel's name.
    n_blocks : int
        S, already resolved when the user chose "auto".
    contamination : float
        The stated outlier share: S auto, the robust h, SPKDE, the detector.
    seed : int
        The seed of the methods that draw at random.
    auto_blocks : bool, default False
        Whether S = 2 ceil(contamination n) + 1, as ``MoMKDE(n_blocks="auto")``.
    """

    bandwidth: str | float
    kernel: str
    n_blocks: int
    contamination: float
    seed: int
    auto_blocks: bool = False


def own_bandwidth(s: Settings) -> bool:
    """Whether a method with a rule of its own (the registry's
    :attr:`~momkde_core.methods.Method.own_bandwidth`: the screened KDE's, on the rows it
    keeps) applies it: yes for every rule of the page, no when h is a number (the slider's,
    or a fixed h such as the timing's). The page's rules select h on all the rows, outliers
    included."""
    return isinstance(s.bandwidth, str)


def relevant(method: str, s: Settings) -> Settings:
    """``s`` with the settings ``method`` ignores reset, so that moving S (or the stated share,
    for the methods whose fit does not read it) does not invalidate the cached fits of the
    methods it does not concern. A method with a rule of its own keeps the bandwidth only as
    that rule or the slider's h. What each method reads is the registry's
    (:class:`~momkde_core.methods.Method`): S when it is chosen at fit (``auto_blocks``),
    the share when its fit reads it (``share_in_fit``), the seed when it draws at random
    (``seeded``)."""
    method_ = METHODS[method]
    rule = method_.own_bandwidth
    return replace(
        s,
        bandwidth="" if rule is None else rule if own_bandwidth(s) else s.bandwidth,
        n_blocks=s.n_blocks if method_.auto_blocks else 1,
        contamination=s.contamination if method_.share_in_fit else 0.0,
        seed=s.seed if method_.seeded else 0,
        auto_blocks=False,
    )


def make_estimator(method: str, h: float, s: Settings) -> BaseEstimator:
    """The registry's estimator ``method`` (:func:`momkde_core.methods.build_estimator`, one
    of :data:`YOUR_DATA_METHODS`) with bandwidth ``h`` (already selected) and the settings ``s``.

    A method whose S is chosen at fit (MoM-KDE) gets S from the settings; the methods that
    draw at random get the seed. The default detector
    (:data:`~momkde_core.methods.DEFAULT_DETECTOR`) is the library's, with its own S, h and
    Gaussian kernel (``h``, S and the kernel are ignored), seeded. A method with a rule of
    its own (the screened KDE) applies it to the rows it keeps (:func:`own_bandwidth`),
    ``h`` only when the settings hold a number; the screened KDE's screen is its default
    (MoM-KDE with S auto and the robust h for the stated share).
    """
    if method not in YOUR_DATA_METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(YOUR_DATA_METHODS)}")
    if method == DEFAULT_DETECTOR:  # the library's default, as OutlierDetector() fits it
        return build_estimator(method, contamination=s.contamination, random_state=s.seed)
    method_ = METHODS[method]
    rule = method_.own_bandwidth
    params = {"bandwidth": rule if rule is not None and own_bandwidth(s) else h, "kernel": s.kernel}
    if method_.auto_blocks:
        params["n_blocks"] = s.n_blocks
    return build_estimator(
        method,
        contamination=s.contamination,
        random_state=s.seed if method_.seeded else None,
        **params,
    )


@dataclass(frozen=True)
class Bandwidth:
    """A bandwidth chosen by a rule, with what the library warned while choosing it.

    Attributes
    ----------
    h : float
        The bandwidth.
    warnings : tuple of str
        The library's warnings, in order (CV running into its smallest bandwidth on near-tied
        data, say): the page that asked for h shows them.
    """

    h: float
    warnings: tuple[str, ...] = ()


#: Held by every computation that records the library's warnings (:func:`library_warnings`)
#: or runs library code that swaps the warning filters itself (ScreenedKDE's screen, the
#: experiment runner: :func:`one_at_a_time`). ``warnings.catch_warnings`` swaps process-wide
#: state: two threads inside it at once (two sessions, or a session and the warm-up) would
#: restore each other's state, and leave a recorder installed for good. Re-entrant, so that a
#: recorded computation may call another.
_WARNING_STATE = threading.RLock()


@contextmanager
def library_warnings() -> Iterator[list[str]]:
    """Record the warnings raised by this thread inside the block, in order and once each,
    into the list it yields, instead of emitting them.

    ``warnings.catch_warnings`` is process-wide: a recorder installed by one thread also
    receives what any other thread warns meanwhile (a warm-up fit's "1639 blocks for 1818
    points" in a session's list). The recorder here keeps only its own thread's warnings and
    passes the others on, as they would have gone without it (the terminal); the lock
    :data:`_WARNING_STATE` keeps two recorders from overlapping.
    """
    owner = threading.get_ident()
    said: list[str] = []
    with _WARNING_STATE, warnings.catch_warnings():
        warnings.simplefilter("always")
        passed_on = warnings.showwarning

        def record(message, category, filename, lineno, file=None, line=None):
            if threading.get_ident() != owner:
                passed_on(message, category, filename, lineno, file, line)
            elif str(message) not in said:
                said.append(str(message))

        warnings.showwarning = record
        yield said


def one_at_a_time(fn: Callable) -> Callable:
    """``fn`` run under :data:`_WARNING_STATE`: for computations whose library code swaps the
    warning filters itself (ScreenedKDE's screen records its MoM-KDE's warnings, the
    experiment runner silences the thin blocks of its S rules), so that they cannot overlap
    a recorder of another thread (:func:`library_warnings`)."""

    @wraps(fn)
    def locked(*args, **kwargs):
        with _WARNING_STATE:
            return fn(*args, **kwargs)

    return locked


def choose_bandwidth(
    X: np.ndarray, rule: str | float, kernel: str, seed: int, contamination: float = 0.1
) -> Bandwidth:
    """h for ``rule`` ("robust", "cv", "scott" or a float), then shared by the estimators (the
    screened KDE's own rule aside: :func:`own_bandwidth`) so the comparison is about
    robustness alone.

    "robust" is the h that ``MoMKDE(n_blocks="auto", contamination=contamination)`` selects
    (a spike of outliers within the stated share cannot capture it; a cluster beyond it
    can); "cv" is the paper's cross-validation of the plain
    KDE. The library's warnings are recorded and returned with h, not emitted.
    """
    with library_warnings() as said:
        h = float(
            bandwidth_rules.select_bandwidth(
                np.asarray(X, dtype=float),
                rule,
                get_kernel(kernel),
                random_state=seed,
                contamination=contamination,
            )
        )
    return Bandwidth(h, tuple(said))


def plot_grid(X: np.ndarray, h: float) -> Grid:
    """The evaluation grid of a view: the data's box widened by 3 h, ``GRID_POINTS`` per axis."""
    X = np.asarray(X, dtype=float)
    return grid_around(X, 3.0 * h, GRID_POINTS[min(X.shape[1], 2)])


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
    ``kept``. MoM-KDE's ``median_mass`` is the share of the block KDEs' mass its median holds
    (the library warns below one half). ``warnings`` holds what the library warned during the
    fit, each message after the method's name, for the page that asked to show."""
    with library_warnings() as said:
        est = make_estimator(method, h, s).fit(X)
        out = {"grid": est.pdf_grid(*axes)}
        if score_points:
            out["scores"] = est.score_samples(X)
    if METHODS[method].auto_blocks:  # MoM-KDE at the page's S
        out["median_mass"] = float(np.exp(est.log_norm_))
        if with_blocks:
            out["blocks"] = est.block_pdf_grid(*axes) / np.exp(est.log_norm_)
    if hasattr(est, "inlier_mask_"):  # the screened KDE: its own h and the rows it kept
        out["bandwidth"] = np.broadcast_to(est.bandwidth_, X.shape[1]).astype(float)
        out["kept"] = np.asarray(est.inlier_mask_, bool)
    out["warnings"] = tuple(f"{method_label(method)}: {message}" for message in said)
    return out


def require_fitted(results: Mapping[str, Mapping[str, np.ndarray]]) -> None:
    """Raise a ValueError when no method was fitted (each failure is shown as a warning by
    the page), so that the page shows an error instead of an empty figure."""
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
    results: Mapping[str, Mapping[str, np.ndarray]],
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


def read_csv(raw: bytes, max_bytes: int) -> pd.DataFrame:
    """A user's CSV, validated by ``momkde_core.io.read_user_csv``."""
    from momkde_core.io import read_user_csv

    return read_user_csv(io.BytesIO(raw), max_bytes=max_bytes)
