"""The captions of the Your data page: the AUC against a label, where flagged rows sit, the
share flagged, small blocks, and what the figure draws of a large file."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from momkde_core.bandwidth import n_blocks_for
from momkde_core.estimators._base import TINY_BLOCKS
from momkde_core.methods import DEFAULT_DETECTOR
from momkde_core.plots import CHANCE_AUC, method_label

from ..choices import MAX_SHARE, SAMPLE_LESSONS, block_options
from .text import listed

#: Rows per MoM-KDE block below which a block's KDE is a handful of separate bumps and their
#: median is uneven (a zig-zag curve, a jagged map); the page then says which ε or S to try.
MIN_BLOCK_ROWS = 10
#: The step of the page's ε slider: the grid of the ε it suggests.
SHARE_STEP = 0.01
#: What the rankings' percentile is.
PERCENTILE_NOTE = (
    "Percentile: the share of the rows a method was fitted on that it scores as low or "
    "lower (0.1: as low as its lowest 10 %): one scale for every method, where the scores "
    "are not (see below). The lower, the more anomalous; the shaded rows are flagged."
)


def auc_verdict(aucs: Mapping[str, float]) -> str:
    """Which methods rank the labelled outliers best, against the KDE; or, when every AUC is
    below chance, why no density method can find these outliers. The AUCs are compared as
    the table shows them (3 decimals): every method tied at the top is named, so the
    sentence never picks one of two equal numbers."""
    finite = {m: v for m, v in aucs.items() if v is not None and np.isfinite(v)}
    if not finite:
        return ""
    if max(finite.values()) < CHANCE_AUC:
        return (
            "Every AUC is below 0.5: the outliers are denser than the inliers (a spike, or a cluster on "
            "a mode), so any density scores them as normal; no choice of S or h changes that."
        )
    top = f"{max(finite.values()):.3f}"
    best = [m for m, v in finite.items() if f"{v:.3f}" == top]
    verb = "ranks" if len(best) == 1 else "rank"
    text = f"{listed(map(method_label, best))} {verb} the outliers best (AUC {top}"
    if "kde" not in best and "kde" in finite:
        text += f"; the KDE {finite['kde']:.3f}"
    return text + ")."


def flag_columns_note(flagger: str, scored: Sequence[str], drawn: Sequence[str]) -> str:
    """Why a flagged row can sit anywhere in the figure: ``flagger`` flags rows by their
    density in the columns ``scored``, the figure draws the columns ``drawn`` (1 or 2).

    Parameters
    ----------
    flagger : str
        The name of the method whose flags the figure marks.
    scored : sequence of str
        The columns the rows are scored on.
    drawn : sequence of str
        The columns the figure draws.

    Returns
    -------
    text : str
        One sentence, or "" when the figure draws exactly the columns scored.

    Examples
    --------
    >>> flag_columns_note("MoM-KDE", ["hour", "temperature_c"], ["temperature_c"])
    'MoM-KDE flags rows by their density in the 2 columns scored (hour and temperature_c), not in the one drawn: a flagged row can sit anywhere along temperature_c, even where the rows are densest.'
    """
    if set(scored) == set(drawn):
        return ""
    columns = (
        f"the column scored ({scored[0]})"
        if len(scored) == 1
        else f"the {len(scored)} columns scored ({listed(map(str, scored))})"
    )
    where = f"along {drawn[0]}" if len(drawn) == 1 else "on the maps"
    return (
        f"{flagger} flags rows by their density in {columns}, not in the "
        f"{'one' if len(drawn) == 1 else 'two'} drawn: a flagged row can sit anywhere {where}, "
        "even where the rows are densest."
    )


def figure_sample_note(n_drawn: int, n_scored: int, n_file: int) -> str:
    """What the figure draws when it draws a sample, e.g. "Drawn from 5,000 of the 200,000
    rows (a uniform sample); every row is scored in the tables and the download."
    ``n_scored`` counts the rows scored, ``n_file`` the file's data rows (more when rows were
    left out or sampled); empty when every scored row is drawn."""
    if n_drawn >= n_scored:
        return ""
    if n_scored == n_file:
        return (
            f"Drawn from {n_drawn:,} of the {n_scored:,} rows (a uniform sample); every row is "
            "scored in the tables and the download."
        )
    return (
        f"Drawn from {n_drawn:,} of the {n_scored:,} rows scored (a uniform sample); all "
        f"{n_scored:,} are scored in the tables and the download."
    )


def flag_share_note(
    label: str,
    flags: Mapping[str, np.ndarray],
    fit_rows: np.ndarray,
    eps: float,
    n_columns: int,
) -> str:
    """What share of the rows ``label`` flags, among the fitted rows and the others.

    Parameters
    ----------
    label : str
        The method the figure flags with, as the page names it (a key of ``flags``).
    flags : mapping of str to ndarray of bool, shape (n,)
        Every method's flags on every row scored, by name.
    fit_rows : ndarray of int
        The rows the methods were fitted on (a threshold is the ε-quantile of their scores).
    eps : float
        The stated share ε.
    n_columns : int
        The columns scored.

    Returns
    -------
    note : str
        The counts and shares; when rows were scored without being fitted on, their share
        too, and whether it differs from the fitted rows' by more than sampling error (two
        standard errors of the difference of two shares at ε). When it is higher, the reason
        (a fitted row counts its own kernel in its density) and every method's share of the
        other rows.
    """
    flagged = flags[label]
    n, n_fit = len(flagged), len(fit_rows)
    n_flagged = int(flagged.sum())
    text = (
        f"{label} flags {n_flagged:,} of {n:,} rows ({n_flagged / n:.1%}). Its threshold is "
        "the ε-quantile of the scores of the rows it was fitted on (as IsolationForest sets "
        f"it), so the stated share ε = {eps:g} of those rows is flagged, up to ties"
    )
    if n_fit == n:
        return text + "."
    others = np.ones(n, bool)
    others[fit_rows] = False
    share_fit, share_other = flagged[fit_rows].mean(), flagged[others].mean()
    noise = 2 * math.sqrt(eps * (1 - eps) * (1 / n_fit + 1 / (n - n_fit)))
    text += (
        f": {share_fit:.1%} of the {n_fit:,} fitted rows and {share_other:.1%} of the "
        f"{n - n_fit:,} others. "
    )
    if share_other - share_fit > noise:
        return text + (
            f"The others are flagged more often than sampling error explains (±{noise:.1%}): "
            "a fitted row counts its own kernel in its density and a row scored afresh does "
            "not, which lifts the fitted rows' scores, the more so the more columns (here "
            f"{n_columns}) and the smaller h, so a threshold set on them catches more of the "
            "others; a median over blocks, or the default detector's mean of its blocks' "
            "log densities, is little moved by it (a row sits in one block of S). Share of "
            "the others flagged: "
            + ", ".join(f"{m} {f[others].mean():.1%}" for m, f in flags.items())
            + "."
        )
    if share_fit - share_other > noise:
        return (
            text + f"The others are flagged less often than sampling error explains (±{noise:.1%})."
        )
    return text + f"The difference is within sampling error (±{noise:.1%})."


def blocks_note(
    n: int, n_blocks: int, eps: float, auto: bool, n_outliers: int | None = None
) -> str:
    """Advice when MoM-KDE's blocks hold fewer than :data:`MIN_BLOCK_ROWS` rows, else "".

    Parameters
    ----------
    n : int
        The rows MoM-KDE is fitted on.
    n_blocks : int
        S, its blocks (S auto = 2⌈εn⌉+1 when ``auto``).
    eps : float
        The stated share ε (it also sets the share flagged).
    auto : bool
        Whether S is S auto.
    n_outliers : int, optional
        The label's outliers among the fitted rows, when a label is known.

    Returns
    -------
    note : str
        The rows per block n / S and what they do to the figure. Then, when the label's
        outliers need more blocks than smooth ones (S > 2|O| with at least
        :data:`MIN_BLOCK_ROWS` rows each is out of reach), that the unevenness is the price
        of robustness; otherwise, when S is auto, the largest ε of the page's slider (the
        most robust) whose S auto gives blocks of at least :data:`MIN_BLOCK_ROWS` rows, and,
        keeping ε, the largest S of the S slider that does, each with the outlying rows it
        can outvote (S > 2|O|); or that no S of 3 or more can.

    Examples
    --------
    >>> print(blocks_note(75, 17, 0.1, True))  # doctest: +ELLIPSIS
    MoM-KDE's S = 17 blocks hold 4.4 rows each (n / S = 75 / 17)... try ε = 0.04 (S auto = 7: 10.7 rows per block...
    """
    per_block = n / n_blocks
    if n_blocks < 3 or per_block >= MIN_BLOCK_ROWS:
        return ""
    text = (
        f"MoM-KDE's S = {n_blocks} blocks hold {per_block:.1f} rows each (n / S = {n:,} / "
        f"{n_blocks}), fewer than {MIN_BLOCK_ROWS}: the KDE of so few rows is a handful of "
        "separate bumps, and their median is uneven (a zig-zag curve, a jagged map with small "
        "peaks). "
    )
    smooth_blocks = [v for v in block_options(n) if v >= 3 and n / v >= MIN_BLOCK_ROWS]
    if not smooth_blocks:
        return text + (
            f"With {n:,} rows no S of 3 blocks or more gives {MIN_BLOCK_ROWS} rows per block: "
            "read MoM-KDE's curve as a rough outline."
        )
    blocks = smooth_blocks[-1]
    if n_outliers and blocks <= 2 * n_outliers:
        return text + (
            f"Smoother blocks cannot outvote the label's {n_outliers:,} outliers among the "
            f"fitted rows: that takes S > {2 * n_outliers:,}, blocks of at most "
            f"{n / (2 * n_outliers + 1):.1f} rows, so the unevenness is the price of "
            "robustness here."
        )
    keep = (
        f"keep ε and set S = {blocks} by hand (manual: {n / blocks:.1f} rows per block, "
        f"outvoting at most {(blocks - 1) // 2} outlying row(s), S > 2|O|"
        + (f", fewer than the εn = {eps * n:.3g} you state" if (blocks - 1) // 2 < eps * n else "")
        + ")"
    )
    shares = (round(k * SHARE_STEP, 2) for k in range(round(MAX_SHARE / SHARE_STEP), 0, -1))
    share = next((e for e in shares if n / n_blocks_for(n, e) >= MIN_BLOCK_ROWS), None)
    if not auto or share is None:
        return text + f"To smooth it, {keep}."
    s_auto = n_blocks_for(n, share)
    return text + (
        f"To smooth it, try ε = {share:g} (S auto = {s_auto}: {n / s_auto:.1f} rows per block, "
        f"outvoting at most {(s_auto - 1) // 2} outlying row(s); it also flags {share:.0%} of "
        f"the rows instead of {eps:.0%}), or {keep}."
    )


def too_few_rows_note(n_rows: int) -> str:
    """What is wrong with a file of fewer than 2 data rows, and what to do.

    Examples
    --------
    >>> print(too_few_rows_note(1))  # doctest: +ELLIPSIS
    The file has 1 data row below its header: a density needs at least 2 rows, ...
    """
    rows = "data row" if n_rows == 1 else "data rows"
    return (
        f"The file has {n_rows} {rows} below its header: a density needs at least 2 rows, "
        "and MoM-KDE a few in each of its blocks. Upload a file with more rows (a few "
        "hundred give a density worth reading) or pick a sample in the sidebar."
    )


def thin_blocks_note(dropped: Mapping[str, int], n: int, kept: Sequence[str]) -> str:
    """Why the methods ``dropped`` (name -> S) are left out on ``n`` rows: their blocks would
    hold fewer than the library's minimum; which methods (``kept``) are shown instead.

    Examples
    --------
    >>> print(thin_blocks_note({"mom_kde_21": 21, "mom_kde": 3}, 2, ["kde", "rkde"]))
    With 2 rows, MoM-KDE (S = 21, Scott h) and MoM-KDE (S = 3) are left out: a median of S block KDEs needs at least 2 rows per block, 42 and 6 rows here. Shown: KDE and RKDE.
    """
    named = [
        method_label(m) if m == DEFAULT_DETECTOR else f"{method_label(m)} (S = {blocks})"
        for m, blocks in dropped.items()
    ]
    needs = [f"{TINY_BLOCKS * blocks:,}" for blocks in dropped.values()]
    verb = "is" if len(named) == 1 else "are"
    shown = (
        f" Shown: {listed(map(method_label, kept))}."
        if kept
        else " Choose KDE, RKDE or SPKDE under Methods in the sidebar."
    )
    return (
        f"With {n:,} rows, {listed(named)} {verb} left out: a median of S block KDEs needs "
        f"at least {TINY_BLOCKS} rows per block, {listed(needs)} rows here.{shown}"
    )


def naming_note(key: Hashable | None) -> str:
    """How the tables name rows: by the file's id column ``key``, or by their row number."""
    if key is not None:
        return f"Rows are named by the file's id column {key!r}."
    return "row: the row's number in the file (1 = the first line below the header)."


