"""Explore's headline, read off the figure's numbers: the **local** effect (the outliers' bump
at their place: how much of the KDE's bump MoM-KDE keeps, and whether the median there is a
clean block's value) told apart from the **global** distance (JS to the true density over the
whole axis, where MoM-KDE's smaller blocks cost noise: the price of robustness).

Every word of a verdict is a comparison of numbers the figure draws, with the thresholds
below; ``tests/app/test_lesson_claims.py`` walks a grid of views and checks each one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..mechanism import BlockValues
from ..views import ExploreView
from .density import CLEARLY_CLOSER, compare_to_kde, thin_median
from .median import NEGLIGIBLE, density, middle_is_red, rows_per_block, where

#: MoM-KDE is said to **keep** the outliers' bump when its excess over the true density at
#: their place is at least this share of the KDE's excess there ...
KEPT = 0.5
#: ... and to **refuse** it when its excess is below this share; in between it keeps part.
REFUSED = 0.2
#: The KDE is said to have a bump at a place when its excess over the true density there is
#: above this share of the true density's peak (the log axis spans four decades below the
#: peak, so 1 % of it is plainly visible) ...
BUMP_FLOOR = 0.01
#: ... and above this share of the true density there: on an inlier mode, the KDE's own
#: sampling noise is several per cent of the mode, which is no outliers' bump.
BUMP_OVER_TRUTH = 0.2
#: Where outliers are spread out (the uniform scheme), the bump is the mass each estimate puts
#: where the inliers are absent: where the true density is below this share of its peak.
ABSENT = 0.01
#: The scheme's outliers' centre, where the schemes with one put them (momkde_core.synthetic:
#: N(3, ·) between the modes, N(0, ·) on a mode), on every axis.
SCHEME_CENTRE: dict[str, float] = {
    "regular_gaussian": 3.0,
    "thin_gaussian": 3.0,
    "adversarial": 0.0,
}


@dataclass(frozen=True)
class Bump:
    """The outliers' bump, as the figure draws it.

    Attributes
    ----------
    place : str
        Where it is judged, as a caption writes it ("at 3", "where the inliers are absent").
    truth, kde, mom : float
        The true density, the KDE and MoM-KDE there (at the grid node nearest the place); for
        spread-out outliers, the mass each puts where the inliers are absent.
    floor : float
        The smallest excess of the KDE over the truth called a bump (:data:`BUMP_FLOOR`,
        :data:`BUMP_OVER_TRUTH`).
    mass : bool
        Whether the numbers are masses (spread-out outliers) rather than densities.
    """

    place: str
    truth: float
    kde: float
    mom: float
    floor: float
    mass: bool = False

    @property
    def excess(self) -> float:
        """The KDE's excess over the true density: the outliers' bump on the KDE."""
        return self.kde - self.truth

    @property
    def visible(self) -> bool:
        """Whether the KDE has a bump here (its excess above :attr:`floor`)."""
        return self.excess > self.floor

    @property
    def kept(self) -> float:
        """The share of the KDE's bump MoM-KDE keeps: its own excess over the truth (0 when
        below it) over the KDE's."""
        return max(self.mom - self.truth, 0.0) / self.excess if self.excess > 0 else 0.0

    @property
    def verdict(self) -> str:
        """ "refuses", "keeps part of" or "keeps" (:data:`REFUSED`, :data:`KEPT`)."""
        if self.kept < REFUSED:
            return "refuses"
        return "keeps" if self.kept >= KEPT else "keeps part of"


def bump_at(
    axes: tuple[np.ndarray, ...], curves: Mapping[str, np.ndarray], place: tuple[float, ...]
) -> Bump:
    """The bump at ``place``: the curves at the grid node nearest it.

    Parameters
    ----------
    axes : tuple of ndarray
        The grid's axes, one per dimension.
    curves : mapping of str to ndarray
        ``truth``, ``kde`` and ``mom_kde`` on the grid (shape: the axes' lengths).
    place : tuple of float
        The point, one coordinate per axis.

    Returns
    -------
    bump : Bump
        The three values there.

    Examples
    --------
    >>> import numpy as np
    >>> xs = np.linspace(0, 4, 5)
    >>> curves = {"truth": np.zeros(5), "kde": np.array([0, 0, 0, .05, 0]),
    ...           "mom_kde": np.zeros(5)}
    >>> bump = bump_at((xs,), curves, (3.0,))
    >>> bump.visible, bump.verdict
    (True, 'refuses')
    """
    node = tuple(int(np.argmin(np.abs(axis - v))) for axis, v in zip(axes, place))
    truth = np.asarray(curves["truth"])
    value = {name: float(np.asarray(curves[name])[node]) for name in ("truth", "kde", "mom_kde")}
    floor = max(BUMP_FLOOR * float(truth.max()), BUMP_OVER_TRUTH * value["truth"])
    return Bump(f"at {where(place)}", value["truth"], value["kde"], value["mom_kde"], floor)


