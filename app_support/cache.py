"""The app's computations as the pages call them: cached, composed, with their progress shown.

Each step of :mod:`app_support.compute`, :mod:`~app_support.lessons`,
:mod:`~app_support.results` and :mod:`~app_support.scoring` (pure functions, without
Streamlit) is wrapped here in ``st.cache_data``, one cache per step, so that a widget change
recomputes only what depends on it: moving S refits MoM-KDE alone, the other estimators come
from the cache. Nothing cached draws on the page: what a step warns about is in its result
(:class:`~app_support.compute.Bandwidth`, a fit's ``warnings``), recorded in the thread that
computed it (:func:`~app_support.compute.library_warnings`), for the page that asked to show,
so that a result computed by another session or by the warm-up thread (:func:`warm_server`)
puts nothing on a page that did not ask. This module is part of the Streamlit side of
``app_support`` (docs/architecture.md): the modules it wraps never import Streamlit.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from momkde_core.experiments import SYNTHETIC_SCHEMES
from momkde_core.methods import METHODS
from momkde_core.synthetic import make_contaminated

from . import compute, lessons, mechanism, prepare, results, scoring, tables
from .captions import learn as learn_captions
from .choices import SCHEME_LABELS
from .compute import Settings
from .views import ExploreView, default_views

#: The environment variable that turns :func:`warm_views` off ("0"): the tests, which start
#: many servers, set it.
WARM_ENV = "MOMKDE_APP_WARM"


#: :func:`~momkde_core.synthetic.make_contaminated`, the paper's contaminated sample, cached
#: (called with the scheme, inliers, ratio, dimension and seed, in that order).
synthetic_sample = st.cache_data(max_entries=256, show_spinner=False)(make_contaminated)
#: :func:`app_support.mechanism.placed_sample`, the sample with outliers placed by the user,
#: cached (the same arguments as :data:`synthetic_sample`, then k and the place).
placed_sample = st.cache_data(max_entries=256, show_spinner=False)(mechanism.placed_sample)
#: :func:`app_support.mechanism.block_values`, the S block KDEs at the locked point, cached.
block_values = st.cache_data(max_entries=256, show_spinner=False)(mechanism.block_values)
#: :func:`app_support.mechanism.construction`, MoM-KDE's construction step by step, cached.
construction = st.cache_data(max_entries=8, show_spinner=False)(mechanism.construction)
#: :func:`app_support.compute.choose_bandwidth`, cached: h and the library's warnings.
select_bandwidth = st.cache_data(max_entries=256, show_spinner="Choosing the bandwidth…")(
    compute.choose_bandwidth
)
#: :func:`app_support.compute.fit_evaluate`, cached per method and the settings it depends on.
fit_evaluate = st.cache_data(max_entries=1024, show_spinner=False)(compute.fit_evaluate)


def explore_sample(
    scheme: str,
    n_inliers: int,
    ratio: float,
    dim: int,
    seed: int,
    placed: tuple[int, tuple[float, ...]] = (0, ()),
):
    """Explore's sample: :data:`synthetic_sample` (the views computed ahead), or with
    ``placed`` = (k, place), k > 0, :data:`placed_sample`."""
    k, at = placed
    if k:
        return placed_sample(scheme, n_inliers, ratio, dim, seed, k, tuple(at))
    return synthetic_sample(scheme, n_inliers, ratio, dim, seed)


def fit_all(
    methods: Sequence[str],
    X: np.ndarray,
    axes: tuple[np.ndarray, ...],
    h: float,
    s: Settings,
    with_blocks: bool = False,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, str]]:
    """:func:`fit_evaluate` for each method, with the settings it depends on only
    (:func:`~app_support.compute.relevant`); a method whose parameters are invalid (e.g. SPKDE
    with a non-Gaussian kernel) lands in the second dict with its message, not in an error.
    ``with_blocks`` reaches MoM-KDE's call alone (the only one that draws its blocks), so that
    the block KDEs' toggle refits no other method."""
    fitted, failures = {}, {}
    for method in methods:
        try:
            fitted[method] = fit_evaluate(
                method,
                X,
                axes,
                h,
                compute.relevant(method, s),
                with_blocks and METHODS[method].auto_blocks,
            )
        except ValueError as err:
            failures[method] = str(err)
    return fitted, failures