def ranking_note(
    label: str,
    flagged: np.ndarray,
    percentile: np.ndarray,
    listed: int,
    max_listed: int,
    key: Hashable | None,
) -> str:
    """What one method's ranking lists: its ``listed`` most anomalous rows, the flagged ones
    among them (``flagged`` and ``percentile``: every row's), and how rows are named.

    Parameters
    ----------
    label : str
        The method's name.
    flagged : ndarray of bool
        The rows it flags, among every row scored.
    percentile : ndarray
        Every row's percentile.
    listed : int
        The rows listed.
    max_listed : int
        The most rows a ranking lists.
    key : hashable or None
        The id column naming the rows (:func:`naming_note`).

    Returns
    -------
    note : str
        The caption under the ranking.
    """
    n, n_flags = len(flagged), int(flagged.sum())
    listed_flags = min(n_flags, listed)
    return (
        f"The {listed:,} most anomalous of the {n:,} rows scored: "
        + (
            f"all {n_flags:,} rows {label} flags (shaded)"
            if listed_flags == n_flags
            else f"{listed_flags:,} of the {n_flags:,} rows {label} flags "
            f"(shaded; {max_listed:,} rows at most here, the download has them all)"
        )
        + (f", percentiles up to {percentile[flagged].max():.3g}" if n_flags else "")
        + (
            f", then the {listed - listed_flags:,} rows just above its threshold"
            if listed > listed_flags
            else ""
        )
        + ". "
        + naming_note(key)
    )