def mass_where_absent(curves: Mapping[str, np.ndarray], cell: float) -> Bump:
    """The mass each estimate puts where the inliers are absent (the true density below
    :data:`ABSENT` of its peak): the bump of spread-out outliers.

    Parameters
    ----------
    curves : mapping of str to ndarray
        ``truth``, ``kde`` and ``mom_kde`` on the grid.
    cell : float
        The grid's cell volume.

    Returns
    -------
    bump : Bump
        The three masses there; a bump when the KDE's excess passes :data:`BUMP_FLOOR` of the
        whole mass.

    Examples
    --------
    >>> import numpy as np
    >>> curves = {"truth": np.array([0.0, 1.0, 0.0]), "kde": np.array([0.1, 0.8, 0.1]),
    ...           "mom_kde": np.array([0.0, 1.0, 0.0])}
    >>> bump = mass_where_absent(curves, 1.0)
    >>> round(bump.excess, 3), bump.verdict
    (0.2, 'refuses')
    """
    truth = np.asarray(curves["truth"])
    absent = truth < ABSENT * truth.max()
    masses = {
        m: float(np.asarray(curves[m])[absent].sum() * cell) for m in ("truth", "kde", "mom_kde")
    }
    return Bump(
        "where the inliers are absent",
        masses["truth"],
        masses["kde"],
        masses["mom_kde"],
        BUMP_FLOOR,
        mass=True,
    )


def outlier_place(
    scheme: str, placed: tuple[int, tuple[float, ...]], n_scheme_outliers: int, dim: int
) -> tuple[float, ...] | None:
    """Where the headline judges the outliers' bump: the placed cluster's place when there is
    one, else the scheme's outliers' centre (:data:`SCHEME_CENTRE`); None for spread-out
    outliers (the uniform scheme: :func:`mass_where_absent`) or none at all.

    Examples
    --------
    >>> outlier_place("none", (12, (3.0,)), 0, 1), outlier_place("thin_gaussian", (0, ()), 100, 2)
    ((3.0,), (3.0, 3.0))
    """
    k, at = placed
    if k:
        return tuple(at)
    if n_scheme_outliers and scheme in SCHEME_CENTRE:
        return (SCHEME_CENTRE[scheme],) * dim
    return None


def _of_outliers(k: int, n_outliers: int) -> str:
    """Who makes the bump, with its verb: the placed cluster, or the sample's outliers."""
    count = k or n_outliers
    placed = "placed " if k else ""
    return f"the {placed}outlier gives" if count == 1 else f"the {count} {placed}outliers give"


def local_sentence(bump: Bump | None, at_place: BlockValues | None, k: int, n_outliers: int) -> str:
    """The local effect: the KDE's bump where the outliers are, how much of it MoM-KDE
    keeps, and the blocks there.

    Parameters
    ----------
    bump : Bump or None
        The outliers' bump (None: no outliers).
    at_place : BlockValues or None
        The blocks at the bump's place (None for a mass, or without MoM-KDE's blocks).
    k : int
        The outliers placed (0: the scheme's).
    n_outliers : int
        Every outlier of the sample.

    Returns
    -------
    sentence : str
        Markdown; empty without outliers.

    Examples
    --------
    >>> print(local_sentence(Bump("at 3", 0.0, 0.045, 0.0, 0.004), None, 12, 12))
    **At 3**, the 12 placed outliers give the KDE a bump of 0.045; **MoM-KDE refuses it** (≈ 0, 0 % of the KDE's excess).
    """
    if bump is None or not n_outliers:
        return ""
    who = _of_outliers(k, n_outliers)
    place = bump.place[0].upper() + bump.place[1:]
    if bump.mass:
        value = lambda v: f"{100 * v:.2g} %"  # noqa: E731
        shown = f"{value(bump.kde)} of its mass (the true density: {value(bump.truth)})"
    else:
        value = density
        truth = (
            f" over the true density's {density(bump.truth)}" if bump.truth >= NEGLIGIBLE else ""
        )
        shown = f"a bump of {density(bump.excess)}{truth}"
    if not bump.visible:
        return (
            f"**{place}**, {who} the KDE no visible bump ({value(bump.kde)}; the true "
            f"density {value(bump.truth)})."
        )
    text = (
        f"**{place}**, {who} the KDE {shown}; **MoM-KDE {bump.verdict} it** "
        f"({value(bump.mom)}, {100 * bump.kept:.0f} % of the KDE's excess)."
    )
    if at_place is None:
        return text
    s, red = len(at_place.values), int(at_place.near.sum())
    minority, red_middle = 2 * red < s, middle_is_red(at_place)
    median = "a red block's value" if red_middle else "a clean block's value"
    # "so" only where the count explains the median: fewer than half red and a clean
    # middle, or half or more red and a red middle
    link = ", so the median is " if minority != red_middle else "; the median is "
    return text[:-1] + (
        f": {red} of its {s} blocks hold an outlier there, "
        f"{'fewer than half' if minority else 'half or more'}{link}{median}."
    )