def explore_view(
    scheme: str,
    n_inliers: int,
    ratio: float,
    dim: int,
    s: Settings,
    methods: tuple[str, ...],
    with_blocks: bool = False,
    placed: tuple[int, tuple[float, ...]] = (0, ()),
) -> ExploreView:
    """The Explore page's sample, bandwidth, fits and true density on the plot grid, for the
    seed, rule, kernel, S and stated share of ``s``, with ``placed`` = (k, place): k outliers
    placed there (:func:`~app_support.mechanism.with_cluster`). Its steps are cached one by
    one, so a move of S refits MoM-KDE alone, and the views :func:`warm_views` computed at
    server start are cache hits."""
    data = explore_sample(scheme, n_inliers, ratio, dim, s.seed, placed)
    chosen = select_bandwidth(data.X, s.bandwidth, s.kernel, s.seed, s.contamination)
    # the robust rule's h, to tell whether the cross-validated h followed a spike of outliers
    robust = (
        select_bandwidth(data.X, "robust", s.kernel, s.seed, s.contamination)
        if s.bandwidth == "cv"
        else None
    )
    grid = compute.plot_grid(data.X, chosen.h)
    fitted, failures = fit_all(methods, data.X, grid.axes, chosen.h, s, with_blocks)
    truth = data.true_pdf(grid.points).reshape(grid.shape)
    said = chosen.warnings + (robust.warnings if robust else ())
    said += tuple(message for result in fitted.values() for message in result["warnings"])
    return ExploreView(
        data,
        chosen.h,
        robust.h if robust else None,
        grid,
        fitted,
        failures,
        truth,
        tuple(dict.fromkeys(said)),
    )


def _warming() -> bool:
    """Whether the warm-up runs (not with ``MOMKDE_APP_WARM=0``); when it does, Streamlit's
    warning about cached calls made outside a session ("missing ScriptRunContext", once per
    call) is raised to errors for the server's lifetime: these calls are outside a session on
    purpose."""
    if os.environ.get(WARM_ENV, "1") == "0":
        return False
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(
        logging.ERROR
    )
    return True


def warm_views(max_share: float, kernels: tuple[str, ...]) -> int:
    """Compute :func:`~app_support.views.default_views` into the caches, one after the other,
    Explore's opening view in each dimension first; returns how many views were computed (a
    view whose settings a method refuses, e.g. SPKDE with another kernel than the Gaussian, is
    computed without it, as the page does).

    Run once per server process in a background thread (:func:`warm_server`), so that the
    first moves of a class from the opening view redraw from the cache. Off when the
    environment sets ``MOMKDE_APP_WARM=0``.
    """
    if not _warming():
        return 0
    views = list(default_views(max_share, kernels))
    first = {args[3]: i for i, args in reversed(list(enumerate(views)))}  # per dimension
    order = sorted(first.values()) + [i for i in range(len(views)) if i not in first.values()]
    count = 0
    for i in order:
        try:
            explore_view(*views[i])
        except ValueError:  # a view the page shows as an error: nothing to keep
            continue
        count += 1
    return count