def download_note(
    n_columns: int,
    h: float,
    screened_own_h: bool,
    n_file: int,
    n_rows: int,
    key: Hashable | None,
    n_unscored: int,
    methods: Sequence[str] = (),
) -> str:
    """What a score is and what the download holds.

    Parameters
    ----------
    n_columns : int
        The columns scored.
    h : float
        Their bandwidth.
    screened_own_h : bool
        Whether the screened KDE is shown with its own cross-validated h.
    n_file, n_rows : int
        The file's data rows and the rows the page works on (a sample when fewer).
    key : hashable or None
        The id column naming the rows.
    n_unscored : int
        The rows not scored (a missing value).
    methods : sequence of str, default ()
        The methods scored (the default detector keeps its own h: :func:`own_settings`).

    Returns
    -------
    note : str
        The caption above the download button.
    """
    in_download = (
        f"every one of the file's {n_file:,} rows"
        if n_file == n_rows
        else f"the {n_rows:,} rows sampled from the file's {n_file:,}"
    )
    return (
        "Score: the method's log density ("
        + (
            f"{method_label(DEFAULT_DETECTOR)}'s: the mean of its blocks' log densities; "
            if DEFAULT_DETECTOR in methods
            else ""
        )
        + f"in {n_columns} column(s), h = {h:.3g}"
        + (f", the sidebar's: {own_settings(methods)}" if own_settings(methods) else "")
        + (
            "; the screened KDE's own h, cross-validated on the rows it keeps"
            if screened_own_h
            else ""
        )
        + ") minus its threshold, negative for the flagged rows, on the method's own scale "
        "(MoM-KDE's density is not normalised), so two methods' scores do not compare. The "
        "download holds "
        + in_download
        + (f", named by {key!r}" if key is not None else ", with its row number in the file (row)")
        + ", and each method's percentile_<method>, score_<method> (as momkde score writes "
        "it) and is_outlier_<method>"
        + (
            f"; the {n_unscored:,} row(s) not scored keep empty scores and a note"
            if n_unscored
            else ""
        )
        + "."
    )


