"""What every figure shares: one colour and one name per method, the legend order, the
layout, the log density axis' floor and decade ticks, and which lines to dash because they
would hide another."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import cycle

import numpy as np
import pandas as pd

from ..methods import ALIASES, METHODS
from ..methods import method_label as _registry_label

#: One colour per method, used by every figure (colour-blind friendly, Okabe-Ito based).
METHOD_COLORS: dict[str, str] = {
    "kde": "#E69F00",
    "kde_robust": "#B07800",
    "mom_kde": "#C2185B",  # the library's default MoM-KDE
    "mom_kde_21": "#8C510A",  # the default detector: a brown no other method or row uses
    "mom_kde_rule": "#F06292",
    "mom_kde_oracle": "#8E24AA",
    "mom_kde_blockh": "#D55E00",
    "mom_kde_oracle_blockh": "#CE93D8",
    "rkde": "#0072B2",
    "spkde": "#009E73",
    "screened_kde": "#56B4E9",  # Okabe-Ito sky blue: lighter than RKDE's blue
    "truth": "#1F2430",
}
#: The block KDEs behind MoM-KDE's median: a neutral grey, so they are not read as MoM-KDE.
BLOCK_COLOR = "#7A8194"
#: Rows an outlier detector flagged (Your data page): a colour no method uses.
FLAG_COLOR = "#6A1B9A"
#: AUC of a score that ranks at random: the line an AUC figure is read against.
CHANCE_AUC = 0.5
#: Marker traces up to this many points are SVG, larger ones WebGL (density_2d_figure).
SVG_MARKERS = 2000
#: Decades of density the 2-D maps' colour scale spans below its top (density_2d_figure):
#: a KDE's plateau over uniform outliers, ~1e-3 of the peak, gets a colour of its own.
COLOUR_DECADES = 4

#: Two lines that stay closer than this share of the figure's axis wherever both are defined
#: draw one line (about a line's width and its markers on a 460-pixel figure): the later one
#: is dashed.
COINCIDE = 0.015
#: The dashes of coinciding lines, in drawing order (the first line of a group stays solid; no
#: dotted line, the chance line's style).
DASHES: tuple[str, ...] = ("dash", "dashdot", "longdash", "longdashdot")


#: The name legends give the true density (``"truth"`` among a figure's curves).
TRUTH_LABEL = "True density"

#: Human-readable names of the metrics of the experiment tables.
METRIC_LABELS: dict[str, str] = {
    "js": "Jensen-Shannon divergence (base 2)",
    "js_distance": "Jensen-Shannon distance",
    "kl_fhat_f": "KL(f̂ ‖ f)",
    "kl_f_fhat": "KL(f ‖ f̂)",
    "l1": "L1 error",
    "linf": "L∞ error",
    "auc": "ROC AUC",
}

# No template: in the app Streamlit's theme styles the charts (and building a figure with
# a template adds to each redraw); standalone HTML sets STANDALONE_TEMPLATE.
#: The Plotly template of standalone figures (HTML and static files); the builders set none.
STANDALONE_TEMPLATE = "plotly_white"
_LAYOUT = dict(
    margin=dict(l=10, r=10, t=50, b=10),
    legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0),
    font=dict(family="sans-serif"),
)


def log_density_floor(peak: float) -> float:
    """The bottom of :func:`density_1d_figure`'s log axis for curves peaking at ``peak``.

    The axis spans :data:`COLOUR_DECADES` decades below its top, 1.3 times the peak; values
    below the floor (a compact kernel's zeros) are drawn at it.

    Parameters
    ----------
    peak : float
        The highest value drawn (1 is used when it is not positive).

    Returns
    -------
    floor : float
        The axis' bottom, in density units.

    Examples
    --------
    >>> from momkde_core.plots import log_density_floor
    >>> round(log_density_floor(0.4), 8)
    5.2e-05
    """
    return 10.0 ** (_log_top(peak) - COLOUR_DECADES)


def _log_top(peak: float) -> float:
    """log10 of the top of a log axis over curves peaking at ``peak``: 1.3 times it."""
    return float(np.log10(1.3 * peak)) if peak > 0 else 0.0


def _decade_ticks(bottom: float, top: float) -> dict[str, list]:
    """Tick values at the whole decades between ``bottom`` and ``top`` (log10), on an axis
    of log10 values, labelled as densities (0.1, 0.01 ...)."""
    decades = list(range(int(np.ceil(bottom)), int(np.floor(top)) + 1))
    return {"tickvals": decades, "ticktext": [f"{10.0**k:g}" for k in decades]}


def method_color(method: str) -> str:
    """Colour of ``method`` (grey for a method without an assigned colour).

    Parameters
    ----------
    method : str
        A method name (a key of :data:`METHOD_COLORS`, or a former name of the registry's
        :data:`~momkde_core.methods.ALIASES`, coloured as the method it names, as
        :func:`method_label` names it).

    Returns
    -------
    color : str
        A ``#RRGGBB`` colour.

    Examples
    --------
    >>> from momkde_core.plots import method_color
    >>> method_color("rkde"), method_color("unknown")
    ('#0072B2', '#7F7F7F')
    >>> method_color("mom_kde_auto") == method_color("mom_kde")
    True
    """
    return METHOD_COLORS.get(ALIASES.get(method, method), "#7F7F7F")


def method_label(method: str) -> str:
    """Display name of ``method``: the registry's label (:func:`momkde_core.methods.method_label`),
    :data:`TRUTH_LABEL` for ``"truth"``, the raw name when unknown.

    Parameters
    ----------
    method : str
        A name of :data:`momkde_core.methods.METHODS`, or ``"truth"``.

    Returns
    -------
    label : str
        The name legends show.

    Examples
    --------
    >>> from momkde_core.plots import method_label
    >>> method_label("mom_kde"), method_label("truth"), method_label("my_method")
    ('MoM-KDE', 'True density', 'my_method')
    """
    return TRUTH_LABEL if method == "truth" else _registry_label(method)


def _rgba(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` as a CSS ``rgba()`` string with opacity ``alpha`` (for shaded bands)."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def legend_order(methods: Iterable[str]) -> list[str]:
    """``methods`` in the order figures draw and legends list them: the truth, then the
    registry's order (:data:`momkde_core.methods.METHODS`), unknown names last as given.

    Parameters
    ----------
    methods : iterable of str
        Method names (repeats are dropped).

    Returns
    -------
    ordered : list of str
        The same names, ordered.

    Examples
    --------
    >>> from momkde_core.plots import legend_order
    >>> legend_order(["spkde", "mine", "kde", "truth"])
    ['truth', 'kde', 'spkde', 'mine']
    """
    given = list(dict.fromkeys(methods))
    known = [m for m in ("truth", *METHODS) if m in given]
    return known + [m for m in given if m not in known]


def twin_lines(lines: pd.DataFrame | Mapping[str, np.ndarray], tolerance: float) -> dict[str, str]:
    """The lines that stay within ``tolerance`` of one drawn before them.

    Parameters
    ----------
    lines : DataFrame or mapping of str to ndarray
        One column per line, in drawing order, its values at the figure's points (NaN where
        a line has none).
    tolerance : float
        The largest gap, in the axis' units, at which two lines look like one.

    Returns
    -------
    twins : dict of str to str
        Each line whose gap to an earlier one stays below ``tolerance`` wherever both are
        defined, mapped to the first such earlier line.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.plots import twin_lines
    >>> curve = np.array([0.1, 0.5, 0.2])
    >>> twin_lines({"kde": curve, "rkde": curve + 0.001, "spkde": curve / 2}, 0.01)
    {'rkde': 'kde'}
    """
    frame = pd.DataFrame(lines)
    twins = {}
    for i, name in enumerate(frame.columns):
        for earlier in frame.columns[:i]:
            gap = (frame[name] - frame[earlier]).abs().dropna()
            if len(gap) and gap.max() < tolerance:
                twins[name] = earlier
                break
    return twins


def twin_dashes(twins: Iterable[str]) -> dict[str, str]:
    """A dash per line that would hide another (:data:`DASHES` in turn).

    Parameters
    ----------
    twins : iterable of str
        The lines to dash, in drawing order (e.g. the keys of :func:`twin_lines`).

    Returns
    -------
    dashes : dict of str to str
        Line -> its Plotly dash, the ``dashes`` of :func:`metric_vs_ratio_figure` and
        :func:`density_1d_figure`.

    Examples
    --------
    >>> from momkde_core.plots import twin_dashes
    >>> twin_dashes(["rkde", "spkde"])
    {'rkde': 'dash', 'spkde': 'dashdot'}
    """
    return dict(zip(twins, cycle(DASHES)))


def _sample_groups(n: int, is_outlier: np.ndarray | None) -> list[tuple[str, np.ndarray]]:
    """(name, mask) of the non-empty groups a plot draws apart: "inliers" and "outliers"
    when labels are given, else one "sample"."""
    if is_outlier is None:
        return [("sample", np.ones(n, bool))] if n else []
    mask = np.asarray(is_outlier, bool).ravel()
    return [(name, m) for name, m in (("inliers", ~mask), ("outliers", mask)) if m.any()]