def warm_lessons() -> None:
    """Compute the opening views of Home and Learn (Example 1, the construction, the curve
    and the screen, the table of measured JS) into the caches, with the arguments the pages
    pass (:mod:`app_support.lessons`' constants). Off when the environment sets
    ``MOMKDE_APP_WARM=0``."""
    if not _warming():
        return
    home_captions(lessons.EXAMPLE_INLIERS, lessons.HOME_MAX_OUTLIERS, lessons.HOME_H, lessons.X0, 0)
    n_outliers, h, n_blocks, seed = lessons.LEARN_OPENING
    example_one(lessons.EXAMPLE_INLIERS, n_outliers, h, lessons.X0, seed, n_blocks)
    example_one_errors(lessons.EXAMPLE_INLIERS, n_outliers, h, lessons.MAX_BLOCKS, lessons.X0, seed)
    construction(*lessons.BUILD)
    measured_js(results.RESULTS_DIR / lessons.MEASURED_JS_FILE)
    clean_cost(results.RESULTS_DIR / lessons.CLEAN_JS_FILE)
    curve_and_screen(
        lessons.SCREEN_OPENING, lessons.SCREEN_INLIERS, lessons.SCREEN_RATIO, lessons.SCREEN_SEED
    )


#: The Sweep page's opening settings (its widgets' defaults), which :func:`warm_sweep`
#: computes: the dimension, the ratio step, the inliers, the repetitions, the protocol, the
#: share stated (a guess) and the seed; the scheme is the first synthetic one and the
#: methods :data:`~app_support.results.SWEEP_DEFAULTS`.
SWEEP_OPENING = dict(
    dim=1, step=0.1, n_inliers=500, reps=3, protocol="honest", share="guess", seed=0
)


def sweep_ratios(step: float) -> list[float]:
    """The outlier ratios of the Sweep page's grid of step ``step``: step, 2 step, ..., 0.5."""
    return [round(step * k, 2) for k in range(1, int(round(0.5 / step)) + 1)]


def sweep_options(dim: int, n_inliers: int, protocol: str, share: str) -> dict:
    """:func:`run_sweep`'s options for the Sweep page's settings: the share stated is the
    guess ("guess") or the true ratio (None)."""
    contamination = None if share == "true" else "guess"
    return dict(dim=dim, n_inliers=n_inliers, protocol=protocol, contamination=contamination)


def warm_sweep() -> None:
    """Compute the Sweep page's opening sweep (:data:`SWEEP_OPENING`) into the caches, ratio
    by ratio, with the arguments the page passes. Off when the environment sets
    ``MOMKDE_APP_WARM=0``."""
    if not _warming():
        return
    o = SWEEP_OPENING
    options = sweep_options(o["dim"], o["n_inliers"], o["protocol"], o["share"])
    methods = results.runner_methods(results.SWEEP_DEFAULTS)
    for ratio in sweep_ratios(o["step"]):
        sweep_rows(
            "synthetic", SYNTHETIC_SCHEMES[0], ratio, o["reps"], o["seed"], methods, **options
        )


def warm_server(max_share: float, kernels: tuple[str, ...]) -> int:
    """Home's and Learn's opening views (:func:`warm_lessons`), then Explore's
    (:func:`warm_views`), then the Sweep page's (:func:`warm_sweep`): what ``app.py``'s
    background thread computes once per server process; returns how many Explore views
    were computed."""
    warm_lessons()
    count = warm_views(max_share, kernels)
    warm_sweep()
    return count


#: :func:`app_support.lessons.example_one_errors`, cached apart from :data:`example_one`, so
#: that moving the S slider does not refit the whole curve.
example_one_errors = st.cache_data(max_entries=32, show_spinner=False)(lessons.example_one_errors)
#: :func:`app_support.lessons.example_one`, cached.
example_one = st.cache_data(max_entries=32, show_spinner=False)(lessons.example_one)
#: :func:`app_support.captions.learn.home_captions` (Home's live figure), cached.
home_captions = st.cache_data(max_entries=4, show_spinner=False)(learn_captions.home_captions)
#: :func:`app_support.lessons.curve_and_screen`, cached.
curve_and_screen = st.cache_data(
    max_entries=8, show_spinner="Fitting MoM-KDE and the screened KDE…"
)(lessons.curve_and_screen)
#: :func:`app_support.lessons.fit_and_evaluate_seconds`, cached per method and size (for
#: :func:`measure_times`).
_fit_and_evaluate_seconds = st.cache_data(max_entries=64, show_spinner=False)(
    lessons.fit_and_evaluate_seconds
)
#: :func:`app_support.results.sweep_rows`, cached per source and ratio, so that raising the
#: repetitions or adding a ratio reruns only what is new.
sweep_rows = st.cache_data(max_entries=1024, show_spinner=False)(results.sweep_rows)