def auc_note(aucs: Mapping[str, float], n: int) -> str:
    """:func:`auc_verdict`, then what the AUCs of the ``n`` rows scored are."""
    return (
        auc_verdict(aucs)
        + f" AUC of the density as an outlier score against your label, over the {n:,} rows "
        "scored (1: every outlier scored lower than every inlier, 0.5: chance)."
    )


def sampled_file_note(n_file: int, max_rows: int) -> str:
    """That the page works on a sample of ``max_rows`` of the file's ``n_file`` rows."""
    return (
        f"The file has {n_file:,} rows, more than the {max_rows:,} this page scores: "
        f"it works on a uniform random sample of {max_rows:,} of them (the tables and "
        "the download name each by its row number in the file). "
    )


def own_settings(methods: Sequence[str]) -> str:
    """ "<the default detector> keeps its own" when the library's default detector is among
    ``methods``: it keeps its own S and h, which its name gives, not the sidebar's ("" when
    it is not shown).

    Examples
    --------
    >>> own_settings(["kde", "mom_kde_21"])
    'MoM-KDE (S = 21, Scott h) keeps its own'
    """
    return f"{method_label(DEFAULT_DETECTOR)} keeps its own" if DEFAULT_DETECTOR in methods else ""


def density_caption(
    h: float,
    n_blocks: int,
    reading: str,
    n_fit: int,
    n: int,
    n_drawn: int,
    n_file: int,
    methods: Sequence[str] = (),
) -> str:
    """The caption of the Your data figure, what it shows: h and S (:func:`own_settings` of
    the ``methods`` shown), its ``reading`` (what the ticks, dots, circles and axes are), the
    rows fitted on (``n_fit`` of the ``n`` scored) and what the figure draws (``n_drawn``
    rows) of the file's ``n_file`` (:func:`figure_sample_note`), and, with the default
    detector shown, that its density drawn is its blocks' median while its flags rank by the mean of
    their logs. How to read MoM-KDE against the KDE: :func:`density_notes`.

    Examples
    --------
    >>> density_caption(0.2, 21, "Ticks below the axis: the rows.", 300, 300, 300, 300)
    'h = 0.2, S = 21. Ticks below the axis: the rows.'
    >>> print(density_caption(0.2, 21, "Ticks: the rows.", 300, 300, 300, 300, ["mom_kde_21"]))
    h = 0.2, S = 21 (the sidebar's; MoM-KDE (S = 21, Scott h) keeps its own). Ticks: the rows.
    MoM-KDE (S = 21, Scott h)'s density drawn is the median of its blocks' densities; its
    scores and flags rank the rows by the mean of their logs.
    """
    return " ".join(
        [
            f"h = {h:.3g}, S = {n_blocks}"
            + (f" (the sidebar's; {own_settings(methods)})." if own_settings(methods) else "."),
            reading,
            *(
                [
                    f"{method_label(DEFAULT_DETECTOR)}'s density drawn is the median of its "
                    "blocks' densities; its scores and flags rank the rows by the mean of "
                    "their logs."
                ]
                if DEFAULT_DETECTOR in methods
                else []
            ),
            *([f"The curves are fitted on {n_fit:,} random rows."] if n_fit < n else []),
            figure_sample_note(n_drawn, n, n_file),
        ]
    ).strip()