def global_sentence(
    js: Mapping[str, float],
    bump: Bump | None,
    n: int,
    n_blocks: int,
    median_mass: float | None = None,
) -> str:
    """The global distance: JS to the true density over the whole axis (or plane), and why
    MoM-KDE can be further overall while it refuses the bump.

    Parameters
    ----------
    js : mapping of str to float
        Each method's JS to the true density.
    bump : Bump or None
        The outliers' bump (None: no outliers).
    n : int
        The rows fitted.
    n_blocks : int
        S.
    median_mass : float, optional
        MoM-KDE's median's integral when the library calls it thin
        (:func:`~app_support.captions.density.thin_median`).

    Returns
    -------
    sentence : str
        Markdown; empty when JS is missing for either estimate.

    Examples
    --------
    >>> global_sentence({"kde": 0.00843, "mom_kde": 0.0115}, Bump("at 3", 0, .045, 0, .004), 1012, 21)
    "**Over the whole axis**, MoM-KDE is 1.4x further from the true density than the KDE (JS 0.0115 vs 0.00843): MoM-KDE's blocks of about 48 rows are noisier than one KDE of 1,012, the price of robustness."
    """
    verdict = compare_to_kde(js, median_mass=median_mass)
    if not verdict:
        return ""
    text = "**Over the whole axis**, " + verdict.removeprefix("Here ")
    mom, kde = js.get("mom_kde"), js.get("kde")
    further = mom is not None and kde is not None and mom > kde / CLEARLY_CLOSER
    if further and n_blocks > 1 and median_mass is None:
        # (MoM-KDE named: after "RKDE is closest", "its blocks" read as RKDE's)
        text = (
            text[:-1] + f": MoM-KDE's blocks of about {rows_per_block(n, n_blocks)} rows are "
            f"noisier than one KDE of {n:,}"
        )
        if bump is not None and bump.visible and bump.verdict == "refuses":
            text += ", the price of robustness."
        elif bump is not None and bump.visible:
            text += f", and MoM-KDE {bump.verdict} the outliers' bump."
        else:
            text += ": without a bump to refuse, that noise is all the median adds."
    return text


def headline(
    bump: Bump | None,
    at_place: BlockValues | None,
    js: Mapping[str, float],
    k: int,
    n_outliers: int,
    n: int,
    n_blocks: int,
    median_mass: float | None = None,
) -> str:
    """Explore's headline: :func:`local_sentence` then :func:`global_sentence` (or what a
    clean sample shows).

    Examples
    --------
    >>> headline(None, None, {"kde": 0.01, "mom_kde": 0.015}, 0, 0, 1000, 1)[:36]
    '**No outliers**: nothing for the med'
    """
    overall = global_sentence(js, bump, n, n_blocks, median_mass)
    if not n_outliers:
        return "**No outliers**: nothing for the median to refuse.  \n" + overall
    parts = (local_sentence(bump, at_place, k, n_outliers), overall)
    return "  \n".join(part for part in parts if part)


def view_headline(
    view: ExploreView,
    scheme: str,
    placed: tuple[int, tuple[float, ...]],
    n_blocks: int,
    js: Mapping[str, float],
    blocks_at: Callable[[tuple[float, ...]], BlockValues],
) -> str:
    """The headline of an Explore view (:func:`headline`): the outliers' bump judged on the
    figure's curves at their place (:func:`outlier_place`; for spread-out outliers the mass
    where the inliers are absent), the blocks there, then the JS.

    Parameters
    ----------
    view : ExploreView
        The view (its sample, grid, fits and true density).
    scheme : str
        The contamination scheme.
    placed : tuple
        (k, place): the outliers placed.
    n_blocks : int
        S.
    js : mapping of str to float
        Each method's JS to the true density (the metric table's).
    blocks_at : callable
        The S block KDEs at a point (:func:`~app_support.mechanism.block_values` with the
        view's sample, h and settings).

    Returns
    -------
    text : str
        Markdown; empty without both the KDE and MoM-KDE.
    """
    results = view.results
    if "mom_kde" not in results or "kde" not in results:
        return ""
    data = view.data
    curves = {"truth": view.truth, **{m: r["grid"] for m, r in results.items()}}
    place = outlier_place(scheme, placed, data.n_outliers - placed[0], data.X.shape[1])
    if place is not None:
        bump, at_place = bump_at(view.grid.axes, curves, place), blocks_at(place)
    else:
        bump = mass_where_absent(curves, view.grid.cell) if data.n_outliers else None
        at_place = None
    return headline(
        bump,
        at_place,
        js,
        placed[0],
        data.n_outliers,
        len(data.X),
        n_blocks,
        thin_median(results["mom_kde"]),
    )
