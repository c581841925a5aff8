"""Widgets whose state lives in the URL, the shared estimator controls, and error display.

Every control is created with ``bind="query-params"`` and a short ``key`` (the query
parameter's name), so a copied link reproduces the view exactly, seed included; values at
their default are left out of the URL to keep it short.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from momkde_core.plots import METHOD_LABELS
from momkde_core.synthetic import SCHEMES

from .compute import METHODS, Settings

SCHEME_LABELS: dict[str, str] = {
    "uniform": "(a) uniform outliers",
    "regular_gaussian": "(b) regular Gaussian outliers",
    "thin_gaussian": "(c) thin Gaussian outliers",
    "adversarial": "(d) adversarial (on an inlier mode)",
    "none": "no outliers",
}
KERNEL_CHOICES: tuple[str, ...] = ("gaussian", "tophat", "epanechnikov", "linear", "cosine", "exponential")


def url(key: str) -> dict[str, str]:
    """Keyword arguments that bind a widget to the query parameter ``key``."""
    return {"key": key, "bind": "query-params"}


@contextmanager
def user_errors() -> Iterator[None]:
    """Show a ValueError from the library as ``st.error`` with its message (no traceback),
    so a bad parameter or file leaves the rest of the page working."""
    try:
        yield
    except ValueError as err:
        st.error(f"{err}", icon=":material/error:")


def scheme_select(container=st) -> str:
    """The contamination scheme: the paper's four, or none."""
    return container.selectbox("Contamination scheme", SCHEMES, format_func=SCHEME_LABELS.get, **url("scheme"),
                               help="How the outliers are drawn (paper, section 5). Inliers: 0.5 N(0, 0.5) + 0.5 N(6, 0.5).")


def methods_select(container=st, default: tuple[str, ...] = METHODS) -> list[str]:
    """The estimators to show (at least one: an empty choice falls back to all)."""
    chosen = container.multiselect("Methods", METHODS, default=list(default), format_func=METHOD_LABELS.get,
                                   **url("methods"))
    return list(chosen) or list(METHODS)


def estimator_controls(container, n: int, n_outliers: int | None, default_blocks: int = 21) -> Settings:
    """Bandwidth, kernel, S, SPKDE's contamination and seed, shared by the data pages.

    ``n`` bounds S (a block needs a point); ``n_outliers`` (when known) marks the theory's
    guide S > 2|O| in the help and the caption.
    """
    mode = container.segmented_control("Bandwidth h", ["cv", "scott", "manual"], default="cv",
                                       format_func={"cv": "auto (CV)", "scott": "Scott", "manual": "slider"}.get,
                                       **url("hmode"),
                                       help="CV: the paper's pseudo-likelihood cross-validation on the plain KDE. "
                                            "The same h is used for all four estimators.") or "cv"
    bandwidth: str | float = mode
    if mode == "manual":
        bandwidth = container.slider("h", 0.02, 2.0, 0.3, 0.01, **url("h"))
    kernel = container.selectbox("Kernel", KERNEL_CHOICES, **url("kernel"),
                                 help="SPKDE needs the Gaussian kernel.")
    guide = f" The theory asks for S > 2|O| = {2 * n_outliers}." if n_outliers else ""
    blocks = container.slider("S, number of blocks of MoM-KDE", 1, 601, default_blocks, **url("S"),
                              help="S = 1 is the plain KDE. Each block must hold at least one point." + guide)
    if blocks > n:
        container.warning(f"S = {blocks} is more than the {n} points: using S = {n}.")
        blocks = n
    if n_outliers:
        container.caption(("Meets" if blocks > 2 * n_outliers else "Below") + " the guide: " + f"S = {blocks}; guide S > 2|O| = {2 * n_outliers}")
    contamination = container.slider("SPKDE: assumed outlier share", 0.0, 0.6, 0.1, 0.05, **url("eps"),
                                     help="SPKDE scales the KDE by 1 / (1 - share) before projecting.")
    seed = int(container.number_input("Seed", 0, 10_000, 0, 1, **url("seed")))
    return Settings(bandwidth=bandwidth, kernel=kernel, n_blocks=int(blocks), contamination=float(contamination),
                    seed=seed)