def measure_times(
    sizes: tuple[int, ...],
    n_eval: int,
    seed: int,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """Wall-clock seconds to fit and to evaluate (``n_eval`` points) each method, per n: the
    least of a few repetitions (:func:`~app_support.lessons.fit_and_evaluate_seconds`), so
    that a pause of a shared machine does not pass for a cost; ``progress`` is called with
    the fraction done.

    Each (n, method) timing is cached, this loop is not: a cached function replays the
    elements it drew, and a progress bar of the page updated from inside one cannot be
    replayed (Streamlit raises on the next run that hits the cache).
    """
    rows = []
    total = len(sizes) * len(compute.COMPARED_METHODS)
    for i, n in enumerate(sizes):
        for j, method in enumerate(compute.COMPARED_METHODS):
            n_rows, fit, evaluate = _fit_and_evaluate_seconds(method, n, n_eval, seed)
            rows += [
                {"method": method, "n": n_rows, "phase": "fit", "seconds": fit},
                {"method": method, "n": n_rows, "phase": "evaluate", "seconds": evaluate},
            ]
            if progress is not None:
                progress((i * len(compute.COMPARED_METHODS) + j + 1) / total)
    return pd.DataFrame(rows)


def run_sweep(
    kind: str,
    sources: list[str],
    ratios: list[float],
    reps: int,
    seed: int,
    methods: tuple[str, ...],
    **options,
) -> pd.DataFrame:
    """:func:`sweep_rows` over sources x ratios with a progress bar; the concatenated tidy
    table, methods named for display (:func:`~app_support.results.display_names`)."""
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
    return results.display_names(pd.concat(parts, ignore_index=True))


@st.cache_data(max_entries=4, show_spinner=False)
def stored_results(path: Path) -> pd.DataFrame:
    """A stored results table (the page opens on it instantly after the first read)."""
    return pd.read_csv(path)


@st.cache_data(max_entries=1, show_spinner=False)
def measured_js(path: Path) -> pd.DataFrame:
    """The Learn page's table of measured JS (:func:`app_support.lessons.measured_js`) from the
    stored run at ``path``."""
    return lessons.measured_js(pd.read_csv(path))


@st.cache_data(max_entries=1, show_spinner=False)
def clean_cost(path: Path) -> tuple[float, float]:
    """What MoM-KDE costs on clean data (:func:`app_support.lessons.clean_cost`) in the stored
    run at ``path``."""
    return lessons.clean_cost(pd.read_csv(path))


@st.cache_data(max_entries=4, show_spinner=False)
def adbench_tables(path: Path) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The stored ADBench table at ``path``, summarised per detector and per set
    (:func:`~app_support.results.adbench_summary`, :func:`~app_support.results.adbench_per_set`),
    and its number of seeds."""
    rows = results.adbench_rows(pd.read_csv(path))
    return results.adbench_summary(rows), results.adbench_per_set(rows), rows["seed"].nunique()


@st.cache_data(show_spinner=False)
def dataset_problem(name: str, env_dir: str | None) -> str | None:
    """:func:`app_support.results.dataset_problem`; ``env_dir``, the value of
    $MOMKDE_DATA_DIR, is an argument only so that the cache follows a change of the
    environment."""
    return results.dataset_problem(name)


@st.cache_data(max_entries=4, show_spinner=False)
def read_csv_bytes(identity: str, _raw: bytes, max_bytes: int) -> pd.DataFrame:
    """:func:`app_support.compute.read_csv`, cached on ``identity`` (the file's SHA-256 or the
    bundled sample's name: hashing the bytes again at every rerun would cost as much, on a
    large file, as the rest of the run)."""
    return compute.read_csv(_raw, max_bytes)


@st.cache_data(max_entries=4, show_spinner=False)
def roles_of(identity: str, _frame: pd.DataFrame) -> tables.ColumnRoles:
    """The default column roles of the file ``identity`` (guessed once per file, on every row:
    :func:`~app_support.tables.guess_roles` counts distinct values, which costs seconds on a
    large file)."""
    return tables.guess_roles(_frame)


@st.cache_data(max_entries=64, show_spinner=False)
def column_problem(identity: str, column: Hashable, _frame: pd.DataFrame) -> str | None:
    """:func:`app_support.prepare.column_problem`, cached on the file and the column (the
    frame is not hashed)."""
    return prepare.column_problem(_frame, column)


@st.cache_data(max_entries=8, show_spinner=False)
def prepared_table(
    identity: str,
    _frame: pd.DataFrame,
    roles: tables.ColumnRoles,
    plot_columns: Sequence[Hashable],
    score_columns: Sequence[Hashable],
    drop_missing: bool,
    scale: bool,
    max_rows: int,
) -> prepare.PreparedTable:
    """:func:`app_support.prepare.prepare_table`, cached on every choice it takes and on the
    file's ``identity`` (its SHA-256 or the sample's name), which stands for ``_frame``
    (hashing the file again at every rerun would cost as much as preparing it)."""
    return prepare.prepare_table(
        _frame, roles, plot_columns, score_columns, drop_missing, scale, max_rows
    )


@st.cache_data(max_entries=32, show_spinner=False)
def density_scores(
    key: str,
    method: str,
    h: float | None,
    s: Settings,
    _X: np.ndarray | pd.DataFrame,
    fit_rows: np.ndarray,
) -> dict[str, np.ndarray]:
    """:func:`app_support.scoring.density_scores`, cached on ``key`` (the digest of ``_X``:
    :attr:`~app_support.prepare.PreparedTable.key`), the fitted rows and the settings; ``_X``
    is not hashed again."""
    return scoring.density_scores(method, h, s, _X, fit_rows)


def score_every_row(
    key: str,
    method: str,
    h: float,
    s: Settings,
    contamination: float,
    _X: np.ndarray | pd.DataFrame,
    fit_rows: np.ndarray,
) -> dict[str, np.ndarray]:
    """Every row scored by ``method`` and flagged at the share ``contamination``: the cached
    :func:`density_scores` (``s``: the settings the method's fit depends on,
    :func:`~app_support.compute.relevant`), then the threshold
    (:func:`~app_support.scoring.flag_share`, instant), so that a move of ε refits only
    the methods whose fit depends on it. The page wraps the call in a spinner."""
    found = density_scores(key, method, scoring.detector_h(method, h), s, _X, fit_rows)
    return scoring.flag_share(found, fit_rows, contamination)


@st.cache_data(max_entries=16, show_spinner=False)
def explain_flagged(
    key: str,
    method: str,
    h: float | None,
    s: Settings,
    _X: np.ndarray | pd.DataFrame,
    fit_rows: np.ndarray,
    rows: np.ndarray,
    n_typical: int,
) -> dict[str, np.ndarray]:
    """:func:`app_support.scoring.explain_rows` of the rows ``rows`` (and ``n_typical``
    typical rows), cached as :func:`density_scores` (no share enters an explanation; ``h``
    as :func:`~app_support.scoring.detector_h` gives it). The page wraps the call in a
    spinner."""
    return scoring.explain_rows(method, h, s, _X, fit_rows, rows, n_typical)


@st.cache_data(max_entries=2, show_spinner=False)
def scored_csv(key: Hashable, _build: Callable[[], pd.DataFrame]) -> str:
    """The download's CSV text (formula-like cells escaped, ``momkde_core.io.to_csv_text``)
    of the table ``_build`` makes, cached on ``key`` (everything the table depends on)."""
    from momkde_core.io import to_csv_text

    return to_csv_text(_build())
