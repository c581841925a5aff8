"""The app-wide setup every run makes before its page: the page configuration, the style
sheet (a tighter header, a working cue during slow reruns) and the presentation mode.

``?present=1`` in the URL turns the presentation mode on: the sidebar starts collapsed, the
type is larger, and each page shows its headline and its figures, with its controls in the
sidebar and what its figures show in a collapsed expander (:func:`notes`). The mode is kept
for the session across page switches until the URL says ``present=0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

#: The URL parameter of the presentation mode ("1": on).
PARAM = "present"
#: The session's memory of the mode, for the page switches that drop the URL's parameters.
_REMEMBERED = "_momkde_present"
#: A figure's text in points when presenting, and plotly's default.
PRESENT_FONT, _PLOTLY_FONT = 17, 12
#: A legend under the axis, in rows: beside or above the plot it takes room from the plot in
#: a projector's narrow columns, and on the right Plotly's toolbar covers it.
LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0)
#: Seconds a rerun runs before the working cue shows: shorter reruns redraw without it.
CUE_DELAY_S = 0.3

#: Every page: less space above the title and, on a projector's width, beside the page, a
#: smaller title, and a "Working…"
#: badge while a script or fragment runs (Streamlit marks the app ``data-test-script-state=
#: "running"`` then), shown only after :data:`CUE_DELAY_S` so that quick redraws do not flash.
_STYLE = f"""
[data-testid="stMainBlockContainer"] {{ padding-top: 3.25rem; }}
[data-testid="stMainBlockContainer"] h1 {{ font-size: 2rem; padding-top: 0.25rem; }}
[data-testid="stMainBlockContainer"] h2 {{ font-size: 1.55rem; }}
@media (max-width: 1366px) {{
    [data-testid="stMainBlockContainer"] {{ padding-left: 2rem; padding-right: 2rem; }}
}}
[data-testid="stApp"][data-test-script-state="running"]::after {{
    content: "Working…";
    position: fixed;
    top: 0.7rem;
    left: 50%;
    transform: translateX(-50%);
    z-index: 1000000;
    padding: 0.3rem 1.1rem;
    border-radius: 1rem;
    background: #C2185B;
    color: #FFFFFF;
    font-weight: 600;
    box-shadow: 0 2px 6px rgba(0, 0, 0, 0.25);
    pointer-events: none;
    opacity: 0;
    animation: momkde-working 0.15s ease-out {CUE_DELAY_S}s forwards;
}}
@keyframes momkde-working {{ to {{ opacity: 1; }} }}
"""
#: The presentation mode: larger type everywhere (Streamlit sizes its text in rem).
_PRESENT_STYLE = "html { font-size: 20px; }"


def presenting() -> bool:
    """Whether the app is in its presentation mode (``?present=1``).

    Returns
    -------
    on : bool
        True when the URL's ``present`` parameter is "1" (:func:`setup` puts it back in the
        URL after a page switch dropped it).

    Examples
    --------
    >>> presenting()  # outside a Streamlit run, the URL is empty
    False
    """
    return st.query_params.get(PARAM) == "1"


def setup(page_title: str, page_icon: Path) -> None:
    """Configure the page and add the app's style sheet; keep the presentation mode.

    Called by ``app.py`` on every run, before the page runs. A URL with ``present`` sets the
    mode for the session; a URL without it (a page switch drops the parameters) gets
    ``present=1`` back when the session is presenting.

    Parameters
    ----------
    page_title : str
        The browser tab's title.
    page_icon : Path
        A local image (a material icon's favicon would come from a CDN).
    """
    asked = st.query_params.get(PARAM)
    if asked is not None:
        st.session_state[_REMEMBERED] = asked == "1"
    elif st.session_state.get(_REMEMBERED):
        st.query_params[PARAM] = "1"
    on = presenting()
    st.set_page_config(
        page_title=page_title,
        page_icon=str(page_icon),
        layout="wide",
        initial_sidebar_state="collapsed" if on else "auto",
    )
    st.html(f"<style>{_STYLE}{_PRESENT_STYLE if on else ''}</style>")


def controls(place: DeltaGenerator) -> DeltaGenerator:
    """Where a page puts its controls: ``place``, or the sidebar when presenting.

    Parameters
    ----------
    place : DeltaGenerator
        The controls' place on the page (a column, a container).

    Returns
    -------
    place : DeltaGenerator
        ``place``, or ``st.sidebar`` in the presentation mode.

    Examples
    --------
    >>> controls(st.sidebar) is st.sidebar
    True
    """
    return st.sidebar if presenting() else place


def beside(spec: Sequence[float] = (1, 3)) -> tuple[DeltaGenerator, DeltaGenerator]:
    """A column for a figure's controls and one for the figure, side by side (``spec``, as
    ``st.columns``); when presenting, the sidebar and the page's whole width.

    Parameters
    ----------
    spec : sequence of float, default (1, 3)
        The widths of the two columns.

    Returns
    -------
    controls, figure : DeltaGenerator
        Where the controls go and where the figure goes.

    Examples
    --------
    >>> controls_place, figure_place = beside()
    """
    if presenting():
        return st.sidebar, st.container()
    left, right = st.columns(spec)
    return left, right


def notes(label: str = "What the figure shows") -> AbstractContextManager:
    """The place of the sentences under a figure: the page itself, or a collapsed expander
    named ``label`` when presenting.

    Parameters
    ----------
    label : str, default "What the figure shows"
        The expander's label.

    Returns
    -------
    place : context manager
        ``with notes(): st.caption(...)``.

    Examples
    --------
    >>> with notes():
    ...     pass
    """
    return st.expander(label, expanded=False) if presenting() else nullcontext()


def sized(fig: go.Figure) -> go.Figure:
    """``fig`` with the presentation mode's larger text (:data:`PRESENT_FONT`), or as it is;
    a legend below the axis moves down as much as the text grows, clear of the axis' labels.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure.

    Returns
    -------
    fig : plotly.graph_objects.Figure
        The same figure.

    Examples
    --------
    >>> sized(go.Figure()).layout.font.size is None  # not presenting: unchanged
    True
    """
    if not presenting():
        return fig
    legend_y = fig.layout.legend.y
    if legend_y is not None and legend_y < 0:
        fig.update_layout(legend_y=legend_y * PRESENT_FONT / _PLOTLY_FONT)
    return fig.update_layout(font_size=PRESENT_FONT)
