"""Explore's live figure in the page: the component (Streamlit components v2, in the page,
no iframe; its script is this package's modules, bundled by
:func:`~app_support.live_lesson.bundle.bundle`, and its style this package's file: nothing is
fetched from another machine) mounted with :func:`~app_support.live_lesson.payload.live_payload`'s data, and its
release written into the page's controls, so that the next run fits RKDE and SPKDE, fills
the metrics and the captions, and writes the URL.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from momkde_core.bandwidth import n_blocks_for

from ..choices import block_options
from ..compute import Settings
from ..keys import ESTIMATOR, MEDIAN
from ..median_figures import STEPS
from ..present import presenting
from ..views import ExploreView
from ..widgets import url_choice
from .bundle import MODULES, bundle
from .payload import LIVE_KERNELS, live_payload

#: The component's name (unique in the app) and its key in the session state.
COMPONENT_NAME = "momkde_live_lesson"
LIVE_KEY = "_live_lesson"
#: The number of the last release applied, sent back with the data: the script keeps what it
#: drew since a later release until the server's run of that release arrives.
LIVE_SEQ = "_live_seq"
#: The figure switch's key (its query parameter) and its choices: the live figure, or the
#: Plotly figure and strip (zoom, hover, a click sets x₀ or the place; what AppTest reads).
FIGURE_SWITCH = "fig"
FIGURES = ("live", "plotly")
#: The server's fits drawn as they are during a drag (the KDE and MoM-KDE are redrawn).
_LIVE_METHODS = ("kde", "mom_kde")

_component = st.components.v2.component(
    COMPONENT_NAME,
    js=bundle(),
    css=(MODULES.parent / "live_lesson.css").read_text(encoding="utf-8"),
)


def draws_live(view: ExploreView, s: Settings) -> bool:
    """Whether the live figure draws this view: a 1-D or 2-D sample, a kernel it knows
    (:data:`~app_support.live_lesson.payload.LIVE_KERNELS`) and MoM-KDE among the fits.

    Parameters
    ----------
    view : ExploreView
        The page's view.
    s : Settings
        The page's settings.

    Returns
    -------
    live : bool
        True when :func:`live_lesson` can replace the Plotly figure and the strip.
    """
    return view.data.X.shape[1] in (1, 2) and s.kernel in LIVE_KERNELS and "mom_kde" in view.results


def live_switch(container) -> bool:
    """The figure switch in ``container``: True for the live figure (the default).

    Parameters
    ----------
    container : streamlit container
        Where the switch goes.

    Returns
    -------
    live : bool
        Whether the page draws the live figure (when :func:`draws_live` allows).
    """
    chosen = container.segmented_control(
        "Figure",
        FIGURES,
        **url_choice(FIGURE_SWITCH, FIGURES[0]),
        help="live: the figure (the curves in 1-D, the maps in 2-D) and the strip at x₀ redraw "
        "as you drag the outliers' place, x₀, k, h or S (RKDE, SPKDE and the metrics follow "
        "when you let go; Gaussian kernel). plotly: zoom, hover, and a click on the figure "
        "sets x₀ or the place.",
    )
    return (chosen or FIGURES[0]) == FIGURES[0]


def _apply_release() -> None:
    """The release's values (a trigger of the component) into the page's controls: k, the
    place and x0 (a coordinate each in 1-D, two in 2-D); h, set by hand, when the figure
    sends it (moved by hand, or kept by "keep h", ticked by default, whatever moved); S, by
    hand, when it is not auto."""
    moved = (st.session_state.get(LIVE_KEY) or {}).get("release")
    if not moved:
        return
    st.session_state[LIVE_SEQ] = int(moved["seq"])
    st.session_state[MEDIAN.k] = int(moved["k"])
    for field, keys in (("at", (MEDIAN.at, MEDIAN.at_y)), ("x0", (MEDIAN.x0, MEDIAN.y0))):
        for key, value in zip(keys, np.atleast_1d(moved[field])):
            st.session_state[key] = float(value)
    for field, key, mode_key, kind in (
        ("h", ESTIMATOR.h, ESTIMATOR.h_mode, float),
        ("S", ESTIMATOR.blocks, ESTIMATOR.s_mode, int),
    ):
        if moved.get(field) is None:
            continue
        value = kind(moved[field])
        was_manual = st.session_state.get(mode_key) == "manual"
        st.session_state[mode_key] = "manual"
        st.session_state[key] = value
        if not was_manual and key not in st.query_params:
            # the by-hand slider was not on the page in the last run: a value set in the
            # session state would reach the URL only once moved, so the link gets it here
            st.query_params[key] = str(value)


def live_lesson(
    view: ExploreView,
    s: Settings,
    k: int,
    point: tuple[float, ...],
    *,
    max_placed: int,
    log_y: bool = True,
) -> None:
    """Draw Explore's lesson live, in 1-D or 2-D: the figure and the strip at x₀, recomputed
    in the browser at each pointer move of a drag (the cluster's place, x₀, k, h, S) and
    synced with the server when the pointer is let go (:func:`_apply_release`).

    Parameters
    ----------
    view : ExploreView
        The page's view: its sample (the ``k`` placed rows last), h and fits.
    s : Settings
        The page's settings (S, kernel, seed, the stated share, S auto or not).
    k : int
        The outliers placed (their place is the page's ``at`` control).
    point : tuple of float
        The locked point x₀.
    max_placed : int
        The most outliers the page places.
    log_y : bool, default True
        The density axis in decades.

    Notes
    -----
    The S block KDEs are drawn when the view holds them (the page's toggle: MoM-KDE fitted
    ``with_blocks``).
    """
    data = view.data
    n = len(data.X)
    base = replace(
        data, X=data.X[: n - k], is_outlier=data.is_outlier[: n - k], n_outliers=data.n_outliers - k
    )
    dim = data.X.shape[1]
    at = tuple(float(st.session_state.get(key, 3.0)) for key in (MEDIAN.at, MEDIAN.at_y)[:dim])
    payload = live_payload(
        base,
        s,
        view.h,
        (k, at),
        tuple(float(v) for v in point),
        s_options=block_options(n, n_blocks_for(n, s.contamination), s.n_blocks),
        max_placed=max_placed,
        curves={
            m: (view.grid.axes, res["grid"])
            for m, res in view.results.items()
            if m not in _LIVE_METHODS
        },
        h_rule=s.bandwidth if isinstance(s.bandwidth, str) else None,
        log_y=log_y,
        show_blocks="blocks" in view.results["mom_kde"],
        colour_surfaces={"truth": view.truth, **{m: r["grid"] for m, r in view.results.items()}},
    )
    payload["seq"] = int(st.session_state.get(LIVE_SEQ, 0))
    payload["present"] = presenting()  # (the projector's larger text)
    _component(key=LIVE_KEY, data=payload, on_release_change=_apply_release)


#: Home's live figure's key in the session state, and the number of its last release applied.
EXAMPLE_KEY = "_live_example"
EXAMPLE_SEQ = "_live_example_seq"


def _held(key: str) -> str:
    """The session state's key of the value a live figure holds for the URL's ``key`` (not
    the key itself: another page's widget may bind that one)."""
    return f"_live_{key}"


def _held_value(key: str, default, read):
    """The value a live figure holds for the URL's ``key``: the last release's (kept in the
    session state), else the URL's, else ``default``, as ``read`` makes it valid (``default``
    where it raises a ValueError: a hand-edited link); written back into the URL."""
    held = _held(key)
    if held not in st.session_state:
        st.session_state[held] = st.query_params.get(key, default)
    try:
        value = read(st.session_state[held])
    except ValueError:
        value = default
    if key in st.query_params or value != default:
        st.query_params[key] = str(value)
    return value


def example_outliers(key: str, default: int, max_outliers: int) -> int:
    """Home's |O| when its live figure holds the slider: the last release's (kept in the
    session state), else the URL's ``key``, else ``default``; a value out of range is
    clipped.

    Parameters
    ----------
    key : str
        |O|'s key in the URL.
    default : int
        The opening |O|.
    max_outliers : int
        The largest |O|.

    Returns
    -------
    outliers : int
        |O|.
    """

    def read(raw) -> int:
        return min(max(int(raw), 0), max_outliers)

    return _held_value(key, default, read)


def example_live(payload: dict, key: str) -> None:
    """Draw Home's live figure (:func:`~app_support.live_lesson.payload.example_payload`'s
    data): its slider redraws both panels in the browser; a release sets |O| (``key``) for
    the page's next run, which recomputes the caption.

    Parameters
    ----------
    payload : dict
        The figure's data.
    key : str
        |O|'s key in the URL.
    """
    _mount_holding("example", payload, key)


#: Learn's construction's key in the session state, and the number of its last release.
STEPS_KEY = "_live_steps"
STEPS_SEQ = "_live_steps_seq"


def held_step(key: str, default: str) -> str:
    """Learn's step when the page draws the construction live: the last one chosen (kept in
    the session state), else the URL's ``key``, else ``default``; an unknown step is the
    default.

    Parameters
    ----------
    key : str
        The step's key in the URL.
    default : str
        The opening step.

    Returns
    -------
    step : str
        A key of :data:`~app_support.median_figures.STEPS`.
    """

    def read(raw) -> str:
        if raw not in STEPS:
            raise ValueError(f"unknown step {raw!r}")
        return raw

    return _held_value(key, default, read)


def steps_live(payload: dict, key: str) -> None:
    """Draw Learn's construction live (:func:`~app_support.live_lesson.payload.steps_payload`'s
    data): a step button redraws the frame and its caption in the browser; the step chosen
    is written into the URL (``key``) by the next run.

    Parameters
    ----------
    payload : dict
        The figure's data.
    key : str
        The step's key in the URL.
    """
    _mount_holding("steps", payload, key)


#: The live figures that hold one value of their page's URL, by kind: the component's key in
#: the session state, the key of the number of its last release applied, and the field its
#: release sends.
_HOLDING = {
    "example": (EXAMPLE_KEY, EXAMPLE_SEQ, "outliers"),
    "steps": (STEPS_KEY, STEPS_SEQ, "step"),
}


def _apply_held_release(kind: str, key: str) -> None:
    """A release of a figure of :data:`_HOLDING`: its value into the session state (read by
    :func:`example_outliers` or :func:`held_step`, which write it into the URL's ``key``)."""
    component, seq, field = _HOLDING[kind]
    moved = (st.session_state.get(component) or {}).get("release")
    if not moved:
        return
    st.session_state[seq] = int(moved["seq"])
    st.session_state[_held(key)] = moved[field]


def _mount_holding(kind: str, payload: dict, key: str) -> None:
    """Mount a figure of :data:`_HOLDING` with ``payload``, the number of its last release
    applied and the presentation mode."""
    component, seq, _ = _HOLDING[kind]
    data = {**payload, "seq": int(st.session_state.get(seq, 0)), "present": presenting()}
    _component(key=component, data=data, on_release_change=lambda: _apply_held_release(kind, key))
