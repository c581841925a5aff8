"""Explore's views: what one view holds, the page's defaults, and the views one move away
from its opening one (which the server computes ahead: :func:`app_support.cache.warm_server`).

The page and the views computed ahead must name the same cached computations, so the
ratio a view draws (:func:`drawn_ratio`) and the settings of the controls left at their
defaults (:func:`default_settings`) are written once, here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from momkde_core._engine import Grid
from momkde_core.bandwidth import n_blocks_for
from momkde_core.synthetic import SCHEMES, ContaminatedSample, make_contaminated

from .compute import DEFAULT_METHODS, Settings


@dataclass(frozen=True)
class ExploreView:
    """Everything the Explore page draws for one choice of its controls.

    Attributes
    ----------
    data : ContaminatedSample
        The sample.
    h : float
        The bandwidth shared by the estimators.
    h_robust : float or None
        The robust rule's h beside a cross-validated one, else None.
    grid : Grid
        The evaluation grid.
    results : dict of str to dict
        Per method fitted, what :func:`app_support.compute.fit_evaluate` returns.
    failures : dict of str to str
        Per method that could not be fitted, the library's message.
    truth : ndarray
        The true density on the grid.
    warnings : tuple of str
        What the library warned while choosing the bandwidths and fitting the methods (the
        latter after the method's name), once each.
    """

    data: ContaminatedSample
    h: float
    h_robust: float | None
    grid: Grid
    results: dict[str, dict[str, np.ndarray]]
    failures: dict[str, str]
    truth: np.ndarray
    warnings: tuple[str, ...] = ()


#: The Explore page's controls at their defaults (the robust h, S auto, ε the true ratio).
EXPLORE_DEFAULTS: dict[str, object] = {
    "scheme": "uniform",
    "n_inliers": 1000,
    "ratio": 0.1,
    "kernel": "gaussian",
}
#: The outlier-ratio slider's step and its values (rounded, as the page rounds the slider's).
RATIO_STEP = 0.05


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
    """The arguments of :func:`app_support.cache.explore_view` one move away from Explore's
    opening view, most likely first: in 1-D then 2-D, every outlier ratio, every scheme, every
    kernel (the other controls at their defaults: ε follows the ratio, the paper's four
    methods)."""
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
            n = len(make_contaminated(scheme, base["n_inliers"], ratio, dim, 0).X)
            settings = default_settings(n, ratio, kernel)
            yield scheme, base["n_inliers"], ratio, dim, settings, DEFAULT_METHODS