def density_notes(notes: Sequence[str]) -> str:
    """How to read MoM-KDE against the KDE in the Your data figure, then the ``notes`` that
    apply ("" for none: why h or S, the screened KDE's h, where flagged rows sit).

    Examples
    --------
    >>> density_notes(["", "A note."])[:40]
    'MoM-KDE ignores a group of rows that sit'
    """
    return " ".join(
        [
            "MoM-KDE ignores a group of rows that sits in fewer than half of the blocks, so "
            "where the KDE rises over a small group and MoM-KDE stays low, that group is a "
            "likely cluster of outliers.",
            *(note for note in notes if note),
        ]
    )


def sample_outcome(
    aucs: Mapping[str, float],
    caught: Mapping[str, int],
    n_outliers: int,
    outliers: str,
    n_blocks: int,
) -> str:
    """What the bundled sample shows with the page's settings, from the numbers the page
    shows: how the sidebar's MoM-KDE (``n_blocks`` blocks, named with them: the default
    detector is another MoM-KDE) ranks the label's ``n_outliers`` outliers (named
    ``outliers``) against the KDE, by their AUCs (as the table shows them, 3 decimals), and
    how many of them each flags (``caught``: method -> outliers among its flagged rows). ""
    without both methods.

    Examples
    --------
    >>> print(sample_outcome({"kde": 0.97, "mom_kde": 1.0}, {"kde": 53, "mom_kde": 60}, 60, "x", 193))
    Here MoM-KDE (S = 193) ranks the 60 rows labelled 'x' better than the KDE (AUC 1.000
    against 0.970); MoM-KDE (S = 193) flags 60 of them, the KDE 53.
    """
    if not all(m in aucs and np.isfinite(aucs[m]) and m in caught for m in ("kde", "mom_kde")):
        return ""
    name = f"MoM-KDE (S = {n_blocks})"
    mom, kde = (f"{aucs[m]:.3f}" for m in ("mom_kde", "kde"))
    rows = f"the {n_outliers:,} rows labelled {outliers!r}"
    if max(float(mom), float(kde)) < CHANCE_AUC:
        how = (
            f"Here {name} and the KDE both rank {rows} as more normal than the inliers "
            f"(AUC {mom} and {kde}, below 0.5)"
        )
    elif mom == kde:
        how = f"Here {name} ranks {rows} as well as the KDE (AUC {mom})"
    else:
        how = (
            f"Here {name} ranks {rows} {'better' if mom > kde else 'worse'} than the KDE "
            f"(AUC {mom} against {kde})"
        )
    return f"{how}; {name} flags {caught['mom_kde']:,} of them, the KDE {caught['kde']:,}."


def sample_banner(name: str, outcome: str = "") -> str:
    """The banner of the bundled sample ``name``: what it was made to show and how, then
    ``outcome``, what it shows with the page's settings (computed from the numbers shown)."""
    shows, lesson = SAMPLE_LESSONS[name]
    return " ".join(filter(None, [f"**{shows[:1].upper()}{shows[1:]}.**", lesson, outcome]))
